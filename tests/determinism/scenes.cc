// The standard-scene scenarios: rain-2k stepping and the arena-10k queries.
#include <chrono>

#include "digest.h"
#include "runner_world.h"
#include "scenarios.h"

namespace arbiter::determinism {

namespace {

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

RunnerWorld BuildWorld(const SceneData& scene, Digest* load) {
  RunnerWorld world(scene.world);
  const Status status = world.AddBodies(scene.bodies);
  load->Code(status);
  load->U64(world.StateHash());
  return world;
}

}  // namespace

void FinishScenario(ScenarioResult* result) {
  Digest d;
  for (uint64_t item : result->items) d.U64(item);
  result->digest = d.Value();
}

RunSize FullSize() { return RunSize{}; }

// The quick prefix: the first 150 ticks of rain-2k, the first eighth of
// each arena query list, the first 1,000 scripts.
RunSize QuickSize() {
  RunSize size;
  size.rain_ticks = 150;
  size.arena_rays = 5000;
  size.arena_aabbs = 2500;
  size.arena_circles = 2500;
  size.arena_sweeps = 1250;
  size.scripts = 1000;
  return size;
}

ScenarioResult RunRain(const SceneData& scene, int ticks) {
  const double start = Now();
  ScenarioResult result{"rain-2k", "tick", {}, 0, 0};
  Digest load;
  RunnerWorld world = BuildWorld(scene, &load);
  result.items.push_back(load.Value());
  TickEvents events;
  for (int i = 0; i < ticks; ++i) {
    world.Step(&events);
    Digest d;
    d.I64(world.tick());
    d.U64(world.StateHash());
    d.Events(events);
    result.items.push_back(d.Value());
  }
  FinishScenario(&result);
  result.seconds = Now() - start;
  return result;
}

std::vector<ScenarioResult> RunArena(const SceneData& scene, const QueryData& queries, const RunSize& size) {
  std::vector<ScenarioResult> results;
  double start = Now();
  Digest load;
  const RunnerWorld world = BuildWorld(scene, &load);
  results.push_back({"arena-10k.world", "state", {load.Value()}, 0, 0});
  FinishScenario(&results.back());
  results.back().seconds = Now() - start;

  auto run = [&](const char* name, size_t available, size_t wanted, auto&& answer) {
    start = Now();
    ScenarioResult r{name, "query", {}, 0, 0};
    const size_t n = wanted < available ? wanted : available;
    r.items.reserve(n);
    for (size_t i = 0; i < n; ++i) {
      Digest d;
      answer(i, d);
      r.items.push_back(d.Value());
    }
    FinishScenario(&r);
    r.seconds = Now() - start;
    results.push_back(std::move(r));
  };

  run("arena-10k.rays", queries.rays.size(), size.arena_rays, [&](size_t i, Digest& d) {
    d.Hit(world.CastRayClosest(queries.rays[i]));
  });
  run("arena-10k.aabbs", queries.aabbs.size(), size.arena_aabbs, [&](size_t i, Digest& d) {
    d.Refs(world.OverlapAabb(queries.aabbs[i]));
  });
  run("arena-10k.circles", queries.disks.size(), size.arena_circles, [&](size_t i, Digest& d) {
    const DiskQuery& q = queries.disks[i];
    const Shape disk = Shape::FromCircle({{}, q.radius});
    d.Refs(world.OverlapShape(disk, {q.center, kRotIdentity}));
  });
  run("arena-10k.sweeps", queries.sweeps.size(), size.arena_sweeps, [&](size_t i, Digest& d) {
    const SweepQuery& q = queries.sweeps[i];
    const Shape disk = Shape::FromCircle({{}, q.radius});
    d.Hit(world.CastShapeClosest(disk, {q.center, kRotIdentity}, q.translation));
  });
  return results;
}

}  // namespace arbiter::determinism
