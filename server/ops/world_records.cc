#include "ops/world_records.h"

#include <vector>

#include "arbiter/wire/convert.h"

namespace arbiter::server {

void FillWorldInfo(const std::string& id, uint32_t history_ticks, int64_t oldest_tick, const World& world,
                   bool with_hash, v1::WorldInfo* out) {
  out->set_world_id(id);
  out->set_history_ticks(history_ticks);
  out->set_oldest_tick(oldest_tick);
  wire::ToProto(world.def().gravity, out->mutable_gravity());
  out->set_tick_hz(world.def().tick_hz);
  out->set_max_bodies(world.def().max_bodies);
  out->set_allow_sleep(world.def().allow_sleep);
  out->set_sub_steps(world.def().sub_steps);
  out->set_contact_hertz(world.def().contact_hertz);
  out->set_tick(world.tick());
  out->set_body_count(world.body_count());
  if (with_hash) out->set_state_hash(world.StateHash());
}

void FillWorldInfo(const WorldEntry& entry, const World& world, bool with_hash, v1::WorldInfo* out) {
  FillWorldInfo(entry.id(), entry.history().capacity(), entry.oldest_tick(world), world, with_hash, out);
  out->set_epoch(entry.epoch());
  if (entry.frozen()) out->set_moving_to(entry.destination());
}

v1::JournalRecord SnapshotRecord(const World& world, bool restored, uint64_t epoch) {
  v1::JournalRecord r;
  r.set_tick(world.tick());
  const std::vector<uint8_t> bytes = world.Snapshot();
  r.mutable_snapshot()->set_snapshot(bytes.data(), bytes.size());
  r.mutable_snapshot()->set_state_hash(world.StateHash());
  r.mutable_snapshot()->set_restored(restored);
  r.mutable_snapshot()->set_epoch(epoch);
  return r;
}

v1::JournalRecord MoveRecord(const World& world, v1::WorldMove::Kind kind, const std::string& destination,
                             uint64_t epoch) {
  v1::JournalRecord r;
  r.set_tick(world.tick());
  r.mutable_move()->set_kind(kind);
  r.mutable_move()->set_destination(destination);
  r.mutable_move()->set_epoch(epoch);
  return r;
}

}  // namespace arbiter::server
