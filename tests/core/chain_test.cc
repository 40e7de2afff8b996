// Chains (chain.h): MakeChain's validation, one-sidedness and the ghost
// vertices in the narrow phase, and chains in a world (limits, snapshot,
// hash, queries, MoveAndSlide).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "arbiter/core/chain.h"
#include "arbiter/core/collision.h"
#include "arbiter/core/fixed_math.h"
#include "arbiter/core/manifold.h"
#include "arbiter/core/world.h"
#include "testing/numbers.h"
#include "testing/world_builders.h"

namespace arbiter {
namespace {

using testing::Fd;
using testing::Vd;

std::vector<Shape> Chain(std::vector<Vec2> points, bool loop) {
  std::vector<Shape> out;
  EXPECT_EQ(MakeChain(points, loop, &out), ShapeError::kOk);
  return out;
}

ShapeProxy Placed(const Shape& s) { return MakeProxy(s, kTransformIdentity); }

ShapeProxy PlainSegment(const Shape& chain_segment) {
  return Placed(Shape::FromSegment({chain_segment.chain_segment.point1, chain_segment.chain_segment.point2}));
}

// ---------------------------------------------------------------------------
// MakeChain

TEST(MakeChain, RejectsBadPointListsAndAppendsNothing) {
  std::vector<Shape> out;
  const Vec2 one[] = {Vd(0, 0)};
  EXPECT_EQ(MakeChain(one, false, &out), ShapeError::kTooFewChainPoints);
  const Vec2 two[] = {Vd(0, 0), Vd(1, 0)};
  EXPECT_EQ(MakeChain(two, true, &out), ShapeError::kTooFewChainPoints);
  const Vec2 dup[] = {Vd(0, 0), Vd(1, 0), Vd(1, 0), Vd(2, 0)};
  EXPECT_EQ(MakeChain(dup, false, &out), ShapeError::kDuplicateVertices);
  const Vec2 closed_twice[] = {Vd(0, 0), Vd(1, 0), Vd(1, 1), Vd(0, 0)};
  EXPECT_EQ(MakeChain(closed_twice, true, &out), ShapeError::kDuplicateVertices);
  EXPECT_EQ(MakeChain(closed_twice, false, &out), ShapeError::kOk) << "an open chain may end where it began";
  out.clear();
  const Vec2 far[] = {Vd(0, 0), {Fixed::FromInt((int64_t{1} << 24) + 1), kFixedZero}};
  EXPECT_EQ(MakeChain(far, false, &out), ShapeError::kOutOfRange);
  std::vector<Vec2> many;
  for (uint32_t i = 0; i <= kMaxChainPoints; ++i) many.push_back({Fixed::FromInt(i), Fixed::FromInt(i % 2)});
  EXPECT_EQ(MakeChain(many, false, &out), ShapeError::kTooManyChainPoints);
  many.pop_back();
  EXPECT_EQ(MakeChain(many, false, &out), ShapeError::kOk);
  EXPECT_EQ(out.size(), kMaxChainPoints - 1);
}

TEST(MakeChain, GhostsAreTheNeighboursAndOpenEndsLookBehind) {
  const std::vector<Vec2> points = {Vd(3, 0), Vd(2, 1), Vd(0, 1), Vd(-1, 0)};
  const std::vector<Shape> open = Chain(points, false);
  ASSERT_EQ(open.size(), 3u);
  for (const Shape& s : open) {
    EXPECT_EQ(s.type, ShapeType::kChainSegment);
    EXPECT_EQ(ValidateShape(s), ShapeError::kOk);
  }
  EXPECT_EQ(open[1].chain_segment.ghost1, points[0]);
  EXPECT_EQ(open[1].chain_segment.point1, points[1]);
  EXPECT_EQ(open[1].chain_segment.point2, points[2]);
  EXPECT_EQ(open[1].chain_segment.ghost2, points[3]);
  // Open ends: the ghost sits straight behind the end (point - RightPerp(d)).
  const ChainSegment& first = open[0].chain_segment;
  const Vec2 back = first.point1 - first.ghost1;
  EXPECT_EQ(Dot(back, first.point2 - first.point1), kFixedZero);
  EXPECT_GT(Dot(back, RightPerp(first.point2 - first.point1)), kFixedZero);
  const std::vector<Shape> loop = Chain(points, true);
  ASSERT_EQ(loop.size(), 4u);
  EXPECT_EQ(loop[0].chain_segment.ghost1, points[3]);
  EXPECT_EQ(loop[3].chain_segment.point1, points[3]);
  EXPECT_EQ(loop[3].chain_segment.point2, points[0]);
  EXPECT_EQ(loop[3].chain_segment.ghost2, points[1]);
}

TEST(MakeChain, ValidationNamesBadGhosts) {
  ChainSegment c{Vd(0, 0), Vd(0, 0), Vd(1, 0), Vd(2, 0)};
  EXPECT_EQ(ValidateChainSegment(c), ShapeError::kDegenerateGhost);
  c.ghost1 = Vd(-1, 0);
  EXPECT_EQ(ValidateChainSegment(c), ShapeError::kOk);
  c.point2 = c.point1;
  EXPECT_EQ(ValidateChainSegment(c), ShapeError::kDegenerateSegment);
  EXPECT_STREQ(ShapeTypeName(ShapeType::kChainSegment), "chain_segment");
}

// ---------------------------------------------------------------------------
// One side

// A floor along y = 0 facing up: chains run right to left (normal =
// RightPerp(direction)).
std::vector<Shape> Floor() { return Chain({Vd(4, 0), Vd(2, 0), Vd(0, 0), Vd(-2, 0), Vd(-4, 0)}, false); }

TEST(ChainOneSided, RaysHitFromTheFrontOnly) {
  const ShapeProxy seg = Placed(Floor()[1]);  // (2,0) -> (0,0)
  const CastOutput down = RayCast(seg, {Vd(1, 1), Vd(0, -2), kFixedOne});
  ASSERT_TRUE(down.hit);
  EXPECT_EQ(down.fraction, kFixedOne.Half());
  EXPECT_EQ(down.normal, Vd(0, 1));
  EXPECT_FALSE(RayCast(seg, {Vd(1, -1), Vd(0, 2), kFixedOne}).hit) << "from behind";
  EXPECT_TRUE(RayCast(PlainSegment(Floor()[1]), {Vd(1, -1), Vd(0, 2), kFixedOne}).hit) << "a plain segment is hit";
  EXPECT_FALSE(RayCast(seg, {Vd(1, 0), Vd(0, 1), kFixedOne}).hit) << "an origin on the line is not in front";
}

TEST(ChainOneSided, CastsAndContactsNeedTheCentreInFront) {
  const ShapeProxy seg = Placed(Floor()[1]);
  const ShapeProxy below = Placed(Shape::FromCircle({Vd(1, -0.4), Fd(0.5)}));
  const ShapeProxy above = Placed(Shape::FromCircle({Vd(1, 0.4), Fd(0.5)}));
  EXPECT_TRUE(TestOverlap(seg, below)) << "overlap sees a plain segment";
  EXPECT_EQ(Collide(seg, below, kFixedZero).point_count, 0);
  EXPECT_EQ(Collide(below, seg, kFixedZero).point_count, 0);
  const Manifold m = Collide(seg, above, kFixedZero);
  ASSERT_EQ(m.point_count, 1);
  EXPECT_EQ(m.normal, Vd(0, 1));
  const Manifold flipped = Collide(above, seg, kFixedZero);
  ASSERT_EQ(flipped.point_count, 1);
  EXPECT_EQ(flipped.normal, Vd(0, -1));
  EXPECT_EQ(flipped.points[0].separation, m.points[0].separation);
  const ShapeProxy low = Placed(Shape::FromCircle({Vd(1, -2), Fd(0.5)}));
  const ShapeProxy high = Placed(Shape::FromCircle({Vd(1, 2), Fd(0.5)}));
  EXPECT_FALSE(ShapeCast({low, seg, Vd(0, 4), kFixedOne}).hit);
  EXPECT_TRUE(ShapeCast({high, seg, Vd(0, -4), kFixedOne}).hit);
  EXPECT_EQ(Collide(seg, Placed(Floor()[2]), Fd(1)).point_count, 0) << "chains never meet chains";
}

// ---------------------------------------------------------------------------
// Ghosts: a shape resting across the joint at the origin, slid so that a
// corner (or its disk) is just past the joint onto the left segment, gets
// the side normal from a plain segment (the snag) and never from a chain.

struct JointCase {
  const char* name;
  Shape shape;
};

std::vector<JointCase> JointCases() {
  Polygon box;
  EXPECT_EQ(MakeOffsetBox(Fd(0.5), Fd(0.5), Vd(0.49, 0.45), kRotIdentity, &box), ShapeError::kOk);
  Polygon rounded;  // core x in [0.05, 0.85], surface 0.05 below the floor
  EXPECT_EQ(MakeOffsetBox(Fd(0.4), Fd(0.4), Vd(0.45, 0.45), kRotIdentity, &rounded), ShapeError::kOk);
  rounded.radius = Fd(0.1);
  EXPECT_EQ(MakePolygon(std::span<const Vec2>(rounded.vertices.data(), 4), Fd(0.1), &rounded), ShapeError::kOk);
  return {
      {"box", Shape::FromPolygon(box)},
      {"rounded box", Shape::FromPolygon(rounded)},
      {"circle", Shape::FromCircle({Vd(0.1, 0.45), Fd(0.5)})},
      {"capsule", Shape::FromCapsule({Vd(0.1, 0.2), Vd(1.5, 0.2), Fd(0.25)})},
  };
}

TEST(ChainGhosts, NoSideNormalAtAFlatJoint) {
  const std::vector<Shape> floor = Floor();
  const ShapeProxy left = Placed(floor[2]);  // (0,0) -> (-2,0): the joint is its point1
  const ShapeProxy right = Placed(floor[1]);
  for (const JointCase& c : JointCases()) {
    SCOPED_TRACE(c.name);
    const ShapeProxy body = Placed(c.shape);
    // The plain segment pushes the body back along +x: the snag.
    const Manifold plain = Collide(PlainSegment(floor[2]), body, kFixedZero);
    ASSERT_GT(plain.point_count, 0);
    EXPECT_GT(plain.normal.x, Fd(0.2)) << "a plain segment gives a side normal here";
    // The chain segment leaves it to its neighbour, or gives the face normal.
    const Manifold chain = Collide(left, body, kFixedZero);
    if (chain.point_count > 0) {
      EXPECT_EQ(chain.normal, Vd(0, 1));
    }
    const Manifold neighbour = Collide(right, body, kFixedZero);
    ASSERT_GT(neighbour.point_count, 0);
    EXPECT_EQ(neighbour.normal, Vd(0, 1));
  }
}

TEST(ChainGhosts, ConvexCornerStillHasItsVertexNormal) {
  // A square island (counter-clockwise loop: solid inside, faces outward);
  // a disk off its top-right corner touches the corner with the diagonal
  // normal from both segments that meet there.
  const std::vector<Shape> island = Chain({Vd(-1, -1), Vd(1, -1), Vd(1, 1), Vd(-1, 1)}, true);
  const ShapeProxy disk = Placed(Shape::FromCircle({Vd(1.3, 1.3), Fd(0.5)}));
  for (int i : {1, 2}) {
    const Manifold m = Collide(Placed(island[i]), disk, kFixedZero);
    ASSERT_EQ(m.point_count, 1) << "segment " << i;
    EXPECT_NEAR(m.normal.x.ToDouble(), std::sqrt(0.5), 1e-6);
    EXPECT_NEAR(m.normal.y.ToDouble(), std::sqrt(0.5), 1e-6);
  }
  // Past the corner along the top face, only the top segment touches.
  const ShapeProxy on_top = Placed(Shape::FromCircle({Vd(0.9, 1.45), Fd(0.5)}));
  EXPECT_EQ(Collide(Placed(island[1]), on_top, kFixedZero).point_count, 0);
  EXPECT_EQ(Collide(Placed(island[2]), on_top, kFixedZero).normal, Vd(0, 1));
}

TEST(ChainGhosts, ConcaveJointSnapsToTheFace) {
  // A clockwise loop: a square cave, solid outside. A box pressed into the
  // bottom-left corner gets each wall's face normal, never a diagonal one.
  const std::vector<Shape> cave = Chain({Vd(-2, -2), Vd(-2, 2), Vd(2, 2), Vd(2, -2)}, true);
  Polygon box;
  ASSERT_EQ(MakeOffsetBox(Fd(0.5), Fd(0.5), Vd(-1.48, -1.49), MakeRot(Fd(0.3)), &box), ShapeError::kOk);
  const ShapeProxy body = Placed(Shape::FromPolygon(box));
  int touching = 0;
  for (const Shape& wall : cave) {
    const Manifold m = Collide(Placed(wall), body, Fd(0.1));
    if (m.point_count == 0) continue;
    ++touching;
    const Vec2 face = Normalize(RightPerp(wall.chain_segment.point2 - wall.chain_segment.point1));
    EXPECT_EQ(m.normal, face);
  }
  EXPECT_EQ(touching, 2);
}

// ---------------------------------------------------------------------------
// Chains in a world

BodyDef ChainBody(uint64_t id, const std::vector<Shape>& segments, BodyType type = BodyType::kStatic) {
  BodyDef def;
  def.id = id;
  def.type = type;
  for (const Shape& s : segments) {
    ShapeDef sd;
    sd.shape = s;
    def.shapes.push_back(sd);
  }
  return def;
}

std::vector<Shape> LongFloor(int segments, double y = 0) {
  std::vector<Vec2> points;
  for (int i = 0; i <= segments; ++i) points.push_back(Vd(segments / 2.0 - i, y));
  return Chain(points, false);
}

TEST(ChainWorld, OnlyMasslessBodiesHoldChainsAndLongChainsFit) {
  World world;
  const Status dynamic = world.AddBody(ChainBody(1, LongFloor(3), BodyType::kDynamic));
  EXPECT_EQ(dynamic.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(dynamic.message().find("shapes[0].chain_segment"), std::string::npos) << dynamic.message();
  EXPECT_EQ(world.body_count(), 0u);
  EXPECT_TRUE(world.AddBody(ChainBody(2, LongFloor(1000))).ok()) << "a chain is not held to 64 shapes";
  EXPECT_TRUE(world.AddBody(ChainBody(3, LongFloor(10), BodyType::kKinematic)).ok());
  std::vector<Shape> too_long = LongFloor(4000);
  const std::vector<Shape> more = LongFloor(200, 5);
  too_long.insert(too_long.end(), more.begin(), more.end());
  EXPECT_EQ(world.AddBody(ChainBody(4, too_long)).code(), StatusCode::kResourceExhausted);
  BodyDef solid = testing::BoxBody(5, BodyType::kStatic, Vd(0, 0), 1, 1);
  const ShapeDef one = solid.shapes[0];
  solid.shapes.resize(kMaxShapesPerBody + 1, one);
  EXPECT_EQ(world.AddBody(solid).code(), StatusCode::kResourceExhausted) << "other shapes still count to 64";
}

TEST(ChainWorld, SnapshotRestoresChainsAndTheHashSeesGhosts) {
  World world(WorldDef{Vd(0, -10), 60, 100});
  ASSERT_TRUE(world.AddBody(ChainBody(1, LongFloor(8))).ok());
  ASSERT_TRUE(world.AddBody(testing::DiskBody(2, BodyType::kDynamic, Vd(0.3, 1), 0.5)).ok());
  for (int i = 0; i < 30; ++i) world.Step();
  World restored;
  ASSERT_TRUE(World::Restore(world.Snapshot(), &restored).ok());
  EXPECT_EQ(restored.StateHash(), world.StateHash());
  const BodyDef floor = *restored.GetBodyDef(1);
  ASSERT_EQ(floor.shapes.size(), 8u);
  const std::vector<Shape> made = LongFloor(8);
  for (size_t i = 0; i < 8; ++i) {
    const ChainSegment& got = floor.shapes[i].shape.chain_segment;
    const ChainSegment& want = made[i].chain_segment;
    EXPECT_EQ(floor.shapes[i].shape.type, ShapeType::kChainSegment);
    EXPECT_TRUE(got.ghost1 == want.ghost1 && got.point1 == want.point1 && got.point2 == want.point2 &&
                got.ghost2 == want.ghost2) << "segment " << i;
  }
  for (int i = 0; i < 30; ++i) {
    world.Step();
    restored.Step();
  }
  EXPECT_EQ(restored.StateHash(), world.StateHash());
  // The same points with another ghost: another state.
  World a, b;
  std::vector<Shape> chain = LongFloor(4);
  ASSERT_TRUE(a.AddBody(ChainBody(1, chain)).ok());
  chain[0].chain_segment.ghost1 = chain[0].chain_segment.ghost1 + Vd(0, -1);
  ASSERT_TRUE(b.AddBody(ChainBody(1, chain)).ok());
  EXPECT_NE(a.StateHash(), b.StateHash());
}

TEST(ChainWorld, QueriesSeeTheFrontAndMoversPassFromBehind) {
  World world;
  ASSERT_TRUE(world.AddBody(ChainBody(1, LongFloor(20))).ok());
  const auto hit = world.CastRayClosest({Vd(3.5, 2), Vd(0, -4), kFixedOne});
  ASSERT_TRUE(hit.has_value());
  EXPECT_EQ(hit->shape.shape_index, 6u);  // (4,0) -> (3,0)
  EXPECT_EQ(hit->normal, Vd(0, 1));
  EXPECT_FALSE(world.CastRayClosest({Vd(3.5, -2), Vd(0, 4), kFixedOne}).has_value());
  EXPECT_EQ(world.OverlapPoint(Vd(3.5, 0)).size(), 1u) << "overlap sees a plain segment";

  MoveInput move;
  move.shape = Shape::FromCircle({Vec2{}, Fd(0.5)});
  move.start.p = Vd(-8, 0.6);
  move.translation = Vd(16, -2);
  const MoveResult slide = world.MoveAndSlide(move);
  EXPECT_FALSE(slide.blocked);
  EXPECT_NEAR(slide.position.x.ToDouble(), 8, 1e-3) << "slides along the floor across 16 joints";
  EXPECT_GE(slide.position.y.ToDouble(), 0.5);
  EXPECT_LT(slide.position.y.ToDouble(), 0.6);
  for (const MovePlane& p : slide.planes) EXPECT_EQ(p.normal, Vd(0, 1));

  move.start.p = Vd(0.5, -1);
  move.translation = Vd(0, 3);
  const MoveResult up = world.MoveAndSlide(move);
  EXPECT_FALSE(up.blocked) << "the floor is one-sided";
  EXPECT_EQ(up.position, Vd(0.5, 2));
  move.start.p = Vd(0.5, -0.2);  // starts overlapping from behind: nothing to push out of
  EXPECT_EQ(world.MoveAndSlide(move).position, Vd(0.5, 2.8));
}

}  // namespace
}  // namespace arbiter
