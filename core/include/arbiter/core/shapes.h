// File: shapes.h
//
// The shape types of the core and their construction, bounds and mass.
// Shapes are defined in their body's local frame. Construction validates and
// rejects bad input with a reason; it never "fixes" a shape silently.
//
// Ranges (limits.h): every local coordinate and radius is limited to |v| <= kMaxShapeExtent
// (2^24 units). Together with kMaxWorldCoordinate (2^29) for body positions,
// every world-space point of a shape stays below 2^29 + 2^25 units in
// magnitude, and every difference of two such points below 2^31 units, so
// exact products (Q64.64) of differences stay below 2^126.
#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "arbiter/core/limits.h"
#include "arbiter/core/math.h"

namespace arbiter {

/// Most vertices a polygon may have.
constexpr int kMaxPolygonVertices = 8;

/// A disk.
struct Circle {
  Vec2 center;
  Fixed radius;
};

/// The segment center1-center2 swept by a disk of `radius`.
struct Capsule {
  Vec2 center1;
  Vec2 center2;
  Fixed radius;
};

/// A line segment (no thickness).
struct Segment {
  Vec2 point1;
  Vec2 point2;
};

/// One segment of a chain (see MakeChain): the segment point1-point2 plus
/// its neighbours' far ends, the ghost vertices (Box2D v3's b2ChainSegment).
///
/// Side convention: a chain segment collides only from its RIGHT side, the
/// side of its normal RightPerp(point2 - point1) (Box2D's convention). With
/// y up, the normal of a segment running left to right points down, so a
/// floor runs right to left. A counter-clockwise
/// loop thus faces outward (a solid island), a clockwise loop inward (a
/// cave). The ghosts never collide: they only tell the narrow phase which
/// contact normals belong to this segment and which to its neighbours, so
/// a body sliding across a joint meets no edge of the next segment (the
/// "ghost collisions" of Box2D; Catto, box2d.org/posts/2020/06).
struct ChainSegment {
  Vec2 ghost1;  ///< the previous point of the chain (or a ghost at an open end, see MakeChain)
  Vec2 point1;
  Vec2 point2;
  Vec2 ghost2;  ///< the next point of the chain (or a ghost at an open end)
};

/// A strictly convex polygon, counter-clockwise, with an optional rounding
/// radius. Build one with MakePolygon or MakeBox: they fill the normals and
/// centroid and validate the vertices.
struct Polygon {
  std::array<Vec2, kMaxPolygonVertices> vertices{};
  /// Outward unit normal of edge i (vertices[i] to vertices[i + 1]).
  std::array<Vec2, kMaxPolygonVertices> normals{};
  Vec2 centroid;
  Fixed radius;
  int32_t count = 0;
};

enum class ShapeType : uint8_t { kCircle = 0, kCapsule = 1, kSegment = 2, kPolygon = 3, kChainSegment = 4 };

/// Any one shape. Exactly the member named by `type` is meaningful.
struct Shape {
  ShapeType type = ShapeType::kCircle;
  Circle circle{};
  Capsule capsule{};
  Segment segment{};
  Polygon polygon{};
  ChainSegment chain_segment{};

  static Shape FromCircle(const Circle& c) { Shape s; s.type = ShapeType::kCircle; s.circle = c; return s; }
  static Shape FromCapsule(const Capsule& c) { Shape s; s.type = ShapeType::kCapsule; s.capsule = c; return s; }
  static Shape FromSegment(const Segment& g) { Shape s; s.type = ShapeType::kSegment; s.segment = g; return s; }
  static Shape FromPolygon(const Polygon& p) { Shape s; s.type = ShapeType::kPolygon; s.polygon = p; return s; }
  static Shape FromChainSegment(const ChainSegment& c) { Shape s; s.type = ShapeType::kChainSegment; s.chain_segment = c; return s; }
};

/// Why a shape was rejected.
enum class ShapeError : uint8_t {
  kOk = 0,
  kTooFewVertices,      ///< a polygon needs at least 3 vertices
  kTooManyVertices,     ///< more than kMaxPolygonVertices
  kOutOfRange,          ///< a coordinate or radius exceeds kMaxShapeExtent
  kNegativeRadius,      ///< radius < 0
  kZeroRadius,          ///< a circle or capsule needs radius > 0
  kDuplicateVertices,   ///< two consecutive vertices coincide (degenerate edge)
  kCollinearVertices,   ///< three consecutive vertices on one line
  kNotCounterClockwise, ///< vertices wind clockwise
  kNotConvex,           ///< a reflex vertex, or the boundary crosses itself
  kDegenerateSegment,   ///< a segment or capsule whose two points coincide
  kNonPositiveExtent,   ///< a box half extent <= 0
  kTooFewChainPoints,   ///< an open chain needs 2 points, a loop 3
  kTooManyChainPoints,  ///< more than kMaxChainPoints
  kDegenerateGhost,     ///< a chain segment's ghost coincides with its point
};

/// A short, stable, human-readable reason (e.g. "not convex").
const char* ShapeErrorMessage(ShapeError error);

/// "circle", "capsule", "segment", "polygon", "chain_segment" (the wire's
/// and the scene format's field names); "shape" for a value outside the enum.
const char* ShapeTypeName(ShapeType type);

/// Validates `points` (counter-clockwise, strictly convex, 3..8 vertices,
/// no duplicate or collinear neighbours, in range) and fills *out. On error
/// *out is left untouched. All checks are exact.
ShapeError MakePolygon(std::span<const Vec2> points, Fixed radius, Polygon* out);

/// An axis-aligned box centred on the body origin.
ShapeError MakeBox(Fixed half_width, Fixed half_height, Polygon* out);
/// A box centred at `center`, rotated by `rotation`, in the body's frame.
ShapeError MakeOffsetBox(Fixed half_width, Fixed half_height, Vec2 center, Rot rotation, Polygon* out);

/// Range and validity checks for the other shapes.
ShapeError ValidateCircle(const Circle& circle);
ShapeError ValidateCapsule(const Capsule& capsule);
ShapeError ValidateSegment(const Segment& segment);
/// All four points in range, point1 != point2, each ghost apart from its point.
ShapeError ValidateChainSegment(const ChainSegment& segment);
/// Re-checks a polygon that did not come from MakePolygon (e.g. restored bytes).
ShapeError ValidatePolygon(const Polygon& polygon);
ShapeError ValidateShape(const Shape& shape);

/// The bounding box of the shape placed at `xf`. It bounds exactly the
/// world-space geometry the narrow phase tests (see proxy.h).
Aabb ComputeAabb(const Shape& shape, const Transform& xf);

/// Mass properties in the body frame. Rotational inertia is about the
/// centroid. Values that exceed the Fixed range saturate; `representable`
/// says whether they did not (dynamic bodies require it).
struct MassData {
  Fixed mass;
  Vec2 center;
  Fixed rotational_inertia;
  bool representable = true;
};

/// The shape's area (zero for segments and chain segments).
Fixed ComputeArea(const Shape& shape);
/// Mass properties for a uniform `density` (mass per unit area). A
/// polygon's rounding radius is not included: its mass is the core's.
MassData ComputeMass(const Shape& shape, Fixed density);

}  // namespace arbiter
