// File: journal_store.h
//
// What Operations needs of a durable journal, as an interface. The server's
// SQLite Journal (journal.h) implements it; the offline replay (`arbiter
// replay verify`) runs Operations without any, so the CLI links no SQLite.
// Each method's contract is stated on Journal.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "arbiter/v1/journal.pb.h"

namespace arbiter::server {

/// A world's tombstone on the instance it moved away from (DeleteWorld of
/// a frozen world): kept in the same transaction as the world's delete, so
/// a restarted instance still says where the world went.
struct MovedAway {
  std::string world_id;
  std::string moved_to;
  uint64_t epoch = 0;              ///< the epoch it was frozen at
  int64_t until_unix_seconds = 0;  ///< wall clock: the tombstone's end
};

/// Where a paged read of one world's journal stands (OpenRange, ReadPage).
/// The range is fixed when it is opened: records appended after that are
/// not read, so an export of a live world is the world as it was then.
struct JournalRange {
  int64_t key = -1;
  int64_t from_seq = 0;                ///< the snapshot the range starts at
  int64_t end_seq = 0;                 ///< the world's last record when the range was opened
  int64_t end_tick = INT64_MAX;        ///< records at this tick or after are left out
  int64_t last_seq = -1;               ///< the last record read (-1: none; the header, seq 0, is first)
  uint64_t stored_bytes = 0;           ///< the range's stored records and queries at open (for progress)
  bool done = false;                   ///< every record of the range has been visited
};

class JournalStore {
 public:
  virtual ~JournalStore() = default;

  using Visit = std::function<absl::Status(const v1::JournalRecord&)>;

  virtual absl::StatusOr<int64_t> CreateWorld(const std::string& world_id, const v1::JournalRecord& header,
                                              const v1::JournalRecord& snapshot) = 0;
  virtual absl::StatusOr<int64_t> BeginImport(const std::string& world_id) = 0;
  virtual absl::Status FinishImport(int64_t key, const std::string& world_id,
                                    const std::vector<const v1::JournalRecord*>& last) = 0;
  virtual absl::Status DeleteWorld(int64_t key, const MovedAway* moved = nullptr) = 0;
  virtual absl::Status Append(int64_t key, const std::vector<const v1::JournalRecord*>& records) = 0;
  virtual absl::Status AppendQuery(int64_t key, const v1::JournalRecord& record) = 0;
  virtual absl::StatusOr<int64_t> Compact(int64_t key, int64_t keep_from_tick) = 0;
  virtual absl::StatusOr<JournalRange> OpenRange(int64_t key, int64_t from_tick, int64_t to_tick) = 0;
  virtual absl::Status ReadPage(JournalRange* cursor, int64_t max_records, const Visit& visit) = 0;
};

}  // namespace arbiter::server
