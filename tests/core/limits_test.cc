// Issue 13, items 3 and 4: every state a step reaches passes every check
// the entry points make (limits.h), and every entry point makes the same
// checks: Restore's contact and sensor lists, a body's summed mass, and a
// world's gravity and tick rate.
#include <gtest/gtest.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <cstring>
#include <string>
#include <vector>

#include "arbiter/core/fixed_math.h"
#include "arbiter/core/limits.h"
#include "arbiter/core/world.h"
#include "testing/numbers.h"
#include "testing/world_builders.h"

namespace arbiter {
namespace {

using testing::Fi;
using testing::Vi;

using testing::BoxBody;
using testing::DiskBody;

BodyDef Disk(uint64_t id, BodyType type, Vec2 p, int64_t radius) {
  return DiskBody(id, type, p, static_cast<double>(radius));
}
BodyDef Box(uint64_t id, BodyType type, Vec2 p, int64_t hx, int64_t hy, Rot q = kRotIdentity) {
  return BoxBody(id, type, p, static_cast<double>(hx), static_cast<double>(hy), q);
}

// Everything an entry point would refuse about the world as it stands:
// its snapshot restores, and every movable body's pose and velocity can
// be written back through the setters (what a rolled-back batch does).
void ExpectEveryEntryPointAccepts(World& world, int tick) {
  World restored;
  const Status restore = World::Restore(world.Snapshot(), &restored);
  ASSERT_TRUE(restore.ok()) << "tick " << tick << ": " << restore.message();
  for (uint64_t id : world.BodyIds()) {
    const BodyView b = *world.FindBody(id);
    if (b.type == BodyType::kStatic) continue;
    EXPECT_TRUE(WithinMagnitude(b.linear_velocity.x, kMaxLinearSpeed)) << "tick " << tick << " body " << id;
    EXPECT_TRUE(WithinMagnitude(b.linear_velocity.y, kMaxLinearSpeed)) << "tick " << tick << " body " << id;
    EXPECT_TRUE(WithinMagnitude(b.angular_velocity, kMaxAngularSpeed)) << "tick " << tick << " body " << id;
    const Status velocity = world.SetBodyVelocity(id, b.linear_velocity, b.angular_velocity);
    EXPECT_TRUE(velocity.ok()) << "tick " << tick << ": " << velocity.message();
    const Status transform = world.SetBodyTransform(id, b.transform);
    EXPECT_TRUE(transform.ok()) << "tick " << tick << ": " << transform.message();
  }
}

// The reproduction: restitution at the allowed maximum turns an
// approach of 1000 units/s into a rebound of 6.5e7 units/s, beyond the
// 2^24 every entry point accepts. The step clamps it to the limit.
TEST(StepLimits, BounceAtMaximumRestitution_StaysWithinTheSpeedLimit) {
  World world(WorldDef{Vi(0, -10), 60, 100});
  ASSERT_TRUE(world.AddBody(Box(1, BodyType::kStatic, Vi(0, -1), 50, 1)).ok());
  BodyDef ball = Disk(2, BodyType::kDynamic, Vi(0, 10), 1);
  ball.linear_velocity = Vi(0, -1000);
  ball.shapes[0].restitution = kMaxMaterial;
  ASSERT_TRUE(world.AddBody(ball).ok());
  bool reached_limit = false;
  for (int tick = 0; tick < 20; ++tick) {
    world.Step();
    ExpectEveryEntryPointAccepts(world, tick);
    if (world.FindBody(2)->linear_velocity.y == kMaxLinearSpeed) reached_limit = true;
  }
  EXPECT_TRUE(reached_limit) << "the bounce should have been clamped to the limit";
}

// An off-centre impact at maximum restitution spins a box far past
// 2^16 rad/s unless the step clamps the angular velocity too.
TEST(StepLimits, CornerImpactAtMaximumRestitution_StaysWithinTheSpinLimit) {
  World world(WorldDef{Vi(0, -10), 60, 100});
  ASSERT_TRUE(world.AddBody(Box(1, BodyType::kStatic, Vi(0, -1), 50, 1)).ok());
  BodyDef box = Box(2, BodyType::kDynamic, Vi(0, 5), 1, 1, MakeRot(Fixed::FromRatio(1, 3)));
  box.linear_velocity = Vi(0, -2000);
  box.shapes[0].restitution = kMaxMaterial;
  ASSERT_TRUE(world.AddBody(box).ok());
  Fixed fastest_spin;
  for (int tick = 0; tick < 20; ++tick) {
    world.Step();
    ExpectEveryEntryPointAccepts(world, tick);
    fastest_spin = Max(fastest_spin, Abs(world.FindBody(2)->angular_velocity));
  }
  EXPECT_EQ(fastest_spin, kMaxAngularSpeed) << "the impact should have been clamped to the spin limit";
}

// A body pushed against the edge of the world stops there with its origin
// inside the range Restore accepts, shapes offset from the origin included.
TEST(StepLimits, BodyAtTheWorldEdge_StaysRestorable) {
  World world(WorldDef{Vi(0, 0), 60, 100});
  BodyDef body = Disk(1, BodyType::kDynamic, Vi(kMaxWorldCoordinate - (int64_t{1} << 25), 0), 1);
  body.shapes[0].shape = Shape::FromCircle({Vi(-1000, 0), Fi(1)});
  body.linear_velocity = {kMaxLinearSpeed, kFixedZero};
  ASSERT_TRUE(world.AddBody(body).ok());
  for (int tick = 0; tick < 5; ++tick) {
    world.Step();
    ExpectEveryEntryPointAccepts(world, tick);
  }
}

// ---- Restore: contact and sensor lists are checked like any other input ----

// A world whose snapshot ends with empty contact and sensor lists: bodies
// 1 (static), 2 and 3 (dynamic; 3 has a sensor as shape 1) and 4 (static),
// far apart.
World ListsWorld() {
  World world;
  EXPECT_TRUE(world.AddBody(Disk(1, BodyType::kStatic, Vi(0, 0), 1)).ok());
  EXPECT_TRUE(world.AddBody(Disk(2, BodyType::kDynamic, Vi(100, 0), 1)).ok());
  BodyDef with_sensor = Disk(3, BodyType::kDynamic, Vi(200, 0), 1);
  with_sensor.shapes.push_back(with_sensor.shapes[0]);
  with_sensor.shapes[1].is_sensor = true;
  EXPECT_TRUE(world.AddBody(with_sensor).ok());
  EXPECT_TRUE(world.AddBody(Disk(4, BodyType::kStatic, Vi(300, 0), 1)).ok());
  return world;
}

// Little-endian, as every snapshot integer.
void PutLE(std::vector<uint8_t>* out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out->push_back(static_cast<uint8_t>(v >> (8 * i)));
}
void PutU64(std::vector<uint8_t>* out, uint64_t v) { PutLE(out, v, 8); }
void PutU32(std::vector<uint8_t>* out, uint32_t v) { PutLE(out, v, 4); }
void PutRef(std::vector<uint8_t>* out, uint64_t body, uint32_t shape) {
  PutU64(out, body);
  PutU32(out, shape);
}

struct RawContact {
  uint64_t a_body;
  uint32_t a_shape;
  uint64_t b_body;
  uint32_t b_shape;
  std::vector<uint32_t> ids;  // one entry per point
  int64_t normal_impulse = 0;
};

struct RawSensor {
  uint64_t sensor_body;
  uint32_t sensor_shape;
  uint64_t visitor_body;
  uint32_t visitor_shape;
};

// Appends the xxh64 trailer Restore checks first, so that the image gets
// past the checksum to the checks under test.
std::vector<uint8_t> Signed(std::vector<uint8_t> body) {
  PutU64(&body, XXH64(body.data(), body.size(), 0));
  return body;
}

// ListsWorld's snapshot with its (empty) lists replaced (layout in snapshot.cc).
std::vector<uint8_t> WithLists(const std::vector<RawContact>& contacts, const std::vector<RawSensor>& sensors) {
  std::vector<uint8_t> image = ListsWorld().Snapshot();
  image.resize(image.size() - 8 - 8 - 8);  // checksum, sensor count, contact count
  PutU64(&image, contacts.size());
  for (const RawContact& c : contacts) {
    PutRef(&image, c.a_body, c.a_shape);
    PutRef(&image, c.b_body, c.b_shape);
    image.push_back(static_cast<uint8_t>(c.ids.size()));
    for (uint32_t id : c.ids) {
      PutU32(&image, id);
      PutU64(&image, static_cast<uint64_t>(c.normal_impulse));
      PutU64(&image, 0);
    }
  }
  PutU64(&image, sensors.size());
  for (const RawSensor& s : sensors) {
    PutRef(&image, s.sensor_body, s.sensor_shape);
    PutRef(&image, s.visitor_body, s.visitor_shape);
  }
  return Signed(std::move(image));
}

// Restores into a non-empty world and checks that a rejection names the
// reason and leaves that world as it was.
Status RestoreInto(const std::vector<uint8_t>& image) {
  World target;
  EXPECT_TRUE(target.AddBody(Disk(99, BodyType::kDynamic, Vi(5, 5), 2)).ok());
  const uint64_t before = target.StateHash();
  const Status s = World::Restore(image, &target);
  if (!s.ok()) EXPECT_EQ(target.StateHash(), before) << "a rejected image changed the target";
  return s;
}

TEST(RestoreLists, WellFormedListsRestore_AndRoundTrip) {
  const std::vector<uint8_t> image = WithLists({{1, 0, 2, 0, {7}, 5}, {2, 0, 3, 0, {1, 2}, 0}}, {{3, 1, 2, 0}});
  World restored;
  const Status s = World::Restore(image, &restored);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(restored.Snapshot(), image);
}

TEST(RestoreLists, ContactsOutOfOrder_Rejected) {
  const Status s = RestoreInto(WithLists({{2, 0, 3, 0, {1}}, {1, 0, 2, 0, {1}}}, {}));
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "snapshot: contacts[1]: not in strictly ascending (a, b) order");
}

TEST(RestoreLists, DuplicateContact_Rejected) {
  EXPECT_EQ(RestoreInto(WithLists({{1, 0, 2, 0, {1}}, {1, 0, 2, 0, {1}}}, {})).message(),
            "snapshot: contacts[1]: not in strictly ascending (a, b) order");
}

TEST(RestoreLists, ContactShapesReversed_Rejected) {
  EXPECT_EQ(RestoreInto(WithLists({{2, 0, 1, 0, {1}}}, {})).message(),
            "snapshot: contacts[0]: shape a (2, 0) must precede shape b (1, 0)");
}

TEST(RestoreLists, ContactWithUnknownShapeOrBody_Rejected) {
  EXPECT_EQ(RestoreInto(WithLists({{1, 0, 2, 5, {1}}}, {})).message(), "snapshot: contacts[0].b: no shape (2, 5)");
  EXPECT_EQ(RestoreInto(WithLists({{1, 0, 9, 0, {1}}}, {})).message(), "snapshot: contacts[0].b: no shape (9, 0)");
  EXPECT_EQ(RestoreInto(WithLists({{0, 0, 2, 0, {1}}}, {})).message(), "snapshot: contacts[0].a: no shape (0, 0)");
}

TEST(RestoreLists, ContactWithoutPoints_Rejected) {
  EXPECT_EQ(RestoreInto(WithLists({{1, 0, 2, 0, {}}}, {})).message(), "snapshot: contacts[0]: a contact has 1 or 2 points");
}

TEST(RestoreLists, ContactOfImpossiblePairs_Rejected) {
  EXPECT_EQ(RestoreInto(WithLists({{3, 0, 3, 1, {1}}}, {})).message(), "snapshot: contacts[0]: both shapes are on body 3");
  EXPECT_EQ(RestoreInto(WithLists({{2, 0, 3, 1, {1}}}, {})).message(),
            "snapshot: contacts[0]: a sensor shape cannot be in contact");
  EXPECT_EQ(RestoreInto(WithLists({{1, 0, 4, 0, {1}}}, {})).message(), "snapshot: contacts[0]: neither body is dynamic");
}

TEST(RestoreLists, ContactPointValuesOutOfRange_Rejected) {
  EXPECT_EQ(RestoreInto(WithLists({{1, 0, 2, 0, {1}, -1}}, {})).message(),
            "snapshot: contacts[0].points[0].normal_impulse: negative");
  EXPECT_EQ(RestoreInto(WithLists({{1, 0, 2, 0, {0x10000}}}, {})).message(),
            "snapshot: contact point with a feature id beyond 16 bits");
}

TEST(RestoreLists, SensorOverlapsOutOfOrderOrImpossible_Rejected) {
  EXPECT_EQ(RestoreInto(WithLists({}, {{3, 1, 2, 0}, {3, 1, 1, 0}})).message(),
            "snapshot: sensor_overlaps[1]: not in strictly ascending (sensor, visitor) order");
  EXPECT_EQ(RestoreInto(WithLists({}, {{3, 7, 2, 0}})).message(), "snapshot: sensor_overlaps[0].sensor: no shape (3, 7)");
  EXPECT_EQ(RestoreInto(WithLists({}, {{3, 1, 8, 0}})).message(), "snapshot: sensor_overlaps[0].visitor: no shape (8, 0)");
  EXPECT_EQ(RestoreInto(WithLists({}, {{2, 0, 1, 0}})).message(),
            "snapshot: sensor_overlaps[0].sensor: shape (2, 0) is not a sensor");
  EXPECT_EQ(RestoreInto(WithLists({}, {{3, 1, 3, 1}})).message(),
            "snapshot: sensor_overlaps[0].visitor: shape (3, 1) is a sensor");
  EXPECT_EQ(RestoreInto(WithLists({}, {{3, 1, 3, 0}})).message(), "snapshot: sensor_overlaps[0]: both shapes are on body 3");
}

// ---- The world header: one validation of gravity and tick rate --------------

// ListsWorld's snapshot with the header field at `offset` (layout in
// snapshot.cc: magic, version, gravity x/y at 8/16, tick_hz at 24,
// max_bodies at 28, tick at 32) overwritten.
std::vector<uint8_t> WithHeaderField(size_t offset, int64_t value, size_t bytes) {
  std::vector<uint8_t> image = ListsWorld().Snapshot();
  image.resize(image.size() - 8);
  for (size_t i = 0; i < bytes; ++i) image[offset + i] = static_cast<uint8_t>(static_cast<uint64_t>(value) >> (8 * i));
  return Signed(std::move(image));
}

TEST(RestoreHeader, GravityBeyondTheLimit_Rejected) {
  const int64_t at_limit = kMaxGravity.raw(), beyond = kMaxGravity.raw() + 1;
  World restored;
  EXPECT_TRUE(World::Restore(WithHeaderField(8, -at_limit, 8), &restored).ok());
  EXPECT_EQ(RestoreInto(WithHeaderField(8, beyond, 8)).message(), "snapshot: gravity: beyond +-2^24 units/s^2");
  EXPECT_EQ(RestoreInto(WithHeaderField(16, -beyond, 8)).message(), "snapshot: gravity: beyond +-2^24 units/s^2");
}

TEST(RestoreHeader, TickRateOrTickOutOfRange_Rejected) {
  EXPECT_EQ(RestoreInto(WithHeaderField(24, 0, 4)).message(), "snapshot: tick_hz: must be in 1..10000");
  EXPECT_EQ(RestoreInto(WithHeaderField(24, 10001, 4)).message(), "snapshot: tick_hz: must be in 1..10000");
  EXPECT_EQ(RestoreInto(WithHeaderField(32, -1, 8)).message(), "snapshot: tick: negative");
}

TEST(WorldDefValidation, OneCheckForEveryEntryPoint) {
  EXPECT_TRUE(ValidateWorldDef(WorldDef{}).ok());
  EXPECT_TRUE(ValidateWorldDef(WorldDef{{kMaxGravity, -kMaxGravity}, kMaxTickHz, 1}).ok());
  const Status gravity = ValidateWorldDef(WorldDef{{kFixedZero, kMaxGravity + Fixed::FromRaw(1)}, 60, 1});
  EXPECT_EQ(gravity.code(), StatusCode::kOutOfRange);
  EXPECT_EQ(gravity.message(), "gravity: beyond +-2^24 units/s^2");
  EXPECT_EQ(ValidateWorldDef(WorldDef{{}, 0, 1}).message(), "tick_hz: must be in 1..10000");

  World world;
  ASSERT_TRUE(world.AddBody(Disk(1, BodyType::kStatic, Vi(0, 0), 1)).ok());
  const uint64_t before = world.StateHash();
  EXPECT_EQ(World::Create(WorldDef{{Fi(int64_t{1} << 25), kFixedZero}, 60, 1}, &world).code(), StatusCode::kOutOfRange);
  EXPECT_EQ(world.StateHash(), before) << "a rejected definition changed the world";
  ASSERT_TRUE(World::Create(WorldDef{{kFixedZero, Fi(-10)}, 120, 5}, &world).ok());
  EXPECT_EQ(world.def().tick_hz, 120);
  EXPECT_EQ(world.body_count(), 0u);
}

// ---- Mass: sums of checked per-shape values are checked too -------------------

// 64 disks, each with a mass and inertia that fit Q32.32 (inertia 2^29.9)
// while their sum does not. (The total mass cannot overflow: a shape whose
// inertia fits has a mass below about 2^24.8, so 64 stay below 2^31; it is
// checked all the same.)
TEST(BodyMass, TotalInertiaBeyondQ32_Rejected) {
  BodyDef heavy = Disk(1, BodyType::kDynamic, Vi(0, 0), 10);
  heavy.shapes[0].density = kMaxMaterial;
  const ShapeDef one = heavy.shapes[0];
  heavy.shapes.resize(kMaxShapesPerBody, one);
  World world;
  const Status s = world.AddBody(heavy);
  EXPECT_EQ(s.code(), StatusCode::kOutOfRange);
  EXPECT_EQ(s.message(),
            "bodies[0].shapes: the body's total mass or its inertia about the body origin is too large for Q32.32 "
            "(fewer, lighter shapes, or shapes nearer the origin)");
  EXPECT_EQ(world.body_count(), 0u);
  heavy.shapes.resize(2);
  EXPECT_TRUE(world.AddBody(heavy).ok()) << "two such shapes fit";
}

// One light shape far from its body's origin: its own inertia fits, but the
// parallel-axis term m |c|^2 about the origin does not (it used to saturate
// and give the body a wrong inertia silently).
TEST(BodyMass, ShapeFarFromTheOrigin_Rejected) {
  BodyDef far = Disk(1, BodyType::kDynamic, Vi(0, 0), 1);
  far.shapes[0].shape = Shape::FromCircle({Vi(100000, 0), Fi(1)});
  World world;
  EXPECT_EQ(world.AddBody(far).code(), StatusCode::kOutOfRange);
  far.shapes[0].shape = Shape::FromCircle({Vi(100, 0), Fi(1)});
  EXPECT_TRUE(world.AddBody(far).ok());
}

}  // namespace
}  // namespace arbiter
