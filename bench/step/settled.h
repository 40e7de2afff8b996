// step_bench's settled-world row (issue 23, goal 3): the cost of a tick
// once the scene has come to rest, Arbiter with sleeping against Arbiter
// without, in one run.
#pragma once

#include <span>

#include "arbiter/scene/scene.h"
#include "step/stepper.h"

namespace arbiter::bench {

/// Steps two Arbiter worlds built from `scene`, one with
/// WorldDef::allow_sleep and one without, in turn tick by tick for
/// 2 x `ticks` ticks (events on, one thread), times the last `timed` ticks
/// before `ticks` and before 2 x `ticks` (a scene may still be moving at
/// `ticks`: rain-2k is, at 1,200) and prints, for each window, both
/// ms/tick, their ratio (the goal: <= 0.10) and how many dynamic bodies
/// were awake; every 100 ticks, how many were awake and how many of them
/// moved faster than the sleep speed (a lower bound: linear speed alone).
/// Each of `sleeping_peers` (built from the same scene, with the peer's
/// own sleeping on) is stepped in the same loop, untimed, and its awake
/// and moving counts are printed by tick beside Arbiter's: whether a scene
/// can settle inside the window is a question of its physics, and the
/// peers answer it too. Returns false when the two worlds' runs cannot be
/// built.
bool RunSettledRow(const scene::Scene& scene, int ticks, int timed, std::span<Stepper* const> sleeping_peers = {});

}  // namespace arbiter::bench
