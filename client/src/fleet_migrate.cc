// MigrateWorld and ResumeMigration (fleet.h): the client's side of moving a
// world, stage by stage. A stage that was refused undoes what came before
// it; a stage whose outcome is unknown asks the destination (the world at
// the freeze's epoch there means the move happened) and otherwise leaves
// the source frozen for ResumeMigration: thawing it then could make two
// live copies.
#include <algorithm>

#include "arbiter/client/fleet.h"

namespace arbiter::client {
namespace {

using Clock = std::chrono::steady_clock;

std::chrono::microseconds Since(Clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - t);
}

absl::Status WithContext(const absl::Status& s, const std::string& what) {
  return absl::Status(s.code(), what + ": " + std::string(s.message()));
}

bool IsTombstone(const absl::Status& s) {
  return s.code() == absl::StatusCode::kUnavailable && s.message().find("' moved to ") != std::string_view::npos;
}

// Whether a failed call certainly changed nothing on the server: it was
// refused (validation, limits, roles). Anything else (the server crashed,
// the reply was lost, the deadline passed) may have happened.
bool Refused(const absl::Status& s) {
  switch (s.code()) {
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kFailedPrecondition:
    case absl::StatusCode::kResourceExhausted:
    case absl::StatusCode::kAlreadyExists:
    case absl::StatusCode::kPermissionDenied:
    case absl::StatusCode::kUnauthenticated:
    case absl::StatusCode::kNotFound:
    case absl::StatusCode::kOutOfRange:
    case absl::StatusCode::kUnimplemented: return true;
    default: return false;
  }
}

std::string ResumeHint(const std::string& world_id) {
  return "world '" + world_id + "' stays frozen on the source; run `arbiter migrate --world " + world_id +
         " --from SOURCE --to DESTINATION --resume` once both answer";
}

// What the destination holds of the world: its WorldInfo, or NOT_FOUND
// (also for a tombstone: the world moved away from there before).
absl::StatusOr<v1::WorldInfo> Holding(ArbiterClient& to, const std::string& world_id) {
  v1::DescribeWorldRequest describe;
  describe.set_world_id(world_id);
  absl::StatusOr<v1::DescribeWorldResponse> there = to.DescribeWorld(describe);
  if (there.ok()) return there->world();
  if (IsTombstone(there.status())) return absl::NotFoundError("moved away");
  return there.status();
}

// Refuses a move onto an instance that already holds the world, before
// anything changes.
absl::Status CheckDestinationFree(ArbiterClient& to, const std::string& world_id) {
  absl::StatusOr<v1::WorldInfo> there = Holding(to, world_id);
  if (there.ok()) return absl::AlreadyExistsError("--to: the destination already holds world '" + world_id + "'");
  if (there.status().code() != absl::StatusCode::kNotFound) {
    return WithContext(there.status(), "--to: asking the destination about world '" + world_id + "'");
  }
  return absl::OkStatus();
}

// After an import that was refused: the world must serve on the source again.
absl::Status Thaw(ArbiterClient& from, const std::string& world_id, const absl::Status& why) {
  v1::FreezeWorldRequest thaw;
  thaw.set_world_id(world_id);
  thaw.set_thaw(true);
  absl::StatusOr<v1::FreezeWorldResponse> thawed = from.FreezeWorld(thaw);
  if (thawed.ok()) {
    return absl::Status(why.code(), std::string(why.message()) + " (the move was undone: world '" + world_id +
                                        "' serves on the source as before)");
  }
  return absl::Status(why.code(), std::string(why.message()) + "; and thawing the source failed too (" +
                                      std::string(thawed.status().message()) + "): " + ResumeHint(world_id) +
                                      ", or thaw it with `arbiter migrate --world " + world_id +
                                      " --from SOURCE --to DESTINATION --thaw`");
}

// A failed import: undone when refused; when its outcome is unknown, the
// destination is asked whether it holds the world at the freeze's epoch
// (OK: the move happened) and otherwise the source stays frozen.
absl::Status AfterFailedImport(ArbiterClient& from, ArbiterClient& to, const std::string& world_id, uint64_t epoch,
                               const absl::Status& failed) {
  const absl::Status why = WithContext(failed, "--to: importing the world");
  absl::StatusOr<v1::WorldInfo> there = Holding(to, world_id);
  if (there.ok() && there->epoch() == epoch && there->moving_to().empty()) return absl::OkStatus();
  if (Refused(failed)) return Thaw(from, world_id, why);
  return absl::Status(why.code(), std::string(why.message()) + "; whether the destination took the world is not " +
                                      "known, so " + ResumeHint(world_id));
}

// Stages 2 and 3: the source's export from its history window's snapshot,
// streamed chunk by chunk into the destination's import (neither side, nor
// this client, holds the whole file), which must end frozen at `frozen`'s
// epoch.
absl::Status Transfer(ArbiterClient& from, ArbiterClient& to, const std::string& world_id,
                      const v1::FreezeWorldResponse& frozen, MigrationReport* report) {
  v1::ImportWorldRequest expect;
  expect.set_world_id(world_id);
  expect.set_expected_tick(frozen.tick());
  expect.set_expected_state_hash(frozen.state_hash());
  expect.set_expected_epoch(frozen.epoch());
  std::unique_ptr<ImportStream> import = to.OpenImport(expect);
  v1::ExportJournalRequest export_request;
  export_request.set_world_id(world_id);
  export_request.set_from_tick(std::max<int64_t>(0, frozen.tick() - frozen.history_ticks()));
  const Clock::time_point started = Clock::now();
  bool import_broke = false;
  const absl::Status exported = from.ExportJournalChunks(export_request, [&](const v1::ExportJournalChunk& chunk) {
    report->export_bytes += chunk.data().size();
    const std::optional<uint64_t> hash = chunk.has_file_hash() ? std::optional(chunk.file_hash()) : std::nullopt;
    if (import->Write(chunk.data(), hash)) return absl::OkStatus();
    import_broke = true;  // the destination ended the import: its Finish says why
    return absl::CancelledError("the destination ended the import");
  });
  report->export_time = Since(started);
  if (!exported.ok() && !import_broke) {
    // The import never completes: the destination undoes it, so undoing
    // the freeze is safe.
    import->Cancel();
    (void)import->Finish();
    return Thaw(from, world_id, WithContext(exported, "--from: exporting the journal"));
  }
  const Clock::time_point finishing = Clock::now();
  absl::StatusOr<v1::ImportWorldResponse> imported = import->Finish();
  report->import_time = Since(finishing);
  if (!imported.ok()) return AfterFailedImport(from, to, world_id, frozen.epoch(), imported.status());
  report->records = imported->records();
  return absl::OkStatus();
}

// Stage 4: the source's copy goes, leaving its tombstone.
void Finish(ArbiterClient& from, const std::string& world_id, MigrationReport* report) {
  v1::DeleteWorldRequest drop;
  drop.set_world_id(world_id);
  if (absl::StatusOr<v1::DeleteWorldResponse> dropped = from.DeleteWorld(drop); !dropped.ok()) {
    // Still one writer: the destination. The source stays frozen.
    report->warning = "world '" + world_id + "' serves on the destination, but deleting it on the source failed (" +
                      std::string(dropped.status().message()) + "); it stays frozen there: finish with " +
                      "`arbiter migrate --world " + world_id + " --from SOURCE --to DESTINATION --resume`";
  }
}

}  // namespace

