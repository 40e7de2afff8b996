// Moving a world between two real in-process servers, each with its own
// on-disk journal (operations_migration.cc, client MigrateWorld): the
// freeze refuses every kind of write and lets reads through; a move keeps
// the state hash and the history (past-tick answers) and survives a
// restart of the destination; the source answers "moved to" afterwards;
// every refused import changes nothing and leaves the source serving.
#include <google/protobuf/util/message_differencer.h>

#include <fstream>

#include "arbiter/client/fleet.h"
#include "auth_support.h"
#include "journal/journal.h"
#include "match_script.h"
#include "test_support.h"
#include "testing/temp_dir.h"

namespace arbiter::testing {
namespace {

using google::protobuf::util::MessageDifferencer;
using ::testing::HasSubstr;

server::ServerOptions Journaled(const TempDir& dir) {
  server::ServerOptions o = TestServerOptions();
  o.data_dir = dir.path();
  o.snapshot_every_ticks = 16;
  return o;
}

v1::CastRaysRequest Rays(const std::string& world, int64_t at) {
  v1::CastRaysRequest r;
  r.set_world_id(world);
  r.set_mode(v1::CAST_MODE_ALL);
  for (int i = 0; i < 12; ++i) *r.add_rays() = client::MakeRay(-50 + 9 * i, 30, 0.25 * i, -40);
  r.mutable_at()->set_tick(at);
  return r;
}

// A match with every kind of change, `changes` long.
void Play(client::ArbiterClient& c, MatchScript& match, int changes) {
  for (int i = 0; i < changes; ++i) ASSERT_THAT(MatchScript::Apply(c, match.Next()), IsOk());
}

absl::Status FreezeOn(client::ArbiterClient& c, const std::string& world, bool thaw = false) {
  v1::FreezeWorldRequest r;
  r.set_world_id(world);
  r.set_destination("10.0.0.2:50051");
  r.set_thaw(thaw);
  return c.FreezeWorld(r).status();
}

TEST(MigrationTest, Freeze_RefusesEveryWrite_LetsReadsThrough_AndThawUndoesIt) {
  TempDir dir;
  LiveServer a(Journaled(dir));
  ASSERT_THAT(a.client().CreateWorld(SmallWorld("w")), IsOk());
  ASSERT_THAT(a.client().Step(OneTick("w")), IsOk());
  const auto before = WorldTickAndHash(a.client(), "w");
  v1::FreezeWorldRequest freeze;
  freeze.set_world_id("w");
  freeze.set_destination("10.0.0.2:50051");
  absl::StatusOr<v1::FreezeWorldResponse> frozen = a.client().FreezeWorld(freeze);
  ASSERT_THAT(frozen, IsOk());
  EXPECT_EQ(std::make_pair(frozen->tick(), frozen->state_hash()), before);
  EXPECT_TRUE(frozen->frozen());
  EXPECT_THAT(a.client().FreezeWorld(freeze), IsOk()) << "idempotent";
  freeze.set_destination("10.0.0.3:50051");
  EXPECT_EQ(a.client().FreezeWorld(freeze).status().code(), absl::StatusCode::kFailedPrecondition);

  v1::AddBodiesRequest add;
  add.set_world_id("w");
  *add.add_bodies() = client::MakeBody(9, v1::BODY_TYPE_DYNAMIC, 3, 3, client::MakeCircle(1));
  v1::RemoveBodiesRequest remove;
  remove.set_world_id("w");
  remove.add_body_ids(2);
  v1::UpdateBodiesRequest update;
  update.set_world_id("w");
  update.add_updates()->set_body_id(2);
  *update.mutable_updates(0)->mutable_transform() = client::MakeTransform(1, 1);
  v1::GetSnapshotRequest get;
  get.set_world_id("w");
  absl::StatusOr<v1::GetSnapshotResponse> snapshot = a.client().GetSnapshot(get);
  ASSERT_THAT(snapshot, IsOk()) << "a read";
  v1::RestoreRequest restore;
  restore.set_world_id("w");
  restore.set_snapshot(snapshot->snapshot());
  const std::vector<absl::Status> writes = {a.client().Step(OneTick("w")).status(), a.client().AddBodies(add).status(),
                                            a.client().RemoveBodies(remove).status(),
                                            a.client().UpdateBodies(update).status(),
                                            a.client().Restore(restore).status()};
  for (const absl::Status& s : writes) {
    EXPECT_EQ(s.code(), absl::StatusCode::kUnavailable) << s;
    EXPECT_THAT(std::string(s.message()), HasSubstr("is moving to 10.0.0.2:50051")) << s;
  }
  EXPECT_EQ(WorldTickAndHash(a.client(), "w"), before) << "nothing changed";
  EXPECT_THAT(a.client().CastRays(Rays("w", before.first)), IsOk());

  ASSERT_THAT(FreezeOn(a.client(), "w", /*thaw=*/true), IsOk());
  EXPECT_THAT(a.client().Step(OneTick("w")), IsOk());
}

TEST(MigrationTest, Move_KeepsHashAndHistory_SurvivesARestart_AndTheSourceSaysWhereItWent) {
  TempDir dir_a, dir_b;
  MatchScript match("match", 7);
  std::pair<int64_t, uint64_t> before;
  std::vector<std::pair<int64_t, v1::CastRaysResponse>> past;
  {
    LiveServer a(Journaled(dir_a));
    LiveServer b(Journaled(dir_b));
    ASSERT_THAT(a.client().CreateWorld(match.Create(/*history_ticks=*/40)), IsOk());
    ASSERT_NO_FATAL_FAILURE(Play(a.client(), match, 200));
    before = WorldTickAndHash(a.client(), "match");
    for (int64_t t = before.first - 39; t <= before.first; t += 3) {
      absl::StatusOr<v1::CastRaysResponse> reply = a.client().CastRays(Rays("match", t));
      ASSERT_THAT(reply, IsOk());
      past.emplace_back(t, *reply);
    }
    absl::StatusOr<client::MigrationReport> moved = client::MigrateWorld(a.client(), b.client(), "match", b.address());
    ASSERT_THAT(moved, IsOk());
    EXPECT_EQ(std::make_pair(moved->tick, moved->state_hash), before);
    EXPECT_TRUE(moved->warning.empty()) << moved->warning;
    EXPECT_EQ(WorldTickAndHash(b.client(), "match"), before);
    for (const auto& [tick, reply] : past) {
      absl::StatusOr<v1::CastRaysResponse> again = b.client().CastRays(Rays("match", tick));
      ASSERT_THAT(again, IsOk()) << "tick " << tick;
      EXPECT_TRUE(MessageDifferencer::Equals(*again, reply)) << "tick " << tick;
    }
    v1::GetStateHashRequest hash;
    hash.set_world_id("match");
    const absl::Status gone = a.client().GetStateHash(hash).status();
    EXPECT_EQ(gone.code(), absl::StatusCode::kUnavailable);
    EXPECT_THAT(std::string(gone.message()), HasSubstr("moved to " + b.address()));
    EXPECT_THAT(b.client().Step(OneTick("match")), IsOk()) << "the destination takes writes";
    before = WorldTickAndHash(b.client(), "match");
  }
  // The destination journaled what it imported: a restart brings it back.
  LiveServer b(Journaled(dir_b));
  EXPECT_EQ(WorldTickAndHash(b.client(), "match"), before);
  EXPECT_THAT(b.client().CastRays(Rays("match", before.first - 30)), IsOk());
  // And the source's journal no longer holds it.
  LiveServer a(Journaled(dir_a));
  EXPECT_TRUE(a.server().recovered().empty());
}

TEST(MigrationTest, RefusedImports_ChangeNothing_AndTheSourceKeepsServing) {
  TempDir dir_a, dir_b;
  LiveServer a(Journaled(dir_a));
  server::ServerOptions small = Journaled(dir_b);
  small.service.max_import_bytes = 64;
  LiveServer b(small);
  ASSERT_THAT(a.client().CreateWorld(SmallWorld("w")), IsOk());
  ASSERT_THAT(a.client().Step(OneTick("w")), IsOk());
  const auto at = WorldTickAndHash(a.client(), "w");
  v1::ExportJournalRequest ex;
  ex.set_world_id("w");
  absl::StatusOr<std::string> file = a.client().ExportJournal(ex);
  ASSERT_THAT(file, IsOk());

  // Too big for one ImportWorld message (--max_import_bytes): refused,
  // naming the streamed form (MigrateWorld streams, so it moves such a world).
  v1::ImportWorldRequest too_big;
  too_big.set_world_id("w");
  too_big.set_journal(*file);
  const absl::Status big = b.client().ImportWorld(too_big).status();
  EXPECT_EQ(big.code(), absl::StatusCode::kResourceExhausted) << big;
  EXPECT_THAT(std::string(big.message()), HasSubstr("max_import_bytes"));
  EXPECT_THAT(std::string(big.message()), HasSubstr("ImportWorldStream"));
  // A destination that refuses the import (no world slot left): the whole
  // move is undone.
  server::ServerOptions full = Journaled(dir_b);
  full.registry.max_worlds = 1;
  TempDir dir_full;
  full.data_dir = dir_full.path();
  LiveServer refusing(full);
  ASSERT_THAT(refusing.client().CreateWorld(SmallWorld("other")), IsOk());
  absl::StatusOr<client::MigrationReport> moved =
      client::MigrateWorld(a.client(), refusing.client(), "w", refusing.address());
  EXPECT_EQ(moved.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(moved.status().message()), HasSubstr("the move was undone"));
  EXPECT_THAT(a.client().Step(OneTick("w")), IsOk()) << "thawed";

  TempDir dir_c;
  LiveServer c(Journaled(dir_c));
  v1::ImportWorldRequest import;
  import.set_world_id("w");
  import.set_journal(*file);
  import.set_expected_tick(at.first);
  import.set_expected_state_hash(at.second + 1);
  absl::Status s = c.client().ImportWorld(import).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("expected_state_hash"));
  import.set_world_id("x");
  s = c.client().ImportWorld(import).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("journal: its header names world 'w'"));
  import.set_world_id("w");
  import.set_journal(file->substr(0, file->size() - 3));
  s = c.client().ImportWorld(import).status();
  EXPECT_THAT(std::string(s.message()), HasSubstr("journal: ")) << s;
  // None of those left anything: the right import still goes through.
  absl::StatusOr<v1::ListWorldsResponse> none = c.client().ListWorlds();
  ASSERT_THAT(none, IsOk());
  EXPECT_EQ(none->worlds_size(), 0);
  import.set_journal(*file);
  import.set_expected_state_hash(at.second);
  absl::StatusOr<v1::ImportWorldResponse> imported = c.client().ImportWorld(import);
  ASSERT_THAT(imported, IsOk());
  EXPECT_EQ(imported->world().state_hash(), at.second);
  EXPECT_EQ(c.client().ImportWorld(import).status().code(), absl::StatusCode::kAlreadyExists);
  // MigrateWorld refuses before freezing when the destination has it.
  moved = client::MigrateWorld(a.client(), c.client(), "w", c.address());
  EXPECT_EQ(moved.status().code(), absl::StatusCode::kAlreadyExists);
  EXPECT_THAT(a.client().Step(OneTick("w")), IsOk());
}

