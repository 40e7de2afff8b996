#include "body_mass.h"

namespace arbiter::internal {
namespace {

// Raw sums are kept in 128 bits and checked once at the end: the wrapping
// 64-bit sums of Fixed give the same bits whenever the final value fits,
// so checking only the result keeps every representable body bit-identical
// to the unchecked arithmetic it replaces.
bool FitsFixed(Int128 raw, Fixed* out) {
  if (!raw.FitsInt64()) return false;
  *out = Fixed::FromRaw(raw.ToInt64Wrapped());
  return true;
}

// a * b rounded to Q32.32 as a raw value (what Fixed's operator* rounds to,
// without its saturation).
Int128 ProductRaw(Fixed a, Fixed b) { return MulWide(a, b).ShiftRightRound(Fixed::kFractionBits); }

}  // namespace

bool ComputeBodyMass(std::span<const ShapeDef> shapes, BodyMass* out) {
  *out = BodyMass{};
  Int128 mass_raw = 0;
  Int128 moment_x = 0, moment_y = 0;  // sum of m c (Q64.64); below 2^126 for 64 shapes
  Int128 origin_inertia_raw = 0;      // about the body origin
  for (const ShapeDef& sd : shapes) {
    const MassData md = ComputeMass(sd.shape, sd.density);
    if (!md.representable) return false;
    // The parallel-axis term m |c|^2: both factors and the product must fit
    // (a shape far from its body's origin can make |c|^2 alone exceed 2^31).
    Fixed center2, shift;
    if (!FitsFixed(LengthSquaredWide(md.center).ShiftRightRound(Fixed::kFractionBits), &center2)) return false;
    if (!FitsFixed(ProductRaw(md.mass, center2), &shift)) return false;
    mass_raw += md.mass.raw();
    moment_x += MulWide(md.mass, md.center.x);
    moment_y += MulWide(md.mass, md.center.y);
    origin_inertia_raw += Int128(md.rotational_inertia.raw()) + Int128(shift.raw());
  }
  Fixed mass, origin_inertia;
  if (!FitsFixed(mass_raw, &mass) || !FitsFixed(origin_inertia_raw, &origin_inertia)) return false;
  if (mass <= kFixedZero) {
    // No area (segments only): unit mass at the origin, no rotation.
    out->inv_mass = kFixedOne;
    return true;
  }
  out->inv_mass = kFixedOne / mass;
  // A mass-weighted mean of the shapes' centres: as representable as they are.
  out->local_center = {DivWide(moment_x, mass), DivWide(moment_y, mass)};
  Fixed center2, shift;
  if (!FitsFixed(LengthSquaredWide(out->local_center).ShiftRightRound(Fixed::kFractionBits), &center2)) return false;
  if (!FitsFixed(ProductRaw(mass, center2), &shift)) return false;
  const Fixed inertia = origin_inertia - shift;  // both >= 0: no wrap
  out->inv_inertia = inertia > kFixedZero ? kFixedOne / inertia : kFixedZero;
  return true;
}

}  // namespace arbiter::internal
