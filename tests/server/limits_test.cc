// Per-caller limits: the token bucket and the call-in-flight cap (alone,
// on a fake clock, then through real servers), the scene size limit, and a
// flood from one client that must not starve another. No assertion depends
// on how long anything took.
#include <algorithm>
#include <atomic>
#include <thread>

#include <grpcpp/support/channel_arguments.h>

#include "access/rate_limiter.h"
#include "arbiter/core/limits.h"
#include "auth_support.h"

namespace arbiter::testing {
namespace {

using absl::StatusCode;
using client::ArbiterClient;
using std::chrono::milliseconds;

// ---- Through a real server ---------------------------------------------------------------------


v1::GetStateHashRequest HashOf(const std::string& world) {
  v1::GetStateHashRequest request;
  request.set_world_id(world);
  return request;
}


/// A server with tokens "admin" (admin), "a" and "b" (writers), and the given limits.
/// The token file is written into `dir`, which outlives the server.
server::ServerOptions WithTokens(const TempDir& dir, const server::RateLimits& limits) {
  const std::string tokens = dir.File("tokens.txt");
  WriteFile(tokens, TokenLine("admin", "admin", "*") + TokenLine("a", "writer", "*", "client-a") +
                        TokenLine("b", "writer", "*", "client-b"));
  server::ServerOptions options = TestServerOptions();
  options.access.token_file = tokens;
  options.access.limits = limits;
  return options;
}

TEST(CallerLimitsTest, RateLimit_PerToken_RefusesPastTheBurst_AndChangesNothing) {
  server::RateLimits limits;
  limits.requests_per_second = 0.001;  // no refill within any test run
  limits.burst = 4;
  TempDir dir;
  LiveServer server(WithTokens(dir, limits));
  std::unique_ptr<ArbiterClient> admin = ClientWithToken(server.address(), "admin");
  std::unique_ptr<ArbiterClient> a = ClientWithToken(server.address(), "a");
  std::unique_ptr<ArbiterClient> b = ClientWithToken(server.address(), "b");
  ASSERT_THAT(admin->CreateWorld(SmallWorld("w")), IsOk());
  absl::StatusOr<v1::GetStateHashResponse> before = admin->GetStateHash(HashOf("w"));
  ASSERT_THAT(before, IsOk());

  for (int i = 0; i < 4; ++i) EXPECT_THAT(a->GetStateHash(HashOf("w")), IsOk()) << i;
  EXPECT_THAT(a->Step(OneTick("w")),
              StatusIs(StatusCode::kResourceExhausted,
                       "rate limit: token 'client-a' made more than 0.001 requests/s (burst 4); slow down (server "
                       "flags --rate_limit_rps, --rate_limit_burst)"));
  // The refused step changed nothing; another token has its own bucket.
  absl::StatusOr<v1::GetStateHashResponse> after = admin->GetStateHash(HashOf("w"));
  ASSERT_THAT(after, IsOk());
  EXPECT_EQ(after->tick(), before->tick());
  EXPECT_EQ(after->state_hash(), before->state_hash());
  EXPECT_THAT(b->Step(OneTick("w")), IsOk());

  // A stream's messages count too: opening it is b's 2nd request, its
  // messages the 3rd, 4th and (refused) 5th.
  std::unique_ptr<client::RayStream> stream = b->OpenQueryStream();
  v1::CastRaysRequest rays;
  rays.set_world_id("w");
  rays.set_mode(v1::CAST_MODE_ANY);
  *rays.add_rays() = client::MakeRay(0, 10, 0, -20);
  for (int i = 0; i < 2; ++i) {
    ASSERT_TRUE(stream->Write(rays));
    ASSERT_TRUE(stream->Read().has_value()) << i;
  }
  ASSERT_TRUE(stream->Write(rays));
  EXPECT_FALSE(stream->Read().has_value());
  EXPECT_THAT(stream->Finish(), StatusIs(StatusCode::kResourceExhausted, "token 'client-b'"));
}

TEST(CallerLimitsTest, RateLimit_UnderOpenAccess_IsPerConnection) {
  server::RateLimits limits;
  limits.requests_per_second = 0.001;
  limits.burst = 2;
  server::ServerOptions options = TestServerOptions();
  options.access.limits = limits;
  LiveServer server(options);
  // Separate subchannel pools: two real connections even in one process.
  auto connect = [&] {
    grpc::ChannelArguments args;
    args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
    return std::make_unique<ArbiterClient>(
        grpc::CreateCustomChannel(server.address(), grpc::InsecureChannelCredentials(), args));
  };
  std::unique_ptr<ArbiterClient> first = connect();
  std::unique_ptr<ArbiterClient> second = connect();
  EXPECT_THAT(first->ListWorlds(), IsOk());
  EXPECT_THAT(first->ListWorlds(), IsOk());
  EXPECT_THAT(first->ListWorlds(), StatusIs(StatusCode::kResourceExhausted, "rate limit: connection ipv4:127.0.0.1:"));
  EXPECT_THAT(second->ListWorlds(), IsOk());
}

TEST(CallerLimitsTest, CallsInFlight_PerToken_StreamsHoldASlotUntilTheyEnd) {
  server::RateLimits limits;
  limits.max_calls_in_flight = 2;
  TempDir dir;
  LiveServer server(WithTokens(dir, limits));
  std::unique_ptr<ArbiterClient> admin = ClientWithToken(server.address(), "admin");
  std::unique_ptr<ArbiterClient> a = ClientWithToken(server.address(), "a");
  ASSERT_THAT(admin->CreateWorld(SmallWorld("w")), IsOk());

  // Two watches of a's, each known to be open on the server once it has
  // delivered a tick (stepped by the admin, whose slots are its own).
  std::unique_ptr<client::EventWatch> watches[2] = {a->WatchEvents("w"), a->WatchEvents("w")};
  std::atomic<bool> seen{false};
  std::thread stepper([&] {
    while (!seen.load() && admin->Step(OneTick("w")).ok()) {
    }
  });
  const bool first = watches[0]->Next().has_value();
  const bool second = watches[1]->Next().has_value();
  seen = true;
  stepper.join();
  ASSERT_TRUE(first && second);

  EXPECT_THAT(a->GetStateHash(HashOf("w")),
              StatusIs(StatusCode::kResourceExhausted,
                       "concurrency limit: token 'client-a' already has 2 calls in flight (server flag "
                       "--max_calls_in_flight)"));
  EXPECT_THAT(admin->GetStateHash(HashOf("w")), IsOk());

  // Ending a watch returns its slot (when the server has seen the end;
  // bounded retries, no timing assumption).
  watches[0]->Cancel();
  while (watches[0]->Next().has_value()) {
  }
  (void)watches[0]->Finish();
  absl::Status status;
  for (int attempt = 0; attempt < 3000; ++attempt) {
    status = a->GetStateHash(HashOf("w")).status();
    if (status.code() != StatusCode::kResourceExhausted) break;
    std::this_thread::sleep_for(milliseconds(10));
  }
  EXPECT_THAT(status, IsOk());
  watches[1]->Cancel();
  while (watches[1]->Next().has_value()) {
  }
  (void)watches[1]->Finish();
}

TEST(CallerLimitsTest, NegativeRates_AreRefusedAtStart) {
  server::ServerOptions options = TestServerOptions();
  options.access.limits.requests_per_second = -1;
  EXPECT_THAT(server::ArbiterServer::Start(options), StatusIs(StatusCode::kInvalidArgument, "--rate_limit_rps"));
  options.access.limits.requests_per_second = 1;
  options.access.limits.burst = -1;
  EXPECT_THAT(server::ArbiterServer::Start(options), StatusIs(StatusCode::kInvalidArgument, "--rate_limit_burst"));
}

TEST(CallerLimitsTest, SceneFiles_LargerThanMaxSceneBytes_AreRefused) {
  server::ServerOptions options = TestServerOptions();
  options.service.max_scene_bytes = 64 * 1024;  // demo (3.5 KB) fits, rain-2k (312 KB) does not
  LiveServer server(options);
  v1::CreateWorldRequest big;
  big.set_world_id("rain");
  big.set_scene("rain-2k.scene.json");
  EXPECT_THAT(server.client().CreateWorld(big),
              StatusIs(StatusCode::kResourceExhausted, "scene: 'rain-2k.scene.json' has "));
  EXPECT_THAT(server.client().CreateWorld(big), StatusIs(StatusCode::kResourceExhausted, "--max_scene_bytes (65536)"));
  absl::StatusOr<v1::ListWorldsResponse> worlds = server.client().ListWorlds();
  ASSERT_THAT(worlds, IsOk());
  EXPECT_EQ(worlds->worlds_size(), 0);
  v1::CreateWorldRequest small;
  small.set_world_id("demo");
  small.set_scene("demo.scene.json");
  EXPECT_THAT(server.client().CreateWorld(small), IsOk());
}

// One greedy client (many callers, no pauses) and one polite client (one
// call at a time, with a pause between calls well below its rate), with
// separate tokens: every polite call succeeds while the greedy client is
// being refused.
TEST(CallerLimitsTest, GreedyClient_DoesNotStarveAPoliteOne) {
  server::RateLimits limits;
  limits.requests_per_second = 200;
  limits.burst = 20;
  limits.max_calls_in_flight = 4;
  TempDir dir;
  LiveServer server(WithTokens(dir, limits));
  std::unique_ptr<ArbiterClient> admin = ClientWithToken(server.address(), "admin");
  ASSERT_THAT(admin->CreateWorld(SmallWorld("w")), IsOk());
  std::unique_ptr<ArbiterClient> greedy = ClientWithToken(server.address(), "a");
  std::unique_ptr<ArbiterClient> polite = ClientWithToken(server.address(), "b");

  std::atomic<bool> polite_done{false};
  std::atomic<int> greedy_ok{0};
  std::atomic<int> greedy_refused{0};
  std::atomic<int> greedy_other{0};
  std::atomic<bool> refusal_names_flag{true};
  std::vector<std::thread> flood;
  for (int t = 0; t < 12; ++t) {
    flood.emplace_back([&, t] {
      // Until the polite client is done and the flood has been refused at
      // least once (so the limits were really in play).
      while (!polite_done.load() || greedy_refused.load() == 0) {
        const absl::Status s = (t % 2 == 0) ? greedy->Step(OneTick("w")).status()
                                            : greedy->GetStateHash(HashOf("w")).status();
        if (s.ok()) {
          ++greedy_ok;
        } else if (s.code() == StatusCode::kResourceExhausted) {
          ++greedy_refused;
          const std::string m(s.message());
          if (m.find("--rate_limit_rps") == std::string::npos && m.find("--max_calls_in_flight") == std::string::npos) {
            refusal_names_flag = false;
          }
        } else {
          ++greedy_other;
        }
      }
    });
  }

  // 40 calls, 25 ms apart: at most 40/s against a 200/s limit, one at a
  // time against a cap of 4; a slow machine only spaces them further.
  constexpr int kPoliteCalls = 40;
  int polite_ok = 0;
  std::vector<std::string> polite_errors;
  for (int i = 0; i < kPoliteCalls; ++i) {
    const absl::Status s = (i % 2 == 0) ? polite->Step(OneTick("w")).status() : polite->GetStateHash(HashOf("w")).status();
    if (s.ok()) {
      ++polite_ok;
    } else {
      polite_errors.push_back(s.ToString());
    }
    std::this_thread::sleep_for(milliseconds(25));
  }
  polite_done = true;
  for (std::thread& t : flood) t.join();

  EXPECT_EQ(polite_ok, kPoliteCalls) << "first error: " << (polite_errors.empty() ? "" : polite_errors[0]);
  EXPECT_GT(greedy_refused.load(), 0);
  EXPECT_GT(greedy_ok.load(), 0);
  EXPECT_EQ(greedy_other.load(), 0);
  EXPECT_TRUE(refusal_names_flag.load());
}

}  // namespace
}  // namespace arbiter::testing

