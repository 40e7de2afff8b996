// File: c_world.h
//
// What the C interface (arbiter/c/arbiter.h) shares between its files: the
// world handle, and the one place a core Status becomes an arb_status (and
// a C++ exception becomes a code, so none crosses the interface).
#pragma once

#include <new>
#include <vector>

#include "arbiter/c/arbiter.h"
#include "arbiter/core/shapes.h"
#include "arbiter/core/status.h"
#include "arbiter/core/world.h"

/// The opaque handle: the core world, plus the last step's events in C
/// layout (arb_tick_events points into these until the next step or
/// mutation clears them).
struct arb_world {
  arbiter::World world;
  std::vector<arb_contact_event> contact_begin;
  std::vector<arb_contact_event> contact_end;
  std::vector<arb_sensor_event> sensor_enter;
  std::vector<arb_sensor_event> sensor_exit;

  explicit arb_world(arbiter::World w) : world(std::move(w)) {}
  /// Events are valid until the next change; a mutation ends them.
  void ForgetEvents();
};

namespace arbiter::c_api {

/// Writes `status` to *error (when not null) and returns its code.
arb_status Report(const Status& status, arb_error* error);

/// INVALID_ARGUMENT "<field>: NULL".
Status NullError(const char* field);

/// OK, or the shape error as the core reports it: OUT_OF_RANGE for a
/// coordinate beyond its limit, INVALID_ARGUMENT otherwise ("<field>: not convex").
Status ShapeStatus(ShapeError e, const char* field);

/// ARB_BUFFER_TOO_SMALL "<field>: N needed, capacity C".
Status BufferTooSmall(const char* field, size_t needed, size_t capacity);

/// Runs `body` (returning a Status) and reports its result; a C++
/// exception becomes RESOURCE_EXHAUSTED (out of memory) or INTERNAL.
template <class Body>
arb_status Guarded(arb_error* error, Body&& body) {
  try {
    return Report(body(), error);
  } catch (const std::bad_alloc&) {
    return Report(ResourceExhaustedError("out of memory"), error);
  } catch (...) {
    return Report(InternalError("unexpected C++ exception"), error);
  }
}

}  // namespace arbiter::c_api
