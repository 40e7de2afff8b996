#include "journal/journal.h"

#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>

#include "journal/data_dir_lock.h"
#include "ops/server_log.h"

namespace arbiter::server {
namespace {

// Statements are prepared per call: the journal's cost is the commit, not
// the parse (measured in the notes of issue 7).
class Statement {
 public:
  Statement(sqlite3* db, const char* sql) { ok_ = sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr) == SQLITE_OK; }
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  bool ok() const { return ok_; }
  sqlite3_stmt* get() { return stmt_; }
  void Bind(int i, int64_t v) { sqlite3_bind_int64(stmt_, i, v); }
  void Bind(int i, const std::string& text) {
    sqlite3_bind_text(stmt_, i, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
  }
  void BindBlob(int i, const std::string& bytes) {
    sqlite3_bind_blob(stmt_, i, bytes.data(), static_cast<int>(bytes.size()), SQLITE_TRANSIENT);
  }

 private:
  sqlite3_stmt* stmt_ = nullptr;
  bool ok_ = false;
};

constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS worlds(
  key INTEGER PRIMARY KEY AUTOINCREMENT,
  world_id TEXT NOT NULL,
  live INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS records(
  world_key INTEGER NOT NULL,
  seq INTEGER NOT NULL,
  tick INTEGER NOT NULL,
  is_snapshot INTEGER NOT NULL,
  record BLOB NOT NULL,
  PRIMARY KEY(world_key, seq)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS records_snapshots ON records(world_key, is_snapshot, tick);
CREATE TABLE IF NOT EXISTS queries(
  world_key INTEGER NOT NULL,
  seq INTEGER NOT NULL,
  n INTEGER NOT NULL,
  record BLOB NOT NULL,
  PRIMARY KEY(world_key, seq, n)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS moved(
  world_id TEXT PRIMARY KEY,
  moved_to TEXT NOT NULL,
  epoch INTEGER NOT NULL,
  until_unix_seconds INTEGER NOT NULL) WITHOUT ROWID;
)sql";

}  // namespace

absl::StatusOr<JournalSync> ParseJournalSync(std::string_view text) {
  if (text == "full") return JournalSync::kFull;
  if (text == "normal") return JournalSync::kNormal;
  if (text == "off") return JournalSync::kOff;
  return absl::InvalidArgumentError("journal_sync: '" + std::string(text) + "' is not one of full, normal, off");
}

absl::Status Journal::Error(const char* what) const {
  return absl::UnavailableError(std::string("journal ") + path_ + ": " + what + ": " + sqlite3_errmsg(db_));
}

absl::Status Journal::Exec(const char* sql) {
  char* message = nullptr;
  if (sqlite3_exec(db_, sql, nullptr, nullptr, &message) == SQLITE_OK) return absl::OkStatus();
  std::string text = message != nullptr ? message : "unknown error";
  sqlite3_free(message);
  return absl::UnavailableError("journal " + path_ + ": " + text);
}

absl::StatusOr<std::unique_ptr<Journal>> Journal::Open(const JournalOptions& options) {
  std::error_code ec;
  std::filesystem::create_directories(options.data_dir, ec);
  if (ec) return absl::FailedPreconditionError("data_dir: cannot create '" + options.data_dir + "': " + ec.message());
  std::unique_ptr<Journal> j(new Journal());
  absl::StatusOr<std::unique_ptr<DataDirLock>> lock = DataDirLock::Acquire(options.data_dir);
  if (!lock.ok()) return lock.status();
  j->lock_ = std::move(*lock);
  j->path_ = (std::filesystem::path(options.data_dir) / "arbiter.db").string();
  if (sqlite3_open_v2(j->path_.c_str(), &j->db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX,
                      nullptr) != SQLITE_OK) {
    return absl::FailedPreconditionError("data_dir: cannot open " + j->path_ + ": " +
                                         (j->db_ != nullptr ? sqlite3_errmsg(j->db_) : "out of memory"));
  }
  sqlite3_busy_timeout(j->db_, 5000);
  const char* sync = options.sync == JournalSync::kFull     ? "PRAGMA synchronous=FULL;"
                     : options.sync == JournalSync::kNormal ? "PRAGMA synchronous=NORMAL;"
                                                            : "PRAGMA synchronous=OFF;";
  for (const char* sql : {"PRAGMA journal_mode=WAL;", sync, kSchema}) {
    if (absl::Status s = j->Exec(sql); !s.ok()) return s;
  }
  if (options.max_pages > 0) {
    const std::string limit = "PRAGMA max_page_count=" + std::to_string(options.max_pages) + ";";
    if (absl::Status s = j->Exec(limit.c_str()); !s.ok()) return s;
  }
  return j;
}

Journal::~Journal() { sqlite3_close_v2(db_); }

absl::Status Journal::Begin() { return Exec("BEGIN IMMEDIATE;"); }
absl::Status Journal::Commit() { return Exec("COMMIT;"); }
void Journal::Rollback() { (void)Exec("ROLLBACK;"); }

absl::StatusOr<std::vector<Journal::StoredWorld>> Journal::LiveWorlds() {
  std::lock_guard<std::mutex> lock(mu_);
  Statement st(db_, "SELECT key, world_id FROM worlds WHERE live = 1 ORDER BY key;");
  if (!st.ok()) return Error("list worlds");
  std::vector<StoredWorld> out;
  int rc;
  while ((rc = sqlite3_step(st.get())) == SQLITE_ROW) {
    out.push_back({sqlite3_column_int64(st.get(), 0),
                   reinterpret_cast<const char*>(sqlite3_column_text(st.get(), 1))});
  }
  if (rc != SQLITE_DONE) return Error("list worlds");
  return out;
}

absl::Status Journal::Insert(int64_t key, const v1::JournalRecord& record) {
  Statement st(db_, "INSERT INTO records(world_key, seq, tick, is_snapshot, record) VALUES(?, ?, ?, ?, ?);");
  if (!st.ok()) return Error("prepare insert");
  st.Bind(1, key);
  st.Bind(2, static_cast<int64_t>(record.seq()));
  st.Bind(3, record.tick());
  st.Bind(4, record.has_snapshot() ? 1 : 0);
  st.BindBlob(5, record.SerializeAsString());
  if (sqlite3_step(st.get()) != SQLITE_DONE) return Error("insert record");
  return absl::OkStatus();
}

absl::StatusOr<int64_t> Journal::InsertWorldRow(const std::string& world_id, int live) {
  Statement st(db_, "INSERT INTO worlds(world_id, live) VALUES(?, ?);");
  st.Bind(1, world_id);
  st.Bind(2, live);
  if (!st.ok() || sqlite3_step(st.get()) != SQLITE_DONE) return Error("create world");
  return sqlite3_last_insert_rowid(db_);
}

absl::Status Journal::DropTombstone(const std::string& world_id) {
  // The world is here again: a tombstone saying it went away would lie.
  Statement back(db_, "DELETE FROM moved WHERE world_id = ?;");
  back.Bind(1, world_id);
  if (!back.ok() || sqlite3_step(back.get()) != SQLITE_DONE) return Error("drop tombstone");
  return absl::OkStatus();
}

absl::StatusOr<int64_t> Journal::CreateWorld(const std::string& world_id, const v1::JournalRecord& header,
                                             const v1::JournalRecord& snapshot) {
  std::lock_guard<std::mutex> lock(mu_);
  if (absl::Status s = Begin(); !s.ok()) return s;
  absl::StatusOr<int64_t> key = InsertWorldRow(world_id, kLive);
  absl::Status s = key.ok() ? DropTombstone(world_id) : key.status();
  // A transaction left open would make every later Begin fail.
  if (!s.ok()) {
    Rollback();
    return s;
  }
  if (s = InsertAndCommit(*key, {&header, &snapshot}); !s.ok()) return s;
  return key;
}

absl::StatusOr<int64_t> Journal::BeginImport(const std::string& world_id) {
  std::lock_guard<std::mutex> lock(mu_);
  if (absl::Status s = Begin(); !s.ok()) return s;
  absl::StatusOr<int64_t> key = InsertWorldRow(world_id, kImporting);
  absl::Status s = key.ok() ? Commit() : key.status();
  if (!s.ok()) {
    Rollback();
    return s;
  }
  return key;
}

absl::Status Journal::FinishImport(int64_t key, const std::string& world_id,
                                   const std::vector<const v1::JournalRecord*>& last) {
  std::lock_guard<std::mutex> lock(mu_);
  if (absl::Status s = Begin(); !s.ok()) return s;
  absl::StatusOr<int64_t> live = Change("UPDATE worlds SET live = 1 WHERE key = ?1 AND live = 2;", key);
  absl::Status s = !live.ok()  ? live.status()
                   : *live != 1 ? absl::InternalError("journal: no import in progress under key " +
                                                      std::to_string(key))
                                : DropTombstone(world_id);
  if (!s.ok()) {
    Rollback();
    return s;
  }
  return InsertAndCommit(key, last);
}

absl::Status Journal::InsertTombstone(const MovedAway& moved) {
  Statement st(db_,
               "INSERT OR REPLACE INTO moved(world_id, moved_to, epoch, until_unix_seconds) VALUES(?, ?, ?, ?);");
  if (!st.ok()) return Error("prepare tombstone");
  st.Bind(1, moved.world_id);
  st.Bind(2, moved.moved_to);
  st.Bind(3, static_cast<int64_t>(moved.epoch));
  st.Bind(4, moved.until_unix_seconds);
  if (sqlite3_step(st.get()) != SQLITE_DONE) return Error("insert tombstone");
  return absl::OkStatus();
}

absl::StatusOr<std::vector<MovedAway>> Journal::Tombstones(int64_t now_unix_seconds) {
  std::lock_guard<std::mutex> lock(mu_);
  // Housekeeping: a failure only leaves expired rows behind, never read.
  (void)Change("DELETE FROM moved WHERE until_unix_seconds <= ?1;", now_unix_seconds);
  Statement st(db_, "SELECT world_id, moved_to, epoch, until_unix_seconds FROM moved ORDER BY world_id;");
  if (!st.ok()) return Error("list tombstones");
  std::vector<MovedAway> out;
  int rc;
  while ((rc = sqlite3_step(st.get())) == SQLITE_ROW) {
    out.push_back({reinterpret_cast<const char*>(sqlite3_column_text(st.get(), 0)),
                   reinterpret_cast<const char*>(sqlite3_column_text(st.get(), 1)),
                   static_cast<uint64_t>(sqlite3_column_int64(st.get(), 2)), sqlite3_column_int64(st.get(), 3)});
  }
  if (rc != SQLITE_DONE) return Error("list tombstones");
  return out;
}

absl::Status Journal::DeleteWorld(int64_t key, const MovedAway* moved) {
  std::lock_guard<std::mutex> lock(mu_);
  if (absl::Status s = Begin(); !s.ok()) return s;
  for (const char* sql : {"DELETE FROM records WHERE world_key = ?1;", "DELETE FROM queries WHERE world_key = ?1;",
                          "DELETE FROM worlds WHERE key = ?1;"}) {
    if (absl::StatusOr<int64_t> changed = Change(sql, key); !changed.ok()) {
      Rollback();
      return changed.status();
    }
  }
  if (moved != nullptr) {
    if (absl::Status s = InsertTombstone(*moved); !s.ok()) {
      Rollback();
      return s;
    }
  }
  if (absl::Status s = Commit(); !s.ok()) {
    Rollback();
    return s;
  }
  return absl::OkStatus();
}

absl::StatusOr<int64_t> Journal::Change(const char* sql, int64_t key, int64_t seq) {
  Statement st(db_, sql);
  if (!st.ok()) return Error("prepare");
  st.Bind(1, key);
  if (sqlite3_bind_parameter_count(st.get()) >= 2) st.Bind(2, seq);
  if (sqlite3_step(st.get()) != SQLITE_DONE) return Error("change");
  return static_cast<int64_t>(sqlite3_changes(db_));
}

absl::StatusOr<int64_t> Journal::QueryInt(const char* sql) {
  Statement st(db_, sql);
  if (!st.ok() || sqlite3_step(st.get()) != SQLITE_ROW) return Error("read");
  return sqlite3_column_int64(st.get(), 0);
}

absl::StatusOr<int64_t> Journal::PurgeDeletedWorlds() {
  std::lock_guard<std::mutex> lock(mu_);
  if (absl::Status s = Begin(); !s.ok()) return s;
  absl::StatusOr<int64_t> worlds = 0;
  for (const char* sql : {"DELETE FROM records WHERE world_key IN (SELECT key FROM worlds WHERE live <> 1);",
                          "DELETE FROM queries WHERE world_key IN (SELECT key FROM worlds WHERE live <> 1);",
                          "DELETE FROM worlds WHERE live <> 1;"}) {
    worlds = Change(sql, 0);
    if (!worlds.ok()) {
      Rollback();
      return worlds.status();
    }
  }
  if (absl::Status s = Commit(); !s.ok()) {
    Rollback();
    return s;
  }
  return worlds;
}

absl::StatusOr<int64_t> Journal::Compact(int64_t key, int64_t keep_from_tick) {
  std::lock_guard<std::mutex> lock(mu_);
  absl::StatusOr<int64_t> keep = FindSnapshotSeq(key, keep_from_tick);
  if (!keep.ok()) return keep.status();
  if (absl::Status s = Begin(); !s.ok()) return s;
  absl::StatusOr<int64_t> records = Change("DELETE FROM records WHERE world_key = ?1 AND seq > 0 AND seq < ?2;", key, *keep);
  absl::StatusOr<int64_t> queries =
      records.ok() ? Change("DELETE FROM queries WHERE world_key = ?1 AND seq < ?2;", key, *keep) : records;
  absl::Status s = queries.ok() ? Commit() : queries.status();
  if (!s.ok()) {
    Rollback();
    return s;
  }
  return records;
}

absl::StatusOr<Journal::Usage> Journal::MeasureUsage() {
  std::lock_guard<std::mutex> lock(mu_);
  Usage usage;
  absl::StatusOr<int64_t> records = QueryInt("SELECT COUNT(*) FROM records;");
  absl::StatusOr<int64_t> pages = QueryInt("PRAGMA page_count;");
  absl::StatusOr<int64_t> free_pages = QueryInt("PRAGMA freelist_count;");
  absl::StatusOr<int64_t> page_size = QueryInt("PRAGMA page_size;");
  for (const absl::StatusOr<int64_t>* v : {&records, &pages, &free_pages, &page_size}) {
    if (!v->ok()) return v->status();
  }
  usage.records = *records;
  usage.file_bytes = *pages * *page_size;
  usage.bytes_used = (*pages - *free_pages) * *page_size;
  return usage;
}

absl::Status Journal::Append(int64_t key, const std::vector<const v1::JournalRecord*>& records) {
  std::lock_guard<std::mutex> lock(mu_);
  if (absl::Status s = Begin(); !s.ok()) return s;
  return InsertAndCommit(key, records);
}

absl::Status Journal::InsertAndCommit(int64_t key, const std::vector<const v1::JournalRecord*>& records) {
  const auto started = std::chrono::steady_clock::now();
  uint64_t bytes = 0;
  absl::Status s;
  for (const v1::JournalRecord* r : records) {
    bytes += r->ByteSizeLong();
    if (s = Insert(key, *r); !s.ok()) break;
  }
  if (s.ok()) s = Commit();
  if (!s.ok()) {
    Rollback();
    counters_.failures.fetch_add(1, std::memory_order_relaxed);
    // Always logged: the caller's error may reach no operator.
    LogEvent("journal write failed (world key " + std::to_string(key) + "): " + s.ToString());
    return s;
  }
  counters_.bytes_written.fetch_add(bytes, std::memory_order_relaxed);
  counters_.commit.Observe(static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - started).count()));
  return absl::OkStatus();
}

absl::Status Journal::AppendQuery(int64_t key, const v1::JournalRecord& record) {
  std::lock_guard<std::mutex> lock(mu_);
  Statement st(db_,
               "INSERT INTO queries(world_key, seq, n, record) VALUES(?1, ?2, "
               "(SELECT COALESCE(MAX(n), 0) + 1 FROM queries WHERE world_key = ?1 AND seq = ?2), ?3);");
  if (!st.ok()) return Error("prepare query insert");
  st.Bind(1, key);
  st.Bind(2, static_cast<int64_t>(record.seq()));
  st.BindBlob(3, record.SerializeAsString());
  if (sqlite3_step(st.get()) != SQLITE_DONE) return Error("insert query");
  return absl::OkStatus();
}

absl::Status Journal::VisitRows(sqlite3_stmt* stmt, const Visit& visit) {
  int rc;
  while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
    v1::JournalRecord record;
    const void* blob = sqlite3_column_blob(stmt, 0);
    const int size = sqlite3_column_bytes(stmt, 0);
    if (!record.ParseFromArray(blob, size)) return absl::DataLossError("journal " + path_ + ": unreadable record");
    if (absl::Status s = visit(record); !s.ok()) return s;
  }
  if (rc != SQLITE_DONE) return Error("read records");
  return absl::OkStatus();
}

