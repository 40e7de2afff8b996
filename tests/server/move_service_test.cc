// Movement validation over the wire (ValidateMove) against a real server on
// a loopback port: valid paths, wall clipping corrected to the reachable
// position, speed hacks rejected with exact evidence, judging against the
// world as it was (a door that has since opened), and errors that name the
// field.
#include <limits>

#include "test_support.h"

namespace arbiter::testing {
namespace {

using absl::StatusCode;

v1::Vec2 W(double x, double y) {
  v1::Vec2 v;
  v.set_x(Fixed::FromDouble(x).raw());
  v.set_y(Fixed::FromDouble(y).raw());
  return v;
}

double D(int64_t raw) { return Fixed::FromRaw(raw).ToDouble(); }

class ValidateMoveTest : public ::testing::Test {
 protected:
  // At 60 Hz. Player 1: a kinematic disk of radius 0.5 at the origin. Wall
  // 2: a static box whose left face is at x = 5 (y in -10..10). Door 3: a
  // kinematic box across y = 20 at x = 5 that moves up out of the way at 60
  // units/s (one unit per tick): at tick t it spans y in [18 + t, 22 + t].
  // Runner 4: a kinematic disk of radius 0.5 at (2, 20).
  void SetUp() override {
    v1::CreateWorldRequest create;
    create.set_world_id("moves");
    create.set_tick_hz(60);
    create.set_history_ticks(120);
    *create.add_bodies() = client::MakeBody(1, v1::BODY_TYPE_KINEMATIC, 0, 0, client::MakeCircle(0.5));
    *create.add_bodies() = client::MakeBody(2, v1::BODY_TYPE_STATIC, 6, 0, client::MakeBox(1, 10));
    v1::BodyDef door = client::MakeBody(3, v1::BODY_TYPE_KINEMATIC, 6, 20, client::MakeBox(1, 2));
    *door.mutable_linear_velocity() = W(0, 60);
    *create.add_bodies() = door;
    *create.add_bodies() = client::MakeBody(4, v1::BODY_TYPE_KINEMATIC, 2, 20, client::MakeCircle(0.5));
    ASSERT_THAT(server_.client().CreateWorld(create), IsOk());
    v1::StepRequest step;
    step.set_world_id("moves");
    step.set_ticks(30);
    step.set_omit_events(true);
    ASSERT_THAT(server_.client().Step(step), IsOk());
  }

  // Player `body` claims to move by (dx, dy) per tick for `count` ticks
  // from (x0, y0), where the server had it at `tick`.
  static v1::ValidateMoveRequest Path(int64_t tick, double x0, double y0, double dx, double dy, int count,
                                      uint64_t body = 1) {
    v1::ValidateMoveRequest r;
    r.set_world_id("moves");
    r.set_max_speed(Fixed::FromInt(300).raw());  // 5 units per tick at 60 Hz
    r.set_tolerance(Fixed::FromDouble(0.01).raw());
    v1::MoveClaim* claim = r.add_claims();
    claim->set_body_id(body);
    claim->set_tick(tick);
    for (int i = 1; i <= count; ++i) *claim->add_positions() = W(x0 + dx * i, y0 + dy * i);
    return r;
  }

  absl::StatusOr<v1::ValidateMoveResponse> Judge(const v1::ValidateMoveRequest& r) {
    return server_.client().ValidateMove(r);
  }

