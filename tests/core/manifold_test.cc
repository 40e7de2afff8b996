#include "arbiter/core/manifold.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "arbiter/core/collision.h"
#include "arbiter/core/fixed_math.h"
#include "arbiter/core/hull.h"
#include "arbiter/core/shapes.h"
#include "reference/convert.h"
#include "reference/reference.h"
#include "testing/numbers.h"
#include "testing/random.h"

namespace arbiter {
namespace {

using testing::SplitMix64;

// Tests build their inputs from decimal literals; the conversion is an edge
// use of doubles, the core never sees one.
using testing::Fd;
using testing::Vd;
double D(Fixed f) { return f.ToDouble(); }

constexpr double kUlp = 1.0 / 4294967296.0;
// How far past (or short of) the reported minimum translation the property
// tests move B. Collide's depth is exact up to rounding (a few ulp, plus
// |depth| * 2^-31 from the normal's length) and up to kReferenceTolerance
// (2^-22) in near ties between faces, both far below this. Moving by exactly
// the depth cannot be tested with the exact TestOverlap: the rounded normal
// and the rounded move leave B a few ulp short or past, either way about
// equally often.
const Fixed kEps = Fd(1e-6);

Transform Xf(double x, double y, double angle = 0) { return {Vd(x, y), MakeRot(Fd(angle))}; }

Shape Box(double hw, double hh) {
  Polygon p;
  EXPECT_EQ(MakeBox(Fd(hw), Fd(hh), &p), ShapeError::kOk);
  return Shape::FromPolygon(p);
}

Shape RoundedBox(double hw, double hh, double radius) {
  const Vec2 corners[4] = {Vd(-hw, -hh), Vd(hw, -hh), Vd(hw, hh), Vd(-hw, hh)};
  Polygon p;
  EXPECT_EQ(MakePolygon(corners, Fd(radius), &p), ShapeError::kOk);
  return Shape::FromPolygon(p);
}

Shape Disk(double radius, double x = 0, double y = 0) { return Shape::FromCircle({Vd(x, y), Fd(radius)}); }
Shape Capsule(double x1, double y1, double x2, double y2, double r) {
  return Shape::FromCapsule({Vd(x1, y1), Vd(x2, y2), Fd(r)});
}
Shape Seg(double x1, double y1, double x2, double y2) { return Shape::FromSegment({Vd(x1, y1), Vd(x2, y2)}); }

ShapeProxy Place(const Shape& s, const Transform& xf) { return MakeProxy(s, xf); }

ShapeProxy Shifted(ShapeProxy p, Vec2 d) {
  for (int i = 0; i < p.count; ++i) p.points[i] += d;
  return p;
}

// B moved by normal * amount (each component rounded once, as a body's
// position would be).
ShapeProxy MovedAlong(const ShapeProxy& b, Vec2 normal, Fixed amount) { return Shifted(b, amount * normal); }

void ExpectUnit(Vec2 n) {
  const double len = std::hypot(D(n.x), D(n.y));
  EXPECT_NEAR(len, 1.0, 4 * kUlp);
}

void ExpectVecNear(Vec2 got, double x, double y, double tol = 4 * kUlp) {
  EXPECT_NEAR(D(got.x), x, tol);
  EXPECT_NEAR(D(got.y), y, tol);
}

// The minimum translation property. Moving B by normal * depth must leave the
// shapes touching: moving by depth + kEps separates them, and
//  - when they overlap (depth > 0), moving by depth - kEps keeps them
//    overlapping (the path from inside to the nearest boundary point stays
//    inside);
//  - when they are apart (depth <= 0, B moves towards A), the distance after
//    moving by depth is at most kEps. Moving further need not overlap: past
//    a sharp corner B can slide by.
::testing::AssertionResult IsMinimumTranslation(const ShapeProxy& a, const ShapeProxy& b, const Manifold& m) {
  if (m.point_count == 0) return ::testing::AssertionFailure() << "no contact";
  const Fixed depth = ManifoldDepth(m);
  auto where = [&] {
    return "depth " + std::to_string(D(depth)) + " along (" + std::to_string(D(m.normal.x)) + ", " +
           std::to_string(D(m.normal.y)) + ")";
  };
  if (depth > kFixedZero) {
    if (!TestOverlap(a, MovedAlong(b, m.normal, depth - kEps))) {
      return ::testing::AssertionFailure() << "separated before " << where();
    }
  } else {
    const Fixed gap = ShapeDistance(a, MovedAlong(b, m.normal, depth)).distance;
    if (gap > kEps) return ::testing::AssertionFailure() << "still " << D(gap) << " apart after " << where();
  }
  if (TestOverlap(a, MovedAlong(b, m.normal, depth + kEps))) {
    return ::testing::AssertionFailure() << "still overlapping past " << where();
  }
  return ::testing::AssertionSuccess();
}

// ---------------------------------------------------------------------------
// Circles.

TEST(Collide, Collide_CirclesOverlapping_NormalAlongCentresPointMidway) {
  const ShapeProxy a = Place(Disk(1), Xf(0, 0));
  const ShapeProxy b = Place(Disk(0.5), Xf(1.25, 0));
  const Manifold m = Collide(a, b, kFixedZero);
  ASSERT_EQ(m.point_count, 1);
  EXPECT_EQ(m.normal, Vd(1, 0));
  EXPECT_EQ(m.points[0].separation, Fd(-0.25));
  // Surfaces at x = 1 (A) and x = 0.75 (B).
  EXPECT_EQ(m.points[0].point, Vd(0.875, 0));
  EXPECT_EQ(m.points[0].id, 0);

  // A 3-4-5 direction: |d| = 1.25 exactly.
  const Manifold diag = Collide(a, Place(Disk(0.5), Xf(0.75, 1.0)), kFixedZero);
  ASSERT_EQ(diag.point_count, 1);
  ExpectVecNear(diag.normal, 0.6, 0.8, 1.5 * kUlp);
  EXPECT_EQ(diag.points[0].separation, Fd(-0.25));
  ExpectVecNear(diag.points[0].point, 0.6 * 0.875, 0.8 * 0.875);
}

TEST(Collide, Collide_CirclesTouching_OnePointAtZeroSeparation) {
  const Manifold m = Collide(Place(Disk(1), Xf(0, 0)), Place(Disk(0.5), Xf(0, 1.5)), kFixedZero);
  ASSERT_EQ(m.point_count, 1);
  EXPECT_EQ(m.normal, Vd(0, 1));
  EXPECT_EQ(m.points[0].separation, kFixedZero);
  EXPECT_EQ(m.points[0].point, Vd(0, 1));
}

TEST(Collide, Collide_CirclesSeparated_EmptyUnlessWithinSpeculativeDistance) {
  const ShapeProxy a = Place(Disk(1), Xf(0, 0));
  const ShapeProxy b = Place(Disk(0.5), Xf(-2, 0));
  EXPECT_EQ(Collide(a, b, kFixedZero).point_count, 0);
  EXPECT_EQ(Collide(a, b, Fd(0.375)).point_count, 0);
  const Manifold m = Collide(a, b, Fd(0.5));
  ASSERT_EQ(m.point_count, 1);
  EXPECT_EQ(m.normal, Vd(-1, 0));
  EXPECT_EQ(m.points[0].separation, Fd(0.5));
  EXPECT_EQ(m.points[0].point, Vd(-1.25, 0));
}

// Two circles find a point exactly when Length(d) - ra - rb <= spec; the
// routine decides "apart" without the square root where it can prove the
// same answer (|d|^2 > R^2 + R, R = ra + rb + spec). Checked on both sides
// of the boundary: spec = Length - ra - rb keeps the point, one ulp less
// drops it; at |d|^2 = r^2 + r (Length rounds down to r) and r^2 + r + 1;
// and at the edges of that shortcut's domain (components near 2^61 raw,
// radii at kMaxShapeExtent, spec near 2^62 raw).
ShapeProxy RawCircle(int64_t x, int64_t y, int64_t radius) {
  ShapeProxy p;
  p.points[0] = {Fixed::FromRaw(x), Fixed::FromRaw(y)};
  p.count = 1;
  p.radius = Fixed::FromRaw(radius);
  return p;
}

void ExpectCirclesBoundary(int64_t dx, int64_t dy, int64_t ra, int64_t rb) {
  const ShapeProxy a = RawCircle(0, 0, ra), b = RawCircle(dx, dy, rb);
  const Fixed length = Length({Fixed::FromRaw(dx), Fixed::FromRaw(dy)});
  const Fixed spec = length - Fixed::FromRaw(ra) - Fixed::FromRaw(rb);
  const std::string what = std::to_string(dx) + ", " + std::to_string(dy) + " r " + std::to_string(ra) + " " + std::to_string(rb);
  EXPECT_EQ(Collide(a, b, spec).point_count, 1) << what;
  EXPECT_EQ(Collide(b, a, spec).point_count, 1) << what;
  EXPECT_EQ(Collide(a, b, spec - Fixed::FromRaw(1)).point_count, 0) << what;
  EXPECT_EQ(Collide(b, a, spec - Fixed::FromRaw(1)).point_count, 0) << what;
}

TEST(Collide, Collide_CirclesApart_ExactlyWhenLengthExceedsRadiiPlusSpec) {
  // |d|^2 = k^4 + k^2 = r^2 + r for r = k^2: Length rounds down to r.
  for (int64_t k : {int64_t{1} << 10, int64_t{3} << 14, int64_t{1} << 20, (int64_t{1} << 30) - 1}) {
    const int64_t r = k * k;
    EXPECT_EQ(Length({Fixed::FromRaw(r), Fixed::FromRaw(k)}).raw(), r);
    ExpectCirclesBoundary(r, k, 0, 0);
    ExpectCirclesBoundary(r, k + 1, 12345, 678);  // |d|^2 = r^2 + r + 2k + 1: rounds up
  }
  SplitMix64 rng(1234);
  const int64_t max_radius = kFixedMaxShapeExtent.raw();
  for (int i = 0; i < 4000; ++i) {
    const int bits = 20 + static_cast<int>(rng.Next() % 43);  // components up to 2^62
    const int64_t dx = static_cast<int64_t>(rng.Next() >> (64 - bits)) * (rng.Next() % 2 == 0 ? 1 : -1);
    const int64_t dy = static_cast<int64_t>(rng.Next() >> (64 - bits)) * (rng.Next() % 2 == 0 ? 1 : -1);
    const int64_t ra = static_cast<int64_t>(rng.Next() % static_cast<uint64_t>(max_radius + 1));
    const int64_t rb = i % 3 == 0 ? max_radius : static_cast<int64_t>(rng.Next() % 4096);
    ExpectCirclesBoundary(dx, dy, ra, rb);
  }
  // The domain's edges: components at 2^61 - 1 and 2^61, spec near 2^62.
  for (int64_t c : {(int64_t{1} << 61) - 1, int64_t{1} << 61, (int64_t{1} << 61) + 1}) {
    ExpectCirclesBoundary(c, 0, 0, 0);
    ExpectCirclesBoundary(c, c, max_radius, max_radius);
    ExpectCirclesBoundary(-c, 3, max_radius, 0);
  }
  const ShapeProxy a = RawCircle(0, 0, 0), b = RawCircle(int64_t{1} << 60, 0, 0);
  EXPECT_EQ(Collide(a, b, Fixed::FromRaw((int64_t{1} << 62) - 1)).point_count, 1);
  EXPECT_EQ(Collide(a, b, Fixed::FromRaw(int64_t{1} << 62)).point_count, 1);
  EXPECT_EQ(Collide(a, b, Fixed::FromRaw((int64_t{1} << 60) - 1)).point_count, 0);
}

TEST(Collide, Collide_CoincidentCircles_UseUpNormal) {
  const Manifold m = Collide(Place(Disk(1), Xf(2, 3)), Place(Disk(0.5), Xf(2, 3)), kFixedZero);
  ASSERT_EQ(m.point_count, 1);
  EXPECT_EQ(m.normal, Vd(0, 1));
  EXPECT_EQ(m.points[0].separation, Fd(-1.5));
  // Midway between A's top (y = 4) and B's bottom (y = 2.5).
  EXPECT_EQ(m.points[0].point, Vd(2, 3.25));

  // Found by tests/fuzz/fuzz_narrow: the other argument order picked the
  // same up normal (and another point) instead of the exact flip.
  const Manifold f = Collide(Place(Disk(0.5), Xf(2, 3)), Place(Disk(1), Xf(2, 3)), kFixedZero);
  ASSERT_EQ(f.point_count, 1);
  EXPECT_EQ(f.normal, Vd(0, -1));
  EXPECT_EQ(f.points[0].separation, Fd(-1.5));
  EXPECT_EQ(f.points[0].point, Vd(2, 3.25));
}

// ---------------------------------------------------------------------------
// Polygons.

// MakeBox's vertices run (-w,-h), (w,-h), (w,h), (-w,h): edge 2 is the top.
constexpr int kBoxBottom = 0;
constexpr int kBoxRight = 1;
constexpr int kBoxTop = 2;
// Box vertices, counter-clockwise from the lower left (edge i runs from
// vertex i to vertex i + 1).
constexpr int kBoxLowerLeft = 0;
constexpr int kBoxLowerRight = 1;
constexpr int kBoxUpperRight = 2;
constexpr int kBoxUpperLeft = 3;

// A feature id (manifold.h) from A's vertex and B's.
constexpr uint16_t FeatureId(int vertex_a, int vertex_b) { return static_cast<uint16_t>((vertex_a << 8) | vertex_b); }
// The id with the shapes' roles swapped, as Collide(b, a) reports it.
constexpr uint16_t Swapped(uint16_t id) { return static_cast<uint16_t>((id << 8) | (id >> 8)); }

TEST(Collide, Collide_BoxRestingOnBox_TwoPointsNormalUp) {
  const ShapeProxy ground = Place(Box(5, 0.5), Xf(0, 0));
  const ShapeProxy touching = Place(Box(0.5, 0.5), Xf(1, 1));
  Manifold m = Collide(ground, touching, kFixedZero);
  ASSERT_EQ(m.point_count, 2);
  EXPECT_EQ(m.normal, Vd(0, 1));
  EXPECT_EQ(m.points[0].separation, kFixedZero);
  EXPECT_EQ(m.points[1].separation, kFixedZero);
  std::vector<double> xs = {D(m.points[0].point.x), D(m.points[1].point.x)};
  std::sort(xs.begin(), xs.end());
  EXPECT_EQ(xs, (std::vector<double>{0.5, 1.5}));
  EXPECT_EQ(m.points[0].point.y, Fd(0.5));
  // The ground's top face is the reference. Each point pairs the ground's
  // vertex with the crate's at its end: upper left with lower left, upper
  // right with lower right.
  const std::vector<uint16_t> ids = {FeatureId(kBoxUpperRight, kBoxLowerRight), FeatureId(kBoxUpperLeft, kBoxLowerLeft)};
  std::vector<uint16_t> got = {m.points[0].id, m.points[1].id};
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, ids);