absl::StatusOr<int64_t> Journal::FindSnapshotSeq(int64_t key, int64_t at_or_before_tick) {
  Statement st(db_,
               "SELECT COALESCE("
               "(SELECT MAX(seq) FROM records WHERE world_key = ?1 AND is_snapshot = 1 AND tick <= ?2),"
               "(SELECT MIN(seq) FROM records WHERE world_key = ?1 AND is_snapshot = 1));");
  if (!st.ok()) return Error("prepare snapshot lookup");
  st.Bind(1, key);
  st.Bind(2, at_or_before_tick);
  if (sqlite3_step(st.get()) != SQLITE_ROW || sqlite3_column_type(st.get(), 0) == SQLITE_NULL) {
    return absl::DataLossError("journal " + path_ + ": world " + std::to_string(key) + " has no snapshot");
  }
  return sqlite3_column_int64(st.get(), 0);
}

absl::Status Journal::ReadHead(int64_t key, v1::JournalRecord* header, int64_t* last_tick) {
  Statement head(db_,
                 "SELECT (SELECT record FROM records WHERE world_key = ?1 AND seq = 0),"
                 " (SELECT COALESCE(MAX(tick), 0) FROM records WHERE world_key = ?1);");
  if (!head.ok()) return Error("prepare");
  head.Bind(1, key);
  if (sqlite3_step(head.get()) != SQLITE_ROW) return Error("read header");
  if (!header->ParseFromArray(sqlite3_column_blob(head.get(), 0), sqlite3_column_bytes(head.get(), 0)) ||
      !header->has_header()) {
    return absl::DataLossError("journal " + path_ + ": world " + std::to_string(key) + " has no header");
  }
  *last_tick = sqlite3_column_int64(head.get(), 1);
  return absl::OkStatus();
}

