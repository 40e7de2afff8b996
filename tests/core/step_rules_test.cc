// The step's rules as a game sees them, each pinned by behaviour (not only by
// the determinism digests): collision filtering (masks and groups), friction
// on a slope either side of atan(mu), the material mixing rules (friction
// sqrt(a b), restitution max(a, b)) and the shapes' user tags in events.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <vector>

#include "arbiter/core/fixed_math.h"
#include "arbiter/core/world.h"
#include "testing/numbers.h"
#include "testing/world_builders.h"

namespace arbiter {
namespace {

using testing::BoxBody;
using testing::DiskBody;

using testing::Fd;
using testing::Vd;

double Y(const World& w, uint64_t id) { return w.FindBody(id)->transform.p.y.ToDouble(); }

void StepN(World& w, int n) {
  for (int i = 0; i < n; ++i) w.Step();
}

// ---- Filtering --------------------------------------------------------------

// A box dropped from y = 2 onto the floor (top at y = 0), with its filter.
World DropWithFilter(const Filter& floor, const Filter& box) {
  World world(WorldDef{Vd(0, -10), 60, 1000});
  BodyDef f = BoxBody(1, BodyType::kStatic, Vd(0, -0.5), 50, 0.5);
  f.shapes[0].filter = floor;
  BodyDef b = BoxBody(2, BodyType::kDynamic, Vd(0, 2), 0.5, 0.5);
  b.shapes[0].filter = box;
  EXPECT_TRUE(world.AddBodies(std::vector<BodyDef>{f, b}).ok());
  StepN(world, 90);
  return world;
}

TEST(StepRules, Filter_CategoryInMaskCollides_MaskOffPassesThrough) {
  // Lands and rests on the floor: its centre at half its height.
  EXPECT_NEAR(Y(DropWithFilter({}, {}), 2), 0.5, 0.02);
  // The box's mask leaves out the floor's category: it falls through.
  EXPECT_LT(Y(DropWithFilter({0b01, ~uint64_t{0}, 0}, {0b10, ~uint64_t{0b01}, 0}), 2), -5);
  // Either side's mask alone is enough to pass through.
  EXPECT_LT(Y(DropWithFilter({0b01, ~uint64_t{0b10}, 0}, {0b10, ~uint64_t{0}, 0}), 2), -5);
}

TEST(StepRules, Filter_SameNegativeGroupNeverCollides_SamePositiveAlways) {
  // Same negative group: never, whatever the masks say.
  EXPECT_LT(Y(DropWithFilter({1, ~uint64_t{0}, -3}, {1, ~uint64_t{0}, -3}), 2), -5);
  // Same positive group: always, even with masks that exclude each other.
  EXPECT_NEAR(Y(DropWithFilter({0b01, 0, 4}, {0b10, 0, 4}), 2), 0.5, 0.02);
  // Different groups: the masks decide.
  EXPECT_NEAR(Y(DropWithFilter({1, ~uint64_t{0}, -3}, {1, ~uint64_t{0}, -4}), 2), 0.5, 0.02);
  EXPECT_LT(Y(DropWithFilter({0b01, 0, 4}, {0b10, 0, 5}), 2), -5);
}

// ---- Bullets ----------------------------------------------------------------

// A 0.05-wide dynamic plank moving left at 300 units/s and a small disk
// fired right at 1,200 units/s: per tick they close by 25 units, far more
// than either is wide. The speculative contact catches them on the first
// tick; then they fly on together at the plank's speed.
World Duel(bool bullet) {
  World world(WorldDef{Vd(0, 0), 60, 100});
  BodyDef plank = BoxBody(1, BodyType::kDynamic, Vd(10, 0), 0.025, 3);
  plank.linear_velocity = Vd(-300, 0);
  BodyDef shot = DiskBody(2, BodyType::kDynamic, Vd(-10, 0), 0.05);
  shot.linear_velocity = Vd(1200, 0);
  shot.is_bullet = bullet;
  EXPECT_TRUE(world.AddBodies(std::vector<BodyDef>{plank, shot}).ok());
  return world;
}

TEST(StepRules, Bullet_NeverPassesThroughAFastThinPlank) {
  for (const bool bullet : {true, false}) {
    World world = Duel(bullet);
    bool touched = false;
    for (int tick = 0; tick < 6; ++tick) {
      TickEvents events;
      world.Step(&events);
      touched = touched || !events.contact_begin.empty();
      // The shot stays on its side of the plank (left of its centre).
      const double gap = world.FindBody(1)->transform.p.x.ToDouble() - world.FindBody(2)->transform.p.x.ToDouble();
      ASSERT_GT(gap, 0) << (bullet ? "bullet" : "plain") << ", tick " << tick << ": passed through the plank";
    }
    EXPECT_TRUE(touched);
  }
}

// ---- Friction -----------------------------------------------------------------

// A unit box resting on a long static slope at `degrees`, both shapes with
// friction `mu` (so the mixed friction is mu); returns how far the box moved
// along the slope in two seconds.
double SlideOnSlope(double degrees, double mu) {
  World world(WorldDef{Vd(0, -10), 60, 100});
  const double a = degrees * 3.141592653589793 / 180;
  const Rot q = MakeRot(Fd(a));
  BodyDef slope = BoxBody(1, BodyType::kStatic, Vd(0, 0), 40, 0.5, q);
  slope.shapes[0].friction = Fd(mu);
  // Centre 1 unit above the slope's top face, along its normal (-sin a, cos a).
  const double lift = 0.5 + 0.5;
  BodyDef box = BoxBody(2, BodyType::kDynamic, Vd(-std::sin(a) * lift, std::cos(a) * lift), 0.5, 0.5, q);
  box.shapes[0].friction = Fd(mu);
  EXPECT_TRUE(world.AddBodies(std::vector<BodyDef>{slope, box}).ok());
  StepN(world, 120);
  const Vec2 p = world.FindBody(2)->transform.p;
  const double dx = p.x.ToDouble() + std::sin(a) * lift, dy = p.y.ToDouble() - std::cos(a) * lift;
  return std::sqrt(dx * dx + dy * dy);
}

TEST(StepRules, Friction_BoxSticksBelowAtanMuAndSlidesAbove) {
  // mu = 0.6: atan(0.6) is 30.96 degrees.
  EXPECT_LT(SlideOnSlope(20, 0.6), 0.05);
  EXPECT_LT(SlideOnSlope(28, 0.6), 0.05);
  // Above it the box slides: a = g (sin - mu cos) gives 1.2 units in 2 s at
  // 34 degrees and 7.5 at 45.
  EXPECT_GT(SlideOnSlope(34, 0.6), 0.5);
  EXPECT_GT(SlideOnSlope(45, 0.6), 4);
}

TEST(StepRules, Friction_MixesAsTheSquareRootOfTheProduct) {
  // Slope mu 0.9, box mu 0.4: sqrt(0.36) = 0.6, so 28 degrees holds and 34
  // slides, as with 0.6 on both (max would hold at 34, min slide at 28).
  auto slide = [](double degrees) {
    World world(WorldDef{Vd(0, -10), 60, 100});
    const double a = degrees * 3.141592653589793 / 180;
    const Rot q = MakeRot(Fd(a));
    BodyDef slope = BoxBody(1, BodyType::kStatic, Vd(0, 0), 40, 0.5, q);
    slope.shapes[0].friction = Fd(0.9);
    BodyDef box = BoxBody(2, BodyType::kDynamic, Vd(-std::sin(a), std::cos(a)), 0.5, 0.5, q);
    box.shapes[0].friction = Fd(0.4);
    EXPECT_TRUE(world.AddBodies(std::vector<BodyDef>{slope, box}).ok());
    StepN(world, 120);
    const Vec2 p = world.FindBody(2)->transform.p;
    return std::hypot(p.x.ToDouble() + std::sin(a), p.y.ToDouble() - std::cos(a));
  };
  EXPECT_LT(slide(28), 0.05);
  EXPECT_GT(slide(34), 0.5);
}

// ---- Restitution ----------------------------------------------------------------

// The highest the ball gets after its first bounce, dropped from y = 3.
double BounceHeight(double ball_restitution, double floor_restitution) {
  World world(WorldDef{Vd(0, -10), 60, 100});
  BodyDef floor = BoxBody(1, BodyType::kStatic, Vd(0, -0.5), 50, 0.5);
  floor.shapes[0].restitution = Fd(floor_restitution);
  BodyDef ball = DiskBody(2, BodyType::kDynamic, Vd(0, 3), 0.5);
  ball.shapes[0].restitution = Fd(ball_restitution);
  EXPECT_TRUE(world.AddBodies(std::vector<BodyDef>{floor, ball}).ok());
  bool bounced = false;
  double peak = 0;
  for (int tick = 0; tick < 240; ++tick) {
    world.Step();
    const double vy = world.FindBody(2)->linear_velocity.y.ToDouble();
    if (vy > 0) bounced = true;
    if (bounced) peak = std::max(peak, Y(world, 2));
  }
  return peak;
}

TEST(StepRules, Restitution_MixesAsTheMaximum) {
  const double both = BounceHeight(0.8, 0.8);
  EXPECT_GT(both, 1.8);  // 0.64 of the 2.5-unit drop, above the resting 0.5
  // Either side's restitution alone gives the same bounce: max(a, b).
  EXPECT_NEAR(BounceHeight(0.8, 0), both, 0.02);
  EXPECT_NEAR(BounceHeight(0, 0.8), both, 0.02);
  // Neither: it stays down.
  EXPECT_LT(BounceHeight(0, 0), 0.55);
}

// ---- Fast bodies and sensors ---------------------------------------------------

// A 0.1-thick sensor wall at x = 0 and a small disk fired through it: at
// 1,200 units/s it moves 20 units a tick, so it overlaps the sensor at no
// tick's end.
World SensorRange(bool bullet, double speed) {
  World world(WorldDef{Vd(0, 0), 60, 100});
  BodyDef gate = BoxBody(1, BodyType::kStatic, Vd(0, 0), 0.05, 5);
  gate.shapes[0].is_sensor = true;
  BodyDef shot = DiskBody(2, BodyType::kDynamic, Vd(-30, 0), 0.1);
  shot.linear_velocity = Vd(speed, 0);
  shot.is_bullet = bullet;
  EXPECT_TRUE(world.AddBodies(std::vector<BodyDef>{gate, shot}).ok());
  return world;
}

// (tick, enters, exits) of every tick with a sensor event.
std::vector<std::array<int, 3>> SensorTicks(World& world, int ticks) {
  std::vector<std::array<int, 3>> out;
  for (int tick = 1; tick <= ticks; ++tick) {
    TickEvents events;
    world.Step(&events);
    for (const SensorEvent& e : events.sensor_enter) {
      EXPECT_EQ(e.sensor, (ShapeRef{1, 0}));
      EXPECT_EQ(e.visitor, (ShapeRef{2, 0}));
    }
    if (!events.sensor_enter.empty() || !events.sensor_exit.empty()) {
      out.push_back({tick, static_cast<int>(events.sensor_enter.size()), static_cast<int>(events.sensor_exit.size())});
    }
  }
  return out;
}

TEST(StepRules, Sensor_AFastBodyCrossingWithinOneTickEntersAndLeavesInThatTick) {
  // From x = -30 at 20 units a tick: between ticks 1 (x = -10) and 2 (x = 10).
  for (const bool bullet : {true, false}) {
    World world = SensorRange(bullet, 1200);
    const auto ticks = SensorTicks(world, 4);
    ASSERT_EQ(ticks.size(), 1u) << (bullet ? "bullet" : "plain");
    EXPECT_EQ(ticks[0], (std::array<int, 3>{2, 1, 1}));
  }
  // Crossings are events only: stepping with or without events reaches the
  // same state.
  World world = SensorRange(true, 1200);
  World silent = SensorRange(true, 1200);
  for (int tick = 0; tick < 4; ++tick) {
    TickEvents events;
    world.Step(&events);
    silent.Step();
  }
  EXPECT_EQ(world.StateHash(), silent.StateHash());
}

TEST(StepRules, Sensor_ASlowBodyStillEntersAndLeavesOnSeparateTicks) {
  // 30 units/s: half a unit a tick, so the disk's centre is at x = 0 at
  // tick 60, inside the sensor: enter at 60, exit at 61, no crossing event.
  World slow = SensorRange(false, 30);
  const auto ticks = SensorTicks(slow, 90);
  ASSERT_EQ(ticks.size(), 2u);
  EXPECT_EQ(ticks[0][1], 1);
  EXPECT_EQ(ticks[0][2], 0);
  EXPECT_EQ(ticks[1][1], 0);
  EXPECT_EQ(ticks[1][2], 1);
  EXPECT_EQ(ticks[0][0], 60);
  EXPECT_EQ(ticks[1][0], 61);
}

// ---- Events carry the shapes' user tags --------------------------------------

TEST(StepRules, Events_CarryBothShapesUserTags) {
  World world(WorldDef{Vd(0, -10), 60, 100});
  BodyDef floor = BoxBody(1, BodyType::kStatic, Vd(0, -0.5), 50, 0.5);
  floor.shapes[0].user_tag = 0xf1002;
  BodyDef gate = BoxBody(3, BodyType::kStatic, Vd(0, 1.5), 2, 0.25);
  gate.shapes[0].is_sensor = true;
  gate.shapes[0].user_tag = 0x5e17;
  BodyDef ball = DiskBody(2, BodyType::kDynamic, Vd(0, 3), 0.5);
  ball.shapes[0].user_tag = 0xba11;
  ASSERT_TRUE(world.AddBodies(std::vector<BodyDef>{floor, ball, gate}).ok());
  int begins = 0, enters = 0, exits = 0;
  for (int tick = 0; tick < 120; ++tick) {
    TickEvents events;
    world.Step(&events);
    for (const ContactEvent& e : events.contact_begin) {
      EXPECT_EQ(e.user_tag_a, 0xf1002u);  // a: the floor (body 1)
      EXPECT_EQ(e.user_tag_b, 0xba11u);
      ++begins;
    }
    for (const SensorEvent& e : events.sensor_enter) {
      EXPECT_EQ(e.sensor_user_tag, 0x5e17u);
      EXPECT_EQ(e.visitor_user_tag, 0xba11u);
      ++enters;
    }
    for (const SensorEvent& e : events.sensor_exit) {
      EXPECT_EQ(e.sensor_user_tag, 0x5e17u);
      EXPECT_EQ(e.visitor_user_tag, 0xba11u);
      ++exits;
    }
  }
  EXPECT_EQ(begins, 1);
  EXPECT_EQ(enters, 1);
  EXPECT_EQ(exits, 1);
}

}  // namespace
}  // namespace arbiter
