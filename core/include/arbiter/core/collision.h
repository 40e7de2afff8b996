// File: collision.h
//
// The exact and near-exact queries between placed shapes: overlap, point
// containment, ray cast, distance with closest points, and shape cast (time
// of impact under translation). Every function takes world-space proxies
// (proxy.h); convenience overloads take a shape and its transform.
//
// Conventions pinned by tests:
//  - touching counts as overlapping (distance exactly zero overlaps);
//  - a ray or cast that starts overlapping hits at fraction 0 with a zero
//    normal; the start test is the exact overlap predicate; the point is
//    the ray's origin, or for a cast the overlap point of ShapeDistance
//    (below), which lies inside both shapes;
//  - normals are unit vectors (within 1 ulp per component) pointing out of
//    the shape that was hit;
//  - fractions are Q32.32 in [0, max_fraction], rounded to nearest;
//  - a chain segment's proxy (one_sided) is hit by rays and casts from its
//    front only; the overlap, containment and distance functions treat it
//    as a plain segment (chain.h lists the rules).
#pragma once

#include "arbiter/core/math.h"
#include "arbiter/core/proxy.h"
#include "arbiter/core/shapes.h"

namespace arbiter {

/// Exact: do the two placed shapes share at least one point?
bool TestOverlap(const ShapeProxy& a, const ShapeProxy& b);
bool TestOverlap(const Shape& a, const Transform& xf_a, const Shape& b, const Transform& xf_b);

/// Exact: is `point` inside or on the boundary of the placed shape?
bool ContainsPoint(const ShapeProxy& proxy, Vec2 point);
bool ContainsPoint(const Shape& shape, const Transform& xf, Vec2 point);

/// A ray from `origin` along `translation`: points origin + t * translation
/// for t in [0, max_fraction].
struct RayCastInput {
  Vec2 origin;
  Vec2 translation;
  Fixed max_fraction = kFixedOne;
};

/// The result of a ray or shape cast. When `hit` is false the other fields
/// are zero.
struct CastOutput {
  Vec2 normal;    ///< unit outward normal of the shape hit at `point`; zero when starting inside
  Vec2 point;     ///< world-space contact point
  Fixed fraction; ///< t of the first contact
  bool hit = false;
};

/// The first point where the ray meets the placed shape.
CastOutput RayCast(const ShapeProxy& proxy, const RayCastInput& input);
CastOutput RayCast(const Shape& shape, const Transform& xf, const RayCastInput& input);

/// The distance between two placed shapes (surfaces, radii included).
///
/// When the shapes overlap (exact test), distance and normal are zero and
/// point_a == point_b == the overlap point, a point inside both shapes
/// (exactly, up to the rounding of one division or product to Q32.32):
///  - when the cores (the shapes without their rounding radius) intersect,
///    a point of both cores: the first vertex of B's core inside A's
///    polygon core, else the first vertex of A's core inside B's, else the
///    crossing of the first pair of core edges (A's edges outer, in
///    order) that meet;
///  - otherwise only the roundings overlap: with p_a, p_b the closest core
///    points (as for separated shapes), d = |p_b - p_a| and n the unit
///    vector from p_a to p_b, the points p_a + s n with
///    s in [max(-ra, d - rb), min(ra, d + rb)] lie within ra of p_a and
///    within rb of p_b, so in both shapes; the point is the middle of that
///    stretch. (It is the middle of the two surface points unless one
///    rounding disk contains the other.)
/// Both rules are cheap (no iteration) and functions of the placed points
/// alone.
struct DistanceOutput {
  Vec2 point_a;    ///< closest point on A's surface; the overlap point when overlapping
  Vec2 point_b;    ///< closest point on B's surface; the overlap point when overlapping
  Vec2 normal;     ///< unit vector from A toward B; zero when overlapping
  Fixed distance;  ///< zero when the shapes overlap (exact test)
};

/// Closest points and distance. The closest pair of features is found by
/// evaluating every vertex-edge pair of the two cores (at most 2 x 8 x 8):
/// for proxies of at most eight points this is what GJK converges to, with
/// no iteration limit and no tolerance, and the ordering of ties is fixed.
DistanceOutput ShapeDistance(const ShapeProxy& a, const ShapeProxy& b);
DistanceOutput ShapeDistance(const Shape& a, const Transform& xf_a, const Shape& b, const Transform& xf_b);

/// Shape A moves by `translation` (t in [0, max_fraction]); B stays put.
struct ShapeCastInput {
  ShapeProxy a;
  ShapeProxy b;
  Vec2 translation;
  Fixed max_fraction = kFixedOne;
};

/// The first contact of A moving against B. `normal` is B's outward normal at
/// the contact, `point` the contact point on B. Solved as a ray cast from the
/// origin against the rounded Minkowski difference B - A, so it is as exact
/// as a ray cast. Touching at t = 0 (exact test) reports fraction 0, a
/// zero normal and, as `point`, ShapeDistance's overlap point of A and B at
/// the start: a point inside both shapes (see DistanceOutput for which).
CastOutput ShapeCast(const ShapeCastInput& input);

}  // namespace arbiter