// A world's epoch and where it is moving, as DescribeWorld tells them.
std::pair<uint64_t, std::string> EpochAndMove(client::ArbiterClient& c, const std::string& world) {
  v1::DescribeWorldRequest r;
  r.set_world_id(world);
  absl::StatusOr<v1::DescribeWorldResponse> d = c.DescribeWorld(r);
  if (!d.ok()) {
    ADD_FAILURE() << d.status();
    return {0, ""};
  }
  return {d->world().epoch(), d->world().moving_to()};
}

// Stages 2 and 3 of a move by hand (as MigrateWorld runs them).
absl::StatusOr<v1::ImportWorldResponse> ExportAndImport(client::ArbiterClient& from, client::ArbiterClient& to,
                                                        const std::string& world, const v1::FreezeWorldResponse& frozen,
                                                        uint64_t expected_epoch) {
  v1::ExportJournalRequest ex;
  ex.set_world_id(world);
  absl::StatusOr<std::string> file = from.ExportJournal(ex);
  if (!file.ok()) return file.status();
  v1::ImportWorldRequest import;
  import.set_world_id(world);
  import.set_journal(*file);
  import.set_expected_tick(frozen.tick());
  import.set_expected_state_hash(frozen.state_hash());
  import.set_expected_epoch(expected_epoch);
  return to.ImportWorld(import);
}

