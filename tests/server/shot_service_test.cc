// Projectile validation over the wire (ValidateShots) against a real server
// on a loopback port: a rocket judged through the history and live, each
// verdict with its evidence, once per shot, the rewind caps of the request,
// the server and a token, and errors that name the field and change nothing.
#include "auth_support.h"
#include "test_support.h"
#include "testing/temp_dir.h"

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

// At 60 Hz, stepped to tick 60 with 120 ticks of history. Shooter 1: a
// kinematic disk at the origin. Target 2: a kinematic disk of radius 0.5
// walking up from (10, -1) at 6 units/s (0.1 a tick). Wall 3: a static box
// spanning x 14.5..15.5, y 5..15; target 4 a static disk behind it at (25, 10).
void CreateRange(client::ArbiterClient& client, const std::string& id) {
  v1::CreateWorldRequest create;
  create.set_world_id(id);
  create.set_tick_hz(60);
  create.set_history_ticks(120);
  *create.add_bodies() = client::MakeBody(1, v1::BODY_TYPE_KINEMATIC, 0, 0, client::MakeCircle(0.5));
  v1::BodyDef walker = client::MakeBody(2, v1::BODY_TYPE_KINEMATIC, 10, -1, client::MakeCircle(0.5));
  *walker.mutable_linear_velocity() = W(0, 6);
  *create.add_bodies() = walker;
  *create.add_bodies() = client::MakeBody(3, v1::BODY_TYPE_STATIC, 15, 10, client::MakeBox(0.5, 5));
  *create.add_bodies() = client::MakeBody(4, v1::BODY_TYPE_STATIC, 25, 10, client::MakeCircle(1));
  ASSERT_THAT(client.CreateWorld(create), IsOk());
  v1::StepRequest step;
  step.set_world_id(id);
  step.set_ticks(60);
  step.set_omit_events(true);
  ASSERT_THAT(client.Step(step), IsOk());
}

// The rocket of the docs: fired by body 1 at `tick` from the origin along
// +x at 120 units/s (2 units a tick), claimed to hit body 2 at tick 14.
v1::Shot Rocket(uint64_t shot_id, int64_t tick = 10) {
  v1::Shot s;
  s.set_shooter_body_id(1);
  s.set_shot_id(shot_id);
  s.mutable_fire()->set_tick(tick);
  *s.mutable_velocity() = W(120, 0);
  s.set_flight_ticks(30);
  s.set_target_body_id(2);
  s.set_impact_tick(14);
  return s;
}

v1::ValidateShotsRequest Shots(std::initializer_list<v1::Shot> shots, const std::string& world = "range") {
  v1::ValidateShotsRequest r;
  r.set_world_id(world);
  for (const v1::Shot& s : shots) *r.add_shots() = s;
  return r;
}

class ValidateShotsTest : public ::testing::Test {
 protected:
  void SetUp() override { CreateRange(server_.client(), "range"); }
  absl::StatusOr<v1::ValidateShotsResponse> Judge(const v1::ValidateShotsRequest& r) {
    return server_.client().ValidateShots(r);
  }
  LiveServer server_;
};

TEST_F(ValidateShotsTest, RocketThroughTheHistory_IsConfirmed_AndTheSameShotFiredNowMisses) {
  absl::StatusOr<v1::ValidateShotsResponse> reply = Judge(Shots({Rocket(1)}));
  ASSERT_THAT(reply, IsOk());
  EXPECT_EQ(reply->tick(), 60);
  ASSERT_EQ(reply->judgements_size(), 1);
  const v1::ShotJudgement& j = reply->judgements(0);
  EXPECT_EQ(j.verdict(), v1::SHOT_VERDICT_CONFIRMED) << j.reason();
  EXPECT_FALSE(j.duplicate());
  EXPECT_EQ(j.hit().body_id(), 2u);
  EXPECT_EQ(j.impact().tick(), 14);
  EXPECT_NEAR(D(j.impact().fraction()), 0.85, 1e-6);  // the walker at y = 0.4: met at x = 9.7
  EXPECT_NEAR(D(j.hit().point().x()), 9.7, 1e-6);
  EXPECT_EQ(j.end(), v1::FLIGHT_END_HIT);
  EXPECT_EQ(j.ticks_traced(), 5u);
  EXPECT_EQ(j.judged_at_tick(), 60);
  EXPECT_EQ(j.oldest_allowed_tick(), 0);
  EXPECT_NE(j.reason().find("tick 14.850"), std::string::npos) << j.reason();

  // Fired now, the rocket flies the live tick's stretch past where the
  // walker was: nothing yet, and it has not flown further.
  v1::Shot now = Rocket(2, 60);
  now.set_impact_tick(64);
  reply = Judge(Shots({now}));
  ASSERT_THAT(reply, IsOk());
  EXPECT_EQ(reply->judgements(0).verdict(), v1::SHOT_VERDICT_MISSED);
  EXPECT_EQ(reply->judgements(0).end(), v1::FLIGHT_END_CURRENT_TICK);
  EXPECT_EQ(reply->judgements(0).end_at().tick(), 61);
  EXPECT_EQ(reply->judgements(0).end_position().x(), W(2, 0).x());
}

