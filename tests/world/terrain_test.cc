// terrain.scene.json (scenes/terrain.py): chains in a whole scene. Boxes
// and circles released on its 45-degree ramp of 60 collinear chain segments
// slide down without catching on a joint; the same ramp rebuilt from plain
// two-sided segments catches the boxes (so the first test can fail). The
// rest of the scene (hills, a cave, a floating rock) keeps everything in
// front of its chains.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

#include "arbiter/core/world.h"
#include "arbiter/scene/scene.h"

namespace arbiter {
namespace {

constexpr double kSnag = 0.02;  // units/s lost in one tick; friction-limited boxes gain ~0.047
// Drops are counted from this tick on: the bodies start 1/64 above the ramp,
// and friction at the landing impact (tick 3) takes speed legitimately.
constexpr int kLanded = 15;
const double kDown[2] = {std::sqrt(0.5), -std::sqrt(0.5)};

scene::Scene LoadTerrain() {
  scene::Scene s;
  const Status status = scene::LoadSceneFile(ARBITER_SCENES_DIR "/terrain.scene.json", &s);
  EXPECT_TRUE(status.ok()) << status.message();
  return s;
}

// The floor rebuilt of plain segments, 50 to a body (plain shapes count to 64).
std::vector<BodyDef> PlainFloor(const BodyDef& floor) {
  std::vector<BodyDef> out;
  for (size_t i = 0; i < floor.shapes.size(); ++i) {
    if (i % 50 == 0) {
      BodyDef part = floor;
      part.id = 1000 + i;
      part.shapes.clear();
      out.push_back(part);
    }
    ShapeDef sd = floor.shapes[i];
    sd.shape = Shape::FromSegment({sd.shape.chain_segment.point1, sd.shape.chain_segment.point2});
    out.back().shapes.push_back(sd);
  }
  return out;
}

struct RampRun {
  std::map<uint64_t, double> worst_drop;  // per ramp body: largest loss of ramp speed in one tick
  std::map<uint64_t, double> lowest;      // lowest distance of the centre above the ramp's line
  std::map<uint64_t, int> worst_tick;
};

bool OnRamp(Vec2 p) { return p.x.ToDouble() < -45; }

RampRun SlideDownTheRamp(bool plain) {
  scene::Scene s = LoadTerrain();
  std::vector<BodyDef> bodies;
  std::vector<uint64_t> sliders;
  for (const BodyDef& b : s.bodies) {
    if (b.id == 1 && plain) {
      for (const BodyDef& part : PlainFloor(b)) bodies.push_back(part);
      continue;
    }
    bodies.push_back(b);
    if (b.type == BodyType::kDynamic && OnRamp(b.transform.p)) sliders.push_back(b.id);
  }
  EXPECT_EQ(sliders.size(), 6u);
  World world(s.world);
  EXPECT_TRUE(world.AddBodies(bodies).ok());
  RampRun run;
  std::map<uint64_t, double> previous;
  for (int tick = 0; tick < 240; ++tick) {
    world.Step();
    for (uint64_t id : sliders) {
      const BodyView b = *world.FindBody(id);
      if (!OnRamp(b.transform.p)) continue;
      const double speed = b.linear_velocity.x.ToDouble() * kDown[0] + b.linear_velocity.y.ToDouble() * kDown[1];
      const double x = b.transform.p.x.ToDouble(), y = b.transform.p.y.ToDouble();
      const double height = (x + 40 + y) * std::sqrt(0.5);  // ramp line: y = -(x + 40)
      run.lowest[id] = run.lowest.count(id) ? std::min(run.lowest[id], height) : height;
      if (tick >= kLanded && previous.count(id) && previous[id] - speed > run.worst_drop[id]) {
        run.worst_drop[id] = previous[id] - speed;
        run.worst_tick[id] = tick;
      }

      previous[id] = speed;
    }
  }
  return run;
}

TEST(Terrain, LoadsAsChains) {
  const scene::Scene s = LoadTerrain();
  ASSERT_GE(s.bodies.size(), 3u);
  EXPECT_EQ(s.bodies[0].shapes.size(), 200u);  // 201 points, open
  EXPECT_EQ(s.bodies[1].shapes.size(), 64u);   // a loop of 64 points
  for (const ShapeDef& sd : s.bodies[0].shapes) EXPECT_EQ(sd.shape.type, ShapeType::kChainSegment);
}

TEST(Terrain, BoxesAndCirclesSlideDownTheChainRampWithoutSnagging) {
  const RampRun run = SlideDownTheRamp(false);
  ASSERT_EQ(run.worst_drop.size(), 6u);
  for (const auto& [id, drop] : run.worst_drop) {
    RecordProperty("worst_drop_ums_body_" + std::to_string(id), static_cast<int>(drop * 1e6));
    EXPECT_LT(drop, kSnag) << "body " << id << " caught on a joint at tick " << run.worst_tick.at(id);
    EXPECT_GT(run.lowest.at(id), 0.3) << "body " << id << " sank into the ramp";
  }
}

TEST(Terrain, TheRampOfPlainSegmentsCatchesTheBoxes) {
  const RampRun run = SlideDownTheRamp(true);
  int snagged = 0;
  for (const auto& [id, drop] : run.worst_drop) snagged += drop > kSnag ? 1 : 0;
  RecordProperty("snagged", snagged);
  EXPECT_GE(snagged, 1) << "plain segments did not snag: the chain test proves nothing";
}

TEST(Terrain, EveryBodyStaysInFrontOfTheChainsFor600Ticks) {
  const scene::Scene s = LoadTerrain();
  World world(s.world);
  ASSERT_TRUE(world.AddBodies(s.bodies).ok());
  for (int tick = 0; tick < s.steps; ++tick) world.Step();
  for (const BodyDef& b : s.bodies) {
    if (b.type != BodyType::kDynamic) continue;
    const Vec2 p = world.FindBody(b.id)->transform.p;
    // Nothing fell through the floor (lowest floor point: about -4.2), out
    // of the cave, or off the world.
    EXPECT_GT(p.y.ToDouble(), -5) << "body " << b.id;
    const bool in_cave = b.transform.p.x.ToDouble() > 20 && b.transform.p.y.ToDouble() > 30;
    if (in_cave) {
      EXPECT_GT(p.y.ToDouble(), 28) << "body " << b.id << " left the cave";
    }
  }
}

}  // namespace
}  // namespace arbiter