absl::StatusOr<MigrationReport> MigrateWorld(ArbiterClient& from, ArbiterClient& to, const std::string& world_id,
                                             const std::string& to_address) {
  if (absl::Status s = CheckDestinationFree(to, world_id); !s.ok()) return s;
  MigrationReport report;
  const Clock::time_point frozen_at = Clock::now();
  v1::FreezeWorldRequest freeze;
  freeze.set_world_id(world_id);
  freeze.set_destination(to_address);
  absl::StatusOr<v1::FreezeWorldResponse> frozen = from.FreezeWorld(freeze);
  if (!frozen.ok()) return WithContext(frozen.status(), "--from: freezing world '" + world_id + "'");
  report.tick = frozen->tick();
  report.state_hash = frozen->state_hash();
  report.epoch = frozen->epoch();
  if (absl::Status s = Transfer(from, to, world_id, *frozen, &report); !s.ok()) return s;
  report.write_refusal = Since(frozen_at);
  Finish(from, world_id, &report);
  return report;
}

absl::StatusOr<MigrationReport> ResumeMigration(ArbiterClient& from, ArbiterClient& to, const std::string& world_id,
                                                const std::string& to_address) {
  absl::StatusOr<v1::WorldInfo> source = Holding(from, world_id);
  if (!source.ok()) return WithContext(source.status(), "--from: asking the source about world '" + world_id + "'");
  if (source->moving_to().empty()) {
    return absl::FailedPreconditionError("--from: world '" + world_id +
                                         "' is not frozen there: no move to resume (it serves on the source)");
  }
  if (source->moving_to() != to_address) {
    return absl::FailedPreconditionError("--to: world '" + world_id + "' is moving to " + source->moving_to() +
                                         ", not " + to_address);
  }
  // Idempotent re-freeze: the tick, hash and history window it froze at.
  v1::FreezeWorldRequest freeze;
  freeze.set_world_id(world_id);
  freeze.set_destination(to_address);
  absl::StatusOr<v1::FreezeWorldResponse> frozen = from.FreezeWorld(freeze);
  if (!frozen.ok()) return WithContext(frozen.status(), "--from: reading the freeze of world '" + world_id + "'");
  MigrationReport report;
  report.tick = frozen->tick();
  report.state_hash = frozen->state_hash();
  report.epoch = frozen->epoch();
  absl::StatusOr<v1::WorldInfo> there = Holding(to, world_id);
  if (there.ok() && there->epoch() != frozen->epoch()) {
    return absl::FailedPreconditionError("--to: the destination holds world '" + world_id + "' at epoch " +
                                         std::to_string(there->epoch()) + ", not the epoch " +
                                         std::to_string(frozen->epoch()) +
                                         " it was frozen at here: two copies; keep one by hand");
  }
  if (!there.ok() && there.status().code() != absl::StatusCode::kNotFound) {
    return WithContext(there.status(), "--to: asking the destination about world '" + world_id + "'");
  }
  if (!there.ok()) {
    if (absl::Status s = Transfer(from, to, world_id, *frozen, &report); !s.ok()) return s;
  } else {
    report.resumed_after_import = true;
  }
  Finish(from, world_id, &report);
  return report;
}

absl::StatusOr<v1::FreezeWorldResponse> ThawWorld(ArbiterClient& from, ArbiterClient* to,
                                                  const std::string& world_id) {
  if (to != nullptr) {
    absl::StatusOr<v1::WorldInfo> source = Holding(from, world_id);
    if (!source.ok()) return WithContext(source.status(), "--from: asking the source about world '" + world_id + "'");
    absl::StatusOr<v1::WorldInfo> there = Holding(*to, world_id);
    if (there.ok() && !source->moving_to().empty() && there->epoch() == source->epoch()) {
      return absl::FailedPreconditionError("--to: the destination serves world '" + world_id + "' at epoch " +
                                           std::to_string(there->epoch()) +
                                           ", the one it was frozen at: the move happened; finish it with --resume");
    }
    if (!there.ok() && there.status().code() != absl::StatusCode::kNotFound) {
      return WithContext(there.status(), "--to: asking the destination about world '" + world_id +
                                             "' (thawing is safe only once it is known not to hold it)");
    }
  }
  v1::FreezeWorldRequest thaw;
  thaw.set_world_id(world_id);
  thaw.set_thaw(true);
  return from.FreezeWorld(thaw);
}

}  // namespace arbiter::client
