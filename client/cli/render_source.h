// File: render_source.h
//
// Where `arbiter render` gets its world: a snapshot file, a journal export
// replayed offline, or a live server. A past tick is rebuilt by replaying
// the journal offline (server/journal/offline_replay.h), so a fraction
// interpolates exactly as the server does.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "arbiter/client/client.h"
#include "arbiter/core/world.h"
#include "arbiter/v1/journal.pb.h"

namespace arbiter::cli {

/// A tick and a Q32.32 fraction in [0, 1).
struct TickAt {
  int64_t tick = 0;
  int64_t fraction_raw = 0;
};

/// The world of a snapshot file (World::Snapshot bytes, as `arbiter
/// snapshot FILE` writes them). Errors name the file.
absl::StatusOr<World> WorldFromSnapshotFile(const std::string& path);

/// The world at `at`, replaying `records` (a journal export): OUT_OF_RANGE
/// when the journal ends before the tick or the tick has left the
/// replayed world's history window.
absl::StatusOr<World> WorldFromJournal(const std::vector<v1::JournalRecord>& records, TickAt at);

/// As above, from a journal export file.
absl::StatusOr<World> WorldFromJournalFile(const std::string& path, TickAt at);

/// A server's world now (GetSnapshot: writer access), or at a past tick
/// (ExportJournal of the stretch holding it, replayed: writer access and a
/// server with a journal).
absl::StatusOr<World> WorldFromServer(client::ArbiterClient& client, const std::string& world_id,
                                      const std::optional<TickAt>& at);

}  // namespace arbiter::cli
