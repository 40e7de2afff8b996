// GET /metrics and --log_requests against a live arbiter-server process:
// gRPC calls over loopback, then the scrape checked by promtool and by
// the exact counters the calls must have moved, and the request log read
// from the server's stderr.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <csignal>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>

#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>
#include <nlohmann/json.hpp>

#include "arbiter/client/client.h"
#include "http_support.h"
#include "server/auth_support.h"

namespace arbiter::testing {
namespace {

using ::testing::HasSubstr;

std::unique_ptr<client::ArbiterClient> Client(const std::string& address) {
  client::ClientOptions options;
  options.timeout = std::chrono::milliseconds(20000);
  return client::ArbiterClient::Connect(address, options);
}

v1::CreateWorldRequest TwoBodies(const std::string& id) {
  v1::CreateWorldRequest request;
  request.set_world_id(id);
  *request.add_bodies() = client::MakeBody(1, v1::BODY_TYPE_STATIC, 0, 0, client::MakeBox(10, 1));
  *request.add_bodies() = client::MakeBody(2, v1::BODY_TYPE_DYNAMIC, 0, 5, client::MakeCircle(1));
  return request;
}

// The value of the sample `series` (name{labels} exactly as exposed); -1 when absent.
double Sample(const std::string& scrape, const std::string& series) {
  std::istringstream in(scrape);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(series + " ", 0) == 0) return std::stod(line.substr(series.size() + 1));
  }
  return -1;
}

