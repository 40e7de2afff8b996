// libFuzzer target: every narrow-phase function of the core on shapes,
// placements, rays and casts decoded from the fuzz bytes.
//
// Inputs are wrapped into the documented ranges (shapes.h: shape-local
// coordinates and radii |v| <= 2^24; fixed.h: positions |v| <= 2^29;
// world.h: ray translations |v| <= 2^30, max_fraction in [0, 1]; unit
// rotations within IsUnitRotation's tolerance), except that a "hostile" bit
// lets shape coordinates go four times past their limit so that the
// validators see out-of-range input too. Values come from a few generators
// (full-width raw values, small multiples of 1/256, a few ulp around small
// integers, the range edges) because touching and near-parallel cases live
// at the small scales and overflow lives at the edges.
//
// Beyond "no crash, no UB" it checks what the headers promise:
//  - constructors: accepted shapes are in range and re-validate; a rejected
//    polygon leaves *out untouched; validity does not depend on which vertex
//    comes first, and a reversed valid polygon is "not counter-clockwise";
//  - TestOverlap symmetric and exact against ContainsPoint (a point proxy
//    of radius zero overlaps a shape exactly when the shape contains it);
//  - ShapeDistance: zero exactly when overlapping, symmetric within the
//    rounding bound of tests/core/property_test.cc (PosTol);
//  - Collide: at most two points, separations <= the speculative distance,
//    Collide(b, a) the exact flip of Collide(a, b) (negated normal, same
//    points and separations, ids differing by the flip bit) as manifold.h
//    and tests/core/manifold_test.cc pin; no missed contact when overlapping;
//  - RayCast / ShapeCast: start inside exactly when the exact predicate says
//    so (fraction 0, zero normal), fractions in [0, max_fraction], unit
//    normals, empty misses, and no miss when the end of the ray or sweep is
//    inside;
//  - ComputeHull: strictly convex, counter-clockwise, from the leftmost
//    point, containing every input point.
#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <array>
#include <initializer_list>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "arbiter/core/collision.h"
#include "arbiter/core/fixed_math.h"
#include "arbiter/core/hull.h"
#include "arbiter/core/manifold.h"
#include "arbiter/core/proxy.h"
#include "arbiter/core/shapes.h"
#include "arbiter/core/world.h"
#include "fuzz_check.h"

