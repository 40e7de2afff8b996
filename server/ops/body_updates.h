// File: body_updates.h
//
// Body updates (UpdateBodies, Step commands) applied with an undo log, so
// that a batch that fails part way is rolled back whole.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "arbiter/core/world.h"
#include "arbiter/wire/convert.h"
#include "ops/world_registry.h"

namespace arbiter::server {

// Checks everything about an update that depends on the world but not on
// other updates: the body exists, it can move if a velocity is set, and
// every shape index exists. Bodies neither appear nor change type during a
// Step, so this holds for every tick of a step.
absl::Status CheckUpdateAgainstWorld(const World& world, const wire::BodyUpdate& u, const std::string& field);

// What an applied update overwrote, to put it back.
struct Undo {
  enum class Kind { kTransform, kVelocity, kFilter } kind;
  uint64_t body_id = 0;
  Transform transform;
  Vec2 linear;
  Fixed angular;
  uint32_t shape_index = 0;
  Filter filter;
};

/// Puts back, newest first, everything `undo` records, and empties it;
/// returns `why`. Undoing writes values the world held a moment ago, which
/// every setter accepts (the step keeps each state inside the limits the
/// setters check: world.h, Step), so it cannot fail; if it ever did, the
/// world's state would be unknown: it is then taken offline (a restart
/// recovers its last acknowledged state from the journal) and INTERNAL is
/// returned instead. Never aborts. Call under the world's exclusive lock.
absl::Status RollBack(WorldEntry& entry, World& world, std::vector<Undo>& undo, absl::Status why);

// Applies one update, recording what it overwrote in *undo. On failure the
// caller rolls back. `field` names the update in error messages.
absl::Status ApplyUpdate(World& world, const wire::BodyUpdate& u, const std::string& field, std::vector<Undo>* undo);

}  // namespace arbiter::server
