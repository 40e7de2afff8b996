#include "arbiter/core/collision.h"

#include <array>
#include <bit>

#include "arbiter/core/chain.h"
#include "arbiter/core/fixed_math.h"
#include "arbiter/core/hull.h"
#include "collision_internal.h"
#include "proxy_view.h"

namespace arbiter {

using internal::ProxyView;
using internal::RayFrame;
using internal::ViewOf;

namespace {

// A convex core of any size (proxies hold 8 points, Minkowski differences
// up to 16) plus its rounding radius.
struct Core {
  const Vec2* points;
  int count;
  Fixed radius;
};

Core CoreOf(const ProxyView& v) { return {v.points, v.count, v.radius}; }
Core CoreOf(const ShapeProxy& p) { return CoreOf(ViewOf(p)); }

// Edges used for distance and intersection: a point has one degenerate edge,
// a segment one edge, a polygon `count` edges.
int EdgeCount(const Core& c) { return c.count >= 3 ? c.count : 1; }
Vec2 EdgeStart(const Core& c, int i) { return c.points[i]; }
Vec2 EdgeEnd(const Core& c, int i) { return c.count == 1 ? c.points[0] : c.points[(i + 1) % c.count]; }

int Orientation(Vec2 o, Vec2 a, Vec2 b) { return CrossWide(a - o, b - o).Sign(); }

// For p collinear with a-b: does p lie within the segment's bounding box?
bool OnSegmentCollinear(Vec2 a, Vec2 b, Vec2 p) {
  return Min(a.x, b.x) <= p.x && p.x <= Max(a.x, b.x) && Min(a.y, b.y) <= p.y && p.y <= Max(a.y, b.y);
}

// Exact segment intersection, endpoints and degenerate segments included.
bool SegmentsIntersect(Vec2 a, Vec2 b, Vec2 c, Vec2 d) {
  const int o1 = Orientation(a, b, c), o2 = Orientation(a, b, d);
  const int o3 = Orientation(c, d, a), o4 = Orientation(c, d, b);
  if (o1 * o2 < 0 && o3 * o4 < 0) return true;
  if (o1 == 0 && OnSegmentCollinear(a, b, c)) return true;
  if (o2 == 0 && OnSegmentCollinear(a, b, d)) return true;
  if (o3 == 0 && OnSegmentCollinear(c, d, a)) return true;
  if (o4 == 0 && OnSegmentCollinear(c, d, b)) return true;
  return false;
}

// Exact: is dist(p, segment a-b) <= r? Inside the segment's span the test
// is cross(e, w)^2 <= r^2 |e|^2, a 250-bit comparison (CompareProducts).
bool PointWithinSegment(Vec2 p, Vec2 a, Vec2 b, Fixed r) {
  const Int128 r2 = MulWide(r, r);
  const Vec2 e = b - a, w = p - a;
  const Int128 along = DotWide(w, e);
  if (along.Sign() <= 0) return LengthSquaredWide(w) <= r2;
  const Int128 len2 = LengthSquaredWide(e);
  if (along >= len2) return LengthSquaredWide(p - b) <= r2;
  const Int128 cross = CrossWide(e, w);
  return CompareProducts(cross, cross, r2, len2) <= 0;
}

// Exact: p inside or on a polygon core (count >= 3, CCW).
bool PolygonCoreContains(const Core& c, Vec2 p) {
  for (int i = 0; i < c.count; ++i) {
    const Vec2 a = c.points[i], b = c.points[(i + 1) % c.count];
    if (CrossWide(b - a, p - a).IsNegative()) return false;
  }
  return true;
}

// Exact: is p farther than r (>= 0) from the box [lo, hi]? Each gap is a
// difference of two world-space coordinates, below 2^31 units (limits.h), so
// its square is below 2^126 and the sum of two below 2^127. A gap above r
// alone decides it (its square already exceeds r^2), without a product:
// most candidates of a query are that far.
bool FartherFromBox(Vec2 p, Vec2 lo, Vec2 hi, Fixed r) {
  const Fixed dx = p.x < lo.x ? lo.x - p.x : (p.x > hi.x ? p.x - hi.x : kFixedZero);
  const Fixed dy = p.y < lo.y ? lo.y - p.y : (p.y > hi.y ? p.y - hi.y : kFixedZero);
  if (dx > r || dy > r) return true;
  return MulWide(dx, dx) + MulWide(dy, dy) > MulWide(r, r);
}

// Exact: is p within r of the core (inside a polygon core, or within r of
// one of its edges)? The answer of the plain definition
//     (count >= 3 && PolygonCoreContains) || some edge PointWithinSegment(r),
// with two shortcuts that cannot change it, both because a core is convex
// (proxy.h; placed polygons stay strictly convex after rounding, shapes.cc):
// a convex core and its edges lie in the box of its points, so a point
// farther than r from that box is neither inside nor within r of an edge;
// and with r = 0 a point on an edge of a convex polygon is inside it, so the
// edge loop could only repeat PolygonCoreContains's answer.
bool CoreWithin(const Core& c, Vec2 p, Fixed r) {
  if (c.count >= 2) {
    Vec2 lo = c.points[0], hi = lo;
    for (int i = 1; i < c.count; ++i) {
      lo = {Min(lo.x, c.points[i].x), Min(lo.y, c.points[i].y)};
      hi = {Max(hi.x, c.points[i].x), Max(hi.y, c.points[i].y)};
    }
    if (FartherFromBox(p, lo, hi, r)) return false;
  }
  if (c.count >= 3) {
    if (PolygonCoreContains(c, p)) return true;
    if (r == kFixedZero) return false;
  }
  for (int i = 0; i < EdgeCount(c); ++i) {
    if (PointWithinSegment(p, EdgeStart(c, i), EdgeEnd(c, i), r)) return true;
  }
  return false;
}

bool CoreContainsPoint(const Core& c, Vec2 p) { return CoreWithin(c, p, c.radius); }

// A point the two cores share, when they intersect (exact decision).
bool CoresIntersect(const Core& a, const Core& b, Vec2* witness) {
  if (a.count >= 3) {
    for (int i = 0; i < b.count; ++i) {
      if (PolygonCoreContains(a, b.points[i])) {
        *witness = b.points[i];
        return true;
      }
    }
  }
  if (b.count >= 3) {
    for (int i = 0; i < a.count; ++i) {
      if (PolygonCoreContains(b, a.points[i])) {
        *witness = a.points[i];
        return true;
      }
    }
  }
  for (int i = 0; i < EdgeCount(a); ++i) {
    const Vec2 p = EdgeStart(a, i), q = EdgeEnd(a, i);
    for (int j = 0; j < EdgeCount(b); ++j) {
      const Vec2 r = EdgeStart(b, j), s = EdgeEnd(b, j);
      if (!SegmentsIntersect(p, q, r, s)) continue;
      // Crossing point p + t (q - p), t = cross(r - p, s - r) / cross(q - p, s - r);
      // collinear overlaps share an endpoint of one segment with the other.
      const Int128 den = CrossWide(q - p, s - r);
      if (!den.IsZero()) {
        *witness = MulAdd(p, RatioWide(CrossWide(r - p, s - r), den), q - p);
      } else if (OnSegmentCollinear(r, s, p)) {
        *witness = p;
      } else if (OnSegmentCollinear(r, s, q)) {
        *witness = q;
      } else {
        *witness = r;
      }
      return true;
    }
  }
  return false;
}

bool AabbsOverlap(const ProxyView& a, const ProxyView& b) {
  return Overlaps(internal::ViewAabb(a), internal::ViewAabb(b));
}

// TestOverlapCores for cores CoresIntersect has already called disjoint.
bool RoundingsOverlap(const Core& a, const Core& b) {
  // Disjoint convex sets are closest at a vertex of one and an edge of the
  // other, so the rounded shapes touch exactly when some vertex lies within
  // ra + rb of some edge.
  const Fixed r = a.radius + b.radius;
  if (r == kFixedZero) return false;
  for (int i = 0; i < a.count; ++i) {
    for (int j = 0; j < EdgeCount(b); ++j) {
      if (PointWithinSegment(a.points[i], EdgeStart(b, j), EdgeEnd(b, j), r)) return true;
    }
  }
  for (int i = 0; i < b.count; ++i) {
    for (int j = 0; j < EdgeCount(a); ++j) {
      if (PointWithinSegment(b.points[i], EdgeStart(a, j), EdgeEnd(a, j), r)) return true;
    }
  }
  return false;
}

bool TestOverlapCores(const Core& a, const Core& b) {
  Vec2 witness;
  if (CoresIntersect(a, b, &witness)) return true;
  return RoundingsOverlap(a, b);
}

// Where p projects on segment a-b, and how far it is from it. Inside the
// span the distance is |cross(e, w)| / |e| (one rounding of the quotient
// and |e|), not the length of p minus a rounded foot point, whose rounding
// would dominate when p is close to the segment and misrank candidates.
struct Projection {
  Vec2 foot;
  Int128 distance2;  // squared distance, Q64.64 (exact at an endpoint)
  bool interior;     // the foot is inside the span (the direction is the edge normal)
  Int128 cross;      // interior only: distance^2 = cross^2 / edge_length2, exactly
  Int128 edge_length2;
};

// Is candidate p strictly closer than q? Exact whenever an endpoint is
// involved (d^2 = cross^2 / |e|^2 against an exact |w|^2 is a 250-bit
// comparison); two interior feet compare their precise rounded distances.
bool Closer(const Projection& p, const Projection& q) {
  if (p.interior && !q.interior) return CompareProducts(p.cross, p.cross, q.distance2, p.edge_length2) < 0;
  if (!p.interior && q.interior) return CompareProducts(p.distance2, q.edge_length2, q.cross, q.cross) < 0;
  return p.distance2 < q.distance2;
}

// An edge scaled by 2^shift to ~61 significant bits, with its length in
// the same scale: |e| then carries no rounding worth mentioning even for an
// edge a few ulp long.
struct ScaledEdge {
  int64_t x = 0;
  int64_t y = 0;
  int64_t length = 0;  // round(|e| 2^shift), in raw units
  int shift = 0;
};

ScaledEdge ScaleEdge(Vec2 e) {
  const uint64_t ex = static_cast<uint64_t>(e.x.raw() < 0 ? -e.x.raw() : e.x.raw());
  const uint64_t ey = static_cast<uint64_t>(e.y.raw() < 0 ? -e.y.raw() : e.y.raw());
  const int width = 64 - std::countl_zero(ex > ey ? ex : ey);
  ScaledEdge se;
  se.shift = width < 61 ? 61 - width : 0;
  se.x = static_cast<int64_t>(static_cast<uint64_t>(e.x.raw()) << se.shift);
  se.y = static_cast<int64_t>(static_cast<uint64_t>(e.y.raw()) << se.shift);
  if (ex == 0 || ey == 0) {
    // An axis-aligned edge (every edge of an unrotated box): the sum of
    // squares is the square of the one magnitude m, whose correctly
    // rounded root is m itself; no square root needed.
    se.length = static_cast<int64_t>((ex | ey) << se.shift);
    return se;
  }
  se.length = static_cast<int64_t>(ISqrtRound(Int128::Mul(se.x, se.x) + Int128::Mul(se.y, se.y)));
  return se;
}

Projection ProjectOnSegment(Vec2 p, Vec2 a, Vec2 b) {
  const Vec2 e = b - a;
  const Vec2 w = p - a;
  const Int128 along = DotWide(w, e);
  if (along.Sign() <= 0) return {a, LengthSquaredWide(w), false, 0, 0};
  const Int128 len2 = LengthSquaredWide(e);
  if (along >= len2) return {b, LengthSquaredWide(p - b), false, 0, 0};
  // The scale of ScaledEdge cancels in the quotient.
  const ScaledEdge se = ScaleEdge(e);
  const Int128 scaled_cross = Int128::Mul(se.x, w.y.raw()) - Int128::Mul(se.y, w.x.raw());
  const Fixed perpendicular = Fixed::FromWide(DivRoundNearest(scaled_cross.Abs(), se.length));
  return {MulAdd(a, RatioWide(along, len2), e), MulWide(perpendicular, perpendicular), true, CrossWide(e, w), len2};
}

struct ClosestPair {
  Vec2 on_a;
  Vec2 on_b;
  Projection how;  // the winning candidate
  Vec2 edge;       // the edge whose interior holds the foot point; zero otherwise
};

// PointWithinSegment(p, a, b, r) from ProjectOnSegment(p, a, b): the same
// products, compared the same way (r2 = r^2, wide).
bool ProjectionWithin(const Projection& q, const Int128& r2) {
  return q.interior ? CompareProducts(q.cross, q.cross, r2, q.edge_length2) <= 0 : q.distance2 <= r2;
}

// Brute force over vertex-edge pairs, A's vertices first; the first minimum
// wins, so ties resolve the same way every time. When one core is a single
// point (A's first) and `within` is given, *within tells whether that point
// lies within `r` of an edge of the other core, from the projections the
// search makes anyway (CoreWithin's edge loop, same edges, same products).
ClosestPair ClosestCorePoints(const Core& a, const Core& b, Fixed r = kFixedZero, bool* within = nullptr) {
  ClosestPair best{a.points[0], b.points[0], {b.points[0], LengthSquaredWide(b.points[0] - a.points[0]), false, 0, 0}, {}};
  const Int128 r2 = MulWide(r, r);
  bool near = false;
  for (int i = 0; i < a.count; ++i) {
    for (int j = 0; j < EdgeCount(b); ++j) {
      const Projection q = ProjectOnSegment(a.points[i], EdgeStart(b, j), EdgeEnd(b, j));
      if (a.count == 1 && within != nullptr && !near) near = ProjectionWithin(q, r2);
      if (Closer(q, best.how)) best = {a.points[i], q.foot, q, q.interior ? EdgeEnd(b, j) - EdgeStart(b, j) : Vec2{}};
    }
  }
  for (int i = 0; i < b.count; ++i) {
    for (int j = 0; j < EdgeCount(a); ++j) {
      const Projection q = ProjectOnSegment(b.points[i], EdgeStart(a, j), EdgeEnd(a, j));
      if (a.count != 1 && within != nullptr && !near) near = ProjectionWithin(q, r2);
      if (Closer(q, best.how)) best = {q.foot, b.points[i], q, q.interior ? EdgeEnd(a, j) - EdgeStart(a, j) : Vec2{}};
    }
  }
  if (within != nullptr) *within = near;
  return best;
}

// CoresIntersect and TestOverlapCores for a pair of which one core is a
// single point c (every disk, so every disk sweep's contact point): the
// cores meet exactly when c lies in the other core, and then the witness
// CoresIntersect finds is c itself (its crossing of c's degenerate edge with
// an edge of the other core is collinear, and falls back to c); the rounded
// shapes overlap exactly when c lies within ra + rb of it (TestOverlap).
struct PointPair {
  bool is_point_pair = false;
  Vec2 point;
  const Core* other = nullptr;
};

PointPair AsPointPair(const Core& a, const Core& b) {
  if (a.count == 1) return {true, a.points[0], &b};
  if (b.count == 1) return {true, b.points[0], &a};
  return {};
}

DistanceOutput DistanceCores(const Core& a, const Core& b) {
  DistanceOutput out;
  const PointPair point_pair = AsPointPair(a, b);
  Vec2 witness;
  const bool cores_meet = point_pair.is_point_pair ? CoreWithin(*point_pair.other, point_pair.point, kFixedZero)
                                                   : CoresIntersect(a, b, &witness);
  if (cores_meet) {
    out.point_a = out.point_b = point_pair.is_point_pair ? point_pair.point : witness;
    return out;
  }
  // For a point pair, whether the point lies within ra + rb of the other
  // core: CoreWithin(other, point, ra + rb) once the cores are known apart
  // (the point is then not inside the other core, and that call's box test
  // only skips edges that could not pass), found during the search.
  bool point_within = false;
  const ClosestPair pair =
      ClosestCorePoints(a, b, a.radius + b.radius, point_pair.is_point_pair ? &point_within : nullptr);
  Fixed core_distance;
  Vec2 n;
  if (pair.edge != Vec2{}) {
    // Vertex against the inside of an edge: the direction is exactly the
    // edge's normal, free of the foot point's rounding.
    const Vec2 edge_normal = Normalize(RightPerp(pair.edge));
    n = DotWide(edge_normal, pair.on_b - pair.on_a).Sign() >= 0 ? edge_normal : -edge_normal;
    core_distance = Fixed::FromRaw(static_cast<int64_t>(ISqrtRound(pair.how.distance2)));
  } else {
    n = GetLengthAndNormalize(&core_distance, pair.on_b - pair.on_a);
  }
  // TestOverlapCores(a, b) otherwise, whose first half (CoresIntersect)
  // said no above.
  const bool rounded_overlap = point_pair.is_point_pair ? point_within : RoundingsOverlap(a, b);
  if (rounded_overlap) {
    // Rounded shapes overlap although their cores do not. On the line
    // through the closest core points (on_a at s = 0, on_b at s = d), the
    // points within ra of on_a and within rb of on_b, both disks inside
    // their shapes, are s in [max(-ra, d - rb), min(ra, d + rb)]: report
    // the middle of that stretch, inside both shapes. (The middle of the
    // two surface points, used before, is the same point unless one disk
    // contains the other, and then lies outside the smaller one.)
    const Fixed low = Max(-a.radius, core_distance - b.radius);
    const Fixed high = Min(a.radius, core_distance + b.radius);
    out.point_a = out.point_b = MulAdd(pair.on_a, (low + high).Half(), n);
    return out;
  }
  const Vec2 surface_a = MulAdd(pair.on_a, a.radius, n);
  const Vec2 surface_b = MulAdd(pair.on_b, -b.radius, n);
  out.point_a = surface_a;
  out.point_b = surface_b;
  out.normal = n;
  // Exact overlap said no, so the true distance is positive; keep at least
  // one ulp so that "distance == 0" and "overlap" never disagree.
  out.distance = Max(core_distance - a.radius - b.radius, Fixed::FromRaw(1));
  return out;
}

// A ray-circle hit, Box2D style: the closest approach to the centre first,
// so that nothing cancels catastrophically.
// Sets *fraction and *along (the distance to the entry point); the normal
// is left to the caller, which needs it for the nearest circle only.
bool RayCastCircle(Vec2 center, Fixed radius, const RayCastInput& in, const RayFrame& frame, Fixed* fraction_out,
                   Fixed* along_out) {
  const Fixed length = frame.length();
  const Vec2 dir = frame.dir();
  const Vec2 s = in.origin - center;
  const Fixed t = -Dot(s, dir);
  const Vec2 closest = MulAdd(s, t, dir);
  const Int128 cc = LengthSquaredWide(closest);
  const Int128 rr = MulWide(radius, radius);
  if (cc > rr) return false;
  const Fixed h = Fixed::FromRaw(static_cast<int64_t>(ISqrtRound(rr - cc)));
  // Both crossings behind the origin: the circle is behind the ray. The
  // origin is outside, so a slightly negative t - h is rounding at contact.
  if (t + h < kFixedZero) return false;
  const Fixed along = Max(t - h, kFixedZero);
  const Fixed fraction = along / length;
  if (fraction > in.max_fraction) return false;
  *fraction_out = fraction;
  *along_out = along;
  return true;
}

// The first hit among the circles of radius c.radius around c's points (the
// first such circle on a tie). Point and normal are those of that circle's
// hit, computed for it alone.
CastOutput NearestCircleHit(const Core& c, const RayCastInput& in, const RayFrame& frame) {
  CastOutput best;
  int best_index = -1;
  Fixed best_along;
  for (int i = 0; i < c.count; ++i) {
    Fixed fraction, along;
    if (RayCastCircle(c.points[i], c.radius, in, frame, &fraction, &along) && (!best.hit || fraction < best.fraction)) {
      best.fraction = fraction;
      best.hit = true;
      best_index = i;
      best_along = along;
    }
  }
  if (best.hit) {
    best.point = MulAdd(in.origin, best.fraction, in.translation);
    // For a circle of a few ulp the rounded entry point can land on the
    // centre, which has no direction: the ray then meets it head-on, and
    // the normal is the ray's reverse (fuzz_narrow's zero normal).
    const Vec2 offset = MulAdd(in.origin - c.points[best_index], best_along, frame.dir());
    best.normal = offset == Vec2{} ? -frame.dir() : Normalize(offset);
  }
  return best;
}

// r |e| in the unit of DotWide (raw x raw). Rounding |e| to the ulp first
// would misplace the rounded face of a short edge by up to r / (2 |e|)
// ulp, thousands of units for an edge a few ulp long next to a large
// radius; so |e| is taken at ~61 significant bits (as in ProjectOnSegment)
// and the scale divided out after the product.
Int128 RadiusTimesLength(Fixed r, Vec2 e) {
  const ScaledEdge se = ScaleEdge(e);
  // r <= 2^57 raw (a Minkowski sum of two radii within 2^24 units) and the
  // scaled length < 2^62: the product fits in 127 bits.
  const Int128 product = Int128::Mul(r.raw(), se.length);
  return se.shift == 0 ? product : product.ShiftRightRound(se.shift);
}

// Face i of a core with two or more points runs from FaceStart along
// FaceEdge; its outward normal is RightPerp of the edge. A segment has two
// faces, one each way.
Vec2 FaceStart(const Core& c, int i) { return c.points[i]; }
Vec2 FaceEdge(const Core& c, int i) {
  const Vec2 b = c.count == 2 ? c.points[1 - i] : c.points[(i + 1) % c.count];
  return b - c.points[i];
}

// Cyrus-Beck clipping of a ray against the faces of a core pushed out by its
// radius: the entry fraction enter_num / enter_den (den > 0; 0/1 with no
// face) and the exit fraction, kept as exact ratios so that faces compare by
// cross multiplication.
struct FaceClip {
  Int128 enter_num = 0, enter_den = 1;
  int enter_face = -1;
  Int128 exit_num, exit_den;
  bool outside_parallel = false;  ///< outside a face and not moving into it: a miss
  bool any_outside = false;       ///< the origin is outside some face clipped so far

