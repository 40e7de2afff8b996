// Lag compensation over the wire: queries at past ticks (and between
// ticks), hit validation and lockstep hash reports, against a real server
// on a loopback port.
#include <google/protobuf/util/message_differencer.h>

#include "match_script.h"
#include "test_support.h"

namespace arbiter::testing {
namespace {

using google::protobuf::util::MessageDifferencer;

v1::Vec2 W(double x, double y) {
  v1::Vec2 v;
  v.set_x(Fixed::FromDouble(x).raw());
  v.set_y(Fixed::FromDouble(y).raw());
  return v;
}

// A fixed set of every query kind, asked live at each tick and again later.
struct Queries {
  v1::CastRaysRequest rays;
  v1::OverlapRequest overlap;
  v1::CastShapesRequest casts;
};

Queries MakeQueries(const std::string& world) {
  Queries q;
  q.rays.set_world_id(world);
  q.rays.set_mode(v1::CAST_MODE_ALL);
  for (int i = 0; i < 24; ++i) {
    v1::Ray* ray = q.rays.add_rays();
    *ray->mutable_origin() = W(-55 + 4.5 * i, 30);
    *ray->mutable_translation() = W(7 - i * 0.5, -40);
  }
  q.overlap.set_world_id(world);
  for (int i = 0; i < 12; ++i) {
    v1::Aabb* box = q.overlap.add_queries()->mutable_aabb();
    *box->mutable_lower() = W(-50 + 8 * i, 0);
    *box->mutable_upper() = W(-44 + 8 * i, 12);
  }
  q.casts.set_world_id(world);
  q.casts.set_mode(v1::CAST_MODE_CLOSEST);
  for (int i = 0; i < 12; ++i) {
    v1::ShapeCast* c = q.casts.add_casts();
    c->mutable_shape()->mutable_circle()->set_radius(Fixed::FromDouble(0.75).raw());
    *c->mutable_transform()->mutable_position() = W(-50 + 9 * i, 25);
    *c->mutable_translation() = W(3, -30);
  }
  return q;
}

template <class Request>
Request At(Request request, int64_t tick, int64_t fraction = 0) {
  request.mutable_at()->set_tick(tick);
  request.mutable_at()->set_fraction(fraction);
  return request;
}

class HistoryServiceTest : public ::testing::Test {
 protected:
  LiveServer server_;
};

// The core promise over the wire: ask every query live at each tick, while
// the world is stepped and changed; ask again naming each past tick; the
// replies are identical, field for field (tick included).
TEST_F(HistoryServiceTest, PastTickAnswers_EqualTheLiveAnswers) {
  MatchScript match("past", 11);
  ASSERT_THAT(server_.client().CreateWorld(match.Create(/*history_ticks=*/400)), IsOk());
  const Queries q = MakeQueries("past");
  struct Live {
    int64_t tick;
    v1::CastRaysResponse rays;
    v1::OverlapResponse overlap;
    v1::CastShapesResponse casts;
  };
  std::vector<Live> live;
  for (int i = 0; i < 120; ++i) {
    const MatchScript::Op op = match.Next();
    if (op.kind == MatchScript::Op::Kind::kStep) {
      // Ask right before the step out of this tick: the history's state.
      absl::StatusOr<v1::CastRaysResponse> rays = server_.client().CastRays(q.rays);
      absl::StatusOr<v1::OverlapResponse> overlap = server_.client().Overlap(q.overlap);
      absl::StatusOr<v1::CastShapesResponse> casts = server_.client().CastShapes(q.casts);
      ASSERT_THAT(rays, IsOk());
      ASSERT_THAT(overlap, IsOk());
      ASSERT_THAT(casts, IsOk());
      ASSERT_EQ(rays->tick(), overlap->tick());
      live.push_back({rays->tick(), *rays, *overlap, *casts});
    }
    ASSERT_THAT(MatchScript::Apply(server_.client(), op), IsOk());
  }
  ASSERT_GT(live.size(), 30u);
  size_t hits = 0;
  for (const Live& l : live) {
    absl::StatusOr<v1::CastRaysResponse> rays = server_.client().CastRays(At(q.rays, l.tick));
    absl::StatusOr<v1::OverlapResponse> overlap = server_.client().Overlap(At(q.overlap, l.tick));
    absl::StatusOr<v1::CastShapesResponse> casts = server_.client().CastShapes(At(q.casts, l.tick));
    ASSERT_THAT(rays, IsOk());
    ASSERT_THAT(overlap, IsOk());
    ASSERT_THAT(casts, IsOk());
    EXPECT_TRUE(MessageDifferencer::Equals(*rays, l.rays)) << "rays at tick " << l.tick;
    EXPECT_TRUE(MessageDifferencer::Equals(*overlap, l.overlap)) << "overlap at tick " << l.tick;
    EXPECT_TRUE(MessageDifferencer::Equals(*casts, l.casts)) << "casts at tick " << l.tick;
    for (const v1::CastResult& r : l.rays.results()) hits += static_cast<size_t>(r.hits_size());
  }
  EXPECT_GT(hits, 100u) << "the queries must hit things for the comparison to mean anything";
  // The world moved: answers at the first and last recorded tick differ.
  EXPECT_FALSE(MessageDifferencer::Equals(live.front().rays.results(0), live.back().rays.results(0)) &&
               MessageDifferencer::Equals(live.front().casts, live.back().casts));
}

// Tick + fraction: the same instant gives the same bits every time, on this
// server and on a second server fed the same match; it differs from both
// neighbouring ticks when things move.
TEST_F(HistoryServiceTest, InterpolatedAnswers_AreReproducible) {
  LiveServer other;
  MatchScript a("lerp", 5), b("lerp", 5);
  ASSERT_THAT(server_.client().CreateWorld(a.Create()), IsOk());
  ASSERT_THAT(other.client().CreateWorld(b.Create()), IsOk());
  for (int i = 0; i < 60; ++i) {
    ASSERT_THAT(MatchScript::Apply(server_.client(), a.Next()), IsOk());
    ASSERT_THAT(MatchScript::Apply(other.client(), b.Next()), IsOk());
  }
  const Queries q = MakeQueries("lerp");
  absl::StatusOr<v1::CastRaysResponse> now = server_.client().CastRays(q.rays);
  ASSERT_THAT(now, IsOk());
  const int64_t tick = now->tick() - 5;
  const int64_t half = Fixed::kOneRaw / 2;
  absl::StatusOr<v1::CastRaysResponse> first = server_.client().CastRays(At(q.rays, tick, half));
  absl::StatusOr<v1::CastRaysResponse> again = server_.client().CastRays(At(q.rays, tick, half));
  absl::StatusOr<v1::CastRaysResponse> elsewhere = other.client().CastRays(At(q.rays, tick, half));
  absl::StatusOr<v1::CastRaysResponse> before = server_.client().CastRays(At(q.rays, tick));
  absl::StatusOr<v1::CastRaysResponse> after = server_.client().CastRays(At(q.rays, tick + 1));
  ASSERT_THAT(first, IsOk());
  ASSERT_THAT(elsewhere, IsOk());
  EXPECT_EQ(first->tick(), tick);
  EXPECT_EQ(first->tick_fraction(), half);
  EXPECT_TRUE(MessageDifferencer::Equals(*first, *again));
  EXPECT_TRUE(MessageDifferencer::Equals(*first, *elsewhere));
  // Interpolating between the newest recorded tick and the live one works too.
  EXPECT_THAT(server_.client().CastRays(At(q.rays, now->tick() - 1, half)), IsOk());
  v1::CastRaysResponse b_stripped = *before, a_stripped = *after, f_stripped = *first;
  for (v1::CastRaysResponse* r : {&b_stripped, &a_stripped, &f_stripped}) {
    r->clear_tick();
    r->clear_tick_fraction();
  }
  EXPECT_FALSE(MessageDifferencer::Equals(f_stripped, b_stripped) && MessageDifferencer::Equals(f_stripped, a_stripped));
}

TEST_F(HistoryServiceTest, TicksOutsideTheWindow_AreOutOfRange_AndNameIt) {
  MatchScript match("window", 3);
  v1::CreateWorldRequest create = match.Create(/*history_ticks=*/10);
  absl::StatusOr<v1::CreateWorldResponse> created = server_.client().CreateWorld(create);
  ASSERT_THAT(created, IsOk());
  EXPECT_EQ(created->world().history_ticks(), 10u);
  v1::StepRequest step;
  step.set_world_id("window");
  step.set_ticks(30);
  step.set_omit_events(true);
  ASSERT_THAT(server_.client().Step(step), IsOk());
  const Queries q = MakeQueries("window");
  EXPECT_THAT(server_.client().CastRays(At(q.rays, 19)),
              StatusIs(absl::StatusCode::kOutOfRange, "at.tick: 19 is outside the retained window [20, 30]"));
  EXPECT_THAT(server_.client().Overlap(At(q.overlap, 31)), StatusIs(absl::StatusCode::kOutOfRange, "[20, 30]"));
  EXPECT_THAT(server_.client().CastShapes(At(q.casts, 30, 1)),
              StatusIs(absl::StatusCode::kOutOfRange, "a fraction needs the next tick"));
  EXPECT_THAT(server_.client().CastRays(At(q.rays, 25, -1)), StatusIs(absl::StatusCode::kInvalidArgument, "at.fraction"));
  EXPECT_THAT(server_.client().CastRays(At(q.rays, 25, Fixed::kOneRaw)),
              StatusIs(absl::StatusCode::kInvalidArgument, "at.fraction"));
  EXPECT_THAT(server_.client().CastRays(At(q.rays, 20)), IsOk());
  v1::DescribeWorldRequest describe;
  describe.set_world_id("window");
  absl::StatusOr<v1::DescribeWorldResponse> info = server_.client().DescribeWorld(describe);
  ASSERT_THAT(info, IsOk());
  EXPECT_EQ(info->world().oldest_tick(), 20);
  v1::CreateWorldRequest greedy = MatchScript("greedy", 1).Create(/*history_ticks=*/1u << 30);
  EXPECT_THAT(server_.client().CreateWorld(greedy),
              StatusIs(absl::StatusCode::kResourceExhausted, "history_ticks: 1073741824 exceeds"));
}

class ValidateHitTest : public HistoryServiceTest {
 protected:
  // Shooter 1 at x = 0, a wall 2 at x = 5 on the lower lane, target 3 at
  // x = 10 on both lanes; target 4 moves right one unit per tick.
  void SetUp() override {
    v1::CreateWorldRequest create;
    create.set_world_id("range");
    auto disk = [&](uint64_t id, v1::BodyType type, double x, double y, double r) {
      v1::BodyDef* b = create.add_bodies();
      b->set_id(id);
      b->set_type(type);
      *b->mutable_transform()->mutable_position() = W(x, y);
      b->add_shapes()->mutable_shape()->mutable_circle()->set_radius(Fixed::FromDouble(r).raw());
      return b;
    };
    disk(1, v1::BODY_TYPE_KINEMATIC, 0, 0, 1);
    v1::BodyDef* wall = create.add_bodies();
    wall->set_id(2);
    wall->set_type(v1::BODY_TYPE_STATIC);
    *wall->mutable_transform()->mutable_position() = W(5, -5);
    wall->add_shapes()->mutable_shape()->mutable_segment()->mutable_point1()->CopyFrom(W(0, -2));
    wall->mutable_shapes(0)->mutable_shape()->mutable_segment()->mutable_point2()->CopyFrom(W(0, 2));
    v1::Circle* lower = disk(3, v1::BODY_TYPE_STATIC, 10, 0, 1)->add_shapes()->mutable_shape()->mutable_circle();
    *lower->mutable_center() = W(0, -5);
    lower->set_radius(Fixed::FromInt(1).raw());
    v1::BodyDef* mover = disk(4, v1::BODY_TYPE_KINEMATIC, 0, 20, 1);
    *mover->mutable_linear_velocity() = W(60, 0);
    ASSERT_THAT(server_.client().CreateWorld(create), IsOk());
    v1::StepRequest step;
    step.set_world_id("range");
    step.set_ticks(10);
    step.set_omit_events(true);
    ASSERT_THAT(server_.client().Step(step), IsOk());
  }