// Each point a move can be cut short at (here by stopping the server, which
// keeps only what its journal holds), and what comes back: never a second
// live copy, and a resume or a thaw that finishes or undoes the move.
TEST(MigrationTest, DurableMoves_ARestartedSourceComesBackFrozenOrMoved_NeverLive) {
  TempDir dir_a, dir_b;
  LiveServer b(Journaled(dir_b));
  const std::string to = b.address();
  v1::FreezeWorldRequest freeze;
  freeze.set_world_id("w");
  freeze.set_destination(to);
  std::pair<int64_t, uint64_t> at;
  {
    LiveServer a(Journaled(dir_a));
    ASSERT_THAT(a.client().CreateWorld(SmallWorld("w")), IsOk());
    ASSERT_THAT(a.client().Step(OneTick("w")), IsOk());
    EXPECT_EQ(EpochAndMove(a.client(), "w"), std::make_pair(uint64_t{0}, std::string()));
    absl::StatusOr<v1::FreezeWorldResponse> frozen = a.client().FreezeWorld(freeze);
    ASSERT_THAT(frozen, IsOk());
    EXPECT_EQ(frozen->epoch(), 1u);
    at = WorldTickAndHash(a.client(), "w");
  }
  {
    // Cut short after the freeze: frozen still, reads answered.
    LiveServer a(Journaled(dir_a));
    EXPECT_EQ(EpochAndMove(a.client(), "w"), std::make_pair(uint64_t{1}, to));
    EXPECT_EQ(WorldTickAndHash(a.client(), "w"), at);
    const absl::Status refused = a.client().Step(OneTick("w")).status();
    EXPECT_EQ(refused.code(), absl::StatusCode::kUnavailable) << refused;
    EXPECT_THAT(std::string(refused.message()), HasSubstr("is moving to " + to));
    // Undone by hand, knowing the destination does not hold it: a new epoch.
    absl::StatusOr<v1::FreezeWorldResponse> thawed = client::ThawWorld(a.client(), &b.client(), "w");
    ASSERT_THAT(thawed, IsOk());
    EXPECT_EQ(thawed->epoch(), 2u);
    EXPECT_FALSE(thawed->frozen());
  }
  v1::FreezeWorldResponse frozen;
  {
    LiveServer a(Journaled(dir_a));
    EXPECT_EQ(EpochAndMove(a.client(), "w"), std::make_pair(uint64_t{2}, std::string())) << "the thaw is durable";
    ASSERT_THAT(a.client().Step(OneTick("w")), IsOk());
    absl::StatusOr<v1::FreezeWorldResponse> f = a.client().FreezeWorld(freeze);
    ASSERT_THAT(f, IsOk());
    frozen = *f;
    EXPECT_EQ(frozen.epoch(), 3u);
    // An import must name the epoch the journal ends frozen at.
    absl::StatusOr<v1::ImportWorldResponse> stale = ExportAndImport(a.client(), b.client(), "w", frozen, 1);
    EXPECT_EQ(stale.status().code(), absl::StatusCode::kFailedPrecondition) << stale.status();
    EXPECT_THAT(std::string(stale.status().message()), HasSubstr("expected_epoch: the journal ends frozen at epoch 3"));
    absl::StatusOr<v1::ImportWorldResponse> imported = ExportAndImport(a.client(), b.client(), "w", frozen, 3);
    ASSERT_THAT(imported, IsOk());
    EXPECT_EQ(imported->world().epoch(), 3u);
    EXPECT_TRUE(imported->world().moving_to().empty());
    // Cut short before the source's delete.
  }
  {
    LiveServer a(Journaled(dir_a));
    EXPECT_EQ(EpochAndMove(a.client(), "w"), std::make_pair(uint64_t{3}, to)) << "frozen, not live";
    EXPECT_EQ(a.client().Step(OneTick("w")).status().code(), absl::StatusCode::kUnavailable);
    absl::StatusOr<v1::FreezeWorldResponse> thaw = client::ThawWorld(a.client(), &b.client(), "w");
    EXPECT_EQ(thaw.status().code(), absl::StatusCode::kFailedPrecondition) << "the move happened";
    EXPECT_THAT(std::string(thaw.status().message()), HasSubstr("--resume"));
    absl::StatusOr<client::MigrationReport> resumed = client::ResumeMigration(a.client(), b.client(), "w", to);
    ASSERT_THAT(resumed, IsOk());
    EXPECT_TRUE(resumed->resumed_after_import);
    EXPECT_TRUE(resumed->warning.empty()) << resumed->warning;
    EXPECT_EQ(std::make_pair(resumed->tick, resumed->state_hash), WorldTickAndHash(b.client(), "w"));
  }
  // The tombstone went with the delete, in one transaction.
  LiveServer a(Journaled(dir_a));
  EXPECT_TRUE(a.server().recovered().empty());
  v1::GetStateHashRequest hash;
  hash.set_world_id("w");
  const absl::Status gone = a.client().GetStateHash(hash).status();
  EXPECT_EQ(gone.code(), absl::StatusCode::kUnavailable) << gone;
  EXPECT_THAT(std::string(gone.message()), HasSubstr("moved to " + to));
  EXPECT_THAT(b.client().Step(OneTick("w")), IsOk()) << "one writer: the destination";
  EXPECT_EQ(EpochAndMove(b.client(), "w"), std::make_pair(uint64_t{3}, std::string()));
}

