// history_bench: what lag compensation costs (issue 7), on rain-2k (2,000
// dynamic bodies and 320 static pegs; by default 240 ticks recorded with a
// 120-tick window).
//
// Reported:
//  - memory per retained tick (WorldHistory::MemoryBytes over the window)
//    beside the live world's own size;
//  - the per-tick costs the server adds around World::Step: Record (the
//    poses) and StateHash (the per-tick hash the journal and ReportHashes
//    keep), as a fraction of the step;
//  - ray throughput (closest casts, batches of 256, the same seeded rays)
//    live, at one past tick (the cached rebuilt world), at tick + 1/2, and
//    cycling over 8 past ticks so that every batch rebuilds a world (more
//    than the cache holds): the worst case, a client asking a new tick
//    every time.
// Timing is wall-clock on a possibly shared machine: compare the ratios of
// one run, not absolute numbers across runs.
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "arbiter/core/history.h"
#include "arbiter/scene/scene.h"
#include "standard_files.h"

namespace arbiter::bench {
namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

std::vector<RayCastInput> SeededRays(size_t count) {
  // Rain-2k spans about x in [-100, 100], y in [0, 150]: rays from above,
  // slanted, long enough to cross the pile.
  std::vector<RayCastInput> rays;
  uint64_t state = 12345;
  auto next = [&state] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<int64_t>(state >> 33);  // 31 bits
  };
  for (size_t i = 0; i < count; ++i) {
    const int64_t x = next() % 200 - 100;
    const int64_t dx = next() % 80 - 40;
    rays.push_back({{Fixed::FromInt(x), Fixed::FromInt(160)}, {Fixed::FromInt(dx), Fixed::FromInt(-170)}, kFixedOne});
  }
  return rays;
}

// A batch of closest casts as the server answers one: a loop with one
// collector (the core has no batch form).
void CastRaysClosest(const World& world, std::span<const RayCastInput> in, const QueryFilter& filter,
                     std::span<std::optional<CastHit>> out) {
  ClosestHitCollector closest;
  for (size_t i = 0; i < in.size(); ++i) {
    world.CastRay(in[i], filter, closest);
    out[i] = closest.hit();
  }
}

// Rays per second of `run` over all rays in batches of 256.
template <class Run>
double RaysPerSecond(const std::vector<RayCastInput>& rays, int rounds, Run run) {
  std::vector<std::optional<CastHit>> out(256);
  const auto start = Clock::now();
  size_t batch = 0;
  for (int r = 0; r < rounds; ++r) {
    for (size_t i = 0; i < rays.size(); i += 256, ++batch) {
      const size_t n = std::min<size_t>(256, rays.size() - i);
      run(batch, std::span<const RayCastInput>(rays.data() + i, n), std::span<std::optional<CastHit>>(out.data(), n));
    }
  }
  return static_cast<double>(rays.size()) * rounds / Seconds(Clock::now() - start);
}

