// File: query_collectors.h
//
// Closest, all and any as one entry point per query kind, so that a caller
// picks a mode once and never switches on it per query (the role of Jolt's
// ClosestHit / AllHit / AnyHit collectors). Each mode answers exactly as
// the World query it maps to, bit for bit:
//
//   kClosest  CastRayClosest (batched: CastRaysClosest) / CastShapeClosest:
//             at most one hit
//   kAll      CastRayAll / CastShapeAll: every hit, by (fraction, body id,
//             shape index)
//   kAny      CastRayAny / World::CastShapeAny: whether anything is hit; no hits
//             are reported
//
// Built on World's public queries only; the traversals stay in
// world_query.cc.
#pragma once

#include <cstddef>
#include <functional>
#include <span>

#include "arbiter/core/shapes.h"
#include "arbiter/core/world.h"

namespace arbiter {

enum class CastMode { kClosest, kAll, kAny };

/// Receives the answer to each query, in query order: `query` indexes the
/// span given, `hit` says whether anything was hit, `hits` holds the hits
/// the mode reports (one for kClosest, every one for kAll, none for kAny).
using CastSink = std::function<void(size_t query, bool hit, std::span<const CastHit> hits)>;

/// A shape moved from `transform` by `translation` (World::CastShape*).
struct WorldShapeCast {
  Shape shape;
  Transform transform;
  Vec2 translation;
};

/// Casts every ray in `mode` and reports each answer to `sink`.
void CollectRayCasts(const World& world, std::span<const RayCastInput> rays, const QueryFilter& filter,
                     CastMode mode, const CastSink& sink);

/// Casts every shape in `mode` and reports each answer to `sink`.
void CollectShapeCasts(const World& world, std::span<const WorldShapeCast> casts, const QueryFilter& filter,
                       CastMode mode, const CastSink& sink);

}  // namespace arbiter