TEST(MigrationTest, Resume_AfterACrashBeforeTheImport_RunsTheImportAgain) {
  TempDir dir_a, dir_b;
  LiveServer b(Journaled(dir_b));
  MatchScript match("match", 11);
  std::pair<int64_t, uint64_t> at;
  {
    LiveServer a(Journaled(dir_a));
    ASSERT_THAT(a.client().CreateWorld(match.Create(/*history_ticks=*/30)), IsOk());
    ASSERT_NO_FATAL_FAILURE(Play(a.client(), match, 80));
    v1::FreezeWorldRequest freeze;
    freeze.set_world_id("match");
    freeze.set_destination(b.address());
    ASSERT_THAT(a.client().FreezeWorld(freeze), IsOk());
    at = WorldTickAndHash(a.client(), "match");
  }
  LiveServer a(Journaled(dir_a));
  absl::StatusOr<client::MigrationReport> wrong =
      client::ResumeMigration(a.client(), b.client(), "match", "10.9.9.9:50051");
  EXPECT_EQ(wrong.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(wrong.status().message()), HasSubstr("is moving to " + b.address()));
  absl::StatusOr<client::MigrationReport> resumed = client::ResumeMigration(a.client(), b.client(), "match", b.address());
  ASSERT_THAT(resumed, IsOk());
  EXPECT_FALSE(resumed->resumed_after_import);
  EXPECT_GT(resumed->records, 0u);
  EXPECT_EQ(std::make_pair(resumed->tick, resumed->state_hash), at);
  EXPECT_EQ(WorldTickAndHash(b.client(), "match"), at);
  EXPECT_EQ(EpochAndMove(b.client(), "match"), std::make_pair(uint64_t{1}, std::string()));
  // Nothing left to resume: the source no longer holds it.
  EXPECT_FALSE(client::ResumeMigration(a.client(), b.client(), "match", b.address()).ok());
  // A world that is not frozen has no move to resume.
  ASSERT_THAT(a.client().CreateWorld(SmallWorld("live")), IsOk());
  absl::StatusOr<client::MigrationReport> none = client::ResumeMigration(a.client(), b.client(), "live", b.address());
  EXPECT_EQ(none.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(none.status().message()), HasSubstr("is not frozen there"));
}

