// File: hull.h
//
// Convex hull of a small point set with exact orientation tests.
#pragma once

#include <span>

#include "arbiter/core/math.h"

namespace arbiter {

/// Writes the convex hull of `points` to `out` in counter-clockwise order,
/// starting from the leftmost-then-lowest point (least x, then least y),
/// and returns its size. Collinear and duplicate points are dropped, so the
/// result is strictly convex: 1 point when all coincide, 2 when all are
/// collinear, otherwise >= 3. Returns 0 for an empty input, for more than 64
/// input points, or when the hull has more than out.size() vertices.
/// Andrew's monotone chain, O(n log n), exact.
int ComputeHull(std::span<const Vec2> points, std::span<Vec2> out);

}  // namespace arbiter
