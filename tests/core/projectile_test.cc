#include "arbiter/core/projectile.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "arbiter/core/history.h"
#include "arbiter/core/limits.h"
#include "testing/numbers.h"
#include "testing/random.h"
#include "testing/world_builders.h"

namespace arbiter {
namespace {

using testing::BoxBody;
using testing::DiskBody;
using testing::SplitMix64;

using testing::Fd;
using testing::Vd;

// A world with its history, stepped with a hook before each tick (the
// changes a game makes), so that flights can be traced through its past.
struct Recorded {
  World world{WorldDef{Vd(0, 0), 60, 1 << 16}};
  WorldHistory history{600};

  void StepTo(int64_t tick, const std::function<void(World&)>& before_step = {}) {
    while (world.tick() < tick) {
      if (before_step) before_step(world);
      history.Record(world);
      world.Step();
    }
  }
  WorldAtTime Past() const {
    return [this](int64_t tick, Fixed fraction, std::shared_ptr<const World>* out) -> Status {
      std::shared_ptr<const World> past;
      if (Status s = history.At(world, tick, fraction, &past); !s.ok()) return s;
      *out = past != nullptr ? past : std::shared_ptr<const World>(std::shared_ptr<const World>(), &world);
      return OkStatus();
    };
  }
  // The same shot judged as if the world had always been as it is now.
  WorldAtTime LiveOnly() const {
    return [this](int64_t, Fixed, std::shared_ptr<const World>* out) -> Status {
      *out = std::shared_ptr<const World>(std::shared_ptr<const World>(), &world);
      return OkStatus();
    };
  }
  ProjectileFlight Trace(const Projectile& shot, const WorldAtTime& at, QueryFilter filter = {}) const {
    EXPECT_TRUE(ValidateProjectile(shot, "shot").ok());
    ProjectileFlight flight;
    EXPECT_TRUE(TraceProjectile(at, shot, world.def().tick_hz, world.tick(), filter, &flight).ok());
    return flight;
  }
};

BodyDef Moving(BodyDef def, Vec2 velocity) {
  def.linear_velocity = velocity;
  return def;
}

Projectile Shot(Vec2 origin, Vec2 velocity, int64_t fire_tick, uint32_t flight_ticks) {
  Projectile p;
  p.origin = origin;
  p.velocity = velocity;
  p.fire_tick = fire_tick;
  p.flight_ticks = flight_ticks;
  return p;
}

TEST(ProjectilePosition, FollowsTheParabolaExactlyAtWholeSeconds) {
  Projectile p = Shot(Vd(1, 2), Vd(60, -30), 0, 600);
  p.acceleration = Vd(0, -10);
  // t = 60 ticks = 1 s at 60 Hz: (1 + 60, 2 - 30 - 5), no rounding at all.
  EXPECT_EQ(ProjectilePosition(p, 60, Fd(60)), std::optional<Vec2>(Vd(61, -33)));
  EXPECT_EQ(ProjectilePosition(p, 60, kFixedZero), std::optional<Vec2>(Vd(1, 2)));
  // Anywhere else within a few ulp of the real parabola.
  SplitMix64 rng(3);
  for (int i = 0; i < 500; ++i) {
    const double t = rng.Unit() * 600;
    const double s = t / 60;
    const std::optional<Vec2> got = ProjectilePosition(p, 60, Fd(t));
    ASSERT_TRUE(got.has_value());
    EXPECT_NEAR(got->x.ToDouble(), 1 + 60 * s, 1e-6) << t;
    EXPECT_NEAR(got->y.ToDouble(), 2 - 30 * s - 5 * s * s, 1e-6) << t;
  }
}

TEST(ProjectilePosition, BeyondTheWorldIsNullopt) {
  Projectile p = Shot(Vd(5.0e8, 0), Vd(1 << 24, 0), 0, 4096);
  EXPECT_TRUE(ProjectilePosition(p, 60, Fd(1)).has_value());
  EXPECT_FALSE(ProjectilePosition(p, 60, Fd(4096)).has_value());
}

TEST(ValidateProjectile, NamesTheField) {
  Projectile p = Shot(Vd(0, 0), Vd(1, 0), 0, 10);
  EXPECT_TRUE(ValidateProjectile(p, "s").ok());
  Projectile q = p;
  q.velocity = Vec2{};
  EXPECT_EQ(ValidateProjectile(q, "s").message(), "s.velocity: a projectile must move (velocity and acceleration are both zero)");
  q = p;
  q.flight_ticks = kMaxProjectileFlightTicks + 1;
  EXPECT_EQ(ValidateProjectile(q, "s").code(), StatusCode::kOutOfRange);
  q = p;
  q.fire_fraction = kFixedOne;
  EXPECT_EQ(ValidateProjectile(q, "s").message(), "s.fire.fraction: must be in [0, 1)");
  q = p;
  q.radius = -kFixedOne;
  EXPECT_EQ(ValidateProjectile(q, "s").message(), "s.radius: must be in [0, 2^24] units");
  q = p;
  q.acceleration = Vd(0, 2e7);
  EXPECT_EQ(ValidateProjectile(q, "s").message(), "s.acceleration: beyond +-2^24 units per second squared");
}

// The worked example of the docs: a target walks across the rocket's line,
// is there when the rocket arrives, and has left by the time it is judged.
// Through the history it is hit; against the live world alone it is not.
TEST(TraceProjectile, HitsATargetWhereItWasNotWhereItIs) {
  Recorded r;
  // 10 units away on the x axis; it walks up 0.1 unit a tick from y = -1.
  ASSERT_TRUE(r.world.AddBody(Moving(DiskBody(2, BodyType::kKinematic, Vd(10, -1), 0.5), Vd(0, 6))).ok());
  // Fired at tick 10 at 120 units/s (2 units a tick): reaches x = 9.5 during tick 14.
  r.StepTo(60);
  const Projectile rocket = Shot(Vd(0, 0), Vd(120, 0), 10, 30);
  const ProjectileFlight past = r.Trace(rocket, r.Past());
  ASSERT_EQ(past.end, FlightEnd::kHit);
  ASSERT_TRUE(past.hit.has_value());
  EXPECT_EQ(past.hit->shape.body_id, 2u);
  EXPECT_EQ(past.end_tick, 14);
  // At tick 14 the disk is at y = -1 + 14 * 0.1 = 0.4: entered at x = 10 - sqrt(0.25 - 0.16) = 9.7.
  EXPECT_NEAR(past.hit->point.x.ToDouble(), 9.7, 1e-6);
  EXPECT_NEAR(past.end_fraction.ToDouble(), 0.85, 1e-6);  // (9.7 - 8) / 2
  EXPECT_EQ(past.segments, 5u);
  // Live, the target is at y = 5: the rocket flies past it.
  const ProjectileFlight live = r.Trace(rocket, r.LiveOnly());
  EXPECT_FALSE(live.hit.has_value());
  EXPECT_EQ(live.end, FlightEnd::kFlightOver);
  EXPECT_EQ(live.end_tick, 40);
  EXPECT_EQ(live.end_position, Vd(60, 0));
}

// Each tick's stretch meets the world as it was at the start of that tick:
// a target that jumps across the line between two ticks is not met, one
// that stands on it is (the rule a client must predict with).
TEST(TraceProjectile, TargetCrossingBetweenTicksIsJudgedAtEachTick) {
  for (const bool standing : {false, true}) {
    Recorded r;
    const Vec2 v = standing ? Vec2{} : Vd(0, -360);  // 6 units a tick, down across y = 0
    ASSERT_TRUE(r.world.AddBody(Moving(BoxBody(2, BodyType::kKinematic, Vd(5.5, standing ? 0 : 3), 0.2, 1), v)).ok());
    r.StepTo(20);
    const ProjectileFlight f = r.Trace(Shot(Vd(0, 0), Vd(60, 0), 0, 12), r.Past());
    if (standing) {
      ASSERT_TRUE(f.hit.has_value());
      EXPECT_EQ(f.end_tick, 5);
      EXPECT_NEAR(f.hit->point.x.ToDouble(), 5.3, 1e-9);
      EXPECT_EQ(f.hit->normal, Vd(-1, 0));
    } else {
      // At tick 5 (x 5 -> 6) it is at y = 3 - 30 = -27; at tick 0..4 above the line.
      EXPECT_FALSE(f.hit.has_value()) << "met body at tick " << f.end_tick;
      EXPECT_EQ(f.end, FlightEnd::kFlightOver);
    }
  }
}

// A door shut until tick 30 blocks a shot fired at tick 20, although the
// live world (tick 60) has no door any more.
TEST(TraceProjectile, AWallThatOpensLaterStillBlocks) {
  Recorded r;
  ASSERT_TRUE(r.world.AddBody(BoxBody(7, BodyType::kStatic, Vd(4, 0), 0.25, 3)).ok());
  ASSERT_TRUE(r.world.AddBody(DiskBody(9, BodyType::kKinematic, Vd(8, 0), 1)).ok());
  r.StepTo(60, [](World& w) {
    if (w.tick() == 30) {
      const uint64_t door[1] = {7};
      ASSERT_TRUE(w.RemoveBodies(door).ok());
    }
  });
  const ProjectileFlight early = r.Trace(Shot(Vd(0, 0), Vd(60, 0), 20, 20), r.Past());
  ASSERT_TRUE(early.hit.has_value());
  EXPECT_EQ(early.hit->shape.body_id, 7u);
  EXPECT_EQ(early.end_tick, 23);
  EXPECT_EQ(early.end_fraction, Fd(0.75));
  const ProjectileFlight late = r.Trace(Shot(Vd(0, 0), Vd(60, 0), 40, 20), r.Past());
  ASSERT_TRUE(late.hit.has_value());
  EXPECT_EQ(late.hit->shape.body_id, 9u);
  EXPECT_EQ(late.end_tick, 47);
}

// A grenade lobbed onto the ground lands where and when the parabola says.
TEST(TraceProjectile, GravityArcLandsAtTheParabolasRoot) {
  Recorded r;
  ASSERT_TRUE(r.world.AddBody(BoxBody(3, BodyType::kStatic, Vd(0, -1), 100, 1)).ok());  // top face at y = 0
  r.StepTo(260);
  Projectile g = Shot(Vd(0, 1), Vd(6, 12), 50, 180);
  g.acceleration = Vd(0, -9.8);
  const ProjectileFlight f = r.Trace(g, r.Past());
  ASSERT_TRUE(f.hit.has_value());
  EXPECT_EQ(f.hit->shape.body_id, 3u);
  // 1 + 12 s - 4.9 s^2 = 0: s = 2.5281 s = 151.69 ticks after tick 50.
  const double s = (12 + std::sqrt(144 + 4 * 4.9)) / 9.8;
  const double landing = 50 + s * 60;
  EXPECT_EQ(f.end_tick, static_cast<int64_t>(std::floor(landing)));
  // The chord of one tick cuts the arc short by at most (g/2)(1/60)^2/4 in height.
  EXPECT_NEAR(f.end_tick + f.end_fraction.ToDouble(), landing, 0.01);
  EXPECT_NEAR(f.hit->point.x.ToDouble(), 6 * s, 0.02);
  EXPECT_NEAR(f.hit->point.y.ToDouble(), 0, 1e-9);
  EXPECT_EQ(f.hit->normal, Vd(0, 1));
}

// A disk projectile grazing a box corner: the exact sweep decides, to the ulp.
TEST(TraceProjectile, DiskGrazingACornerIsDecidedExactly) {
  Recorded r;
  ASSERT_TRUE(r.world.AddBody(BoxBody(4, BodyType::kStatic, Vd(10, -2), 1, 1)).ok());  // corner at (9..11, -1)
  r.StepTo(30);
  for (const int64_t below : {-1, 0, 1}) {
    // The disk's lowest point passes the box's top face by `below` raw units.
    Projectile p = Shot(Vec2{kFixedZero, Fixed::FromRaw(Fd(-0.5).raw() + below)}, Vd(60, 0), 0, 20);
    p.radius = Fd(0.5);
    const ProjectileFlight f = r.Trace(p, r.Past());
    ASSERT_EQ(f.hit.has_value(), below <= 0) << below;
    if (below < 0) {  // met at the corner, not the face
      EXPECT_NEAR(f.hit->point.x.ToDouble(), 9, 1e-4);
      EXPECT_NEAR(f.hit->point.y.ToDouble(), -1, 1e-9);
    }
  }
}

TEST(TraceProjectile, FireFractionStartsMidTickAgainstTheInterpolatedView) {
  Recorded r;
  ASSERT_TRUE(r.world.AddBody(BoxBody(5, BodyType::kStatic, Vd(3.5, 0), 0.5, 1)).ok());  // face at x = 3
  r.StepTo(20);
  Projectile p = Shot(Vd(0, 0), Vd(60, 0), 4, 10);
  p.fire_fraction = Fd(0.5);
  const ProjectileFlight f = r.Trace(p, r.Past());
  ASSERT_TRUE(f.hit.has_value());
  // x = t: the face at elapsed 3, i.e. 4.5 + 3 = tick 7.5.
  EXPECT_EQ(f.end_tick, 7);
  EXPECT_EQ(f.end_fraction, Fd(0.5));
  EXPECT_EQ(f.end_position, Vd(3, 0));
  EXPECT_EQ(f.segments, 4u);  // 4.5-5, 5-6, 6-7, 7-7.5
}

TEST(TraceProjectile, StopsAtTheCurrentTickAndAtTheWorldsEdge) {
  Recorded r;
  r.StepTo(10);
  const ProjectileFlight f = r.Trace(Shot(Vd(0, 0), Vd(60, 0), 5, 100), r.Past());
  EXPECT_EQ(f.end, FlightEnd::kLiveTick);
  EXPECT_EQ(f.end_tick, 11);
  EXPECT_EQ(f.end_position, Vd(6, 0));
  EXPECT_EQ(f.segments, 6u);  // ticks 5..10: the live tick's stretch is traced
  const ProjectileFlight out = r.Trace(Shot(Vd(536870000, 0), Vd(60000, 0), 0, 10), r.Past());
  EXPECT_EQ(out.end, FlightEnd::kLeftWorld);
  EXPECT_EQ(out.end_tick, 0);
}

TEST(TraceProjectile, TheFilterAndTheShootersExclusionApply) {
  Recorded r;
  ASSERT_TRUE(r.world.AddBody(DiskBody(1, BodyType::kKinematic, Vd(0, 0), 1)).ok());  // the shooter, around the origin
  ASSERT_TRUE(r.world.AddBody(DiskBody(2, BodyType::kStatic, Vd(5, 0), 1)).ok());
  r.StepTo(10);
  const Projectile p = Shot(Vd(0, 0), Vd(60, 0), 0, 10);
  const ProjectileFlight inside = r.Trace(p, r.Past());
  ASSERT_TRUE(inside.hit.has_value());
  EXPECT_EQ(inside.hit->shape.body_id, 1u) << "starting inside the shooter hits it at once";
  EXPECT_EQ(inside.hit->fraction, kFixedZero);
  const uint64_t shooter[1] = {1};
  QueryFilter filter;
  filter.exclude_bodies = shooter;
  const ProjectileFlight f = r.Trace(p, r.Past(), filter);
  ASSERT_TRUE(f.hit.has_value());
  EXPECT_EQ(f.hit->shape.body_id, 2u);
}

// Seeded property against a brute-force flight in doubles through the same
// recorded ticks: moving disks, random shots with and without gravity and
// radius. The first body met and its tick agree, except where two
// candidates are within a hair of each other (counted, not compared).
TEST(TraceProjectile, AgreesWithABruteForceFlightThroughTheSameTicks) {
  SplitMix64 rng(26);
  Recorded r;
  std::vector<uint64_t> ids;
  for (uint64_t id = 1; id <= 40; ++id) {
    const Vec2 at = Vd(rng.Unit() * 80 - 40, rng.Unit() * 80 - 40);
    const Vec2 v = id % 4 == 0 ? Vec2{} : Vd(rng.Unit() * 40 - 20, rng.Unit() * 40 - 20);
    ASSERT_TRUE(r.world.AddBody(Moving(DiskBody(id, id % 4 == 0 ? BodyType::kStatic : BodyType::kKinematic, at,
                                                0.5 + rng.Unit() * 2), v)).ok());
  }
  r.StepTo(120);
  int compared = 0, near_ties = 0, hits = 0;
  for (int i = 0; i < 300; ++i) {
    Projectile p = Shot(Vd(rng.Unit() * 60 - 30, rng.Unit() * 60 - 30), Vd(rng.Unit() * 240 - 120, rng.Unit() * 240 - 120),
                        static_cast<int64_t>(rng.Next() % 100), 1 + static_cast<uint32_t>(rng.Next() % 40));
    if (rng.Bool()) p.acceleration = Vd(0, -30);
    if (rng.Bool()) p.radius = Fd(rng.Unit());
    if (rng.Bool()) p.fire_fraction = Fd(rng.Unit() * 0.99);
    const ProjectileFlight got = r.Trace(p, r.Past());
    // The reference: each tick's chord against each disk as at that tick.
    const double hz = 60, f0 = p.fire_fraction.ToDouble();
    auto pos = [&](double t) {
      const double s = t / hz;
      return std::pair<double, double>{p.origin.x.ToDouble() + p.velocity.x.ToDouble() * s + 0.5 * p.acceleration.x.ToDouble() * s * s,
                                       p.origin.y.ToDouble() + p.velocity.y.ToDouble() * s + 0.5 * p.acceleration.y.ToDouble() * s * s};
    };
    std::optional<std::pair<double, uint64_t>> best;  // (absolute time, body)
    double runner_up = 1e300;
    bool grazing = false;
    for (int64_t tick = p.fire_tick; tick <= r.world.tick() && !best; ++tick) {
      const double t0 = std::max(0.0, static_cast<double>(tick - p.fire_tick) - f0);
      const double t1 = std::min(static_cast<double>(tick + 1 - p.fire_tick) - f0, static_cast<double>(p.flight_ticks));
      std::shared_ptr<const World> w;
      ASSERT_TRUE(r.Past()(tick, tick == p.fire_tick && tick < r.world.tick() ? p.fire_fraction : kFixedZero, &w).ok());
      const auto [ax, ay] = pos(t0);
      const auto [bx, by] = pos(t1);
      for (const uint64_t id : w->BodyIds()) {
        const std::optional<BodyDef> def = w->GetBodyDef(id);
        const double cx = def->transform.p.x.ToDouble(), cy = def->transform.p.y.ToDouble();
        const double rr = def->shapes[0].shape.circle.radius.ToDouble() + p.radius.ToDouble();
        // |a + s (b - a) - c| = rr for the first s in [0, 1].
        const double dx = bx - ax, dy = by - ay, ox = ax - cx, oy = ay - cy;
        const double qa = dx * dx + dy * dy, qb = 2 * (ox * dx + oy * dy), qc = ox * ox + oy * oy - rr * rr;
        const double closest = std::sqrt(std::max(0.0, qc + rr * rr - (qa > 0 ? qb * qb / (4 * qa) : 0)));
        if (std::fabs(closest - rr) < 1e-5 || std::fabs(std::sqrt(std::max(0.0, qc + rr * rr)) - rr) < 1e-5) grazing = true;
        const double ex = bx - cx, ey = by - cy;
        if (std::fabs(std::sqrt(ex * ex + ey * ey) - rr) < 1e-5) grazing = true;
        double s;
        if (qc <= 0) {
          s = 0;
        } else {
          const double disc = qb * qb - 4 * qa * qc;
          if (qa == 0 || disc < 0) continue;
          s = (-qb - std::sqrt(disc)) / (2 * qa);
          if (s < 0 || s > 1) continue;
        }
        const double when = tick + (tick == p.fire_tick ? f0 : 0) + s * (t1 - t0);
        if (!best || when < best->first) {
          if (best) runner_up = std::min(runner_up, best->first);
          best = std::pair<double, uint64_t>{when, id};
        } else {
          runner_up = std::min(runner_up, when);
        }
      }
      if (t1 >= p.flight_ticks) break;
    }
    if (grazing || (best && runner_up - best->first < 1e-5)) {
      ++near_ties;
      continue;
    }
    ++compared;
    ASSERT_EQ(got.hit.has_value(), best.has_value()) << "shot " << i;
    if (!best) continue;
    ++hits;
    EXPECT_EQ(got.hit->shape.body_id, best->second) << "shot " << i;
    EXPECT_NEAR(got.end_tick + got.end_fraction.ToDouble(), best->first, 1e-5) << "shot " << i;
  }
  EXPECT_GE(compared, 270);
  EXPECT_GE(hits, 30);
  EXPECT_LE(near_ties, 30);
}

bool SameFlight(const ProjectileFlight& a, const ProjectileFlight& b) {
  return a.end == b.end && a.hit == b.hit && a.end_tick == b.end_tick && a.end_fraction == b.end_fraction &&
         a.end_position == b.end_position && a.segments == b.segments;
}

// Many flights advanced together give each flight's answer bit for bit,
// while each tick's world is fetched once for all flights passing it.
TEST(TraceProjectiles, ABatchEqualsEachFlightAlone_WithOneFetchPerTick) {
  SplitMix64 rng(27);
  Recorded r;
  for (uint64_t id = 1; id <= 30; ++id) {
    ASSERT_TRUE(r.world.AddBody(Moving(DiskBody(id, BodyType::kKinematic, Vd(rng.Unit() * 60 - 30, rng.Unit() * 60 - 30), 1.5),
                                       Vd(rng.Unit() * 20 - 10, rng.Unit() * 20 - 10))).ok());
  }
  r.StepTo(80);
  std::vector<Projectile> shots;
  std::vector<QueryFilter> filters(200);
  for (int i = 0; i < 200; ++i) {
    Projectile p = Shot(Vd(rng.Unit() * 60 - 30, rng.Unit() * 60 - 30), Vd(rng.Unit() * 200 - 100, rng.Unit() * 200 - 100),
                        static_cast<int64_t>(rng.Next() % 80), 1 + static_cast<uint32_t>(rng.Next() % 30));
    if (i % 3 == 0) p.fire_fraction = Fd(0.5);
    if (i % 5 == 0) p.radius = Fd(0.25);
    shots.push_back(p);
  }
  int fetches = 0;
  const WorldAtTime past = r.Past();
  const WorldAtTime counted = [&](int64_t tick, Fixed fraction, std::shared_ptr<const World>* out) {
    ++fetches;
    return past(tick, fraction, out);
  };
  std::vector<ProjectileFlight> together(shots.size());
  ASSERT_TRUE(TraceProjectiles(counted, shots, filters, 60, r.world.tick(), together).ok());
  EXPECT_LE(fetches, 81 + 67) << "one per tick, and one per shot fired mid-tick";
  int alone_fetches = 0;
  for (size_t i = 0; i < shots.size(); ++i) {
    ProjectileFlight alone;
    const WorldAtTime each = [&](int64_t tick, Fixed fraction, std::shared_ptr<const World>* out) {
      ++alone_fetches;
      return past(tick, fraction, out);
    };
    ASSERT_TRUE(TraceProjectile(each, shots[i], 60, r.world.tick(), filters[i], &alone).ok());
    EXPECT_TRUE(SameFlight(alone, together[i])) << "shot " << i;
  }
  EXPECT_GT(alone_fetches, 3 * fetches);
}

}  // namespace
}  // namespace arbiter
