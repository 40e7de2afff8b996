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

/// Crashes unless `s` is OK: for undoing, which writes values the world
/// held a moment ago (a failure there is a core bug, not bad input).
void MustSucceed(const arbiter::Status& s);

/// Puts back, newest first, everything `undo` records; empties it.
void RollBack(World& world, std::vector<Undo>& undo);

// Applies one update, recording what it overwrote in *undo. On failure the
// caller rolls back. `field` names the update in error messages.
absl::Status ApplyUpdate(World& world, const wire::BodyUpdate& u, const std::string& field, std::vector<Undo>* undo);

}  // namespace arbiter::server
