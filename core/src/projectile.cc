#include "arbiter/core/projectile.h"

#include <algorithm>
#include <span>
#include <string>
#include <vector>

#include "arbiter/core/limits.h"
#include "arbiter/core/shapes.h"
#include "arbiter/core/wide.h"

namespace arbiter {
namespace {

bool Within(Vec2 v, Fixed limit) { return WithinMagnitude(v.x, limit) && WithinMagnitude(v.y, limit); }

// One coordinate of the position rule: origin + round((2 hz v t + a t2) /
// (2 hz^2)), the numerator exact in 128 bits (below 2^116: |v|, |a| raw
// <= 2^56, t raw <= 2^44, t2 raw <= 2^56, 2 hz <= 2^15) and the quotient
// rounded once. nullopt past the world's range.
std::optional<Fixed> Coordinate(Fixed origin, Fixed v, Fixed a, Fixed t, Fixed t2, int32_t tick_hz) {
  const int64_t twice_hz = int64_t{2} * tick_hz;
  const Int128 numerator = Int128::Mul(v.raw(), t.raw() * twice_hz) + Int128::Mul(a.raw(), t2.raw());
  // 2 hz^2 2^32 <= 2^61: the denominator of a Q64.64 numerator over 2 hz^2.
  const Int128 offset = DivRoundNearest(numerator, twice_hz * tick_hz << Fixed::kFractionBits);
  if (!offset.FitsInt64()) return std::nullopt;
  const Int128 p = Int128(origin.raw()) + offset;  // |origin| < 2^62: no overflow in 128 bits
  if (!p.FitsInt64()) return std::nullopt;
  const Fixed out = Fixed::FromRaw(p.ToInt64Wrapped());
  if (!WithinMagnitude(out, kFixedMaxWorldCoordinate)) return std::nullopt;
  return out;
}

// Elapsed flight time at the start of tick `tick` (may be negative for the
// fire tick itself: the shot starts fire_fraction into it).
Fixed ElapsedAt(const Projectile& shot, int64_t tick) {
  return Fixed::FromInt(tick - shot.fire_tick) - shot.fire_fraction;
}

// The first hit of one stretch, from `from` by `translation`.
std::optional<CastHit> CastStretch(const World& world, const Projectile& shot, Vec2 from, Vec2 translation,
                                   const QueryFilter& filter) {
  if (shot.radius == kFixedZero) return world.CastRayClosest(RayCastInput{from, translation, kFixedOne}, filter);
  const Shape disk = Shape::FromCircle(Circle{Vec2{}, shot.radius});
  return world.CastShapeClosest(disk, Transform{from, kRotIdentity}, translation, filter);
}

// The moment `fraction` of the way through a stretch of tick `tick` that
// runs from `begin` to `end` ticks into it (0 <= begin < end <= 1).
void MomentOf(int64_t tick, Fixed begin, Fixed end, Fixed fraction, int64_t* out_tick, Fixed* out_fraction) {
  const Fixed at = begin + fraction * (end - begin);
  if (at >= kFixedOne) {
    *out_tick = tick + 1;
    *out_fraction = kFixedZero;
  } else {
    *out_tick = tick;
    *out_fraction = at;
  }
}

}  // namespace

Status ValidateProjectile(const Projectile& shot, const char* field) {
  const std::string f(field);
  if (!IsInWorldRange(shot.origin)) return OutOfRangeError(f + ".origin: beyond +-2^29 units");
  if (!Within(shot.velocity, kMaxLinearSpeed)) return OutOfRangeError(f + ".velocity: beyond +-2^24 units per second");
  if (!Within(shot.acceleration, kMaxGravity)) {
    return OutOfRangeError(f + ".acceleration: beyond +-2^24 units per second squared");
  }
  if (shot.velocity == Vec2{} && shot.acceleration == Vec2{}) {
    return InvalidArgumentError(f + ".velocity: a projectile must move (velocity and acceleration are both zero)");
  }
  if (shot.radius < kFixedZero || shot.radius > kFixedMaxShapeExtent) {
    return OutOfRangeError(f + ".radius: must be in [0, 2^24] units");
  }
  if (shot.fire_tick < 0) return OutOfRangeError(f + ".fire.tick: must not be negative");
  if (shot.fire_fraction < kFixedZero || shot.fire_fraction >= kFixedOne) {
    return OutOfRangeError(f + ".fire.fraction: must be in [0, 1)");
  }
  if (shot.flight_ticks < 1 || shot.flight_ticks > kMaxProjectileFlightTicks) {
    return OutOfRangeError(f + ".flight_ticks: must be in [1, " + std::to_string(kMaxProjectileFlightTicks) + "]");
  }
  return OkStatus();
}

std::optional<Vec2> ProjectilePosition(const Projectile& shot, int32_t tick_hz, Fixed elapsed) {
  const Fixed t2 = elapsed * elapsed;
  const std::optional<Fixed> x = Coordinate(shot.origin.x, shot.velocity.x, shot.acceleration.x, elapsed, t2, tick_hz);
  const std::optional<Fixed> y = Coordinate(shot.origin.y, shot.velocity.y, shot.acceleration.y, elapsed, t2, tick_hz);
  if (!x || !y) return std::nullopt;
  return Vec2{*x, *y};
}

namespace {

// One flight in progress: the next stretch to cast is that of `tick`, from `from`.
struct Cursor {
  const Projectile* shot = nullptr;
  const QueryFilter* filter = nullptr;
  ProjectileFlight* out = nullptr;
  int64_t tick = 0;
  Vec2 from;
};

// Casts the stretch of c.tick against `world` (the world as at that tick)
// and moves the cursor on; true when the flight has ended.
bool Advance(Cursor& c, const World& world, int32_t tick_hz) {
  const Projectile& shot = *c.shot;
  ProjectileFlight& out = *c.out;
  const Fixed flight_end = Fixed::FromInt(shot.flight_ticks);
  const Fixed begin = c.tick == shot.fire_tick ? shot.fire_fraction : kFixedZero;  // into the tick
  const Fixed t_end = Min(ElapsedAt(shot, c.tick + 1), flight_end);
  const Fixed end = begin + (t_end - Max(ElapsedAt(shot, c.tick), kFixedZero));
  const std::optional<Vec2> to = ProjectilePosition(shot, tick_hz, t_end);
  if (!to) {
    out.end = FlightEnd::kLeftWorld;
    return true;
  }
  const Vec2 translation = *to - c.from;
  ++out.segments;
  if (std::optional<CastHit> hit = CastStretch(world, shot, c.from, translation, *c.filter)) {
    out.end = FlightEnd::kHit;
    MomentOf(c.tick, begin, end, hit->fraction, &out.end_tick, &out.end_fraction);
    out.end_position = c.from + hit->fraction * translation;
    out.hit = *hit;
    return true;
  }
  c.from = *to;
  if (t_end == flight_end) {
    MomentOf(c.tick, begin, end, kFixedOne, &out.end_tick, &out.end_fraction);
    out.end_position = c.from;
    out.end = FlightEnd::kFlightOver;
    return true;
  }
  ++c.tick;
  out.end_tick = c.tick;
  out.end_fraction = kFixedZero;
  out.end_position = c.from;
  return false;
}

}  // namespace

Status TraceProjectiles(const WorldAtTime& world_at, std::span<const Projectile> shots,
                        std::span<const QueryFilter> filters, int32_t tick_hz, int64_t last_tick,
                        std::span<ProjectileFlight> out) {
  // Flights in order of fire tick; each tick's world is fetched once for
  // every flight passing through it.
  std::vector<size_t> order(shots.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return shots[a].fire_tick < shots[b].fire_tick; });
  std::vector<Cursor> active;
  size_t next = 0;
  for (int64_t tick = order.empty() ? 0 : shots[order[0]].fire_tick; next < order.size() || !active.empty(); ++tick) {
    if (active.empty()) tick = shots[order[next]].fire_tick;  // skip ticks no flight passes
    while (next < order.size() && shots[order[next]].fire_tick == tick) {
      const size_t i = order[next++];
      out[i] = ProjectileFlight{};
      out[i].end_tick = tick;
      out[i].end_fraction = shots[i].fire_fraction;
      out[i].end_position = shots[i].origin;
      active.push_back(Cursor{&shots[i], &filters[i], &out[i], tick, shots[i].origin});
    }
    if (tick > last_tick) {  // the history ends: every flight still going has reached it
      for (Cursor& c : active) c.out->end = FlightEnd::kLiveTick;
      active.clear();
      continue;
    }
    std::shared_ptr<const World> at_tick;
    size_t kept = 0;
    for (Cursor& c : active) {
      // The first stretch of a shot fired mid-tick meets the interpolated view.
      const bool interpolated = c.tick == c.shot->fire_tick && c.shot->fire_fraction != kFixedZero && tick < last_tick;
      std::shared_ptr<const World> own;
      std::shared_ptr<const World>* world = interpolated ? &own : &at_tick;
      if (*world == nullptr) {
        if (Status s = world_at(tick, interpolated ? c.shot->fire_fraction : kFixedZero, world); !s.ok()) return s;
      }
      if (!Advance(c, **world, tick_hz)) active[kept++] = c;
    }
    active.resize(kept);
  }
  return OkStatus();
}

Status TraceProjectile(const WorldAtTime& world_at, const Projectile& shot, int32_t tick_hz, int64_t last_tick,
                       const QueryFilter& filter, ProjectileFlight* out) {
  return TraceProjectiles(world_at, std::span<const Projectile>(&shot, 1), std::span<const QueryFilter>(&filter, 1),
                          tick_hz, last_tick, std::span<ProjectileFlight>(out, 1));
}

}  // namespace arbiter
