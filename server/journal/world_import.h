// File: world_import.h
//
// One import of a world from another instance's export file (ImportWorld,
// ImportWorldStream; arbiter.proto "Moving a world"), fed in pieces of any
// size. Each complete record is replayed as it arrives (through the same
// Replayer as recovery, into a registry of its own, so the world stays out
// of sight) and staged in the journal under a row that is not live yet;
// Finish checks the end (no partial record, the file's hash, the expected
// tick, state hash and epoch) and makes the world live here in one journal
// transaction, then shows it. So neither the file nor its records are ever
// held whole: memory is the largest record plus the world.
//
// All or nothing: an import destroyed before Finish succeeded (an error, a
// cancelled stream, a shutdown) releases the world id and drops what was
// staged; an instance that dies mid-import drops it at its next start
// (Journal::PurgeDeletedWorlds).
//
// Thread safety: one caller at a time (a stream feeds it in order).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "arbiter/v1/arbiter.pb.h"
#include "arbiter/v1/journal.pb.h"
#include "journal/replay.h"
#include "ops/world_registry.h"

namespace arbiter::server {

class Operations;
class JournalStore;

class WorldImport {
 public:
  /// Holds `request.world_id()` (invisible, UNAVAILABLE "arriving") and,
  /// with a journal, opens the staging row. `request.journal` is not read:
  /// feed it.
  /// ImportWorldStream's start: the request's fields are validated here.
  static absl::StatusOr<std::unique_ptr<WorldImport>> Begin(Operations* operations,
                                                            const v1::ImportWorldRequest& request);
  ~WorldImport();
  WorldImport(const WorldImport&) = delete;
  WorldImport& operator=(const WorldImport&) = delete;

  /// The next bytes of the export file. INVALID_ARGUMENT / DATA_LOSS
  /// naming the byte offset for a file that is not an export of this
  /// world or is damaged; the import is then over (destroy it).
  absl::Status Feed(std::string_view bytes);
  /// The xxh64 (seed 0) the whole file must have, checked by Finish.
  void ExpectFileHash(uint64_t hash) { file_hash_ = hash; }
  /// Checks the end and makes the world live here; fills `reply`.
  absl::Status Finish(v1::ImportWorldResponse* reply);

  uint64_t bytes_fed() const { return bytes_fed_; }

 private:
  WorldImport(Operations* operations, WorldRegistry* registry, JournalStore* journal,
              const v1::ImportWorldRequest& request, int64_t key);
  absl::Status TakeRecords();
  absl::Status Take(v1::JournalRecord record, size_t offset);
  absl::Status Stage();
  absl::Status CheckEnd() const;
  absl::Status Install();

  Operations* operations_;
  WorldRegistry* registry_;
  JournalStore* journal_;
  v1::ImportWorldRequest request_;  // without the journal bytes
  int64_t key_;                     // the staging row; -1: no journal
  // Declared before the replayer, which holds a pointer to it.
  WorldRegistry scratch_;
  Replayer replayer_;
  struct FileHash;  // xxh64 of the bytes fed so far
  std::unique_ptr<FileHash> hash_;
  std::optional<uint64_t> file_hash_;
  std::string buffer_;       // bytes not yet parsed into a record
  uint64_t buffer_offset_ = 0;  // the file offset of buffer_[0]
  uint64_t bytes_fed_ = 0;
  bool header_seen_ = false;
  std::vector<v1::JournalRecord> staged_;  // replayed, not yet journaled
  size_t staged_bytes_ = 0;
  uint64_t records_ = 0;
  bool done_ = false;  // installed: nothing to undo
};

/// ImportWorld, the unary form: the export file whole in the request
/// (at most --max_import_bytes). Replays it, checks it ends at the expected
/// tick and hash, journals it in one transaction and only then shows the
/// world. On any failure the id is free again and nothing is journaled.
absl::Status ImportWorld(Operations* operations, const v1::ImportWorldRequest& request,
                         v1::ImportWorldResponse* reply);

}  // namespace arbiter::server