// promtool's verdict on an exposition: its exit code and output.
std::pair<int, std::string> Promtool(const std::string& scrape) {
  TempDir dir;
  const std::string path = dir.File("scrape.txt");
  WriteFile(path, scrape);
  FILE* p = popen(("promtool check metrics < " + path + " 2>&1").c_str(), "r");
  if (p == nullptr) return {-1, "cannot run promtool"};
  std::string out;
  char buf[512];
  while (size_t n = std::fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  const int status = pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

TEST(MetricsTest, Scrape_AfterCalls_PassesPromtool_AndCountsEachCall) {
  HttpServerProcess server({});
  ASSERT_GT(server.http_port(), 0) << server.process().first_line();
  auto c = Client(server.grpc_address());
  ASSERT_TRUE(c->CreateWorld(TwoBodies("m")).ok());
  for (int i = 0; i < 3; ++i) {
    v1::StepRequest step;
    step.set_world_id("m");
    step.set_ticks(4);
    ASSERT_TRUE(c->Step(step).ok());
  }
  v1::CastRaysRequest rays;
  rays.set_world_id("nowhere");
  rays.set_mode(v1::CAST_MODE_CLOSEST);
  *rays.add_rays() = client::MakeRay(0, 10, 0, -20);
  EXPECT_EQ(c->CastRays(rays).status().code(), absl::StatusCode::kNotFound);

  httplib::Result r = server.Http().Get("/metrics");
  ASSERT_TRUE(r) << httplib::to_string(r.error());
  ASSERT_EQ(r->status, 200) << r->body;
  EXPECT_THAT(r->get_header_value("Content-Type"), HasSubstr("text/plain; version=0.0.4"));
  const auto [code, verdict] = Promtool(r->body);
  EXPECT_EQ(code, 0) << verdict << "\n" << r->body;

  const std::pair<const char*, double> expected[] = {
      {"arbiter_requests_total{method=\"CreateWorld\",code=\"OK\"}", 1},
      {"arbiter_requests_total{method=\"Step\",code=\"OK\"}", 3},
      {"arbiter_requests_total{method=\"CastRays\",code=\"NOT_FOUND\"}", 1},
      {"arbiter_request_duration_seconds_count{method=\"Step\"}", 3},
      {"arbiter_request_duration_seconds_bucket{method=\"Step\",le=\"+Inf\"}", 3},
      {"arbiter_world_ticks_total{world=\"m\"}", 12},
      {"arbiter_world_step_duration_seconds_count{world=\"m\"}", 3},
      {"arbiter_world_bodies{world=\"m\"}", 2},
      {"arbiter_world_tick{world=\"m\"}", 12},
  };
  const std::string& m = r->body;
  for (const auto& [series, value] : expected) EXPECT_EQ(Sample(m, series), value) << series;
  EXPECT_GT(Sample(m, "arbiter_world_history_bytes{world=\"m\"}"), 0);
  EXPECT_EQ(Sample(m, "arbiter_rate_limited_total"), 0);
  EXPECT_EQ(Sample(m, "arbiter_in_flight_rejected_total"), 0);
  EXPECT_GE(Sample(m, "arbiter_worker_queue_depth"), 0);
}

TEST(MetricsTest, Journal_CommitsAndBytes_AreCounted) {
  TempDir temp;
  const std::string dir = temp.File("journal");
  HttpServerProcess server({"--data_dir=" + dir, "--journal_sync=off"});
  ASSERT_GT(server.http_port(), 0) << server.process().first_line();
  ASSERT_TRUE(server.process().WaitUntilRecovered());
  auto c = Client(server.grpc_address());
  ASSERT_TRUE(c->CreateWorld(TwoBodies("j")).ok());
  v1::StepRequest step;
  step.set_world_id("j");
  step.set_ticks(2);
  ASSERT_TRUE(c->Step(step).ok());
  httplib::Result r = server.Http().Get("/metrics");
  ASSERT_TRUE(r);
  EXPECT_EQ(Promtool(r->body).first, 0) << r->body;
  // The world's creation (header + snapshot) and the step: two transactions.
  EXPECT_EQ(Sample(r->body, "arbiter_journal_commit_duration_seconds_count"), 2);
  EXPECT_GT(Sample(r->body, "arbiter_journal_written_bytes_total"), 0);
  EXPECT_EQ(Sample(r->body, "arbiter_journal_write_failures_total"), 0);
}

// ValidateShots verdicts by world and verdict (too_old among them) and the
// re-sent shots answered from the ledger.
TEST(MetricsTest, JudgedShots_AreCountedByVerdict_TooOldIncluded) {
  HttpServerProcess server({"--max_rewind_ms=100"});  // 6 ticks at 60 Hz
  ASSERT_GT(server.http_port(), 0) << server.process().first_line();
  auto c = Client(server.grpc_address());
  v1::CreateWorldRequest create = TwoBodies("s");
  create.set_tick_hz(60);
  ASSERT_TRUE(c->CreateWorld(create).ok());
  v1::StepRequest step;
  step.set_world_id("s");
  step.set_ticks(20);
  ASSERT_TRUE(c->Step(step).ok());
  // Straight down from (0, 20) onto the floor (body 1), claimed as hitting body 1.
  auto shot = [](uint64_t id, int64_t tick) {
    v1::Shot s;
    s.set_shooter_body_id(2);
    s.set_shot_id(id);
    s.mutable_fire()->set_tick(tick);
    *s.mutable_origin() = client::MakeVec2(5, 20);
    *s.mutable_velocity() = client::MakeVec2(0, -600);
    s.set_flight_ticks(10);
    s.set_target_body_id(1);
    s.set_impact_tick(tick + 1);
    return s;
  };
  v1::ValidateShotsRequest request;
  request.set_world_id("s");
  for (const auto& [id, tick] : {std::pair{1, 5}, std::pair{2, 18}, std::pair{3, 2}}) *request.add_shots() = shot(id, tick);
  absl::StatusOr<v1::ValidateShotsResponse> reply = c->ValidateShots(request);
  ASSERT_TRUE(reply.ok()) << reply.status();
  ASSERT_EQ(reply->judgements(1).verdict(), v1::SHOT_VERDICT_CONFIRMED) << reply->judgements(1).reason();
  ASSERT_TRUE(c->ValidateShots(request).ok());  // all three again: duplicates
  httplib::Result r = server.Http().Get("/metrics");
  ASSERT_TRUE(r);
  EXPECT_EQ(Promtool(r->body).first, 0) << r->body;
  EXPECT_EQ(Sample(r->body, "arbiter_shots_judged_total{world=\"s\",verdict=\"too_old\"}"), 2);
  EXPECT_EQ(Sample(r->body, "arbiter_shots_judged_total{world=\"s\",verdict=\"confirmed\"}"), 1);
  EXPECT_EQ(Sample(r->body, "arbiter_shots_judged_total{world=\"s\",verdict=\"missed\"}"), 0);
  EXPECT_EQ(Sample(r->body, "arbiter_shots_duplicate_total{world=\"s\"}"), 3);
}

TEST(MetricsTest, RateLimitRejections_AreCounted) {
  // One request per 1000 s, burst 1: the second call is refused however fast the machine.
  HttpServerProcess server({"--rate_limit_rps=0.001", "--rate_limit_burst=1"});
  ASSERT_GT(server.http_port(), 0);
  auto c = Client(server.grpc_address());
  EXPECT_TRUE(c->ListWorlds().ok());
  EXPECT_EQ(c->ListWorlds().status().code(), absl::StatusCode::kResourceExhausted);
  httplib::Result r = server.Http().Get("/metrics");  // its own caller (another connection)
  ASSERT_TRUE(r);
  EXPECT_EQ(Sample(r->body, "arbiter_rate_limited_total"), 1);
  EXPECT_EQ(Sample(r->body, "arbiter_requests_total{method=\"ListWorlds\",code=\"RESOURCE_EXHAUSTED\"}"), 1);
}

TEST(RequestLogTest, LogRequests_WritesOneJsonLinePerCall) {
  TempDir dir;
  const std::string tokens = dir.File("tokens");
  WriteFile(tokens, TokenLine("admin-secret", "admin", "*", "ops-console"));
  HttpServerProcess server({"--log_requests", "--token_file=" + tokens});
  ASSERT_GT(server.http_port(), 0);
  auto c = ClientWithToken(server.grpc_address(), "admin-secret");
  ASSERT_TRUE(c->CreateWorld(TwoBodies("logged")).ok());
  v1::CastRaysRequest rays;
  rays.set_world_id("logged");
  rays.set_mode(v1::CAST_MODE_CLOSEST);
  *rays.add_rays() = client::MakeRay(0, 10, 0, -20);
  *rays.add_rays() = client::MakeRay(5, 10, 0, -20);
  ASSERT_TRUE(c->CastRays(rays).ok());
  v1::CastRaysRequest columns;  // three rays as column rows
  columns.set_world_id("logged");
  columns.set_mode(v1::CAST_MODE_ANY);
  for (int64_t x : {-1, 0, 1}) {
    columns.mutable_columns()->add_origin_x(x * (int64_t{1} << 32));
    columns.mutable_columns()->add_origin_y(int64_t{10} << 32);
    columns.mutable_columns()->add_translation_x(0);
    columns.mutable_columns()->add_translation_y(-(int64_t{20} << 32));
  }
  ASSERT_TRUE(c->CastRays(columns).ok());
  EXPECT_FALSE(ClientWithToken(server.grpc_address(), "wrong")->ListWorlds().ok());
  ASSERT_TRUE(server.process().WaitForStderr("\"UNAUTHENTICATED\""));

  std::vector<nlohmann::json> calls;
  std::istringstream in(server.process().stderr_text());
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.front() == '{') calls.push_back(nlohmann::json::parse(line));
  }
  ASSERT_EQ(calls.size(), 4u) << server.process().stderr_text();
  EXPECT_EQ(calls[0]["method"], "CreateWorld");
  EXPECT_EQ(calls[0]["items"], 2);  // two bodies
  EXPECT_EQ(calls[1]["method"], "CastRays");
  EXPECT_EQ(calls[1]["world"], "logged");
  EXPECT_EQ(calls[1]["caller"], "token 'ops-console'");
  EXPECT_EQ(calls[1]["code"], "OK");
  EXPECT_EQ(calls[1]["items"], 2);
  EXPECT_TRUE(calls[1]["latency_us"].is_number_unsigned());
  EXPECT_THAT(calls[1]["time"].get<std::string>(), ::testing::MatchesRegex("....-..-..T..:..:..\\....Z"));
  EXPECT_EQ(calls[2]["items"], 3);
  EXPECT_EQ(calls[3]["method"], "ListWorlds");
  EXPECT_EQ(calls[3]["caller"], "unknown token");
  EXPECT_EQ(calls[3]["code"], "UNAUTHENTICATED");
  // Never the token itself.
  EXPECT_THAT(server.process().stderr_text(), ::testing::Not(HasSubstr("admin-secret")));
}

