// File: runner_world.h
//
// The world type the scenarios drive. arbiter_digest uses the core's World
// directly; arbiter_digest_c (ARBITER_DIGEST_VIA_C_ABI) drives every world
// operation through the C interface (arbiter/c/arbiter.h) instead, and must
// print the same committed digests.
#pragma once

#include "arbiter/core/step_executor.h"

#ifdef ARBITER_DIGEST_VIA_C_ABI
#include "c_abi_world.h"
namespace arbiter::determinism {
using RunnerWorld = CAbiWorld;
}  // namespace arbiter::determinism
#else
#include "arbiter/core/world.h"
namespace arbiter::determinism {
using RunnerWorld = World;
}  // namespace arbiter::determinism
#endif

namespace arbiter::determinism {

/// The executor every scenario steps with: a StepThreadPool of --threads
/// threads in the C++ runner (ARBITER_DIGEST_THREADS), null (the calling
/// thread alone) otherwise. Whatever it is, the digests must not change.
inline StepExecutor* g_step_executor = nullptr;

/// One tick of `world`, with g_step_executor where the runner has one.
inline void StepWorld(RunnerWorld& world, TickEvents* events) {
#ifdef ARBITER_DIGEST_VIA_C_ABI
  world.Step(events);
#else
  world.Step(events, nullptr, g_step_executor);
#endif
}

}  // namespace arbiter::determinism
