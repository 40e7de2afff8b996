// File: projectile.h
//
// A projectile's flight through a world's recent past: a rocket, an arrow
// or a grenade fired at one tick and flying for several while its targets
// move. The flight is traced one tick at a time, each tick's stretch
// against the world as it was at that tick (history.h), and stops at the
// first thing it meets. The server's ValidateShots judges claimed hits with
// it (server/ops/shot_judge.h); it is a function of the worlds and the shot
// alone, the same bits on every machine.
//
// Time is counted in ticks since the shot was fired, t >= 0 (Q32.32). The
// shot is fired at fire_tick + fire_fraction; tick j of the flight is the
// stretch of time from tick j to tick j + 1 (from the fire time on the
// first, to the end of the flight on the last).
//
// The position rule, exact and the same everywhere: with t2 = t * t
// rounded to Q32.32, the projectile is at
//   p(t) = origin + (2 hz velocity t + acceleration t2) / (2 hz^2),
// hz = tick_hz, the numerator formed exactly in 128 bits (below 2^116
// within the limits of ValidateProjectile) and the quotient rounded to
// Q32.32 once. This is the constant-acceleration parabola
// p0 + v T + a T^2 / 2 at T = t / hz seconds, exact wherever t^2 is
// (whole ticks: p at whole seconds is exact), else within an ulp.
//
// Tick j's stretch is the segment (a ray, or a disk's sweep for radius > 0)
// from p(t_begin) to p(t_end), cast against the world as at tick j, or at
// fire_tick + fire_fraction for the first stretch (the interpolated past
// view, history.h), with the caller's filter. The stretch is a straight
// chord of the parabola: between two ticks the projectile moves in a line.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>

#include "arbiter/core/fixed.h"
#include "arbiter/core/math.h"
#include "arbiter/core/status.h"
#include "arbiter/core/world.h"

namespace arbiter {

struct Projectile {
  Vec2 origin;          ///< where it is when fired; |x|, |y| <= kMaxWorldCoordinate
  Vec2 velocity;        ///< when fired, units per second; |x|, |y| <= kMaxLinearSpeed
  Vec2 acceleration;    ///< constant (gravity), units per second^2; |x|, |y| <= kMaxGravity
  Fixed radius;         ///< 0: a point (ray casts); else a disk, <= kFixedMaxShapeExtent
  int64_t fire_tick = 0;
  Fixed fire_fraction;  ///< of the way from fire_tick to fire_tick + 1, in [0, 1)
  uint32_t flight_ticks = 1;  ///< how long it flies at most, 1..kMaxProjectileFlightTicks
};

/// INVALID_ARGUMENT or OUT_OF_RANGE naming `field`.<member> when a member is
/// outside the limits above, or when velocity and acceleration are both zero
/// (a projectile that never moves is not a shot).
Status ValidateProjectile(const Projectile& shot, const char* field);

/// Where `shot` is `elapsed` ticks after it was fired (the position rule
/// above), for elapsed in [0, flight_ticks]; nullopt when that is beyond
/// kMaxWorldCoordinate. `shot` must pass ValidateProjectile; tick_hz in
/// [kMinTickHz, kMaxTickHz].
std::optional<Vec2> ProjectilePosition(const Projectile& shot, int32_t tick_hz, Fixed elapsed);

/// How a traced flight ended.
enum class FlightEnd : uint8_t {
  kHit,         ///< it met a shape (ProjectileFlight::hit)
  kFlightOver,  ///< flight_ticks passed without a hit
  kLiveTick,    ///< the history ran out: the stretch of last_tick was traced, nothing hit yet
  kLeftWorld,   ///< its next position is beyond kMaxWorldCoordinate
};

struct ProjectileFlight {
  FlightEnd end = FlightEnd::kFlightOver;
  /// The first hit (kHit only): the body and shape, the point on the shape
  /// and its normal, `fraction` along the stretch of `end_tick`.
  std::optional<CastHit> hit;
  /// When the traced flight ends: the moment of impact, the end of the
  /// flight, or the end of the last stretch traced (kLiveTick, kLeftWorld),
  /// as a tick and a fraction of it in [0, 1).
  int64_t end_tick = 0;
  Fixed end_fraction;
  /// The projectile's centre at that moment: for a hit, the stretch's start
  /// plus fraction * its length (a disk's centre; the contact is hit->point).
  Vec2 end_position;
  uint32_t segments = 0;  ///< stretches cast
};

/// The world as at `tick` + `fraction` (history.h's At; never null on
/// success); the caller keeps it alive while it is used. Errors pass through.
using WorldAtTime = std::function<Status(int64_t tick, Fixed fraction, std::shared_ptr<const World>* out)>;

/// Traces `shot` through the worlds `world_at` gives, from its fire time
/// until its first hit, the end of its flight, or the stretch of
/// `last_tick` (the newest tick there is: the projectile has not flown
/// further yet). `shot` must pass ValidateProjectile, fire_tick <=
/// last_tick. A fire fraction at last_tick itself is traced against the
/// world at last_tick (there is no later tick to interpolate towards).
/// Errors of `world_at` are returned as they are; *out is then unspecified.
Status TraceProjectile(const WorldAtTime& world_at, const Projectile& shot, int32_t tick_hz, int64_t last_tick,
                       const QueryFilter& filter, ProjectileFlight* out);

/// TraceProjectile for many shots at once, shots[i] with filters[i] into
/// out[i] (all three the same length): the same flights, bit for bit, but
/// the flights are advanced together tick by tick, so that each tick's
/// world is fetched once for every flight passing through it instead of
/// once per flight (a history rebuilds a past world on a cache miss).
Status TraceProjectiles(const WorldAtTime& world_at, std::span<const Projectile> shots,
                        std::span<const QueryFilter> filters, int32_t tick_hz, int64_t last_tick,
                        std::span<ProjectileFlight> out);

}  // namespace arbiter
