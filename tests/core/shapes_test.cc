#include "arbiter/core/shapes.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "arbiter/core/fixed_math.h"
#include "arbiter/core/proxy.h"
#include "testing/numbers.h"

namespace arbiter {
namespace {

using testing::Fd;
using testing::Vd;

ShapeError Make(const std::vector<Vec2>& points, Polygon* out = nullptr) {
  Polygon scratch;
  return MakePolygon(points, kFixedZero, out ? out : &scratch);
}

TEST(MakePolygon, AcceptsConvexCounterClockwise) {
  Polygon p;
  ASSERT_EQ(Make({Vd(0, 0), Vd(2, 0), Vd(2, 1), Vd(0, 1)}, &p), ShapeError::kOk);
  EXPECT_EQ(p.count, 4);
  EXPECT_EQ(p.centroid, Vd(1, 0.5));
  EXPECT_EQ(p.normals[0], Vd(0, -1));
  EXPECT_EQ(p.normals[1], Vd(1, 0));
}

TEST(MakePolygon, RejectsEachDegenerateCaseWithItsReason) {
  EXPECT_EQ(Make({Vd(0, 0), Vd(1, 0)}), ShapeError::kTooFewVertices);
  std::vector<Vec2> nine;
  for (int i = 0; i < 9; ++i) nine.push_back(Vd(std::cos(i * 0.69), std::sin(i * 0.69)));
  EXPECT_EQ(Make(nine), ShapeError::kTooManyVertices);
  EXPECT_EQ(Make({Vd(0, 0), Vd(0, 1), Vd(1, 1), Vd(1, 0)}), ShapeError::kNotCounterClockwise);
  EXPECT_EQ(Make({Vd(0, 0), Vd(1, 0), Vd(1, 0), Vd(0, 1)}), ShapeError::kDuplicateVertices);
  EXPECT_EQ(Make({Vd(0, 0), Vd(1, 0), Vd(2, 0), Vd(1, 1)}), ShapeError::kCollinearVertices);
  EXPECT_EQ(Make({Vd(0, 0), Vd(2, 0), Vd(1, 0.5), Vd(2, 2), Vd(0, 2)}), ShapeError::kNotConvex);
  // A pentagram: every turn is left, but it winds twice.
  std::vector<Vec2> star;
  for (int i = 0; i < 5; ++i) star.push_back(Vd(std::cos(i * 4 * M_PI / 5), std::sin(i * 4 * M_PI / 5)));
  EXPECT_EQ(Make(star), ShapeError::kNotConvex);
  EXPECT_EQ(Make({Vd(0, 0), Vd(1 << 25, 0), Vd(0, 1)}), ShapeError::kOutOfRange);
  Polygon p;
  EXPECT_EQ(MakePolygon(std::vector<Vec2>{Vd(0, 0), Vd(1, 0), Vd(0, 1)}, Fd(-1), &p), ShapeError::kNegativeRadius);
  // Nearly collinear: the middle vertex 2^-20 units off the chord.
  EXPECT_EQ(Make({Vd(0, 0), Vd(1, -std::ldexp(1.0, -20)), Vd(2, 0), Vd(1, 1)}), ShapeError::kCollinearVertices);
  EXPECT_STREQ(ShapeErrorMessage(ShapeError::kNotConvex), "not convex");
}

TEST(MakeBox, RotatedBoxIsAValidPolygon) {
  Polygon box;
  ASSERT_EQ(MakeOffsetBox(Fd(2), Fd(1), Vd(5, -3), MakeRot(Fd(0.3)), &box), ShapeError::kOk);
  EXPECT_EQ(box.count, 4);
  EXPECT_LE(std::abs((box.centroid.x - Fd(5)).raw()), 1);
  EXPECT_LE(std::abs((box.centroid.y - Fd(-3)).raw()), 1);
  EXPECT_EQ(MakeBox(Fd(0), Fd(1), &box), ShapeError::kNonPositiveExtent);
}

TEST(ValidateShape, CirclesCapsulesSegments) {
  EXPECT_EQ(ValidateCircle({Vd(0, 0), Fd(1)}), ShapeError::kOk);
  EXPECT_EQ(ValidateCircle({Vd(0, 0), Fd(0)}), ShapeError::kZeroRadius);
  EXPECT_EQ(ValidateCircle({Vd(0, 0), Fd(-1)}), ShapeError::kNegativeRadius);
  EXPECT_EQ(ValidateCircle({Vd(1 << 25, 0), Fd(1)}), ShapeError::kOutOfRange);
  EXPECT_EQ(ValidateCapsule({Vd(0, 0), Vd(0, 0), Fd(1)}), ShapeError::kDegenerateSegment);
  EXPECT_EQ(ValidateSegment({Vd(0, 0), Vd(1, 0)}), ShapeError::kOk);
  EXPECT_EQ(ValidateSegment({Vd(1, 0), Vd(1, 0)}), ShapeError::kDegenerateSegment);
}

TEST(ComputeAabb, BoundsEveryShapeKind) {
  const Transform xf{Vd(10, 20), kRotIdentity};
  EXPECT_EQ(ComputeAabb(Shape::FromCircle({Vd(1, 0), Fd(0.5)}), xf), (Aabb{Vd(10.5, 19.5), Vd(11.5, 20.5)}));
  EXPECT_EQ(ComputeAabb(Shape::FromCapsule({Vd(-1, 0), Vd(1, 0), Fd(0.25)}), xf), (Aabb{Vd(8.75, 19.75), Vd(11.25, 20.25)}));
  Polygon box;
  ASSERT_EQ(MakeBox(Fd(1), Fd(2), &box), ShapeError::kOk);
  EXPECT_EQ(ComputeAabb(Shape::FromPolygon(box), xf), (Aabb{Vd(9, 18), Vd(11, 22)}));
  const Transform turned{Vd(0, 0), MakeRot(kFixedHalfPi)};
  EXPECT_EQ(ComputeAabb(Shape::FromPolygon(box), turned), (Aabb{Vd(-2, -1), Vd(2, 1)}));
}

TEST(ComputeMass, MatchesClosedForms) {
  const double pi = M_PI;
  const MassData disk = ComputeMass(Shape::FromCircle({Vd(1, 2), Fd(2)}), Fd(3));
  EXPECT_NEAR(disk.mass.ToDouble(), 3 * pi * 4, 1e-8);
  EXPECT_NEAR(disk.rotational_inertia.ToDouble(), 0.5 * 3 * pi * 4 * 4, 1e-7);
  EXPECT_EQ(disk.center, Vd(1, 2));

  Polygon box;
  ASSERT_EQ(MakeOffsetBox(Fd(2), Fd(1), Vd(3, 0), kRotIdentity, &box), ShapeError::kOk);
  const MassData m = ComputeMass(Shape::FromPolygon(box), Fd(2));
  // 4 x 2 box: area 8, mass 16, I = m (w^2 + h^2) / 12 = 16 * 20 / 12.
  EXPECT_NEAR(m.mass.ToDouble(), 16, 1e-8);
  EXPECT_NEAR(m.rotational_inertia.ToDouble(), 16.0 * 20.0 / 12.0, 1e-7);
  EXPECT_EQ(m.center, Vd(3, 0));
  EXPECT_TRUE(m.representable);

  // Capsule of length 2, radius 0.5 = box 2 x 1 plus one disk of radius 0.5.
  const MassData c = ComputeMass(Shape::FromCapsule({Vd(-1, 0), Vd(1, 0), Fd(0.5)}), Fd(1));
  EXPECT_NEAR(c.mass.ToDouble(), 2 + pi * 0.25, 1e-8);
  // Reference by numerical integration of r^2 over the capsule.
  double inertia = 0;
  const int steps = 2000;
  for (int i = 0; i < steps; ++i) {
    for (int j = 0; j < steps; ++j) {
      const double x = -1.5 + 3.0 * (i + 0.5) / steps, y = -0.5 + 1.0 * (j + 0.5) / steps;
      const double dx = std::max(0.0, std::abs(x) - 1.0);
      if (dx * dx + y * y <= 0.25) inertia += (x * x + y * y) * (3.0 / steps) * (1.0 / steps);
    }
  }
  EXPECT_NEAR(c.rotational_inertia.ToDouble(), inertia, 2e-3);

  // A huge static polygon: mass is flagged unrepresentable instead of wrapping.
  Polygon huge;
  ASSERT_EQ(MakeBox(Fd(1 << 20), Fd(1 << 20), &huge), ShapeError::kOk);
  EXPECT_FALSE(ComputeMass(Shape::FromPolygon(huge), Fd(1)).representable);
}

// Found by tests/fuzz/fuzz_narrow: a capsule's area, mass and inertia are
// sums of terms that each fit, or saturate, but whose sum did not, and
// Fixed's + wrapped it to a negative value.
TEST(ComputeMass, LargeCapsules_SaturateInsteadOfWrapping) {
  // pi r^2 saturates; adding the box part wrapped to a negative area.
  const Shape wide = Shape::FromCapsule({Vd(-1, 0), Vd(1, 0), Fd(32768)});
  EXPECT_EQ(ComputeArea(wide), Fixed::Max());

  // Disk part 1.26e9, box part 1.2e9: each fits, the sum (2.46e9) does not.
  // The mass wrapped negative while `representable` stayed true.
  const MassData m = ComputeMass(Shape::FromCapsule({Vd(-15000, 0), Vd(15000, 0), Fd(20000)}), Fd(1));
  EXPECT_FALSE(m.representable);
  EXPECT_EQ(m.mass, Fixed::Max());

  // 4 r^2 (3.6e9) overflowed through a wrapping shift: with a tiny density
  // every later product fit, so a wrong inertia (off by 3e-5) was reported
  // as representable. The term does not fit, and now says so.
  const MassData thin = ComputeMass(Shape::FromCapsule({Vd(-1, 0), Vd(1, 0), Fd(30000)}), Fixed::FromRaw(1));
  EXPECT_FALSE(thin.representable);
  // Just below that size everything fits and matches the closed form.
  const double pi = M_PI, r = 23000, length = 2, density = 1.0 / 4294967296.0;
  const MassData fits = ComputeMass(Shape::FromCapsule({Vd(-1, 0), Vd(1, 0), Fd(r)}), Fixed::FromRaw(1));
  ASSERT_TRUE(fits.representable);
  const double disk_mass = density * pi * r * r, box_mass = density * 2 * r * length;
  const double lc = 4 * r / (3 * pi), h = length / 2;
  const double inertia = disk_mass * (r * r / 2 + h * h + 2 * h * lc) + box_mass * (4 * r * r + length * length) / 12;
  EXPECT_NEAR(fits.rotational_inertia.ToDouble(), inertia, 1e-6 * inertia);
}

}  // namespace
}  // namespace arbiter
