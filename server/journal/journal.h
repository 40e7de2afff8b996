// File: journal.h
//
// The durable journal: every accepted change and step of every world, in
// an embedded SQLite database (WAL mode) under the server's --data_dir.
// A change is acknowledged only after its record is committed, so a
// restarted server replays every acknowledged tick (see replay.h).
//
// What each --journal_sync setting guarantees (SQLite's `synchronous`):
//   full    every acknowledged change survives a process crash and a power
//           loss or kernel panic (one fsync per commit);
//   normal  every acknowledged change survives a process crash (SIGKILL,
//           abort); a power loss may lose the last few commits, never
//           corrupts the store (WAL fsyncs at checkpoints only);
//   off     as normal for a process crash; a power loss may corrupt the
//           store. For tests and benchmarks.
//
// Layout: `worlds` (one row per world; a deleted world's row and records
// are deleted with it), `records` (JournalRecord bytes by (world, seq)), `queries`
// (recorded queries by (world, seq of the last change they saw, n)),
// `moved` (tombstones of worlds moved away, by world id; a world created
// or imported here again drops its tombstone in the same transaction).
//
// Thread safety: every method may be called from any thread; one mutex
// serialises them over one connection.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "arbiter/v1/journal.pb.h"
#include "journal/journal_store.h"
#include "ops/metrics.h"

struct sqlite3;
struct sqlite3_stmt;

namespace arbiter::server {

class DataDirLock;

enum class JournalSync { kFull, kNormal, kOff };

/// Parses "full", "normal" or "off".
absl::StatusOr<JournalSync> ParseJournalSync(std::string_view text);

struct JournalOptions {
  std::string data_dir;  ///< created if missing; holds arbiter.db
  JournalSync sync = JournalSync::kNormal;
  /// SQLite's max_page_count (0: no limit). Tests use it to make the store
  /// run out of room, as a full disk would.
  uint32_t max_pages = 0;
};

class Journal final : public JournalStore {
 public:
  static absl::StatusOr<std::unique_ptr<Journal>> Open(const JournalOptions& options);
  ~Journal();
  Journal(const Journal&) = delete;
  Journal& operator=(const Journal&) = delete;

  const std::string& path() const { return path_; }

  struct StoredWorld {
    int64_t key = 0;
    std::string world_id;
  };
  /// Live worlds, by key (creation order).
  absl::StatusOr<std::vector<StoredWorld>> LiveWorlds();

  /// A new world: its header (seq 0) and creation snapshot (seq 1), in one
  /// transaction. Returns the world's key.
  absl::StatusOr<int64_t> CreateWorld(const std::string& world_id, const v1::JournalRecord& header,
                                      const v1::JournalRecord& snapshot) override;
  /// A world arriving from another instance: a row of its own, not live,
  /// under which its records are staged with Append (their own seqs) as
  /// they arrive. Returns the world's key. An import that ends otherwise
  /// than by FinishImport is dropped by DeleteWorld, or at the next start
  /// by PurgeDeletedWorlds.
  absl::StatusOr<int64_t> BeginImport(const std::string& world_id) override;
  /// Makes a staged import live, in one transaction with its last records
  /// (`last`) and the removal of any tombstone of the world.
  absl::Status FinishImport(int64_t key, const std::string& world_id,
                            const std::vector<const v1::JournalRecord*>& last) override;
  /// Deletes the world and every record of it, in one transaction; with
  /// `moved`, stores its tombstone in the same transaction.
  absl::Status DeleteWorld(int64_t key, const MovedAway* moved = nullptr) override;
  /// The tombstones whose end is after `now_unix_seconds`, by world id
  /// (older ones are dropped).
  absl::StatusOr<std::vector<MovedAway>> Tombstones(int64_t now_unix_seconds);
  /// Deletes what is left of worlds marked deleted (by an older server,
  /// which kept their records) and of imports cut short (staged, never
  /// finished); returns how many worlds.
  absl::StatusOr<int64_t> PurgeDeletedWorlds();
  /// Deletes the world's records (and recorded queries) before its newest
  /// snapshot at or before `keep_from_tick` (its oldest if none is), in one
  /// transaction; returns how many records went. Only a prefix before a
  /// snapshot goes, so recovery and exports always find a snapshot to
  /// start from and every record after it.
  absl::StatusOr<int64_t> Compact(int64_t key, int64_t keep_from_tick) override;

