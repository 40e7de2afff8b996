// Sleeping (WorldDef::allow_sleep, core/src/step_sleep.h): resting islands
// fall asleep; an awake body reaching one, any change through the API and a
// removed support wake it; the same hash after every tick for every thread
// count and schedule; the sleep state in the snapshot; a world without
// sleeping never sleeps.
#include <gtest/gtest.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <algorithm>
#include <string>
#include <vector>

#include "arbiter/core/step_thread_pool.h"
#include "arbiter/core/world.h"
#include "testing/backwards_executor.h"
#include "testing/numbers.h"
#include "testing/world_builders.h"

namespace arbiter {
namespace {

using testing::BoxBody;
using testing::DiskBody;
using testing::Vd;

constexpr int kColumns = 40;
constexpr int kRows = 6;
constexpr int kSettleTicks = 90;  // the columns start at rest: asleep after 0.5 s and a little

// Body id of the box at (column, row), row 0 on the floor.
uint64_t BoxId(int column, int row) { return 2 + static_cast<uint64_t>(column * kRows + row); }
constexpr uint64_t kFloor = 1;
constexpr uint64_t kDropped = 100000;

// A floor and kColumns columns of kRows unit boxes standing on it, each
// column its own island (columns 0.2 apart, beyond any reach at rest).
std::vector<BodyDef> Columns() {
  std::vector<BodyDef> bodies;
  bodies.push_back(BoxBody(kFloor, BodyType::kStatic, Vd(0, -1), 100, 1));
  for (int c = 0; c < kColumns; ++c) {
    for (int r = 0; r < kRows; ++r) {
      bodies.push_back(BoxBody(BoxId(c, r), BodyType::kDynamic, Vd(-48 + 1.2 * c, 0.5 + r), 0.5, 0.5));
    }
  }
  return bodies;
}

World MakeWorld(bool allow_sleep) {
  WorldDef def{Vd(0, -10), 60, 100000};
  def.allow_sleep = allow_sleep;
  World world(def);
  EXPECT_TRUE(world.AddBodies(Columns()).ok());
  return world;
}

bool Awake(const World& w, uint64_t id) { return w.FindBody(id)->awake; }

int AwakeInColumn(const World& w, int c) {
  int n = 0;
  for (int r = 0; r < kRows; ++r) n += Awake(w, BoxId(c, r)) ? 1 : 0;
  return n;
}

int AwakeBoxes(const World& w) {
  int n = 0;
  for (int c = 0; c < kColumns; ++c) n += AwakeInColumn(w, c);
  return n;
}

void StepTicks(World* w, int ticks, StepExecutor* executor = nullptr) {
  for (int t = 0; t < ticks; ++t) w->Step(nullptr, nullptr, executor);
}

World SettledWorld() {
  World w = MakeWorld(true);
  StepTicks(&w, kSettleTicks);
  return w;
}

TEST(StepSleep, RestingColumnsFallAsleep_WithZeroVelocity_AndStayPut) {
  World w = MakeWorld(true);
  StepTicks(&w, 10);
  EXPECT_EQ(AwakeBoxes(w), kColumns * kRows) << "nobody sleeps before kTimeToSleep";
  StepTicks(&w, kSettleTicks - 10);
  EXPECT_EQ(AwakeBoxes(w), 0);
  const BodyView top = *w.FindBody(BoxId(3, kRows - 1));
  EXPECT_EQ(top.linear_velocity, Vec2{});
  EXPECT_EQ(top.angular_velocity, kFixedZero);
  const uint64_t hash = w.StateHash();
  StepTicks(&w, 30);
  EXPECT_EQ(w.FindBody(BoxId(3, kRows - 1))->transform, top.transform);
  EXPECT_NE(w.StateHash(), hash) << "the tick still advances";
  // Queries see asleep bodies where they are.
  const std::vector<ShapeRef> hit = w.OverlapPoint(top.transform.p);
  ASSERT_EQ(hit.size(), 1u);
  EXPECT_EQ(hit[0].body_id, top.id);
}

TEST(StepSleep, WithoutSleepingNobodySleeps_AndTheSnapshotIsVersion1) {
  World w = MakeWorld(false);
  StepTicks(&w, kSettleTicks);
  EXPECT_EQ(AwakeBoxes(w), kColumns * kRows);
  const std::vector<uint8_t> bytes = w.Snapshot();
  EXPECT_EQ(bytes[4], 1);
  World asleep = SettledWorld();
  EXPECT_EQ(asleep.Snapshot()[4], 2);
}

TEST(StepSleep, ADroppedBodyWakesOnlyTheColumnItFallsOn) {
  World w = SettledWorld();
  BodyDef ball = DiskBody(kDropped, BodyType::kDynamic, Vd(-48 + 1.2 * 5, kRows + 3), 0.4);
  ball.linear_velocity = Vd(0, -5);
  ASSERT_TRUE(w.AddBody(ball).ok());
  int most = 0;
  for (int t = 0; t < 40; ++t) {
    w.Step();
    most = std::max(most, AwakeInColumn(w, 5));
    for (int c : {3, 7, 20}) ASSERT_EQ(AwakeInColumn(w, c), 0) << "column " << c << " tick " << t;
  }
  EXPECT_EQ(most, kRows) << "the whole island wakes";
  StepTicks(&w, 120);
  EXPECT_EQ(AwakeBoxes(w), 0) << "and sleeps again once it rests";
  EXPECT_FALSE(Awake(w, kDropped));
}

TEST(StepSleep, ApiChangesWakeTheIsland) {
  World w = SettledWorld();
  ASSERT_TRUE(w.SetBodyVelocity(BoxId(2, 0), Vd(0, 0), kFixedZero).ok());
  EXPECT_EQ(AwakeInColumn(w, 2), kRows) << "a velocity write wakes the body's island at once";
  EXPECT_EQ(AwakeInColumn(w, 3), 0);
  Transform xf = w.FindBody(BoxId(4, kRows - 1))->transform;
  ASSERT_TRUE(w.SetBodyTransform(BoxId(4, kRows - 1), xf).ok());
  EXPECT_EQ(AwakeInColumn(w, 4), kRows);
  Filter filter;
  filter.category_bits = 2;
  ASSERT_TRUE(w.SetShapeFilter(BoxId(6, 3), 0, filter).ok());
  EXPECT_EQ(AwakeInColumn(w, 6), kRows);
  EXPECT_EQ(AwakeInColumn(w, 8), 0);
  // The woken timers restart: a column does not sleep again at once.
  w.Step();
  EXPECT_EQ(AwakeInColumn(w, 2), kRows);
  // Moving the floor wakes everything standing on it.
  World all = SettledWorld();
  ASSERT_TRUE(all.SetBodyTransform(kFloor, Transform{Vd(0, -1.001), kRotIdentity}).ok());
  EXPECT_EQ(AwakeBoxes(all), kColumns * kRows);
}

TEST(StepSleep, AMovingKinematicBodyKeepsWhatItPushesAwake) {
  World w = SettledWorld();
  BodyDef paddle = BoxBody(kDropped, BodyType::kKinematic, Vd(-48 + 1.2 * 20 - 0.6, 0.5), 0.05, 0.2);
  paddle.linear_velocity = Vd(0.5, 0);
  ASSERT_TRUE(w.AddBody(paddle).ok());
  const Vec2 was = w.FindBody(BoxId(20, 0))->transform.p;
  for (int t = 0; t < 90; ++t) {
    w.Step();
    ASSERT_TRUE(Awake(w, kDropped));
    ASSERT_EQ(AwakeInColumn(w, 19), 0) << "tick " << t;
  }
  EXPECT_EQ(AwakeInColumn(w, 20), kRows);
  EXPECT_GT(w.FindBody(BoxId(20, 0))->transform.p.x, was.x) << "pushed";
  ASSERT_TRUE(w.SetBodyVelocity(kDropped, Vec2{}, kFixedZero).ok());
  StepTicks(&w, 150);
  EXPECT_FALSE(Awake(w, kDropped)) << "a kinematic body at rest sleeps";
  EXPECT_EQ(AwakeInColumn(w, 20), 0);
}

TEST(StepSleep, RemovingASupportWakesWhatRestedOnIt) {
  World w = SettledWorld();
  const Vec2 was = w.FindBody(BoxId(9, 3))->transform.p;
  const uint64_t gone[1] = {BoxId(9, 0)};
  ASSERT_TRUE(w.RemoveBodies(gone).ok());
  for (int r = 1; r < kRows; ++r) EXPECT_TRUE(Awake(w, BoxId(9, r))) << "row " << r;
  StepTicks(&w, 20);
  EXPECT_LT(w.FindBody(BoxId(9, 3))->transform.p.y, was.y) << "the column falls";
  EXPECT_EQ(AwakeInColumn(w, 10), 0);
}

TEST(StepSleep, StatesAgreeAfterASnapshotMidSleep) {
  World w = SettledWorld();
  BodyDef ball = DiskBody(kDropped, BodyType::kDynamic, Vd(-48 + 1.2 * 12, kRows + 1), 0.4);
  ASSERT_TRUE(w.AddBody(ball).ok());
  StepTicks(&w, 30);
  ASSERT_GT(AwakeInColumn(w, 12), 0);
  World restored;
  ASSERT_TRUE(World::Restore(w.Snapshot(), &restored).ok());
  EXPECT_EQ(restored.StateHash(), w.StateHash());
  EXPECT_TRUE(restored.def().allow_sleep);
  for (int t = 0; t < 60; ++t) {
    w.Step();
    restored.Step();
    ASSERT_EQ(restored.StateHash(), w.StateHash()) << "tick " << t;
  }
}

TEST(StepSleep, RestoreKeepsWhoSleeps) {
  World w = SettledWorld();
  ASSERT_TRUE(w.SetBodyVelocity(BoxId(1, 0), Vd(0, 0), kFixedZero).ok());
  World restored;
  ASSERT_TRUE(World::Restore(w.Snapshot(), &restored).ok());
  EXPECT_FALSE(restored.FindBody(BoxId(0, 0))->awake);
  EXPECT_TRUE(restored.FindBody(BoxId(1, 3))->awake);
  EXPECT_EQ(restored.StateHash(), w.StateHash());
  EXPECT_EQ(restored.Snapshot(), w.Snapshot());
}

// A settled world's image with body `index` (in id order; 0 is the floor)
// given sleep section entry (awake, raw sleep time), signed again.
std::vector<uint8_t> WithSleepEntry(size_t index, uint8_t awake, int64_t time) {
  std::vector<uint8_t> image = SettledWorld().Snapshot();
  image.resize(image.size() - 8);
  const size_t bodies = 1 + kColumns * kRows;
  uint8_t* entry = image.data() + image.size() - 9 * bodies + 9 * index;
  entry[0] = awake;
  for (int i = 0; i < 8; ++i) entry[1 + i] = static_cast<uint8_t>(static_cast<uint64_t>(time) >> (8 * i));
  const uint64_t sum = XXH64(image.data(), image.size(), 0);
  for (int i = 0; i < 8; ++i) image.push_back(static_cast<uint8_t>(sum >> (8 * i)));
  return image;
}

TEST(StepSleep, RestoreChecksTheSleepSection) {
  World out;
  const int64_t cap = kTimeToSleep.raw();
  ASSERT_TRUE(World::Restore(WithSleepEntry(1, 0, cap), &out).ok()) << "the image as it was";
  EXPECT_EQ(World::Restore(WithSleepEntry(0, 0, 0), &out).message(), "snapshot: bodies[0]: a static body does not sleep");
  EXPECT_EQ(World::Restore(WithSleepEntry(1, 0, cap + 1), &out).message(),
            "snapshot: bodies[1].sleep_time: beyond 0..kTimeToSleep");
  EXPECT_EQ(World::Restore(WithSleepEntry(1, 2, cap), &out).message(), "snapshot: bodies[1].awake: not 0 or 1");
  // Box (0, 0) awake under the asleep rest of its column.
  EXPECT_NE(World::Restore(WithSleepEntry(1, 1, cap), &out).message().find("joins an awake body and an asleep one"),
            std::string::npos);
}

TEST(StepSleep, ARefusedTickLeavesTheWorldAsItWas) {
  World w = SettledWorld();
  BodyDef ball = DiskBody(kDropped, BodyType::kDynamic, Vd(-48 + 1.2 * 14, kRows + 0.41), 0.4);
  ASSERT_TRUE(w.AddBody(ball).ok());
  const uint64_t hash = w.StateHash();
  EXPECT_FALSE(w.StepWithin(1).ok());
  EXPECT_EQ(w.StateHash(), hash);
  EXPECT_EQ(AwakeInColumn(w, 14), 0);
}

// The same hash after every tick for every executor: the columns settle
// and sleep, bodies dropped on some of them wake those, a kinematic paddle
// sweeps through others.
std::vector<uint64_t> Trace(StepExecutor* executor) {
  World w = MakeWorld(true);
  std::vector<uint64_t> hashes;
  auto run = [&](int ticks) {
    for (int t = 0; t < ticks; ++t) {
      w.Step(nullptr, nullptr, executor);
      hashes.push_back(w.StateHash());
    }
  };
  run(kSettleTicks);
  std::vector<BodyDef> drops;
  for (int c = 0; c < kColumns; c += 4) {
    BodyDef b = c % 8 == 0 ? DiskBody(kDropped + c, BodyType::kDynamic, Vd(-48 + 1.2 * c + 0.3, kRows + 2), 0.4)
                           : BoxBody(kDropped + c, BodyType::kDynamic, Vd(-48 + 1.2 * c - 0.2, kRows + 2), 0.3, 0.3);
    b.linear_velocity = Vd(0, -3);
    drops.push_back(b);
  }
  BodyDef paddle = BoxBody(kDropped + 1000, BodyType::kKinematic, Vd(20, 2.5), 0.2, 0.2);
  paddle.linear_velocity = Vd(2, 0);
  drops.push_back(paddle);
  EXPECT_TRUE(w.AddBodies(drops).ok());
  run(80);
  return hashes;
}

TEST(StepSleep, SameHashEveryTick_For1To8Threads_AndABackwardsSchedule) {
  const std::vector<uint64_t> reference = Trace(nullptr);
  testing::BackwardsExecutor backwards;
  for (uint32_t threads : {1u, 2u, 3u, 8u}) {
    StepThreadPool pool(threads);
    EXPECT_EQ(Trace(&pool), reference) << threads << " threads";
  }
  EXPECT_EQ(Trace(&backwards), reference) << "backwards";
}

}  // namespace
}  // namespace arbiter
