// Moving a world between instances (a fleet): freezing it on the source and
// importing its journal on the destination. The client drives the move
// (`arbiter migrate`, arbiter.proto "Moving a world"); each step here is
// all or nothing, so a failed move leaves the world on exactly one instance.
#include "ops/operations.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ops/request_checks.h"
#include "ops/world_records.h"

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

}  // namespace arbiter::server
