// File: scenarios.h
//
// The determinism runner's scenarios. Each produces a list of per-item
// digests (one per tick, query or script); the scenario's digest is the
// xxh64 of those item digests as little-endian u64s, in order.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "scene_reader.h"

namespace arbiter::determinism {

struct ScenarioResult {
  std::string name;
  std::string item_kind;        ///< "tick", "query", "script", "state": for reports
  std::vector<uint64_t> items;  ///< per-item digests, in order
  uint64_t digest = 0;          ///< xxh64 of the items (little-endian u64s)
  double seconds = 0;           ///< wall time (informational, never folded)
};

/// Computes result->digest from result->items.
void FinishScenario(ScenarioResult* result);

/// How much each scenario runs. Full mode is what the committed digests of
/// "full" pin; quick mode runs a documented prefix of each, for emulated
/// cells (see expected_digests.txt).
struct RunSize {
  int rain_ticks = 600;
  size_t arena_rays = 40000;
  size_t arena_aabbs = 20000;
  size_t arena_circles = 20000;
  size_t arena_sweeps = 10000;
  int scripts = 2000;
  int terrain_ticks = 600;
  int terrain_queries = 2000;
};

RunSize FullSize();
RunSize QuickSize();

/// rain-2k: the state hash after loading (item 0) and, for each of `ticks`
/// ticks, the state hash and the tick's events (items 1..ticks).
ScenarioResult RunRain(const SceneData& scene, int ticks);

/// arena-10k: the world's state hash after loading ("arena-10k.world"),
/// then one scenario per query kind over the first n of each list:
/// rays (CastRayClosest), aabbs (OverlapAabb), circles (OverlapShape with a
/// circle), sweeps (CastShapeClosest with a circle).
std::vector<ScenarioResult> RunArena(const SceneData& scene, const QueryData& queries, const RunSize& size);

/// terrain (chains): the state hash after loading, each of `ticks` ticks
/// (state hash and events), then `queries` rays and disk sweeps (scenes.cc).
ScenarioResult RunTerrain(const SceneData& scene, int ticks, int queries);

/// `count` seeded random scripts (scripts.cc). When detail_script >= 0,
/// that script also prints a per-operation digest trace to stdout.
ScenarioResult RunScripts(int count, int detail_script);

/// Coverage counters of the scripts run so far (--stats).
void PrintScriptStats();

}  // namespace arbiter::determinism
