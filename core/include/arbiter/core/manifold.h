// File: manifold.h
//
// Contact manifolds between two placed shapes, for the solver and for users
// who want penetration data. One generic routine covers every pair of shape
// types through their proxies (proxy.h): separating-axis search over the
// edge normals of both cores, then clipping of the incident edge against the
// reference edge's side planes (Box2D's b2CollidePolygons; Ericson,
// Real-Time Collision Detection 5.x), with the distance routine supplying
// the normal when the cores are disjoint.
#pragma once

#include <cstdint>

#include "arbiter/core/math.h"
#include "arbiter/core/proxy.h"

namespace arbiter {

/// A contact point. Separation is negative when the shapes overlap.
struct ManifoldPoint {
  Vec2 point;        ///< world-space, midway between the two surfaces
  Fixed separation;  ///< signed distance along the normal (negative = penetration)
  /// Feature key, stable across ticks (warm starting matches on it): A's
  /// vertex << 8 | B's vertex at this point's end of the contact, whichever
  /// shape's face is the reference (manifold.cc, "Feature ids"); 0 for two
  /// circles. Distinct for the two points of a manifold; Collide(b, a)
  /// swaps the two bytes.
  uint16_t id = 0;
};

/// Up to two contact points sharing one normal.
struct Manifold {
  ManifoldPoint points[2];
  Vec2 normal;  ///< unit, from A toward B
  int32_t point_count = 0;
};

/// Contacts between a and b whose separation is at most `speculative_distance`
/// (zero keeps touching and overlapping contacts only). Containment is
/// resolved along the shortest exit. With flip symmetry: Collide(b, a) has
/// the negated normal and the same separations.
///
/// A chain segment (proxy.one_sided) makes contacts only with a shape
/// whose centre lies strictly in front of it, and only along normals its
/// ghost vertices give to it: a normal that belongs to a neighbour at a
/// convex joint yields no contact (the neighbour makes it), one that leans
/// past a concave joint or behind the segment is replaced by the face
/// normal (chain_manifold.cc has the rules). Two chain segments never
/// make contacts.
Manifold Collide(const ShapeProxy& a, const ShapeProxy& b, Fixed speculative_distance);

/// The minimum translation vector: moving B by normal * depth, with
/// depth = -(deepest separation), leaves the shapes touching to within
/// rounding (a few ulp: 1e-6 units less still overlaps, 1e-6 more
/// separates, as the tests pin). Where two faces tie within 2^-22 units the
/// depth may exceed the minimum by up to that much (the tie-break that keeps
/// Collide(b, a) exactly flipped).
inline Fixed ManifoldDepth(const Manifold& m) {
  Fixed deepest = Fixed::Max();
  for (int i = 0; i < m.point_count; ++i) deepest = Min(deepest, m.points[i].separation);
  return m.point_count == 0 ? kFixedZero : -deepest;
}

}  // namespace arbiter