// Writes that name the epoch their writer learned from the owner: even two
// live copies (the operator thawed the source without asking the
// destination) cannot both acknowledge them, and a refused one changes
// nothing. Journaled with the field, they replay on a restart.
TEST(MigrationTest, ExpectedEpoch_FencesAStaleCopy_AndReplays) {
  TempDir dir_a, dir_b;
  LiveServer a(Journaled(dir_a));
  v1::FreezeWorldResponse frozen;
  std::pair<int64_t, uint64_t> on_b;
  {
    LiveServer b(Journaled(dir_b));
    ASSERT_THAT(a.client().CreateWorld(SmallWorld("w")), IsOk());
    ASSERT_THAT(a.client().Step(OneTick("w")), IsOk());
    v1::FreezeWorldRequest freeze;
    freeze.set_world_id("w");
    freeze.set_destination(b.address());
    absl::StatusOr<v1::FreezeWorldResponse> f = a.client().FreezeWorld(freeze);
    ASSERT_THAT(f, IsOk());
    frozen = *f;
    ASSERT_THAT(ExportAndImport(a.client(), b.client(), "w", frozen, frozen.epoch()), IsOk());
    // The operator's word, without asking the destination: two live copies.
    absl::StatusOr<v1::FreezeWorldResponse> thawed = client::ThawWorld(a.client(), nullptr, "w");
    ASSERT_THAT(thawed, IsOk());
    ASSERT_NE(thawed->epoch(), frozen.epoch());

    v1::StepRequest step = OneTick("w");
    step.set_expected_epoch(frozen.epoch());
    const auto before = WorldTickAndHash(a.client(), "w");
    const absl::Status stale = a.client().Step(step).status();
    EXPECT_EQ(stale.code(), absl::StatusCode::kFailedPrecondition) << stale;
    EXPECT_THAT(std::string(stale.message()),
                HasSubstr("expected_epoch: " + std::to_string(frozen.epoch()) + ", but world 'w' is at epoch " +
                          std::to_string(thawed->epoch())));
    EXPECT_EQ(WorldTickAndHash(a.client(), "w"), before) << "a refused write changes nothing";
    v1::AddBodiesRequest add;
    add.set_world_id("w");
    add.set_expected_epoch(frozen.epoch());
    *add.add_bodies() = client::MakeBody(99, v1::BODY_TYPE_DYNAMIC, 3, 3, client::MakeCircle(1));
    EXPECT_EQ(a.client().AddBodies(add).status().code(), absl::StatusCode::kFailedPrecondition);
    EXPECT_THAT(b.client().AddBodies(add), IsOk()) << "the owner at that epoch takes it";
    EXPECT_THAT(b.client().Step(step), IsOk());
    step.set_expected_epoch(thawed->epoch());
    EXPECT_EQ(b.client().Step(step).status().code(), absl::StatusCode::kFailedPrecondition);
    on_b = WorldTickAndHash(b.client(), "w");
  }
  LiveServer b(Journaled(dir_b));
  ASSERT_THAT(b.server().recovered(), ::testing::ElementsAre("w"));
  EXPECT_EQ(WorldTickAndHash(b.client(), "w"), on_b) << "the fenced writes replay";
  EXPECT_EQ(EpochAndMove(b.client(), "w"), std::make_pair(frozen.epoch(), std::string()));
}

