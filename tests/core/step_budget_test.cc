// World::StepWithin (world.h): a tick whose candidate contact pairs exceed
// the budget is refused before it changes anything, and whether it is
// refused is the same for every executor and thread count (each chunk of
// the pair search stops only once its own pairs exceed the budget); a tick
// within the budget is the very tick Step takes.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "arbiter/core/step_thread_pool.h"
#include "arbiter/core/world.h"
#include "testing/world_builders.h"

namespace arbiter {
namespace {

// `n` dynamic unit disks on one spot with no ground: every two of them are
// a candidate pair, n(n-1)/2 in all.
World Pile(int n) {
  World world(WorldDef{{Fixed::FromInt(0), Fixed::FromInt(-10)}, 60, 100000});
  std::vector<BodyDef> bodies;
  for (int i = 0; i < n; ++i) {
    bodies.push_back(testing::DiskBody(static_cast<uint64_t>(i + 1), BodyType::kDynamic,
                                       {Fixed::FromInt(0), Fixed::FromInt(i % 2)}, 1.0));
  }
  EXPECT_TRUE(world.AddBodies(bodies).ok());
  return world;
}

TEST(StepBudget, RefusedExactlyAboveThePairCount_ForEveryExecutor_AndARefusalChangesNothing) {
  const World pile = Pile(20);
  constexpr uint64_t kPairs = 20 * 19 / 2;
  World stepped = pile.Clone();
  stepped.Step();
  std::vector<std::unique_ptr<StepThreadPool>> pools;
  std::vector<StepExecutor*> executors = {nullptr};
  for (uint32_t threads : {1u, 2u, 3u, 4u, 8u}) {
    pools.push_back(std::make_unique<StepThreadPool>(threads));
    executors.push_back(pools.back().get());
  }
  for (StepExecutor* executor : executors) {
    for (uint64_t budget : {uint64_t{0}, uint64_t{1}, uint64_t{100}, kPairs - 1, kPairs, kPairs + 1, UINT64_MAX}) {
      SCOPED_TRACE(::testing::Message() << "budget " << budget << (executor == nullptr ? ", no executor" : ""));
      World world = pile.Clone();
      TickEvents events;
      const Status s = world.StepWithin(budget, &events, nullptr, executor);
      if (budget < kPairs) {
        EXPECT_EQ(s.code(), StatusCode::kResourceExhausted);
        EXPECT_NE(s.message().find("candidate contact pairs"), std::string::npos) << s.message();
        EXPECT_EQ(world.tick(), pile.tick());
        EXPECT_EQ(world.StateHash(), pile.StateHash());
        EXPECT_TRUE(events.contact_begin.empty());
      } else {
        EXPECT_TRUE(s.ok()) << s.message();
        EXPECT_EQ(world.tick(), stepped.tick());
        EXPECT_EQ(world.StateHash(), stepped.StateHash());
      }
    }
  }
}

// After a refusal the world steps on as if it had never been asked.
TEST(StepBudget, ARefusedWorldStepsOnLikeOneNeverRefused) {
  World refused = Pile(12);
  World plain = refused.Clone();
  ASSERT_FALSE(refused.StepWithin(3).ok());
  for (int t = 0; t < 5; ++t) {
    plain.Step();
    ASSERT_TRUE(refused.StepWithin(UINT64_MAX).ok());
    EXPECT_EQ(refused.StateHash(), plain.StateHash()) << "tick " << t;
  }
}

}  // namespace
}  // namespace arbiter