TEST_F(ValidateShotsTest, AWallInTheWay_Blocks_WithTheBlockerAsEvidence) {
  v1::Shot s = Rocket(1);
  *s.mutable_origin() = W(0, 10);
  s.set_target_body_id(4);
  s.set_impact_tick(22);
  absl::StatusOr<v1::ValidateShotsResponse> reply = Judge(Shots({s}));
  ASSERT_THAT(reply, IsOk());
  const v1::ShotJudgement& j = reply->judgements(0);
  EXPECT_EQ(j.verdict(), v1::SHOT_VERDICT_BLOCKED);
  EXPECT_EQ(j.hit().body_id(), 3u);
  EXPECT_EQ(j.hit().point().x(), W(14.5, 0).x());
  EXPECT_EQ(j.hit().normal().x(), W(-1, 0).x());
  EXPECT_EQ(j.impact().tick(), 17);  // x = 14.5 at 7.25 ticks of flight
  EXPECT_EQ(j.impact().fraction(), Fixed::FromDouble(0.25).raw());
}

TEST_F(ValidateShotsTest, TheTargetAtAnotherTickOrPoint_IsMismatched_UnlessWithinTolerance) {
  v1::Shot late = Rocket(1);
  late.set_impact_tick(17);
  v1::Shot off = Rocket(2);
  *off.mutable_impact_point() = W(9.7, 3);
  v1::Shot near = Rocket(3);
  *near.mutable_impact_point() = W(9.7, 0.05);
  v1::ValidateShotsRequest r = Shots({late, off, near});
  r.set_point_tolerance(Fixed::FromDouble(0.1).raw());
  absl::StatusOr<v1::ValidateShotsResponse> reply = Judge(r);
  ASSERT_THAT(reply, IsOk());
  EXPECT_EQ(reply->judgements(0).verdict(), v1::SHOT_VERDICT_MISMATCHED);
  EXPECT_NE(reply->judgements(0).reason().find("not at the claimed tick 17"), std::string::npos);
  EXPECT_EQ(reply->judgements(1).verdict(), v1::SHOT_VERDICT_MISMATCHED);
  EXPECT_EQ(reply->judgements(2).verdict(), v1::SHOT_VERDICT_CONFIRMED);
  late.set_shot_id(4);
  r = Shots({late});
  r.set_tick_tolerance(3);
  reply = Judge(r);
  ASSERT_THAT(reply, IsOk());
  EXPECT_EQ(reply->judgements(0).verdict(), v1::SHOT_VERDICT_CONFIRMED);
}

TEST_F(ValidateShotsTest, AShotSentAgain_GetsItsFirstJudgement_MarkedDuplicate) {
  absl::StatusOr<v1::ValidateShotsResponse> first = Judge(Shots({Rocket(7)}));
  ASSERT_THAT(first, IsOk());
  ASSERT_EQ(first->judgements(0).verdict(), v1::SHOT_VERDICT_CONFIRMED);
  // Later, claiming another target: the first judgement stands.
  v1::StepRequest step;
  step.set_world_id("range");
  step.set_ticks(5);
  ASSERT_THAT(server_.client().Step(step), IsOk());
  v1::Shot again = Rocket(7);
  again.set_target_body_id(4);
  absl::StatusOr<v1::ValidateShotsResponse> second = Judge(Shots({again, Rocket(8), Rocket(8)}));
  ASSERT_THAT(second, IsOk());
  EXPECT_EQ(second->tick(), 65);
  v1::ShotJudgement expected = first->judgements(0);
  expected.set_duplicate(true);
  EXPECT_EQ(second->judgements(0).SerializeAsString(), expected.SerializeAsString());
  EXPECT_FALSE(second->judgements(1).duplicate());
  EXPECT_EQ(second->judgements(1).judged_at_tick(), 65);
  EXPECT_TRUE(second->judgements(2).duplicate()) << "the same shot twice in one batch";
  // Another shooter's shot 7 is another shot.
  v1::Shot other = Rocket(7);
  other.set_shooter_body_id(4);
  other.set_target_body_id(2);
  absl::StatusOr<v1::ValidateShotsResponse> third = Judge(Shots({other}));
  ASSERT_THAT(third, IsOk());
  EXPECT_FALSE(third->judgements(0).duplicate());
}