TEST(RequestLogTest, WorldIdThatIsNotUtf8_IsLoggedAndTheServerServesOn) {
  // The world id is logged as JSON, and nlohmann's dump throws on bytes
  // that are not UTF-8 by default. Sent as raw bytes:
  // GetStateHashRequest { world_id = "w\xff\xfe" }.
  HttpServerProcess server({"--log_requests"});
  ASSERT_GT(server.http_port(), 0);
  auto channel = grpc::CreateChannel(server.grpc_address(), grpc::InsecureChannelCredentials());
  grpc::GenericStub stub(channel);
  const std::string bytes("\x0a\x03w\xff\xfe", 5);
  grpc::Slice slice(bytes);
  grpc::ByteBuffer request(&slice, 1);
  grpc::ByteBuffer reply;
  grpc::ClientContext context;
  grpc::CompletionQueue cq;
  std::unique_ptr<grpc::GenericClientAsyncResponseReader> call =
      stub.PrepareUnaryCall(&context, "/arbiter.v1.Arbiter/GetStateHash", request, &cq);
  call->StartCall();
  grpc::Status status;
  call->Finish(&reply, &status, reinterpret_cast<void*>(1));
  void* tag = nullptr;
  bool ok = false;
  ASSERT_TRUE(cq.Next(&tag, &ok));
  EXPECT_FALSE(status.ok());  // no such world (or not parseable): refused, not a crash
  ASSERT_TRUE(server.process().WaitForStderr("\"GetStateHash\""));
  // Protobuf refuses the string at parse, so the line names no world; the
  // log's replace-on-bad-UTF-8 is the second line of defence.
  EXPECT_THAT(server.process().stderr_text(), HasSubstr("\"method\":\"GetStateHash\",\"world\":\"\""));
  // Still serving.
  EXPECT_TRUE(Client(server.grpc_address())->ListWorlds().ok());
  EXPECT_TRUE(server.process().WaitForStderr("\"ListWorlds\""));
}

TEST(RequestLogTest, WithoutTheFlag_NoRequestLines_ButShutdownIsLogged) {
  HttpServerProcess server({});
  ASSERT_GT(server.http_port(), 0);
  ASSERT_TRUE(Client(server.grpc_address())->ListWorlds().ok());
  server.process().Signal(SIGTERM);
  ASSERT_TRUE(server.process().WaitForStderr("arbiter-server: stopped"));
  EXPECT_THAT(server.process().stderr_text(), HasSubstr("SIGTERM, finishing calls in flight"));
  EXPECT_THAT(server.process().stderr_text(), ::testing::Not(HasSubstr("\"method\"")));
}

}  // namespace
}  // namespace arbiter::testing
