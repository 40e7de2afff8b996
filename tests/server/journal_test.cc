// The durable journal on a real on-disk SQLite store: restart recovery,
// export, offline replay verification (including a doctored file and
// recorded query answers), and a real server process killed with SIGKILL
// in the middle of a stream of changes.
#include <google/protobuf/util/message_differencer.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <random>
#include <thread>

#include "bounce_world.h"
#include "journal_file.h"
#include "match_script.h"
#include "replay.h"
#include "server_process.h"
#include "test_support.h"

namespace arbiter::testing {
namespace {

using google::protobuf::util::MessageDifferencer;
namespace fs = std::filesystem;

/// A fresh directory under the system temp dir, removed afterwards.
class TempDir {
 public:
  TempDir() {
    std::random_device seed;
    path_ = fs::temp_directory_path() / ("arbiter-journal-" + std::to_string(seed()) + std::to_string(seed()));
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  std::string path() const { return path_.string(); }
  std::string File(const std::string& name) const { return (path_ / name).string(); }

 private:
  fs::path path_;
};

server::ServerOptions JournaledOptions(const TempDir& dir, uint32_t snapshot_every = 16, bool queries = false) {
  server::ServerOptions o = TestServerOptions();
  o.data_dir = dir.path();
  o.journal_sync = server::JournalSync::kNormal;
  o.snapshot_every_ticks = snapshot_every;
  o.journal_queries = queries;
  return o;
}

std::pair<int64_t, uint64_t> TickAndHash(client::ArbiterClient& client, const std::string& world) {
  v1::GetStateHashRequest request;
  request.set_world_id(world);
  absl::StatusOr<v1::GetStateHashResponse> reply = client.GetStateHash(request);
  EXPECT_THAT(reply, IsOk());
  return reply.ok() ? std::make_pair(reply->tick(), reply->state_hash()) : std::make_pair(int64_t{-1}, uint64_t{0});
}

v1::CastRaysRequest SomeRays(const std::string& world) {
  v1::CastRaysRequest request;
  request.set_world_id(world);
  request.set_mode(v1::CAST_MODE_ALL);
  for (int i = 0; i < 16; ++i) {
    v1::Ray* ray = request.add_rays();
    ray->mutable_origin()->set_x(Fixed::FromInt(-50 + 7 * i).raw());
    ray->mutable_origin()->set_y(Fixed::FromInt(30).raw());
    ray->mutable_translation()->set_y(Fixed::FromInt(-40).raw());
  }
  return request;
}

server::ReplayReport Verify(const std::string& file) {
  std::vector<v1::JournalRecord> records;
  EXPECT_THAT(server::ParseJournalFile(file, &records), IsOk());
  server::WorldRegistry registry(server::RegistryLimits{});
  server::Replayer replayer(&registry, server::Replayer::Mode::kVerify);
  for (const v1::JournalRecord& r : records) EXPECT_THAT(replayer.Apply(r), IsOk());
  return replayer.report();
}

std::string Export(client::ArbiterClient& client, const std::string& world, int64_t from = 0, int64_t to = 0) {
  v1::ExportJournalRequest request;
  request.set_world_id(world);
  request.set_from_tick(from);
  request.set_to_tick(to);
  absl::StatusOr<std::string> file = client.ExportJournal(request);
  EXPECT_THAT(file, IsOk());
  return file.ok() ? *file : "";
}

// 150 changes, a snapshot, 20 more, a restore to the snapshot (the script
// goes back too), 60 more.
void PlayWithARestore(client::ArbiterClient& client, MatchScript& match) {
  for (int i = 0; i < 150; ++i) ASSERT_THAT(MatchScript::Apply(client, match.Next()), IsOk());
  v1::GetSnapshotRequest get;
  get.set_world_id(match.world());
  absl::StatusOr<v1::GetSnapshotResponse> snap = client.GetSnapshot(get);
  ASSERT_THAT(snap, IsOk());
  const MatchScript at_snapshot = match;
  for (int i = 0; i < 20; ++i) ASSERT_THAT(MatchScript::Apply(client, match.Next()), IsOk());
  v1::RestoreRequest restore;
  restore.set_world_id(match.world());
  restore.set_snapshot(snap->snapshot());
  ASSERT_THAT(client.Restore(restore), IsOk());
  match = at_snapshot;
  for (int i = 0; i < 60; ++i) ASSERT_THAT(MatchScript::Apply(client, match.Next()), IsOk());
}

// Play a match, restart the server on the same directory: every world is
// back at the same tick with the same hash, its lag-compensation window is
// whole again (past answers identical), and it carries on identically.
TEST(JournalTest, Restart_RecoversEveryWorld_WithHistory) {
  TempDir dir;
  MatchScript match("match", 21), twin("match", 21);
  std::pair<int64_t, uint64_t> before;
  std::vector<std::pair<int64_t, v1::CastRaysResponse>> past;
  {
    LiveServer server(JournaledOptions(dir));
    ASSERT_THAT(server.client().CreateWorld(match.Create()), IsOk());
    v1::CreateWorldRequest doomed = MatchScript("doomed", 1).Create();
    ASSERT_THAT(server.client().CreateWorld(doomed), IsOk());
    v1::DeleteWorldRequest del;
    del.set_world_id("doomed");
    ASSERT_THAT(server.client().DeleteWorld(del), IsOk());
    ASSERT_NO_FATAL_FAILURE(PlayWithARestore(server.client(), match));
    before = TickAndHash(server.client(), "match");
    for (int64_t t = before.first - 5; t < before.first; ++t) {
      v1::CastRaysRequest rays = SomeRays("match");
      rays.mutable_at()->set_tick(t);
      absl::StatusOr<v1::CastRaysResponse> reply = server.client().CastRays(rays);
      ASSERT_THAT(reply, IsOk());
      past.emplace_back(t, *reply);
    }
  }
  LiveServer restarted(JournaledOptions(dir));
  EXPECT_EQ(restarted.server().recovered(), std::vector<std::string>{"match"}) << "deleted worlds stay deleted";
  EXPECT_EQ(TickAndHash(restarted.client(), "match"), before);
  for (const auto& [tick, reply] : past) {
    v1::CastRaysRequest rays = SomeRays("match");
    rays.mutable_at()->set_tick(tick);
    absl::StatusOr<v1::CastRaysResponse> again = restarted.client().CastRays(rays);
    ASSERT_THAT(again, IsOk());
    EXPECT_TRUE(MessageDifferencer::Equals(*again, reply)) << "tick " << tick;
  }
  // Carry on: the restarted server and an uninterrupted one (no journal)
  // fed the whole match agree.
  LiveServer reference;
  ASSERT_THAT(reference.client().CreateWorld(twin.Create()), IsOk());
  ASSERT_NO_FATAL_FAILURE(PlayWithARestore(reference.client(), twin));
  EXPECT_EQ(TickAndHash(reference.client(), "match"), before);
  for (int i = 0; i < 40; ++i) {
    const MatchScript::Op op = match.Next();
    ASSERT_THAT(MatchScript::Apply(restarted.client(), op), IsOk());
    ASSERT_THAT(MatchScript::Apply(reference.client(), twin.Next()), IsOk());
  }
  EXPECT_EQ(TickAndHash(restarted.client(), "match"), TickAndHash(reference.client(), "match"));
}

// Export a journal with recorded queries and verify it offline: identical.
// Then doctor the file: a changed body spawn makes the replay diverge at
// the tick it first shows, with the bodies that differ named field by
// field; a changed recorded answer is flagged as a differing answer.
TEST(JournalTest, ExportAndReplayVerify_FindsDivergenceAndDisputedAnswers) {
  TempDir dir;
  LiveServer server(JournaledOptions(dir, /*snapshot_every=*/1, /*queries=*/true));
  MatchScript match("audit", 33);
  ASSERT_THAT(server.client().CreateWorld(match.Create()), IsOk());
  for (int i = 0; i < 80; ++i) {
    ASSERT_THAT(MatchScript::Apply(server.client(), match.Next()), IsOk());
    if (i % 10 == 0) ASSERT_THAT(server.client().CastRays(SomeRays("audit")), IsOk());
  }
  v1::ValidateHitRequest shot;
  shot.set_world_id("audit");
  shot.set_shooter_body_id(match.players()[0]);
  shot.set_target_body_id(match.players()[1]);
  shot.mutable_ray()->mutable_translation()->set_x(Fixed::FromInt(30).raw());
  shot.mutable_ray()->mutable_origin()->set_y(Fixed::FromInt(4).raw());
  ASSERT_THAT(server.client().ValidateHit(shot), IsOk());

  const std::string file = Export(server.client(), "audit");
  const server::ReplayReport clean = Verify(file);
  EXPECT_TRUE(clean.ok()) << clean.divergence << (clean.queries.empty() ? "" : clean.queries[0].what);
  EXPECT_GT(clean.ticks_checked, 40u);
  EXPECT_GT(clean.checkpoints_checked, 25u);
  EXPECT_EQ(clean.queries_checked, 9u);
  EXPECT_EQ(clean.last_tick, TickAndHash(server.client(), "audit").first);

  std::vector<v1::JournalRecord> records;
  ASSERT_THAT(server::ParseJournalFile(file, &records), IsOk());

  // Doctor the first body spawn after creation: move one crate.
  std::vector<v1::JournalRecord> doctored = records;
  uint64_t moved = 0;
  int64_t spawn_tick = -1;
  for (v1::JournalRecord& r : doctored) {
    if (r.has_add_bodies()) {
      v1::BodyDef* b = r.mutable_add_bodies()->mutable_bodies(0);
      b->mutable_transform()->mutable_position()->set_x(b->transform().position().x() + Fixed::FromInt(3).raw());
      moved = b->id();
      spawn_tick = r.tick();
      break;
    }
  }
  ASSERT_NE(moved, 0u);
  std::string doctored_file(server::kJournalFileMagic);
  for (const v1::JournalRecord& r : doctored) server::AppendDelimited(r, &doctored_file);
  const server::ReplayReport diverged = Verify(doctored_file);
  ASSERT_TRUE(diverged.diverged);
  EXPECT_EQ(diverged.first_divergent_tick, spawn_tick + 1) << diverged.divergence;
  // A checkpoint ends every step (--snapshot_every_ticks=1), and a step
  // here runs 1 to 3 ticks.
  EXPECT_GE(diverged.compared_at_tick, diverged.first_divergent_tick);
  EXPECT_LE(diverged.compared_at_tick, diverged.first_divergent_tick + 2);
  bool found = false;
  for (const server::BodyDifference& d : diverged.bodies) found = found || (d.body_id == moved && d.field == "transform.p.x");
  EXPECT_TRUE(found) << "body " << moved << " must be named with its x";

  // Doctor a recorded answer: the audit flags it.
  std::vector<v1::JournalRecord> disputed = records;
  for (v1::JournalRecord& r : disputed) {
    if (r.has_query() && r.query().has_validate_hit_reply()) {
      r.mutable_query()->mutable_validate_hit_reply()->set_verdict(
          r.query().validate_hit_reply().verdict() == v1::HIT_VERDICT_CONFIRMED ? v1::HIT_VERDICT_MISSED
                                                                                : v1::HIT_VERDICT_CONFIRMED);
    }
  }
  std::string disputed_file(server::kJournalFileMagic);
  for (const v1::JournalRecord& r : disputed) server::AppendDelimited(r, &disputed_file);
  const server::ReplayReport audit = Verify(disputed_file);
  EXPECT_FALSE(audit.diverged);
  ASSERT_EQ(audit.queries.size(), 1u);
  EXPECT_EQ(audit.queries[0].kind, "validate_hit");
  EXPECT_NE(audit.queries[0].what.find("verdict"), std::string::npos) << audit.queries[0].what;

  // The CLI on the files: exit 0 for the clean one, 1 for the doctored one.
  const std::string clean_path = dir.File("clean.arbjournal"), doctored_path = dir.File("doctored.arbjournal");
  std::ofstream(clean_path, std::ios::binary) << file;
  std::ofstream(doctored_path, std::ios::binary) << doctored_file;
  const std::string cli = std::string(ARBITER_CLI_BINARY) + " replay verify ";
  EXPECT_EQ(WEXITSTATUS(std::system((cli + clean_path + " >/dev/null").c_str())), 0);
  EXPECT_EQ(WEXITSTATUS(std::system((cli + doctored_path + " >/dev/null").c_str())), 1);
  EXPECT_EQ(WEXITSTATUS(std::system((cli + dir.File("missing") + " 2>/dev/null").c_str())), 2);
}

TEST(JournalTest, ExportRange_StartsAtASnapshot_AndErrorsAreClear) {
  TempDir dir;
  LiveServer server(JournaledOptions(dir, /*snapshot_every=*/10));
  MatchScript match("ranged", 2);
  ASSERT_THAT(server.client().CreateWorld(match.Create()), IsOk());
  v1::StepRequest step;
  step.set_world_id("ranged");
  step.set_ticks(5);
  step.set_omit_events(true);
  for (int i = 0; i < 8; ++i) ASSERT_THAT(server.client().Step(step), IsOk());
  const std::string file = Export(server.client(), "ranged", 23, 33);
  std::vector<v1::JournalRecord> records;
  ASSERT_THAT(server::ParseJournalFile(file, &records), IsOk());
  ASSERT_GE(records.size(), 3u);
  EXPECT_TRUE(records[1].has_snapshot());
  EXPECT_EQ(records[1].tick(), 20);
  EXPECT_LT(records.back().tick(), 33);
  const server::ReplayReport r = Verify(file);
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.first_tick, 20);
  EXPECT_EQ(r.last_tick, 35);

