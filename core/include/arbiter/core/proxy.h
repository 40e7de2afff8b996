// File: proxy.h
//
// Every shape, once placed in the world, is reduced to one form: a convex
// point set (1 point, 2 points or a CCW polygon) plus a rounding radius. A
// circle is one point with a radius, a capsule two points with a radius, a
// segment two points with radius zero, a box four points. Box2D's
// b2ShapeProxy does the same, so that each narrow-phase algorithm is written
// once for every pair of shape types.
//
// The frame rule: proxies hold WORLD-space points, each rounded once from the
// shape's local vertex by TransformPoint. Those rounded points are the
// canonical geometry of a placed shape: exact predicates (overlap,
// containment) are exact on them, and because both shapes of a pair are in
// the same frame, every predicate is exactly symmetric in its arguments.
#pragma once

#include <array>
#include <cstdint>

#include "arbiter/core/math.h"
#include "arbiter/core/shapes.h"

namespace arbiter {

/// A convex point set plus a radius, in world space.
struct ShapeProxy {
  std::array<Vec2, kMaxPolygonVertices> points{};
  int32_t count = 0;  ///< 1 (disk or point), 2 (capsule or segment), >= 3 (polygon, CCW)
  Fixed radius;
  /// A placed chain segment (shapes.h): the two points above plus its ghost
  /// vertices. Collide, RayCast and ShapeCast honour the one-sidedness and
  /// the ghosts; TestOverlap, ContainsPoint and ShapeDistance see a plain
  /// segment (chain.h says why).
  bool one_sided = false;
  Vec2 ghost1;
  Vec2 ghost2;
};

/// The world-space proxy of `shape` placed at `xf`.
ShapeProxy MakeProxy(const Shape& shape, const Transform& xf);

/// A proxy from points already in world space (count 1..8; CCW when >= 3).
ShapeProxy MakeProxy(std::span<const Vec2> points, Fixed radius);

/// The exact bounding box of the proxy (points expanded by the radius).
Aabb ComputeProxyAabb(const ShapeProxy& proxy);

}  // namespace arbiter