namespace arbiter::testing {
namespace {

// A pile too dense to step: more candidate contact pairs than a server
// holds in one tick (kMaxStepPairs). The step is refused with
// RESOURCE_EXHAUSTED naming ticks, the world keeps its tick and hash (and
// the step's command is undone), and the server serves on.
TEST(StepLimitsTest, APileWithMorePairsThanOneTickHolds_IsRefused_AndChangesNothing) {
  LiveServer server(TestServerOptions());
  ASSERT_THAT(server.client().CreateWorld(SmallWorld("pile")), IsOk());
  // n disks on one spot pair n(n-1)/2 times: just past the limit (the
  // step's command below keeps its body in the pile).
  uint64_t n = 2;
  while (n * (n - 1) / 2 <= kMaxStepPairs) ++n;
  for (uint64_t first = 0; first < n; first += 1024) {
    v1::AddBodiesRequest add;
    add.set_world_id("pile");
    for (uint64_t id = first; id < std::min(n, first + 1024); ++id) {
      *add.add_bodies() = client::MakeBody(1000 + id, v1::BODY_TYPE_DYNAMIC, 0, 40, client::MakeCircle(1));
    }
    ASSERT_THAT(server.client().AddBodies(add), IsOk());
  }
  const std::pair<int64_t, uint64_t> before = WorldTickAndHash(server.client(), "pile");
  v1::StepRequest step = OneTick("pile");
  v1::StepCommand* command = step.add_commands();
  command->mutable_update()->set_body_id(1000);
  *command->mutable_update()->mutable_transform() = client::MakeTransform(0.5, 40);  // still in the pile
  EXPECT_THAT(server.client().Step(step),
              StatusIs(StatusCode::kResourceExhausted,
                       "ticks: the tick from " + std::to_string(before.first) + " would find more than " +
                           std::to_string(kMaxStepPairs) + " candidate contact pairs"));
  EXPECT_EQ(WorldTickAndHash(server.client(), "pile"), before);
  // Spread out, the same bodies step.
  v1::UpdateBodiesRequest spread;
  spread.set_world_id("pile");
  for (uint64_t id = 0; id < n; ++id) {
    v1::BodyUpdate* u = spread.add_updates();
    u->set_body_id(1000 + id);
    *u->mutable_transform() = client::MakeTransform(static_cast<double>(id % 64) * 3, 40 + static_cast<double>(id / 64) * 3);
  }
  ASSERT_THAT(server.client().UpdateBodies(spread), IsOk());
  EXPECT_THAT(server.client().Step(OneTick("pile")), IsOk());
}

}  // namespace
}  // namespace arbiter::testing
