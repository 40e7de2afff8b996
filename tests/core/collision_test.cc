// Named edge cases for the collision queries (collision.h, manifold.h) and
// for polygon validation: exact touching, containment, grazing rays,
// degenerate input and the ends of the coordinate range. Every expected
// value here is exact in Q32.32 or derived by hand in the comment beside it.
#include "arbiter/core/collision.h"

#include <gtest/gtest.h>

#include <cmath>

#include <array>
#include <span>

#include "arbiter/core/fixed_math.h"
#include "arbiter/core/manifold.h"
#include "arbiter/core/proxy.h"
#include "arbiter/core/shapes.h"
#include "testing/numbers.h"

namespace arbiter {
namespace {

constexpr Fixed kUlp = Fixed::FromRaw(1);
constexpr int64_t kWorldLimit = kMaxWorldCoordinate;  // 2^29

using testing::Fi;
using testing::Vi;
Fixed Ratio(int64_t num, int64_t den) { return Fixed::FromRatio(num, den); }
Transform At(Vec2 p) { return {p, kRotIdentity}; }

Shape CircleShape(int64_t radius) { return Shape::FromCircle({Vec2{}, Fi(radius)}); }
Shape BoxShape(Fixed hw, Fixed hh) {
  Polygon p;
  EXPECT_EQ(MakeBox(hw, hh, &p), ShapeError::kOk);
  return Shape::FromPolygon(p);
}
Shape BoxShape(int64_t hw, int64_t hh) { return BoxShape(Fi(hw), Fi(hh)); }

ShapeProxy Place(const Shape& s, Vec2 p) { return MakeProxy(s, At(p)); }
ShapeProxy Shifted(ShapeProxy p, Vec2 v) {
  for (int i = 0; i < p.count; ++i) p.points[i] += v;
  return p;
}

// |a - b| <= n ulp.
void ExpectNear(Fixed a, Fixed b, int64_t n) { EXPECT_LE(Abs(a - b).raw(), n) << a.ToDouble() << " vs " << b.ToDouble(); }
void ExpectNear(Vec2 a, Vec2 b, int64_t n) {
  ExpectNear(a.x, b.x, n);
  ExpectNear(a.y, b.y, n);
}

// ---------------------------------------------------------------------------
// Touching counts as overlapping.

TEST(CollisionEdgeCases, TangentCirclesTouch) {
  // Centres (0,0) and (3,4) are 5 apart = 2 + 3: touching exactly.
  const ShapeProxy a = Place(CircleShape(2), Vi(0, 0));
  const ShapeProxy b = Place(CircleShape(3), Vi(3, 4));
  EXPECT_TRUE(TestOverlap(a, b));
  EXPECT_TRUE(TestOverlap(b, a));
  const DistanceOutput d = ShapeDistance(a, b);
  EXPECT_EQ(d.distance, kFixedZero);
  EXPECT_EQ(d.normal, Vec2{});
  // One ulp further apart: |c|^2 = 25 + 6 ulp + ulp^2 > 25, so apart; the
  // distance, ~0.6 ulp, rounds to at most one ulp.
  const ShapeProxy b2 = Shifted(b, {kUlp, kFixedZero});
  EXPECT_FALSE(TestOverlap(a, b2));
  EXPECT_FALSE(TestOverlap(b2, a));
  EXPECT_LE(ShapeDistance(a, b2).distance, kUlp);
  // Touching pairs have a manifold with zero depth.
  const Manifold m = Collide(a, b, kFixedZero);
  ASSERT_GE(m.point_count, 1);
  ExpectNear(ManifoldDepth(m), kFixedZero, 2);
  ExpectNear(m.normal, Vec2{Ratio(3, 5), Ratio(4, 5)}, 1);
}

TEST(CollisionEdgeCases, BoxCornerTouchesCircle) {
  // The corner (1,1) of a 2x2 box and a circle of radius 5 centred at
  // (1,1) + (3,4): the corner is the only common point.
  const ShapeProxy box = Place(BoxShape(1, 1), Vi(0, 0));
  const ShapeProxy circle = Place(CircleShape(5), Vi(4, 5));
  EXPECT_TRUE(TestOverlap(box, circle));
  EXPECT_TRUE(TestOverlap(circle, box));
  EXPECT_TRUE(ContainsPoint(circle, Vi(1, 1)));
  EXPECT_TRUE(ContainsPoint(box, Vi(1, 1)));
  EXPECT_EQ(ShapeDistance(box, circle).distance, kFixedZero);
  // Nudged away diagonally by one ulp on each axis: apart.
  const ShapeProxy apart = Shifted(circle, {kUlp, kUlp});
  EXPECT_FALSE(TestOverlap(box, apart));
  EXPECT_FALSE(TestOverlap(apart, box));
  EXPECT_FALSE(ContainsPoint(apart, Vi(1, 1)));
  // And a circle of radius 5 + ulp at the original place overlaps.
  EXPECT_TRUE(TestOverlap(box, MakeProxy(Shape::FromCircle({Vec2{}, Fi(5) + kUlp}), At(Vi(4, 5)))));
}

TEST(CollisionEdgeCases, CircleCentreInsideBox) {
  // Box half extents (2,1); circle of radius 1/10 at (1/2, 1/4). The nearest
  // face is the top (3/4 away), so the exit is +y with depth 3/4 + 1/10.
  const ShapeProxy box = Place(BoxShape(2, 1), Vi(0, 0));
  const Vec2 centre = {kFixedHalf, Ratio(1, 4)};
  const ShapeProxy circle = MakeProxy(Shape::FromCircle({Vec2{}, Ratio(1, 10)}), At(centre));
  EXPECT_TRUE(ContainsPoint(box, centre));
  EXPECT_TRUE(TestOverlap(box, circle));
  EXPECT_EQ(ShapeDistance(box, circle).distance, kFixedZero);
  const Manifold m = Collide(box, circle, kFixedZero);
  ASSERT_GE(m.point_count, 1);
  ExpectNear(m.normal, Vi(0, 1), 1);
  ExpectNear(ManifoldDepth(m), Ratio(3, 4) + Ratio(1, 10), 4);
  const Manifold f = Collide(circle, box, kFixedZero);
  ASSERT_GE(f.point_count, 1);
  ExpectNear(f.normal, Vi(0, -1), 1);
  ExpectNear(ManifoldDepth(f), ManifoldDepth(m), 4);
}

TEST(CollisionEdgeCases, NestedBoxesPushOutAlongShorterExit) {
  // A: half (4,2) at the origin. B: half (1, 1/2) at (1, 1/2), wholly
  // inside. Exits for B: up 2 (bottom 0 -> top 2), down 3, right 4, left 6.
  const ShapeProxy a = Place(BoxShape(4, 2), Vi(0, 0));
  const ShapeProxy b = MakeProxy(BoxShape(Fi(1), kFixedHalf), At({Fi(1), kFixedHalf}));
  for (int i = 0; i < b.count; ++i) EXPECT_TRUE(ContainsPoint(a, b.points[i]));
  EXPECT_TRUE(TestOverlap(a, b));
  EXPECT_EQ(ShapeDistance(a, b).distance, kFixedZero);
  const Manifold m = Collide(a, b, kFixedZero);
  ASSERT_GE(m.point_count, 1);
  ExpectNear(m.normal, Vi(0, 1), 1);
  ExpectNear(ManifoldDepth(m), Fi(2), 4);
  // Moving B by the MTV leaves the boxes touching (B's bottom on A's top).
  const ShapeProxy out = Shifted(b, {kFixedZero, ManifoldDepth(m)});
  EXPECT_TRUE(TestOverlap(a, out));
  EXPECT_FALSE(TestOverlap(a, Shifted(out, {kFixedZero, Fi(1) / Fi(1000000)})));
  // Flipped: the same exit seen from B.
  const Manifold f = Collide(b, a, kFixedZero);
  ExpectNear(f.normal, Vi(0, -1), 1);
  ExpectNear(ManifoldDepth(f), Fi(2), 4);
}

TEST(CollisionEdgeCases, CollinearSegmentsTouchingEndToEnd) {
  const ShapeProxy a = MakeProxy(Shape::FromSegment({Vi(0, 0), Vi(1, 0)}), kTransformIdentity);
  const ShapeProxy b = MakeProxy(Shape::FromSegment({Vi(1, 0), Vi(2, 0)}), kTransformIdentity);
  EXPECT_TRUE(TestOverlap(a, b));
  EXPECT_FALSE(TestOverlap(a, Shifted(b, {kUlp, kFixedZero})));
  // Crossing segments overlap at one interior point.
  const ShapeProxy x = MakeProxy(Shape::FromSegment({Vi(1, -1), Vi(0, 1)}), kTransformIdentity);
  EXPECT_TRUE(TestOverlap(a, x));
  EXPECT_EQ(ShapeDistance(a, x).distance, kFixedZero);
}

TEST(CollisionEdgeCases, CapsuleRestingOnBoxFace) {
  // Box top at y = 1; capsule axis at y = 3/2 with radius 1/2.
  const ShapeProxy box = Place(BoxShape(2, 1), Vi(0, 0));
  const Shape capsule = Shape::FromCapsule({Vi(-1, 0), Vi(1, 0), kFixedHalf});
  const ShapeProxy c = MakeProxy(capsule, At({kFixedZero, Ratio(3, 2)}));
  EXPECT_TRUE(TestOverlap(box, c));
  EXPECT_FALSE(TestOverlap(box, Shifted(c, {kFixedZero, kUlp})));
  const Manifold m = Collide(box, c, kFixedZero);
  EXPECT_EQ(m.point_count, 2);  // a face against a face: two contacts
  ExpectNear(m.normal, Vi(0, 1), 1);
  ExpectNear(ManifoldDepth(m), kFixedZero, 2);
}

// ---------------------------------------------------------------------------
// Rays.

TEST(CollisionEdgeCases, RayAlongBoxEdgeGrazes) {
  // The ray y = 1 runs along the top edge of the box [-1,1]^2: touching
  // counts, so it hits where it meets the corner (-1,1), at t = 2/6.
  const ShapeProxy box = Place(BoxShape(1, 1), Vi(0, 0));
  const RayCastInput along = {Vi(-3, 1), Vi(6, 0), kFixedOne};
  const CastOutput out = RayCast(box, along);
  ASSERT_TRUE(out.hit);
  ExpectNear(out.fraction, Ratio(1, 3), 1);
  ExpectNear(out.point, Vi(-1, 1), 4);  // 6 x half-ulp fraction
  // One ulp above the edge line it misses.
  const RayCastInput above = {{Fi(-3), Fi(1) + kUlp}, Vi(6, 0), kFixedOne};
  EXPECT_FALSE(RayCast(box, above).hit);
  // Along a segment's own line: hits its near end.
  const ShapeProxy seg = MakeProxy(Shape::FromSegment({Vi(2, 0), Vi(4, 0)}), kTransformIdentity);
  const CastOutput s = RayCast(seg, {Vi(0, 0), Vi(8, 0), kFixedOne});
  ASSERT_TRUE(s.hit);
  ExpectNear(s.fraction, Ratio(1, 4), 1);
}

TEST(CollisionEdgeCases, RayHitsCircleAtKnownFraction) {
  // Circle radius 1 at (5,0); ray from the origin along (10,0): enters at
  // x = 4, t = 2/5, normal (-1,0).
  const ShapeProxy c = Place(CircleShape(1), Vi(5, 0));
  const CastOutput out = RayCast(c, {Vi(0, 0), Vi(10, 0), kFixedOne});
  ASSERT_TRUE(out.hit);
  ExpectNear(out.fraction, Ratio(2, 5), 1);
  ExpectNear(out.normal, Vi(-1, 0), 1);
  // The point may be origin + fraction * translation: the rounded fraction
  // (half an ulp) times |translation| = 10 gives up to 5 ulp.
  ExpectNear(out.point, Vi(4, 0), 6);
  // max_fraction just short of the entry: a miss.
  EXPECT_FALSE(RayCast(c, {Vi(0, 0), Vi(10, 0), Ratio(2, 5) - Ratio(1, 1000000)}).hit);
}

TEST(CollisionEdgeCases, ZeroLengthRayHitsOnlyFromInside) {
  const ShapeProxy box = Place(BoxShape(1, 1), Vi(0, 0));
  const CastOutput inside = RayCast(box, {{kFixedHalf, kFixedZero}, Vec2{}, kFixedOne});
  EXPECT_TRUE(inside.hit);
  EXPECT_EQ(inside.fraction, kFixedZero);
  EXPECT_EQ(inside.normal, Vec2{});
  // On the boundary counts as inside.
  const CastOutput boundary = RayCast(box, {Vi(1, 0), Vec2{}, kFixedOne});
  EXPECT_TRUE(boundary.hit);
  EXPECT_EQ(boundary.fraction, kFixedZero);
  const CastOutput outside = RayCast(box, {{Fi(1) + kUlp, kFixedZero}, Vec2{}, kFixedOne});
  EXPECT_FALSE(outside.hit);
  EXPECT_EQ(outside.fraction, kFixedZero);
  EXPECT_EQ(outside.normal, Vec2{});
  // The same for a circle.
  const ShapeProxy c = Place(CircleShape(1), Vi(0, 0));
  EXPECT_TRUE(RayCast(c, {Vi(0, 1), Vec2{}, kFixedOne}).hit);
  EXPECT_FALSE(RayCast(c, {{kFixedZero, Fi(1) + kUlp}, Vec2{}, kFixedOne}).hit);
}

// ---------------------------------------------------------------------------
// Shape casts.

TEST(CollisionEdgeCases, ShapeCastCircleIntoBoxFace) {
  // Circle radius 1 at the origin moving (10,0); box [5,7] x [-1,1]. Contact
  // when the circle's right side reaches x = 5: t = 4/10, B's normal (-1,0).
  ShapeCastInput in;
  in.a = Place(CircleShape(1), Vi(0, 0));
  in.b = Place(BoxShape(1, 1), Vi(6, 0));
  in.translation = Vi(10, 0);
  const CastOutput out = ShapeCast(in);
  ASSERT_TRUE(out.hit);
  ExpectNear(out.fraction, Ratio(2, 5), 1);
  ExpectNear(out.normal, Vi(-1, 0), 1);
  ExpectNear(out.point, Vi(5, 0), 6);  // 10 x half-ulp fraction
  // Starting in touch: fraction 0 and no normal.
  in.a = Place(CircleShape(1), Vi(4, 0));
  const CastOutput touching = ShapeCast(in);
  ASSERT_TRUE(touching.hit);
  EXPECT_EQ(touching.fraction, kFixedZero);
  EXPECT_EQ(touching.normal, Vec2{});
  // Moving away from a box it started touching still reports the start.
  in.translation = Vi(-10, 0);
  EXPECT_TRUE(ShapeCast(in).hit);
  // Moving away from one ulp off: a miss.
  in.a = Shifted(in.a, {-kUlp, kFixedZero});
  EXPECT_FALSE(ShapeCast(in).hit);
}

// ---------------------------------------------------------------------------
// Polygon validation: every rejection has its own reason, and a rejected
// polygon leaves the output untouched.

ShapeError TryPolygon(std::initializer_list<Vec2> points, Fixed radius = kFixedZero) {
  Polygon out;
  out.count = 77;  // sentinel: must survive a rejection
  const ShapeError err = MakePolygon(std::span<const Vec2>(points.begin(), points.size()), radius, &out);
  if (err != ShapeError::kOk) {
    EXPECT_EQ(out.count, 77) << ShapeErrorMessage(err);
  }
  return err;
}

TEST(PolygonValidation, RejectsDegenerateInput) {
  EXPECT_EQ(TryPolygon({Vi(0, 0), Vi(1, 0), Vi(0, 1)}), ShapeError::kOk);
  EXPECT_EQ(TryPolygon({Vi(0, 0), Vi(1, 0)}), ShapeError::kTooFewVertices);
  EXPECT_EQ(TryPolygon({}), ShapeError::kTooFewVertices);
  EXPECT_EQ(TryPolygon({Vi(10, 0), Vi(7, 7), Vi(0, 10), Vi(-7, 7), Vi(-10, 0), Vi(-7, -7), Vi(0, -10), Vi(7, -7), Vi(9, -3)}),
            ShapeError::kTooManyVertices);
  EXPECT_EQ(TryPolygon({Vi(0, 0), Vi(1, 0), Vi(2, 0), Vi(1, 1)}), ShapeError::kCollinearVertices);
  EXPECT_EQ(TryPolygon({Vi(0, 0), Vi(1, 0), Vi(1, 0), Vi(0, 1)}), ShapeError::kDuplicateVertices);
  EXPECT_EQ(TryPolygon({Vi(0, 0), Vi(0, 1), Vi(1, 0)}), ShapeError::kNotCounterClockwise);
  // A reflex vertex at (1, 1/2)... scaled by 2 to stay on integers.
  EXPECT_EQ(TryPolygon({Vi(0, 0), Vi(4, 0), Vi(4, 4), Vi(2, 1), Vi(0, 4)}), ShapeError::kNotConvex);
  // A pentagram: every turn is a left turn, but the boundary winds twice.
  EXPECT_EQ(TryPolygon({Vi(-59, -81), Vi(95, 31), Vi(-95, 31), Vi(59, -81), Vi(0, 100)}), ShapeError::kNotConvex);
  const int64_t big = kMaxShapeExtent;
  EXPECT_EQ(TryPolygon({Vi(0, 0), Vi(big, 0), Vi(0, big)}), ShapeError::kOk);
  EXPECT_EQ(TryPolygon({Vi(0, 0), {Fi(big) + kUlp, kFixedZero}, Vi(0, big)}), ShapeError::kOutOfRange);
  EXPECT_EQ(TryPolygon({Vi(0, 0), Vi(1, 0), Vi(0, 1)}, Fi(big) + kUlp), ShapeError::kOutOfRange);
  EXPECT_EQ(TryPolygon({Vi(0, 0), Vi(1, 0), Vi(0, 1)}, -kUlp), ShapeError::kNegativeRadius);
  Polygon box;
  EXPECT_EQ(MakeBox(kFixedZero, Fi(1), &box), ShapeError::kNonPositiveExtent);
  EXPECT_EQ(MakeBox(Fi(1), -Fi(1), &box), ShapeError::kNonPositiveExtent);
  EXPECT_EQ(ValidateCircle({Vec2{}, kFixedZero}), ShapeError::kZeroRadius);
  EXPECT_EQ(ValidateSegment({Vi(1, 1), Vi(1, 1)}), ShapeError::kDegenerateSegment);
  EXPECT_EQ(ValidateCapsule({Vi(1, 1), Vi(1, 1), Fi(1)}), ShapeError::kDegenerateSegment);
}

// ---------------------------------------------------------------------------
// The ends of the world range: body positions at +-2^29.

TEST(CollisionEdgeCases, ShapesAtTheWorldLimit) {
  const Fixed lim = Fi(kWorldLimit);
  const Shape box = BoxShape(1, 1);
  // Two unit boxes stacked at the (+, +) corner of the world: A's bottom
  // face y = 2^29 - 1 is B's top face.
  const Transform xa = At({lim, lim});
  const Transform xb = At({lim, lim - Fi(2)});
  EXPECT_TRUE(TestOverlap(box, xa, box, xb));
  const ShapeProxy a = MakeProxy(box, xa), b = MakeProxy(box, xb);
  EXPECT_TRUE(TestOverlap(b, a));
  EXPECT_EQ(ShapeDistance(a, b).distance, kFixedZero);
  const ShapeProxy apart = Shifted(b, {kFixedZero, -kUlp});
  EXPECT_FALSE(TestOverlap(a, apart));
  EXPECT_EQ(ShapeDistance(a, apart).distance, kUlp);
  const Manifold m = Collide(a, b, kFixedZero);
  ASSERT_GE(m.point_count, 1);
  ExpectNear(m.normal, Vi(0, -1), 1);
  ExpectNear(ManifoldDepth(m), kFixedZero, 2);

  // Tangent circles at the (-, -) corner (3-4-5 again).
  const Shape c2 = CircleShape(2), c3 = CircleShape(3);
  const Transform xc = At({-lim, -lim});
  const Transform xd = At({-lim + Fi(3), -lim + Fi(4)});
  EXPECT_TRUE(TestOverlap(c2, xc, c3, xd));
  EXPECT_FALSE(TestOverlap(c2, xc, c3, At({-lim + Fi(3) + kUlp, -lim + Fi(4)})));
  EXPECT_EQ(ShapeDistance(c2, xc, c3, xd).distance, kFixedZero);
  const DistanceOutput gap = ShapeDistance(c2, xc, c3, At({-lim + Fi(6), -lim + Fi(8)}));
  ExpectNear(gap.distance, Fi(5), 1);
  ExpectNear(gap.normal, Vec2{Ratio(3, 5), Ratio(4, 5)}, 1);

  // Rays and casts there: a ray from x = 2^29 - 10 toward the box at the
  // corner enters its left face x = 2^29 - 1 at t = 9/10.
  const RayCastInput ray = {{lim - Fi(10), lim}, Vi(10, 0), kFixedOne};
  const CastOutput hit = RayCast(box, xa, ray);
  ASSERT_TRUE(hit.hit);
  ExpectNear(hit.fraction, Ratio(9, 10), 1);
  ExpectNear(hit.normal, Vi(-1, 0), 1);
  ExpectNear(hit.point, {lim - Fi(1), lim}, 6);  // 10 x half-ulp fraction
  EXPECT_TRUE(ContainsPoint(box, xa, {lim + Fi(1), lim - Fi(1)}));
  EXPECT_FALSE(ContainsPoint(box, xa, {lim + Fi(1) + kUlp, lim}));
  ShapeCastInput in;
  in.a = MakeProxy(CircleShape(1), At({lim - Fi(10), lim}));
  in.b = a;
  in.translation = Vi(10, 0);
  const CastOutput cast = ShapeCast(in);
  ASSERT_TRUE(cast.hit);
  ExpectNear(cast.fraction, Ratio(8, 10), 1);  // 2^29 - 9 -> 2^29 - 1 - 1
  ExpectNear(cast.normal, Vi(-1, 0), 1);

  // Bounds at the limit are exact.
  const Aabb bounds = ComputeAabb(box, xa);
  EXPECT_EQ(bounds.lower, (Vec2{lim - Fi(1), lim - Fi(1)}));
  EXPECT_EQ(bounds.upper, (Vec2{lim + Fi(1), lim + Fi(1)}));
}

// TestOverlap's disk shortcut (a box distance, then the edges) at the ends
// of the range: a disk of the largest radius against a box on the far side
// of the world, and against every edge and corner of a box exactly touching
// and one ulp apart. Each answer must be ShapeDistance's (distance 0 exactly
// when its general overlap test says so).
TEST(CollisionEdgeCases, DiskOverlapAtTheWorldLimit_AgreesWithShapeDistance) {
  const Fixed lim = Fi(kWorldLimit);
  const Fixed big = Fi(kMaxShapeExtent);
  const Shape disk = Shape::FromCircle({Vec2{}, big});
  const Shape box = BoxShape(Fi(kMaxShapeExtent), Fi(kMaxShapeExtent));
  auto agree = [](const ShapeProxy& a, const ShapeProxy& b, bool want) {
    EXPECT_EQ(TestOverlap(a, b), want);
    EXPECT_EQ(TestOverlap(b, a), want);
    EXPECT_EQ(ShapeDistance(a, b).distance == kFixedZero, want);
  };
  // Opposite corners: every gap close to 2^30 units.
  agree(Place(disk, {-lim, -lim}), Place(box, {lim, lim}), false);
  agree(Place(disk, {-lim, lim}), Place(box, {lim, -lim}), false);
  // Touching a face (centre 2 x 2^24 from the box's centre) and one ulp off.
  const ShapeProxy b = Place(box, {lim - big, lim - big});
  agree(Place(disk, {lim - big - big - big, lim - big}), b, true);
  agree(Place(disk, {lim - big - big - big - kUlp, lim - big}), b, false);
  agree(Place(disk, {lim - big, -lim + big}), Place(box, {lim - big, -lim + big + big + big}), true);
  // A corner: the disk centre at (3, 4) x 2^24 / 5 ... from the corner, so
  // at distance exactly 2^24; then one ulp farther out in x.
  const Fixed u = Fi(kMaxShapeExtent / 8);  // 2^21
  const Shape small = Shape::FromCircle({Vec2{}, u * Fi(5)});
  const Vec2 corner = {-lim + big + big, -lim + big + big};  // upper right of the box below
  const ShapeProxy low = Place(box, {-lim + big, -lim + big});
  agree(Place(small, {corner.x + u * Fi(3), corner.y + u * Fi(4)}), low, true);
  agree(Place(small, {corner.x + u * Fi(3) + kUlp, corner.y + u * Fi(4)}), low, false);
  // A point (radius 0) on the box's edge, inside and just outside.
  const Shape point = Shape::FromCircle({Vec2{}, kFixedZero});
  agree(Place(point, {corner.x, corner.y - big}), low, true);
  agree(Place(point, {corner.x - kUlp, corner.y - kUlp}), low, true);
  agree(Place(point, {corner.x + kUlp, corner.y - big}), low, false);
}

// Found by tests/fuzz/fuzz_narrow: two segments rounded by one ulp, millions
// of units long, swept so that the Minkowski difference is entered a hair
// from a corner. The entry point (origin + rounded fraction * translation)
// drifted off the face by far more than the 16 ulp the seam check allowed,
// the one-ulp corner circles missed, and the sweep reported no hit although
// A ends well inside B.
TEST(CollisionEdgeCases, LongSweepGrazingACornerOfAThinRounding) {
  auto raw = [](int64_t x, int64_t y) { return Vec2{Fixed::FromRaw(x), Fixed::FromRaw(y)}; };
  const Vec2 pa[] = {raw(23549066402281324, -68100392479359938), raw(44552389314740225, 91650308739956736)};
  const Vec2 pb[] = {raw(72058719399083970, -72056498770935361), raw(71777218551377329, 71780551535038930)};
  ShapeCastInput in;
  in.a = MakeProxy(pa, Fixed::FromRaw(1));
  in.b = MakeProxy(pb, Fixed::FromRaw(1));
  in.translation = raw(40837243854955657, -29804635807376708);
  ASSERT_FALSE(TestOverlap(in.a, in.b));
  ShapeProxy end = in.a;
  for (int i = 0; i < end.count; ++i) end.points[i] += in.translation;
  ASSERT_TRUE(TestOverlap(end, in.b));
  const CastOutput out = ShapeCast(in);
  ASSERT_TRUE(out.hit);
  EXPECT_NEAR(out.fraction.ToDouble(), 2.0 / 3.0, 1e-6);
}

// A segment 18 ulp long swept into a disk of radius 2^24 - 1 ulp, ending
// 74 units inside (fuzz_narrow's finding-thin-rounding-sweep-miss): the
// Minkowski face's offset r |e| used |e| rounded to the ulp (off by ~3% for
// so short an edge), which moved the face by thousands of units and clipped
// the hit away.
TEST(CollisionEdgeCases, TinyEdgeWithHugeRadius_IsNotMissed) {
  auto raw = [](int64_t x, int64_t y) { return Vec2{Fixed::FromRaw(x), Fixed::FromRaw(y)}; };
  const Vec2 pa[] = {raw(2305843181122021625, 532176689742), raw(2305843181122021631, 532176689725)};
  const Vec2 pb[] = {raw(2237834447128858286, -23814322780749439)};
  ShapeCastInput in;
  in.a = MakeProxy(pa, kFixedZero);
  in.b = MakeProxy(pb, Fixed::FromRaw(72057594037927935));
  in.translation = raw(-339302416400, 0);
  ASSERT_FALSE(TestOverlap(in.a, in.b));
  ShapeProxy end = in.a;
  for (int i = 0; i < end.count; ++i) end.points[i] += in.translation;
  ASSERT_TRUE(TestOverlap(end, in.b));
  const CastOutput out = ShapeCast(in);
  ASSERT_TRUE(out.hit);
  // Where the reference (double) puts first contact: a's nearer end meets
  // the circle.
  const double dx = (2305843181122021625.0 - 2237834447128858286.0) / 4294967296.0;
  const double dy = (532176689742.0 + 23814322780749439.0) / 4294967296.0;
  const double r = 72057594037927935.0 / 4294967296.0;
  const double t = (dx - std::sqrt(r * r - dy * dy)) / (339302416400.0 / 4294967296.0);
  EXPECT_NEAR(out.fraction.ToDouble(), t, 1e-3);
}

// Found by tests/fuzz/fuzz_narrow: two disks of radius one ulp, so the
// Minkowski circle has radius 2 ulp, swept head-on. The entry point,
// rounded, fell on the circle's centre, and the hit's normal was (0, 0).
TEST(CollisionEdgeCases, HeadOnSweepOfUlpDisks_HasAUnitNormal) {
  auto raw = [](int64_t x, int64_t y) { return Vec2{Fixed::FromRaw(x), Fixed::FromRaw(y)}; };
  const Vec2 pa[] = {raw(-101633159845642240, 7437886286725120)};
  const Vec2 pb[] = {raw(-101633230997815296, 7437815134552064)};
  ShapeCastInput in;
  in.a = MakeProxy(pa, Fixed::FromRaw(1));
  in.b = MakeProxy(pb, Fixed::FromRaw(1));
  in.translation = raw(-109295173631, -109295173631);
  const CastOutput out = ShapeCast(in);
  ASSERT_TRUE(out.hit);
  EXPECT_NEAR(out.fraction.ToDouble(), 71152173056.0 / 109295173631.0, 1e-6);
  // The reverse of the sweep's direction, (1, 1) / sqrt(2), to an ulp.
  const double inv_sqrt2 = 1.0 / std::sqrt(2.0);
  EXPECT_NEAR(out.normal.x.ToDouble(), inv_sqrt2, 1e-9);
  EXPECT_NEAR(out.normal.y.ToDouble(), inv_sqrt2, 1e-9);
}

// Issue 13, item 5: a sweep that starts in overlap reports a point inside
// both shapes. A small disk deep inside a large one was reported at the
// middle of the two surface points, outside the small disk.
TEST(ShapeCastStartingInOverlap, SmallDiskInsideLargeDisk_PointInsideBoth) {
  ShapeCastInput in;
  in.a = Place(CircleShape(1), Vi(0, 0));
  in.b = Place(CircleShape(10), Vi(5, 0));
  in.translation = Vi(3, 0);
  for (int flip = 0; flip < 2; ++flip) {
    const CastOutput out = ShapeCast(in);
    EXPECT_TRUE(out.hit);
    EXPECT_EQ(out.fraction, kFixedZero);
    EXPECT_EQ(out.normal, Vec2{});
    EXPECT_TRUE(ContainsPoint(in.a, out.point)) << "point outside the moving shape";
    EXPECT_TRUE(ContainsPoint(in.b, out.point)) << "point outside the shape hit";
    // The middle of the stretch of the centre line in both disks (x in
    // [-1, 1]), whichever disk moves.
    EXPECT_EQ(out.point, Vi(0, 0));
    std::swap(in.a, in.b);
  }
}

TEST(ShapeCastStartingInOverlap, RoundingsOnlyOverlap_MiddleOfTheSharedStretch) {
  // Disks of radius 2 and 4, centres 5 apart: the centre line is in both
  // for s in [5 - 4, 2] = [1, 2], so the point is at s = 1.5.
  ShapeCastInput in;
  in.a = Place(CircleShape(2), Vi(0, 0));
  in.b = Place(CircleShape(4), Vi(5, 0));
  in.translation = Vi(0, 7);
  const CastOutput out = ShapeCast(in);
  EXPECT_TRUE(out.hit);
  EXPECT_EQ(out.fraction, kFixedZero);
  EXPECT_EQ(out.point, (Vec2{Fixed::FromRatio(3, 2), kFixedZero}));
}

}  // namespace
}  // namespace arbiter