namespace arbiter {
namespace {

constexpr int64_t kShapeRaw = kMaxShapeExtent * Fixed::kOneRaw;       // 2^56
constexpr int64_t kWorldRaw = kMaxWorldCoordinate * Fixed::kOneRaw;   // 2^61
constexpr int64_t kTranslationRaw = int64_t{1} << 62;                 // 2^30 units
// Every world-space point of a placed shape (shapes.h).
constexpr int64_t kPlacedRaw = kWorldRaw + 2 * kShapeRaw;

// v itself when |v| <= limit, else v folded into [-limit, limit].
int64_t Wrap(int64_t v, int64_t limit) {
  if (v >= -limit && v <= limit) return v;
  const uint64_t span = 2 * static_cast<uint64_t>(limit) + 1;
  return static_cast<int64_t>(static_cast<uint64_t>(v) % span - static_cast<uint64_t>(limit));
}

Fixed Value(FuzzedDataProvider& in, int64_t limit) {
  switch (in.ConsumeIntegralInRange<int>(0, 4)) {
    case 0: return Fixed::FromRaw(Wrap(in.ConsumeIntegral<int64_t>(), limit));
    case 1:  // multiples of 1/256 within +-128 units
      return Fixed::FromRaw(Wrap(int64_t{in.ConsumeIntegral<int16_t>()} * (int64_t{1} << 24), limit));
    case 2: {  // a few ulp around a small integer
      const int64_t whole = int64_t{in.ConsumeIntegral<int8_t>()} * Fixed::kOneRaw;
      return Fixed::FromRaw(Wrap(whole + in.ConsumeIntegralInRange<int64_t>(-16, 16), limit));
    }
    case 3: {  // the edges of the range
      const int64_t edges[] = {limit, -limit, 0, 1, -1, limit - 1, -limit + 1};
      return Fixed::FromRaw(edges[in.ConsumeIntegralInRange<size_t>(0, std::size(edges) - 1)]);
    }
    default: {  // a 32-bit value at any scale
      const uint64_t bits = static_cast<uint64_t>(int64_t{in.ConsumeIntegral<int32_t>()});
      return Fixed::FromRaw(Wrap(static_cast<int64_t>(bits << in.ConsumeIntegralInRange<int>(0, 31)), limit));
    }
  }
}

Vec2 Point(FuzzedDataProvider& in, int64_t limit) {
  const Fixed x = Value(in, limit);
  return {x, Value(in, limit)};
}

Rot DecodeRot(FuzzedDataProvider& in) {
  switch (in.ConsumeIntegralInRange<int>(0, 3)) {
    case 0: return kRotIdentity;
    case 1: {
      const Rot quarter[] = {{kFixedZero, kFixedOne}, {-kFixedOne, kFixedZero}, {kFixedZero, -kFixedOne}};
      return quarter[in.ConsumeIntegralInRange<int>(0, 2)];
    }
    case 2: return MakeRot(Value(in, int64_t{1} << 52));  // |angle| <= 2^20 rad
    default: {
      // Not exactly unit, but within the tolerance bodies accept: shapes
      // come out scaled by up to 1 +- 2^-17.
      const Rot exact = MakeRot(Value(in, int64_t{1} << 52));
      Rot q = exact;
      q.c += Fixed::FromRaw(in.ConsumeIntegralInRange<int64_t>(-(int64_t{1} << 16), int64_t{1} << 16));
      q.s += Fixed::FromRaw(in.ConsumeIntegralInRange<int64_t>(-(int64_t{1} << 16), int64_t{1} << 16));
      return IsUnitRotation(q) ? q : exact;
    }
  }
}

Transform DecodeTransform(FuzzedDataProvider& in) {
  const Vec2 p = Point(in, kWorldRaw);
  return {p, DecodeRot(in)};
}

bool InShapeRange(Vec2 v) {
  return WithinMagnitude(v.x, kFixedMaxShapeExtent) && WithinMagnitude(v.y, kFixedMaxShapeExtent);
}

bool UnitNormal(Vec2 n) {
  // Normalize promises each component within an ulp of the exact unit
  // vector: |n|^2 within a few 2^-32 of one. Allow 2^-29.
  const Int128 one = Int128(1).ShiftLeft(64);
  const Int128 off = LengthSquaredWide(n) - one;
  return off.Abs() <= Int128(1).ShiftLeft(35);
}

bool SamePolygon(const Polygon& a, const Polygon& b) {
  return a.count == b.count && a.radius == b.radius && a.centroid == b.centroid && a.vertices == b.vertices &&
         a.normals == b.normals;
}

// Every vertex strictly left of every edge it is not on: strictly convex, CCW.
bool StrictlyConvex(std::span<const Vec2> v) {
  const size_t n = v.size();
  for (size_t i = 0; i < n; ++i) {
    const Vec2 a = v[i], e = v[(i + 1) % n] - a;
    for (size_t j = 0; j < n; ++j) {
      if (j == i || j == (i + 1) % n) continue;
      if (CrossWide(e, v[j] - a).Sign() <= 0) return false;
    }
  }
  return true;
}

std::optional<Shape> DecodePolygon(FuzzedDataProvider& in, int64_t limit) {
  const size_t n = in.ConsumeIntegralInRange<size_t>(0, 10);
  std::vector<Vec2> points(n);
  for (Vec2& p : points) p = Point(in, limit);
  const Fixed radius = in.ConsumeBool() ? kFixedZero : Value(in, limit);

  Polygon sentinel;
  sentinel.count = 77;
  sentinel.radius = Fixed::FromRaw(12345);
  Polygon out = sentinel;
  const ShapeError error = MakePolygon(points, radius, &out);

  // The checks are all cyclic, so the verdict cannot depend on the start.
  if (n > 0) {
    std::vector<Vec2> rotated(points);
    std::rotate(rotated.begin(), rotated.begin() + static_cast<std::ptrdiff_t>(in.ConsumeIntegralInRange<size_t>(0, n - 1)),
                rotated.end());
    Polygon other;
    FUZZ_CHECK(MakePolygon(rotated, radius, &other) == error);
  }
  if (error != ShapeError::kOk) {
    FUZZ_CHECK(SamePolygon(out, sentinel));
    return std::nullopt;
  }
  FUZZ_CHECK(n >= 3 && n <= static_cast<size_t>(kMaxPolygonVertices));
  FUZZ_CHECK(radius >= kFixedZero && radius <= kFixedMaxShapeExtent);
  for (const Vec2& p : points) FUZZ_CHECK(InShapeRange(p));
  FUZZ_CHECK(out.count == static_cast<int32_t>(n));
  FUZZ_CHECK(StrictlyConvex(std::span<const Vec2>(out.vertices.data(), n)));
  for (size_t i = 0; i < n; ++i) FUZZ_CHECK(UnitNormal(out.normals[i]));
  FUZZ_CHECK(ValidatePolygon(out) == ShapeError::kOk);
  std::vector<Vec2> reversed(points.rbegin(), points.rend());
  Polygon mirror;
  FUZZ_CHECK(MakePolygon(reversed, radius, &mirror) == ShapeError::kNotCounterClockwise);
  return Shape::FromPolygon(out);
}

// A shape from the bytes, or nullopt when the constructors rejected it (after
// checking that they were right to).
std::optional<Shape> DecodeShape(FuzzedDataProvider& in) {
  const bool hostile = in.ConsumeIntegralInRange<int>(0, 9) == 0;
  const int64_t limit = hostile ? 4 * kShapeRaw : kShapeRaw;
  std::optional<Shape> shape;
  switch (in.ConsumeIntegralInRange<int>(0, 4)) {
    case 0: {
      const Vec2 center = Point(in, limit);
      const Circle c{center, Value(in, limit)};
      if (ValidateCircle(c) != ShapeError::kOk) return std::nullopt;
      FUZZ_CHECK(InShapeRange(c.center) && c.radius > kFixedZero && c.radius <= kFixedMaxShapeExtent);
      shape = Shape::FromCircle(c);
      break;
    }
    case 1: {
      const Vec2 c1 = Point(in, limit);
      const Vec2 c2 = Point(in, limit);
      const Capsule c{c1, c2, Value(in, limit)};
      if (ValidateCapsule(c) != ShapeError::kOk) return std::nullopt;
      FUZZ_CHECK(InShapeRange(c.center1) && InShapeRange(c.center2) && c.center1 != c.center2);
      FUZZ_CHECK(c.radius > kFixedZero && c.radius <= kFixedMaxShapeExtent);
      shape = Shape::FromCapsule(c);
      break;
    }
    case 2: {
      const Vec2 p1 = Point(in, limit);
      const Segment g{p1, Point(in, limit)};
      if (ValidateSegment(g) != ShapeError::kOk) return std::nullopt;
      FUZZ_CHECK(InShapeRange(g.point1) && InShapeRange(g.point2) && g.point1 != g.point2);
      shape = Shape::FromSegment(g);
      break;
    }
    case 3:
      shape = DecodePolygon(in, limit);
      if (!shape) return std::nullopt;
      break;
    default: {
      const Fixed hw = Value(in, limit);
      const Fixed hh = Value(in, limit);
      const Vec2 center = Point(in, limit);
      const Rot q = DecodeRot(in);
      Polygon box;
      if (MakeOffsetBox(hw, hh, center, q, &box) != ShapeError::kOk) return std::nullopt;
      FUZZ_CHECK(hw > kFixedZero && hh > kFixedZero && hw <= kFixedMaxShapeExtent && hh <= kFixedMaxShapeExtent);
      FUZZ_CHECK(InShapeRange(center));
      FUZZ_CHECK(box.count == 4);
      Polygon centred;
      if (MakeBox(hw, hh, &centred) == ShapeError::kOk) FUZZ_CHECK(ValidatePolygon(centred) == ShapeError::kOk);
      shape = Shape::FromPolygon(box);
      break;
    }
  }
  FUZZ_CHECK(ValidateShape(*shape) == ShapeError::kOk);
  FUZZ_CHECK(ComputeArea(*shape) >= kFixedZero);
  const MassData mass = ComputeMass(*shape, Fixed::FromRaw(in.ConsumeIntegralInRange<int64_t>(0, int64_t{65536} << 32)));
  if (mass.representable) FUZZ_CHECK(mass.mass >= kFixedZero && mass.rotational_inertia >= kFixedZero);
  return shape;
}

void PrintProxy(const char* name, const ShapeProxy& p) {
  std::fprintf(stderr, "%s: count %d radius %lld points", name, p.count, static_cast<long long>(p.radius.raw()));
  for (int i = 0; i < p.count; ++i) {
    std::fprintf(stderr, " (%lld, %lld)", static_cast<long long>(p.points[i].x.raw()), static_cast<long long>(p.points[i].y.raw()));
  }
  std::fprintf(stderr, "\n");
}

void PrintManifold(const char* name, const Manifold& m) {
  std::fprintf(stderr, "%s: normal (%lld, %lld)", name, static_cast<long long>(m.normal.x.raw()), static_cast<long long>(m.normal.y.raw()));
  for (int i = 0; i < m.point_count; ++i) {
    std::fprintf(stderr, " [point (%lld, %lld) separation %lld id %#x]", static_cast<long long>(m.points[i].point.x.raw()),
                 static_cast<long long>(m.points[i].point.y.raw()), static_cast<long long>(m.points[i].separation.raw()),
                 m.points[i].id);
  }
  std::fprintf(stderr, "\n");
}

bool SameProxy(const ShapeProxy& a, const ShapeProxy& b) {
  if (a.count != b.count || a.radius != b.radius) return false;
  for (int i = 0; i < a.count; ++i) {
    if (a.points[i] != b.points[i]) return false;
  }
  return true;
}

// Some edge of a has the same two endpoints, in the same order, as some
// edge of b: the faces coincide geometrically, the one case where manifold.cc
// lets argument order choose the reference face.
bool ShareAFace(const ShapeProxy& a, const ShapeProxy& b) {
  auto end = [](const ShapeProxy& p, int i) { return p.points[(i + 1) % p.count]; };
  for (int i = 0; i < a.count; ++i) {
    for (int j = 0; j < b.count; ++j) {
      if (a.points[i] == b.points[j] && end(a, i) == end(b, j)) return true;
    }
  }
  return false;
}

// The manifold's core collapses to one point (a disk) when every edge of
// the placed core has zero length.
bool IsPointCore(const ShapeProxy& p) {
  for (int i = 1; i < p.count; ++i) {
    if (p.points[i] != p.points[0]) return false;
  }
  return true;
}

bool WithinPlacedRange(const ShapeProxy& p) {
  for (int i = 0; i < p.count; ++i) {
    if (!WithinMagnitude(p.points[i].x, Fixed::FromRaw(kPlacedRaw)) ||
        !WithinMagnitude(p.points[i].y, Fixed::FromRaw(kPlacedRaw))) {
      return false;
    }
  }
  return true;
}

// Extent of the pair in units from A's first point, for property_test.cc's
// PosTol(L) = (8 + 4 L) ulp.
int64_t PosTolRaw(const ShapeProxy& a, const ShapeProxy& b, int64_t extra_extent = 0) {
  const Vec2 o = a.points[0];
  int64_t extent = 0;
  for (const ShapeProxy* p : {&a, &b}) {
    for (int i = 0; i < p->count; ++i) {
      const Vec2 d = p->points[i] - o;
      extent = std::max({extent, Abs(d.x).raw(), Abs(d.y).raw()});
    }
  }
  const __int128 total = static_cast<__int128>(extent) + a.radius.raw() + b.radius.raw() + extra_extent;
  return 8 + 4 * (static_cast<int64_t>(total >> Fixed::kFractionBits) + 1);
}

void CheckManifoldAlone(const Manifold& m, Fixed spec, bool overlap) {
  FUZZ_CHECK(m.point_count >= 0 && m.point_count <= 2);
  if (overlap) FUZZ_CHECK(m.point_count >= 1);
  if (m.point_count > 0) FUZZ_CHECK(UnitNormal(m.normal));
  for (int i = 0; i < m.point_count; ++i) FUZZ_CHECK(m.points[i].separation <= spec);
}

void CheckCollide(const ShapeProxy& a, const ShapeProxy& b, Fixed spec, bool overlap) {
  const Manifold m = Collide(a, b, spec);
  const Manifold f = Collide(b, a, spec);
  const FuzzContext context([&] {
    PrintProxy("a", a);
    PrintProxy("b", b);
    std::fprintf(stderr, "speculative distance %lld\n", static_cast<long long>(spec.raw()));
    PrintManifold("Collide(a, b)", m);
    PrintManifold("Collide(b, a)", f);
  });
  CheckManifoldAlone(m, spec, overlap);
  CheckManifoldAlone(f, spec, overlap);
  const bool disks = IsPointCore(a) && IsPointCore(b);
  // Coincident faces (identical disks) are the documented exception: the
  // exits tie exactly, and argument order picks the reference face.
  if (disks ? SameProxy(a, b) : ShareAFace(a, b)) return;
  FUZZ_CHECK(m.point_count == f.point_count);
  if (m.point_count == 0) return;
  FUZZ_CHECK(m.normal == -f.normal);
  for (int i = 0; i < m.point_count; ++i) {
    FUZZ_CHECK(m.points[i].separation == f.points[i].separation);
    FUZZ_CHECK(m.points[i].point == f.points[i].point);
    // Collide(b, a) swaps the two sides of each feature id (manifold.h).
    if (!disks) FUZZ_CHECK(static_cast<uint16_t>((m.points[i].id << 8) | (m.points[i].id >> 8)) == f.points[i].id);
  }
}

// How far apart a and b are along the unit direction n (from a toward b).
Fixed GapAlong(const ShapeProxy& a, const ShapeProxy& b, Vec2 n) {
  Int128 max_a = DotWide(n, a.points[0]), min_b = DotWide(n, b.points[0]);
  for (int i = 1; i < a.count; ++i) max_a = std::max(max_a, DotWide(n, a.points[i]));
  for (int i = 1; i < b.count; ++i) min_b = std::min(min_b, DotWide(n, b.points[i]));
  return RoundWide(min_b - max_a) - a.radius - b.radius;
}

void CheckDistance(const ShapeProxy& a, const ShapeProxy& b, bool overlap) {
  const DistanceOutput d = ShapeDistance(a, b);
  const DistanceOutput e = ShapeDistance(b, a);
  FUZZ_CHECK((d.distance == kFixedZero) == overlap);
  FUZZ_CHECK((e.distance == kFixedZero) == overlap);
  FUZZ_CHECK(d.distance >= kFixedZero);
  if (overlap) {
    FUZZ_CHECK(d.normal == Vec2{} && e.normal == Vec2{});
    return;
  }
  FUZZ_CHECK(UnitNormal(d.normal) && UnitNormal(e.normal));
  const int64_t tol = PosTolRaw(a, b);
  FUZZ_CHECK(Abs(d.distance - e.distance).raw() <= tol);
  if (d.distance.raw() > tol) {
    // The normal is a direction between two points `lever` apart: rounding
    // the points by tol turns it by up to tol / lever.
    // Where two feature pairs are almost equally close the normal is
    // ill-conditioned and the two argument orders may take different
    // pairs. Each normal must still point from its A toward its B, across
    // a gap (the header's promise). How far such a normal may turn is not
    // bounded by the headers: the corpus input edge-distance-normal-near-tie
    // turns it by 44 ulp, beyond property_test.cc's 8-ulp normal bound.
    const int64_t lever_raw = (d.distance + a.radius + b.radius).raw();
    const int64_t allowed = 8 + static_cast<int64_t>((static_cast<__int128>(tol) << 32) / lever_raw);
    const bool close = Abs(d.normal.x + e.normal.x).raw() <= allowed && Abs(d.normal.y + e.normal.y).raw() <= allowed;
    if (!close) {
      FUZZ_CHECK(GapAlong(a, b, d.normal).raw() >= -tol);
      FUZZ_CHECK(GapAlong(b, a, e.normal).raw() >= -tol);
    }
  }
}

// True when p and the four points 2 tol away along the axes all pass
// `inside`: for a convex set, p is then at least sqrt(2) tol from its
// boundary, beyond the documented position error of a cast.
template <class Inside>
bool DeepInside(Inside inside, Vec2 p, int64_t tol) {
  const Fixed step = Fixed::FromRaw(2 * tol);
  const Fixed limit = Fixed::FromRaw(kPlacedRaw);
  for (const Vec2 q : {p, p + Vec2{step, kFixedZero}, p - Vec2{step, kFixedZero}, p + Vec2{kFixedZero, step}, p - Vec2{kFixedZero, step}}) {
    if (!WithinMagnitude(q.x, limit) || !WithinMagnitude(q.y, limit) || !inside(q)) return false;
  }
  return true;
}

// PosTol for a ray: extent of the shape seen from the ray's origin, plus the
// ray's own length.
int64_t RayTolRaw(const ShapeProxy& a, const RayCastInput& ray) {
  const Vec2 origin[] = {ray.origin};
  const int64_t length = std::max(Abs(ray.translation.x).raw(), Abs(ray.translation.y).raw());
  return PosTolRaw(MakeProxy(origin, kFixedZero), a, length);
}

RayCastInput DecodeRay(FuzzedDataProvider& in, const ShapeProxy& target) {
  RayCastInput ray;
  // Aim near the target half the time: hits, grazes and starts inside.
  if (in.ConsumeBool()) {
    const Vec2 near = target.points[in.ConsumeIntegralInRange<int>(0, target.count - 1)];
    const Vec2 offset = Point(in, int64_t{1} << 40);
    ray.origin = {Fixed::FromRaw(Wrap((near.x + offset.x).raw(), kWorldRaw)),
                  Fixed::FromRaw(Wrap((near.y + offset.y).raw(), kWorldRaw))};
  } else {
    ray.origin = Point(in, kWorldRaw);
  }
  ray.translation = Point(in, kTranslationRaw);
  ray.max_fraction = in.ConsumeBool() ? kFixedOne : Fixed::FromRaw(in.ConsumeIntegralInRange<int64_t>(0, Fixed::kOneRaw));
  return ray;
}

void CheckRay(const ShapeProxy& a, const RayCastInput& ray) {
  FUZZ_CHECK(ValidateRay(ray, "ray").ok());
  const CastOutput r = RayCast(a, ray);
  const FuzzContext context([&] {
    PrintProxy("a", a);
    std::fprintf(stderr, "ray origin (%lld, %lld) translation (%lld, %lld) max_fraction %lld\n",
                 static_cast<long long>(ray.origin.x.raw()), static_cast<long long>(ray.origin.y.raw()),
                 static_cast<long long>(ray.translation.x.raw()), static_cast<long long>(ray.translation.y.raw()),
                 static_cast<long long>(ray.max_fraction.raw()));
    std::fprintf(stderr, "hit %d fraction %lld point (%lld, %lld) normal (%lld, %lld)\n", r.hit,
                 static_cast<long long>(r.fraction.raw()), static_cast<long long>(r.point.x.raw()),
                 static_cast<long long>(r.point.y.raw()), static_cast<long long>(r.normal.x.raw()),
                 static_cast<long long>(r.normal.y.raw()));
  });
  const bool inside = ContainsPoint(a, ray.origin);
  if (inside) {
    FUZZ_CHECK(r.hit && r.fraction == kFixedZero && r.normal == Vec2{} && r.point == ray.origin);
    return;
  }
  if (!r.hit) {
    FUZZ_CHECK(r.fraction == kFixedZero && r.point == Vec2{} && r.normal == Vec2{});
    // origin + translation is exact (|sum| < 2^31 units). A ray may miss a
    // shape it enters by less than the documented position error, so only
    // an end that deep inside must be hit.
    if (ray.max_fraction == kFixedOne) {
      const Vec2 end = ray.origin + ray.translation;
      FUZZ_CHECK(!DeepInside([&](Vec2 q) { return ContainsPoint(a, q); }, end, RayTolRaw(a, ray)));
    }
    return;
  }
  FUZZ_CHECK(UnitNormal(r.normal));
  FUZZ_CHECK(r.fraction >= kFixedZero && r.fraction <= ray.max_fraction);
}

void CheckShapeCast(const ShapeProxy& a, const ShapeProxy& b, bool overlap, FuzzedDataProvider& in) {
  ShapeCastInput cast;
  cast.a = a;
  cast.b = b;
  if (in.ConsumeBool()) {
    // Towards B: the difference of two of their points, scaled a little.
    const Vec2 to = b.points[in.ConsumeIntegralInRange<int>(0, b.count - 1)] - a.points[in.ConsumeIntegralInRange<int>(0, a.count - 1)];
    const Vec2 jitter = Point(in, int64_t{1} << 36);
    cast.translation = {Fixed::FromRaw(Wrap((to.x + to.x.Half() + jitter.x).raw(), kTranslationRaw)),
                        Fixed::FromRaw(Wrap((to.y + to.y.Half() + jitter.y).raw(), kTranslationRaw))};
  } else {
    cast.translation = Point(in, kTranslationRaw);
  }
  cast.max_fraction = in.ConsumeBool() ? kFixedOne : Fixed::FromRaw(in.ConsumeIntegralInRange<int64_t>(0, Fixed::kOneRaw));
  const CastOutput out = ShapeCast(cast);
  const FuzzContext context([&] {
    PrintProxy("a", a);
    PrintProxy("b", b);
    std::fprintf(stderr, "translation (%lld, %lld) max_fraction %lld\n", static_cast<long long>(cast.translation.x.raw()),
                 static_cast<long long>(cast.translation.y.raw()), static_cast<long long>(cast.max_fraction.raw()));
    std::fprintf(stderr, "hit %d fraction %lld normal (%lld, %lld)\n", out.hit, static_cast<long long>(out.fraction.raw()),
                 static_cast<long long>(out.normal.x.raw()), static_cast<long long>(out.normal.y.raw()));
  });
  if (overlap) {
    FUZZ_CHECK(out.hit && out.fraction == kFixedZero && out.normal == Vec2{});
    return;
  }
  if (!out.hit) {
    FUZZ_CHECK(out.fraction == kFixedZero && out.point == Vec2{} && out.normal == Vec2{});
    if (cast.max_fraction == kFixedOne) {
      // As for rays: A moved to (or a little around) the end overlaps B.
      auto overlaps_at = [&](Vec2 t) {
        ShapeProxy moved = a;
        for (int i = 0; i < moved.count; ++i) moved.points[i] += t;
        return WithinPlacedRange(moved) && TestOverlap(moved, b);
      };
      const int64_t length = std::max(Abs(cast.translation.x).raw(), Abs(cast.translation.y).raw());
      const int64_t tol = PosTolRaw(a, b, length);
      FUZZ_CHECK(!DeepInside(overlaps_at, cast.translation, tol));
    }
    return;
  }
  FUZZ_CHECK(cast.translation != Vec2{});
  FUZZ_CHECK(UnitNormal(out.normal));
  FUZZ_CHECK(out.fraction >= kFixedZero && out.fraction <= cast.max_fraction);
}

void CheckPoint(const ShapeProxy& a, FuzzedDataProvider& in) {
  Vec2 p;
  if (in.ConsumeBool()) {
    const Vec2 near = a.points[in.ConsumeIntegralInRange<int>(0, a.count - 1)];
    const Vec2 offset = Point(in, int64_t{1} << 40);
    p = {Fixed::FromRaw(Wrap((near.x + offset.x).raw(), kWorldRaw)), Fixed::FromRaw(Wrap((near.y + offset.y).raw(), kWorldRaw))};
  } else {
    p = Point(in, kWorldRaw);
  }
  const bool contains = ContainsPoint(a, p);
  const Vec2 one[] = {p};
  const ShapeProxy dot = MakeProxy(one, kFixedZero);
  FUZZ_CHECK(TestOverlap(a, dot) == contains);
  FUZZ_CHECK(TestOverlap(dot, a) == contains);
}

void CheckHull(FuzzedDataProvider& in) {
  const size_t n = in.ConsumeIntegralInRange<size_t>(0, 16);
  std::vector<Vec2> points(n);
  const int64_t limit = in.ConsumeBool() ? kWorldRaw : int64_t{1} << 36;
  for (Vec2& p : points) p = Point(in, limit);
  std::array<Vec2, 16> hull;
  const int count = ComputeHull(points, hull);
  if (n == 0) {
    FUZZ_CHECK(count == 0);
    return;
  }
  FUZZ_CHECK(count >= 1 && count <= static_cast<int>(n));
  const std::span<const Vec2> h(hull.data(), static_cast<size_t>(count));
  for (const Vec2& v : h) FUZZ_CHECK(std::find(points.begin(), points.end(), v) != points.end());
  for (const Vec2& p : points) FUZZ_CHECK(h[0].x < p.x || (h[0].x == p.x && h[0].y <= p.y));
  if (count == 1) {
    for (const Vec2& p : points) FUZZ_CHECK(p == h[0]);
  } else if (count == 2) {
    FUZZ_CHECK(h[0] != h[1]);
    for (const Vec2& p : points) {
      FUZZ_CHECK(CrossWide(h[1] - h[0], p - h[0]).IsZero());
      FUZZ_CHECK(DotWide(p - h[0], h[1] - h[0]).Sign() >= 0 && DotWide(p - h[1], h[0] - h[1]).Sign() >= 0);
    }
  } else {
    FUZZ_CHECK(StrictlyConvex(h));
    for (const Vec2& p : points) {
      for (int i = 0; i < count; ++i) FUZZ_CHECK(CrossWide(h[(i + 1) % count] - h[i], p - h[i]).Sign() >= 0);
    }
  }
  // Too small an output: 0, never a truncated hull.
  std::array<Vec2, 4> small;
  const int small_count = ComputeHull(points, small);
  FUZZ_CHECK(small_count == (count > 4 ? 0 : count));
}

}  // namespace
}  // namespace arbiter

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace arbiter;
  FuzzedDataProvider in(data, size);
  const std::optional<Shape> sa = DecodeShape(in);
  const std::optional<Shape> sb = DecodeShape(in);
  if (!sa || !sb) {
    CheckHull(in);
    return 0;
  }
  const Transform xa = DecodeTransform(in);
  Transform xb;
  if (in.ConsumeBool()) {
    // B near A: where shapes touch.
    const Vec2 offset = Point(in, int64_t{1} << 40);
    xb = {{Fixed::FromRaw(Wrap((xa.p.x + offset.x).raw(), kWorldRaw)), Fixed::FromRaw(Wrap((xa.p.y + offset.y).raw(), kWorldRaw))},
          DecodeRot(in)};
  } else {
    xb = DecodeTransform(in);
  }
  const ShapeProxy a = MakeProxy(*sa, xa);
  const ShapeProxy b = MakeProxy(*sb, xb);
  FUZZ_CHECK(ComputeAabb(*sa, xa) == ComputeProxyAabb(a));

  const FuzzContext context([&] {
    PrintProxy("a", a);
    PrintProxy("b", b);
  });
  const bool overlap = TestOverlap(a, b);
  FUZZ_CHECK(TestOverlap(b, a) == overlap);
  FUZZ_CHECK(TestOverlap(*sa, xa, *sb, xb) == overlap);
  if (overlap) FUZZ_CHECK(Overlaps(ComputeProxyAabb(a), ComputeProxyAabb(b)));

  CheckDistance(a, b, overlap);
  const Fixed spec = in.ConsumeBool() ? kFixedZero : Value(in, int64_t{1} << 48);
  CheckCollide(a, b, Abs(spec), overlap);
  CheckPoint(a, in);
  CheckRay(a, DecodeRay(in, a));
  CheckShapeCast(a, b, overlap, in);
  CheckHull(in);
  return 0;
}