  v1::ExportJournalRequest bad;
  bad.set_world_id("ranged");
  bad.set_from_tick(10);
  bad.set_to_tick(5);
  EXPECT_THAT(server.client().ExportJournal(bad), StatusIs(absl::StatusCode::kInvalidArgument, "to_tick"));
  bad.set_world_id("nope");
  bad.set_to_tick(0);
  EXPECT_THAT(server.client().ExportJournal(bad), StatusIs(absl::StatusCode::kNotFound, "nope"));
  LiveServer memory_only;
  bad.set_world_id("x");
  EXPECT_THAT(memory_only.client().ExportJournal(bad), StatusIs(absl::StatusCode::kFailedPrecondition, "--data_dir"));
  EXPECT_THAT(server::ParseJournalFile("garbage", &records), StatusIs(absl::StatusCode::kInvalidArgument, "ARBJRNL1"));
  EXPECT_THAT(server::ParseJournalFile(file.substr(0, file.size() - 3), &records),
              StatusIs(absl::StatusCode::kDataLoss, "journal file"));
}

// The store runs out of room (SQLite's page limit, as a full disk): the
// change that could not be journaled is refused, the world goes offline
// rather than show it, and a restart recovers the last acknowledged state.
TEST(JournalTest, FullStore_RefusesTheChange_AndRecoveryKeepsTheAcknowledgedState) {
  TempDir dir;
  server::ServerOptions options = JournaledOptions(dir, /*snapshot_every=*/1000);
  options.journal_max_pages = 40;  // 4 KiB pages: room for the world and a few dozen steps
  std::pair<int64_t, uint64_t> acknowledged;
  {
    LiveServer server(options);
    MatchScript match("full", 4);
    ASSERT_THAT(server.client().CreateWorld(match.Create()), IsOk());
    absl::Status last;
    for (int i = 0; i < 5000 && last.ok(); ++i) {
      const std::pair<int64_t, uint64_t> before = TickAndHash(server.client(), "full");
      last = MatchScript::Apply(server.client(), match.Next());
      if (last.ok()) continue;
      acknowledged = before;
    }
    ASSERT_THAT(last, StatusIs(absl::StatusCode::kUnavailable, "could not be journaled, so it was not applied"));
    v1::GetStateHashRequest request;
    request.set_world_id("full");
    EXPECT_THAT(server.client().GetStateHash(request), StatusIs(absl::StatusCode::kNotFound, "full"));
  }
  options.journal_max_pages = 0;
  LiveServer restarted(options);
  EXPECT_EQ(TickAndHash(restarted.client(), "full"), acknowledged);
}

// A real arbiter-server process is killed with SIGKILL while a client
// streams changes and steps at it. After a restart on the same directory,
// the world holds every acknowledged change and at most the one in flight,
// whole: its (tick, hash) equals an uninterrupted reference run after
// exactly n or n + 1 changes, where n were acknowledged.
TEST(JournalTest, SigkillMidStream_LosesNothingAcknowledged_AndHalfAppliesNothing) {
  TempDir dir;
  const std::vector<std::string> flags = {"--data_dir=" + dir.path(), "--journal_sync=normal",
                                          "--snapshot_every_ticks=25"};
  // The reference: the same match in memory, (tick, hash) after each change.
  LiveServer reference;
  MatchScript ref_match("crash", 77);
  ASSERT_THAT(reference.client().CreateWorld(ref_match.Create()), IsOk());
  std::vector<std::pair<int64_t, uint64_t>> expected = {TickAndHash(reference.client(), "crash")};
  for (int i = 0; i < 1500; ++i) {
    ASSERT_THAT(MatchScript::Apply(reference.client(), ref_match.Next()), IsOk());
    expected.push_back(TickAndHash(reference.client(), "crash"));
  }

  MatchScript match("crash", 77);
  size_t acknowledged = 0;  // changes acknowledged so far, over every run
  bool created = false;
  std::optional<MatchScript::Op> pending;  // sent, not acknowledged
  int in_flight_committed = 0;
  for (int round = 0; round < 3; ++round) {
    ServerProcess server(flags);
    ASSERT_GT(server.port(), 0) << server.first_line();
    std::unique_ptr<client::ArbiterClient> client = client::ArbiterClient::Connect(server.address());
    if (!created) {
      ASSERT_THAT(client->CreateWorld(match.Create()), IsOk());
      created = true;
    } else {
      // Recovered: exactly the acknowledged prefix, or one change more.
      const std::pair<int64_t, uint64_t> now = TickAndHash(*client, "crash");
      const bool at_ack = now == expected[acknowledged];
      const bool one_more = acknowledged + 1 < expected.size() && now == expected[acknowledged + 1];
      ASSERT_TRUE(at_ack || one_more) << "round " << round << ": recovered (tick " << now.first << ") matches neither "
                                      << acknowledged << " nor " << acknowledged + 1 << " changes";
      if (one_more) {
        ++acknowledged;  // the change in flight had been committed
        ++in_flight_committed;
        pending.reset();
      }
    }
    // Stream changes; a killer thread fires after a while.
    std::atomic<bool> killed{false};
    std::thread killer([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(150 + 100 * round));
      server.Signal(SIGKILL);
      killed = true;
    });
    while (acknowledged + 1 < expected.size()) {
      if (!pending) pending = match.Next();
      if (!MatchScript::Apply(*client, *pending).ok()) break;  // the server died under this change
      pending.reset();
      ++acknowledged;
    }
    killer.join();
    ASSERT_TRUE(killed);
    server.Wait();
    ASSERT_LT(acknowledged + 1, expected.size()) << "the killer must fire before the stream ends";
    ASSERT_GT(acknowledged, 0u);
  }
  ServerProcess last(flags);
  std::unique_ptr<client::ArbiterClient> client = client::ArbiterClient::Connect(last.address());
  const std::pair<int64_t, uint64_t> now = TickAndHash(*client, "crash");
  EXPECT_TRUE(now == expected[acknowledged] || now == expected[acknowledged + 1]);
  std::printf("crash test: %zu changes acknowledged over 3 SIGKILLs (%d kill(s) hit a committed, unacknowledged "
              "change); recovered at tick %lld\n",
              acknowledged, in_flight_committed, static_cast<long long>(now.first));
}

// Issue 13, item 3: a checkpoint of a world whose step reached the speed
// limit (bounce_world.h) recovers. Before the step clamped its state into
// the limits, recovery refused the checkpoint and the server would not start.
TEST(JournalTest, Restart_RecoversAWorldSteppedToTheSpeedLimit) {
  TempDir dir;
  std::pair<int64_t, uint64_t> before;
  {
    LiveServer server(JournaledOptions(dir, /*snapshot_every=*/1));
    ASSERT_THAT(server.client().CreateWorld(BounceWorld("bounce")), IsOk());
    ASSERT_THAT(server.client().Step(StepTicks("bounce", kBounceTicks)), IsOk());
    before = TickAndHash(server.client(), "bounce");
  }
  LiveServer restarted(JournaledOptions(dir, /*snapshot_every=*/1));
  EXPECT_EQ(restarted.server().recovered(), std::vector<std::string>{"bounce"});
  EXPECT_EQ(TickAndHash(restarted.client(), "bounce"), before);
}

}  // namespace
}  // namespace arbiter::testing
