// World::MoveAndSlide: pinned cases (free space, a wall, a corner, a start
// inside a box, input checks) and seeded properties against the double
// reference: a mover that is not blocked by an unresolved start never ends
// overlapping anything, moves the whole translation when the path is clear,
// and slides along a single wall keeping the skin.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "arbiter/core/collision.h"
#include "arbiter/core/limits.h"
#include "arbiter/core/proxy.h"
#include "arbiter/core/world.h"
#include "reference/convert.h"
#include "reference/reference.h"
#include "testing/numbers.h"

namespace arbiter {
namespace {

using testing::Fd;
using testing::Vd;
double D(Fixed f) { return f.ToDouble(); }

Rot Angle(double radians) { return {Fd(std::cos(radians)), Fd(std::sin(radians))}; }

BodyDef Box(uint64_t id, double x, double y, double hw, double hh, double angle = 0) {
  Polygon box;
  EXPECT_EQ(MakeBox(Fd(hw), Fd(hh), &box), ShapeError::kOk);
  BodyDef def;
  def.id = id;
  def.transform = {Vd(x, y), Angle(angle)};
  def.shapes.push_back(ShapeDef{Shape::FromPolygon(box)});
  return def;
}

BodyDef Disk(uint64_t id, double x, double y, double r, BodyType type = BodyType::kStatic) {
  BodyDef def;
  def.id = id;
  def.type = type;
  def.transform = {Vd(x, y), kRotIdentity};
  def.shapes.push_back(ShapeDef{Shape::FromCircle({Vec2{}, Fd(r)})});
  return def;
}

MoveInput CircleMove(double x, double y, double r, double dx, double dy) {
  MoveInput in;
  in.shape = Shape::FromCircle({Vec2{}, Fd(r)});
  in.start = {Vd(x, y), kRotIdentity};
  in.translation = Vd(dx, dy);
  return in;
}

// Smallest reference distance from the mover at `position` to any shape of
// `defs`, in units (negative never: the reference reports 0 on overlap, so
// overlap is reported through `overlaps`).
struct Clearance {
  double distance = 1e300;
  bool overlaps = false;
};

Clearance ClearanceAt(const std::vector<BodyDef>& defs, const MoveInput& in, Vec2 position) {
  const ShapeProxy mover = MakeProxy(in.shape, {position, in.start.q});
  Clearance c;
  for (const BodyDef& b : defs) {
    for (const ShapeDef& s : b.shapes) {
      const ShapeProxy target = MakeProxy(s.shape, b.transform);
      c.overlaps = c.overlaps || TestOverlap(mover, target);
      const reference::DistanceResult r = reference::Distance(reference::ToD(mover, position), reference::ToD(target, position));
      c.distance = std::min(c.distance, r.distance);
    }
  }
  return c;
}

World Build(const std::vector<BodyDef>& defs) {
  World world;
  EXPECT_TRUE(world.AddBodies(defs).ok());
  return world;
}

TEST(MoveAndSlide, FreeSpace_TakesTheWholeTranslation) {
  const World world = Build({Disk(1, 100, 100, 1)});
  const MoveInput in = CircleMove(0, 0, 0.5, 7.25, -3.5);
  const MoveResult r = world.MoveAndSlide(in);
  EXPECT_EQ(r.position, in.start.p + in.translation);
  EXPECT_EQ(r.fraction, kFixedOne);
  EXPECT_FALSE(r.blocked);
  EXPECT_TRUE(r.planes.empty());
  EXPECT_EQ(r.iterations, 1);
}

TEST(MoveAndSlide, Floor_SlidesAlongItKeepingTheSkin) {
  // Floor top at y = 0; a disk of radius 0.5 falls at 45 degrees onto it.
  const std::vector<BodyDef> defs = {Box(7, 0, -1, 50, 1)};
  const World world = Build(defs);
  MoveInput in = CircleMove(0, 2, 0.5, 6, -6);
  const MoveResult r = world.MoveAndSlide(in);
  EXPECT_FALSE(r.blocked);
  ASSERT_EQ(r.planes.size(), 1u);
  EXPECT_EQ(r.planes[0].body_id, 7u);
  EXPECT_FALSE(r.planes[0].pushed_out);
  EXPECT_EQ(r.planes[0].normal, Vd(0, 1));
  // The normal part is stopped at the skin; the tangential part is kept.
  EXPECT_NEAR(D(r.position.y), 0.5 + D(in.skin), 1e-6);
  EXPECT_NEAR(D(r.position.x), 6, 1e-6);
  // Progress along (6, -6): x moved 6, y moved -(1.5 - skin).
  EXPECT_NEAR(D(r.fraction), (6 * 6 + 6 * (1.5 - D(in.skin))) / 72, 1e-6);
  EXPECT_FALSE(ClearanceAt(defs, in, r.position).overlaps);
}

TEST(MoveAndSlide, Corner_IsBlockedAndClearOfBoth) {
  // Floor (top y = 0) and a wall (left face x = 3).
  const std::vector<BodyDef> defs = {Box(1, 0, -1, 50, 1), Box(2, 4, 5, 1, 5)};
  const World world = Build(defs);
  const MoveInput in = CircleMove(0, 1, 0.5, 8, -4);
  const MoveResult r = world.MoveAndSlide(in);
  EXPECT_TRUE(r.blocked);
  ASSERT_EQ(r.planes.size(), 2u);
  EXPECT_EQ(r.planes[0].body_id + r.planes[1].body_id, 3u);
  EXPECT_NEAR(D(r.position.y), 0.5 + D(in.skin), 1e-6);
  EXPECT_NEAR(D(r.position.x), 3 - 0.5 - D(in.skin), 1e-6);
  EXPECT_FALSE(ClearanceAt(defs, in, r.position).overlaps);
}

TEST(MoveAndSlide, StartInsideABox_PushedOutAlongTheShortestWayThenMoves) {
  // The disk's centre is 0.2 below the box's top face: the shortest way out
  // is up by 0.7 (+ skin).
  const std::vector<BodyDef> defs = {Box(5, 0, -1, 10, 1)};
  const World world = Build(defs);
  const MoveInput in = CircleMove(1, -0.2, 0.5, 2, 0);
  const MoveResult r = world.MoveAndSlide(in);
  EXPECT_FALSE(r.blocked);
  ASSERT_GE(r.planes.size(), 1u);
  EXPECT_TRUE(r.planes[0].pushed_out);
  EXPECT_EQ(r.planes[0].body_id, 5u);
  EXPECT_EQ(r.planes[0].normal, Vd(0, 1));
  EXPECT_NEAR(D(r.position.y), 0.5 + D(in.skin), 1e-6);
  EXPECT_NEAR(D(r.position.x), 3, 1e-6);
  EXPECT_FALSE(ClearanceAt(defs, in, r.position).overlaps);
}

TEST(MoveAndSlide, FilterAndSensors_AreRespected) {
  std::vector<BodyDef> defs = {Box(1, 5, 0, 1, 5)};
  defs[0].shapes[0].is_sensor = true;
  const World world = Build(defs);
  const MoveInput in = CircleMove(0, 0, 0.5, 10, 0);
  EXPECT_FALSE(world.MoveAndSlide(in).blocked);  // sensors are not walls
  QueryFilter with_sensors;
  with_sensors.include_sensors = true;
  const MoveResult r = world.MoveAndSlide(in, with_sensors);
  EXPECT_EQ(r.planes.size(), 1u);
  EXPECT_NEAR(D(r.position.x), 4 - 0.5 - D(in.skin), 1e-6);
  const uint64_t ignore[] = {1};
  QueryFilter excluding = with_sensors;
  excluding.exclude_bodies = ignore;
  EXPECT_EQ(world.MoveAndSlide(in, excluding).position, in.start.p + in.translation);
}

TEST(MoveAndSlide, ValidateMoveInput_NamesTheField) {
  MoveInput in = CircleMove(0, 0, 0.5, 1, 0);
  EXPECT_TRUE(ValidateMoveInput(in, "move").ok());
  MoveInput bad = in;
  bad.skin = kFixedZero;
  EXPECT_EQ(ValidateMoveInput(bad, "move").message(), "move.skin: must be in [2^-16, 1] units");
  bad = in;
  bad.max_iterations = kMaxMoveIterations + 1;
  EXPECT_EQ(ValidateMoveInput(bad, "move").code(), StatusCode::kOutOfRange);
  bad = in;
  bad.translation.x = kMaxMoveTranslation + Fixed::FromRaw(1);
  EXPECT_EQ(ValidateMoveInput(bad, "move").message(), "move.translation: beyond +-2^28 units");
  bad = in;
  bad.shape.circle.radius = Fixed::FromRaw(-1);
  EXPECT_NE(ValidateMoveInput(bad, "move").message().find("move.shape.circle"), std::string::npos);
  bad = in;
  bad.start.p.x = kFixedMaxWorldCoordinate + Fixed::FromRaw(1);
  EXPECT_NE(ValidateMoveInput(bad, "move").message().find("move.start"), std::string::npos);
}

// ---- Seeded properties --------------------------------------------------

double Uniform(std::mt19937_64& rng, double lo, double hi) {
  return std::uniform_real_distribution<double>(lo, hi)(rng);
}

// A cluttered room: boxes at any angle and disks, static and dynamic.
std::vector<BodyDef> RandomRoom(std::mt19937_64& rng) {
  std::vector<BodyDef> defs;
  const int count = 4 + static_cast<int>(rng() % 12);
  for (int i = 0; i < count; ++i) {
    const uint64_t id = static_cast<uint64_t>(i) + 1;
    const double x = Uniform(rng, -20, 20), y = Uniform(rng, -20, 20);
    if (rng() % 3 == 0) {
      defs.push_back(Disk(id, x, y, Uniform(rng, 0.3, 4), rng() % 2 ? BodyType::kStatic : BodyType::kDynamic));
    } else {
      defs.push_back(Box(id, x, y, Uniform(rng, 0.2, 6), Uniform(rng, 0.2, 6), Uniform(rng, 0, 6.3)));
    }
  }
  return defs;
}

MoveInput RandomMover(std::mt19937_64& rng) {
  MoveInput in;
  const double r = Uniform(rng, 0.2, 1.5);
  if (rng() % 2) {
    in.shape = Shape::FromCircle({Vec2{}, Fd(r)});
  } else {
    in.shape = Shape::FromCapsule({Vd(0, -r), Vd(0, r), Fd(r * 0.6)});
  }
  in.start = {Vd(Uniform(rng, -22, 22), Uniform(rng, -22, 22)), Angle(Uniform(rng, 0, 6.3))};
  in.translation = Vd(Uniform(rng, -15, 15), Uniform(rng, -15, 15));
  in.skin = Fd(std::ldexp(1.0, -static_cast<int>(4 + rng() % 12)));
  in.max_iterations = 1 + static_cast<int32_t>(rng() % kMaxMoveIterations);
  return in;
}

TEST(MoveAndSlide, Property_NeverEndsOverlappingUnlessBlocked) {
  std::mt19937_64 rng(20261201);
  int cases = 0, blocked = 0, left_inside = 0, slid = 0;
  for (int world_i = 0; world_i < 60; ++world_i) {
    const std::vector<BodyDef> defs = RandomRoom(rng);
    const World world = Build(defs);
    for (int m = 0; m < 40; ++m) {
      const MoveInput in = RandomMover(rng);
      ASSERT_TRUE(ValidateMoveInput(in, "in").ok());
      const MoveResult r = world.MoveAndSlide(in);
      ++cases;
      blocked += r.blocked;
      slid += !r.planes.empty() && !r.blocked;
      const Clearance c = ClearanceAt(defs, in, r.position);
      if (c.overlaps) {
        // Only a start the push-out rounds could not resolve may end inside.
        ASSERT_TRUE(r.blocked) << "world " << world_i << " move " << m;
        ++left_inside;
      }
      ASSERT_GE(D(r.fraction), 0.0);
      ASSERT_LE(D(r.fraction), 1.0);
      // Determinism: the same question, the same bits.
      ASSERT_EQ(world.MoveAndSlide(in), r);
    }
  }
  std::printf("[ summary ] %d moves: %d blocked, %d slid, %d left inside after push-out rounds\n", cases, blocked,
              slid, left_inside);
  EXPECT_GT(slid, cases / 20);                 // the property saw real sliding
  EXPECT_LT(left_inside * 50, cases);          // unresolved starts are rare (< 2%)
}

TEST(MoveAndSlide, Property_ClearPathMovesTheWholeWay) {
  std::mt19937_64 rng(7);
  int checked = 0;
  for (int world_i = 0; world_i < 40; ++world_i) {
    const std::vector<BodyDef> defs = RandomRoom(rng);
    const World world = Build(defs);
    for (int m = 0; m < 40; ++m) {
      const MoveInput in = RandomMover(rng);
      // Clear path by the reference: the swept mover never comes within 1e-3
      // of anything (sampled finely; the core's own cast is what is tested).
      bool clear = true;
      for (int k = 0; k <= 256 && clear; ++k) {
        const Vec2 p = in.start.p + Fd(k / 256.0) * in.translation;
        clear = ClearanceAt(defs, in, p).distance > 0.05;
      }
      if (!clear) continue;
      ++checked;
      const MoveResult r = world.MoveAndSlide(in);
      ASSERT_EQ(r.position, in.start.p + in.translation) << "world " << world_i << " move " << m;
      ASSERT_FALSE(r.blocked);
      ASSERT_TRUE(r.planes.empty());
    }
  }
  EXPECT_GT(checked, 100);
}

TEST(MoveAndSlide, Property_SingleWallSlidesAlongIt) {
  std::mt19937_64 rng(99);
  for (int i = 0; i < 300; ++i) {
    // A long wall through the origin with outward normal n (angle a).
    const double a = Uniform(rng, 0, 6.283);
    const double nx = std::cos(a), ny = std::sin(a);
    const std::vector<BodyDef> defs = {Box(3, -nx * 2, -ny * 2, 2, 400, a)};
    const World world = Build(defs);
    // Start 1..5 units off the wall, move into it at a random slant.
    const double r = Uniform(rng, 0.2, 1.0), off = Uniform(rng, 1, 5);
    const double tx = -ny, ty = nx;  // along the wall
    const double along = Uniform(rng, -8, 8), into = Uniform(rng, off + 0.5, off + 8);
    MoveInput in = CircleMove(nx * (r + off), ny * (r + off), r, tx * along - nx * into, ty * along - ny * into);
    in.max_iterations = 4;
    const MoveResult r_ = world.MoveAndSlide(in);
    ASSERT_FALSE(r_.blocked) << i;
    ASSERT_EQ(r_.planes.size(), 1u) << i;
    const double px = D(r_.position.x), py = D(r_.position.y);
    // Distance from the wall's face = (p . n) - r: the skin, to within the
    // rounding of the normal and the back-off (1e-6 units).
    EXPECT_NEAR(px * nx + py * ny - r, D(in.skin), 2e-6) << i;
    // Tangential progress: the whole tangential part of the translation.
    const double start_t = D(in.start.p.x) * tx + D(in.start.p.y) * ty;
    EXPECT_NEAR(px * tx + py * ty - start_t, along, 2e-6) << i;
    EXPECT_NEAR(D(r_.planes[0].normal.x), nx, 1e-8) << i;
    EXPECT_NEAR(D(r_.planes[0].normal.y), ny, 1e-8) << i;
  }
}

}  // namespace
}  // namespace arbiter
