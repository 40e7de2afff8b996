#include "arbiter/core/history.h"

#include <gtest/gtest.h>

#include <optional>
#include <vector>

#include "arbiter/core/fixed_math.h"
#include "testing/numbers.h"
#include "testing/random.h"
#include "testing/world_builders.h"

namespace arbiter {
namespace {

using testing::RandomBody;
using testing::SplitMix64;

using testing::Fd;
using testing::Vd;

// Every kind of query, its answers flattened so that two runs compare with ==.
struct Answers {
  std::vector<std::optional<CastHit>> closest;
  std::vector<std::vector<CastHit>> all;
  std::vector<std::vector<ShapeRef>> boxes;
  std::vector<std::vector<ShapeRef>> shapes;
  std::vector<std::optional<CastHit>> sweeps;
  friend bool operator==(const Answers&, const Answers&) = default;
};

Answers Ask(const World& world, uint64_t seed) {
  SplitMix64 rng(seed);
  auto coord = [&] { return Fixed::FromRaw(rng.Uniform(-(int64_t{60} << 32), int64_t{60} << 32)); };
  Answers a;
  QueryFilter filter;
  filter.include_sensors = true;
  for (int i = 0; i < 40; ++i) {
    RayCastInput ray{{coord(), coord()}, {coord(), coord()}, kFixedOne};
    a.closest.push_back(world.CastRayClosest(ray, filter));
    a.all.push_back(world.CastRayAll(ray, filter));
    const Vec2 lo{coord(), coord()};
    a.boxes.push_back(world.OverlapAabb({lo, lo + Vd(8, 8)}, filter));
    const Shape disk = Shape::FromCircle({{}, Fd(1.5)});
    const Transform at{{coord(), coord()}, kRotIdentity};
    a.shapes.push_back(world.OverlapShape(disk, at, filter));
    a.sweeps.push_back(world.CastShapeClosest(disk, at, {coord(), coord()}, filter));
  }
  return a;
}

BodyDef Kinematic(uint64_t id, Vec2 p, Vec2 v) {
  BodyDef def;
  def.id = id;
  def.type = BodyType::kKinematic;
  def.transform.p = p;
  def.linear_velocity = v;
  def.angular_velocity = Fd(1.5);
  ShapeDef sd;
  sd.shape = Shape::FromCircle({{}, Fd(0.5)});
  def.shapes.push_back(sd);
  return def;
}

// The core promise: an answer at a past tick equals, bit for bit, the one
// the live world gave at that tick, across steps and every kind of
// mutation between them (adds, removals, teleports, filters, statics).
TEST(WorldHistory, PastAnswersEqualLiveAnswersBitForBit) {
  SplitMix64 rng(7);
  World world(WorldDef{Vd(0, -10), 60, 1 << 16});
  std::vector<BodyDef> bodies;
  for (uint64_t id = 1; id <= 120; ++id) bodies.push_back(RandomBody(rng, id, 50));
  ASSERT_TRUE(world.AddBodies(bodies).ok());
  WorldHistory history(200);
  std::vector<Answers> live;
  uint64_t next_id = 1000;
  for (int t = 0; t < 90; ++t) {
    switch (t % 5) {
      case 1: ASSERT_TRUE(world.AddBody(RandomBody(rng, next_id++, 50)).ok()); break;
      case 2: {
        const std::vector<uint64_t> ids = world.BodyIds();
        const uint64_t victim[1] = {ids[rng.Next() % ids.size()]};
        ASSERT_TRUE(world.RemoveBodies(victim).ok());
        break;
      }
      case 3: {
        const std::vector<uint64_t> ids = world.BodyIds();
        const uint64_t id = ids[rng.Next() % ids.size()];
        ASSERT_TRUE(world.SetBodyTransform(id, {Vd(t * 0.5 - 20, 3), MakeRot(Fd(t * 0.1))}).ok());
        ASSERT_TRUE(world.SetShapeFilter(ids[rng.Next() % ids.size()], 0, Filter{2, ~uint64_t{0}, 0}).ok());
        break;
      }
      default: break;
    }
    ASSERT_EQ(world.tick(), t);
    live.push_back(Ask(world, 1000 + t));
    history.Record(world);
    world.Step();
  }
  ASSERT_EQ(history.oldest_tick(), 0);
  ASSERT_EQ(history.newest_tick(), 89);
  // Newest first and then oldest, so rebuilt worlds are reused across
  // layouts in both directions.
  for (int t = 89; t >= 0; --t) {
    std::shared_ptr<const World> past;
    ASSERT_TRUE(history.At(world, t, kFixedZero, &past).ok());
    ASSERT_NE(past, nullptr);
    EXPECT_EQ(past->tick(), t);
    EXPECT_TRUE(Ask(*past, 1000 + t) == live[static_cast<size_t>(t)]) << "tick " << t;
  }
  for (int t = 0; t < 90; t += 7) {
    std::shared_ptr<const World> past;
    ASSERT_TRUE(history.At(world, t, kFixedZero, &past).ok());
    EXPECT_TRUE(Ask(*past, 1000 + t) == live[static_cast<size_t>(t)]) << "tick " << t;
  }
  std::shared_ptr<const World> now;
  ASSERT_TRUE(history.At(world, world.tick(), kFixedZero, &now).ok());
  EXPECT_EQ(now, nullptr) << "the live tick is answered by the live world";
}

TEST(WorldHistory, WindowLimitsAreOutOfRangeAndNameTheWindow) {
  World world;
  ASSERT_TRUE(world.AddBody(Kinematic(1, Vd(0, 0), Vd(1, 0))).ok());
  WorldHistory history(3);
  std::shared_ptr<const World> past;
  Status s = history.At(world, -1, kFixedZero, &past);
  EXPECT_EQ(s.code(), StatusCode::kOutOfRange);
  EXPECT_NE(s.message().find("[0, 0]"), std::string::npos) << s.message();
  for (int t = 0; t < 5; ++t) {
    history.Record(world);
    world.Step();
  }
  // Ticks 2, 3, 4 retained; 5 is live.
  EXPECT_EQ(history.oldest_tick(), 2);
  s = history.At(world, 1, kFixedZero, &past);
  EXPECT_EQ(s.code(), StatusCode::kOutOfRange);
  EXPECT_EQ(s.message(), "tick: 1 is outside the retained window [2, 5]");
  EXPECT_EQ(history.At(world, 6, kFixedZero, &past).code(), StatusCode::kOutOfRange);
  EXPECT_EQ(history.At(world, 5, Fixed::FromRatio(1, 2), &past).code(), StatusCode::kOutOfRange);
  EXPECT_EQ(history.At(world, 4, kFixedOne, &past).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(history.At(world, 4, Fixed::FromRaw(-1), &past).code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(history.At(world, 2, kFixedZero, &past).ok());
  EXPECT_TRUE(history.At(world, 4, Fixed::FromRatio(1, 2), &past).ok());
  history.Clear();
  EXPECT_TRUE(history.empty());
  EXPECT_EQ(history.At(world, 4, kFixedZero, &past).code(), StatusCode::kOutOfRange);
}

// A kinematic body moving at constant velocity sits, at tick + f, exactly
// where the documented lerp puts it; its rotation is the normalized lerp.
TEST(WorldHistory, InterpolatesMovableBodiesBetweenTicks) {
  World world(WorldDef{{}, 60, 1 << 10});
  ASSERT_TRUE(world.AddBody(Kinematic(1, Vd(0, 0), Vd(6, -3))).ok());
  BodyDef wall;
  wall.id = 2;
  wall.type = BodyType::kStatic;
  wall.transform.p = Vd(10, 0);
  ShapeDef sd;
  sd.shape = Shape::FromSegment({Vd(0, -5), Vd(0, 5)});
  wall.shapes.push_back(sd);
  ASSERT_TRUE(world.AddBody(wall).ok());
  WorldHistory history(10);
  std::vector<Transform> poses;
  for (int t = 0; t < 4; ++t) {
    poses.push_back(world.FindBody(1)->transform);
    history.Record(world);
    world.Step();
  }
  poses.push_back(world.FindBody(1)->transform);
  for (int t = 0; t < 4; ++t) {
    for (Fixed f : {Fixed::FromRatio(1, 4), Fixed::FromRatio(1, 2), Fixed::FromRaw(Fixed::kOneRaw - 1)}) {
      std::shared_ptr<const World> past;
      ASSERT_TRUE(history.At(world, t, f, &past).ok());
      const Transform& a = poses[static_cast<size_t>(t)];
      const Transform& b = poses[static_cast<size_t>(t) + 1];
      const Transform got = past->FindBody(1)->transform;
      EXPECT_EQ(got.p.x, a.p.x + (b.p.x - a.p.x) * f);
      EXPECT_EQ(got.p.y, a.p.y + (b.p.y - a.p.y) * f);
      const Vec2 q = Normalize({a.q.c + (b.q.c - a.q.c) * f, a.q.s + (b.q.s - a.q.s) * f});
      EXPECT_EQ(got.q.c, q.x);
      EXPECT_EQ(got.q.s, q.y);
      EXPECT_TRUE(IsUnitRotation(got.q));
      EXPECT_EQ(past->FindBody(2)->transform, wall.transform) << "statics do not move";
      // Two rebuilds of the same instant answer identically (one is cached,
      // the other interpolates against the live world when t == 3).
      std::shared_ptr<const World> again;
      ASSERT_TRUE(history.At(world, t, f, &again).ok());
      EXPECT_TRUE(Ask(*again, 5) == Ask(*past, 5));
    }
  }
}

// Bodies that exist at T but not at T + 1 stay where they were at T; bodies
// that appear only at T + 1 are not in the view at all.
TEST(WorldHistory, InterpolationAcrossLayoutChangesUsesTheEarlierTick) {
  World world;
  ASSERT_TRUE(world.AddBody(Kinematic(1, Vd(0, 0), Vd(6, 0))).ok());
  ASSERT_TRUE(world.AddBody(Kinematic(2, Vd(0, 5), Vd(6, 0))).ok());
  WorldHistory history(10);
  history.Record(world);
  world.Step();
  const Fixed x1 = world.FindBody(1)->transform.p.x;
  const uint64_t gone[1] = {2};
  ASSERT_TRUE(world.RemoveBodies(gone).ok());
  ASSERT_TRUE(world.AddBody(Kinematic(3, Vd(0, -5), Vd(6, 0))).ok());
  history.Record(world);
  world.Step();
  std::shared_ptr<const World> past;
  ASSERT_TRUE(history.At(world, 0, Fixed::FromRatio(1, 2), &past).ok());
  EXPECT_EQ(past->FindBody(1)->transform.p.x, x1 * Fixed::FromRatio(1, 2));
  EXPECT_EQ(past->FindBody(2)->transform.p, Vd(0, 5));
  EXPECT_FALSE(past->FindBody(3).has_value());
}

TEST(WorldHistory, ReportsMemoryPerTick) {
  World world;
  for (uint64_t id = 1; id <= 100; ++id) ASSERT_TRUE(world.AddBody(Kinematic(id, Vd(id * 2.0, 0), Vd(0, 1))).ok());
  WorldHistory history(50);
  history.Record(world);
  world.Step();
  const size_t one = history.MemoryBytes();
  for (int t = 0; t < 10; ++t) {
    history.Record(world);
    world.Step();
  }
  // Each further tick costs the poses of the 100 movable bodies and no more
  // snapshot: the layout is shared.
  const size_t per_tick = (history.MemoryBytes() - one) / 10;
  EXPECT_GE(per_tick, 100 * sizeof(Transform));
  EXPECT_LT(per_tick, 100 * sizeof(Transform) + 256);
}

}  // namespace
}  // namespace arbiter
