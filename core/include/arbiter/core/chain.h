// File: chain.h
//
// Chains: one-sided polylines for terrain (Box2D's chain shape is the
// model). A chain is not a shape of its own: MakeChain expands it into
// ChainSegment shapes (shapes.h), one per edge, each carrying its
// neighbours' far points as ghost vertices. Every segment is then an
// ordinary shape of its body: its own shape index, tree leaf and query hit.
//
// What one-sided means, query by query (all side tests are exact integer
// predicates on the placed, rounded points):
//  - Collide (the step's contacts, MoveAndSlide's push-out): no contact
//    when the other shape's centre (ProxyCenter) lies behind the segment's
//    line or on it; otherwise the contact normal is restricted by the
//    ghosts (manifold.h, CollideChainSegment).
//  - RayCast: a ray hits only when its origin lies strictly in front.
//  - ShapeCast: a hit only when the other shape's centre at the start lies
//    strictly in front.
//  - TestOverlap, ContainsPoint, ShapeDistance (so the overlap queries and
//    sensors): a plain two-sided segment. Overlap asks "does anything touch
//    this region", which a one-sided edge answers like any other.
//  - Two chain segments never collide or cast against each other.
//
// Chains carry no mass: only static and kinematic bodies may hold them.
#pragma once

#include <span>
#include <vector>

#include "arbiter/core/math.h"
#include "arbiter/core/proxy.h"
#include "arbiter/core/shapes.h"

namespace arbiter {

/// Expands the chain through `points` (body frame) into chain segments,
/// appended to *out: points[i] -> points[i + 1] for an open chain (n - 1
/// segments), plus points[n - 1] -> points[0] for a loop (n segments).
/// Each segment's ghosts are its neighbours' far points. At the two ends of
/// an open chain there is no neighbour; the ghost there is placed at a
/// right angle behind the segment (point - RightPerp(direction), scaled
/// down to stay in range), which makes the end vertex admit every normal of
/// the front half plane: the end behaves like a plain one-sided segment.
///
/// Errors (nothing appended): kTooFewChainPoints (< 2, or < 3 for a loop),
/// kTooManyChainPoints (> kMaxChainPoints), kOutOfRange (a coordinate
/// beyond kMaxShapeExtent), kDuplicateVertices (two consecutive points
/// equal, including the last and first of a loop). Collinear and
/// back-tracking points are allowed.
ShapeError MakeChain(std::span<const Vec2> points, bool loop, std::vector<Shape>* out);

/// The centre a one-sided test uses for a proxy: the mean of its points
/// (a circle's centre, a capsule's midpoint, a polygon's vertex mean, which
/// lies strictly inside a convex polygon), rounded to Q32.32.
Vec2 ProxyCenter(const ShapeProxy& proxy);

/// Exact: dot(p - point1, RightPerp(point2 - point1)) of a chain segment's
/// proxy, as a sign: +1 in front, 0 on the line, -1 behind.
int ChainSide(const ShapeProxy& chain, Vec2 p);

}  // namespace arbiter
