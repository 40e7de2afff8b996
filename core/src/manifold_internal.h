// Pieces of the manifold routine shared between manifold.cc (convex
// shapes) and chain_manifold.cc (one-sided chain segments).
#pragma once

#include <array>
#include <cstdint>

#include "arbiter/core/manifold.h"
#include "proxy_view.h"

namespace arbiter::internal {

/// A feature id (manifold.h) as seen with the two shapes' roles swapped:
/// (A's vertex << 8) | B's vertex becomes (B's << 8) | A's.
constexpr uint16_t SwapFeatureSides(uint16_t id) { return static_cast<uint16_t>((id << 8) | (id >> 8)); }

/// What the manifold routine derives from one placed core and may reuse
/// for every pair that core is in while its points stay put: the edge
/// lengths (a square root each) and the unit edge normals (a
/// normalisation each), computed by the same functions from the same
/// points, so reuse gives the same bits. Both are filled as they are
/// asked for. A memo belongs to one placement: the caller resets it
/// (`Reset`) when the points change.
struct CoreMemo {
  uint8_t has_length = 0;  // bit i: length[i] is filled
  uint8_t has_normal = 0;  // bit i: normal[i] is filled
  std::array<Fixed, kMaxPolygonVertices> length{};
  std::array<Vec2, kMaxPolygonVertices> normal{};
  void Reset() {
    has_length = 0;
    has_normal = 0;
  }
};

/// Collide(a, b, spec) (manifold.h) of two convex shapes read in place
/// (no chain segment: neither view is one-sided), reusing and filling the memos of the two placed shapes
/// (neither null). The answer is Collide's, bit for bit.
Manifold CollideViews(const ProxyView& a, CoreMemo* memo_a, const ProxyView& b, CoreMemo* memo_b, Fixed spec);

/// Collide(a, b, spec) (manifold.h), reusing and filling the memos of the
/// two placed shapes (each may be null). The answer is Collide's, bit for
/// bit.
Manifold CollideMemo(const ShapeProxy& a, CoreMemo* memo_a, const ShapeProxy& b, CoreMemo* memo_b, Fixed spec);

/// The manifold of b against a's first edge (a.points[0] -> points[1],
/// normal RightPerp of it) as the reference face, whatever the best axis:
/// the "snap" of a chain segment's contact to its face normal. Empty when
/// that face separates beyond `spec` or b's incident edge lies outside the
/// edge's side planes.
Manifold CollideOnFirstFace(const ShapeProxy& a, const ShapeProxy& b, Fixed spec);

/// Collide when a or b is a chain segment (manifold.h).
Manifold CollideWithChain(const ShapeProxy& a, const ShapeProxy& b, Fixed spec);

}  // namespace arbiter::internal