  // Sunk by 1/8: both points at -1/8, midway between y = 0.5 and y = 0.375.
  m = Collide(ground, Place(Box(0.5, 0.5), Xf(1, 0.875)), kFixedZero);
  ASSERT_EQ(m.point_count, 2);
  EXPECT_EQ(m.normal, Vd(0, 1));
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(m.points[i].separation, Fd(-0.125));
    EXPECT_EQ(m.points[i].point.y, Fd(0.4375));
  }
  EXPECT_EQ(ManifoldDepth(m), Fd(0.125));

  // The same pair the other way round: the same features, sides swapped.
  const Manifold flipped = Collide(Place(Box(0.5, 0.5), Xf(1, 0.875)), ground, kFixedZero);
  ASSERT_EQ(flipped.point_count, 2);
  EXPECT_EQ(flipped.normal, Vd(0, -1));
  got = {Swapped(flipped.points[0].id), Swapped(flipped.points[1].id)};
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, ids);
  EXPECT_EQ(ManifoldDepth(flipped), Fd(0.125));
}

TEST(Collide, Collide_BoxCornerIntoBox_OnePointAtTheCorner) {
  const ShapeProxy ground = Place(Box(5, 0.5), Xf(0, 0));
  // A unit box turned 45 degrees: its lowest corner at y = 0.4.
  const double half_diagonal = 0.5 * std::sqrt(2.0);
  const ShapeProxy b = Place(Box(0.5, 0.5), Xf(0.25, 0.4 + half_diagonal, 0.25 * 3.14159265358979323846));
  const Manifold m = Collide(ground, b, kFixedZero);
  ASSERT_EQ(m.point_count, 1);
  EXPECT_EQ(m.normal, Vd(0, 1));
  EXPECT_NEAR(D(m.points[0].separation), -0.1, 1e-8);
  ExpectVecNear(m.points[0].point, 0.25, 0.45, 1e-8);
  // The ground's top face is the reference: the ground's side of the id is
  // one of its vertices.
  EXPECT_TRUE(m.points[0].id >> 8 == kBoxUpperRight || m.points[0].id >> 8 == kBoxUpperLeft) << m.points[0].id;
  EXPECT_TRUE(IsMinimumTranslation(ground, b, m));

  // Tilted by a small angle instead: the lower corner is the only contact.
  const ShapeProxy tilted = Place(Box(0.5, 0.5), Xf(0, 0.95, 0.1));
  const Manifold t = Collide(ground, tilted, kFixedZero);
  ASSERT_EQ(t.point_count, 1);
  EXPECT_EQ(t.normal, Vd(0, 1));
  EXPECT_TRUE(IsMinimumTranslation(ground, tilted, t));
}

