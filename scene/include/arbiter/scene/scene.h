// File: scene.h
//
// Loading of the standard scene and query-set files (`arbiter-scene/1`,
// `arbiter-queries/1`; see scenes/FORMAT.md). Numbers convert to Q32.32 by
// round-to-nearest from the JSON double, which is exact for the standard
// files (multiples of 1/1024 below 2^12). Every error names the JSON path
// and the problem, e.g. "bodies[12].shapes[0].polygon.points: not convex".
//
// This library does file I/O and JSON; the core does neither.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "arbiter/core/status.h"
#include "arbiter/core/world.h"

namespace arbiter::scene {

struct Scene {
  std::string name;
  WorldDef world;           ///< gravity and tick rate
  int32_t steps = 0;        ///< ticks the step benchmark runs (0 when absent)
  std::vector<BodyDef> bodies;  ///< in file order
};

/// A disk query (`circles` in the file).
struct DiskQuery {
  Vec2 center;
  Fixed radius;
};

/// A disk swept along a translation (`sweeps` in the file).
struct SweepQuery {
  Vec2 center;
  Fixed radius;
  Vec2 translation;
};

struct QuerySet {
  std::vector<RayCastInput> rays;  ///< max_fraction 1
  std::vector<Aabb> aabbs;
  std::vector<DiskQuery> disks;
  std::vector<SweepQuery> sweeps;
};

/// Parses scene JSON text. On error *out is unchanged.
Status ParseScene(std::string_view json, Scene* out);
/// Reads and parses a scene file; NOT_FOUND when it cannot be read. Errors
/// are prefixed with the file path ("<path>: bodies[3].type: ...").
Status LoadSceneFile(const std::string& path, Scene* out);

/// Parses a list of bodies to add to a world: either a whole scene (its
/// bodies; its world settings are ignored) or an object holding only
/// "bodies", in the scene format. Errors name the JSON path as ParseScene's
/// do. On error *out is unchanged.
Status ParseBodyList(std::string_view json, std::vector<BodyDef>* out);
/// As LoadSceneFile, for a body list.
Status LoadBodyListFile(const std::string& path, std::vector<BodyDef>* out);

/// Parses query-set JSON; absent lists are empty. On error *out is unchanged.
Status ParseQuerySet(std::string_view json, QuerySet* out);
/// As LoadSceneFile, for a query-set file.
Status LoadQuerySetFile(const std::string& path, QuerySet* out);

}  // namespace arbiter::scene
