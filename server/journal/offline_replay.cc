#include "journal/offline_replay.h"

#include <memory>
#include <string>

#include "journal/replay.h"
#include "ops/status_convert.h"
#include "ops/world_registry.h"

namespace arbiter::server {
namespace {

// One world, as large as the records make it.
RegistryLimits OfflineLimits() {
  RegistryLimits limits;
  limits.max_worlds = 1;
  limits.max_bodies_per_world = UINT32_MAX;
  return limits;
}

int64_t TickOf(const WorldEntry& entry) {
  return entry.Read([](const World& w) { return w.tick(); });
}

// Past `tick` (or at it, when no fraction asks for the tick after it).
bool Reached(const Replayer& replayer, int64_t tick, Fixed fraction) {
  if (replayer.entry() == nullptr) return false;
  const int64_t now = TickOf(*replayer.entry());
  return now > tick || (now == tick && fraction.raw() == 0);
}

}  // namespace

absl::StatusOr<ReplayReport> VerifyJournal(const std::vector<v1::JournalRecord>& records,
                                           const std::function<void(size_t done)>& progress) {
  WorldRegistry registry(OfflineLimits());
  Replayer replayer(&registry, Replayer::Mode::kVerify);
  for (size_t i = 0; i < records.size(); ++i) {
    if (absl::Status s = replayer.Apply(records[i]); !s.ok()) return s;
    if (progress && ((i + 1) % 64 == 0 || i + 1 == records.size())) progress(i + 1);
  }
  return replayer.report();
}

absl::StatusOr<World> ReplayToTick(const std::vector<v1::JournalRecord>& records, int64_t tick, Fixed fraction) {
  WorldRegistry registry(OfflineLimits());
  Replayer replayer(&registry, Replayer::Mode::kVerify);
  for (const v1::JournalRecord& record : records) {
    if (Reached(replayer, tick, fraction)) break;
    if (absl::Status s = replayer.Apply(record); !s.ok()) return s;
  }
  if (replayer.entry() == nullptr) return absl::InvalidArgumentError("journal: no snapshot to start from");
  const WorldEntry& entry = *replayer.entry();
  return entry.Read([&](const World& live) -> absl::StatusOr<World> {
    if (live.tick() < tick || (live.tick() == tick && fraction.raw() != 0)) {
      return absl::OutOfRangeError("tick: " + std::to_string(tick) + " is past the journal's end (tick " +
                                   std::to_string(live.tick()) + ")");
    }
    std::shared_ptr<const World> past;
    if (absl::Status s = FromCore(entry.history().At(live, tick, fraction, &past)); !s.ok()) {
      return absl::Status(s.code(), "tick: " + std::string(s.message()));
    }
    return past != nullptr ? past->Clone() : live.Clone();
  });
}

}  // namespace arbiter::server
