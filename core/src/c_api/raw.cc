// Raw Q32.32 helpers of the C interface. This is the one file of the C
// interface that touches floating point, and only by calling Fixed's edge
// conversions, so a client's double -> raw is the server's bit for bit
// (tests/core/check_core_sources.sh allows exactly this file).
#include "arbiter/c/arbiter.h"
#include "arbiter/core/fixed.h"
#include "arbiter/core/fixed_math.h"

using arbiter::Fixed;

extern "C" {

int64_t arb_raw_from_int(int32_t v) { return Fixed::FromInt(v).raw(); }

int64_t arb_raw_from_ratio(int64_t num, int64_t den) { return Fixed::FromRatio(num, den).raw(); }

int32_t arb_raw_is_representable(double d) { return Fixed::IsRepresentable(d) ? 1 : 0; }

int64_t arb_raw_from_double(double d) { return Fixed::FromDouble(d).raw(); }

double arb_raw_to_double(int64_t raw) { return Fixed::FromRaw(raw).ToDouble(); }

void arb_rot_from_angle(int64_t angle, arb_rot* out) {
  if (out == nullptr) return;
  const arbiter::Rot q = arbiter::MakeRot(Fixed::FromRaw(angle));
  out->c = q.c.raw();
  out->s = q.s.raw();
}

}  // extern "C"
