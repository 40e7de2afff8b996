// File: scene_reader.h
//
// The standard scene and query-set files (scenes/FORMAT.md) read into core
// types with the integer-only JSON reader (json_reader.h). The result is the
// same as arbiter::scene's loader gives for these files (shapes built the
// same way: box -> MakeBox, polygon -> MakePolygon with radius zero), which
// tests/determinism/reader_test.cc checks wherever that loader is built.
#pragma once

#include <string>
#include <vector>

#include "arbiter/core/collision.h"
#include "arbiter/core/world.h"

namespace arbiter::determinism {

struct SceneData {
  std::string name;
  WorldDef world;
  int32_t steps = 0;
  std::vector<BodyDef> bodies;  ///< in file order
};

struct DiskQuery {
  Vec2 center;
  Fixed radius;
};

struct SweepQuery {
  Vec2 center;
  Fixed radius;
  Vec2 translation;
};

struct QueryData {
  std::vector<RayCastInput> rays;  ///< max_fraction 1
  std::vector<Aabb> aabbs;
  std::vector<DiskQuery> disks;    ///< "circles" in the file
  std::vector<SweepQuery> sweeps;
};

/// Reads a whole file; false with *error set when it cannot.
bool ReadTextFile(const std::string& path, std::string* out, std::string* error);

/// Parse an `arbiter-scene/1` / `arbiter-queries/1` document. On failure
/// *error names the byte offset or the body and the problem.
bool ParseSceneText(const std::string& text, SceneData* out, std::string* error);
bool ParseQueryText(const std::string& text, QueryData* out, std::string* error);

bool LoadScene(const std::string& path, SceneData* out, std::string* error);
bool LoadQueries(const std::string& path, QueryData* out, std::string* error);

}  // namespace arbiter::determinism
