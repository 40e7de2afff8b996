// File: request_checks.h
//
// What every request goes through before it touches a world: field names
// for messages (Indexed, WithPrefix), the cast mode, shapes and past ticks
// parsed and checked, expected_tick (safe retries), and the cancellable
// chunks long batches run in. No gRPC here; statuses name the field.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "arbiter/v1/arbiter.pb.h"
#include "ops/operations.h"
#include "ops/world_registry.h"

namespace arbiter::server {

// Items between cancellation checks: small enough that a cancelled batch
// stops within microseconds, large enough that the check costs nothing.
constexpr size_t kChunk = 256;

/// "field[i]".
std::string Indexed(const char* field, size_t i);
/// `s` with `prefix` before its message (OK stays OK).
absl::Status WithPrefix(const absl::Status& s, const std::string& prefix);
/// CANCELLED: the caller gave up (or its deadline passed).
absl::Status Cancelled();
/// A cast mode, checked: which collector answers a batch (parallel_casts.h).
enum class CastMode { kClosest, kAll, kAny };

/// The wire mode, checked; INVALID_ARGUMENT for unspecified or unknown
/// values.
absl::StatusOr<CastMode> ParseMode(v1::CastMode mode, const char* field);
/// A required shape and its transform, parsed and checked.
absl::Status ParseShapeAt(const v1::Shape& shape, const v1::Transform& transform, bool has_shape,
                          const std::string& field, Shape* shape_out, Transform* transform_out);
/// A past tick's fraction must be in [0, 1).
absl::Status CheckPastTick(bool has_at, const v1::PastTick& at);

// Runs `collect` on `count` queries in chunks of kChunk, checking for
// cancellation between chunks; collect(start, n) answers [start, start + n).
template <class Collect>
absl::Status InChunks(size_t count, const CancelFn& cancelled, Collect collect) {
  for (size_t start = 0; start < count; start += kChunk) {
    if (start > 0 && cancelled()) return Cancelled();
    collect(start, std::min(kChunk, count - start));
  }
  return absl::OkStatus();
}

// Safe retries (arbiter.proto): a change sent for tick T is refused once
// the world is elsewhere, so a resent step cannot run twice; one sent for
// epoch E is refused by a copy at another epoch, so a stale owner (a copy
// thawed after the world moved on) cannot acknowledge it. The epoch is
// checked first: a probe naming an impossible tick and epoch E learns,
// from which of the two it is refused for, whether the copy takes writes at
// E (tests/fleet/chaos_test.cc). Under the world lock.
template <class Request>
absl::Status CheckExpected(const Request& request, const WorldEntry& entry, const World& world) {
  if (request.has_expected_epoch() && request.expected_epoch() != entry.epoch()) {
    return absl::FailedPreconditionError("expected_epoch: " + std::to_string(request.expected_epoch()) +
                                         ", but world '" + entry.id() + "' is at epoch " +
                                         std::to_string(entry.epoch()) +
                                         " (it moved or was thawed since: ask its owner for the epoch)");
  }
  if (request.has_expected_tick() && request.expected_tick() != world.tick()) {
    return absl::FailedPreconditionError("expected_tick: " + std::to_string(request.expected_tick()) +
                                         ", but world '" + entry.id() + "' is at tick " +
                                         std::to_string(world.tick()));
  }
  return absl::OkStatus();
}

}  // namespace arbiter::server