TEST(Collide, Collide_CircleCentreInsideBox_PushesOutThroughNearestFace) {
  const ShapeProxy box = Place(Box(1, 1), Xf(0, 0));
  const ShapeProxy disk = Place(Disk(0.5), Xf(0.625, 0.25));
  const Manifold m = Collide(box, disk, kFixedZero);
  ASSERT_EQ(m.point_count, 1);
  EXPECT_EQ(m.normal, Vd(1, 0));
  EXPECT_EQ(m.points[0].separation, Fd(-0.875));
  // Box surface at x = 1, the disk's far side at x = 0.125.
  EXPECT_EQ(m.points[0].point, Vd(0.5625, 0.25));
  EXPECT_EQ(m.points[0].id, kBoxRight << 8);
  EXPECT_TRUE(IsMinimumTranslation(box, disk, m));

  // Disk first: the normal flips, the box face is still the reference.
  const Manifold f = Collide(disk, box, kFixedZero);
  ASSERT_EQ(f.point_count, 1);
  EXPECT_EQ(f.normal, Vd(-1, 0));
  EXPECT_EQ(f.points[0].separation, Fd(-0.875));
  EXPECT_EQ(f.points[0].id, Swapped(kBoxRight << 8));
}

TEST(Collide, Collide_CircleOutsideBox_FaceRegionAndCornerRegion) {
  const ShapeProxy box = Place(Box(1, 1), Xf(0, 0));
  // Above the top face: the face normal.
  const Manifold face = Collide(box, Place(Disk(0.5), Xf(0.5, 1.25)), kFixedZero);
  ASSERT_EQ(face.point_count, 1);
  EXPECT_EQ(face.normal, Vd(0, 1));
  EXPECT_EQ(face.points[0].separation, Fd(-0.25));
  EXPECT_EQ(face.points[0].point, Vd(0.5, 0.875));

  // Beyond the corner: the corner-to-centre direction, exact depth.
  const ShapeProxy corner_disk = Place(Disk(0.5), Xf(1.25, 1.25));
  const Manifold corner = Collide(box, corner_disk, kFixedZero);
  ASSERT_EQ(corner.point_count, 1);
  const double s = 1 / std::sqrt(2.0);
  ExpectVecNear(corner.normal, s, s, 1.5 * kUlp);
  EXPECT_NEAR(D(corner.points[0].separation), 0.25 * std::sqrt(2.0) - 0.5, 4 * kUlp);
  EXPECT_TRUE(IsMinimumTranslation(box, corner_disk, corner));
}