  bool clipped_away() const { return CompareProducts(enter_num, exit_den, exit_num, enter_den) > 0; }
};

// Clips the ray by face i (r2 = radius squared, wide).
void ClipByFace(const Core& c, const RayCastInput& in, int i, const Int128& r2, FaceClip* clip) {
  const Vec2 a = FaceStart(c, i);
  const Vec2 e = FaceEdge(c, i);
  const Vec2 n = RightPerp(e);  // outward, |n| = |e|
  // Is the origin strictly outside this face pushed out by the radius?
  // Decided exactly (dist > r |e|, squared: 250-bit products), because a
  // rounded offset misplaces the face by up to r / (2 |e|) ulp, and an
  // origin that close must still see the face it is about to enter.
  const Int128 dist = DotWide(n, in.origin - a);  // |e| x signed distance to the edge line
  const bool outside = dist.Sign() > 0 && (c.radius == kFixedZero || CompareProducts(dist, dist, r2, LengthSquaredWide(e)) > 0);
  clip->any_outside = clip->any_outside || outside;
  const Int128 den = DotWide(n, in.translation);
  if (den.IsZero() || (outside && den.Sign() > 0)) {
    // Parallel to the face, or leaving it, from outside: no entry.
    if (outside) clip->outside_parallel = true;
    return;
  }
  // Faces skipped above and below never use the height, whose offset
  // costs a square root: it is formed only for the faces that clip.
  if (den.IsNegative() && !outside) return;
  const Int128 offset = c.radius == kFixedZero ? Int128(0) : RadiusTimesLength(c.radius, e);
  // The rounded height, clamped to agree with the exact classification.
  Int128 height = dist - offset;
  if (outside && height.IsNegative()) height = 0;
  if (!outside && height.Sign() > 0) height = 0;
  if (den.IsNegative()) {
    // Entering: t = height / -den, for faces the origin is outside of.
    const Int128 num = height, pos_den = -den;
    if (clip->enter_face < 0 || CompareProducts(num, clip->enter_den, clip->enter_num, pos_den) > 0) {
      clip->enter_num = num;
      clip->enter_den = pos_den;
      clip->enter_face = i;
    }
  } else {
    // Leaving: t = -height / den.
    const Int128 num = -height;
    if (CompareProducts(num, clip->exit_den, clip->exit_num, den) < 0) {
      clip->exit_num = num;
      clip->exit_den = den;
    }
  }
}

// Clips the ray by every face, stopping at the first face it cannot enter.
FaceClip ClipByFaces(const Core& c, const RayCastInput& in) {
  FaceClip clip;
  clip.exit_num = MulWide(in.max_fraction, kFixedOne);
  clip.exit_den = MulWide(kFixedOne, kFixedOne);
  const int faces = c.count == 2 ? 2 : c.count;
  const Int128 r2 = MulWide(c.radius, c.radius);
  for (int i = 0; i < faces && !clip.outside_parallel; ++i) ClipByFace(c, in, i, r2, &clip);
  return clip;
}

// Whether `point`, where the ray enters the rounded face `face`, lies on
// the face's span. Off the span the entry is in a corner wedge: the vertex
// circles decide (*corner, when one is hit), unless the entry is at the
// seam between face and arc, where rounding can make both miss; then the
// face hit stands.
bool OnRoundedFace(const Core& c, const RayCastInput& in, const RayFrame& frame, int face, Vec2 point,
                   CastOutput* corner) {
  const Vec2 edge = FaceEdge(c, face);
  const Int128 along = DotWide(point - FaceStart(c, face), edge);
  const Int128 len2 = LengthSquaredWide(edge);
  if (along.Sign() >= 0 && along <= len2) return true;
  *corner = NearestCircleHit(c, in, frame);
  if (corner->hit) return false;
  // `point` is origin + fraction * translation with the fraction rounded,
  // so it may sit up to half an ulp of the fraction times |translation| off
  // the face: a long ray grazing a corner of a thin rounding (a sweep of two
  // nearly sharp shapes) otherwise missed a face it crosses. Each term below
  // 2^31 (|translation| <= 2^30 units), so the sum fits.
  const int64_t drift = (Abs(in.translation.x).raw() >> Fixed::kFractionBits) +
                        (Abs(in.translation.y).raw() >> Fixed::kFractionBits) + 2;
  const Int128 slack = MulWide(Length(edge), Fixed::FromRaw(16 + drift));
  return along >= -slack && along <= len2 + slack;
}

// The hit where the clipped ray enters its entry face, or, for a rounded
// core entered beyond the face's span, the nearest vertex circle hit.
CastOutput EntryFaceHit(const Core& c, const RayCastInput& in, const RayFrame& frame, const FaceClip& clip) {
  if (clip.clipped_away()) return CastOutput{};
  const Fixed fraction = RatioWide(clip.enter_num, clip.enter_den);
  const Vec2 point = MulAdd(in.origin, fraction, in.translation);
  // A polygon's clip is exact as it stands; a segment's slab is unbounded
  // along the segment, and a rounded face ends at its corners.
  bool on_face = c.radius == kFixedZero && c.count >= 3;
  if (c.radius == kFixedZero && c.count == 2) {
    on_face = SegmentsIntersect(in.origin, MulAdd(in.origin, in.max_fraction, in.translation), c.points[0], c.points[1]);
    if (!on_face) return CastOutput{};
  } else if (!on_face) {
    CastOutput corner;
    on_face = OnRoundedFace(c, in, frame, clip.enter_face, point, &corner);
    if (corner.hit) return corner;
  }
  if (!on_face) return c.radius == kFixedZero ? CastOutput{} : NearestCircleHit(c, in, frame);
  CastOutput out;
  out.fraction = Min(fraction, in.max_fraction);
  out.point = point;
  out.normal = Normalize(RightPerp(FaceEdge(c, clip.enter_face)));
  out.hit = true;
  return out;
}

// A zero-thickness segment seen edge-on (no face entered): the ray runs
// along its line and hits the nearer end, if it reaches it.
CastOutput EdgeOnSegmentHit(const Core& c, const RayCastInput& in, const RayFrame& frame) {
  CastOutput out;
  const Vec2 p0 = c.points[0], p1 = c.points[1];
  if (!CrossWide(p1 - p0, in.translation).IsZero()) return out;  // crosses the line off the segment
  const Vec2 nearest = DotWide(p0 - in.origin, in.translation) <= DotWide(p1 - in.origin, in.translation) ? p0 : p1;
  const Int128 along = DotWide(nearest - in.origin, in.translation);
  if (along.IsNegative()) return out;
  const Fixed fraction = RatioWide(along, LengthSquaredWide(in.translation));
  if (fraction > in.max_fraction) return out;
  out.fraction = fraction;
  out.point = nearest;
  out.normal = -frame.dir();
  out.hit = true;
  return out;
}

// A ray cast against a core known NOT to contain the origin.
//
// The faces of the core pushed out by the radius bound a convex polygon
// (a slab for a segment). Cyrus-Beck clipping against it (ClipByFaces)
// gives the entry face and fraction with exact comparisons. With radius 0
// that is the answer. With a radius, an entry point beyond its face's span
// lies in a corner wedge, where the rounded shape is bounded by the vertex
// circles instead (EntryFaceHit). `frame` is that of in.translation.
// CastFromClip is the answer from the core's face clip (count >= 2), for a
// nonzero translation.
CastOutput CastFromClip(const Core& c, const RayCastInput& in, const RayFrame& frame, const FaceClip& clip) {
  if (clip.outside_parallel) return CastOutput{};
  if (clip.enter_face >= 0) return EntryFaceHit(c, in, frame, clip);
  if (c.radius == kFixedZero) {
    if (c.count != 2 || clip.clipped_away()) return CastOutput{};
    return EdgeOnSegmentHit(c, in, frame);
  }
  if (clip.clipped_away()) return CastOutput{};
  // Corner wedges: the nearest vertex circle hit.
  return NearestCircleHit(c, in, frame);
}

CastOutput RayCastCoreFromOutside(const Core& c, const RayCastInput& in, const RayFrame& frame) {
  // |translation| rounds to zero only for the zero vector (a nonzero length
  // squared is at least one raw unit, whose root rounds to one).
  if (in.translation == Vec2{}) return CastOutput{};
  if (c.count >= 2) return CastFromClip(c, in, frame, ClipByFaces(c, in));
  // Disks: the vertex circle.
  return NearestCircleHit(c, in, frame);
}

}  // namespace

bool TestOverlap(const ShapeProxy& a, const ShapeProxy& b) { return internal::TestOverlap(ViewOf(a), ViewOf(b)); }

bool internal::TestOverlap(const ProxyView& a, const ProxyView& b) {
  // A disk (or point) against anything: TestOverlapCores's answer for a
  // one-point core is "the point lies within ra + rb of the other core"
  // (its crossing tests then only find the point on an edge, and its
  // vertex-to-point distances are each bounded by an edge's distance), which
  // CoreWithin decides with a box test and one edge loop. Its box test
  // rejects whatever the boxes' overlap test would (a gap above ra + rb on
  // one axis), so that one is not made first.
  if (a.count == 1) return CoreWithin(CoreOf(b), a.points[0], a.radius + b.radius);
  if (b.count == 1) return CoreWithin(CoreOf(a), b.points[0], a.radius + b.radius);
  if (!AabbsOverlap(a, b)) return false;
  return TestOverlapCores(CoreOf(a), CoreOf(b));
}

bool TestOverlap(const Shape& a, const Transform& xf_a, const Shape& b, const Transform& xf_b) {
  return TestOverlap(MakeProxy(a, xf_a), MakeProxy(b, xf_b));
}

bool ContainsPoint(const ShapeProxy& proxy, Vec2 point) { return internal::ContainsPoint(ViewOf(proxy), point); }

bool internal::ContainsPoint(const ProxyView& v, Vec2 point) { return CoreContainsPoint(CoreOf(v), point); }

bool ContainsPoint(const Shape& shape, const Transform& xf, Vec2 point) {
  return ContainsPoint(MakeProxy(shape, xf), point);
}

CastOutput RayCast(const ShapeProxy& proxy, const RayCastInput& input) {
  return internal::RayCast(ViewOf(proxy), input, RayFrame(input.translation));
}

CastOutput internal::RayCast(const ProxyView& proxy, const RayCastInput& input, const RayFrame& frame) {
  CastOutput inside;
  inside.point = input.origin;
  inside.hit = true;
  // A chain segment is seen from its front only (chain.h).
  if (proxy.one_sided && ViewChainSide(proxy, input.origin) <= 0) return CastOutput{};
  const Core c = CoreOf(proxy);
  if (c.count >= 3 && c.radius == kFixedZero && input.translation != Vec2{}) {
    // A sharp polygon (most query targets): its faces' clip decides whether
    // the origin is inside too. Face i finds the origin outside exactly when
    // dot(RightPerp(e), origin - a) > 0, that is cross(e, origin - a) < 0,
    // which is PolygonCoreContains's test of the same edge, so no face
    // outside is the containment test's "inside", without its pass.
    const FaceClip clip = ClipByFaces(c, input);
    if (!clip.any_outside) return inside;
    // What RayCastCoreFromOutside does with this clip for a sharp polygon.
    if (clip.outside_parallel || clip.enter_face < 0) return CastOutput{};
    return EntryFaceHit(c, input, frame, clip);
  }
  if (CoreContainsPoint(c, input.origin)) return inside;
  return RayCastCoreFromOutside(c, input, frame);
}

CastOutput RayCast(const Shape& shape, const Transform& xf, const RayCastInput& input) {
  return RayCast(MakeProxy(shape, xf), input);
}

DistanceOutput ShapeDistance(const ShapeProxy& a, const ShapeProxy& b) { return DistanceCores(CoreOf(a), CoreOf(b)); }

DistanceOutput internal::ShapeDistance(const ProxyView& a, const ProxyView& b) {
  return DistanceCores(CoreOf(a), CoreOf(b));
}

DistanceOutput ShapeDistance(const Shape& a, const Transform& xf_a, const Shape& b, const Transform& xf_b) {
  return ShapeDistance(MakeProxy(a, xf_a), MakeProxy(b, xf_b));
}

namespace {

// Whether a cast between a and b is ruled out by a chain segment's
// one-sidedness (chain.h): the other shape's centre, at the start, must lie
// strictly in front; two chain segments never meet.
bool HiddenByChain(const ProxyView& a, const ProxyView& b) {
  if (a.one_sided && b.one_sided) return true;
  if (b.one_sided) return internal::ViewChainSide(b, internal::ViewCenter(a)) <= 0;
  if (a.one_sided) return internal::ViewChainSide(a, internal::ViewCenter(b)) <= 0;
  return false;
}

}  // namespace

CastOutput ShapeCast(const ShapeCastInput& input) {
  CastOutput out = internal::ShapeCastWithoutPoint(ViewOf(input.a), ViewOf(input.b), input.translation, input.max_fraction,
                                                   RayFrame(input.translation));
  if (out.hit) out.point = internal::ShapeCastPoint(input, out.fraction);
  return out;
}

CastOutput internal::ShapeCastWithoutPoint(const ProxyView& a, const ProxyView& b, Vec2 translation, Fixed max_fraction,
                                           const RayFrame& frame) {
  CastOutput out;
  if (HiddenByChain(a, b)) return out;
  // Overlapping at the start: a hit at fraction 0 (whose point,
  // ShapeCastPoint at 0, is ShapeDistance of the unmoved shapes).
  if (translation == Vec2{}) {
    out.hit = TestOverlap(a, b);
    return out;
  }
  // A + t T meets B exactly when t T lies in the Minkowski difference B - A
  // (rounded by ra + rb): a ray from the origin along T.
  std::array<Vec2, 2 * kMaxPolygonVertices> hull;
  int hull_count;
  if (a.count == 1 || b.count == 1) {
    // A point against a convex core: the difference is that core translated
    // (and, for b a point, turned by 180 degrees, which keeps it CCW), so
    // no hull is needed. This is every disk sweep.
    const bool a_is_point = a.count == 1;
    hull_count = a_is_point ? b.count : a.count;
    for (int i = 0; i < hull_count; ++i) {
      hull[i] = a_is_point ? b.points[i] - a.points[0] : b.points[0] - a.points[i];
    }
  } else {
    std::array<Vec2, kMaxPolygonVertices * kMaxPolygonVertices> differences;
    int n = 0;
    for (int j = 0; j < b.count; ++j) {
      for (int i = 0; i < a.count; ++i) differences[n++] = b.points[j] - a.points[i];
    }
    hull_count = ComputeHull(std::span<const Vec2>(differences.data(), n), hull);
  }
  const Core minkowski{hull.data(), hull_count, a.radius + b.radius};
  const RayCastInput ray{Vec2{}, translation, max_fraction};
  if (hull_count < 2) {
    if (TestOverlap(a, b)) {
      out.hit = true;
      return out;
    }
    out = NearestCircleHit(minkowski, ray, frame);
  } else {
    // The hull is the exact difference of the cores, so an origin strictly
    // farther than ra + rb outside one of its face lines (the clip's exact
    // test) is farther than that from the whole hull: the cores are more
    // than ra + rb apart, which TestOverlap's exact rule calls apart. Only
    // an origin inside every pushed-out face needs the overlap test.
    const FaceClip clip = ClipByFaces(minkowski, ray);
    if (!clip.any_outside && TestOverlap(a, b)) {
      out.hit = true;
      return out;
    }
    out = CastFromClip(minkowski, ray, frame, clip);
  }
  out.point = Vec2{};  // the Minkowski space's, not the answer's
  return out;
}

Vec2 internal::ShapeCastPoint(const ShapeCastInput& input, Fixed fraction) {
  // The contact point on B: where A, moved to the time of impact, is
  // closest. At fraction 0 the shift is exactly zero.
  ShapeProxy moved = input.a;
  const Vec2 shift = fraction * input.translation;
  for (int i = 0; i < moved.count; ++i) moved.points[i] += shift;
  return ShapeDistance(moved, input.b).point_b;
}

}  // namespace arbiter
