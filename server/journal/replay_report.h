// File: replay_report.h
//
// What a replay found (Replayer, offline_replay.h): the ticks, checkpoints
// and queries it checked and, at the first divergence, what differed.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

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

}  // namespace arbiter::server
