#include "arbiter/core/hull.h"

#include <gtest/gtest.h>

#include <vector>

#include "testing/random.h"

namespace arbiter {
namespace {

TEST(ComputeHull, SquareWithInteriorAndCollinearPoints) {
  const std::vector<Vec2> points = {MakeVec2(0, 0), MakeVec2(2, 0), MakeVec2(1, 0), MakeVec2(2, 2),
                                    MakeVec2(1, 1), MakeVec2(0, 2), MakeVec2(0, 1), MakeVec2(2, 2)};
  std::array<Vec2, 8> out;
  ASSERT_EQ(ComputeHull(points, out), 4);
  EXPECT_EQ(out[0], MakeVec2(0, 0));
  EXPECT_EQ(out[1], MakeVec2(2, 0));
  EXPECT_EQ(out[2], MakeVec2(2, 2));
  EXPECT_EQ(out[3], MakeVec2(0, 2));
}

TEST(ComputeHull, DegenerateInputs) {
  std::array<Vec2, 8> out;
  const std::vector<Vec2> same = {MakeVec2(1, 1), MakeVec2(1, 1)};
  EXPECT_EQ(ComputeHull(same, out), 1);
  const std::vector<Vec2> line = {MakeVec2(0, 0), MakeVec2(3, 3), MakeVec2(1, 1)};
  ASSERT_EQ(ComputeHull(line, out), 2);
  EXPECT_EQ(out[0], MakeVec2(0, 0));
  EXPECT_EQ(out[1], MakeVec2(3, 3));
  EXPECT_EQ(ComputeHull(std::span<const Vec2>(), out), 0);
  std::array<Vec2, 2> small;
  const std::vector<Vec2> tri = {MakeVec2(0, 0), MakeVec2(1, 0), MakeVec2(0, 1)};
  EXPECT_EQ(ComputeHull(tri, small), 0);  // does not fit: reported, not truncated
}

TEST(ComputeHull, RandomSetsAreConvexAndContainEveryInput) {
  testing::SplitMix64 rng(30);
  for (int trial = 0; trial < 2000; ++trial) {
    std::vector<Vec2> points(3 + rng.Next() % 30);
    for (Vec2& p : points) p = {Fixed::FromRaw(rng.Uniform(-(int64_t{1} << 40), int64_t{1} << 40)), Fixed::FromRaw(rng.Uniform(-(int64_t{1} << 40), int64_t{1} << 40))};
    std::array<Vec2, 64> hull;
    const int n = ComputeHull(points, hull);
    ASSERT_GE(n, 3);
    for (int i = 0; i < n; ++i) {
      const Vec2 a = hull[i], b = hull[(i + 1) % n], c = hull[(i + 2) % n];
      ASSERT_GT(CrossWide(b - a, c - b).Sign(), 0) << "not strictly convex";
      for (const Vec2& p : points) ASSERT_GE(CrossWide(b - a, p - a).Sign(), 0) << "point outside hull";
    }
  }
}

}  // namespace
}  // namespace arbiter
