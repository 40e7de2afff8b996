// The scene scenarios: rain-2k stepping, the arena-10k queries, and
// terrain (chains) stepping and queries.
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

// Steps `ticks` ticks, one item per tick: the tick, the state hash and the
// tick's events.
void StepItems(RunnerWorld& world, int ticks, std::vector<uint64_t>* items) {
  TickEvents events;
  for (int i = 0; i < ticks; ++i) {
    StepWorld(world, &events);
    Digest d;
    d.I64(world.tick());
    d.U64(world.StateHash());
    d.Events(events);
    items->push_back(d.Value());
  }
}

// A query point in a fixed pattern over terrain.scene.json: x in
// [-100, 100), y from `y0` in steps, all exact in Q32.32 (multiples of 1/64).
Vec2 TerrainSpot(int i, int y0) {
  return {Fixed::FromRatio((i * 389) % 12800 - 6400, 64), Fixed::FromInt(y0 + (i * 7) % 50)};
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
  size.terrain_ticks = 150;
  size.terrain_queries = 500;
  return size;
}

ScenarioResult RunRain(const SceneData& scene, int ticks) {
  const double start = Now();
  ScenarioResult result{"rain-2k", "tick", {}, 0, 0};
  Digest load;
  RunnerWorld world = BuildWorld(scene, &load);
  result.items.push_back(load.Value());
  StepItems(world, ticks, &result.items);
  FinishScenario(&result);
  result.seconds = Now() - start;
  return result;
}

// The chain scenario. It was added after the other digests were pinned, so
// it has its own lines in expected_digests.txt and is not folded into
// "overall" (main.cc): every earlier digest stays byte-identical, which
// shows that chains changed no existing result.
ScenarioResult RunTerrain(const SceneData& scene, int ticks, int queries) {
  const double start = Now();
  ScenarioResult result{"terrain", "item", {}, 0, 0};
  Digest load;
  RunnerWorld world = BuildWorld(scene, &load);
  result.items.push_back(load.Value());
  StepItems(world, ticks, &result.items);
  // Rays and disk sweeps down onto the chains and up from below them (the
  // one-sided rule decides those), in the settled world.
  const Shape disk = Shape::FromCircle({{}, Fixed::FromRatio(1, 2)});
  for (int i = 0; i < queries; ++i) {
    const bool up = i % 2 == 1;
    const Vec2 origin = TerrainSpot(i, up ? -60 : 10);
    const Vec2 translation{Fixed::FromRatio((i % 9) - 4, 2), Fixed::FromInt(up ? 120 : -80)};
    Digest d;
    d.Hit(world.CastRayClosest({origin, translation, kFixedOne}));
    d.Hit(world.CastShapeClosest(disk, {origin, kRotIdentity}, translation));
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
