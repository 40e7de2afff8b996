// Overlap with contacts and Distance over the wire, against a real server on
// a loopback port: pinned answers live and at a past tick, the core's own
// answers bit for bit, errors that name the field, and --journal_queries
// records that replay verify re-checks (a doctored depth or distance is
// flagged: journal_test.cc).
#include "test_support.h"

#include "arbiter/core/world.h"

namespace arbiter::testing {
namespace {

using absl::StatusCode;

constexpr int64_t kOne = int64_t{1} << 32;

// The runner's 60 units/s times the tick (1/60, rounded to Q32.32) is one
// unit to within a few raw units a tick, so its positions are checked to
// 2^-20 units.
MATCHER_P(RawNear, want, "within 2^-20 units of " + std::to_string(want)) {
  const int64_t d = arg - want;
  return d >= -4096 && d <= 4096;
}

// At 60 Hz. Body 7: a static box, half extents (2, 1), at the origin.
// Body 8: a kinematic disk of radius 1 starting at (10, 0) and moving +x at
// 60 units/s (one unit per tick), so at tick t its centre is at 10 + t.
v1::CreateWorldRequest Arena(const std::string& id) {
  v1::CreateWorldRequest create;
  create.set_world_id(id);
  create.set_tick_hz(60);
  create.set_history_ticks(120);
  *create.add_bodies() = client::MakeBody(7, v1::BODY_TYPE_STATIC, 0, 0, client::MakeBox(2, 1));
  v1::BodyDef runner = client::MakeBody(8, v1::BODY_TYPE_KINEMATIC, 10, 0, client::MakeCircle(1));
  *runner.mutable_linear_velocity() = client::MakeVec2(60, 0);
  *create.add_bodies() = runner;
  return create;
}

void StepTo30(client::ArbiterClient& client, const std::string& id) {
  v1::StepRequest step;
  step.set_world_id(id);
  step.set_ticks(30);
  step.set_omit_events(true);
  ASSERT_THAT(client.Step(step), IsOk());
}

v1::DistanceQuery Near(double x, double y, double radius, double max_distance, uint32_t max_results) {
  v1::DistanceQuery q;
  *q.mutable_shape()->mutable_shape() = client::MakeCircle(radius);
  *q.mutable_shape()->mutable_transform() = client::MakeTransform(x, y);
  q.set_max_distance(Fixed::FromDouble(max_distance).raw());
  q.set_max_results(max_results);
  return q;
}

class ContactsServiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_THAT(server_.client().CreateWorld(Arena("contacts")), IsOk());
    StepTo30(server_.client(), "contacts");
  }
  LiveServer server_;
};

TEST_F(ContactsServiceTest, OverlapWithContacts_DepthNormalAndPoint) {
  absl::StatusOr<v1::OverlapResult> r = server_.client().OverlapContacts(
      "contacts", client::MakeShapeQuery(client::MakeCircle(1), client::MakeTransform(0, 1.5)));
  ASSERT_THAT(r, IsOk());
  ASSERT_EQ(r->shapes_size(), 1);
  ASSERT_EQ(r->contacts_size(), 1);
  EXPECT_EQ(r->shapes(0).body_id(), 7u);
  const v1::OverlapContact& c = r->contacts(0);
  EXPECT_EQ(c.normal().x(), 0);
  EXPECT_EQ(c.normal().y(), -kOne);  // from the query disk down into the box
  EXPECT_EQ(c.depth(), kOne / 2);
  ASSERT_EQ(c.points_size(), 1);
  EXPECT_EQ(c.points(0).y(), kOne * 3 / 4);
  // Without want_contacts the same overlap has no contacts.
  absl::StatusOr<v1::OverlapResult> plain = server_.client().OverlapOne(
      "contacts", client::MakeShapeQuery(client::MakeCircle(1), client::MakeTransform(0, 1.5)));
  ASSERT_THAT(plain, IsOk());
  EXPECT_EQ(plain->shapes_size(), 1);
  EXPECT_EQ(plain->contacts_size(), 0);
}