absl::Status Journal::ReadForRecovery(int64_t key, const Visit& visit) {
  std::lock_guard<std::mutex> lock(mu_);
  v1::JournalRecord header;
  int64_t last_tick = 0;
  if (absl::Status s = ReadHead(key, &header, &last_tick); !s.ok()) return s;
  // Start far enough back that the lag-compensation window is whole again.
  absl::StatusOr<int64_t> from = FindSnapshotSeq(key, last_tick - header.header().history_ticks());
  if (!from.ok()) return from.status();
  Statement st(db_, "SELECT record FROM records WHERE world_key = ?1 AND (seq = 0 OR seq >= ?2) ORDER BY seq;");
  if (!st.ok()) return Error("prepare");
  st.Bind(1, key);
  st.Bind(2, *from);
  return VisitRows(st.get(), visit);
}

absl::StatusOr<JournalRange> Journal::OpenRange(int64_t key, int64_t from_tick, int64_t to_tick) {
  std::lock_guard<std::mutex> lock(mu_);
  JournalRange cursor;
  cursor.key = key;
  cursor.end_tick = to_tick > 0 ? to_tick : INT64_MAX;
  absl::StatusOr<int64_t> from = FindSnapshotSeq(key, from_tick);
  if (!from.ok()) return from.status();
  cursor.from_seq = *from;
  Statement st(db_,
               "SELECT (SELECT COALESCE(MAX(seq), 0) FROM records WHERE world_key = ?1),"
               " (SELECT COALESCE(SUM(length(record)), 0) FROM records WHERE world_key = ?1"
               "  AND (seq = 0 OR (seq >= ?2 AND tick < ?3))),"
               " (SELECT COALESCE(SUM(length(record)), 0) FROM queries WHERE world_key = ?1 AND seq >= ?2);");
  if (!st.ok()) return Error("prepare range");
  st.Bind(1, key);
  st.Bind(2, cursor.from_seq);
  st.Bind(3, cursor.end_tick);
  if (sqlite3_step(st.get()) != SQLITE_ROW) return Error("measure range");
  cursor.end_seq = sqlite3_column_int64(st.get(), 0);
  cursor.stored_bytes = static_cast<uint64_t>(sqlite3_column_int64(st.get(), 1)) +
                        static_cast<uint64_t>(sqlite3_column_int64(st.get(), 2));
  return cursor;
}

