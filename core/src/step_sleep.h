// Sleeping (WorldDef::allow_sleep): which bodies the step leaves alone, and
// what wakes them. Every function here is a no-op in a world without
// sleeping, so such a world steps, snapshots and hashes as it always did.
//
// The rule, a function of the state alone (so any executor, any thread
// count and a restored snapshot agree):
//  - An island is a connected set of non-static bodies under last tick's
//    touching manifolds (statics join nothing, as in Box2D). At the end of a
//    tick an island whose every body has a sleep timer at kTimeToSleep
//    (limits.h) falls asleep: its bodies keep their pose, get zero velocity
//    and are not stepped; contacts among them (and with static bodies) are
//    kept as they are, untouched.
//  - Before a tick's pairs, an asleep body within the pair rule's reach of
//    an awake mover (a dynamic body, or a kinematic one that moves) wakes,
//    with its whole island (through the kept contacts), and what it wakes
//    can wake more, to a fixed point. So the woken island is solved in the
//    same tick, with the body that reached it, and no pair ever joins an
//    awake body and an asleep one. These wakes keep the timers: an island
//    that was only grazed and stays still sleeps again at the tick's end.
//  - A change through the API (transform, velocity, shape filter, removal
//    of a body others touch, a static body added on them) wakes the
//    islands it touches at once and resets their timers.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "world_impl.h"

namespace arbiter::internal {

struct StepState;

/// How far a movable body can travel in a tick of `dt` seconds: the L1
/// bound of its velocity plus what gravity (L1 norm `gravity_l1`) adds;
/// the step's speculative reach.
Fixed BodyReach(BodyType type, const BodyMotion& motion, Fixed gravity_l1, Fixed dt);

/// Before stage 1: wakes every asleep island an awake mover's pair-rule
/// box reaches, to a fixed point; appends the bodies it woke to *woken (a
/// tick refused for its pair budget puts them back to sleep).
void WakeTouched(World::Impl& w, Fixed dt, std::vector<uint32_t>* woken);

/// After stage 5: the awake bodies' timers from their final velocities,
/// then the islands of this tick's touching manifolds that fall asleep.
void UpdateSleep(World::Impl& w, StepState* st);

/// The API changed body `slot` (already changed: its new pose, filter...):
/// wakes its island, the islands of the bodies touching it, and, for a
/// static body, the asleep bodies its shapes now reach; resets their timers.
void WakeForChange(World::Impl& w, uint32_t slot);

/// RemoveBodies, before the bodies go: wakes the islands of everything
/// touching one of them (`removed` sorted), resetting their timers.
void WakeForRemoval(World::Impl& w, std::span<const uint64_t> removed);

/// True when the kept contact `c` joins asleep bodies (its non-static
/// sides sleep; both do, as islands sleep whole).
bool ContactAsleep(const World::Impl& w, const ContactState& c);

}  // namespace arbiter::internal