TEST(Collide, Collide_NestedBoxes_PushesOutAlongShorterExit) {
  const ShapeProxy big = Place(Box(5, 5), Xf(0, 0));
  // Exits: right 3, up 5.5, down 6.5, left 9.
  const ShapeProxy small = Place(Box(1, 1), Xf(3, 0.5));
  const Manifold m = Collide(big, small, kFixedZero);
  ASSERT_EQ(m.point_count, 2);
  EXPECT_EQ(m.normal, Vd(1, 0));
  EXPECT_EQ(ManifoldDepth(m), Fd(3));
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(m.points[i].separation, Fd(-3));
    EXPECT_EQ(m.points[i].point.x, Fd(3.5));  // midway between x = 5 and x = 2
  }
  // Moving B by exactly the depth leaves the boxes touching (exactly here).
  EXPECT_TRUE(TestOverlap(big, MovedAlong(small, m.normal, ManifoldDepth(m))));
  EXPECT_TRUE(IsMinimumTranslation(big, small, m));

  // Small box first: same exit, normal reversed.
  const Manifold f = Collide(small, big, kFixedZero);
  ASSERT_EQ(f.point_count, 2);
  EXPECT_EQ(f.normal, Vd(-1, 0));
  EXPECT_EQ(ManifoldDepth(f), Fd(3));

  // Off-centre towards the bottom and rotated: the exit is down.
  const ShapeProxy low = Place(Box(1, 0.5), Xf(-0.5, -3.25, 0.3));
  const Manifold d = Collide(big, low, kFixedZero);
  ASSERT_GE(d.point_count, 1);
  EXPECT_EQ(d.normal, Vd(0, -1));
  EXPECT_TRUE(IsMinimumTranslation(big, low, d));
}

TEST(Collide, Collide_RoundedBoxes_CornerRegionUsesDistanceNormal) {
  const ShapeProxy a = Place(RoundedBox(1, 1, 0.25), Xf(0, 0));
  // B's core corner diagonally beyond A's core corner: the closest features
  // are two vertices and the normal is their direction, not a face normal.
  const ShapeProxy b = Place(RoundedBox(0.5, 0.5, 0.25), Xf(1.75, 1.625));
  const Manifold m = Collide(a, b, kFixedZero);
  ASSERT_EQ(m.point_count, 1);
  const double dx = 0.25, dy = 0.125, len = std::hypot(dx, dy);
  ExpectVecNear(m.normal, dx / len, dy / len, 1.5 * kUlp);
  EXPECT_NEAR(D(m.points[0].separation), len - 0.5, 4 * kUlp);
  EXPECT_TRUE(IsMinimumTranslation(a, b, m));

  // Shifted left so that B's lowest corner is over A's top face: two points
  // along the face normal again.
  const ShapeProxy over = Place(RoundedBox(0.5, 0.5, 0.25), Xf(1.25, 1.625));
  const Manifold o = Collide(a, over, kFixedZero);
  ASSERT_EQ(o.point_count, 2);
  EXPECT_EQ(o.normal, Vd(0, 1));
  EXPECT_EQ(ManifoldDepth(o), Fd(0.375));
}

// ---------------------------------------------------------------------------
// Capsules and segments.