TEST_F(ContactsServiceTest, AtAPastTick_TheRunnerIsWhereItWas) {
  // At tick 5 the runner's centre was at x = 15: overlapping a disk at x = 16.
  const v1::OverlapQuery q = client::MakeShapeQuery(client::MakeCircle(1), client::MakeTransform(16, 0));
  absl::StatusOr<v1::OverlapResult> past = server_.client().OverlapContacts("contacts", q, *client::MakePastTick(5));
  ASSERT_THAT(past, IsOk());
  ASSERT_EQ(past->contacts_size(), 1);
  EXPECT_EQ(past->shapes(0).body_id(), 8u);
  EXPECT_EQ(past->contacts(0).normal().x(), -kOne);
  EXPECT_THAT(past->contacts(0).depth(), RawNear(kOne));
  absl::StatusOr<v1::OverlapResult> live = server_.client().OverlapContacts("contacts", q);
  ASSERT_THAT(live, IsOk());
  EXPECT_EQ(live->shapes_size(), 0);

  // Distance from a disk at x = 18: the runner 1 away at tick 5, 20 away now.
  absl::StatusOr<v1::DistanceResult> then = server_.client().DistanceOne("contacts", Near(18, 0, 1, 5, 4), *client::MakePastTick(5));
  ASSERT_THAT(then, IsOk());
  ASSERT_EQ(then->hits_size(), 1);
  EXPECT_EQ(then->hits(0).body_id(), 8u);
  EXPECT_THAT(then->hits(0).distance(), RawNear(kOne));
  EXPECT_EQ(then->hits(0).point_query().x(), 17 * kOne);
  EXPECT_THAT(then->hits(0).point_body().x(), RawNear(16 * kOne));
  EXPECT_EQ(then->hits(0).normal().x(), -kOne);
  absl::StatusOr<v1::DistanceResult> now = server_.client().DistanceOne("contacts", Near(18, 0, 1, 30, 4));
  ASSERT_THAT(now, IsOk());
  ASSERT_EQ(now->hits_size(), 2);
  EXPECT_EQ(now->hits(0).body_id(), 7u);  // the box's face at x = 2: 15 away
  EXPECT_EQ(now->hits(0).distance(), 15 * kOne);
  EXPECT_EQ(now->hits(1).body_id(), 8u);  // the runner at x = 40: 20 away
  EXPECT_THAT(now->hits(1).distance(), RawNear(20 * kOne));
}

TEST_F(ContactsServiceTest, AnswersAreTheCoresBitForBit) {
  // The same world built in-process, stepped alike, queried alike.
  World world(WorldDef{{}, 60, 1000});
  BodyDef box;
  box.id = 7;
  box.shapes.push_back(ShapeDef{});
  Polygon p;
  ASSERT_EQ(MakeBox(Fixed::FromInt(2), Fixed::FromInt(1), &p), ShapeError::kOk);
  box.shapes[0].shape = Shape::FromPolygon(p);
  BodyDef runner;
  runner.id = 8;
  runner.type = BodyType::kKinematic;
  runner.transform.p = {Fixed::FromInt(10), kFixedZero};
  runner.linear_velocity = {Fixed::FromInt(60), kFixedZero};
  runner.shapes.push_back(ShapeDef{});
  runner.shapes[0].shape = Shape::FromCircle({{}, Fixed::FromInt(1)});
  ASSERT_TRUE(world.AddBodies(std::vector<BodyDef>{box, runner}).ok());
  for (int i = 0; i < 30; ++i) world.Step();
  for (int k = 0; k < 20; ++k) {
    const double x = -4 + 2.3 * k, y = 0.37 * (k % 5) - 0.7;
    const Shape disk = Shape::FromCircle({{}, Fixed::FromDouble(1.25)});
    const Transform at{{Fixed::FromDouble(x), Fixed::FromDouble(y)}, kRotIdentity};
    const std::vector<DistanceHit> want = world.Distance(disk, at, Fixed::FromInt(50), 4);
    absl::StatusOr<v1::DistanceResult> got = server_.client().DistanceOne("contacts", Near(x, y, 1.25, 50, 4));
    ASSERT_THAT(got, IsOk());
    ASSERT_EQ(got->hits_size(), static_cast<int>(want.size()));
    for (size_t i = 0; i < want.size(); ++i) {
      const v1::DistanceHit& h = got->hits(static_cast<int>(i));
      EXPECT_EQ(h.body_id(), want[i].shape.body_id);
      EXPECT_EQ(h.distance(), want[i].distance.raw());
      EXPECT_EQ(h.point_query().x(), want[i].point_query.x.raw());
      EXPECT_EQ(h.point_body().y(), want[i].point_body.y.raw());
      EXPECT_EQ(h.normal().x(), want[i].normal.x.raw());
      EXPECT_EQ(h.depth(), want[i].depth.raw());
    }
    const std::vector<OverlapContact> contacts = world.OverlapShapeContacts(disk, at);
    absl::StatusOr<v1::OverlapResult> over = server_.client().OverlapContacts(
        "contacts", client::MakeShapeQuery(client::MakeCircle(1.25), client::MakeTransform(x, y)));
    ASSERT_THAT(over, IsOk());
    ASSERT_EQ(over->contacts_size(), static_cast<int>(contacts.size()));
    for (size_t i = 0; i < contacts.size(); ++i) {
      EXPECT_EQ(over->contacts(static_cast<int>(i)).depth(), contacts[i].depth.raw());
      EXPECT_EQ(over->contacts(static_cast<int>(i)).normal().y(), contacts[i].normal.y.raw());
    }
  }
}