// A frozen world's export, and what an import must expect of it.
struct Frozen {
  std::string file;
  v1::ImportWorldRequest expect;  // world_id and the expected_* fields
  uint64_t file_hash = 0;
};

Frozen FreezeAndExport(client::ArbiterClient& from, const std::string& world, const std::string& to) {
  Frozen out;
  v1::FreezeWorldRequest freeze;
  freeze.set_world_id(world);
  freeze.set_destination(to);
  absl::StatusOr<v1::FreezeWorldResponse> frozen = from.FreezeWorld(freeze);
  EXPECT_THAT(frozen, IsOk());
  if (!frozen.ok()) return out;
  v1::ExportJournalRequest ex;
  ex.set_world_id(world);
  EXPECT_THAT(from.ExportJournalChunks(ex,
                                       [&](const v1::ExportJournalChunk& chunk) {
                                         out.file += chunk.data();
                                         if (chunk.has_file_hash()) out.file_hash = chunk.file_hash();
                                         return absl::OkStatus();
                                       }),
              IsOk());
  out.expect.set_world_id(world);
  out.expect.set_expected_tick(frozen->tick());
  out.expect.set_expected_state_hash(frozen->state_hash());
  out.expect.set_expected_epoch(frozen->epoch());
  return out;
}

// Sends `file` in pieces of `piece` bytes, the hash with the last.
absl::StatusOr<v1::ImportWorldResponse> StreamImport(client::ArbiterClient& to, const Frozen& f, size_t piece,
                                                     uint64_t file_hash) {
  std::unique_ptr<client::ImportStream> import = to.OpenImport(f.expect);
  for (size_t at = 0; at < f.file.size(); at += piece) {
    const bool last = at + piece >= f.file.size();
    if (!import->Write(std::string_view(f.file).substr(at, piece),
                       last ? std::optional<uint64_t>(file_hash) : std::nullopt)) {
      break;
    }
  }
  return import->Finish();
}

