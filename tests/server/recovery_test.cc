// A restarting arbiter-server process and its journal: it listens at once,
// says NOT_SERVING and refuses what it cannot answer truthfully while it
// replays, serves each world as soon as that world is back, and still
// refuses to serve a journal whose replay differs (exit 1, the reason on
// stderr). --recovery_delay_ms_for_testing stretches the replay of a small
// journal to a few seconds, so the checks below run while it is going on.
#include <signal.h>
#include <sys/wait.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "journal/journal.h"
#include "match_script.h"
#include "server_process.h"
#include "test_support.h"
#include "testing/temp_dir.h"

namespace arbiter::testing {
namespace {

using absl::StatusCode;

// One snapshot only (at creation): recovery replays every record.
std::vector<std::string> Flags(const TempDir& dir, bool slow = false) {
  std::vector<std::string> flags = {"--data_dir=" + dir.path(), "--snapshot_every_ticks=1000000"};
  // 30 ms a record: the match's ~150 records take at least 4.5 s.
  if (slow) flags.push_back("--recovery_delay_ms_for_testing=30");
  return flags;
}

absl::StatusOr<v1::GetStateHashResponse> HashOf(client::ArbiterClient& client, const std::string& world) {
  v1::GetStateHashRequest request;
  request.set_world_id(world);
  return client.GetStateHash(request);
}

void ExpectHealth(client::ArbiterClient& client, bool serving) {
  for (const std::string service : {"", "arbiter.v1.Arbiter"}) {
    absl::StatusOr<bool> health = client.CheckHealth(service);
    ASSERT_THAT(health, IsOk()) << "service '" << service << "'";
    EXPECT_EQ(*health, serving) << "service '" << service << "'";
  }
}

// A journal holding "early" (created first, never changed) and "match"
// (150 changes); the server is then killed. `before`: match's tick and hash.
void PlayAndKill(const TempDir& dir, std::pair<int64_t, uint64_t>* before) {
  ServerProcess server(Flags(dir));
  ASSERT_GT(server.port(), 0) << server.first_line() << server.stderr_text();
  ASSERT_TRUE(server.WaitUntilRecovered()) << server.stderr_text();
  std::unique_ptr<client::ArbiterClient> client = client::ArbiterClient::Connect(server.address());
  ASSERT_THAT(client->CreateWorld(MatchScript("early", 5).Create()), IsOk());
  MatchScript match("match", 21);
  ASSERT_THAT(client->CreateWorld(match.Create()), IsOk());
  for (int i = 0; i < 150; ++i) ASSERT_THAT(MatchScript::Apply(*client, match.Next()), IsOk());
  absl::StatusOr<v1::GetStateHashResponse> hash = HashOf(*client, "match");
  ASSERT_THAT(hash, IsOk());
  *before = {hash->tick(), hash->state_hash()};
  server.Signal(SIGKILL);
  server.Wait();
}

// Appends to match's journal a step whose recorded hash is wrong, as a
// damaged store or a non-deterministic build would present it.
void AppendAWrongStep(const TempDir& dir, std::pair<int64_t, uint64_t> at) {
  absl::StatusOr<std::unique_ptr<server::Journal>> journal = server::Journal::Open({dir.path()});
  ASSERT_THAT(journal, IsOk());
  absl::StatusOr<std::vector<server::Journal::StoredWorld>> worlds = (*journal)->LiveWorlds();
  ASSERT_THAT(worlds, IsOk());
  int64_t key = -1;
  for (const server::Journal::StoredWorld& w : *worlds) {
    if (w.world_id == "match") key = w.key;
  }
  ASSERT_GE(key, 0);
  uint64_t last_seq = 0;
  ASSERT_THAT((*journal)->ReadForRecovery(key,
                                          [&](const v1::JournalRecord& r) {
                                            last_seq = std::max(last_seq, r.seq());
                                            return absl::OkStatus();
                                          }),
              IsOk());
  v1::JournalRecord step;
  step.set_seq(last_seq + 1);
  step.set_tick(at.first);
  step.mutable_step()->set_ticks(1);
  step.add_tick_hashes(at.second ^ 1);
  ASSERT_THAT((*journal)->Append(key, {&step}), IsOk());
}

TEST(RecoveryTest, Restart_ListensAtOnce_RefusesUntilEachWorldIsBack_ThenServesItUnchanged) {
  TempDir dir;
  std::pair<int64_t, uint64_t> before;
  ASSERT_NO_FATAL_FAILURE(PlayAndKill(dir, &before));

  ServerProcess server(Flags(dir, /*slow=*/true));
  ASSERT_GT(server.port(), 0) << "it must listen before replaying: " << server.first_line() << server.stderr_text();
  std::unique_ptr<client::ArbiterClient> client = client::ArbiterClient::Connect(server.address());
  ASSERT_NO_FATAL_FAILURE(ExpectHealth(*client, false));

  // "early" is back, "match" is being replayed (for seconds).
  ASSERT_TRUE(server.WaitForStderr("recovered world 'early' (1 of 2)")) << server.stderr_text();
  ASSERT_TRUE(server.WaitForStderr("recovering world 'match' (2 of 2)")) << server.stderr_text();
  EXPECT_THAT(HashOf(*client, "match"),
              StatusIs(StatusCode::kUnavailable, "world_id: world 'match' is not back yet: the server is recovering"));
  v1::CastRaysRequest rays;
  rays.set_world_id("match");
  rays.set_mode(v1::CAST_MODE_CLOSEST);
  rays.add_rays()->mutable_translation()->set_y(Fixed::FromInt(-10).raw());
  EXPECT_THAT(client->CastRays(rays), StatusIs(StatusCode::kUnavailable, "retry in a few seconds"));
  EXPECT_THAT(HashOf(*client, "early"), IsOk()) << "a world that is back is served";
  // Nothing may create a world, change one or list them until all are back:
  // a second "match" would be a second live journal row.
  EXPECT_THAT(client->CreateWorld(MatchScript("match", 1).Create()),
              StatusIs(StatusCode::kUnavailable, "recovering its journal (1 of 2 worlds back)"));
  EXPECT_THAT(client->CreateWorld(MatchScript("fresh", 1).Create()), StatusIs(StatusCode::kUnavailable, "recovering"));
  v1::StepRequest step;
  step.set_world_id("early");
  step.set_ticks(1);
  EXPECT_THAT(client->Step(step), StatusIs(StatusCode::kUnavailable, "recovering its journal"));
  EXPECT_THAT(client->ListWorlds(v1::ListWorldsRequest()), StatusIs(StatusCode::kUnavailable, "recovering"));
  ASSERT_NO_FATAL_FAILURE(ExpectHealth(*client, false));

  ASSERT_TRUE(server.WaitUntilRecovered()) << server.stderr_text();
  EXPECT_NE(server.stderr_text().find("recovering world 'match' (2 of 2): "), std::string::npos);
  EXPECT_NE(server.stderr_text().find(" records, tick "), std::string::npos) << "progress while replaying";
  EXPECT_NE(server.stderr_text().find("recovered world 'match' (2 of 2) at tick " + std::to_string(before.first)),
            std::string::npos)
      << server.stderr_text();
  ASSERT_NO_FATAL_FAILURE(ExpectHealth(*client, true));
  absl::StatusOr<v1::GetStateHashResponse> after = HashOf(*client, "match");
  ASSERT_THAT(after, IsOk());
  EXPECT_EQ(std::make_pair(after->tick(), after->state_hash()), before);
  absl::StatusOr<v1::ListWorldsResponse> list = client->ListWorlds(v1::ListWorldsRequest());
  ASSERT_THAT(list, IsOk());
  EXPECT_EQ(list->worlds_size(), 2);
  EXPECT_THAT(client->Step(step), IsOk());
  EXPECT_THAT(client->CreateWorld(MatchScript("match", 1).Create()), StatusIs(StatusCode::kAlreadyExists, "'match'"));
}

TEST(RecoveryTest, JournalThatReplaysDifferently_ListensNotServing_ThenExitsNonZeroNamingTheWorld) {
  TempDir dir;
  std::pair<int64_t, uint64_t> before;
  ASSERT_NO_FATAL_FAILURE(PlayAndKill(dir, &before));
  ASSERT_NO_FATAL_FAILURE(AppendAWrongStep(dir, before));

  ServerProcess server(Flags(dir, /*slow=*/true));
  ASSERT_GT(server.port(), 0) << server.first_line() << server.stderr_text();
  std::unique_ptr<client::ArbiterClient> client = client::ArbiterClient::Connect(server.address());
  ASSERT_NO_FATAL_FAILURE(ExpectHealth(*client, false));
  const int status = server.Wait();
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 1) << status;
  EXPECT_TRUE(server.WaitForStderr("arbiter-server: DATA_LOSS: recovering world 'match' from " + dir.path()))
      << server.stderr_text();
  EXPECT_TRUE(server.WaitForStderr("at tick " + std::to_string(before.first + 1) +
                                   " (the state hash after the step into this tick differs); refusing to serve it"))
      << server.stderr_text();
  EXPECT_EQ(server.stderr_text().find("; recovered "), std::string::npos) << "it must never report success";
}

}  // namespace
}  // namespace arbiter::testing