  v1::ValidateHitRequest Shot(double oy, double tx, double ty, uint64_t target) {
    v1::ValidateHitRequest r;
    r.set_world_id("range");
    r.set_shooter_body_id(1);
    r.set_target_body_id(target);
    *r.mutable_ray()->mutable_origin() = W(0, oy);
    *r.mutable_ray()->mutable_translation() = W(tx, ty);
    return r;
  }
};

TEST_F(ValidateHitTest, Confirmed_Blocked_Missed_WithEvidence) {
  // From inside the shooter: its own shape never counts.
  absl::StatusOr<v1::ValidateHitResponse> clear = server_.client().ValidateHit(Shot(0, 20, 0, 3));
  ASSERT_THAT(clear, IsOk());
  EXPECT_EQ(clear->verdict(), v1::HIT_VERDICT_CONFIRMED);
  EXPECT_EQ(clear->first_hit().body_id(), 3u);
  EXPECT_NEAR(static_cast<double>(clear->target_hit().point().x()), static_cast<double>(Fixed::FromInt(9).raw()), 4096);

  absl::StatusOr<v1::ValidateHitResponse> blocked = server_.client().ValidateHit(Shot(-5, 20, 0, 3));
  ASSERT_THAT(blocked, IsOk());
  EXPECT_EQ(blocked->verdict(), v1::HIT_VERDICT_BLOCKED);
  EXPECT_EQ(blocked->first_hit().body_id(), 2u);
  EXPECT_NEAR(static_cast<double>(blocked->first_hit().point().x()), static_cast<double>(Fixed::FromInt(5).raw()), 4096);
  EXPECT_EQ(blocked->target_hit().body_id(), 3u);

  absl::StatusOr<v1::ValidateHitResponse> missed = server_.client().ValidateHit(Shot(0, 20, 10, 3));
  ASSERT_THAT(missed, IsOk());
  EXPECT_EQ(missed->verdict(), v1::HIT_VERDICT_MISSED);
  EXPECT_FALSE(missed->has_target_hit());
}

// The moving target is at x = 10 at tick 10 (live) and x = 5 at tick 5:
// a shot at x = 5 is a hit only as the shooter saw the world at tick 5.
TEST_F(ValidateHitTest, LagCompensation_JudgesAgainstThePastTick) {
  v1::ValidateHitRequest shot = Shot(0, 0, 0, 4);
  *shot.mutable_ray()->mutable_origin() = W(5, 10);
  *shot.mutable_ray()->mutable_translation() = W(0, 20);
  absl::StatusOr<v1::ValidateHitResponse> live = server_.client().ValidateHit(shot);
  ASSERT_THAT(live, IsOk());
  EXPECT_EQ(live->tick(), 10);
  EXPECT_EQ(live->verdict(), v1::HIT_VERDICT_MISSED);
  shot.mutable_at()->set_tick(5);
  absl::StatusOr<v1::ValidateHitResponse> past = server_.client().ValidateHit(shot);
  ASSERT_THAT(past, IsOk());
  EXPECT_EQ(past->tick(), 5);
  EXPECT_EQ(past->verdict(), v1::HIT_VERDICT_CONFIRMED);
  EXPECT_EQ(past->target_hit().body_id(), 4u);
}

TEST_F(ValidateHitTest, BadRequests_NameTheField) {
  EXPECT_THAT(server_.client().ValidateHit(Shot(0, 20, 0, 99)),
              StatusIs(absl::StatusCode::kNotFound, "target_body_id: no body 99 at tick 10"));
  v1::ValidateHitRequest self = Shot(0, 20, 0, 1);
  EXPECT_THAT(server_.client().ValidateHit(self), StatusIs(absl::StatusCode::kInvalidArgument, "its own target"));
  v1::ValidateHitRequest no_shooter = Shot(0, 20, 0, 3);
  no_shooter.set_shooter_body_id(77);
  EXPECT_THAT(server_.client().ValidateHit(no_shooter), StatusIs(absl::StatusCode::kNotFound, "shooter_body_id"));
  v1::ValidateHitRequest no_ray = Shot(0, 20, 0, 3);
  no_ray.clear_ray();
  EXPECT_THAT(server_.client().ValidateHit(no_ray), StatusIs(absl::StatusCode::kInvalidArgument, "ray: required"));
  v1::ValidateHitRequest far = Shot(0, 20, 0, 3);
  far.mutable_ray()->mutable_origin()->set_x(INT64_MAX);
  EXPECT_THAT(server_.client().ValidateHit(far), StatusIs(absl::StatusCode::kOutOfRange, "ray.origin"));
  v1::ValidateHitRequest old = Shot(0, 20, 0, 3);
  old.mutable_at()->set_tick(-3);
  EXPECT_THAT(server_.client().ValidateHit(old), StatusIs(absl::StatusCode::kOutOfRange, "at.tick"));
}

// A lockstep peer steps its own core copy and reports its hashes: in sync,
// then one wrong hash names the tick it diverged at.
TEST_F(HistoryServiceTest, ReportHashes_InSyncOrFirstDivergentTick) {
  MatchScript match("lockstep", 9);
  const v1::CreateWorldRequest create = match.Create();
  ASSERT_THAT(server_.client().CreateWorld(create), IsOk());
  // The peer: the core, fed the same bodies and steps.
  std::vector<BodyDef> bodies(static_cast<size_t>(create.bodies_size()));
  for (size_t i = 0; i < bodies.size(); ++i) {
    ASSERT_TRUE(wire::ParseBodyDef(create.bodies(static_cast<int>(i)), "", &bodies[i]).ok());
  }
  World peer(WorldDef{{kFixedZero, Fixed::FromInt(-10)}, 60, TestServerOptions().registry.max_bodies_per_world});
  ASSERT_TRUE(peer.AddBodies(bodies).ok());
  v1::ReportHashesRequest report;
  report.set_world_id("lockstep");
  report.set_first_tick(1);
  v1::StepRequest step;
  step.set_world_id("lockstep");
  step.set_ticks(1);
  step.set_omit_events(true);
  for (int t = 0; t < 20; ++t) {
    ASSERT_THAT(server_.client().Step(step), IsOk());
    peer.Step();
    report.add_state_hashes(peer.StateHash());
  }
  absl::StatusOr<v1::ReportHashesResponse> ok = server_.client().ReportHashes(report);
  ASSERT_THAT(ok, IsOk());
  EXPECT_TRUE(ok->in_sync());
  EXPECT_FALSE(ok->has_first_divergent_tick());
  EXPECT_EQ(ok->server_hash(), peer.StateHash());
  EXPECT_EQ(ok->tick(), 20);
  report.set_state_hashes(12, report.state_hashes(12) ^ 1);
  absl::StatusOr<v1::ReportHashesResponse> bad = server_.client().ReportHashes(report);
  ASSERT_THAT(bad, IsOk());
  EXPECT_FALSE(bad->in_sync());
  EXPECT_EQ(bad->first_divergent_tick(), 13);
  report.set_first_tick(15);
  EXPECT_THAT(server_.client().ReportHashes(report),
              StatusIs(absl::StatusCode::kOutOfRange, "ticks [15, 34] reported; the server has hashes for [0, 20]"));
  report.clear_state_hashes();
  EXPECT_THAT(server_.client().ReportHashes(report), StatusIs(absl::StatusCode::kInvalidArgument, "state_hashes"));
}

}  // namespace
}  // namespace arbiter::testing
