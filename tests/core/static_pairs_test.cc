// The step's pair rule against static shapes (step_pairs.cc) is exact
// whichever way the pairs are found: by one query of the static tree per
// mover (many statics), whose boxes are rounded out (compact_tree.h), or
// by the sweep (few statics), on exact boxes. At every gap near the rule's
// boundary, down to a raw unit, both find the same pairs.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "arbiter/core/world.h"
#include "testing/world_builders.h"

namespace arbiter {
namespace {

// A dynamic unit disk at the origin and a static one `gap` raw units
// beyond touching it, with a second static far away. `extra_movers` far
// dynamic disks (apart from each other) make the statics few next to the
// movers, so that they join the sweep instead of being queried.
World Scene(int64_t gap, int extra_movers) {
  World world(WorldDef{{Fixed::FromInt(0), Fixed::FromInt(0)}, 60, 100000});
  std::vector<BodyDef> bodies;
  // The far static first, off any round raw value: the tree's frame is
  // centred on the first box it holds, so the near one's sides fall
  // between the frame's steps.
  bodies.push_back(testing::DiskBody(3, BodyType::kStatic, {Fixed::FromRaw(1234567891), Fixed::FromInt(500)}, 1.0));
  bodies.push_back(testing::DiskBody(1, BodyType::kDynamic, {}, 1.0));
  bodies.push_back(testing::DiskBody(2, BodyType::kStatic, {Fixed::FromInt(2) + Fixed::FromRaw(gap), Fixed::FromInt(0)}, 1.0));
  for (int i = 0; i < extra_movers; ++i) {
    bodies.push_back(testing::DiskBody(10 + i, BodyType::kDynamic, {Fixed::FromInt(-300 - 100 * i), Fixed::FromInt(-300)}, 1.0));
  }
  EXPECT_TRUE(world.AddBodies(bodies).ok());
  return world;
}

// True when the tick finds a candidate pair (a budget of none refuses it).
bool Pairs(int64_t gap, int extra_movers) { return !Scene(gap, extra_movers).StepWithin(0).ok(); }

TEST(StaticPairs, TreeQueryAndSweepAgreeAtTheRulesBoundary) {
  constexpr int kSweep = 3, kQuery = 0;
  // The largest gap that still pairs, by bisection on the sweep's answer.
  int64_t pairs = 0, apart = int64_t{1} << 32;  // a whole unit apart: no pair
  ASSERT_TRUE(Pairs(pairs, kSweep));
  ASSERT_FALSE(Pairs(apart, kSweep));
  while (apart - pairs > 1) {
    const int64_t mid = pairs + (apart - pairs) / 2;
    (Pairs(mid, kSweep) ? pairs : apart) = mid;
  }
  for (int64_t d = -4; d <= 4; ++d) {
    EXPECT_EQ(Pairs(pairs + d, kQuery), Pairs(pairs + d, kSweep)) << "gap " << pairs + d;
  }
  for (int k = 3; k <= 30; ++k) {
    const int64_t gap = pairs + (int64_t{1} << k);
    EXPECT_FALSE(Pairs(gap, kQuery)) << "gap " << gap;
  }
}

}  // namespace
}  // namespace arbiter
