// The WebAssembly module's own export: the layout of the C structs the
// JavaScript wrapper (arbiter.mjs) reads and writes by offset. The wrapper
// compares its constants with these at load time, so a change to
// arbiter/c/arbiter.h cannot silently misplace a field.
#include <cstddef>

#include "arbiter/c/arbiter.h"

namespace {

// In the order arbiter.mjs's LAYOUT lists them.
constexpr int32_t kLayout[] = {
    sizeof(arb_error),
    sizeof(arb_ray),
    sizeof(arb_cast_hit),
    offsetof(arb_cast_hit, fraction),
    offsetof(arb_cast_hit, point),
    offsetof(arb_cast_hit, normal),
    sizeof(arb_shape_ref),
    sizeof(arb_aabb),
    sizeof(arb_tick_events),
    sizeof(arb_contact_event),
    sizeof(arb_sensor_event),
    sizeof(arb_transform),
    sizeof(arb_world_def),
    sizeof(arb_overlap_contact),
    offsetof(arb_overlap_contact, normal),
    offsetof(arb_overlap_contact, depth),
    offsetof(arb_overlap_contact, points),
    sizeof(arb_distance_hit),
};

}  // namespace

extern "C" ARB_API int32_t arb_wasm_layout(int32_t* out, int32_t capacity) {
  constexpr int32_t n = static_cast<int32_t>(sizeof kLayout / sizeof kLayout[0]);
  for (int32_t i = 0; i < n && i < capacity; ++i) out[i] = kLayout[i];
  return n;
}
