// File: reference.h
//
// A double-precision reference for the collision queries of core/, written
// independently of it: plain doubles, straightforward algorithms chosen to be
// obviously correct rather than fast (every vertex-edge pair, analytic ray
// intersections with the pieces of a rounded polygon, an explicit Minkowski
// difference). Property tests (tests/core/property_test.cc) run core and this
// reference on the same world-space points and compare.
//
// The geometry is the same as core's ShapeProxy (proxy.h): a convex "core"
// of 1 point (disk or point), 2 points (capsule or segment) or >= 3 points
// (counter-clockwise strictly convex polygon), grown by a rounding radius.
//
// Precision: inputs converted from Q32.32 near the origin (tests convert
// relative to a local origin, see convert.h) are exact doubles, so every
// answer here is within a few double ulps of the exact one, that is about
// 1e-15 * (size of the configuration); far below core's 2^-32 steps. Where a
// quantity is ill-conditioned (a grazing ray, a normal at a corner) the
// functions also return a margin so that tests know when not to compare.
#pragma once

#include <cmath>
#include <limits>
#include <vector>

namespace arbiter::reference {

struct DVec2 {
  double x = 0;
  double y = 0;
};

inline DVec2 operator+(DVec2 a, DVec2 b) { return {a.x + b.x, a.y + b.y}; }
inline DVec2 operator-(DVec2 a, DVec2 b) { return {a.x - b.x, a.y - b.y}; }
inline DVec2 operator-(DVec2 a) { return {-a.x, -a.y}; }
inline DVec2 operator*(double s, DVec2 v) { return {s * v.x, s * v.y}; }
inline double Dot(DVec2 a, DVec2 b) { return a.x * b.x + a.y * b.y; }
inline double Cross(DVec2 a, DVec2 b) { return a.x * b.y - a.y * b.x; }
// Plain sqrt rather than hypot: no overflow is possible at collision scales
// (|v| < 2^32), the rounding is as good, and hypot is several times slower.
inline double Length(DVec2 v) { return std::sqrt(v.x * v.x + v.y * v.y); }
inline double Distance(DVec2 a, DVec2 b) { return Length(b - a); }
/// Clockwise perpendicular: the outward normal direction of a CCW edge.
inline DVec2 RightPerp(DVec2 v) { return {v.y, -v.x}; }
/// v / |v|, or zero for the zero vector.
inline DVec2 Normalize(DVec2 v) {
  const double len = Length(v);
  return len > 0 ? (1.0 / len) * v : DVec2{};
}

constexpr double kInfinity = std::numeric_limits<double>::infinity();

/// The same shape form as core's ShapeProxy.
struct DProxy {
  std::vector<DVec2> points;
  double radius = 0;
};

/// The point of segment [a, b] closest to p (a == b allowed).
DVec2 ClosestPointOnSegment(DVec2 p, DVec2 a, DVec2 b);

/// Distance from q to the core (points only, radius ignored): zero inside a
/// polygon core. *closest (optional) receives the closest core point.
double CoreDistance(const DProxy& proxy, DVec2 q, DVec2* closest = nullptr);

/// Signed distance from q to the rounded surface: negative inside.
double SignedDistance(const DProxy& proxy, DVec2 q);

/// The outward unit normal of the surface at the surface point nearest q
/// (for a rounded shape, the direction from the nearest core point; without
/// rounding, the normal of the nearest edge, on q's side for a segment).
/// Undefined, and arbitrary, at a corner of an unrounded shape.
DVec2 SurfaceNormal(const DProxy& proxy, DVec2 q);

/// Is q inside or on the boundary of the shape?
bool Contains(const DProxy& proxy, DVec2 q);

/// Do the shapes share a point? (Touching counts.)
bool Overlap(const DProxy& a, const DProxy& b);

struct DistanceResult {
  double distance = 0;       ///< surface distance; zero when overlapping
  double core_distance = 0;  ///< distance between the cores (radii ignored)
  DVec2 point_a;             ///< closest point on A's surface
  DVec2 point_b;             ///< closest point on B's surface
  DVec2 normal;              ///< unit, A toward B; zero when overlapping
};

/// Minimum over every vertex-edge pair of the two cores (zero when the cores
/// intersect), minus the radii.
DistanceResult Distance(const DProxy& a, const DProxy& b);

struct CastResult {
  bool hit = false;
  double fraction = 0;
  DVec2 point;
  DVec2 normal;  ///< outward unit normal at `point`; zero when starting inside
  /// For a shape without rounding, the distance from the hit point to the
  /// nearest core vertex: the normal is undefined at a corner, so tests do
  /// not compare normals when this is tiny. Infinity for rounded shapes.
  double corner_distance = kInfinity;
};

/// First point of origin + t * translation, t in [0, max_fraction], on the
/// shape. A ray starting inside or on the boundary hits at t = 0 with a zero
/// normal. Analytic: the rounded shape's boundary is made of circle arcs
/// around the vertices and edges offset by the radius, so the entry is the
/// first intersection with one of those pieces.
CastResult RayCast(const DProxy& proxy, DVec2 origin, DVec2 translation, double max_fraction);

/// How far the ray (as a segment of length max_fraction) is from changing
/// its hit/miss answer: for a solid shape |min over t of SignedDistance| (the
/// signed distance is convex along a line, so a golden-section search finds
/// it); for a shape of zero area (segment) the distance of the segments when
/// they miss, else the smallest distance of an endpoint of one from the
/// other. Tests do not compare hit flags when this is within their tolerance.
double RayHitMargin(const DProxy& proxy, DVec2 origin, DVec2 translation, double max_fraction);

/// Convex hull (counter-clockwise, collinear points dropped) by Andrew's
/// monotone chain: 1 point if all coincide, 2 if all are collinear.
std::vector<DVec2> ConvexHull(std::vector<DVec2> points);

/// The rounded Minkowski difference B - A: hull of all b_i - a_j with radius
/// ra + rb. A translated by t overlaps B exactly when t lies in it.
DProxy MinkowskiDifference(const DProxy& b, const DProxy& a);

/// A moves by t * translation, t in [0, max_fraction]; B is static. The ray
/// from the origin along `translation` against B - A. `normal` is B's
/// outward normal at the contact, `point` a contact point on B.
CastResult ShapeCast(const DProxy& a, const DProxy& b, DVec2 translation, double max_fraction);

/// RayHitMargin of the shape cast (on B - A).
double ShapeCastHitMargin(const DProxy& a, const DProxy& b, DVec2 translation, double max_fraction);

/// Signed separation with the minimum translation: for separated shapes the
/// distance and the A-to-B normal; for overlapping ones minus the
/// penetration depth and the direction that moving B by `depth` along
/// separates them (moving B by normal * -separation leaves them touching).
struct Penetration {
  double separation = 0;  ///< negative when overlapping
  DVec2 normal;           ///< unit, from A toward B
  /// When the exit is through a face of B - A: how much shallower the next
  /// best face is (normals are only comparable when this is not tiny).
  double gap = kInfinity;
  /// When the normal is the direction between closest core points: their
  /// distance (a position error e turns the normal by about e / lever).
  double lever = kInfinity;
};

/// The distance from the origin to the boundary of B - A, with its direction.
Penetration SignedSeparation(const DProxy& a, const DProxy& b);

/// Penetration depth (the length of the minimum translation vector), zero
/// when separated.
inline double PenetrationDepth(const DProxy& a, const DProxy& b) {
  const double s = SignedSeparation(a, b).separation;
  return s < 0 ? -s : 0.0;
}

struct DManifoldPoint {
  DVec2 point;  ///< midway between the surfaces
  double separation = 0;
};

struct DManifold {
  DVec2 normal;  ///< from A toward B
  std::vector<DManifoldPoint> points;
};

/// A reference manifold: normal from SignedSeparation; the supporting
/// features of A (along the normal) and B (against it), their overlap along
/// the tangent clipped to at most two points; points whose separation
/// exceeds `speculative` are dropped.
DManifold Manifold(const DProxy& a, const DProxy& b, double speculative);

/// Mass properties per unit density of a rounded convex shape given in its
/// own frame (the same form as DProxy): exact, by splitting it into the core
/// polygon, one rectangle per edge and one circular sector per vertex.
struct DMass {
  double area = 0;
  DVec2 centroid;
  double inertia = 0;  ///< polar moment about the centroid
};
DMass ComputeMass(const DProxy& shape);

}  // namespace arbiter::reference
