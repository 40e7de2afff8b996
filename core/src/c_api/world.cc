// World lifetime, state hash and snapshots, for the C interface.
#include <cstdlib>
#include <cstring>
#include <memory>

#include "c_world.h"
#include "convert.h"

using namespace arbiter;
using namespace arbiter::c_api;

extern "C" {

arb_status arb_world_create(const arb_world_def* def, arb_world** out, arb_error* error) {
  return Guarded(error, [&]() -> Status {
    if (def == nullptr) return NullError("def");
    if (out == nullptr) return NullError("out");
    World world;
    if (Status s = World::Create({FromC(def->gravity), def->tick_hz, def->max_bodies}, &world); !s.ok()) return s;
    *out = new arb_world(std::move(world));
    return OkStatus();
  });
}

void arb_world_destroy(arb_world* world) { delete world; }

void arb_world_get_def(const arb_world* world, arb_world_def* out) {
  if (world == nullptr || out == nullptr) return;
  const WorldDef& d = world->world.def();
  *out = {ToC(d.gravity), d.tick_hz, d.max_bodies};
}

int64_t arb_world_tick(const arb_world* world) { return world == nullptr ? 0 : world->world.tick(); }

uint64_t arb_world_body_count(const arb_world* world) {
  return world == nullptr ? 0 : static_cast<uint64_t>(world->world.body_count());
}

uint64_t arb_world_state_hash(const arb_world* world) { return world == nullptr ? 0 : world->world.StateHash(); }

arb_status arb_world_snapshot(const arb_world* world, uint8_t** bytes, size_t* size, arb_error* error) {
  return Guarded(error, [&]() -> Status {
    if (world == nullptr) return NullError("world");
    if (bytes == nullptr) return NullError("bytes");
    if (size == nullptr) return NullError("size");
    const std::vector<uint8_t> image = world->world.Snapshot();
    // malloc, so that arb_bytes_free (free) releases it from any language.
    auto* copy = static_cast<uint8_t*>(std::malloc(image.empty() ? 1 : image.size()));
    if (copy == nullptr) return ResourceExhaustedError("out of memory");
    if (!image.empty()) std::memcpy(copy, image.data(), image.size());
    *bytes = copy;
    *size = image.size();
    return OkStatus();
  });
}

void arb_bytes_free(uint8_t* bytes) { std::free(bytes); }

arb_status arb_world_restore(const uint8_t* bytes, size_t size, arb_world** out, arb_error* error) {
  return Guarded(error, [&]() -> Status {
    if (bytes == nullptr && size > 0) return NullError("bytes");
    if (out == nullptr) return NullError("out");
    World world;
    if (Status s = World::Restore(std::span<const uint8_t>(bytes, size), &world); !s.ok()) return s;
    *out = new arb_world(std::move(world));
    return OkStatus();
  });
}

}  // extern "C"
