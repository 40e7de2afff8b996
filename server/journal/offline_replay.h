// File: offline_replay.h
//
// The journal's face for tools: what `arbiter replay verify` and `arbiter
// render --journal` run, offline and with no server. A journal export's
// records (journal_file.h parses the file) are replayed through the
// server's own Operations (replay.h), in a registry of their own with no
// limits (the records were accepted once).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "absl/status/statusor.h"
#include "arbiter/core/world.h"
#include "arbiter/v1/journal.pb.h"
#include "journal/replay_report.h"

namespace arbiter::server {

/// Replays every record, comparing each tick's state hash, each recorded
/// full state and each recorded query answer with the replay's
/// (Replayer::Mode::kVerify). Differences go to the report; an error only
/// for a record that cannot be applied at all (out of order, unreadable).
/// `progress(done)`, when set, is called after every 64th record and the
/// last: a step record may hold thousands of ticks.
absl::StatusOr<ReplayReport> VerifyJournal(const std::vector<v1::JournalRecord>& records,
                                           const std::function<void(size_t done)>& progress = {});

/// The world at `tick` plus `fraction` (in [0, 1)) of the next, rebuilt by
/// replaying until the world has passed it and asking the replayed world's
/// history for it: the path past-tick queries take on the server
/// (WorldHistory::At), so a fraction interpolates exactly as the server
/// does. INVALID_ARGUMENT without a snapshot to start from; OUT_OF_RANGE
/// (naming `tick`) when the journal ends before the tick or the tick has
/// left the replayed world's history window.
absl::StatusOr<World> ReplayToTick(const std::vector<v1::JournalRecord>& records, int64_t tick, Fixed fraction);

}  // namespace arbiter::server