TEST_F(ContactsServiceTest, Errors_NameTheField) {
  v1::OverlapRequest overlap;
  overlap.set_world_id("contacts");
  overlap.set_want_contacts(true);
  *overlap.add_queries() = client::MakeShapeQuery(client::MakeCircle(1), client::MakeTransform(0, 0));
  *overlap.add_queries() = client::MakePointQuery(0, 0);
  EXPECT_THAT(server_.client().Overlap(overlap), StatusIs(StatusCode::kInvalidArgument, "queries[1]: want_contacts needs a shape query"));

  auto distance = [&](const v1::DistanceQuery& q) {
    v1::DistanceRequest r;
    r.set_world_id("contacts");
    *r.add_queries() = Near(0, 0, 1, 1, 1);
    *r.add_queries() = q;
    return server_.client().Distance(r);
  };
  EXPECT_THAT(distance(Near(0, 0, 1, -1, 1)), StatusIs(StatusCode::kOutOfRange, "queries[1].max_distance: must be in [0, 2^30] units"));
  EXPECT_THAT(distance(Near(0, 0, 1, 1, 257)), StatusIs(StatusCode::kOutOfRange, "queries[1].max_results: must be in 0..256"));
  EXPECT_THAT(distance(Near(1e12, 0, 1, 1, 1)), StatusIs(StatusCode::kOutOfRange, "queries[1].shape.transform"));
  v1::DistanceQuery shapeless = Near(0, 0, 1, 1, 1);
  shapeless.mutable_shape()->clear_shape();
  EXPECT_THAT(distance(shapeless), StatusIs(StatusCode::kInvalidArgument, "queries[1].shape.shape: required"));
  v1::DistanceRequest none;
  none.set_world_id("contacts");
  EXPECT_THAT(server_.client().Distance(none), StatusIs(StatusCode::kInvalidArgument, "queries"));
  v1::DistanceRequest elsewhere;
  elsewhere.set_world_id("nowhere");
  *elsewhere.add_queries() = Near(0, 0, 1, 1, 1);
  EXPECT_THAT(server_.client().Distance(elsewhere), StatusIs(StatusCode::kNotFound, "nowhere"));
  // max_results 0 means the nearest one.
  absl::StatusOr<v1::DistanceResult> one = server_.client().DistanceOne("contacts", Near(18, 0, 1, 100, 0));
  ASSERT_THAT(one, IsOk());
  EXPECT_EQ(one->hits_size(), 1);
}

}  // namespace
}  // namespace arbiter::testing