absl::Status Journal::ReadPage(JournalRange* cursor, int64_t max_records, const Visit& visit) {
  std::vector<v1::JournalRecord> records;
  std::map<uint64_t, std::vector<v1::JournalRecord>> queries;
  {
    std::lock_guard<std::mutex> lock(mu_);
    // Compaction deletes a prefix before a snapshot: if the records after
    // the last one read went, the range's first snapshot went with them.
    if (cursor->last_seq >= 0) {
      Statement first(db_, "SELECT 1 FROM records WHERE world_key = ?1 AND seq = ?2;");
      if (!first.ok()) return Error("prepare");
      first.Bind(1, cursor->key);
      first.Bind(2, cursor->from_seq);
      const int rc = sqlite3_step(first.get());
      if (rc != SQLITE_ROW && rc != SQLITE_DONE) return Error("read records");
      if (rc == SQLITE_DONE) {
        return absl::AbortedError("world_id: the world's journal was compacted (or the world deleted) during the "
                                  "export; export again");
      }
    }
    Statement st(db_,
                 "SELECT record FROM records WHERE world_key = ?1 AND seq > ?2 AND seq <= ?3"
                 " AND (seq = 0 OR (seq >= ?4 AND tick < ?5)) ORDER BY seq LIMIT ?6;");
    if (!st.ok()) return Error("prepare");
    st.Bind(1, cursor->key);
    st.Bind(2, cursor->last_seq);
    st.Bind(3, cursor->end_seq);
    st.Bind(4, cursor->from_seq);
    st.Bind(5, cursor->end_tick);
    st.Bind(6, max_records);
    if (absl::Status s = VisitRows(st.get(), [&](const v1::JournalRecord& r) {
          records.push_back(r);
          return absl::OkStatus();
        });
        !s.ok()) {
      return s;
    }
    if (static_cast<int64_t>(records.size()) < max_records) cursor->done = true;
    if (records.empty()) return absl::OkStatus();
    Statement q(db_, "SELECT record FROM queries WHERE world_key = ?1 AND seq >= ?2 AND seq <= ?3 ORDER BY seq, n;");
    if (!q.ok()) return Error("prepare");
    q.Bind(1, cursor->key);
    q.Bind(2, std::max<int64_t>(cursor->from_seq, static_cast<int64_t>(records.front().seq())));
    q.Bind(3, static_cast<int64_t>(records.back().seq()));
    if (absl::Status s = VisitRows(q.get(), [&](const v1::JournalRecord& r) {
          queries[r.seq()].push_back(r);
          return absl::OkStatus();
        });
        !s.ok()) {
      return s;
    }
    cursor->last_seq = static_cast<int64_t>(records.back().seq());
  }
  // Outside the lock: the visitor may take its time (the caller's pace).
  for (const v1::JournalRecord& r : records) {
    if (absl::Status s = visit(r); !s.ok()) return s;
    if (r.seq() == 0) continue;
    auto it = queries.find(r.seq());
    if (it == queries.end()) continue;
    for (const v1::JournalRecord& query : it->second) {
      if (absl::Status s = visit(query); !s.ok()) return s;
    }
  }
  return absl::OkStatus();
}

}  // namespace arbiter::server
