// Issue 13, item 3: every state a step can reach is one every request path
// accepts. Each test drives a world to the speed limit (bounce_world.h) and
// then takes a path that used to std::abort the server (a rolled-back
// batch, a step that fails or runs out of time part way, a past-tick query
// after a filter change) or refuse the state (GetSnapshot then Restore).
// The server runs in this process: an abort fails the whole binary.
#include "bounce_world.h"
#include "test_support.h"

namespace arbiter::testing {
namespace {

constexpr char kWorld[] = "bounce";

class ReachableStateTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_THAT(client().CreateWorld(BounceWorld(kWorld)), IsOk());
    ASSERT_THAT(client().Step(StepTicks(kWorld, kBounceTicks)), IsOk());
  }

  client::ArbiterClient& client() { return server_.client(); }

  std::pair<int64_t, uint64_t> TickAndHash() { return WorldTickAndHash(client(), kWorld); }

  std::string Snapshot() {
    v1::GetSnapshotRequest request;
    request.set_world_id(kWorld);
    absl::StatusOr<v1::GetSnapshotResponse> reply = client().GetSnapshot(request);
    EXPECT_THAT(reply, IsOk());
    return reply.ok() ? reply->snapshot() : "";
  }

  static v1::BodyUpdate BallVelocity(int64_t vx) {
    v1::BodyUpdate u;
    u.set_body_id(kBounceBall);
    u.mutable_velocity()->mutable_linear()->set_x(Fixed::FromInt(vx).raw());
    return u;
  }

  LiveServer server_;
};

TEST_F(ReachableStateTest, TheBallMovesAtTheSpeedLimit_AndItsSnapshotRestores) {
  const std::string image = Snapshot();
  World world;
  const std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(image.data()), image.size());
  const Status restored = World::Restore(bytes, &world);
  ASSERT_TRUE(restored.ok()) << restored.message();
  EXPECT_EQ(world.FindBody(kBounceBall)->linear_velocity.y, kMaxLinearSpeed) << "the rebound is clamped to the limit";

  const auto before = TickAndHash();
  v1::RestoreRequest restore;
  restore.set_world_id(kWorld);
  restore.set_snapshot(image);
  EXPECT_THAT(client().Restore(restore), IsOk());
  EXPECT_EQ(TickAndHash(), before);
}

TEST_F(ReachableStateTest, FailedUpdateBatch_RollsBack) {
  const auto before = TickAndHash();
  v1::UpdateBodiesRequest request;
  request.set_world_id(kWorld);
  *request.add_updates() = BallVelocity(1);
  *request.add_updates() = BallVelocity(int64_t{1} << 30);  // past the limit: the batch fails here
  EXPECT_THAT(client().UpdateBodies(request), StatusIs(absl::StatusCode::kOutOfRange, "updates[1].velocity.linear_velocity"));
  EXPECT_EQ(TickAndHash(), before) << "the first update was not undone";
}

TEST_F(ReachableStateTest, StepFailingPartWay_ReturnsToItsStart) {
  const auto before = TickAndHash();
  v1::StepRequest request = StepTicks(kWorld, 3);
  v1::StepCommand* late = request.add_commands();
  late->set_tick_offset(2);
  *late->mutable_update() = BallVelocity(int64_t{1} << 30);
  EXPECT_THAT(client().Step(request), StatusIs(absl::StatusCode::kOutOfRange, "commands[0].update.velocity"));
  EXPECT_EQ(TickAndHash(), before);
}

TEST_F(ReachableStateTest, StepPastItsDeadline_ReturnsToItsStart) {
  const auto before = TickAndHash();
  client::ClientOptions hurried;
  hurried.timeout = std::chrono::milliseconds(200);
  std::unique_ptr<client::ArbiterClient> impatient = client::ArbiterClient::Connect(server_.address(), hurried);
  EXPECT_THAT(impatient->Step(StepTicks(kWorld, 1000000)), StatusIs(absl::StatusCode::kDeadlineExceeded, ""));
  // Waits for the return to the start (it holds the world's lock).
  EXPECT_EQ(TickAndHash(), before);
}

TEST_F(ReachableStateTest, PastTickQueryAfterAFilterChange_Answers) {
  const int64_t changed_at = TickAndHash().first;
  v1::UpdateBodiesRequest filter;
  filter.set_world_id(kWorld);
  v1::BodyUpdate* u = filter.add_updates();
  u->set_body_id(kBounceBall);
  u->add_filters()->mutable_filter()->set_category_bits(2);
  ASSERT_THAT(client().UpdateBodies(filter), IsOk());
  ASSERT_THAT(client().Step(StepTicks(kWorld, 2)), IsOk());
  // The world at `changed_at` is rebuilt from the snapshot recorded after
  // the filter change, while the ball moved at the speed limit.
  v1::CastRaysRequest rays;
  rays.set_world_id(kWorld);
  rays.set_mode(v1::CAST_MODE_CLOSEST);
  rays.mutable_at()->set_tick(changed_at);
  v1::Ray* ray = rays.add_rays();
  ray->mutable_origin()->set_y(Fixed::FromInt(30).raw());
  ray->mutable_translation()->set_y(Fixed::FromInt(-40).raw());
  absl::StatusOr<v1::CastRaysResponse> reply = client().CastRays(rays);
  ASSERT_THAT(reply, IsOk());
  ASSERT_EQ(reply->results_size(), 1);
  EXPECT_TRUE(reply->results(0).hit()) << "the floor is under the ray";
}

}  // namespace
}  // namespace arbiter::testing
