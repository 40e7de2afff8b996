// MigrateWorld (fleet.h): the client's side of moving a world, stage by
// stage, each failure undoing what came before it.
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

// Refuses a move onto an instance that already holds the world, before
// anything changes.
absl::Status CheckDestinationFree(ArbiterClient& to, const std::string& world_id) {
  v1::DescribeWorldRequest describe;
  describe.set_world_id(world_id);
  absl::StatusOr<v1::DescribeWorldResponse> there = to.DescribeWorld(describe);
  if (there.ok()) {
    return absl::AlreadyExistsError("--to: the destination already holds world '" + world_id + "'");
  }
  // A tombstone (the world moved away from there before) is no obstacle.
  const bool moved_away = there.status().code() == absl::StatusCode::kUnavailable &&
                          there.status().message().find("' moved to ") != std::string_view::npos;
  if (there.status().code() != absl::StatusCode::kNotFound && !moved_away) {
    return WithContext(there.status(), "--to: asking the destination about world '" + world_id + "'");
  }
  return absl::OkStatus();
}

// After a failed import: the world must serve on the source again.
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
                                      std::string(thawed.status().message()) + "): world '" + world_id +
                                      "' is frozen there, run `arbiter migrate --world " + world_id +
                                      " --from SOURCE --thaw`");
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

  // From the snapshot the history window starts at, as recovery reads it.
  v1::ExportJournalRequest export_request;
  export_request.set_world_id(world_id);
  export_request.set_from_tick(std::max<int64_t>(0, frozen->tick() - frozen->history_ticks()));
  const Clock::time_point export_started = Clock::now();
  absl::StatusOr<std::string> file = from.ExportJournal(export_request);
  report.export_time = Since(export_started);
  if (!file.ok()) return Thaw(from, world_id, WithContext(file.status(), "--from: exporting the journal"));
  report.export_bytes = file->size();

  v1::ImportWorldRequest import;
  import.set_world_id(world_id);
  import.set_journal(*std::move(file));
  import.set_expected_tick(frozen->tick());
  import.set_expected_state_hash(frozen->state_hash());
  const Clock::time_point import_started = Clock::now();
  absl::StatusOr<v1::ImportWorldResponse> imported = to.ImportWorld(import);
  report.import_time = Since(import_started);
  if (!imported.ok()) return Thaw(from, world_id, WithContext(imported.status(), "--to: importing the world"));
  report.write_refusal = Since(frozen_at);
  report.records = imported->records();

  v1::DeleteWorldRequest drop;
  drop.set_world_id(world_id);
  if (absl::StatusOr<v1::DeleteWorldResponse> dropped = from.DeleteWorld(drop); !dropped.ok()) {
    // Still one writer: the destination. The source stays frozen.
    report.warning = "world '" + world_id + "' serves on the destination, but deleting it on the source failed (" +
                     std::string(dropped.status().message()) + "); it stays frozen there: delete it with " +
                     "`arbiter delete --server SOURCE --world " + world_id + " --yes`";
  }
  return report;
}

}  // namespace arbiter::client