  struct Usage {
    int64_t records = 0;     ///< records of every world
    int64_t bytes_used = 0;  ///< pages in use (the file less its free pages)
    int64_t file_bytes = 0;  ///< the database file (freed pages are reused, not returned)
  };
  absl::StatusOr<Usage> MeasureUsage();
  /// Commit latency, bytes written and failures since open (for /metrics).
  const JournalCounters& counters() const { return counters_; }
  /// Appends records of one world in one transaction (a step and the
  /// checkpoint after it commit together).
  absl::Status Append(int64_t key, const std::vector<const v1::JournalRecord*>& records) override;
  /// Appends a recorded query (its seq: the last change it saw).
  absl::Status AppendQuery(int64_t key, const v1::JournalRecord& record) override;

  /// What a restart replays: the header, then the newest snapshot at or
  /// before (last tick - the world's history_ticks) (the oldest one if none
  /// is), then every record after it. Queries are not included.
  absl::Status ReadForRecovery(int64_t key, const Visit& visit);
  /// An export, read page by page so that neither side holds the whole
  /// journal and other worlds' writes wait at most one page: the header,
  /// the newest snapshot at or before from_tick, then every record after
  /// it up to the world's last record now, whose tick is below to_tick (0:
  /// all), each change's recorded queries right after it.
  absl::StatusOr<JournalRange> OpenRange(int64_t key, int64_t from_tick, int64_t to_tick) override;
  /// Visits the next (at most) max_records records of the range and their
  /// queries, outside the journal's lock; sets cursor->done after the last.
  /// ABORTED when the range's start was compacted away (or the world
  /// deleted) since it was opened: the rest would not follow on; read again.
  absl::Status ReadPage(JournalRange* cursor, int64_t max_records, const Visit& visit) override;

 private:
  Journal() = default;
  absl::Status Exec(const char* sql);
  absl::Status Error(const char* what) const;
  absl::Status Begin();
  absl::Status Commit();
  void Rollback();
  absl::Status Insert(int64_t key, const v1::JournalRecord& record);
  absl::Status InsertTombstone(const MovedAway& moved);
  /// worlds.live: 0 deleted (by an older server), 1 live, 2 an import
  /// staged and not finished.
  static constexpr int kLive = 1;
  static constexpr int kImporting = 2;
  /// Inside a transaction: a new worlds row; its key.
  absl::StatusOr<int64_t> InsertWorldRow(const std::string& world_id, int live);
  absl::Status DropTombstone(const std::string& world_id);
  /// Inside a transaction: inserts, then commits; rolls back on failure.
  absl::Status InsertAndCommit(int64_t key, const std::vector<const v1::JournalRecord*>& records);
  absl::Status VisitRows(sqlite3_stmt* stmt, const Visit& visit);
  absl::StatusOr<int64_t> FindSnapshotSeq(int64_t key, int64_t at_or_before_tick);
  /// The world's header and its last tick.
  absl::Status ReadHead(int64_t key, v1::JournalRecord* header, int64_t* last_tick);
  /// Runs `sql` with ?1 = key and ?2 = seq (when given); the rows changed.
  absl::StatusOr<int64_t> Change(const char* sql, int64_t key, int64_t seq = 0);
  JournalCounters counters_;
  absl::StatusOr<int64_t> QueryInt(const char* sql);

  // Held while the store is open: one server per data directory.
  std::unique_ptr<DataDirLock> lock_;
  std::string path_;
  std::mutex mu_;
  sqlite3* db_ = nullptr;
};

}  // namespace arbiter::server
