// Changes to bodies (AddBodies, RemoveBodies, UpdateBodies) through one
// path, Change; and Restore, which replaces a world whole.
#include "ops/operations.h"

#include <span>
#include <string>
#include <vector>

#include "arbiter/wire/convert.h"
#include "ops/body_updates.h"
#include "ops/request_checks.h"
#include "ops/status_convert.h"
#include "ops/world_records.h"

namespace arbiter::server {

// The one path of a change to a world (all but Step, which journals its
// ticks and publishes its events, and Restore, which replaces the world
// whole): the request was parsed and checked without the lock; under the
// exclusive lock (an offline world refuses) expected_tick and
// expected_epoch are checked, the change applied (all or nothing), then
// journaled as the request at its tick. It is acknowledged only once journaled; a failed write takes the
// world offline (JournalChange), so nobody sees it.
template <class Request, class Apply>
absl::Status Operations::Change(WorldEntry& entry, const Request& request, Request* (v1::JournalRecord::*field)(),
                                Apply apply) {
  return entry.WriteLive([&](World& world) -> absl::Status {
    if (absl::Status s = CheckExpected(request, entry, world); !s.ok()) return s;
    if (absl::Status s = apply(world); !s.ok()) return s;
    if (!Journaled(entry)) return absl::OkStatus();
    v1::JournalRecord record;
    record.set_tick(world.tick());
    *(record.*field)() = request;
    return JournalChange(entry, {&record});
  });
}

absl::Status Operations::AddBodies(const v1::AddBodiesRequest& request, v1::AddBodiesResponse* reply) {
  const size_t count = static_cast<size_t>(request.bodies_size());
  if (absl::Status s = CheckBatch(count, "bodies"); !s.ok()) return s;
  absl::StatusOr<std::shared_ptr<WorldEntry>> entry = registry_->Find(request.world_id());
  if (!entry.ok()) return entry.status();
  std::vector<BodyDef> bodies(count);
  for (size_t i = 0; i < count; ++i) {
    const absl::Status s = wire::ParseBodyDef(request.bodies(static_cast<int>(i)), Indexed("bodies", i), &bodies[i]);
    if (!s.ok()) return s;
  }
  return Change(**entry, request, &v1::JournalRecord::mutable_add_bodies, [&](World& world) -> absl::Status {
    if (absl::Status s = FromCore(world.AddBodies(bodies)); !s.ok()) return s;
    reply->set_tick(world.tick());
    reply->set_body_count(world.body_count());
    return absl::OkStatus();
  });
}

absl::Status Operations::RemoveBodies(const v1::RemoveBodiesRequest& request, v1::RemoveBodiesResponse* reply) {
  if (absl::Status s = CheckBatch(static_cast<size_t>(request.body_ids_size()), "body_ids"); !s.ok()) return s;
  absl::StatusOr<std::shared_ptr<WorldEntry>> entry = registry_->Find(request.world_id());
  if (!entry.ok()) return entry.status();
  const std::vector<uint64_t> ids(request.body_ids().begin(), request.body_ids().end());
  return Change(**entry, request, &v1::JournalRecord::mutable_remove_bodies, [&](World& world) -> absl::Status {
    if (absl::Status s = FromCore(world.RemoveBodies(ids)); !s.ok()) return s;
    reply->set_tick(world.tick());
    reply->set_body_count(world.body_count());
    return absl::OkStatus();
  });
}

absl::Status Operations::UpdateBodies(const v1::UpdateBodiesRequest& request, v1::UpdateBodiesResponse* reply) {
  const size_t count = static_cast<size_t>(request.updates_size());
  if (absl::Status s = CheckBatch(count, "updates"); !s.ok()) return s;
  absl::StatusOr<std::shared_ptr<WorldEntry>> entry = registry_->Find(request.world_id());
  if (!entry.ok()) return entry.status();
  std::vector<wire::BodyUpdate> updates(count);
  for (size_t i = 0; i < count; ++i) {
    const absl::Status s = wire::ParseBodyUpdate(request.updates(static_cast<int>(i)), Indexed("updates", i), &updates[i]);
    if (!s.ok()) return s;
  }
  return Change(**entry, request, &v1::JournalRecord::mutable_update_bodies, [&](World& world) -> absl::Status {
    std::vector<Undo> undo;
    for (size_t i = 0; i < count; ++i) {
      if (absl::Status s = ApplyUpdate(world, updates[i], Indexed("updates", i), &undo); !s.ok()) {
        return RollBack(**entry, world, undo, s);
      }
    }
    reply->set_tick(world.tick());
    return absl::OkStatus();
  });
}

absl::Status Operations::Restore(const v1::RestoreRequest& request, v1::RestoreResponse* reply) {
  absl::StatusOr<std::shared_ptr<WorldEntry>> entry = registry_->Find(request.world_id());
  if (!entry.ok()) return entry.status();
  if (request.snapshot().empty()) return absl::InvalidArgumentError("snapshot: empty");
  // Decode and check outside the lock: queries keep running meanwhile.
  World restored;
  const std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(request.snapshot().data()),
                                       request.snapshot().size());
  if (absl::Status s = FromCore(World::Restore(bytes, &restored)); !s.ok()) return WithPrefix(s, "snapshot: ");
  const uint32_t limit = registry_->limits().max_bodies_per_world;
  if (restored.def().max_bodies > limit || restored.body_count() > limit) {
    return absl::ResourceExhaustedError("snapshot: its body limit (" + std::to_string(restored.def().max_bodies) +
                                        ") exceeds the server's --max_bodies_per_world (" + std::to_string(limit) + ")");
  }
  return (*entry)->WriteLive([&](World& world) -> absl::Status {
    if (absl::Status s = CheckExpected(request, **entry, world); !s.ok()) return s;
    if (Journaled(**entry)) {
      v1::JournalRecord record = SnapshotRecord(restored, /*restored=*/true, (*entry)->epoch());
      record.set_tick(world.tick());  // like every record: the tick it was applied at
      if (absl::Status s = JournalChange(**entry, {&record}); !s.ok()) return s;
    }
    world = std::move(restored);
    (*entry)->history().Clear();
    FillWorldInfo(**entry, world, true, reply->mutable_world());
    (*entry)->hashes().Reset(world.tick(), reply->world().state_hash());
    return absl::OkStatus();
  });
}

}  // namespace arbiter::server
