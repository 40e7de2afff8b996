// The parallel step (step_executor.h): the same state hash and the same
// events after every tick for every thread count and every schedule, on a
// seeded scene with every shape kind, bullets and a sensor, with and without
// kinematic bodies (which keep the continuous pass in id order); the step's
// Prepare hint, once per tick before its batches; and the pool's contract:
// every task exactly once, worker indices in range and never shared by two
// running tasks, with or without a Prepare before.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "arbiter/core/step_thread_pool.h"
#include "arbiter/core/fixed_math.h"
#include "arbiter/core/world.h"
#include "testing/backwards_executor.h"
#include "testing/numbers.h"
#include "testing/random.h"
#include "testing/world_builders.h"

namespace arbiter {
namespace {

using testing::BoxBody;
using testing::DiskBody;

using testing::Fd;
using testing::Vd;

#ifdef ARBITER_TEST_SANITIZED
constexpr int kBodies = 300;
constexpr int kTicks = 40;
#else
constexpr int kBodies = 900;
constexpr int kTicks = 150;
#endif

// A walled floor, a field of pegs, and `kBodies` seeded dynamic bodies of
// every shape kind raining onto it (every 50th a fast bullet), a sensor
// across the middle, and with `kinematic` two paddles sweeping through.
std::vector<BodyDef> SeededRain(uint64_t seed, bool kinematic) {
  testing::SplitMix64 rng(seed);
  std::vector<BodyDef> bodies;
  uint64_t id = 1;
  bodies.push_back(BoxBody(id++, BodyType::kStatic, Vd(0, -1), 60, 1));
  bodies.push_back(BoxBody(id++, BodyType::kStatic, Vd(-61, 30), 1, 30));
  bodies.push_back(BoxBody(id++, BodyType::kStatic, Vd(61, 30), 1, 30));
  for (int i = 0; i < 60; ++i) {
    bodies.push_back(DiskBody(id++, BodyType::kStatic, Vd(-55 + 10 * (i % 12) + 5 * ((i / 12) % 2), 8 + 6 * (i / 12)), 0.6));
  }
  BodyDef sensor = BoxBody(id++, BodyType::kStatic, Vd(0, 20), 50, 0.5);
  sensor.shapes[0].is_sensor = true;
  bodies.push_back(sensor);
  if (kinematic) {
    for (int side : {-1, 1}) {
      BodyDef paddle = BoxBody(id++, BodyType::kKinematic, Vd(30 * side, 4), 4, 0.3);
      paddle.linear_velocity = Vd(-6 * side, 0);
      paddle.angular_velocity = Fd(1.5 * side);
      bodies.push_back(paddle);
    }
  }
  for (int i = 0; i < kBodies; ++i) {
    const Vec2 at = Vd(-54 + 2.4 * (i % 45) + 0.3 * rng.Unit(), 45 + 2.4 * (i / 45));
    BodyDef b = i % 3 == 1 ? DiskBody(id++, BodyType::kDynamic, at, 0.5) : BoxBody(id++, BodyType::kDynamic, at, 0.5, 0.4);
    if (i % 3 == 2) b.shapes[0].shape = Shape::FromCapsule({Vd(-0.4, 0), Vd(0.4, 0), Fd(0.3)});
    b.transform.q = MakeRot(Fd(rng.Unit() * 6.28));
    b.linear_velocity = Vd(rng.Unit() * 4 - 2, rng.Unit() * 4 - 2);
    if (i % 50 == 7) {
      b.is_bullet = true;
      b.linear_velocity = Vd(0, -400);
    }
    bodies.push_back(b);
  }
  return bodies;
}

using testing::BackwardsExecutor;

struct Trace {
  std::vector<uint64_t> hashes;
  std::vector<TickEvents> events;
};

Trace StepScene(const std::vector<BodyDef>& bodies, StepExecutor* executor, int ticks = kTicks) {
  World world(WorldDef{Vd(0, -10), 60, 100000});
  EXPECT_TRUE(world.AddBodies(bodies).ok());
  Trace trace;
  for (int t = 0; t < ticks; ++t) {
    TickEvents events;
    world.Step(&events, nullptr, executor);
    trace.hashes.push_back(world.StateHash());
    trace.events.push_back(std::move(events));
  }
  return trace;
}

bool SameEvents(const TickEvents& a, const TickEvents& b) {
  return a.contact_begin == b.contact_begin && a.contact_end == b.contact_end && a.sensor_enter == b.sensor_enter &&
         a.sensor_exit == b.sensor_exit;
}

void ExpectSameTrace(const Trace& expected, const Trace& actual, const char* what) {
  ASSERT_EQ(expected.hashes.size(), actual.hashes.size()) << what;
  for (size_t t = 0; t < expected.hashes.size(); ++t) {
    ASSERT_EQ(expected.hashes[t], actual.hashes[t]) << what << ": state hash after tick " << t + 1;
    ASSERT_TRUE(SameEvents(expected.events[t], actual.events[t])) << what << ": events of tick " << t + 1;
  }
}

void ExpectEveryExecutorAgrees(bool kinematic) {
  const std::vector<BodyDef> bodies = SeededRain(23, kinematic);
  const Trace reference = StepScene(bodies, nullptr);
  // The scene does what it is for: contacts, bullets, sensor crossings.
  size_t begins = 0, sensor_events = 0;
  for (const TickEvents& e : reference.events) {
    begins += e.contact_begin.size();
    sensor_events += e.sensor_enter.size();
  }
  EXPECT_GT(begins, static_cast<size_t>(kBodies));
  EXPECT_GT(sensor_events, 0u);
  for (uint32_t threads : {1u, 2u, 3u, 4u, 8u}) {
    StepThreadPool pool(threads);
    ExpectSameTrace(reference, StepScene(bodies, &pool), ("threads " + std::to_string(threads)).c_str());
  }
  BackwardsExecutor backwards;
  ExpectSameTrace(reference, StepScene(bodies, &backwards), "backwards executor");
}

TEST(StepParallel, SameHashAndEventsEveryTick_For1To8Threads_AndABackwardsSchedule) { ExpectEveryExecutorAgrees(false); }

TEST(StepParallel, SameHashAndEventsEveryTick_WithKinematicBodies) { ExpectEveryExecutorAgrees(true); }

// The pair stage is cut into ranges only where that pays: the static-tree
// queries by ranges of movers when static shapes outnumber the movers, the
// sweep by ranges of 4,096 entries (step_pairs.cc). A pegboard with more
// pegs than bodies, and a field of 9,000 bodies, take those paths.
std::vector<BodyDef> LargeScene(bool static_heavy) {
  std::vector<BodyDef> bodies;
  uint64_t id = 1;
  bodies.push_back(BoxBody(id++, BodyType::kStatic, Vd(0, -1), 200, 1));
  if (static_heavy) {
    for (int i = 0; i < 1200; ++i) {
      bodies.push_back(DiskBody(id++, BodyType::kStatic, Vd(-150 + (i % 100) * 3 + (i / 100) % 2, 2 + (i / 100) * 2.5), 0.4));
    }
  }
  const int count = static_heavy ? 700 : 9000;
  const int per_row = static_heavy ? 100 : 300;
  for (int i = 0; i < count; ++i) {
    const Vec2 p = Vd(-150 + (i % per_row) * 1.0 + 0.013 * (i % 7), (static_heavy ? 30.5 : 1) + (i / per_row) * 1.0);
    bodies.push_back(i % 2 == 0 ? DiskBody(id++, BodyType::kDynamic, p, 0.45)
                                : BoxBody(id++, BodyType::kDynamic, p, 0.4, 0.35));
  }
  return bodies;
}

TEST(StepParallel, LargeWorlds_PairStageInRanges_SameHashAndEventsEveryTick) {
  // The same count under the sanitizers: the bodies fall for 10-20 ticks
  // before the first contacts begin, and a shorter run would test none.
  constexpr int kLargeTicks = 20;
  for (bool static_heavy : {true, false}) {
    const std::vector<BodyDef> bodies = LargeScene(static_heavy);
    const Trace reference = StepScene(bodies, nullptr, kLargeTicks);
    size_t begins = 0;
    for (const TickEvents& e : reference.events) begins += e.contact_begin.size();
    EXPECT_GT(begins, static_heavy ? 20u : 1000u);
    for (uint32_t threads : {2u, 3u}) {
      StepThreadPool pool(threads);
      ExpectSameTrace(reference, StepScene(bodies, &pool, kLargeTicks),
                      (std::string(static_heavy ? "pegboard" : "field") + ", threads " + std::to_string(threads)).c_str());
    }
    BackwardsExecutor backwards;
    ExpectSameTrace(reference, StepScene(bodies, &backwards, kLargeTicks), static_heavy ? "pegboard, backwards" : "field, backwards");
  }
}

// The solve runs by islands when a tick has enough constraints (at least
// 512 with two chunks, step_solver.cc): 48 columns of 12 boxes, resting
// from the first tick (over 550 constraints), the middle columns on a
// kinematic platform that rises and turns, so that it joins their islands
// into one (and its own velocity is read by all of them), and a few disks
// dropped onto some columns, so the islands change as they land.
TEST(StepParallel, IslandSolve_ColumnsAndAKinematicPlatform_SameHashAndEventsEveryTick) {
  std::vector<BodyDef> bodies;
  uint64_t id = 1;
  bodies.push_back(BoxBody(id++, BodyType::kStatic, Vd(0, -1), 100, 1));
  BodyDef platform = BoxBody(id++, BodyType::kKinematic, Vd(0, 0.25), 8, 0.25);
  platform.linear_velocity = Vd(0, 0.2);
  platform.angular_velocity = Fd(0.05);
  bodies.push_back(platform);
  for (int c = 0; c < 48; ++c) {
    const double x = -70 + 3.0 * c;
    const double base = x > -8 && x < 8 ? 0.5 : 0;
    for (int r = 0; r < 12; ++r) bodies.push_back(BoxBody(id++, BodyType::kDynamic, Vd(x, base + 0.5 + 1.0 * r), 0.5, 0.5));
  }
  for (int i = 0; i < 12; ++i) bodies.push_back(DiskBody(id++, BodyType::kDynamic, Vd(-66 + 12.0 * i, 16 + i), 0.4));
  const int ticks = 30;
  const Trace reference = StepScene(bodies, nullptr, ticks);
  for (uint32_t threads : {2u, 3u, 8u}) {
    StepThreadPool pool(threads);
    ExpectSameTrace(reference, StepScene(bodies, &pool, ticks), ("threads " + std::to_string(threads)).c_str());
  }
  BackwardsExecutor backwards;
  ExpectSameTrace(reference, StepScene(bodies, &backwards, ticks), "backwards executor");
}

// Two threads stepping two worlds with one pool: one of them gets the
// workers, the other runs its batch inline; both keep their bits.
TEST(StepParallel, OnePoolSharedByTwoSteppingThreads) {
  const std::vector<BodyDef> bodies = SeededRain(5, false);
  const Trace reference = StepScene(bodies, nullptr);
  StepThreadPool pool(3);
  Trace a, b;
  std::thread other([&] { b = StepScene(bodies, &pool); });
  a = StepScene(bodies, &pool);
  other.join();
  ExpectSameTrace(reference, a, "first thread");
  ExpectSameTrace(reference, b, "second thread");
}

// The step's hint to its executor (StepExecutor::Prepare): once per tick,
// before the tick's first batch, in a world with movers enough to cut a
// stage into tasks, and never in a small one; the bits are the serial ones.
TEST(StepParallel, StepPreparesTheExecutorOncePerTick_BeforeItsBatches) {
  class Recording final : public StepExecutor {
   public:
    uint32_t Concurrency() const override { return inner.Concurrency(); }
    void Run(uint32_t count, Task task, void* context) override {
      calls.push_back('R');
      inner.Run(count, task, context);
    }
    void Prepare() override { calls.push_back('P'); }
    testing::BackwardsExecutor inner;
    std::string calls;
  };
  const std::vector<BodyDef> bodies = SeededRain(7, false);
  constexpr int kSteps = 6;
  Recording recording;
  ExpectSameTrace(StepScene(bodies, nullptr, kSteps), StepScene(bodies, &recording, kSteps), "recording executor");
  ASSERT_FALSE(recording.calls.empty());
  EXPECT_EQ(recording.calls.front(), 'P') << recording.calls;
  EXPECT_EQ(std::count(recording.calls.begin(), recording.calls.end(), 'P'), kSteps) << recording.calls;
  // Every tick batches its finalize stage at least: each P has its Rs.
  EXPECT_EQ(recording.calls.find("PP"), std::string::npos) << recording.calls;
  EXPECT_EQ(recording.calls.back(), 'R') << recording.calls;

  // Too few movers for any stage to be cut into tasks: no wake-up.
  const std::vector<BodyDef> few(bodies.begin(), bodies.begin() + 100);
  Recording small;
  ExpectSameTrace(StepScene(few, nullptr, kSteps), StepScene(few, &small, kSteps), "recording executor, small world");
  EXPECT_EQ(std::count(small.calls.begin(), small.calls.end(), 'P'), 0) << small.calls;
}

// Prepare sends blocked workers back to polling and nothing else: batches
// after it (right away, or once the workers have blocked again) still run
// every task once, and a pool prepared and never run shuts down.
TEST(StepThreadPool, PrepareThenRun_EveryTaskOnce_AndAPreparedPoolShutsDown) {
  for (uint32_t threads : {1u, 2u, 4u}) {
    StepThreadPool pool(threads);
    for (int round = 0; round < 6; ++round) {
      // Past the polling (about a millisecond of yields): the workers block.
      if (round % 2 == 1) std::this_thread::sleep_for(std::chrono::milliseconds(5));
      for (int p = 0; p < round % 3; ++p) pool.Prepare();
      std::vector<std::atomic<int>> runs(97);
      pool.Run(
          static_cast<uint32_t>(runs.size()),
          [](void* ctx, uint32_t index, uint32_t) { (*static_cast<std::vector<std::atomic<int>>*>(ctx))[index].fetch_add(1); },
          &runs);
      for (size_t i = 0; i < runs.size(); ++i) ASSERT_EQ(runs[i].load(), 1) << threads << " threads, round " << round;
    }
    StepThreadPool idle(threads);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    idle.Prepare();
    idle.Prepare();
  }
}

TEST(StepThreadPool, RunsEveryTaskOnce_WorkersInRangeAndNeverShared) {
  for (uint32_t threads : {1u, 2u, 4u, 8u}) {
    StepThreadPool pool(threads);
    ASSERT_EQ(pool.Concurrency(), threads);
    struct Context {
      std::vector<std::atomic<int>> runs;
      std::array<std::atomic<int>, kMaxStepWorkers> busy{};
      std::atomic<int> bad_worker{0};
      uint32_t concurrency = 0;
    };
    for (uint32_t count : {0u, 1u, 2u, 7u, 64u, 1000u}) {
      for (int repeat = 0; repeat < 20; ++repeat) {
        Context ctx{std::vector<std::atomic<int>>(count), {}, {}, threads};
        pool.Run(
            count,
            [](void* p, uint32_t index, uint32_t worker) {
              auto& c = *static_cast<Context*>(p);
              c.runs[index].fetch_add(1);
              if (worker >= c.concurrency) {
                c.bad_worker.fetch_add(1);
                return;
              }
              if (c.busy[worker].fetch_add(1) != 0) c.bad_worker.fetch_add(1);
              c.busy[worker].fetch_sub(1);
            },
            &ctx);
        for (uint32_t i = 0; i < count; ++i) ASSERT_EQ(ctx.runs[i].load(), 1) << "task " << i << " of " << count;
        ASSERT_EQ(ctx.bad_worker.load(), 0) << threads << " threads";
      }
    }
  }
}

TEST(StepThreadPool, ThreadCountIsClamped) {
  EXPECT_EQ(StepThreadPool(0).Concurrency(), 1u);
  EXPECT_EQ(StepThreadPool(1000).Concurrency(), kMaxStepWorkers);
}

}  // namespace
}  // namespace arbiter
