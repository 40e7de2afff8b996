// File: limits.h
//
// Every bound on a world's state, in one table. Validation (AddBodies, the
// setters, ValidateWorldDef), Restore, the step and the server all read
// these constants, so a value the step stores is by construction a value
// every entry point accepts: a snapshot always restores, an undo always
// re-applies, a journal checkpoint always recovers (issue 13, item 3).
//
// Why each bound has its size: world coordinates (2^29) and shape-local
// coordinates (2^24) keep every difference of two world-space points below
// 2^31 units, so exact Q64.64 products stay inside 128 bits (shapes.h).
// Speeds (2^24 units/s, 2^16 rad/s) keep a tick's displacement far inside
// the world range. Materials (2^16) keep products with masses and
// impulses inside Q32.32. Gravity is bounded like speeds: more would push a
// body past the speed limit within a tick.
#pragma once

#include <cstdint>

#include "arbiter/core/fixed.h"

namespace arbiter {

/// Largest |coordinate| of a body position, query point or ray origin, in
/// world units (2^29).
constexpr int64_t kMaxWorldCoordinate = int64_t{1} << 29;
constexpr Fixed kFixedMaxWorldCoordinate = Fixed::FromInt(kMaxWorldCoordinate);

/// Largest |coordinate| or radius of a shape in its body's frame (2^24 units).
constexpr int64_t kMaxShapeExtent = int64_t{1} << 24;
constexpr Fixed kFixedMaxShapeExtent = Fixed::FromInt(kMaxShapeExtent);

/// Largest |component| of a ray or sweep translation (2^30 units).
constexpr Fixed kMaxQueryTranslation = Fixed::FromInt(int64_t{1} << 30);

/// Largest |component| of a body's linear velocity, units per second (2^24).
/// Validation rejects more; the step clamps each component to it.
constexpr Fixed kMaxLinearSpeed = Fixed::FromInt(int64_t{1} << 24);
/// Largest |angular velocity|, radians per second (2^16). Validation rejects
/// more; the step clamps to it.
constexpr Fixed kMaxAngularSpeed = Fixed::FromInt(int64_t{1} << 16);

/// Friction, restitution, density and damping lie in [0, kMaxMaterial];
/// gravity_scale in [-kMaxMaterial, kMaxMaterial] (2^16).
constexpr Fixed kMaxMaterial = Fixed::FromInt(int64_t{1} << 16);

/// Most shapes on one body, chain segments not counted.
constexpr uint32_t kMaxShapesPerBody = 64;

/// The most candidate contact pairs one tick of a served world may find
/// (World::StepWithin): about 2 million, where a busy game world has a few
/// thousand (rain-2k about 5,000). A tick holds a few hundred bytes per pair
/// (the pair, its manifold and its constraint), so this bounds a tick's
/// memory to a few hundred megabytes.
constexpr uint64_t kMaxStepPairs = uint64_t{1} << 21;

/// Most points of one chain (MakeChain): a loop of this many points makes
/// as many segments, an open chain one fewer.
constexpr uint32_t kMaxChainPoints = 4096;
/// Most chain segments on one body, on top of its kMaxShapesPerBody other
/// shapes. Terrain is long, so a chain is not held to the 64 of solid
/// shapes; every segment is still its own shape (its own index, tree leaf
/// and hit), so a body's shape count is bounded by 64 + this.
constexpr uint32_t kMaxChainSegmentsPerBody = 4096;

/// Largest |component| of a world's gravity, units per second squared (2^24).
constexpr Fixed kMaxGravity = Fixed::FromInt(int64_t{1} << 24);

/// Tick rates a world accepts, ticks per second.
constexpr int32_t kMinTickHz = 1;
constexpr int32_t kMaxTickHz = 10000;

/// Solver sub-steps per tick a world accepts (WorldDef::sub_steps). The
/// sub-step rate tick_hz * sub_steps stays <= 320,000 Hz, so a sub-step
/// h = 1 / rate is still ~13,000 raw Q32.32 units.
constexpr int32_t kMinSubSteps = 1;
constexpr int32_t kMaxSubSteps = 32;
constexpr int32_t kDefaultSubSteps = 4;  // Box2D v3's default

/// Contact stiffness a world accepts, Hz (WorldDef::contact_hertz). The
/// step clamps it to a quarter of the sub-step rate; the bound keeps
/// 2 pi hertz far inside Q32.32.
constexpr int32_t kMinContactHertz = 1;
constexpr int32_t kMaxContactHertz = 10000;
constexpr int32_t kDefaultContactHertz = 30;  // Box2D v3's default

/// Most bodies one World::Distance query reports (the wire's
/// DistanceQuery.max_results), so that a batch's reply stays bounded.
constexpr uint32_t kMaxDistanceResults = 256;

/// Most cast-and-slide iterations (and push-out rounds) of one
/// World::MoveAndSlide.
constexpr int32_t kMaxMoveIterations = 16;

/// Largest skin of a move, in world units (1): the gap a mover keeps from
/// what it meets. Larger gaps are not a skin but a different shape.
constexpr Fixed kMaxMoveSkin = Fixed::FromInt(1);
/// Smallest skin (2^-16 units): below it the rounding of a back-off can
/// leave the mover touching what it met.
constexpr Fixed kMinMoveSkin = Fixed::FromRaw(int64_t{1} << 16);
/// Largest |component| of a move's translation (2^28 units): with pushes
/// and slides the mover stays within 2^30 of the origin, so every
/// difference with a world point stays below 2^31 (see above).
constexpr Fixed kMaxMoveTranslation = Fixed::FromInt(int64_t{1} << 28);

/// Longest flight of one projectile (projectile.h), in ticks (2^12): with
/// |velocity| and |acceleration| <= 2^24 per component, every exact
/// intermediate of the flight's position rule stays below 2^116.
constexpr uint32_t kMaxProjectileFlightTicks = 4096;

/// A rotation (c, s) is accepted when |c^2 + s^2 - 1| <= 2^-16; this is
/// that tolerance as a Q64.64 raw value.
constexpr int64_t kRotationToleranceQ64 = int64_t{1} << 48;

// Sleeping (WorldDef::allow_sleep; core/src/step_sleep.cc), Box2D v3's
// defaults read in world units. A body is slow while a bound on the speed
// of its fastest point, max(|v.x|, |v.y|) + extent |w| (extent: the
// largest per-axis distance of its shapes' boxes from its centre of mass),
// is within kSleepSpeed (units/s); Box2D v3 compares |v| + max extent |w|
// with the same 0.05, where Box2D 2.4 bounds v and w apart (0.05 m/s,
// 2 deg/s, which never lets a small disk rolling at 0.02 sleep). The
// body's sleep timer then grows by a tick's length per tick, capped at
// kTimeToSleep (s), and is reset to zero otherwise. An island sleeps once
// every timer in it is at the cap. The cap bounds the stored timer
// (Restore checks 0..kTimeToSleep).
constexpr Fixed kTimeToSleep = Fixed::FromRaw(Fixed::kOneRaw / 2);  // 0.5 s
constexpr Fixed kSleepSpeed = Fixed::FromRaw(214748365);            // 0.05 units/s, rounded

}  // namespace arbiter
