// The HTTP listener against a live arbiter-server process: its exposure
// rules (loopback, tokens by header or cookie, TLS with the gRPC
// certificate flags), read-only routes, the viewer's JSON (past ticks
// through the history) and its server-sent event stream.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <functional>
#include <cstdlib>
#include <thread>

#include <nlohmann/json.hpp>

#include "arbiter/client/client.h"
#include "http_support.h"
#include "server/auth_support.h"

namespace arbiter::testing {
namespace {

using ::testing::HasSubstr;

std::unique_ptr<client::ArbiterClient> Client(const std::string& address, const std::string& token = "") {
  client::ClientOptions options;
  options.timeout = std::chrono::milliseconds(20000);
  options.token = token;
  return client::ArbiterClient::Connect(address, options);
}

v1::CreateWorldRequest Falling(const std::string& id) {
  v1::CreateWorldRequest request;
  request.set_world_id(id);
  request.mutable_gravity()->set_y(-(int64_t{10} << 32));
  *request.add_bodies() = client::MakeBody(1, v1::BODY_TYPE_STATIC, 0, 0, client::MakeBox(10, 1));
  *request.add_bodies() = client::MakeBody(2, v1::BODY_TYPE_DYNAMIC, 0, 8, client::MakeCircle(1));
  *request.add_bodies() = client::MakeBody(3, v1::BODY_TYPE_DYNAMIC, 3, 12, client::MakeBox(1, 0.5));
  return request;
}

absl::Status Step(client::ArbiterClient& c, const std::string& world, uint32_t ticks) {
  v1::StepRequest step;
  step.set_world_id(world);
  step.set_ticks(ticks);
  return c.Step(step).status();
}

// Each body's id and pose, as the JSON carries them.
std::vector<std::string> Poses(const nlohmann::json& world) {
  std::vector<std::string> poses;
  for (const auto& b : world["bodies"]) {
    poses.push_back(b["id"].get<std::string>() + " " + b["x"].dump() + " " + b["y"].dump() + " " + b["c"].dump() +
                    " " + b["s"].dump());
  }
  return poses;
}

TEST(HttpListenerTest, NonLoopbackWithoutTokens_RefusesToStart_NamingTheFlag) {
  ServerProcess server({"--http_listen=0.0.0.0:0"});
  EXPECT_EQ(server.port(), 0);
  server.WaitForStderr("\n", 0, std::chrono::seconds(30));
  EXPECT_THAT(server.stderr_text(), HasSubstr("--http_listen: '0.0.0.0:0' is not a loopback address"));
  EXPECT_NE(server.Wait(), 0);
}

TEST(HttpListenerTest, BadAddress_RefusesToStart) {
  ServerProcess server({"--http_listen=127.0.0.1:http"});
  EXPECT_EQ(server.port(), 0);
  server.WaitForStderr("\n", 0, std::chrono::seconds(30));
  EXPECT_THAT(server.stderr_text(), HasSubstr("--http_listen: '127.0.0.1:http' has no port number"));
}

TEST(HttpListenerTest, WithTokens_ReaderTokenByHeaderOrCookie_ScopedToItsWorlds) {
  TempDir temp;
  const std::string tokens = temp.File("tokens");
  WriteFile(tokens, TokenLine("admin-secret", "admin", "*") + TokenLine("reader-a", "reader", "a", "viewer-a"));
  HttpServerProcess server({"--token_file=" + tokens});
  ASSERT_GT(server.http_port(), 0);
  auto admin = Client(server.grpc_address(), "admin-secret");
  ASSERT_TRUE(admin->CreateWorld(Falling("a")).ok());
  ASSERT_TRUE(admin->CreateWorld(Falling("b")).ok());
  httplib::Client http = server.Http();

  // The page itself holds no data.
  EXPECT_EQ(http.Get("/")->status, 200);
  httplib::Result none = http.Get("/api/worlds");
  EXPECT_EQ(none->status, 401);
  EXPECT_THAT(none->body, HasSubstr("\"code\":\"UNAUTHENTICATED\""));
  EXPECT_EQ(http.Get("/metrics")->status, 401);
  EXPECT_EQ(http.Get("/api/worlds", {{"Authorization", "Bearer nope"}})->status, 401);

  httplib::Result by_header = http.Get("/api/worlds", {{"Authorization", "Bearer reader-a"}});
  ASSERT_EQ(by_header->status, 200);
  const nlohmann::json listed = nlohmann::json::parse(by_header->body);
  ASSERT_EQ(listed["worlds"].size(), 1u);  // not b
  EXPECT_EQ(listed["worlds"][0]["world_id"], "a");
  EXPECT_EQ(http.Get("/api/worlds/a", {{"Cookie", "theme=dark; arbiter_token=reader-a"}})->status, 200);
  EXPECT_EQ(http.Get("/api/worlds/b", {{"Cookie", "arbiter_token=reader-a"}})->status, 403);

  httplib::Result metrics = http.Get("/metrics", {{"Cookie", "arbiter_token=reader-a"}});
  ASSERT_EQ(metrics->status, 200);
  EXPECT_THAT(metrics->body, HasSubstr("arbiter_world_bodies{world=\"a\"} 3"));
  EXPECT_THAT(metrics->body, ::testing::Not(HasSubstr("world=\"b\"")));
}

TEST(HttpListenerTest, ReadOnly_NoRouteChangesAWorld) {
  HttpServerProcess server({});
  ASSERT_GT(server.http_port(), 0);
  auto c = Client(server.grpc_address());
  ASSERT_TRUE(c->CreateWorld(Falling("w")).ok());
  httplib::Client http = server.Http();
  for (const char* path : {"/api/worlds/w", "/api/worlds", "/metrics", "/api/worlds/w/events"}) {
    EXPECT_GE(http.Post(path, "{}", "application/json")->status, 400) << path;
    EXPECT_GE(http.Delete(path)->status, 400) << path;
    EXPECT_GE(http.Put(path, "{}", "application/json")->status, 400) << path;
  }
  v1::DescribeWorldRequest describe;
  describe.set_world_id("w");
  EXPECT_EQ(c->DescribeWorld(describe)->world().tick(), 0);
  EXPECT_EQ(c->DescribeWorld(describe)->world().body_count(), 3u);
}

TEST(HttpListenerTest, WorldJson_AtAPastTick_EqualsThatTicksLiveState) {
  HttpServerProcess server({});
  ASSERT_GT(server.http_port(), 0);
  auto c = Client(server.grpc_address());
  ASSERT_TRUE(c->CreateWorld(Falling("p")).ok());
  ASSERT_TRUE(Step(*c, "p", 10).ok());
  httplib::Client http = server.Http();
  const nlohmann::json at10 = nlohmann::json::parse(http.Get("/api/worlds/p")->body);
  ASSERT_EQ(at10["tick"], 10);
  ASSERT_TRUE(Step(*c, "p", 15).ok());

  const nlohmann::json past = nlohmann::json::parse(http.Get("/api/worlds/p?at=10")->body);
  EXPECT_EQ(past["tick"], 10);
  EXPECT_EQ(past["live_tick"], 25);
  EXPECT_EQ(Poses(past), Poses(at10));
  EXPECT_NE(Poses(nlohmann::json::parse(http.Get("/api/worlds/p")->body)), Poses(at10));  // they fell

  httplib::Result future = http.Get("/api/worlds/p?at=99");
  EXPECT_EQ(future->status, 400);
  EXPECT_THAT(future->body, HasSubstr("at.tick"));
  EXPECT_EQ(http.Get("/api/worlds/p?at=ten")->status, 400);
  EXPECT_EQ(http.Get("/api/worlds/nope")->status, 404);
}

// Reads world's event stream until done(text so far); once the first
// event (the state at subscription) has arrived, runs act() on a thread.
std::string ReadEvents(HttpServerProcess& server, const std::string& world, const std::function<void()>& act,
                       const std::function<bool(const std::string&)>& done) {
  httplib::Client http = server.Http();
  std::string received;
  std::thread actor;
  http.Get("/api/worlds/" + world + "/events", [&](const char* data, size_t n) {
    received.append(data, n);
    if (!actor.joinable() && received.find("event: tick") != std::string::npos) actor = std::thread(act);
    return !done(received);
  });
  if (actor.joinable()) actor.join();
  return received;
}

TEST(HttpListenerTest, EventStream_SendsTheStateAtEachStep) {
  HttpServerProcess server({});
  ASSERT_GT(server.http_port(), 0);
  auto c = Client(server.grpc_address());
  ASSERT_TRUE(c->CreateWorld(Falling("s")).ok());
  const std::string received = ReadEvents(
      server, "s", [&] { EXPECT_TRUE(Step(*c, "s", 3).ok()); },
      [](const std::string& text) { return text.find("\"tick\":3,") != std::string::npos; });
  EXPECT_THAT(received, HasSubstr("event: tick\ndata: {\"tick\":0,\"bodies\":[{\"id\":\"1\""));
  EXPECT_THAT(received, HasSubstr("data: {\"tick\":3,\"bodies\":"));
}

TEST(HttpListenerTest, EventStream_CarriesValidateHitVerdicts) {
  HttpServerProcess server({});
  ASSERT_GT(server.http_port(), 0);
  auto c = Client(server.grpc_address());
  ASSERT_TRUE(c->CreateWorld(Falling("h")).ok());
  // Body 3 shoots straight down from (3, 12): past the ball at x = 0, onto the ground (1).
  v1::ValidateHitRequest hit;
  hit.set_world_id("h");
  hit.set_shooter_body_id(3);
  hit.set_target_body_id(1);
  *hit.mutable_ray() = client::MakeRay(3, 12, 0, -20);
  const std::string received = ReadEvents(
      server, "h", [&] { EXPECT_TRUE(c->ValidateHit(hit).ok()); },
      [](const std::string& text) {
        const size_t at = text.find("event: hit");
        return at != std::string::npos && text.find("}\n\n", at) != std::string::npos;
      });
  EXPECT_THAT(received, HasSubstr("event: hit\ndata: {\"tick\":0,\"fraction\":0,\"shooter\":\"3\",\"target\":\"1\","
                                  "\"verdict\":\"CONFIRMED\""));
}

TEST(HttpListenerTest, Tls_ServesHttpsWithTheGrpcCertificate) {
  TempDir temp;
  const std::string dir = temp.path();
  const std::string make =
      "cd " + dir + " && openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout s.key "
      "-out s.crt -days 2 -subj /CN=localhost -addext subjectAltName=IP:127.0.0.1 > openssl.log 2>&1";
  ASSERT_EQ(std::system(make.c_str()), 0) << dir << "/openssl.log";
  HttpServerProcess server({"--tls_cert=" + dir + "/s.crt", "--tls_key=" + dir + "/s.key"});
  ASSERT_GT(server.http_port(), 0) << server.process().first_line();
  httplib::SSLClient https("127.0.0.1", server.http_port());
  https.set_ca_cert_path((dir + "/s.crt").c_str());
  https.enable_server_certificate_verification(true);
  httplib::Result r = https.Get("/api/worlds");
  ASSERT_TRUE(r) << httplib::to_string(r.error());
  EXPECT_EQ(r->status, 200);
  // Plain HTTP to the TLS port gets nothing.
  EXPECT_FALSE(server.Http().Get("/api/worlds"));
}

}  // namespace
}  // namespace arbiter::testing
