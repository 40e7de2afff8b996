// File: math.h
//
// 2D vectors, rotations, transforms and boxes over Fixed. POD structs plus
// small free functions, in the manner of Box2D's math_functions.h. Functions
// named *Wide return the exact Q64.64 value (an Int128) so that predicates can
// compare without rounding; the others round once to Q32.32.
#pragma once

#include "arbiter/core/fixed.h"
#include "arbiter/core/limits.h"

namespace arbiter {

struct Vec2 {
  Fixed x;
  Fixed y;
  friend constexpr bool operator==(const Vec2&, const Vec2&) = default;
};

/// Builds a vector from whole units (exact).
constexpr Vec2 MakeVec2(int64_t x, int64_t y) { return {Fixed::FromInt(x), Fixed::FromInt(y)}; }

constexpr Vec2 operator+(Vec2 a, Vec2 b) { return {a.x + b.x, a.y + b.y}; }
constexpr Vec2 operator-(Vec2 a, Vec2 b) { return {a.x - b.x, a.y - b.y}; }
constexpr Vec2 operator-(Vec2 a) { return {-a.x, -a.y}; }
constexpr Vec2 operator*(Fixed s, Vec2 v) { return {s * v.x, s * v.y}; }
inline Vec2& operator+=(Vec2& a, Vec2 b) { return a = a + b; }
inline Vec2& operator-=(Vec2& a, Vec2 b) { return a = a - b; }

/// a + s * b, each component rounded once.
constexpr Vec2 MulAdd(Vec2 a, Fixed s, Vec2 b) { return {a.x + s * b.x, a.y + s * b.y}; }

/// Exact dot and cross products (Q64.64).
constexpr Int128 DotWide(Vec2 a, Vec2 b) { return MulWide(a.x, b.x) + MulWide(a.y, b.y); }
constexpr Int128 CrossWide(Vec2 a, Vec2 b) { return MulWide(a.x, b.y) - MulWide(a.y, b.x); }
constexpr Int128 LengthSquaredWide(Vec2 v) { return DotWide(v, v); }

/// Rounded dot and cross products.
constexpr Fixed Dot(Vec2 a, Vec2 b) { return RoundWide(DotWide(a, b)); }
constexpr Fixed Cross(Vec2 a, Vec2 b) { return RoundWide(CrossWide(a, b)); }
/// Cross of a vector with a scalar (s as a z-axis vector): v x s = (s vy, -s vx).
constexpr Vec2 CrossVS(Vec2 v, Fixed s) { return {s * v.y, -(s * v.x)}; }
/// s x v = (-s vy, s vx).
constexpr Vec2 CrossSV(Fixed s, Vec2 v) { return {-(s * v.y), s * v.x}; }

/// Counter-clockwise perpendicular (-y, x).
constexpr Vec2 LeftPerp(Vec2 v) { return {-v.y, v.x}; }
/// Clockwise perpendicular (y, -x): the outward normal of a CCW edge.
constexpr Vec2 RightPerp(Vec2 v) { return {v.y, -v.x}; }

/// |v|, correctly rounded.
Fixed Length(Vec2 v);
/// |a - b|, correctly rounded.
inline Fixed Distance(Vec2 a, Vec2 b) { return Length(b - a); }

/// v / |v| with each component rounded to nearest; the zero vector for a
/// zero input. The result's length is within 2^-31 of one.
Vec2 Normalize(Vec2 v);
/// As Normalize, and also returns |v| in *length.
Vec2 GetLengthAndNormalize(Fixed* length, Vec2 v);

/// A rotation as a (cosine, sine) pair; like a unit complex number.
struct Rot {
  Fixed c = kFixedOne;
  Fixed s;
  friend constexpr bool operator==(const Rot&, const Rot&) = default;
};
constexpr Rot kRotIdentity = {kFixedOne, kFixedZero};

/// Rotates v by q: (c x - s y, s x + c y), each component rounded once.
constexpr Vec2 RotateVector(Rot q, Vec2 v) {
  return {RoundWide(MulWide(q.c, v.x) - MulWide(q.s, v.y)), RoundWide(MulWide(q.s, v.x) + MulWide(q.c, v.y))};
}
/// Rotates v by the inverse of q.
constexpr Vec2 InvRotateVector(Rot q, Vec2 v) {
  return {RoundWide(MulWide(q.c, v.x) + MulWide(q.s, v.y)), RoundWide(MulWide(q.c, v.y) - MulWide(q.s, v.x))};
}
/// q * r (rotate by r, then by q).
constexpr Rot MulRot(Rot q, Rot r) {
  return {RoundWide(MulWide(q.c, r.c) - MulWide(q.s, r.s)), RoundWide(MulWide(q.s, r.c) + MulWide(q.c, r.s))};
}
/// q^-1 * r.
constexpr Rot InvMulRot(Rot q, Rot r) {
  return {RoundWide(MulWide(q.c, r.c) + MulWide(q.s, r.s)), RoundWide(MulWide(q.c, r.s) - MulWide(q.s, r.c))};
}
/// Scales (c, s) back to unit length (identity for a zero pair).
Rot NormalizeRot(Rot q);

/// A rigid transform: rotate, then translate by p.
struct Transform {
  Vec2 p;
  Rot q;
  friend constexpr bool operator==(const Transform&, const Transform&) = default;
};
constexpr Transform kTransformIdentity = {{}, kRotIdentity};

constexpr Vec2 TransformPoint(const Transform& xf, Vec2 v) { return RotateVector(xf.q, v) + xf.p; }
constexpr Vec2 InvTransformPoint(const Transform& xf, Vec2 v) { return InvRotateVector(xf.q, v - xf.p); }
/// a * b: the transform that applies b, then a.
constexpr Transform MulTransforms(const Transform& a, const Transform& b) {
  return {RotateVector(a.q, b.p) + a.p, MulRot(a.q, b.q)};
}
/// a^-1 * b: b expressed in a's frame.
constexpr Transform InvMulTransforms(const Transform& a, const Transform& b) {
  return {InvRotateVector(a.q, b.p - a.p), InvMulRot(a.q, b.q)};
}

/// An axis-aligned box; valid when lower <= upper componentwise.
struct Aabb {
  Vec2 lower;
  Vec2 upper;
  friend constexpr bool operator==(const Aabb&, const Aabb&) = default;
};

constexpr bool IsValid(const Aabb& a) { return a.lower.x <= a.upper.x && a.lower.y <= a.upper.y; }
/// Exact; boxes that share only a boundary overlap.
constexpr bool Overlaps(const Aabb& a, const Aabb& b) {
  return !(b.lower.x > a.upper.x || b.lower.y > a.upper.y || a.lower.x > b.upper.x || a.lower.y > b.upper.y);
}
/// True when b lies inside a (boundaries included).
constexpr bool Contains(const Aabb& a, const Aabb& b) {
  return a.lower.x <= b.lower.x && a.lower.y <= b.lower.y && b.upper.x <= a.upper.x && b.upper.y <= a.upper.y;
}
constexpr Aabb Union(const Aabb& a, const Aabb& b) {
  return {{Min(a.lower.x, b.lower.x), Min(a.lower.y, b.lower.y)}, {Max(a.upper.x, b.upper.x), Max(a.upper.y, b.upper.y)}};
}
/// Perimeter, the surface-area heuristic's cost in 2D.
constexpr Fixed Perimeter(const Aabb& a) {
  return ((a.upper.x - a.lower.x) + (a.upper.y - a.lower.y)).ShiftLeft(1);
}
constexpr Vec2 Center(const Aabb& a) { return {(a.lower.x + a.upper.x).Half(), (a.lower.y + a.upper.y).Half()}; }

/// True when |x| and |y| are at most kMaxWorldCoordinate.
constexpr bool IsInWorldRange(Vec2 v) {
  return WithinMagnitude(v.x, kFixedMaxWorldCoordinate) && WithinMagnitude(v.y, kFixedMaxWorldCoordinate);
}

}  // namespace arbiter
