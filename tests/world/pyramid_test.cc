// pyramid-5k: Box2D's large_pyramid (5,050 unit boxes on a base of 100).
// After the scene's 600 ticks no box has left the pyramid's footprint or
// sunk into the ground, and the top box is still near the top; the test
// prints how far the top box dropped and slid. Issue 23 (goal 4) asks for
// the top within 0.1 units of its start; the solver does not get there yet
// (measured 2026-12-03: 0.93 units down and 0.87 sideways), so that goal is
// tracked there, and this test guards against collapse.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "arbiter/core/world.h"
#include "arbiter/scene/scene.h"

namespace arbiter {
namespace {

TEST(Pyramid, FiveThousandBoxesDoNotCollapseIn600Ticks) {
  scene::Scene scene;
  ASSERT_TRUE(scene::LoadSceneFile(ARBITER_SCENES_DIR "/pyramid-5k.scene.json", &scene).ok());
  ASSERT_EQ(scene.bodies.size(), 5051u);
  ASSERT_EQ(scene.steps, 600);
  World world(scene.world);
  ASSERT_TRUE(world.AddBodies(scene.bodies).ok());
  const uint64_t top = 5051;
  const double start = world.FindBody(top)->transform.p.y.ToDouble();
  ASSERT_EQ(start, 99.5);
  for (int tick = 0; tick < scene.steps; ++tick) world.Step();
  const Transform end = world.FindBody(top)->transform;
  const double drop = start - end.p.y.ToDouble();
  std::printf("[ pyramid ] top box after %d ticks: (%.6f, %.6f), %.6f below its start\n", scene.steps,
              end.p.x.ToDouble(), end.p.y.ToDouble(), drop);
  // Collapsed, the top box would be tens of units down.
  EXPECT_LT(std::abs(drop), 2.0);
  EXPECT_LT(std::abs(end.p.x.ToDouble()), 2.0);
  for (const BodyDef& b : scene.bodies) {
    if (b.type != BodyType::kDynamic) continue;
    const Vec2 p = world.FindBody(b.id)->transform.p;
    ASSERT_LT(std::abs(p.x.ToDouble()), 50.5) << "box " << b.id << " left the pyramid";
    ASSERT_GT(p.y.ToDouble(), 0.4) << "box " << b.id << " sank into the ground";
  }
}

}  // namespace
}  // namespace arbiter
