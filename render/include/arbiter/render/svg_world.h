// File: svg_world.h
//
// An SVG picture of a world, for people debugging collision: every shape
// drawn exactly, and queries drawn with their answers.
//
// Exactness: shapes are written in their body's frame and placed by the
// body's transform as an SVG matrix, every number the exact decimal of the
// Q32.32 value (exact_decimal.h); capsules and rounded polygons are drawn
// as strokes of width 2 * radius with round caps and joins, which is
// exactly their Minkowski sum with the disk. No floating point is used, so
// the same world and queries give the same bytes on every machine.
//
// Frames: world units, y up (the picture flips y once, at the root).
// Body types and sensors differ by CSS class (static, kinematic, dynamic,
// sensor); each shape element has class "shape", data-body and data-shape
// attributes and a <title> naming the body id.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "arbiter/core/collision.h"
#include "arbiter/core/math.h"
#include "arbiter/core/status.h"
#include "arbiter/core/world.h"

namespace arbiter::render {

struct RenderQueries {
  /// Rays (origin, translation; fraction 0..1): drawn with the closest hit,
  /// its point and normal; the hit shape is highlighted.
  std::vector<RayCastInput> rays;
  /// Boxes: drawn, and every shape that overlaps one is highlighted.
  std::vector<Aabb> boxes;
};

struct RenderOptions {
  /// The region shown, in world units; absent: every shape and query, with
  /// a margin.
  std::optional<Aabb> view;
  /// The picture's <title> (e.g. "world arena at tick 120").
  std::string caption;
};

/// "static", "kinematic", "dynamic": the names pictures and the viewer use.
const char* BodyTypeName(BodyType type);

/// INVALID_ARGUMENT / OUT_OF_RANGE naming "rays[i]" or "boxes[i]" when a
/// query is outside the core's ranges, and "view" when the view is empty or
/// inverted; nothing is drawn then.
Status CheckRenderInput(const RenderQueries& queries, const RenderOptions& options);

/// The picture. Queries are answered on `world` (the core's own queries,
/// the same answers the server gives). Call CheckRenderInput first.
std::string RenderSvg(const World& world, const RenderQueries& queries, const RenderOptions& options);

}  // namespace arbiter::render