TEST_F(ValidateShotsTest, BeyondTheRequestsRewindCap_IsTooOld_NotAnError) {
  v1::ValidateShotsRequest r = Shots({Rocket(1, 10), Rocket(2, 35)});
  r.set_max_rewind_ticks(30);
  absl::StatusOr<v1::ValidateShotsResponse> reply = Judge(r);
  ASSERT_THAT(reply, IsOk());
  const v1::ShotJudgement& old = reply->judgements(0);
  EXPECT_EQ(old.verdict(), v1::SHOT_VERDICT_TOO_OLD);
  EXPECT_EQ(old.oldest_allowed_tick(), 30);
  EXPECT_EQ(old.end(), v1::FLIGHT_END_UNSPECIFIED);
  EXPECT_FALSE(old.has_hit());
  EXPECT_EQ(old.reason(), "fired at tick 10, before the oldest tick allowed, 30");
  EXPECT_NE(reply->judgements(1).verdict(), v1::SHOT_VERDICT_TOO_OLD);
  // A cap of 0 ticks: only shots fired at the current tick.
  r = Shots({Rocket(3, 59), Rocket(4, 60)});
  r.set_max_rewind_ticks(0);
  reply = Judge(r);
  ASSERT_THAT(reply, IsOk());
  EXPECT_EQ(reply->judgements(0).verdict(), v1::SHOT_VERDICT_TOO_OLD);
  EXPECT_EQ(reply->judgements(1).verdict(), v1::SHOT_VERDICT_MISSED);
}

TEST_F(ValidateShotsTest, BadShots_NameTheField_AndChangeNothing) {
  auto code_and_message = [&](const v1::ValidateShotsRequest& r) {
    absl::StatusOr<v1::ValidateShotsResponse> reply = Judge(r);
    return reply.ok() ? std::make_pair(StatusCode::kOk, std::string()) : std::make_pair(reply.status().code(), std::string(reply.status().message()));
  };
  v1::Shot future = Rocket(2, 61);
  EXPECT_EQ(code_and_message(Shots({Rocket(1), future})),
            std::make_pair(StatusCode::kOutOfRange, std::string("shots[1].fire.tick: 61 is after the current tick 60")));
  // Shot 1 of the refused batch was not remembered.
  absl::StatusOr<v1::ValidateShotsResponse> reply = Judge(Shots({Rocket(1)}));
  ASSERT_THAT(reply, IsOk());
  EXPECT_FALSE(reply->judgements(0).duplicate());

  v1::Shot s = Rocket(9);
  s.set_shot_id(0);
  EXPECT_EQ(code_and_message(Shots({s})).second, "shots[0].shot_id: required (non-zero)");
  s = Rocket(9);
  s.set_flight_ticks(0);
  EXPECT_EQ(code_and_message(Shots({s})).second, "shots[0].flight_ticks: must be in [1, 4096]");
  s = Rocket(9);
  s.set_target_body_id(1);
  EXPECT_EQ(code_and_message(Shots({s})).second, "shots[0].target_body_id: the shooter cannot be its own target");
  s = Rocket(9);
  s.clear_fire();
  EXPECT_EQ(code_and_message(Shots({s})).second, "shots[0].fire: required");
  s = Rocket(9);
  s.mutable_fire()->set_fraction(Fixed::kOneRaw);
  EXPECT_EQ(code_and_message(Shots({s})).second, "shots[0].fire.fraction: must be in [0, 1)");
  s = Rocket(9);
  *s.mutable_velocity() = W(0, 0);
  EXPECT_EQ(code_and_message(Shots({s})).first, StatusCode::kInvalidArgument);
  EXPECT_EQ(code_and_message(Shots({})).first, StatusCode::kInvalidArgument);
  v1::ValidateShotsRequest r = Shots({Rocket(9)});
  r.set_point_tolerance(-1);
  EXPECT_EQ(code_and_message(r).second, "point_tolerance: must not be negative");
  r = Shots({Rocket(9)}, "nowhere");
  EXPECT_EQ(code_and_message(r).first, StatusCode::kNotFound);
  // Too many traced ticks in one call (max_batch 20000): 4096 x 5.
  r = Shots({});
  for (uint64_t i = 1; i <= 5; ++i) {
    v1::Shot longer = Rocket(100 + i);
    longer.set_flight_ticks(4096);
    *r.add_shots() = longer;
  }
  EXPECT_EQ(code_and_message(r).first, StatusCode::kResourceExhausted);
}