// ImportWorldStream: records replayed as they arrive, in pieces of any
// size (a piece may end inside a varint or a record), with the file's hash
// checked at the end; a wrong hash, a truncated file or a cancelled stream
// change nothing, even across a restart.
TEST(MigrationTest, StreamedImport_InAnyPieces_CheckedByHash_AllOrNothing) {
  TempDir dir_a, dir_b;
  LiveServer a(Journaled(dir_a));
  MatchScript match("match", 5);
  ASSERT_THAT(a.client().CreateWorld(match.Create(/*history_ticks=*/30)), IsOk());
  ASSERT_NO_FATAL_FAILURE(Play(a.client(), match, 60));
  const Frozen f = FreezeAndExport(a.client(), "match", "b");
  ASSERT_GT(f.file.size(), 1000u);
  ASSERT_NE(f.file_hash, 0u);
  {
    LiveServer b(Journaled(dir_b));
    absl::StatusOr<v1::ImportWorldResponse> damaged = StreamImport(b.client(), f, 7, f.file_hash + 1);
    EXPECT_EQ(damaged.status().code(), absl::StatusCode::kDataLoss) << damaged.status();
    EXPECT_THAT(std::string(damaged.status().message()), HasSubstr("file_hash: the "));
    Frozen cut = f;
    cut.file.resize(f.file.size() - 3);
    absl::StatusOr<v1::ImportWorldResponse> truncated = StreamImport(b.client(), cut, 1000, f.file_hash);
    EXPECT_EQ(truncated.status().code(), absl::StatusCode::kDataLoss) << truncated.status();
    EXPECT_THAT(std::string(truncated.status().message()), HasSubstr("ends inside a record"));
    std::unique_ptr<client::ImportStream> abandoned = b.client().OpenImport(f.expect);
    ASSERT_TRUE(abandoned->Write(std::string_view(f.file).substr(0, f.file.size() / 2)));
    abandoned->Cancel();
    EXPECT_FALSE(abandoned->Finish().ok());
    EXPECT_THAT(b.client().ListWorlds(), IsOk());
    EXPECT_EQ(b.client().ListWorlds()->worlds_size(), 0) << "nothing of the failed imports shows";
  }
  LiveServer b(Journaled(dir_b));
  EXPECT_TRUE(b.server().recovered().empty()) << "nothing of them was journaled as live";
  for (size_t piece : {size_t{1} << 20, size_t{3}}) {
    if (piece == 3) {
      v1::DeleteWorldRequest drop;
      drop.set_world_id("match");
      ASSERT_THAT(b.client().DeleteWorld(drop), IsOk());
    }
    absl::StatusOr<v1::ImportWorldResponse> imported = StreamImport(b.client(), f, piece, f.file_hash);
    ASSERT_THAT(imported, IsOk()) << "pieces of " << piece;
    EXPECT_EQ(imported->world().tick(), f.expect.expected_tick());
    EXPECT_EQ(imported->world().state_hash(), f.expect.expected_state_hash());
    EXPECT_EQ(imported->world().epoch(), f.expect.expected_epoch());
  }
  // The unary form of the same file gives the same world.
  LiveServer c;
  v1::ImportWorldRequest whole = f.expect;
  whole.set_journal(f.file);
  absl::StatusOr<v1::ImportWorldResponse> unary = c.client().ImportWorld(whole);
  ASSERT_THAT(unary, IsOk());
  EXPECT_EQ(unary->world().state_hash(), f.expect.expected_state_hash());
  LiveServer d;
  absl::StatusOr<v1::ImportWorldResponse> streamed = StreamImport(d.client(), f, 64, f.file_hash);
  ASSERT_THAT(streamed, IsOk());
  EXPECT_EQ(unary->records(), streamed->records()) << "the same records, however they arrive";
}