TEST(Collide, Collide_CapsuleOnBox_TwoPointsWhenParallel) {
  const ShapeProxy box = Place(Box(2, 0.5), Xf(0, 0));
  const ShapeProxy capsule = Place(Capsule(-1, 0, 1, 0, 0.25), Xf(0.5, 0.625));
  const Manifold m = Collide(box, capsule, kFixedZero);
  ASSERT_EQ(m.point_count, 2);
  EXPECT_EQ(m.normal, Vd(0, 1));
  std::vector<double> xs = {D(m.points[0].point.x), D(m.points[1].point.x)};
  std::sort(xs.begin(), xs.end());
  EXPECT_EQ(xs, (std::vector<double>{-0.5, 1.5}));
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(m.points[i].separation, Fd(-0.125));
    EXPECT_EQ(m.points[i].point.y, Fd(0.4375));
    // The box's top face is the reference: the box's side of each id is
    // one of that face's vertices.
    EXPECT_TRUE(m.points[i].id >> 8 == kBoxUpperRight || m.points[i].id >> 8 == kBoxUpperLeft) << m.points[i].id;
  }
  EXPECT_NE(m.points[0].id, m.points[1].id);
  EXPECT_TRUE(IsMinimumTranslation(box, capsule, m));

  // Hanging over the box's corner: clipped at the side plane x = 2.
  const Manifold hang = Collide(box, Place(Capsule(-1, 0, 1, 0, 0.25), Xf(1.5, 0.625)), kFixedZero);
  ASSERT_EQ(hang.point_count, 2);
  xs = {D(hang.points[0].point.x), D(hang.points[1].point.x)};
  std::sort(xs.begin(), xs.end());
  EXPECT_EQ(xs, (std::vector<double>{0.5, 2.0}));

  // Tilted: one point, at the lower end.
  const ShapeProxy tilted = Place(Capsule(-1, 0, 1, 0, 0.25), Xf(0, 0.75, 0.2));
  const Manifold t = Collide(box, tilted, kFixedZero);
  ASSERT_EQ(t.point_count, 1);
  EXPECT_EQ(t.normal, Vd(0, 1));
  EXPECT_LT(D(t.points[0].point.x), 0);
  EXPECT_TRUE(IsMinimumTranslation(box, tilted, t));
}

TEST(Collide, Collide_CapsulesCrossing_XShapeOnePointAndMinimumTranslation) {
  const ShapeProxy a = Place(Capsule(-1, -1, 1, 1, 0.125), Xf(0, 0));
  const ShapeProxy b = Place(Capsule(-1, 1, 1, -1, 0.125), Xf(0, 0));
  const Manifold m = Collide(a, b, kFixedZero);
  ASSERT_EQ(m.point_count, 1);
  ExpectUnit(m.normal);
  // Every exit (along either capsule's normal, either way) is sqrt(2) + 1/4.
  EXPECT_NEAR(D(ManifoldDepth(m)), std::sqrt(2.0) + 0.25, 4 * kUlp);
  EXPECT_TRUE(IsMinimumTranslation(a, b, m));

  // An asymmetric X: B crosses A near A's upper end, so the short exit
  // pushes B off along A's normal past that end... whichever it is, it is
  // the minimum translation.
  const ShapeProxy b2 = Place(Capsule(-0.5, 1.5, 1.5, 0.25, 0.125), Xf(0, 0));
  const Manifold m2 = Collide(a, b2, kFixedZero);
  ASSERT_GE(m2.point_count, 1);
  EXPECT_TRUE(IsMinimumTranslation(a, b2, m2));
}

TEST(Collide, Collide_ParallelCapsules_TwoPoints) {
  const ShapeProxy a = Place(Capsule(-1, 0, 1, 0, 0.25), Xf(0, 0));
  const ShapeProxy b = Place(Capsule(-1, 0, 1, 0, 0.25), Xf(1, 0.375));
  const Manifold m = Collide(a, b, kFixedZero);
  ASSERT_EQ(m.point_count, 2);
  EXPECT_EQ(m.normal, Vd(0, 1));
  EXPECT_EQ(ManifoldDepth(m), Fd(0.125));
  std::vector<double> xs = {D(m.points[0].point.x), D(m.points[1].point.x)};
  std::sort(xs.begin(), xs.end());
  EXPECT_EQ(xs, (std::vector<double>{0, 1}));
}

TEST(Collide, Collide_SegmentAndCircle_FaceEndAndCollinear) {
  const ShapeProxy seg = Place(Seg(-1, 0, 1, 0), Xf(0, 0));
  // Above and below the segment: the segment's two faces.
  Manifold m = Collide(seg, Place(Disk(0.25), Xf(0.5, 0.125)), kFixedZero);
  ASSERT_EQ(m.point_count, 1);
  EXPECT_EQ(m.normal, Vd(0, 1));
  EXPECT_EQ(m.points[0].separation, Fd(-0.125));
  EXPECT_EQ(m.points[0].point, Vd(0.5, -0.0625));  // midway between y = 0 and y = -0.125
  m = Collide(seg, Place(Disk(0.25), Xf(0.5, -0.125)), kFixedZero);
  ASSERT_EQ(m.point_count, 1);
  EXPECT_EQ(m.normal, Vd(0, -1));
  EXPECT_EQ(m.points[0].separation, Fd(-0.125));

  // On the segment's line beyond its end: the face separations are zero
  // (the Minkowski difference is flat), the true normal is along the line.
  const ShapeProxy beyond = Place(Disk(0.25), Xf(1.125, 0));
  m = Collide(seg, beyond, kFixedZero);
  ASSERT_EQ(m.point_count, 1);
  EXPECT_EQ(m.normal, Vd(1, 0));
  EXPECT_EQ(m.points[0].separation, Fd(-0.125));
  EXPECT_EQ(m.points[0].point, Vd(0.9375, 0));  // midway between x = 1 and x = 0.875
  EXPECT_TRUE(IsMinimumTranslation(seg, beyond, m));

  // Far along the line: nothing, unless speculative.
  const ShapeProxy far = Place(Disk(0.25), Xf(3, 0));
  EXPECT_EQ(Collide(seg, far, kFixedZero).point_count, 0);
  m = Collide(seg, far, Fd(2));
  ASSERT_EQ(m.point_count, 1);
  EXPECT_EQ(m.normal, Vd(1, 0));
  EXPECT_EQ(m.points[0].separation, Fd(1.75));

  // Diagonally off the end: the end-to-centre direction.
  const ShapeProxy diag = Place(Disk(0.25), Xf(1.125, 0.125));
  m = Collide(seg, diag, kFixedZero);
  ASSERT_EQ(m.point_count, 1);
  const double s = 1 / std::sqrt(2.0);
  ExpectVecNear(m.normal, s, s, 1.5 * kUlp);
  EXPECT_TRUE(IsMinimumTranslation(seg, diag, m));

  // Circle first.
  m = Collide(Place(Disk(0.25), Xf(0.5, 0.125)), seg, kFixedZero);
  ASSERT_EQ(m.point_count, 1);
  EXPECT_EQ(m.normal, Vd(0, -1));
}