TEST(ValidateShotsLimitsTest, TheServersCapAndATokensCap_MakeOldShotsTooOld) {
  TempDir dir;
  const std::string tokens = dir.path() + "/tokens";
  WriteFile(tokens, server::Sha256Hex("capped-token") + " reader * capped max_rewind_ms=100\n" +
                        TokenLine("admin-token", "admin", "*", "admin"));
  server::ServerOptions options = TestServerOptions();
  options.access.token_file = tokens;
  options.service.max_rewind_ms = 500;  // 30 ticks at 60 Hz
  LiveServer server(options);
  std::unique_ptr<client::ArbiterClient> admin = ClientWithToken(server.address(), "admin-token");
  CreateRange(*admin, "range");
  std::unique_ptr<client::ArbiterClient> capped = ClientWithToken(server.address(), "capped-token");
  // The server's cap: fired at 29 is too old for the admin, 30 is not.
  absl::StatusOr<v1::ValidateShotsResponse> reply = admin->ValidateShots(Shots({Rocket(1, 29), Rocket(2, 30)}));
  ASSERT_THAT(reply, IsOk());
  EXPECT_EQ(reply->judgements(0).verdict(), v1::SHOT_VERDICT_TOO_OLD);
  EXPECT_EQ(reply->judgements(0).oldest_allowed_tick(), 30);
  EXPECT_NE(reply->judgements(1).verdict(), v1::SHOT_VERDICT_TOO_OLD);
  // The token's 100 ms (6 ticks) is tighter still.
  reply = capped->ValidateShots(Shots({Rocket(3, 53), Rocket(4, 54)}));
  ASSERT_THAT(reply, IsOk());
  EXPECT_EQ(reply->judgements(0).verdict(), v1::SHOT_VERDICT_TOO_OLD);
  EXPECT_EQ(reply->judgements(0).oldest_allowed_tick(), 54);
  EXPECT_EQ(reply->judgements(1).verdict(), v1::SHOT_VERDICT_MISSED);
}

TEST(ValidateShotsLimitsTest, AFullLedger_RefusesNewShots_ButAnswersDuplicates) {
  server::ServerOptions options = TestServerOptions();
  options.service.max_judged_shots = 3;
  LiveServer server(options);
  CreateRange(server.client(), "range");
  ASSERT_THAT(server.client().ValidateShots(Shots({Rocket(1), Rocket(2), Rocket(3)})), IsOk());
  absl::StatusOr<v1::ValidateShotsResponse> full = server.client().ValidateShots(Shots({Rocket(2), Rocket(4)}));
  EXPECT_THAT(full.status(), StatusIs(StatusCode::kResourceExhausted, "--max_judged_shots"));
  absl::StatusOr<v1::ValidateShotsResponse> again = server.client().ValidateShots(Shots({Rocket(2)}));
  ASSERT_THAT(again, IsOk());
  EXPECT_TRUE(again->judgements(0).duplicate());
  // Once the shots' fire tick leaves the window (120 ticks + the margin), room again.
  v1::StepRequest step;
  step.set_world_id("range");
  step.set_ticks(200);
  step.set_omit_events(true);
  ASSERT_THAT(server.client().Step(step), IsOk());
  absl::StatusOr<v1::ValidateShotsResponse> later = server.client().ValidateShots(Shots({Rocket(4, 250)}));
  ASSERT_THAT(later, IsOk());
  EXPECT_FALSE(later->judgements(0).duplicate());
}

}  // namespace
}  // namespace arbiter::testing
