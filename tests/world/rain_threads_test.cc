// rain-2k stepped with StepThreadPools of 1, 2, 3, 4 and 8 threads in
// lockstep with a world stepped on the calling thread alone: the same state
// hash after every one of the scene's 600 ticks (issue 23: the parallel
// step keeps the bits; step_executor.h says why it must).
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "arbiter/core/step_thread_pool.h"
#include "arbiter/core/world.h"
#include "arbiter/scene/scene.h"

namespace arbiter {
namespace {

TEST(RainThreads, SameStateHashEveryTick_For1To8Threads) {
  scene::Scene scene;
  ASSERT_TRUE(scene::LoadSceneFile(ARBITER_SCENES_DIR "/rain-2k.scene.json", &scene).ok());
  World reference(scene.world);
  ASSERT_TRUE(reference.AddBodies(scene.bodies).ok());
  struct Threaded {
    std::unique_ptr<StepThreadPool> pool;
    World world;
  };
  std::vector<Threaded> runs;
  for (uint32_t threads : {1u, 2u, 3u, 4u, 8u}) {
    runs.push_back({std::make_unique<StepThreadPool>(threads), World(scene.world)});
    ASSERT_TRUE(runs.back().world.AddBodies(scene.bodies).ok());
  }
  for (int tick = 1; tick <= scene.steps; ++tick) {
    reference.Step();
    const uint64_t expected = reference.StateHash();
    for (Threaded& r : runs) {
      r.world.Step(nullptr, nullptr, r.pool.get());
      ASSERT_EQ(r.world.StateHash(), expected) << r.pool->Concurrency() << " threads, tick " << tick;
    }
  }
}

}  // namespace
}  // namespace arbiter
