// GetServerInfo against arbiter-server processes started with non-default
// flags: every limit and feature in the reply is the flag the server was
// started with, and the call needs only a reader token.
#include "auth_support.h"
#include "server_process.h"

namespace arbiter::testing {
namespace {

TEST(ServerInfoTest, Reply_IsTheServersFlags) {
  ServerProcess server({"--max_batch=1234", "--max_message_bytes=5000001", "--max_step_ticks=77", "--max_worlds=5",
                        "--max_bodies_per_world=999", "--history_seconds=3", "--max_history_ticks=501",
                        "--hash_window_ticks=602", "--query_threads=3", "--max_scene_bytes=12345",
                        "--rate_limit_rps=50", "--max_calls_in_flight=9",
                        "--scene_dir=" + std::string(ARBITER_SCENES_DIR)});
  ASSERT_GT(server.port(), 0) << server.first_line();
  auto client = client::ArbiterClient::Connect(server.address());
  absl::StatusOr<v1::GetServerInfoResponse> info = client->ServerInfo();
  ASSERT_TRUE(info.ok()) << info.status();

  EXPECT_EQ(info->version(), ARBITER_VERSION);
  const v1::ServerLimits& limits = info->limits();
  EXPECT_EQ(limits.max_batch(), 1234u);
  EXPECT_EQ(limits.max_message_bytes(), 5000001u);
  EXPECT_EQ(limits.max_step_ticks(), 77u);
  EXPECT_EQ(limits.max_worlds(), 5u);
  EXPECT_EQ(limits.max_bodies_per_world(), 999u);
  EXPECT_EQ(limits.history_seconds(), 3u);
  EXPECT_EQ(limits.max_history_ticks(), 501u);
  EXPECT_EQ(limits.hash_window_ticks(), 602u);
  EXPECT_EQ(limits.query_threads(), 3u);
  EXPECT_EQ(limits.max_scene_bytes(), 12345u);
  EXPECT_EQ(limits.rate_limit_rps(), 50.0);
  EXPECT_EQ(limits.max_calls_in_flight(), 9u);
  EXPECT_EQ(limits.max_shapes_per_body(), kMaxShapesPerBody);
  EXPECT_EQ(limits.max_world_coordinate(), int64_t{1} << 61);   // 2^29 units
  EXPECT_EQ(limits.max_query_translation(), int64_t{1} << 62);  // 2^30 units

  const v1::ServerFeatures& features = info->features();
  EXPECT_FALSE(features.auth_required());
  EXPECT_FALSE(features.tls());
  EXPECT_FALSE(features.client_certificate_required());
  EXPECT_FALSE(features.journal());  // ServerProcess passes --data_dir=
  EXPECT_TRUE(features.scenes());
}

TEST(ServerInfoTest, Batch_OneOverTheAdvertisedMaxBatch_IsRefused) {
  ServerProcess server({"--max_batch=3"});
  ASSERT_GT(server.port(), 0) << server.first_line();
  auto client = client::ArbiterClient::Connect(server.address());
  absl::StatusOr<v1::GetServerInfoResponse> info = client->ServerInfo();
  ASSERT_TRUE(info.ok()) << info.status();
  ASSERT_TRUE(client->CreateWorld(SmallWorld("w")).ok());
  v1::CastRaysRequest rays;
  rays.set_world_id("w");
  rays.set_mode(v1::CAST_MODE_CLOSEST);
  for (uint32_t i = 0; i < info->limits().max_batch(); ++i) *rays.add_rays() = client::MakeRay(i, 10, 0, -20);
  EXPECT_TRUE(client->CastRays(rays).ok());
  *rays.add_rays() = client::MakeRay(0, 10, 0, -20);
  EXPECT_EQ(client->CastRays(rays).status().code(), absl::StatusCode::kResourceExhausted);
}

TEST(ServerInfoTest, WithTokens_NeedsAnyToken_AndSaysSo) {
  TempDir dir;
  const std::string tokens = dir.File("tokens");
  WriteFile(tokens, TokenLine("reader-secret", "reader", "some-world"));
  ServerProcess server({"--token_file=" + tokens});
  ASSERT_GT(server.port(), 0) << server.first_line();

  EXPECT_EQ(ClientWithToken(server.address(), "")->ServerInfo().status().code(), absl::StatusCode::kUnauthenticated);
  absl::StatusOr<v1::GetServerInfoResponse> info = ClientWithToken(server.address(), "reader-secret")->ServerInfo();
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_TRUE(info->features().auth_required());
  EXPECT_EQ(info->limits().max_batch(), 65536u);  // the default
}

}  // namespace
}  // namespace arbiter::testing
