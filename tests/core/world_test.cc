#include "arbiter/core/world.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <vector>

#include "arbiter/core/fixed_math.h"
#include "testing/numbers.h"
#include "testing/random.h"
#include "testing/world_builders.h"

namespace arbiter {
namespace {

using testing::BruteForce;
using testing::RandomBody;
using testing::SplitMix64;

using testing::Fd;
using testing::Vd;

BodyDef Disk(uint64_t id, double x, double y, double r, BodyType type = BodyType::kStatic) {
  BodyDef def;
  def.id = id;
  def.type = type;
  def.transform.p = Vd(x, y);
  ShapeDef sd;
  sd.shape = Shape::FromCircle({Vd(0, 0), Fd(r)});
  def.shapes.push_back(sd);
  return def;
}

TEST(World, AddBodies_BadShape_NamesTheFieldAndChangesNothing) {
  World world;
  ASSERT_TRUE(world.AddBody(Disk(1, 0, 0, 1)).ok());
  const uint64_t before = world.StateHash();

  std::vector<BodyDef> batch = {Disk(2, 5, 0, 1), Disk(3, 9, 0, 1)};
  Polygon p;
  batch[1].shapes.push_back(ShapeDef{});
  batch[1].shapes[1].shape = Shape::FromCircle({Vd(0, 0), Fd(-1)});
  Status s = world.AddBodies(batch);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "bodies[1].shapes[1].circle: negative radius");
  EXPECT_EQ(world.body_count(), 1u);
  EXPECT_EQ(world.StateHash(), before);
  EXPECT_FALSE(world.FindBody(2).has_value());
}

TEST(World, AddBodies_EveryValidationRule) {
  World world;
  ASSERT_TRUE(world.AddBody(Disk(7, 0, 0, 1)).ok());
  EXPECT_EQ(world.AddBody(Disk(7, 1, 1, 1)).code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(world.AddBody(Disk(0, 1, 1, 1)).message(), "bodies[0].id: must be non-zero");
  const std::vector<BodyDef> twice = {Disk(8, 0, 0, 1), Disk(8, 1, 0, 1)};
  EXPECT_EQ(world.AddBodies(twice).message(), "bodies[1].id: body 8 appears twice in the batch");
  BodyDef far = Disk(9, 0, 0, 1);
  far.transform.p.x = kFixedMaxWorldCoordinate + Fixed::FromRaw(1);
  EXPECT_EQ(world.AddBody(far).code(), StatusCode::kOutOfRange);
  BodyDef skew = Disk(9, 0, 0, 1);
  skew.transform.q = {Fd(2), Fd(0)};
  EXPECT_EQ(world.AddBody(skew).message(), "bodies[0].transform.q: not a unit rotation (c^2 + s^2 != 1)");
  BodyDef empty = Disk(9, 0, 0, 1);
  empty.shapes.clear();
  EXPECT_EQ(world.AddBody(empty).code(), StatusCode::kInvalidArgument);
  BodyDef fast = Disk(9, 0, 0, 1, BodyType::kDynamic);
  fast.linear_velocity = Vd(1 << 25, 0);
  EXPECT_EQ(world.AddBody(fast).code(), StatusCode::kOutOfRange);
  BodyDef heavy = Disk(9, 0, 0, 1 << 20, BodyType::kDynamic);
  EXPECT_EQ(world.AddBody(heavy).code(), StatusCode::kOutOfRange);
  World small(WorldDef{{}, 60, 2});
  const std::vector<BodyDef> three = {Disk(1, 0, 0, 1), Disk(2, 0, 0, 1), Disk(3, 0, 0, 1)};
  EXPECT_EQ(small.AddBodies(three).code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(small.body_count(), 0u);
  EXPECT_EQ(world.body_count(), 1u);
}

TEST(World, RemoveBodies_UnknownIdRemovesNothing) {
  World world;
  ASSERT_TRUE(world.AddBodies(std::vector<BodyDef>{Disk(1, 0, 0, 1), Disk(2, 3, 0, 1)}).ok());
  const std::vector<uint64_t> ids = {1, 99};
  const Status s = world.RemoveBodies(ids);
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_EQ(s.message(), "body_ids[1]: no body 99");
  EXPECT_EQ(world.body_count(), 2u);
  const std::vector<uint64_t> dup = {1, 1};
  EXPECT_EQ(world.RemoveBodies(dup).code(), StatusCode::kInvalidArgument);
  const std::vector<uint64_t> one = {1};
  EXPECT_TRUE(world.RemoveBodies(one).ok());
  EXPECT_EQ(world.BodyIds(), std::vector<uint64_t>{2});
  EXPECT_FALSE(world.CastRayClosest({Vd(-5, 0), Vd(4, 0), kFixedOne}).has_value());
}

// Id 0 marks an empty slot of the id map; looking it up used to return the
// slot's stale value, so RemoveBodies({0}) removed another body and left a
// dangling id behind.
TEST(World, BodyIdZero_IsNeverFound) {
  World world;
  ASSERT_TRUE(world.AddBodies(std::vector<BodyDef>{Disk(1, 0, 0, 1), Disk(2, 3, 0, 1)}).ok());
  const uint64_t before = world.StateHash();
  const std::vector<uint64_t> zero = {0};
  const Status s = world.RemoveBodies(zero);
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_EQ(s.message(), "body_ids[0]: no body 0");
  EXPECT_EQ(world.StateHash(), before);
  EXPECT_FALSE(world.FindBody(0).has_value());
  EXPECT_EQ(world.SetBodyVelocity(0, Vd(1, 0), kFixedZero).code(), StatusCode::kNotFound);
  EXPECT_EQ(world.SetBodyTransform(0, kTransformIdentity).code(), StatusCode::kNotFound);
  EXPECT_EQ(world.SetShapeFilter(0, 0, Filter{}).code(), StatusCode::kNotFound);
  EXPECT_EQ(world.StateHash(), before);
}

TEST(World, Mutators_RejectBadInputAndKeepState) {
  World world;
  ASSERT_TRUE(world.AddBody(Disk(1, 0, 0, 1)).ok());
  ASSERT_TRUE(world.AddBody(Disk(2, 5, 0, 1, BodyType::kDynamic)).ok());
  const uint64_t before = world.StateHash();
  EXPECT_EQ(world.SetBodyTransform(3, {}).code(), StatusCode::kNotFound);
  EXPECT_EQ(world.SetBodyTransform(1, {Vd(1e9, 0), kRotIdentity}).code(), StatusCode::kOutOfRange);
  EXPECT_EQ(world.SetBodyVelocity(1, Vd(1, 0), Fd(0)).code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(world.SetShapeFilter(2, 1, Filter{}).code(), StatusCode::kNotFound);
  EXPECT_EQ(world.StateHash(), before);
  EXPECT_TRUE(world.SetBodyVelocity(2, Vd(1, 0), Fd(0.5)).ok());
  EXPECT_NE(world.StateHash(), before);
}

TEST(World, CastRayClosest_TiesGoToTheLowerBodyId) {
  World world;
  // Three identical disks at one place, added out of order.
  ASSERT_TRUE(world.AddBodies(std::vector<BodyDef>{Disk(30, 4, 0, 1), Disk(10, 4, 0, 1), Disk(20, 4, 0, 1)}).ok());
  const auto hit = world.CastRayClosest({Vd(0, 0), Vd(10, 0), kFixedOne});
  ASSERT_TRUE(hit.has_value());
  EXPECT_EQ(hit->shape.body_id, 10u);
  EXPECT_EQ(hit->fraction, Fd(0.3));
  const auto all = world.CastRayAll({Vd(0, 0), Vd(10, 0), kFixedOne});
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[0].shape.body_id, 10u);
  EXPECT_EQ(all[1].shape.body_id, 20u);
  EXPECT_EQ(all[2].shape.body_id, 30u);
  EXPECT_TRUE(world.CastRayAny({Vd(0, 0), Vd(10, 0), kFixedOne}));
  EXPECT_FALSE(world.CastRayAny({Vd(0, 5), Vd(10, 0), kFixedOne}));
}

TEST(World, QueryFilter_CategoryMaskSensorTypeAndExclusion) {
  World world;
  BodyDef a = Disk(1, 4, 0, 1);
  a.shapes[0].filter.category_bits = 0b10;
  BodyDef b = Disk(2, 8, 0, 1, BodyType::kKinematic);
  BodyDef c = Disk(3, 12, 0, 1);
  c.shapes[0].is_sensor = true;
  ASSERT_TRUE(world.AddBodies(std::vector<BodyDef>{a, b, c}).ok());
  const RayCastInput ray{Vd(0, 0), Vd(20, 0), kFixedOne};
  EXPECT_EQ(world.CastRayAll(ray).size(), 2u);  // the sensor is skipped by default
  QueryFilter sensors;
  sensors.include_sensors = true;
  EXPECT_EQ(world.CastRayAll(ray, sensors).size(), 3u);
  QueryFilter mask;
  mask.mask_bits = 0b01;
  EXPECT_EQ(world.CastRayClosest(ray, mask)->shape.body_id, 2u);
  QueryFilter statics;
  statics.body_types = 1u << static_cast<int>(BodyType::kStatic);
  EXPECT_EQ(world.CastRayAll(ray, statics).size(), 1u);
  const uint64_t excluded[] = {1};
  QueryFilter exclude;
  exclude.exclude_bodies = excluded;
  EXPECT_EQ(world.CastRayClosest(ray, exclude)->shape.body_id, 2u);
}

TEST(World, OverlapQueries_TouchingCountsAndOrderIsCanonical) {
  World world;
  ASSERT_TRUE(world.AddBodies(std::vector<BodyDef>{Disk(5, 0, 0, 1), Disk(3, 3, 0, 1), Disk(4, 10, 0, 1)}).ok());
  // The box [1, 2] x [-1, 1] touches disk 5 at (1, 0) and disk 3 at (2, 0).
  const auto refs = world.OverlapAabb({Vd(1, -1), Vd(2, 1)});
  ASSERT_EQ(refs.size(), 2u);
  EXPECT_EQ(refs[0].body_id, 3u);
  EXPECT_EQ(refs[1].body_id, 5u);
  EXPECT_EQ(world.OverlapPoint(Vd(1, 0)).size(), 1u);
  EXPECT_EQ(world.OverlapPoint(Vd(1, 0) + Vec2{Fixed::FromRaw(1), kFixedZero}).size(), 0u);
  // A zero-size box is a point query.
  EXPECT_EQ(world.OverlapAabb({Vd(3, 1), Vd(3, 1)}).size(), 1u);
  const Shape probe = Shape::FromCircle({Vd(0, 0), Fd(1)});
  EXPECT_EQ(world.OverlapShape(probe, {Vd(5, 0), kRotIdentity}).size(), 1u);  // tangent to disk 3
}

TEST(World, CastShapeClosest_DiskSweepStopsAtFirstContact) {
  World world;
  Polygon wall;
  ASSERT_EQ(MakeBox(Fd(0.05), Fd(5), &wall), ShapeError::kOk);
  BodyDef def;
  def.id = 42;
  def.transform.p = Vd(10, 0);
  def.shapes.push_back(ShapeDef{});
  def.shapes[0].shape = Shape::FromPolygon(wall);
  ASSERT_TRUE(world.AddBody(def).ok());
  const Shape disk = Shape::FromCircle({Vd(0, 0), Fd(0.2)});
  const auto hit = world.CastShapeClosest(disk, {Vd(0, 0), kRotIdentity}, Vd(20, 0));
  ASSERT_TRUE(hit.has_value());
  EXPECT_EQ(hit->shape.body_id, 42u);
  EXPECT_NEAR(hit->fraction.ToDouble(), (10 - 0.05 - 0.2) / 20, 1e-9);
  EXPECT_EQ(hit->normal, Vd(-1, 0));
}

// Random worlds: every query equals brute force over all shapes with the
// same core functions, bit for bit, whatever the tree looks like.
TEST(World, RandomWorlds_QueriesEqualBruteForce) {
  SplitMix64 rng(77);
  for (int round = 0; round < 6; ++round) {
    World world;
    std::vector<BodyDef> defs;
    for (uint64_t id = 1; id <= 300; ++id) defs.push_back(RandomBody(rng, id * 3 + static_cast<uint64_t>(round), 200.0));
    // Insert in two batches, the second one-by-one, then move and remove some.
    ASSERT_TRUE(world.AddBodies(std::span<const BodyDef>(defs).first(200)).ok());
    for (size_t i = 200; i < defs.size(); ++i) ASSERT_TRUE(world.AddBody(defs[i]).ok());
    for (int k = 0; k < 40; ++k) {
      const BodyDef& d = defs[rng.Next() % defs.size()];
      if (!world.FindBody(d.id)) continue;
      ASSERT_TRUE(world.SetBodyTransform(d.id, {Vd(rng.Uniform(-200, 200), rng.Uniform(-200, 200)), MakeRot(Fd(rng.Uniform(-3, 3)))}).ok());
    }
    for (int k = 0; k < 30; ++k) {
      const uint64_t id = defs[rng.Next() % defs.size()].id;
      if (world.FindBody(id)) {
        ASSERT_TRUE(world.RemoveBodies(std::span<const uint64_t>(&id, 1)).ok());
      }
    }
    const BruteForce brute(world);
    for (int q = 0; q < 400; ++q) {
      const RayCastInput ray{Vd(rng.Uniform(-250, 250), rng.Uniform(-250, 250)), Vd(rng.Uniform(-300, 300), rng.Uniform(-300, 300)), kFixedOne};
      QueryFilter filter;
      if (q % 3 == 0) filter.mask_bits = 0b101;
      ASSERT_EQ(world.CastRayClosest(ray, filter), brute.CastRayClosest(ray, filter)) << "round " << round << " ray " << q;
      ASSERT_EQ(world.CastRayAll(ray, filter), brute.CastRayAll(ray, filter));
      const Vec2 lo = Vd(rng.Uniform(-250, 250), rng.Uniform(-250, 250));
      const Aabb box{lo, lo + Vd(rng.Uniform(0, 40), rng.Uniform(0, 40))};
      ASSERT_EQ(world.OverlapAabb(box, filter), brute.OverlapAabb(box, filter));
      const Shape disk = Shape::FromCircle({Vd(0, 0), Fd(rng.Uniform(1, 20))});
      const Transform at{lo, kRotIdentity};
      ASSERT_EQ(world.OverlapShape(disk, at, filter), brute.OverlapShape(disk, at, filter));
      ASSERT_EQ(world.OverlapPoint(lo, filter), brute.OverlapPoint(lo, filter));
      const Vec2 sweep = Vd(rng.Uniform(-100, 100), rng.Uniform(-100, 100));
      const auto closest = brute.CastShapeClosest(disk, at, sweep, filter);
      ASSERT_EQ(world.CastShapeClosest(disk, at, sweep, filter), closest) << q;
      ASSERT_EQ(world.CastShapeAny(disk, at, sweep, filter), closest.has_value()) << q;
      ASSERT_EQ(world.CastRayAny(ray, filter), brute.CastRayClosest(ray, filter).has_value()) << q;
    }
  }
}

TEST(World, StateHash_IndependentOfInsertionOrder) {
  SplitMix64 rng(5);
  std::vector<BodyDef> defs;
  for (uint64_t id = 1; id <= 100; ++id) defs.push_back(RandomBody(rng, id, 50.0));
  World forward, backward;
  ASSERT_TRUE(forward.AddBodies(defs).ok());
  for (auto it = defs.rbegin(); it != defs.rend(); ++it) ASSERT_TRUE(backward.AddBody(*it).ok());
  EXPECT_EQ(forward.StateHash(), backward.StateHash());
  EXPECT_EQ(forward.Snapshot(), backward.Snapshot());
  // And any change shows.
  ASSERT_TRUE(backward.SetBodyTransform(defs[0].id, {Vd(1, 1), kRotIdentity}).ok());
  EXPECT_NE(forward.StateHash(), backward.StateHash());
}

TEST(World, SnapshotRestore_SameHashSameAnswers) {
  SplitMix64 rng(6);
  World world(WorldDef{Vd(0, -10), 30, 1000});
  std::vector<BodyDef> defs;
  for (uint64_t id = 1; id <= 150; ++id) defs.push_back(RandomBody(rng, id * 7, 100.0));
  ASSERT_TRUE(world.AddBodies(defs).ok());
  const std::vector<uint8_t> image = world.Snapshot();
  World restored;
  ASSERT_TRUE(World::Restore(image, &restored).ok());
  EXPECT_EQ(restored.StateHash(), world.StateHash());
  EXPECT_EQ(restored.def().tick_hz, 30);
  for (int q = 0; q < 300; ++q) {
    const RayCastInput ray{Vd(rng.Uniform(-120, 120), rng.Uniform(-120, 120)), Vd(rng.Uniform(-200, 200), rng.Uniform(-200, 200)), kFixedOne};
    ASSERT_EQ(restored.CastRayAll(ray), world.CastRayAll(ray));
  }
}

// Static bodies keep no motion record unless their damping or gravity
// scale differ from the defaults; either way GetBodyDef, the snapshot and
// the hash carry what was defined, and a removed body's record is reused.
TEST(World, BodyMotion_KeptWhereDefinedAndReused) {
  World world(WorldDef{Vd(0, -10), 60, 1000});
  BodyDef plain = Disk(1, 0, 0, 1);
  BodyDef damped = Disk(2, 5, 0, 1);
  damped.linear_damping = Fd(0.5);
  damped.angular_damping = Fd(0.25);
  damped.gravity_scale = Fd(2);
  BodyDef mover = Disk(3, 0, 5, 1, BodyType::kDynamic);
  mover.linear_velocity = Vd(1, 2);
  ASSERT_TRUE(world.AddBodies(std::vector<BodyDef>{plain, damped, mover}).ok());
  const std::optional<BodyDef> got = world.GetBodyDef(2);
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->linear_damping, Fd(0.5));
  EXPECT_EQ(got->angular_damping, Fd(0.25));
  EXPECT_EQ(got->gravity_scale, Fd(2));
  EXPECT_EQ(world.GetBodyDef(1)->gravity_scale, kFixedOne);
  EXPECT_EQ(world.FindBody(3)->linear_velocity, Vd(1, 2));
  World restored;
  ASSERT_TRUE(World::Restore(world.Snapshot(), &restored).ok());
  EXPECT_EQ(restored.Snapshot(), world.Snapshot());
  const uint64_t removed[] = {3};
  ASSERT_TRUE(world.RemoveBodies(removed).ok());
  BodyDef next = Disk(4, 0, 9, 1, BodyType::kKinematic);
  next.linear_velocity = Vd(-1, 0);
  ASSERT_TRUE(world.AddBody(next).ok());
  EXPECT_EQ(world.FindBody(4)->linear_velocity, Vd(-1, 0));
  EXPECT_EQ(world.GetBodyDef(2)->gravity_scale, Fd(2));
}

// The box and capsule of StaticLocalPoints_SameDefinitionAfterMoves, as
// GetBodyDef returns them (vertices, centres, radii).
void ExpectBoxAndCapsule(const BodyDef& got, const Polygon& box, const Capsule& capsule) {
  ASSERT_EQ(got.shapes.size(), 2u);
  EXPECT_EQ(got.shapes[0].shape.polygon.count, box.count);
  EXPECT_EQ(got.shapes[0].shape.polygon.vertices, box.vertices);
  EXPECT_EQ(got.shapes[1].shape.capsule.center1, capsule.center1);
  EXPECT_EQ(got.shapes[1].shape.capsule.center2, capsule.center2);
  EXPECT_EQ(got.shapes[1].shape.capsule.radius, capsule.radius);
}

// An unrotated static body derives its shapes' local points from the world
// points; moving it stores them first, so its definition never changes.
TEST(World, StaticLocalPoints_SameDefinitionAfterMoves) {
  World world(WorldDef{Vd(0, -10), 60, 1000});
  Polygon box;
  ASSERT_EQ(MakeBox(Fd(0.75), Fd(0.5), &box), ShapeError::kOk);
  const Capsule capsule{Vd(-1, 0.5), Vd(2, 1), Fd(0.25)};
  BodyDef plain;
  plain.id = 1;
  plain.transform.p = Vd(3.25, -7.5);
  ShapeDef sd;
  sd.shape = Shape::FromPolygon(box);
  plain.shapes.push_back(sd);
  sd.shape = Shape::FromCapsule(capsule);
  plain.shapes.push_back(sd);
  BodyDef turned = plain;
  turned.id = 2;
  turned.transform.q = MakeRot(Fd(0.5));
  ASSERT_TRUE(world.AddBodies(std::vector<BodyDef>{plain, turned}).ok());
  ExpectBoxAndCapsule(*world.GetBodyDef(1), box, capsule);
  ExpectBoxAndCapsule(*world.GetBodyDef(2), box, capsule);
  World restored;
  ASSERT_TRUE(World::Restore(world.Snapshot(), &restored).ok());
  EXPECT_EQ(restored.Snapshot(), world.Snapshot());
  ASSERT_TRUE(world.SetBodyTransform(1, Transform{Vd(-5, 2), MakeRot(Fd(1.25))}).ok());
  ASSERT_TRUE(world.SetBodyTransform(1, Transform{Vd(4, 4), kRotIdentity}).ok());
  ExpectBoxAndCapsule(*world.GetBodyDef(1), box, capsule);
}

TEST(World, Restore_RejectsDamagedImagesAndLeavesTargetUnchanged) {
  World world;
  ASSERT_TRUE(world.AddBody(Disk(1, 0, 0, 1)).ok());
  std::vector<uint8_t> image = world.Snapshot();
  World target;
  ASSERT_TRUE(target.AddBody(Disk(99, 5, 5, 2)).ok());
  const uint64_t target_hash = target.StateHash();

  std::vector<uint8_t> flipped = image;
  flipped[20] ^= 1;
  EXPECT_EQ(World::Restore(flipped, &target).message(), "snapshot: checksum mismatch (truncated or damaged)");
  std::vector<uint8_t> truncated(image.begin(), image.end() - 9);
  EXPECT_EQ(World::Restore(truncated, &target).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(World::Restore(std::vector<uint8_t>(3, 0), &target).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(target.StateHash(), target_hash);
}

// Pins the canonical format: a change here is a deliberate, noted format change.
TEST(World, StateHash_GoldenValueForAFixedWorld) {
  World world(WorldDef{Vd(0, -10), 60, 100});
  Polygon box;
  ASSERT_EQ(MakeBox(Fd(1), Fd(0.5), &box), ShapeError::kOk);
  BodyDef b = Disk(2, 1.5, -2.25, 0.75, BodyType::kDynamic);
  b.linear_velocity = Vd(3, 0);
  BodyDef a;
  a.id = 1;
  a.transform = {Vd(0, 0), kRotIdentity};
  a.shapes.push_back(ShapeDef{});
  a.shapes[0].shape = Shape::FromPolygon(box);
  a.shapes[0].user_tag = 77;
  ASSERT_TRUE(world.AddBodies(std::vector<BodyDef>{b, a}).ok());
  const uint64_t hash = world.StateHash();
  RecordProperty("state_hash", std::to_string(hash));
  // Header 48 bytes, 94 per body, 63 + 16 per point per shape, two empty
  // lists (contacts, sensor overlaps) of 8 bytes each, 8 of checksum.
  EXPECT_EQ(world.Snapshot().size(), 48u + 2 * 94 + (63 + 16 * 1) + (63 + 16 * 4) + 16 + 8);
  EXPECT_EQ(hash, 0xdc5e18cd30970c12ull) << std::hex << "state hash is 0x" << hash;
}

}  // namespace
}  // namespace arbiter