TEST(Collide, Collide_CollinearSegments_SeparatedAlongTheirLine) {
  const ShapeProxy a = Place(Capsule(-1, 0, 1, 0, 0.25), Xf(0, 0));
  const ShapeProxy b = Place(Capsule(-1, 0, 1, 0, 0.25), Xf(2.25, 0));
  const Manifold m = Collide(a, b, kFixedZero);
  ASSERT_EQ(m.point_count, 1);
  EXPECT_EQ(m.normal, Vd(1, 0));
  EXPECT_EQ(m.points[0].separation, Fd(-0.25));
  EXPECT_EQ(m.points[0].point, Vd(1.125, 0));
  EXPECT_EQ(Collide(a, Place(Capsule(-1, 0, 1, 0, 0.25), Xf(3, 0)), kFixedZero).point_count, 0);
}

// ---------------------------------------------------------------------------
// Speculative contacts.

TEST(Collide, Collide_SpeculativeDistance_KeepsNearPointsDropsFarOnes) {
  const ShapeProxy ground = Place(Box(5, 0.5), Xf(0, 0));
  const ShapeProxy above = Place(Box(0.5, 0.5), Xf(0, 1.25));  // gap 0.25
  EXPECT_EQ(Collide(ground, above, kFixedZero).point_count, 0);
  EXPECT_EQ(Collide(ground, above, Fd(0.125)).point_count, 0);
  Manifold m = Collide(ground, above, Fd(0.25));
  ASSERT_EQ(m.point_count, 2);
  EXPECT_EQ(m.normal, Vd(0, 1));
  EXPECT_EQ(m.points[0].separation, Fd(0.25));
  EXPECT_EQ(m.points[1].separation, Fd(0.25));
  EXPECT_EQ(ManifoldDepth(m), Fd(-0.25));
  EXPECT_TRUE(IsMinimumTranslation(ground, above, m));

  // Tilted: one corner 0.1 above the ground, the other about 0.2 higher.
  const double angle = 0.2;
  const double lift = 0.5 * (std::cos(angle) + std::sin(angle));  // centre height over the low corner
  const ShapeProxy tilted = Place(Box(0.5, 0.5), Xf(0, 0.6 + lift, angle));
  m = Collide(ground, tilted, Fd(0.15));
  ASSERT_EQ(m.point_count, 1);
  EXPECT_NEAR(D(m.points[0].separation), 0.1, 1e-8);
  m = Collide(ground, tilted, Fd(0.5));
  ASSERT_EQ(m.point_count, 2);
  EXPECT_NEAR(D(ManifoldDepth(m)), -0.1, 1e-8);
  EXPECT_NEAR(D(Max(m.points[0].separation, m.points[1].separation)), 0.1 + std::sin(angle), 1e-8);
  EXPECT_TRUE(IsMinimumTranslation(ground, tilted, m));
}

// ---------------------------------------------------------------------------
// Properties over seeded random configurations of every pair of shape kinds.

enum class Kind { kCircle, kCapsule, kSegment, kBox, kRoundedBox, kPolygon, kRoundedPolygon };
constexpr Kind kKinds[] = {Kind::kCircle, Kind::kCapsule,    Kind::kSegment,       Kind::kBox,
                           Kind::kRoundedBox, Kind::kPolygon, Kind::kRoundedPolygon};

const char* KindName(Kind k) {
  switch (k) {
    case Kind::kCircle: return "circle";
    case Kind::kCapsule: return "capsule";
    case Kind::kSegment: return "segment";
    case Kind::kBox: return "box";
    case Kind::kRoundedBox: return "rounded box";
    case Kind::kPolygon: return "polygon";
    case Kind::kRoundedPolygon: return "rounded polygon";
  }
  return "?";
}

// Uniform in [lo, hi] units on the Q32.32 grid.
Fixed Uniform(SplitMix64& rng, double lo, double hi) {
  return Fixed::FromRaw(rng.Uniform(Fd(lo).raw(), Fd(hi).raw()));
}

Shape RandomShape(SplitMix64& rng, Kind kind) {
  switch (kind) {
    case Kind::kCircle:
      return Shape::FromCircle({{Uniform(rng, -0.25, 0.25), Uniform(rng, -0.25, 0.25)}, Uniform(rng, 0.1, 1)});
    case Kind::kCapsule: {
      const Fixed h = Uniform(rng, 0.1, 1.5);
      return Shape::FromCapsule({{-h, kFixedZero}, {h, kFixedZero}, Uniform(rng, 0.05, 0.6)});
    }
    case Kind::kSegment: {
      const Fixed h = Uniform(rng, 0.2, 2);
      return Shape::FromSegment({{-h, Uniform(rng, -0.1, 0.1)}, {h, Uniform(rng, -0.1, 0.1)}});
    }
    case Kind::kBox:
    case Kind::kRoundedBox: {
      const Fixed hw = Uniform(rng, 0.1, 1.5), hh = Uniform(rng, 0.1, 1.5);
      const Vec2 corners[4] = {{-hw, -hh}, {hw, -hh}, {hw, hh}, {-hw, hh}};
      Polygon p;
      const Fixed r = kind == Kind::kRoundedBox ? Uniform(rng, 0.05, 0.4) : kFixedZero;
      EXPECT_EQ(MakePolygon(corners, r, &p), ShapeError::kOk);
      return Shape::FromPolygon(p);
    }
    case Kind::kPolygon:
    case Kind::kRoundedPolygon: {
      // Points scattered in a disk; their hull (3..8 vertices) is the shape.
      for (;;) {
        std::vector<Vec2> pts(3 + rng.Next() % 6);
        for (Vec2& p : pts) {
          const Rot dir = MakeRot(Uniform(rng, -3.2, 3.2));
          const Fixed len = Uniform(rng, 0.3, 1.5);
          p = {len * dir.c, len * dir.s};
        }
        std::array<Vec2, kMaxPolygonVertices> hull;
        const int n = ComputeHull(pts, hull);
        if (n < 3) continue;
        Polygon p;
        const Fixed r = kind == Kind::kRoundedPolygon ? Uniform(rng, 0.05, 0.4) : kFixedZero;
        if (MakePolygon(std::span<const Vec2>(hull.data(), n), r, &p) != ShapeError::kOk) continue;
        return Shape::FromPolygon(p);
      }
    }
  }
  return Shape{};
}

