// Pieces of the manifold routine shared between manifold.cc (convex
// shapes) and chain_manifold.cc (one-sided chain segments).
#pragma once

#include "arbiter/core/manifold.h"

namespace arbiter::internal {

/// The manifold of b against a's first edge (a.points[0] -> points[1],
/// normal RightPerp of it) as the reference face, whatever the best axis:
/// the "snap" of a chain segment's contact to its face normal. Empty when
/// that face separates beyond `spec` or b's incident edge lies outside the
/// edge's side planes.
Manifold CollideOnFirstFace(const ShapeProxy& a, const ShapeProxy& b, Fixed spec);

/// Collide when a or b is a chain segment (manifold.h).
Manifold CollideWithChain(const ShapeProxy& a, const ShapeProxy& b, Fixed spec);

}  // namespace arbiter::internal
