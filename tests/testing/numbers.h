// World units as Fixed for tests and benchmarks, the conversion named in the
// helper: Fd/Vd go through Fixed::FromDouble (nearest Q32.32, ties away from
// zero), Fi/Vi through Fixed::FromInt (whole units, exact). Fd(2) and Fi(2)
// are the same value; Fd(0.1) is the nearest raw value to 0.1, and Fi has no
// fractions at all, so a test says which one it means.
#pragma once

#include <cstdint>

#include "arbiter/core/fixed.h"
#include "arbiter/core/math.h"
#include "testing/random.h"

namespace arbiter::testing {

/// `d` world units, rounded by Fixed::FromDouble.
inline Fixed Fd(double d) { return Fixed::FromDouble(d); }
/// (x, y) world units, each rounded by Fixed::FromDouble.
inline Vec2 Vd(double x, double y) { return {Fd(x), Fd(y)}; }

/// `units` whole world units, Fixed::FromInt.
constexpr Fixed Fi(int64_t units) { return Fixed::FromInt(units); }
/// (x, y) whole world units, each Fixed::FromInt.
constexpr Vec2 Vi(int64_t x, int64_t y) { return {Fi(x), Fi(y)}; }

/// Fd of a uniform draw in [lo, hi) (UniformD).
inline Fixed RandomFixed(SplitMix64& rng, double lo, double hi) { return Fd(UniformD(rng, lo, hi)); }
/// Both coordinates RandomFixed in [-half, half), x drawn first.
inline Vec2 RandomVec(SplitMix64& rng, double half) {
  return {RandomFixed(rng, -half, half), RandomFixed(rng, -half, half)};
}

}  // namespace arbiter::testing