int Run(int argc, char** argv) {
  std::string scene_path = FindStandardFile("rain-2k.scene.json");
  int ticks = 240;
  uint32_t window = 120;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--scene") == 0 && i + 1 < argc) {
      scene_path = argv[++i];
    } else if (std::strcmp(argv[i], "--quick") == 0) {
      ticks = 40;
      window = 20;
    } else {
      std::fprintf(stderr, "usage: history_bench [--scene FILE] [--quick]\n");
      return 2;
    }
  }
  scene::Scene scene;
  if (Status s = scene::LoadSceneFile(scene_path, &scene); !s.ok()) {
    std::fprintf(stderr, "history_bench: %s\n", s.message().c_str());
    return 2;
  }
  scene.world.max_bodies = static_cast<uint32_t>(scene.bodies.size());
  World world(scene.world);
  if (Status s = world.AddBodies(scene.bodies); !s.ok()) {
    std::fprintf(stderr, "history_bench: %s\n", s.message().c_str());
    return 2;
  }
  size_t movable = 0;
  for (const BodyDef& b : scene.bodies) movable += b.type != BodyType::kStatic ? 1 : 0;

  WorldHistory history(window);
  Clock::duration step_time{}, record_time{}, hash_time{};
  uint64_t sink = 0;
  for (int t = 0; t < ticks; ++t) {
    auto a = Clock::now();
    history.Record(world);
    auto b = Clock::now();
    world.Step();
    auto c = Clock::now();
    sink ^= world.StateHash();
    auto d = Clock::now();
    record_time += b - a;
    step_time += c - b;
    hash_time += d - c;
  }
  const double per_tick_ms = 1000.0 / ticks;
  std::printf("history_bench: %s, %zu bodies (%zu movable), %d ticks, window %u ticks (hash fold %016" PRIx64 ")\n",
              scene_path.c_str(), scene.bodies.size(), movable, ticks, window, sink);
  std::printf("\nmemory\n");
  std::printf("  retained ticks                 %u (oldest %" PRId64 ", newest %" PRId64 ")\n", window,
              history.oldest_tick(), history.newest_tick());
  std::printf("  history bytes                  %zu (%.1f KiB per retained tick, %.1f bytes per movable body)\n",
              history.MemoryBytes(), history.MemoryBytes() / 1024.0 / window,
              static_cast<double>(history.MemoryBytes()) / window / static_cast<double>(movable));
  std::printf("  live world bytes               %zu (%.1f KiB)\n", world.MemoryBytes(), world.MemoryBytes() / 1024.0);

  std::printf("\nper-tick cost around World::Step (ms, mean)\n");
  std::printf("  Step                           %.3f\n", Seconds(step_time) * per_tick_ms);
  std::printf("  Record (history)               %.3f  (%.1f%% of Step)\n", Seconds(record_time) * per_tick_ms,
              100.0 * Seconds(record_time) / Seconds(step_time));
  std::printf("  StateHash (journal, hashes)    %.3f  (%.1f%% of Step)\n", Seconds(hash_time) * per_tick_ms,
              100.0 * Seconds(hash_time) / Seconds(step_time));

  const std::vector<RayCastInput> rays = SeededRays(4096);
  const int rounds = ticks >= 240 ? 8 : 1;
  QueryFilter filter;
  const int64_t live_tick = world.tick();
  const double live = RaysPerSecond(rays, rounds, [&](size_t, auto in, auto out) {
    CastRaysClosest(world, in, filter, out);
  });
  auto at = [&](int64_t tick, Fixed fraction) {
    std::shared_ptr<const World> view;
    if (!history.At(world, tick, fraction, &view).ok() || view == nullptr) std::abort();
    return view;
  };
  const double one_tick = RaysPerSecond(rays, rounds, [&](size_t, auto in, auto out) {
    CastRaysClosest(*at(live_tick - 10, kFixedZero), in, filter, out);
  });
  const double half_tick = RaysPerSecond(rays, rounds, [&](size_t, auto in, auto out) {
    CastRaysClosest(*at(live_tick - 10, Fixed::FromRatio(1, 2)), in, filter, out);
  });
  const auto rebuild_start = Clock::now();
  size_t rebuilds = 0;
  const double cycling = RaysPerSecond(rays, 1, [&](size_t batch, auto in, auto out) {
    ++rebuilds;
    CastRaysClosest(*at(live_tick - 1 - static_cast<int64_t>(batch % 8) * (window / 8), kFixedZero), in, filter, out);
  });
  const double cycle_seconds = Seconds(Clock::now() - rebuild_start);
  // Rebuild cost alone: the same cycle without the rays.
  const auto only_start = Clock::now();
  for (size_t b = 0; b < rebuilds; ++b) (void)at(live_tick - 1 - static_cast<int64_t>(b % 8) * (window / 8), kFixedZero);
  const double rebuild_ms = Seconds(Clock::now() - only_start) * 1000 / static_cast<double>(rebuilds);

  std::printf("\nray throughput (closest casts, batches of 256, %zu rays x %d rounds)\n", rays.size(), rounds);
  std::printf("  live                           %10.0f rays/s  1.00\n", live);
  std::printf("  tick - 10 (cached view)        %10.0f rays/s  %.2f\n", one_tick, one_tick / live);
  std::printf("  tick - 10 + 1/2 (cached view)  %10.0f rays/s  %.2f\n", half_tick, half_tick / live);
  std::printf("  8 past ticks in turn (rebuild  %10.0f rays/s  %.2f  (%.2f ms per rebuilt world, %zu rebuilds, %.3f s)\n",
              cycling, cycling / live, rebuild_ms, rebuilds, cycle_seconds);
  std::printf("   every batch)\n");
  return 0;
}

}  // namespace
}  // namespace arbiter::bench

int main(int argc, char** argv) { return arbiter::bench::Run(argc, argv); }
