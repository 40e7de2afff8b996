#include "arbiter/core/shapes.h"

#include <algorithm>

#include "arbiter/core/fixed_math.h"
#include "arbiter/core/proxy.h"

namespace arbiter {
namespace {

// A vertex closer than this to the line through its neighbours is rejected
// as collinear. Rotating a polygon rounds each vertex by at most one ulp
// (2^-32); a margin of 2^-16 units keeps every placed polygon strictly
// convex after that rounding, which the exact predicates rely on.
constexpr Fixed kMinVertexOffset = Fixed::FromRaw(int64_t{1} << 16);

bool InShapeRange(Fixed v) { return WithinMagnitude(v, kFixedMaxShapeExtent); }
bool InShapeRange(Vec2 v) { return InShapeRange(v.x) && InShapeRange(v.y); }

Fixed ToFixedSaturating(Int128 q64, bool* ok) {
  const Int128 rounded = q64.ShiftRightRound(Fixed::kFractionBits);
  if (!rounded.FitsInt64()) *ok = false;
  return Fixed::FromWide(rounded);
}

Fixed MulChecked(Fixed a, Fixed b, bool* ok) { return ToFixedSaturating(MulWide(a, b), ok); }

// Sums of saturated terms must saturate too: Fixed's + wraps, and a wrapped
// area or mass comes out negative while *ok still says representable.
Fixed AddChecked(Fixed a, Fixed b, bool* ok) {
  const Int128 sum = Int128(a.raw()) + Int128(b.raw());
  if (!sum.FitsInt64()) *ok = false;
  return Fixed::FromWide(sum);
}

}  // namespace

const char* ShapeTypeName(ShapeType type) {
  switch (type) {
    case ShapeType::kCircle: return "circle";
    case ShapeType::kCapsule: return "capsule";
    case ShapeType::kSegment: return "segment";
    case ShapeType::kPolygon: return "polygon";
    case ShapeType::kChainSegment: return "chain_segment";
  }
  return "shape";
}

const char* ShapeErrorMessage(ShapeError error) {
  switch (error) {
    case ShapeError::kOk: return "ok";
    case ShapeError::kTooFewVertices: return "fewer than 3 vertices";
    case ShapeError::kTooManyVertices: return "more than 8 vertices";
    case ShapeError::kOutOfRange: return "coordinate or radius beyond the shape range (2^24 units)";
    case ShapeError::kNegativeRadius: return "negative radius";
    case ShapeError::kZeroRadius: return "radius must be positive";
    case ShapeError::kDuplicateVertices: return "duplicate consecutive vertices";
    case ShapeError::kCollinearVertices: return "collinear (or nearly collinear) vertices";
    case ShapeError::kNotCounterClockwise: return "vertices are not counter-clockwise";
    case ShapeError::kNotConvex: return "not convex";
    case ShapeError::kDegenerateSegment: return "the two points coincide";
    case ShapeError::kNonPositiveExtent: return "half extent must be positive";
    case ShapeError::kTooFewChainPoints: return "a chain needs at least 2 points (3 for a loop)";
    case ShapeError::kTooManyChainPoints: return "more than 4096 chain points";
    case ShapeError::kDegenerateGhost: return "a ghost vertex coincides with its segment point";
  }
  return "unknown shape error";
}

ShapeError MakePolygon(std::span<const Vec2> points, Fixed radius, Polygon* out) {
  const int n = static_cast<int>(points.size());
  if (n < 3) return ShapeError::kTooFewVertices;
  if (n > kMaxPolygonVertices) return ShapeError::kTooManyVertices;
  if (radius < kFixedZero) return ShapeError::kNegativeRadius;
  if (!InShapeRange(radius)) return ShapeError::kOutOfRange;
  for (const Vec2& p : points) {
    if (!InShapeRange(p)) return ShapeError::kOutOfRange;
  }
  for (int i = 0; i < n; ++i) {
    if (points[i] == points[(i + 1) % n]) return ShapeError::kDuplicateVertices;
  }
  // Turn direction at every vertex, exactly.
  int left = 0, right = 0;
  for (int i = 0; i < n; ++i) {
    const Vec2 a = points[i], b = points[(i + 1) % n], c = points[(i + 2) % n];
    const Int128 turn = CrossWide(b - a, c - b);
    if (turn.IsZero()) return ShapeError::kCollinearVertices;
    (turn.IsNegative() ? right : left) += 1;
  }
  if (right == n) return ShapeError::kNotCounterClockwise;
  if (right > 0) return ShapeError::kNotConvex;
  // All left turns still allow a star that winds twice; strict convexity
  // means every vertex lies strictly left of every edge it is not on.
  for (int i = 0; i < n; ++i) {
    const Vec2 a = points[i], e = points[(i + 1) % n] - a;
    for (int j = 0; j < n; ++j) {
      if (j == i || j == (i + 1) % n) continue;
      if (CrossWide(e, points[j] - a).Sign() <= 0) return ShapeError::kNotConvex;
    }
  }
  // Nearly collinear: the middle vertex within kMinVertexOffset of the chord
  // of its neighbours, i.e. cross(c - a, b - a)^2 < offset^2 |c - a|^2.
  const Int128 min_offset2 = MulWide(kMinVertexOffset, kMinVertexOffset);
  for (int i = 0; i < n; ++i) {
    const Vec2 a = points[i], b = points[(i + 1) % n], c = points[(i + 2) % n];
    const Int128 cross = CrossWide(c - a, b - a);
    if (CompareProducts(cross, cross, min_offset2, LengthSquaredWide(c - a)) < 0) {
      return ShapeError::kCollinearVertices;
    }
  }

  Polygon polygon;
  polygon.count = n;
  polygon.radius = radius;
  for (int i = 0; i < n; ++i) {
    polygon.vertices[i] = points[i];
    polygon.normals[i] = Normalize(RightPerp(points[(i + 1) % n] - points[i]));
  }
  // Area-weighted centroid of the fan from vertex 0. Weights are 2 x
  // triangle areas (exact), scaled down together so sums fit in int64; a
  // common scale does not change a weighted mean.
  const Vec2 origin = points[0];
  Int128 weights[kMaxPolygonVertices];
  Int128 max_weight = 0;
  for (int i = 1; i + 1 < n; ++i) {
    weights[i] = CrossWide(points[i] - origin, points[i + 1] - origin);
    max_weight = std::max(max_weight, weights[i]);
  }
  int shift = 0;
  while (max_weight.ShiftRight(shift) >= Int128(int64_t{1} << 58)) ++shift;
  Int128 sum_x = 0, sum_y = 0;
  int64_t sum_w = 0;
  for (int i = 1; i + 1 < n; ++i) {
    const int64_t w = weights[i].ShiftRight(shift).ToInt64Wrapped();
    const Vec2 e1 = points[i] - origin, e2 = points[i + 1] - origin;
    sum_x += Int128::Mul(w, (e1.x + e2.x).raw());
    sum_y += Int128::Mul(w, (e1.y + e2.y).raw());
    sum_w += w;
  }
  polygon.centroid = origin + Vec2{Fixed::FromWide(DivRoundNearest(sum_x, 3 * sum_w)),
                                   Fixed::FromWide(DivRoundNearest(sum_y, 3 * sum_w))};
  *out = polygon;
  return ShapeError::kOk;
}

ShapeError MakeBox(Fixed half_width, Fixed half_height, Polygon* out) {
  return MakeOffsetBox(half_width, half_height, Vec2{}, kRotIdentity, out);
}

ShapeError MakeOffsetBox(Fixed half_width, Fixed half_height, Vec2 center, Rot rotation, Polygon* out) {
  if (half_width <= kFixedZero || half_height <= kFixedZero) return ShapeError::kNonPositiveExtent;
  if (!InShapeRange(half_width) || !InShapeRange(half_height) || !InShapeRange(center)) {
    return ShapeError::kOutOfRange;
  }
  const Transform xf{center, rotation};
  const Vec2 corners[4] = {
      TransformPoint(xf, {-half_width, -half_height}),
      TransformPoint(xf, {half_width, -half_height}),
      TransformPoint(xf, {half_width, half_height}),
      TransformPoint(xf, {-half_width, half_height}),
  };
  return MakePolygon(corners, kFixedZero, out);
}

ShapeError ValidateCircle(const Circle& circle) {
  if (circle.radius < kFixedZero) return ShapeError::kNegativeRadius;
  if (circle.radius == kFixedZero) return ShapeError::kZeroRadius;
  if (!InShapeRange(circle.radius) || !InShapeRange(circle.center)) return ShapeError::kOutOfRange;
  return ShapeError::kOk;
}

ShapeError ValidateCapsule(const Capsule& capsule) {
  if (capsule.radius < kFixedZero) return ShapeError::kNegativeRadius;
  if (capsule.radius == kFixedZero) return ShapeError::kZeroRadius;
  if (!InShapeRange(capsule.radius) || !InShapeRange(capsule.center1) || !InShapeRange(capsule.center2)) {
    return ShapeError::kOutOfRange;
  }
  if (capsule.center1 == capsule.center2) return ShapeError::kDegenerateSegment;
  return ShapeError::kOk;
}

ShapeError ValidateSegment(const Segment& segment) {
  if (!InShapeRange(segment.point1) || !InShapeRange(segment.point2)) return ShapeError::kOutOfRange;
  if (segment.point1 == segment.point2) return ShapeError::kDegenerateSegment;
  return ShapeError::kOk;
}

ShapeError ValidateChainSegment(const ChainSegment& c) {
  if (!InShapeRange(c.ghost1) || !InShapeRange(c.point1) || !InShapeRange(c.point2) || !InShapeRange(c.ghost2)) {
    return ShapeError::kOutOfRange;
  }
  if (c.point1 == c.point2) return ShapeError::kDegenerateSegment;
  if (c.ghost1 == c.point1 || c.ghost2 == c.point2) return ShapeError::kDegenerateGhost;
  return ShapeError::kOk;
}

ShapeError ValidatePolygon(const Polygon& polygon) {
  if (polygon.count < 3) return ShapeError::kTooFewVertices;
  if (polygon.count > kMaxPolygonVertices) return ShapeError::kTooManyVertices;
  Polygon rebuilt;
  const ShapeError error = MakePolygon(std::span<const Vec2>(polygon.vertices.data(), polygon.count), polygon.radius, &rebuilt);
  if (error != ShapeError::kOk) return error;
  // Derived fields must be the ones MakePolygon computes.
  if (rebuilt.centroid != polygon.centroid) return ShapeError::kNotConvex;
  for (int i = 0; i < polygon.count; ++i) {
    if (rebuilt.normals[i] != polygon.normals[i]) return ShapeError::kNotConvex;
  }
  return ShapeError::kOk;
}

ShapeError ValidateShape(const Shape& shape) {
  switch (shape.type) {
    case ShapeType::kCircle: return ValidateCircle(shape.circle);
    case ShapeType::kCapsule: return ValidateCapsule(shape.capsule);
    case ShapeType::kSegment: return ValidateSegment(shape.segment);
    case ShapeType::kPolygon: return ValidatePolygon(shape.polygon);
    case ShapeType::kChainSegment: return ValidateChainSegment(shape.chain_segment);
  }
  return ShapeError::kNotConvex;
}

Aabb ComputeAabb(const Shape& shape, const Transform& xf) { return ComputeProxyAabb(MakeProxy(shape, xf)); }

Fixed ComputeArea(const Shape& shape) {
  bool ok = true;
  switch (shape.type) {
    case ShapeType::kCircle: return MulChecked(kFixedPi, MulChecked(shape.circle.radius, shape.circle.radius, &ok), &ok);
    case ShapeType::kCapsule: {
      const Fixed r = shape.capsule.radius;
      const Fixed length = Distance(shape.capsule.center1, shape.capsule.center2);
      return AddChecked(MulChecked(kFixedPi, MulChecked(r, r, &ok), &ok), MulChecked(r.ShiftLeft(1), length, &ok), &ok);
    }
    case ShapeType::kSegment:
    case ShapeType::kChainSegment: return kFixedZero;
    case ShapeType::kPolygon: {
      const Polygon& p = shape.polygon;
      Int128 twice_area = 0;
      for (int i = 1; i + 1 < p.count; ++i) {
        twice_area += CrossWide(p.vertices[i] - p.vertices[0], p.vertices[i + 1] - p.vertices[0]);
      }
      return ToFixedSaturating(twice_area.ShiftRight(1), &ok);
    }
  }
  return kFixedZero;
}

MassData ComputeMass(const Shape& shape, Fixed density) {
  MassData md;
  bool ok = true;
  switch (shape.type) {
    case ShapeType::kCircle: {
      const Fixed r2 = MulChecked(shape.circle.radius, shape.circle.radius, &ok);
      md.mass = MulChecked(density, MulChecked(kFixedPi, r2, &ok), &ok);
      md.center = shape.circle.center;
      md.rotational_inertia = MulChecked(md.mass, r2, &ok).Half();
      break;
    }
    case ShapeType::kCapsule: {
      // A box 2r x L plus two half disks. Each half disk's centroid sits
      // lc = 4r / (3 pi) beyond its end of the segment; the parallel-axis
      // theorem moves each half disk's inertia (r^2/2 - lc^2 about its own
      // centroid, per unit mass) out to h + lc from the centre:
      // I_half = m (r^2/2 - lc^2 + (h + lc)^2) = m (r^2/2 + h^2 + 2 h lc).
      const Capsule& c = shape.capsule;
      const Fixed r = c.radius;
      const Fixed length = Distance(c.center1, c.center2);
      const Fixed h = length.Half();
      const Fixed r2 = MulChecked(r, r, &ok);
      const Fixed disk_mass = MulChecked(density, MulChecked(kFixedPi, r2, &ok), &ok);
      const Fixed box_mass = MulChecked(density, MulChecked(r.ShiftLeft(1), length, &ok), &ok);
      const Fixed lc = Fixed::FromRatio(4, 3) * r / kFixedPi;
      const Fixed disk_spread = AddChecked(AddChecked(r2.Half(), MulChecked(h, h, &ok), &ok), MulChecked(h.ShiftLeft(1), lc, &ok), &ok);
      const Fixed disk_inertia = MulChecked(disk_mass, disk_spread, &ok);
      const Fixed box_spread = AddChecked(MulChecked(r2, Fixed::FromInt(4), &ok), MulChecked(length, length, &ok), &ok);
      const Fixed box_inertia = MulChecked(box_mass, box_spread, &ok) / Fixed::FromInt(12);
      md.mass = AddChecked(disk_mass, box_mass, &ok);
      md.center = {(c.center1.x + c.center2.x).Half(), (c.center1.y + c.center2.y).Half()};
      md.rotational_inertia = AddChecked(disk_inertia, box_inertia, &ok);
      break;
    }
    case ShapeType::kSegment:
      md.center = {(shape.segment.point1.x + shape.segment.point2.x).Half(),
                   (shape.segment.point1.y + shape.segment.point2.y).Half()};
      break;
    case ShapeType::kChainSegment:
      md.center = {(shape.chain_segment.point1.x + shape.chain_segment.point2.x).Half(),
                   (shape.chain_segment.point1.y + shape.chain_segment.point2.y).Half()};
      break;
    case ShapeType::kPolygon: {
      // Fan of triangles (centroid, v_i, v_i+1). For a triangle with edge
      // vectors e1, e2 from the pivot, the polar moment about the pivot is
      // (D / 12) (e1.e1 + e1.e2 + e2.e2) with D = cross(e1, e2) = 2 x area.
      // The rounding radius is not included (documented in shapes.h).
      const Polygon& p = shape.polygon;
      Int128 twice_area = 0;
      Int128 inertia_times_12 = 0;  // Q64.64 of sum D (e1.e1 + e1.e2 + e2.e2), per unit density
      for (int i = 0; i < p.count; ++i) {
        const Vec2 e1 = p.vertices[i] - p.centroid;
        const Vec2 e2 = p.vertices[(i + 1) % p.count] - p.centroid;
        const Int128 d = CrossWide(e1, e2);
        twice_area += d;
        const Fixed d_fixed = ToFixedSaturating(d, &ok);
        const Fixed spread = ToFixedSaturating(DotWide(e1, e1) + DotWide(e1, e2) + DotWide(e2, e2), &ok);
        inertia_times_12 += MulWide(d_fixed, spread);
      }
      const Fixed area = ToFixedSaturating(twice_area.ShiftRight(1), &ok);
      const Fixed inertia = ToFixedSaturating(DivRoundNearest(inertia_times_12, 12), &ok);
      md.mass = MulChecked(density, area, &ok);
      md.center = p.centroid;
      md.rotational_inertia = MulChecked(density, inertia, &ok);
      break;
    }
  }
  md.representable = ok;
  return md;
}

}  // namespace arbiter
