// Moving a world between instances (a fleet): freezing it on the source and
// importing its journal on the destination. The client drives the move
// (`arbiter migrate`, arbiter.proto "Moving a world"); each step here is
// all or nothing, so a failed move leaves the world on exactly one instance.
#include "operations.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "journal_file.h"
#include "replay.h"
#include "request_checks.h"
#include "world_records.h"

namespace arbiter::server {
namespace {

constexpr size_t kMaxDestinationChars = 256;

absl::Status ValidateDestination(const std::string& destination) {
  if (destination.empty()) return absl::InvalidArgumentError("destination: required (the instance the world moves to)");
  if (destination.size() > kMaxDestinationChars) {
    return absl::InvalidArgumentError("destination: longer than " + std::to_string(kMaxDestinationChars) +
                                      " characters");
  }
  for (char c : destination) {
    if (c <= ' ' || c > '~') return absl::InvalidArgumentError("destination: only printable ASCII, no spaces");
  }
  return absl::OkStatus();
}

// The records to replay and journal: the export's header, then its
// snapshot and changes. Recorded queries are skipped: they change nothing
// and are keyed by the change they followed, not a seq of their own.
absl::Status ParseImport(const v1::ImportWorldRequest& request, std::vector<v1::JournalRecord>* records) {
  std::vector<v1::JournalRecord> all;
  if (absl::Status s = ParseJournalFile(request.journal(), &all); !s.ok()) return WithPrefix(s, "journal: ");
  if (all.empty() || !all.front().has_header()) {
    return absl::InvalidArgumentError("journal: does not start with a header (use ExportJournal's file)");
  }
  if (all.front().header().world_id() != request.world_id()) {
    return absl::InvalidArgumentError("journal: its header names world '" + all.front().header().world_id() +
                                      "', not world_id '" + request.world_id() + "'");
  }
  for (v1::JournalRecord& r : all) {
    if (!r.has_query()) records->push_back(std::move(r));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status Operations::FreezeWorld(const v1::FreezeWorldRequest& request, v1::FreezeWorldResponse* reply) {
  if (absl::Status s = ValidateWorldId(request.world_id()); !s.ok()) return s;
  if (!request.thaw()) {
    if (absl::Status s = ValidateDestination(request.destination()); !s.ok()) return s;
  }
  absl::StatusOr<std::shared_ptr<WorldEntry>> entry = registry_->Find(request.world_id());
  if (!entry.ok()) return entry.status();
  // The exclusive lock: a write in progress finishes (and is journaled)
  // first, so the tick and hash replied are those of the last write acked.
  return (*entry)->Write([&](World& world) -> absl::Status {
    if (absl::Status s = (*entry)->Availability(); !s.ok()) return s;
    absl::Status changed =
        request.thaw() ? ThawLocked(**entry, world) : FreezeLocked(**entry, world, request.destination());
    if (!changed.ok()) return changed;
    reply->set_tick(world.tick());
    reply->set_state_hash(world.StateHash());
    reply->set_history_ticks(static_cast<uint32_t>((*entry)->history().capacity()));
    reply->set_frozen((*entry)->frozen());
    reply->set_epoch((*entry)->epoch());
    return absl::OkStatus();
  });
}

absl::Status Operations::FreezeLocked(WorldEntry& entry, const World& world, const std::string& destination) {
  if (entry.frozen()) return entry.Freeze(destination);  // the same move again, or a refusal
  // Journaled before it takes effect: a restart must find it frozen.
  const uint64_t epoch = entry.epoch() + 1;
  v1::JournalRecord record = MoveRecord(world, v1::WorldMove::FROZEN, destination, epoch);
  if (absl::Status s = JournalMarker(entry, &record); !s.ok()) return s;
  entry.set_epoch(epoch);
  return entry.Freeze(destination);
}

absl::Status Operations::ThawLocked(WorldEntry& entry, const World& world) {
  if (!entry.frozen()) return absl::OkStatus();
  // A new epoch: should the move have happened after all, the two copies
  // still differ in epoch, and the destination's is the one frozen here.
  const uint64_t epoch = entry.epoch() + 1;
  v1::JournalRecord record = MoveRecord(world, v1::WorldMove::THAWED, "", epoch);
  if (absl::Status s = JournalMarker(entry, &record); !s.ok()) return s;
  entry.set_epoch(epoch);
  entry.Thaw();
  return absl::OkStatus();
}

absl::Status Operations::ImportWorld(const v1::ImportWorldRequest& request, v1::ImportWorldResponse* reply) {
  if (absl::Status s = ValidateWorldId(request.world_id()); !s.ok()) return s;
  if (request.journal().size() > limits_.max_import_bytes) {
    return absl::ResourceExhaustedError("journal: " + std::to_string(request.journal().size()) +
                                        " bytes exceed --max_import_bytes (" +
                                        std::to_string(limits_.max_import_bytes) + ")");
  }
  if (request.expected_tick() < 0) return absl::InvalidArgumentError("expected_tick: must not be negative");
  std::vector<v1::JournalRecord> records;
  if (absl::Status s = ParseImport(request, &records); !s.ok()) return s;
  // The id is held (invisible, UNAVAILABLE) while the world is replayed.
  if (absl::Status s = registry_->Reserve(request.world_id(), WorldEntry::State::kImporting); !s.ok()) return s;
  absl::StatusOr<std::shared_ptr<WorldEntry>> entry = ReplayImport(request, records);
  absl::Status s = entry.status();
  if (s.ok()) s = InstallImport(*entry, records);
  if (!s.ok()) {
    registry_->Unreserve(request.world_id());
    return s;
  }
  (*entry)->Read([&](const World& world) { FillWorldInfo(**entry, world, true, reply->mutable_world()); });
  reply->set_records(records.size());
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<WorldEntry>> Operations::ReplayImport(const v1::ImportWorldRequest& request,
                                                                     const std::vector<v1::JournalRecord>& records) {
  // A registry of its own, as in recovery: out of sight until checked.
  WorldRegistry scratch(registry_->limits());
  Replayer replayer(&scratch, Replayer::Mode::kRecover);
  for (const v1::JournalRecord& r : records) {
    if (absl::Status s = replayer.Apply(r); !s.ok()) return WithPrefix(s, "journal: ");
  }
  if (replayer.entry() == nullptr) return absl::InvalidArgumentError("journal: holds no snapshot to start from");
  const std::shared_ptr<WorldEntry> entry = replayer.entry();
  const auto [tick, hash] =
      entry->Read([](const World& world) { return std::make_pair(world.tick(), world.StateHash()); });
  if (tick != request.expected_tick() || hash != request.expected_state_hash()) {
    return absl::FailedPreconditionError(
        "expected_state_hash: the journal replays to tick " + std::to_string(tick) + " with state hash " +
        std::to_string(hash) + ", not the expected tick " + std::to_string(request.expected_tick()) +
        " with state hash " + std::to_string(request.expected_state_hash()));
  }
  const auto [frozen, epoch] = entry->Read([&](const World&) { return std::make_pair(entry->frozen(), entry->epoch()); });
  if (request.expected_epoch() != 0 && (!frozen || epoch != request.expected_epoch())) {
    return absl::FailedPreconditionError(
        "expected_epoch: the journal ends " +
        (frozen ? "frozen at epoch " + std::to_string(epoch) : std::string("not frozen (an export of a live world)")) +
        ", not frozen at epoch " + std::to_string(request.expected_epoch()) +
        " (export again after the freeze whose epoch you name)");
  }
  entry->Write([&](World&) { entry->journal().seq = replayer.last_seq(); });
  return entry;
}

absl::Status Operations::InstallImport(const std::shared_ptr<WorldEntry>& entry,
                                       const std::vector<v1::JournalRecord>& records) {
  // The world is this instance's from here on: live, at the epoch it was
  // frozen at (a copy of a live world: one past its source's).
  const v1::JournalRecord arrived = entry->Write([&](World& world) {
    const uint64_t epoch = entry->frozen() ? entry->epoch() : entry->epoch() + 1;
    entry->set_epoch(epoch);
    entry->Thaw();
    v1::JournalRecord r = MoveRecord(world, v1::WorldMove::ARRIVED, "", epoch);
    r.set_seq(++entry->journal().seq);
    return r;
  });
  int64_t key = -1;
  if (durability_.journal != nullptr) {
    std::vector<const v1::JournalRecord*> pointers;
    for (const v1::JournalRecord& r : records) pointers.push_back(&r);
    pointers.push_back(&arrived);
    absl::StatusOr<int64_t> k = durability_.journal->ImportWorld(entry->id(), pointers);
    if (!k.ok()) return WithPrefix(k.status(), "journal: could not be written here: ");
    key = *k;
  }
  entry->Write([&](World& world) {
    entry->journal().key = key;
    if (key >= 0) CompactJournal(*entry, world);
  });
  absl::Status installed = registry_->Install(entry);
  if (!installed.ok() && key >= 0) (void)durability_.journal->DeleteWorld(key);
  return installed;
}

}  // namespace arbiter::server