  LiveServer server_;
};

TEST_F(ValidateMoveTest, FreePath_IsValid) {
  absl::StatusOr<v1::ValidateMoveResponse> reply = Judge(Path(10, 0, 0, -1, 0.5, 8));
  ASSERT_THAT(reply, IsOk());
  EXPECT_EQ(reply->tick(), 30);
  ASSERT_EQ(reply->judgements_size(), 1);
  const v1::MoveJudgement& j = reply->judgements(0);
  EXPECT_EQ(j.body_id(), 1u);
  EXPECT_EQ(j.verdict(), v1::MOVE_VERDICT_VALID);
  EXPECT_EQ(j.judged_tick(), 18);
  EXPECT_EQ(j.accepted_position().x(), W(-8, 4).x());
  EXPECT_EQ(j.accepted_position().y(), W(-8, 4).y());
}

TEST_F(ValidateMoveTest, ThroughTheWall_IsCorrectedToTheReachablePosition) {
  // 2 units per tick to the right: the wall's face (x = 5) stops the disk
  // at x = 4.5 - skin in the step into tick 13.
  absl::StatusOr<v1::ValidateMoveResponse> reply = Judge(Path(10, 0, 0, 2, 0, 5));
  ASSERT_THAT(reply, IsOk());
  const v1::MoveJudgement& j = reply->judgements(0);
  EXPECT_EQ(j.verdict(), v1::MOVE_VERDICT_CORRECTED);
  EXPECT_EQ(j.judged_tick(), 13);
  EXPECT_NEAR(D(j.accepted_position().x()), 4.5 - 1.0 / 64, 1e-6);
  EXPECT_EQ(j.accepted_position().y(), 0);
  EXPECT_EQ(j.claimed_position().x(), W(6, 0).x());
  ASSERT_EQ(j.planes_size(), 1);
  EXPECT_EQ(j.planes(0).body_id(), 2u);
  EXPECT_EQ(j.planes(0).normal().x(), W(-1, 0).x());
  EXPECT_TRUE(j.blocked());
  EXPECT_NE(j.reason().find("tick 13"), std::string::npos) << j.reason();
}

TEST_F(ValidateMoveTest, SpeedHack_IsRejectedWithExactEvidence) {
  absl::StatusOr<v1::ValidateMoveResponse> reply = Judge(Path(10, 0, 0, -1, 0, 3));
  ASSERT_THAT(reply, IsOk());
  EXPECT_EQ(reply->judgements(0).verdict(), v1::MOVE_VERDICT_VALID);
  v1::ValidateMoveRequest fast = Path(10, 0, 0, -1, 0, 3);
  *fast.mutable_claims(0)->mutable_positions(1) = W(-8, 0);  // 7 units in one tick
  reply = Judge(fast);
  ASSERT_THAT(reply, IsOk());
  const v1::MoveJudgement& j = reply->judgements(0);
  EXPECT_EQ(j.verdict(), v1::MOVE_VERDICT_REJECTED);
  EXPECT_EQ(j.judged_tick(), 12);
  EXPECT_EQ(j.step_length(), Fixed::FromInt(7).raw());
  EXPECT_EQ(j.max_step(), Fixed::FromInt(5).raw());
  EXPECT_EQ(j.accepted_position().x(), W(-1, 0).x());  // the last accepted claim
  EXPECT_NE(j.reason().find("7.000 units"), std::string::npos) << j.reason();
}

TEST_F(ValidateMoveTest, JudgedAgainstTheWorldAsItWas) {
  // Runner 4 at (2, 20) claims 2 units per tick to the right. Judged from
  // tick 1, the step out of tick 2 meets the door (then spanning y 20..24)
  // and is corrected; the same path judged from tick 12 is valid, the door
  // having risen out of the way, as it is in the live world (tick 30).
  absl::StatusOr<v1::ValidateMoveResponse> reply = Judge(Path(1, 2, 20, 2, 0, 4, 4));
  ASSERT_THAT(reply, IsOk());
  const v1::MoveJudgement& j = reply->judgements(0);
  EXPECT_EQ(j.verdict(), v1::MOVE_VERDICT_CORRECTED);
  EXPECT_EQ(j.judged_tick(), 3);
  EXPECT_NEAR(D(j.accepted_position().x()), 4.5 - 1.0 / 64, 1e-6);
  ASSERT_GE(j.planes_size(), 1);
  EXPECT_EQ(j.planes(0).body_id(), 3u);

  reply = Judge(Path(12, 2, 20, 2, 0, 4, 4));
  ASSERT_THAT(reply, IsOk());
  EXPECT_EQ(reply->judgements(0).verdict(), v1::MOVE_VERDICT_VALID);
}

TEST_F(ValidateMoveTest, ManyPlayersInOneBatch_OneJudgementEach) {
  v1::ValidateMoveRequest r = Path(10, 0, 0, -1, 0, 3);
  *r.add_claims() = Path(10, 0, 0, 2, 0, 5).claims(0);
  *r.add_claims() = Path(10, 2, 20, 1, 1, 3, 4).claims(0);
  absl::StatusOr<v1::ValidateMoveResponse> reply = Judge(r);
  ASSERT_THAT(reply, IsOk());
  ASSERT_EQ(reply->judgements_size(), 3);
  EXPECT_EQ(reply->judgements(0).verdict(), v1::MOVE_VERDICT_VALID);
  EXPECT_EQ(reply->judgements(1).verdict(), v1::MOVE_VERDICT_CORRECTED);
  EXPECT_EQ(reply->judgements(2).verdict(), v1::MOVE_VERDICT_VALID);
  EXPECT_EQ(reply->judgements(2).body_id(), 4u);
}

TEST_F(ValidateMoveTest, HugeMaxSpeed_RoundsTheStepWithoutOverflow) {
  v1::ValidateMoveRequest r = Path(10, 0, 0, -1, 0, 2);
  r.set_max_speed(std::numeric_limits<int64_t>::max());
  // (2^63 - 1) / 60 raw is about 3.6e7 units a tick; this step is 2^29.
  *r.mutable_claims(0)->mutable_positions(1) = W(-(1 << 29), 0);
  absl::StatusOr<v1::ValidateMoveResponse> reply = Judge(r);
  ASSERT_THAT(reply, IsOk());
  EXPECT_EQ(reply->judgements(0).verdict(), v1::MOVE_VERDICT_REJECTED);
  EXPECT_EQ(reply->judgements(0).max_step(), std::numeric_limits<int64_t>::max() / 60);  // remainder 7: rounds down
}

TEST_F(ValidateMoveTest, Errors_NameTheField) {
  v1::ValidateMoveRequest r = Path(10, 0, 0, 1, 0, 2);
  r.set_max_speed(0);
  EXPECT_THAT(Judge(r), StatusIs(StatusCode::kInvalidArgument, "max_speed: required"));
  r = Path(10, 0, 0, 1, 0, 2);
  r.set_skin(1);
  EXPECT_THAT(Judge(r), StatusIs(StatusCode::kOutOfRange, "skin: must be in [2^-16, 1] units"));
  r = Path(10, 0, 0, 1, 0, 2);
  r.set_max_iterations(17);
  EXPECT_THAT(Judge(r), StatusIs(StatusCode::kOutOfRange, "max_iterations: must be in 1..16"));
  r = Path(10, 0, 0, 1, 0, 2);
  r.mutable_claims(0)->set_body_id(99);
  EXPECT_THAT(Judge(r), StatusIs(StatusCode::kNotFound, "claims[0].body_id: no body 99 at tick 10"));
  r = Path(10, 0, 0, 1, 0, 2);
  r.mutable_claims(0)->set_body_id(0);
  EXPECT_THAT(Judge(r), StatusIs(StatusCode::kInvalidArgument, "claims[0].body_id: required"));
  r = Path(29, 0, 0, 1, 0, 2);
  EXPECT_THAT(Judge(r), StatusIs(StatusCode::kOutOfRange, "claims[0].positions: 2 positions from tick 29 reach past"));
  r = Path(std::numeric_limits<int64_t>::max(), 0, 0, 1, 0, 2);
  EXPECT_THAT(Judge(r), StatusIs(StatusCode::kOutOfRange, "claims[0].positions:"));
  r = Path(10, 0, 0, 1, 0, 2);
  r.mutable_claims(0)->mutable_positions(1)->set_x(Fixed::FromInt(int64_t{1} << 30).raw());
  EXPECT_THAT(Judge(r), StatusIs(StatusCode::kOutOfRange, "claims[0].positions[1]"));
  r = Path(10, 0, 0, 1, 0, 2);
  r.mutable_claims(0)->clear_positions();
  EXPECT_THAT(Judge(r), StatusIs(StatusCode::kInvalidArgument, "claims[0].positions: empty batch"));
  r = Path(10, 0, 0, 1, 0, 2);
  r.mutable_claims(0)->set_shape_index(3);
  EXPECT_THAT(Judge(r), StatusIs(StatusCode::kOutOfRange, "claims[0].shape_index: body 1 has 1 shapes"));
  r = Path(10, 0, 0, 1, 0, 2);
  r.clear_claims();
  EXPECT_THAT(Judge(r), StatusIs(StatusCode::kInvalidArgument, "claims: empty batch"));
}

// ---- MoveShapes: move-and-slide as a query -----------------------------------

v1::MoveShapesRequest Slide(double x, double y, double tx, double ty) {
  v1::MoveShapesRequest r;
  r.set_world_id("moves");
  v1::ShapeMove* m = r.add_moves();
  *m->mutable_shape() = client::MakeCircle(0.5);
  *m->mutable_transform() = client::MakeTransform(x, y);
  *m->mutable_translation() = W(tx, ty);
  return r;
}

// 4.484375 = 4.5 - 1/64: the disk's edge a skin (1/64) short of the wall's
// face at x = 5 (287 * 2^26 raw), to within the rounding of the cast's hit
// fraction (a few raw units, 2^-32 each).
constexpr int64_t kSkinClearOfWall = int64_t{287} << 26;
constexpr int64_t kCastRounding = 8;

TEST_F(ValidateMoveTest, MoveShapes_HeadOnStopsSkinClear_AndADiagonalSlides) {
  v1::MoveShapesRequest r = Slide(0, -5, 10, 0);
  *r.add_moves() = Slide(0, -5, 10, 4).moves(0);
  *r.add_moves() = Slide(-10, -5, -3, 1).moves(0);  // nothing in the way
  absl::StatusOr<v1::MoveShapesResponse> reply = server_.client().MoveShapes(r);
  ASSERT_THAT(reply, IsOk());
  EXPECT_EQ(reply->tick(), 30);
  ASSERT_EQ(reply->results_size(), 3);

  const v1::MoveOutcome& head_on = reply->results(0);
  EXPECT_TRUE(head_on.blocked());
  EXPECT_NEAR(head_on.position().x(), kSkinClearOfWall, kCastRounding);
  EXPECT_EQ(head_on.position().y(), Fixed::FromInt(-5).raw());
  ASSERT_EQ(head_on.planes_size(), 1);
  EXPECT_EQ(head_on.planes(0).body_id(), 2u);
  EXPECT_EQ(head_on.planes(0).normal().x(), -Fixed::kOneRaw);
  EXPECT_EQ(head_on.planes(0).normal().y(), 0);
  EXPECT_FALSE(head_on.planes(0).pushed_out());
  EXPECT_NEAR(D(head_on.fraction()), 4.484375 / 10, 1e-9);

  const v1::MoveOutcome& slid = reply->results(1);
  EXPECT_FALSE(slid.blocked());
  EXPECT_NEAR(slid.position().x(), kSkinClearOfWall, kCastRounding);
  EXPECT_EQ(slid.position().y(), Fixed::FromInt(-1).raw());  // the whole vertical part, along the wall
  EXPECT_EQ(slid.planes_size(), 1);
  EXPECT_EQ(slid.iterations(), 2);

  const v1::MoveOutcome& clear = reply->results(2);
  EXPECT_FALSE(clear.blocked());
  EXPECT_EQ(clear.position().x(), Fixed::FromInt(-13).raw());
  EXPECT_EQ(clear.position().y(), Fixed::FromInt(-4).raw());
  EXPECT_EQ(clear.fraction(), Fixed::kOneRaw);
  EXPECT_EQ(clear.planes_size(), 0);
}

TEST_F(ValidateMoveTest, MoveShapes_AtAPastTickMeetsTheDoorAsItWas) {
  // From runner 4's place (excluded) towards the door: at tick 1 the door
  // spans y 19..23 and stops the disk; now (tick 30) it is long gone.
  v1::MoveShapesRequest r = Slide(2, 20, 4, 0);
  r.mutable_filter()->add_exclude_bodies(4);
  r.mutable_at()->set_tick(1);
  absl::StatusOr<v1::MoveShapesResponse> then = server_.client().MoveShapes(r);
  ASSERT_THAT(then, IsOk());
  EXPECT_TRUE(then->results(0).blocked());
  EXPECT_NEAR(then->results(0).position().x(), kSkinClearOfWall, kCastRounding);
  ASSERT_EQ(then->results(0).planes_size(), 1);
  EXPECT_EQ(then->results(0).planes(0).body_id(), 3u);

  r.clear_at();
  absl::StatusOr<v1::MoveShapesResponse> now = server_.client().MoveShapes(r);
  ASSERT_THAT(now, IsOk());
  EXPECT_FALSE(now->results(0).blocked());
  EXPECT_EQ(now->results(0).position().x(), Fixed::FromInt(6).raw());

  // Without the exclusion the start overlaps runner 4 and is pushed out first.
  r.clear_filter();
  now = server_.client().MoveShapes(r);
  ASSERT_THAT(now, IsOk());
  ASSERT_GE(now->results(0).planes_size(), 1);
  EXPECT_TRUE(now->results(0).planes(0).pushed_out());
  EXPECT_EQ(now->results(0).planes(0).body_id(), 4u);
}

TEST_F(ValidateMoveTest, MoveShapes_Errors_NameTheField) {
  auto move = [&](const v1::MoveShapesRequest& r) { return server_.client().MoveShapes(r); };
  v1::MoveShapesRequest r = Slide(0, 0, 1, 0);
  r.clear_moves();
  EXPECT_THAT(move(r), StatusIs(StatusCode::kInvalidArgument, "moves: empty batch"));
  r = Slide(0, 0, 1, 0);
  r.mutable_moves(0)->clear_shape();
  EXPECT_THAT(move(r), StatusIs(StatusCode::kInvalidArgument, "moves[0].shape: required"));
  r = Slide(0, 0, 1, 0);
  *r.add_moves() = Slide(0, 0, 1 << 28, 0).moves(0);
  r.mutable_moves(1)->mutable_translation()->set_x(r.moves(1).translation().x() + 1);
  EXPECT_THAT(move(r), StatusIs(StatusCode::kOutOfRange, "moves[1].translation: beyond +-2^28 units"));
  r = Slide(0, 0, 1, 0);
  r.set_skin(Fixed::kOneRaw + 1);
  EXPECT_THAT(move(r), StatusIs(StatusCode::kOutOfRange, "skin: must be in [2^-16, 1] units"));
  r = Slide(0, 0, 1, 0);
  r.set_max_iterations(-1);
  EXPECT_THAT(move(r), StatusIs(StatusCode::kOutOfRange, "max_iterations: must be in 1..16"));
  r = Slide(0, 0, 1, 0);
  r.mutable_at()->set_tick(500);
  EXPECT_THAT(move(r), StatusIs(StatusCode::kOutOfRange, "at."));
  r = Slide(0, 0, 1, 0);
  r.mutable_at()->set_fraction(Fixed::kOneRaw);
  EXPECT_THAT(move(r), StatusIs(StatusCode::kInvalidArgument, "at.fraction"));
  r = Slide(0, 0, 1, 0);
  r.mutable_moves(0)->mutable_shape()->mutable_circle()->set_radius(-1);
  EXPECT_THAT(move(r), StatusIs(StatusCode::kInvalidArgument, "moves[0].shape"));
  r = Slide(0, 0, 1, 0);
  r.set_world_id("nowhere");
  EXPECT_THAT(move(r), StatusIs(StatusCode::kNotFound, "nowhere"));
}

}  // namespace
}  // namespace arbiter::testing
