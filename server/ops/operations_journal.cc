// Journaling: a new world's header and snapshot, each change's records (a
// failed write takes the world offline), compaction after checkpoints, and
// exports.
#include "ops/operations.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "arbiter/wire/convert.h"
#include "journal/journal_export.h"
#include "journal/journal_file.h"
#include "ops/status_convert.h"
#include "ops/world_records.h"

namespace arbiter::server {

absl::Status Operations::JournalNewWorld(const std::string& id, const World& world, uint32_t history_ticks,
                                         int64_t* key) {
  *key = -1;
  if (durability_.journal == nullptr) return absl::OkStatus();
  v1::JournalRecord header;
  header.set_seq(0);
  header.set_tick(world.tick());
  header.mutable_header()->set_world_id(id);
  header.mutable_header()->set_history_ticks(history_ticks);
  header.mutable_header()->set_format(1);
  v1::JournalRecord snapshot = SnapshotRecord(world, /*restored=*/false, /*epoch=*/0);
  snapshot.set_seq(1);
  absl::StatusOr<int64_t> k = durability_.journal->CreateWorld(id, header, snapshot);
  if (!k.ok()) return k.status();
  *key = *k;
  return absl::OkStatus();
}

bool Operations::Journaled(const WorldEntry& entry) const {
  return durability_.journal != nullptr && entry.journal().key >= 0;
}

absl::Status Operations::JournalMarker(WorldEntry& entry, v1::JournalRecord* record) {
  JournalCursor& cursor = entry.journal();
  if (!Journaled(entry)) return absl::OkStatus();
  record->set_seq(cursor.seq + 1);
  if (absl::Status s = durability_.journal->Append(cursor.key, {record}); !s.ok()) {
    return absl::UnavailableError("the change could not be journaled, so it was not made (" +
                                  std::string(s.message()) + ")");
  }
  cursor.seq = record->seq();
  return absl::OkStatus();
}

absl::Status Operations::JournalChange(WorldEntry& entry, std::vector<v1::JournalRecord*> records) {
  JournalCursor& cursor = entry.journal();
  if (!Journaled(entry)) return absl::OkStatus();
  uint64_t seq = cursor.seq;
  std::vector<const v1::JournalRecord*> out;
  for (v1::JournalRecord* r : records) {
    r->set_seq(++seq);
    out.push_back(r);
  }
  if (absl::Status s = durability_.journal->Append(cursor.key, out); !s.ok()) {
    // The world now holds a change the journal does not: nobody may see it,
    // including the calls already queued on the lock we hold.
    entry.TakeOffline("a change could not be journaled: " + std::string(s.message()));
    return absl::UnavailableError("the change could not be journaled, so it was not applied (" +
                                  std::string(s.message()) + "); world '" + entry.id() +
                                  "' is offline until the server restarts and recovers it");
  }
  cursor.seq = seq;
  return absl::OkStatus();
}

void Operations::CompactJournal(const WorldEntry& entry, const World& world) {
  const int64_t keep_from = world.tick() - static_cast<int64_t>(entry.history().capacity()) - durability_.retain_ticks;
  // Housekeeping: a failure only leaves more records behind, all valid.
  (void)durability_.journal->Compact(entry.journal().key, keep_from);
}

absl::StatusOr<std::unique_ptr<JournalExport>> Operations::OpenExport(const v1::ExportJournalRequest& request) {
  if (durability_.journal == nullptr) {
    return absl::FailedPreconditionError("this server keeps no journal (start it with --data_dir)");
  }
  if (request.from_tick() < 0 || request.to_tick() < 0) {
    return absl::InvalidArgumentError("from_tick, to_tick: must not be negative");
  }
  if (request.to_tick() != 0 && request.to_tick() <= request.from_tick()) {
    return absl::InvalidArgumentError("to_tick: must be after from_tick (or 0 for the end)");
  }
  absl::StatusOr<std::shared_ptr<WorldEntry>> entry = registry_->Find(request.world_id());
  if (!entry.ok()) return entry.status();
  const int64_t key = (*entry)->Read([&](const World&) { return (*entry)->journal().key; });
  if (key < 0) return absl::FailedPreconditionError("world_id: world '" + request.world_id() + "' is not journaled");
  absl::StatusOr<JournalRange> cursor = durability_.journal->OpenRange(key, request.from_tick(), request.to_tick());
  if (!cursor.ok()) return cursor.status();
  return std::make_unique<JournalExport>(durability_.journal, *cursor);
}

}  // namespace arbiter::server
