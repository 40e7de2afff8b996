#include "journal/journal_recovery.h"

#include <cstdio>
#include <thread>
#include <utility>

#include "journal/replay.h"

namespace arbiter::server {
namespace {

using Clock = std::chrono::steady_clock;

std::string Seconds(Clock::duration d) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f s", std::chrono::duration<double>(d).count());
  return text;
}

}  // namespace

JournalRecovery::JournalRecovery(Journal* journal, WorldRegistry* registry, Operations* operations,
                                 RecoveryGate* gate, RecoveryOptions options)
    : journal_(journal), registry_(registry), operations_(operations), gate_(gate), options_(std::move(options)) {}

void JournalRecovery::Log(const std::string& line) const {
  if (options_.log) options_.log(line);
}

absl::Status JournalRecovery::Reserve() {
  absl::StatusOr<std::vector<Journal::StoredWorld>> worlds = journal_->LiveWorlds();
  if (!worlds.ok()) return worlds.status();
  worlds_ = std::move(*worlds);
  for (const Journal::StoredWorld& stored : worlds_) {
    if (absl::Status s = registry_->Reserve(stored.world_id); !s.ok()) {
      return absl::Status(s.code(), "recovering world '" + stored.world_id + "' from " + journal_->path() + ": " +
                                        std::string(s.message()));
    }
  }
  gate_->SetProgress(0, worlds_.size());
  return RestoreTombstones();
}

absl::Status JournalRecovery::RestoreTombstones() {
  const int64_t now = std::chrono::duration_cast<std::chrono::seconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
  absl::StatusOr<std::vector<MovedAway>> moved = journal_->Tombstones(now);
  if (!moved.ok()) return moved.status();
  for (const MovedAway& m : *moved) {
    registry_->RestoreTombstone(m.world_id, m.moved_to, std::chrono::seconds(m.until_unix_seconds - now));
  }
  return absl::OkStatus();
}

absl::Status JournalRecovery::Run(const std::function<bool()>& stop) {
  for (const Journal::StoredWorld& stored : worlds_) {
    if (absl::Status s = RecoverWorld(stored, stop); !s.ok()) return s;
    gate_->SetProgress(recovered_.size(), worlds_.size());
  }
  return absl::OkStatus();
}

absl::Status JournalRecovery::RecoverWorld(const Journal::StoredWorld& stored, const std::function<bool()>& stop) {
  const std::string which = "world '" + stored.world_id + "' (" + std::to_string(recovered_.size() + 1) + " of " +
                            std::to_string(worlds_.size()) + ")";
  const Clock::time_point started = Clock::now();
  // Read everything first, replay after: replaying inside the read would
  // hold the journal's lock for the whole replay, and queries on worlds
  // already back journal through it (--journal_queries).
  std::vector<v1::JournalRecord> records;
  absl::Status s = journal_->ReadForRecovery(stored.key, [&](const v1::JournalRecord& r) {
    records.push_back(r);
    return absl::OkStatus();
  });
  // A registry of its own: the world stays out of sight until it is whole.
  WorldRegistry scratch(registry_->limits());
  Replayer replayer(&scratch, Replayer::Mode::kRecover);
  const std::string total = std::to_string(records.size());
  Log("recovering " + which + ": " + total + " records to replay");
  Clock::time_point next_report = started + options_.progress_every;
  for (size_t i = 0; s.ok() && i < records.size(); ++i) {
    if (stop()) return absl::CancelledError("server shutting down before its journal was recovered");
    s = replayer.Apply(records[i]);
    if (options_.delay_per_record_for_testing.count() > 0) {
      std::this_thread::sleep_for(options_.delay_per_record_for_testing);
    }
    if (Clock::now() >= next_report && replayer.entry() != nullptr) {
      const int64_t tick = replayer.entry()->Read([](const World& world) { return world.tick(); });
      Log("recovering " + which + ": " + std::to_string(i + 1) + " / " + total + " records, tick " +
          std::to_string(tick));
      next_report = Clock::now() + options_.progress_every;
    }
  }
  if (s.ok() && replayer.entry() == nullptr) s = absl::DataLossError("no snapshot to start from");
  if (!s.ok()) {
    return absl::Status(s.code(), "recovering world '" + stored.world_id + "' from " + journal_->path() + ": " +
                                      std::string(s.message()));
  }
  const std::shared_ptr<WorldEntry>& entry = replayer.entry();
  std::string moving;
  const int64_t tick = entry->Write([&](World& world) {
    entry->journal() = {stored.key, replayer.last_seq()};
    operations_->CompactJournal(*entry, world);
    if (entry->frozen()) {
      moving = "; frozen, moving to " + entry->destination() + " at epoch " + std::to_string(entry->epoch()) +
               " (a move was cut short: finish or undo it with `arbiter migrate --world " + stored.world_id +
               " --from THIS --to " + entry->destination() + " --resume`)";
    }
    return world.tick();
  });
  if (absl::Status installed = registry_->Install(entry); !installed.ok()) return installed;
  recovered_.push_back(stored.world_id);
  Log("recovered " + which + " at tick " + std::to_string(tick) + ": " + total + " records in " +
      Seconds(Clock::now() - started) + moving);
  return absl::OkStatus();
}

}  // namespace arbiter::server
