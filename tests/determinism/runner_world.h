// File: runner_world.h
//
// The world type the scenarios drive. arbiter_digest uses the core's World
// directly; arbiter_digest_c (ARBITER_DIGEST_VIA_C_ABI) drives every world
// operation through the C interface (arbiter/c/arbiter.h) instead, and must
// print the same committed digests.
#pragma once

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