Transform RandomTransform(SplitMix64& rng, double spread) {
  return {{Uniform(rng, -spread, spread), Uniform(rng, -spread, spread)}, MakeRot(Uniform(rng, -3.2, 3.2))};
}

struct Pair {
  ShapeProxy a;
  ShapeProxy b;
  std::string what;
};

// For every ordered pair of kinds, `per_pair` configurations with B placed
// around A (overlapping, touching-ish and separated).
std::vector<Pair> RandomPairs(uint64_t seed, int per_pair) {
  SplitMix64 rng(seed);
  std::vector<Pair> pairs;
  for (Kind ka : kKinds) {
    for (Kind kb : kKinds) {
      for (int i = 0; i < per_pair; ++i) {
        const Shape sa = RandomShape(rng, ka);
        const Shape sb = RandomShape(rng, kb);
        const Transform xa = RandomTransform(rng, 0.5);
        const Transform xb = RandomTransform(rng, 2.0);
        pairs.push_back({MakeProxy(sa, xa), MakeProxy(sb, xb),
                         std::string(KindName(ka)) + " vs " + KindName(kb) + " #" + std::to_string(i)});
      }
    }
  }
  return pairs;
}

TEST(Collide, Collide_RandomPairs_DepthIsTheMinimumTranslation) {
  const Fixed spec = Fd(8);  // large: separated pairs report their distance
  int overlapping = 0, separated = 0;
  for (const Pair& p : RandomPairs(4101, 60)) {
    SCOPED_TRACE(p.what);
    const Manifold m = Collide(p.a, p.b, spec);
    const bool overlap = TestOverlap(p.a, p.b);
    if (m.point_count == 0) {
      ASSERT_FALSE(overlap);
      continue;
    }
    ExpectUnit(m.normal);
    // Within the speculative distance every separation is <= spec, and the
    // manifold agrees with the exact predicate about overlap.
    for (int i = 0; i < m.point_count; ++i) ASSERT_LE(m.points[i].separation, spec);
    const Fixed depth = ManifoldDepth(m);
    if (overlap) {
      ASSERT_GE(depth, -Fixed::FromRaw(2));
      ++overlapping;
    } else {
      ASSERT_LE(depth, Fixed::FromRaw(2));
      ++separated;
    }
    ASSERT_TRUE(IsMinimumTranslation(p.a, p.b, m));
  }
  // The generator must exercise both sides.
  EXPECT_GT(overlapping, 500);
  EXPECT_GT(separated, 500);
}

TEST(Collide, Collide_RandomPairs_DepthMatchesDoubleReference) {
  for (const Pair& p : RandomPairs(4102, 30)) {
    SCOPED_TRACE(p.what);
    const Manifold m = Collide(p.a, p.b, Fd(8));
    if (m.point_count == 0) continue;
    const reference::Penetration ref = reference::SignedSeparation(reference::ToD(p.a), reference::ToD(p.b));
    ASSERT_NEAR(D(ManifoldDepth(m)), -ref.separation, 1e-6);
    // The normal is only determined when the exit is not nearly tied.
    if (ref.gap > 1e-3 && ref.lever > 1e-3) {
      ASSERT_NEAR(D(m.normal.x), ref.normal.x, 1e-6);
      ASSERT_NEAR(D(m.normal.y), ref.normal.y, 1e-6);
    }
  }
}

TEST(Collide, Collide_RandomPairs_FlipSymmetry) {
  for (const Pair& p : RandomPairs(4103, 40)) {
    SCOPED_TRACE(p.what);
    const Manifold ab = Collide(p.a, p.b, Fd(1));
    const Manifold ba = Collide(p.b, p.a, Fd(1));
    ASSERT_EQ(ab.point_count, ba.point_count);
    if (ab.point_count == 0) continue;
    ASSERT_LE(std::abs((ab.normal.x + ba.normal.x).raw()), 2);
    ASSERT_LE(std::abs((ab.normal.y + ba.normal.y).raw()), 2);
    ASSERT_LE(std::abs((ManifoldDepth(ab) - ManifoldDepth(ba)).raw()), 2);
    // In fact the same computation runs both ways: identical points, and ids
    // with the sides swapped (circle pairs use id 0 both ways).
    const bool circles = p.a.count == 1 && p.b.count == 1;
    for (int i = 0; i < ab.point_count; ++i) {
      EXPECT_EQ(ab.points[i].point, ba.points[i].point);
      EXPECT_EQ(ab.points[i].separation, ba.points[i].separation);
      if (!circles) {
        EXPECT_EQ(Swapped(ab.points[i].id), ba.points[i].id);
      }
    }
  }
}

// Found by tests/fuzz/fuzz_narrow: two collinear segments sharing a start
// vertex offer reference faces on one line, with one normal and one start
// vertex; argument order chose between them, so the two orders disagreed.
TEST(Collide, Collide_CollinearSegmentsFromOneVertex_FlipSymmetric) {
  const ShapeProxy a = Place(Shape::FromSegment({Vd(0, 2), Vd(0, 0)}), Xf(0, 0));
  const ShapeProxy b = Place(Shape::FromSegment({Vd(0, 0), Vd(0, 1)}), Xf(0, 0));
  const Manifold ab = Collide(a, b, Fd(1));
  const Manifold ba = Collide(b, a, Fd(1));
  ASSERT_GE(ab.point_count, 1);
  ASSERT_EQ(ab.point_count, ba.point_count);
  EXPECT_EQ(ab.normal, -ba.normal);
  for (int i = 0; i < ab.point_count; ++i) {
    EXPECT_EQ(ab.points[i].point, ba.points[i].point);
    EXPECT_EQ(ab.points[i].separation, ba.points[i].separation);
    EXPECT_EQ(Swapped(ab.points[i].id), ba.points[i].id);
  }
}

