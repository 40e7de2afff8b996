// File: replay.h
//
// Re-runs a world's journal through the very Operations the server uses,
// for two jobs:
//  - recovery: a restarting server rebuilds each world from its journal;
//    any step whose hashes differ from the recorded ones stops the start
//    (a damaged store or a non-deterministic build must not serve);
//  - verification (`arbiter replay verify FILE`): offline, with no server,
//    compare every tick's state hash with the recorded one; at the first
//    difference report the tick and then, at the first recorded full state
//    at or after it, which bodies differ, field by field; re-ask every
//    recorded query and flag each answer that differs.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "arbiter/v1/journal.pb.h"
#include "journal/replay_report.h"
#include "ops/operations.h"
#include "ops/world_registry.h"

namespace arbiter::server {

/// The limits a replay runs with: none (the records were accepted once).
ServiceLimits ReplayLimits();

class Replayer {
 public:
  enum class Mode { kRecover, kVerify };
  /// Replays into `registry` through its own Operations (no journal).
  Replayer(WorldRegistry* registry, Mode mode);

  /// Applies the next record. kRecover: an error on any difference.
  /// kVerify: differences go to the report; errors only for records that
  /// cannot be applied at all (out of order, unreadable).
  absl::Status Apply(const v1::JournalRecord& record);

  const ReplayReport& report() const { return report_; }
  /// The world replayed so far (null before the first snapshot).
  const std::shared_ptr<WorldEntry>& entry() const { return entry_; }
  uint64_t last_seq() const { return last_seq_; }

 private:
  /// The first snapshot: the world starts here.
  absl::Status Start(const v1::JournalRecord& record, const std::string& at);
  /// A change record, applied through Operations; a refusal now of what
  /// was accepted then is a divergence.
  absl::Status ApplyChange(const v1::JournalRecord& record);
  /// A checkpoint compared, or a Restore re-run.
  absl::Status ApplySnapshot(const v1::JournalRecord& record);
  /// The step re-run; its status, and in `diverged` the first tick hash
  /// that differs (an error only when recovering).
  absl::Status ApplyStep(const v1::JournalRecord& record, absl::Status* diverged);
  /// Recover: an error. Verify: the first divergence goes to the report.
  absl::Status Diverged(int64_t tick, uint64_t recorded, uint64_t replayed, std::string what);
  absl::Status CompareCheckpoint(const v1::JournalRecord& record);
  absl::Status Query(const v1::JournalRecord& record);
  /// A move record: the replayed world ends frozen (or live) at its epoch.
  absl::Status ApplyMove(const v1::WorldMove& move);

  Operations operations_;
  const Mode mode_;
  std::string world_id_;
  uint32_t history_ticks_ = 1;
  std::shared_ptr<WorldEntry> entry_;
  uint64_t last_seq_ = 0;
  ReplayReport report_;
};

/// Body-by-body differences between two snapshots' worlds (bodies by id;
/// type, pose, velocities, shape count).
std::vector<BodyDifference> DiffWorlds(const World& recorded, const World& replayed);

}  // namespace arbiter::server
