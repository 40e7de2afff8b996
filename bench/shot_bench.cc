// shot_bench: what judging projectiles through the history costs (issue
// 26), on rain-2k with 600 ticks of history (by default): shots traced per
// second (TraceProjectiles, core/include/arbiter/core/projectile.h) for 1-,
// 10- and 60-tick flights fired at seeded past ticks, one at a time and in
// batches of 256 (as a ValidateShots request carries them), against rays
// per second (CastRayClosest) on the live world, one thread.
//
// A flight of k ticks casts k stretches, each against the world as at its
// tick (history.h rebuilds that world unless one of its cached views is
// it), so the ratio to rays says what lag-compensated projectiles cost over
// hit-scan. Timing is wall-clock on a possibly shared machine: compare the
// ratios of one run, not absolute numbers across runs.
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <memory>
#include <algorithm>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "arbiter/core/history.h"
#include "arbiter/core/projectile.h"
#include "arbiter/scene/scene.h"
#include "standard_files.h"

namespace arbiter::bench {
namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

// A seeded generator (the same shots every run).
struct Lcg {
  uint64_t state = 12345;
  int64_t Next(int64_t range) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<int64_t>(state >> 33) % range;
  }
};

// Rain-2k spans about x in [-100, 100], y in [0, 150]: shots from above the
// pile, slanted down into it, at 60..600 units/s with gravity; a quarter
// are disks of radius 0.25.
std::vector<Projectile> SeededShots(size_t count, int64_t oldest, int64_t newest, uint32_t flight_ticks) {
  Lcg rng;
  std::vector<Projectile> shots;
  for (size_t i = 0; i < count; ++i) {
    Projectile p;
    p.origin = {Fixed::FromInt(rng.Next(200) - 100), Fixed::FromInt(140 + rng.Next(20))};
    p.velocity = {Fixed::FromInt(rng.Next(200) - 100), -Fixed::FromInt(60 + rng.Next(540))};
    p.acceleration = {kFixedZero, Fixed::FromInt(-10)};
    p.radius = i % 4 == 0 ? Fixed::FromRatio(1, 4) : kFixedZero;
    p.fire_tick = oldest + rng.Next(newest - oldest + 1);
    p.flight_ticks = flight_ticks;
    shots.push_back(p);
  }
  return shots;
}

struct FlightStats {
  double shots_per_second = 0;
  uint64_t segments = 0;
  uint64_t hits = 0;
};

// Traces `shots` in calls of `batch` shots (TraceProjectiles: the flights
// of one call advance together, each tick's past world fetched once).
FlightStats TraceAll(const World& world, const WorldHistory& history, const std::vector<Projectile>& shots,
                     size_t batch) {
  const WorldAtTime at = [&](int64_t tick, Fixed fraction, std::shared_ptr<const World>* out) -> Status {
    std::shared_ptr<const World> past;
    if (Status s = history.At(world, tick, fraction, &past); !s.ok()) return s;
    *out = past != nullptr ? past : std::shared_ptr<const World>(std::shared_ptr<const World>(), &world);
    return OkStatus();
  };
  const std::vector<QueryFilter> filters(batch);
  std::vector<ProjectileFlight> flights(batch);
  FlightStats stats;
  const auto start = Clock::now();
  for (size_t i = 0; i < shots.size(); i += batch) {
    const size_t n = std::min(batch, shots.size() - i);
    const std::span<const Projectile> part(shots.data() + i, n);
    if (!TraceProjectiles(at, part, std::span(filters).first(n), world.def().tick_hz, world.tick(),
                          std::span(flights).first(n))
             .ok()) {
      std::abort();
    }
    for (size_t k = 0; k < n; ++k) {
      stats.segments += flights[k].segments;
      stats.hits += flights[k].hit ? 1 : 0;
    }
  }
  stats.shots_per_second = static_cast<double>(shots.size()) / Seconds(Clock::now() - start);
  return stats;
}

double RaysPerSecond(const World& world, size_t count) {
  Lcg rng;
  std::vector<RayCastInput> rays;
  for (size_t i = 0; i < count; ++i) {
    rays.push_back({{Fixed::FromInt(rng.Next(200) - 100), Fixed::FromInt(160)},
                    {Fixed::FromInt(rng.Next(80) - 40), Fixed::FromInt(-170)},
                    kFixedOne});
  }
  uint64_t hits = 0;
  const auto start = Clock::now();
  for (const RayCastInput& r : rays) hits += world.CastRayClosest(r).has_value() ? 1 : 0;
  const double seconds = Seconds(Clock::now() - start);
  if (hits == 0) std::abort();  // the pile is under every ray
  return static_cast<double>(count) / seconds;
}

int Run(int argc, char** argv) {
  std::string scene_path = FindStandardFile("rain-2k.scene.json");
  int ticks = 660;
  uint32_t window = 600;
  size_t shots_per_row = 2000;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--scene") == 0 && i + 1 < argc) {
      scene_path = argv[++i];
    } else if (std::strcmp(argv[i], "--quick") == 0) {
      ticks = 80;
      window = 70;
      shots_per_row = 50;
    } else {
      std::fprintf(stderr, "usage: shot_bench [--scene FILE] [--quick]\n");
      return 2;
    }
  }
  scene::Scene scene;
  if (Status s = scene::LoadSceneFile(scene_path, &scene); !s.ok()) {
    std::fprintf(stderr, "shot_bench: %s\n", s.message().c_str());
    return 2;
  }
  scene.world.max_bodies = static_cast<uint32_t>(scene.bodies.size());
  World world(scene.world);
  if (Status s = world.AddBodies(scene.bodies); !s.ok()) {
    std::fprintf(stderr, "shot_bench: %s\n", s.message().c_str());
    return 2;
  }
  WorldHistory history(window);
  for (int t = 0; t < ticks; ++t) {
    history.Record(world);
    world.Step();
  }
  std::printf("shot_bench: %s, %zu bodies, stepped to tick %" PRId64 ", history ticks %" PRId64 "..%" PRId64 "\n",
              scene_path.c_str(), scene.bodies.size(), world.tick(), history.oldest_tick(), history.newest_tick());
  const double rays = RaysPerSecond(world, shots_per_row * 10);
  std::printf("\n%-40s %12s %10s %14s %8s\n", "set (one thread)", "per second", "x rays", "stretches/shot", "hits");
  std::printf("%-40s %12.0f %10.3f %14s %8s\n", "rays, live (CastRayClosest)", rays, 1.0, "1", "");
  for (const uint32_t flight : {1u, 10u, 60u}) {
    // Fired early enough in the window that every flight is whole.
    const std::vector<Projectile> shots =
        SeededShots(shots_per_row, history.oldest_tick(), world.tick() - static_cast<int64_t>(flight), flight);
    for (const size_t batch : {size_t{1}, size_t{256}}) {
      const FlightStats s = TraceAll(world, history, shots, batch);
      char name[64];
      std::snprintf(name, sizeof(name), "shots, %u-tick flights, batches of %zu", flight, batch);
      std::printf("%-40s %12.0f %10.3f %14.2f %8" PRIu64 "\n", name, s.shots_per_second, s.shots_per_second / rays,
                  static_cast<double>(s.segments) / static_cast<double>(shots.size()), s.hits);
    }
  }
  return 0;
}

}  // namespace
}  // namespace arbiter::bench

int main(int argc, char** argv) { return arbiter::bench::Run(argc, argv); }