// Found by tests/fuzz/fuzz_narrow: a capsule whose segment is one ulp
// along each axis has an edge of rounded length 1 ulp (exactly sqrt(2)),
// so its face separation came out 41% too large and the overlapping disk
// was reported as separated.
TEST(Collide, Collide_MicroscopicCapsuleOverlappingDisk_NotMissed) {
  const ShapeProxy capsule = Place(Shape::FromCapsule({Vd(0, 0), {-Fixed::FromRaw(1), Fixed::FromRaw(1)}, Fd(10)}), Xf(0, 0));
  const ShapeProxy disk = Place(Disk(5), Xf(12, 6));
  ASSERT_TRUE(TestOverlap(capsule, disk));  // |(12, 6)| = 13.4 < 15
  for (const Manifold& m : {Collide(capsule, disk, kFixedZero), Collide(disk, capsule, kFixedZero)}) {
    ASSERT_EQ(m.point_count, 1);
    EXPECT_NEAR(D(m.points[0].separation), std::sqrt(180.0) - 15, 1e-6);
  }
}

TEST(Collide, Collide_RandomPairs_OverlapNeverMissed) {
  for (const Pair& p : RandomPairs(4104, 60)) {
    SCOPED_TRACE(p.what);
    const Manifold m = Collide(p.a, p.b, kFixedZero);
    if (TestOverlap(p.a, p.b)) {
      ASSERT_GE(m.point_count, 1);
      ASSERT_GE(ManifoldDepth(m), -Fixed::FromRaw(2));
    }
    for (int i = 0; i < m.point_count; ++i) ASSERT_LE(m.points[i].separation, kFixedZero);
  }
}

// ---------------------------------------------------------------------------
// Feature ids.

std::vector<uint16_t> SortedIds(const Manifold& m) {
  std::vector<uint16_t> ids;
  for (int i = 0; i < m.point_count; ++i) ids.push_back(m.points[i].id);
  std::sort(ids.begin(), ids.end());
  return ids;
}

TEST(Collide, Collide_FeatureIds_StableWhenBMovesSlightly) {
  const ShapeProxy ground = Place(Box(5, 0.5), Xf(0, 0, 0.02));
  const Shape crate = Box(0.5, 0.5);
  const Shape capsule = Capsule(-0.75, 0, 0.75, 0, 0.25);
  const Shape hexagon = [] {
    const Vec2 pts[6] = {Vd(1, 0), Vd(0.5, 0.8), Vd(-0.5, 0.8), Vd(-1, 0), Vd(-0.5, -0.8), Vd(0.5, -0.8)};
    Polygon p;
    EXPECT_EQ(MakePolygon(pts, Fd(0.1), &p), ShapeError::kOk);
    return Shape::FromPolygon(p);
  }();
  struct Case {
    const Shape* shape;
    Transform xf;
  };
  const Case cases[] = {{&crate, Xf(0.3, 0.99, 0.03)}, {&capsule, Xf(-1, 0.74, -0.01)}, {&hexagon, Xf(2, 1.39, 0.05)}};
  for (const Case& c : cases) {
    const Manifold before = Collide(ground, Place(*c.shape, c.xf), Fd(0.05));
    ASSERT_EQ(before.point_count, 2);
    for (int step = 1; step <= 10; ++step) {
      Transform moved = c.xf;
      moved.p += Vd(0.004 * step, -0.0005 * step);
      moved.q = MakeRot(Fd(RotAngle(c.xf.q).ToDouble() + 0.0005 * step));
      const Manifold after = Collide(ground, Place(*c.shape, moved), Fd(0.05));
      ASSERT_EQ(after.point_count, 2) << step;
      EXPECT_EQ(SortedIds(after), SortedIds(before)) << step;
      EXPECT_EQ(after.normal, before.normal) << step;
    }
  }
}

// A box resting on another, tilted one way and the other by a hair: which
// face is the reference (the lower box's top, or the upper box's bottom)
// follows the tilt, and the ids must not. They did once (the reference's
// edge was in the id), and a resting pyramid lost the warm start of a
// sixth of its contact points every tick, so it shook and never slept.
TEST(Collide, Collide_FeatureIds_SameWhicheverFaceIsTheReference) {
  const ShapeProxy lower = Place(Box(0.5, 0.5), Xf(0, 0));
  const double angles[] = {0.0005, -0.0005, 0.002, -0.002};
  bool lower_reference = false, upper_reference = false;
  std::vector<uint16_t> first;
  for (const double angle : angles) {
    const ShapeProxy upper = Place(Box(0.5, 0.5), Xf(0.5, 0.999, angle));
    const Manifold m = Collide(lower, upper, Fd(0.05));
    ASSERT_EQ(m.point_count, 2) << angle;
    // The lower box's top face gives the exact normal (0, 1); the upper
    // box's bottom face a tilted one.
    (m.normal == Vd(0, 1) ? lower_reference : upper_reference) = true;
    if (first.empty()) first = SortedIds(m);
    EXPECT_EQ(SortedIds(m), first) << angle;
    EXPECT_EQ(first, (std::vector<uint16_t>{FeatureId(kBoxUpperRight, kBoxLowerRight), FeatureId(kBoxUpperLeft, kBoxLowerLeft)}));
  }
  // The case under test happened: both faces served as the reference.
  EXPECT_TRUE(lower_reference);
  EXPECT_TRUE(upper_reference);
}

TEST(Collide, Collide_EmptyManifoldHasZeroNormal) {
  const Manifold m = Collide(Place(Box(1, 1), Xf(0, 0)), Place(Box(1, 1), Xf(5, 0)), kFixedZero);
  EXPECT_EQ(m.point_count, 0);
  EXPECT_EQ(m.normal, Vec2{});
  EXPECT_EQ(ManifoldDepth(m), kFixedZero);
}

}  // namespace
}  // namespace arbiter