// An import cut short by the instance's death leaves staged records under
// a row that is not live; the next start drops them.
TEST(MigrationTest, StagedImport_CutShortByACrash_IsDroppedAtTheNextStart) {
  TempDir dir;
  {
    absl::StatusOr<std::unique_ptr<server::Journal>> journal = server::Journal::Open({dir.path()});
    ASSERT_THAT(journal, IsOk());
    absl::StatusOr<int64_t> key = (*journal)->BeginImport("w");
    ASSERT_THAT(key, IsOk());
    v1::JournalRecord header;
    header.mutable_header()->set_world_id("w");
    ASSERT_THAT((*journal)->Append(*key, {&header}), IsOk());
    absl::StatusOr<std::vector<server::Journal::StoredWorld>> live = (*journal)->LiveWorlds();
    ASSERT_THAT(live, IsOk());
    EXPECT_TRUE(live->empty()) << "staged, not live";
  }
  {
    LiveServer restarted(Journaled(dir));
    EXPECT_TRUE(restarted.server().recovered().empty());
  }
  absl::StatusOr<std::unique_ptr<server::Journal>> reopened = server::Journal::Open({dir.path()});
  ASSERT_THAT(reopened, IsOk());
  absl::StatusOr<server::Journal::Usage> usage = (*reopened)->MeasureUsage();
  ASSERT_THAT(usage, IsOk());
  EXPECT_EQ(usage->records, 0) << "the staged records went at the start";
}

// A world whose export exceeds --max_import_bytes on the destination moves
// all the same: MigrateWorld streams it.
TEST(MigrationTest, MigrateWorld_MovesAnExportLargerThanOneImportMessage) {
  TempDir dir_a, dir_b;
  LiveServer a(Journaled(dir_a));
  server::ServerOptions small = Journaled(dir_b);
  small.service.max_import_bytes = 2048;
  LiveServer b(small);
  MatchScript match("match", 9);
  ASSERT_THAT(a.client().CreateWorld(match.Create(/*history_ticks=*/30)), IsOk());
  ASSERT_NO_FATAL_FAILURE(Play(a.client(), match, 80));
  const auto at = WorldTickAndHash(a.client(), "match");
  absl::StatusOr<client::MigrationReport> moved = client::MigrateWorld(a.client(), b.client(), "match", b.address());
  ASSERT_THAT(moved, IsOk());
  EXPECT_GT(moved->export_bytes, 2048u);
  EXPECT_EQ(WorldTickAndHash(b.client(), "match"), at);
}

TEST(MigrationTest, OnlyAdminsMayFreezeOrImport_EitherWay) {
  TempDir dir;
  const std::string tokens = dir.File("tokens");
  std::ofstream(tokens) << TokenLine("admin-0123", "admin", "*") << TokenLine("writer-4567", "writer", "*");
  server::ServerOptions o = Journaled(dir);
  o.access.token_file = tokens;
  LiveServer a(o);
  std::unique_ptr<client::ArbiterClient> admin = ClientWithToken(a.address(), "admin-0123");
  std::unique_ptr<client::ArbiterClient> writer = ClientWithToken(a.address(), "writer-4567");
  ASSERT_THAT(admin->CreateWorld(SmallWorld("w")), IsOk());
  EXPECT_EQ(FreezeOn(*writer, "w").code(), absl::StatusCode::kPermissionDenied);
  v1::ImportWorldRequest import;
  import.set_world_id("v");
  EXPECT_EQ(writer->ImportWorld(import).status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(writer->OpenImport(import)->Finish().status().code(), absl::StatusCode::kPermissionDenied);
  // A stream whose first message names no world is refused by name.
  const absl::Status unnamed = admin->OpenImport(v1::ImportWorldRequest())->Finish().status();
  EXPECT_EQ(unnamed.code(), absl::StatusCode::kInvalidArgument) << unnamed;
  EXPECT_THAT(std::string(unnamed.message()), HasSubstr("world_id"));
  EXPECT_THAT(writer->Step(OneTick("w")), IsOk()) << "not frozen";
  EXPECT_THAT(FreezeOn(*admin, "w"), IsOk());
  EXPECT_EQ(FreezeOn(*admin, "nope").code(), absl::StatusCode::kNotFound);
  v1::FreezeWorldRequest bad;
  bad.set_world_id("w");
  EXPECT_EQ(admin->FreezeWorld(bad).status().code(), absl::StatusCode::kInvalidArgument) << "no destination";
}

}  // namespace
}  // namespace arbiter::testing
