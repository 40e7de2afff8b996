#include "arbiter/core/fixed.h"

#include <cmath>

namespace arbiter {

Fixed DivWide(Int128 q64, Fixed d) {
  if (d.raw() == 0) {
    if (q64.IsZero()) return kFixedZero;
    return q64.IsNegative() ? Fixed::Min() : Fixed::Max();
  }
  return Fixed::FromWide(DivRoundNearest(q64, d.raw()));
}

Fixed RatioWide(Int128 num, Int128 den) {
  if (den.IsZero()) {
    if (num.IsZero()) return kFixedZero;
    return num.IsNegative() ? Fixed::Min() : Fixed::Max();
  }
  if (den.IsNegative()) {
    num = -num;
    den = -den;
  }
  const int excess = den.BitWidth() - 62;
  if (excess > 0) {
    num = num.ShiftRight(excess);
    den = den.ShiftRight(excess);
  }
  // |num / den| >= 2^31 cannot be represented: saturate before the shift
  // below could overflow.
  if (num.Abs() >= den.ShiftLeft(31)) return num.IsNegative() ? Fixed::Min() : Fixed::Max();
  return Fixed::FromWide(DivRoundNearest(num.ShiftLeft(Fixed::kFractionBits), den.ToInt64Wrapped()));
}

Fixed operator/(Fixed a, Fixed b) { return DivWide(Int128(a.raw()).ShiftLeft(Fixed::kFractionBits), b); }

Fixed Fixed::FromRatio(int64_t num, int64_t den) {
  if (den == 0) return num == 0 ? kFixedZero : (num < 0 ? Min() : Max());
  return FromWide(DivRoundNearest(Int128(num).ShiftLeft(kFractionBits), den));
}

// Conversions from double exist for the edges only (scene files, client
// helpers): scaling by 2^32 is exact, so the single rounding is llround's.
bool Fixed::IsRepresentable(double d) {
  if (!std::isfinite(d)) return false;
  const double scaled = std::round(std::ldexp(d, kFractionBits));
  return scaled >= -9223372036854775808.0 && scaled < 9223372036854775808.0;
}

Fixed Fixed::FromDouble(double d) {
  if (std::isnan(d)) return kFixedZero;
  if (!IsRepresentable(d)) return d < 0 ? Min() : Max();
  return FromRaw(std::llround(std::ldexp(d, kFractionBits)));
}

}  // namespace arbiter
