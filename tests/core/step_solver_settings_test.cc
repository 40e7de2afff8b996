// Per-world solver settings (WorldDef::sub_steps, contact_hertz): stiffer
// settings hold a stack up where the defaults let it sag; the settings are
// validated, kept by snapshot and restore (version 3) and covered by the
// state hash; a world with the defaults writes the images it always did;
// the same hash after every tick for every thread count.
#include <gtest/gtest.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <cstdio>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "arbiter/core/limits.h"
#include "arbiter/core/step_thread_pool.h"
#include "arbiter/core/world.h"
#include "testing/backwards_executor.h"
#include "testing/numbers.h"
#include "testing/world_builders.h"

namespace arbiter {
namespace {

using testing::BoxBody;
using testing::Vd;

constexpr uint64_t kGround = 1;
constexpr int kBase = 30;  // a pyramid of unit boxes on a base of 30: 465 boxes, 30 rows

// Box2D's large_pyramid layout (scenes/pyramid.py) on a smaller base.
std::vector<BodyDef> Pyramid() {
  std::vector<BodyDef> bodies;
  bodies.push_back(BoxBody(kGround, BodyType::kStatic, Vd(0, -1), 50, 1));
  uint64_t id = 2;
  for (int i = 0; i < kBase; ++i) {
    for (int j = i; j < kBase; ++j) {
      const double x = (i + 1) * 0.5 + (j - i) * 1.0 - 0.5 * kBase;
      bodies.push_back(BoxBody(id++, BodyType::kDynamic, Vd(x, i + 0.5), 0.5, 0.5));
    }
  }
  return bodies;
}
constexpr uint64_t kTop = 1 + kBase * (kBase + 1) / 2;

WorldDef Def(int32_t sub_steps, int32_t contact_hertz, bool allow_sleep = false) {
  WorldDef def{Vd(0, -10), 60, 100000};
  def.sub_steps = sub_steps;
  def.contact_hertz = contact_hertz;
  def.allow_sleep = allow_sleep;
  return def;
}

World MakeWorld(const WorldDef& def) {
  World world(def);
  EXPECT_TRUE(world.AddBodies(Pyramid()).ok());
  return world;
}

void StepTicks(World* w, int ticks, StepExecutor* executor = nullptr) {
  for (int t = 0; t < ticks; ++t) w->Step(nullptr, nullptr, executor);
}

// How far the top box sank in `ticks` ticks.
double TopDrop(const WorldDef& def, int ticks) {
  World w = MakeWorld(def);
  const double start = w.FindBody(kTop)->transform.p.y.ToDouble();
  StepTicks(&w, ticks);
  return start - w.FindBody(kTop)->transform.p.y.ToDouble();
}

TEST(SolverSettings, DefaultsAreBox2dV3s) {
  const WorldDef def;
  EXPECT_EQ(def.sub_steps, 4);
  EXPECT_EQ(def.contact_hertz, 30);
}

TEST(SolverSettings, StifferSettingsHoldAStackUp_TheDefaultsLetItSag) {
  const double soft = TopDrop(Def(4, 30), 240);
  const double stiff = TopDrop(Def(8, 120), 240);
  std::printf("[ solver ] %d-row pyramid, top drop after 240 ticks: 4 sub-steps/30 Hz %.4f, 8/120 Hz %.4f\n", kBase,
              soft, stiff);
  // Issue 23's goal for 100 rows (0.1 units), scaled to these 30: the
  // give of the soft contacts adds up row by row.
  const double goal = 0.1 * kBase / 100;
  EXPECT_GT(soft, goal) << "the defaults sag";
  EXPECT_LT(stiff, goal) << "the stiffer settings stand";
  EXPECT_LT(stiff * 5, soft);
}

TEST(SolverSettings, TheHertzIsClampedToAQuarterOfTheSubStepRate) {
  // At 60 Hz and 4 sub-steps the clamp is 60 Hz: asking for more changes nothing.
  World at_clamp = MakeWorld(Def(4, 60));
  World beyond = MakeWorld(Def(4, 1000));
  StepTicks(&at_clamp, 30);
  StepTicks(&beyond, 30);
  EXPECT_EQ(at_clamp.FindBody(kTop)->transform, beyond.FindBody(kTop)->transform);
  // (Their hashes differ: the setting itself is state.)
  EXPECT_NE(at_clamp.StateHash(), beyond.StateHash());
}

TEST(SolverSettings, ValidationNamesTheField) {
  for (const auto& [sub_steps, hertz, field] : std::vector<std::tuple<int32_t, int32_t, std::string>>{
           {0, 30, "sub_steps"}, {33, 30, "sub_steps"}, {-4, 30, "sub_steps"},
           {4, 0, "contact_hertz"}, {4, 10001, "contact_hertz"}, {4, -30, "contact_hertz"}}) {
    const Status s = ValidateWorldDef(Def(sub_steps, hertz));
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << sub_steps << " " << hertz;
    EXPECT_EQ(s.message().rfind(field + ": must be in ", 0), 0u) << s.message();
    World w;
    EXPECT_FALSE(World::Create(Def(sub_steps, hertz), &w).ok());
  }
  for (const auto& [sub_steps, hertz] : std::vector<std::pair<int32_t, int32_t>>{
           {kMinSubSteps, kMinContactHertz}, {kMaxSubSteps, kMaxContactHertz}}) {
    EXPECT_TRUE(ValidateWorldDef(Def(sub_steps, hertz)).ok());
  }
}

TEST(SolverSettings, DefaultWorldsWriteVersion1Or2_OthersVersion3) {
  EXPECT_EQ(MakeWorld(Def(4, 30)).Snapshot()[4], 1);
  EXPECT_EQ(MakeWorld(Def(4, 30, true)).Snapshot()[4], 2);
  EXPECT_EQ(MakeWorld(Def(8, 30)).Snapshot()[4], 3);
  EXPECT_EQ(MakeWorld(Def(4, 120, true)).Snapshot()[4], 3);
  // The settings are in the hash.
  EXPECT_NE(MakeWorld(Def(4, 30)).StateHash(), MakeWorld(Def(8, 30)).StateHash());
  EXPECT_NE(MakeWorld(Def(8, 30)).StateHash(), MakeWorld(Def(8, 31)).StateHash());
}

TEST(SolverSettings, SnapshotAndRestoreKeepTheSettings_AndTheSteps) {
  for (const bool sleep : {false, true}) {
    World w = MakeWorld(Def(8, 120, sleep));
    StepTicks(&w, 40);
    World restored;
    ASSERT_TRUE(World::Restore(w.Snapshot(), &restored).ok());
    EXPECT_EQ(restored.def().sub_steps, 8);
    EXPECT_EQ(restored.def().contact_hertz, 120);
    EXPECT_EQ(restored.def().allow_sleep, sleep);
    EXPECT_EQ(restored.StateHash(), w.StateHash());
    EXPECT_EQ(restored.Snapshot(), w.Snapshot());
    for (int t = 0; t < 20; ++t) {
      w.Step();
      restored.Step();
      ASSERT_EQ(restored.StateHash(), w.StateHash()) << "tick " << t;
    }
  }
}

// A version 3 image of a (8, 120) world with the settings rewritten and
// signed again. The settings follow magic, version, gravity and tick_hz,
// and the sleep flag.
std::vector<uint8_t> WithSettings(int32_t sub_steps, int32_t hertz, uint8_t sleep = 0) {
  World w(Def(8, 120));
  EXPECT_TRUE(w.AddBody(BoxBody(kGround, BodyType::kStatic, Vd(0, -1), 50, 1)).ok());
  std::vector<uint8_t> image = w.Snapshot();
  image.resize(image.size() - 8);
  constexpr size_t kAt = 4 + 4 + 16 + 4;
  image[kAt] = sleep;
  for (int i = 0; i < 4; ++i) image[kAt + 1 + i] = static_cast<uint8_t>(static_cast<uint32_t>(sub_steps) >> (8 * i));
  for (int i = 0; i < 4; ++i) image[kAt + 5 + i] = static_cast<uint8_t>(static_cast<uint32_t>(hertz) >> (8 * i));
  const uint64_t sum = XXH64(image.data(), image.size(), 0);
  for (int i = 0; i < 8; ++i) image.push_back(static_cast<uint8_t>(sum >> (8 * i)));
  return image;
}

TEST(SolverSettings, RestoreChecksTheSettings) {
  World out;
  ASSERT_TRUE(World::Restore(WithSettings(8, 120), &out).ok()) << "the image as it was";
  ASSERT_TRUE(World::Restore(WithSettings(1, 10000), &out).ok());
  EXPECT_EQ(out.def().sub_steps, 1);
  EXPECT_EQ(out.def().contact_hertz, 10000);
  EXPECT_EQ(World::Restore(WithSettings(33, 120), &out).message(), "snapshot: sub_steps: must be in 1..32");
  EXPECT_EQ(World::Restore(WithSettings(8, 0), &out).message(), "snapshot: contact_hertz: must be in 1..10000");
  EXPECT_EQ(World::Restore(WithSettings(8, 120, 2), &out).message(), "snapshot: allow_sleep: not 0 or 1");
  EXPECT_EQ(World::Restore(WithSettings(4, 30), &out).message(),
            "snapshot: version 3 with the default solver settings (written as version 1 or 2)");
}

// The same hash after every tick for every executor, with stiff settings
// and with few sub-steps and a soft spring.
std::vector<uint64_t> Trace(const WorldDef& def, StepExecutor* executor) {
  World w = MakeWorld(def);
  std::vector<uint64_t> hashes;
  for (int t = 0; t < 40; ++t) {
    w.Step(nullptr, nullptr, executor);
    hashes.push_back(w.StateHash());
  }
  return hashes;
}

TEST(SolverSettings, SameHashEveryTick_For1To8Threads_AndABackwardsSchedule) {
  testing::BackwardsExecutor backwards;
  for (const WorldDef& def : {Def(8, 120), Def(1, 7, true)}) {
    const std::vector<uint64_t> reference = Trace(def, nullptr);
    for (uint32_t threads : {1u, 2u, 3u, 8u}) {
      StepThreadPool pool(threads);
      EXPECT_EQ(Trace(def, &pool), reference) << threads << " threads";
    }
    EXPECT_EQ(Trace(def, &backwards), reference) << "backwards";
  }
}

}  // namespace
}  // namespace arbiter
