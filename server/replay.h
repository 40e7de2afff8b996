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
#include "operations.h"
#include "world_registry.h"

namespace arbiter::server {

struct BodyDifference {
  uint64_t body_id = 0;
  std::string field;     ///< e.g. "transform.p.x", or "exists"
  std::string recorded;  ///< the value in the journal's snapshot
  std::string replayed;  ///< the value after replaying
};

struct QueryDifference {
  uint64_t seq = 0;   ///< the change the query followed
  int64_t tick = 0;   ///< the live tick when it was asked
  std::string kind;   ///< cast_rays, overlap, cast_shapes, validate_hit
  std::string what;   ///< the first differing field, as recorded vs replayed
};

struct ReplayReport {
  std::string world_id;
  int64_t first_tick = 0;  ///< the tick of the first snapshot
  int64_t last_tick = 0;   ///< the tick after the last record
  uint64_t records = 0;
  uint64_t ticks_checked = 0;
  uint64_t checkpoints_checked = 0;
  uint64_t queries_checked = 0;

  bool diverged = false;
  int64_t first_divergent_tick = -1;
  uint64_t recorded_hash = 0;
  uint64_t replayed_hash = 0;
  std::string divergence;  ///< what differed first, in words
  /// The tick of the recorded full state the bodies were compared at
  /// (-1: no recorded full state at or after the divergence).
  int64_t compared_at_tick = -1;
  std::vector<BodyDifference> bodies;
  std::vector<QueryDifference> queries;

  bool ok() const { return !diverged && queries.empty(); }
};

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
