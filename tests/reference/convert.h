// File: convert.h
//
// The only bridge between core types and the double reference. Conversions
// are exact whenever the value (relative to `origin`) is below 2^21 units:
// a Q32.32 value then has at most 53 significant bits. That is why tests
// convert relative to a local origin: at world coordinates near 2^28 a
// plain ToDouble would round away the low bits, and the comparison would
// measure the conversion instead of the algorithms.
#pragma once

#include "arbiter/core/fixed.h"
#include "arbiter/core/math.h"
#include "arbiter/core/proxy.h"
#include "reference/reference.h"

namespace arbiter::reference {

inline double ToD(Fixed f) { return f.ToDouble(); }
inline DVec2 ToD(Vec2 v) { return {v.x.ToDouble(), v.y.ToDouble()}; }

/// v - origin, subtracted exactly in Q32.32 before converting.
inline DVec2 ToD(Vec2 v, Vec2 origin) { return ToD(v - origin); }

/// The other way: each coordinate rounded by Fixed::FromDouble.
inline Vec2 FromD(DVec2 v) { return {Fixed::FromDouble(v.x), Fixed::FromDouble(v.y)}; }

inline DProxy ToD(const ShapeProxy& proxy, Vec2 origin = {}) {
  DProxy out;
  for (int i = 0; i < proxy.count; ++i) out.points.push_back(ToD(proxy.points[i], origin));
  out.radius = proxy.radius.ToDouble();
  return out;
}

}  // namespace arbiter::reference
