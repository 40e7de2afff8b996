// File: manifold.cc
//
// Contact manifolds between two proxies (convex cores plus radii).
//
// Algorithm (after Box2D v3's b2CollidePolygons / b2ClipPolygons /
// b2CollideCapsules / b2CollidePolygonAndCircle, Erin Catto, "Contact
// Manifolds", GDC 2007; Dirk Gregorius, "The Separating Axis Test between
// Convex Polyhedra", GDC 2013; Ericson, Real-Time Collision Detection,
// 5.2 and 5.5). Written from those descriptions for Q32.32:
//
//  1. Two points (circles): the centre-to-centre direction.
//  2. Otherwise every core with edges (a segment has two, v0->v1 and v1->v0,
//     with opposite normals; a polygon one per side) offers its edges as
//     reference faces. The separation of face i is the signed distance of
//     the other core's deepest point below the face line,
//       s_i = min_p dot(p - v_i, e_i) / |e_i|,  e_i = RightPerp(v_i+1 - v_i),
//     formed exactly in 128 bits and rounded once. The reference face
//     maximises s_i (the separating axis; when the cores overlap, the
//     shallowest penetration, so containment leaves through the shorter
//     exit). If the best s_i - (ra + rb) exceeds the speculative distance
//     the manifold is empty.
//  3. The incident edge is the edge of the other core at its deepest vertex
//     that is most anti-parallel to the reference normal (a point core is
//     its own incident "edge"). It is clipped against the reference edge's
//     two side planes; points with separation <= speculative are kept, each
//     placed midway between the two surfaces.
//  4. When the cores are disjoint, the face normal is only the true normal
//     if the deepest incident vertex lies within the reference edge's side
//     planes (then that vertex-face pair realises the core distance
//     exactly). Otherwise the closest features are two vertices (Box2D v3's
//     vertex-vertex case, "rounded shapes near corners"), and the manifold
//     is one point along ShapeDistance's normal between the radius-0 cores.
//     This is an exact feature test rather than an angle threshold, so the
//     reported normal and depth are the minimum translation vector in every
//     case (up to rounding): moving B by normal * depth leaves the shapes
//     touching.
//
// Reference face choice (deterministic, and the same for Collide(a, b) and
// Collide(b, a), which is what makes the flip symmetry exact): among the
// faces of BOTH cores whose separation is within kReferenceTolerance of the
// best, take the one whose outward normal has the largest exact dot product
// with kPreferredDirection = (1, 4); then the larger separation; then further
// geometric keys (see Precedes). Only faces that coincide geometrically
// (the same two endpoints and normal, e.g. identical shapes in the same
// place) fall back to argument order: A's faces, then the lower edge index. Like Box2D's 0.1 * linearSlop relative tolerance this
// keeps the reference face (and so the feature ids) from flipping between two
// nearly parallel faces of a stack: the upward-facing (supporting) face wins.
// Unlike "prefer A" it does not depend on argument order. The tolerance is
// kept tiny (2^-22 units) because choosing a face that is not the best
// overstates the depth by up to the tolerance.
//
// Feature ids: (A's vertex << 8) | B's vertex, one vertex of each core at
// the point's end of the contact (Box2D v3's B2_MAKE_ID). A clipped point
// pairs the incident edge's vertex it came from with the reference edge's
// vertex at the same end (the incident edge runs the other way along it):
// its start vertex with the reference edge's end, its end vertex with the
// reference edge's start. Which of the two faces is the reference does not
// enter the id, so when a resting stack's reference face changes between
// the lower box's top and the upper box's bottom (a tilt of either sign
// decides it), the two points keep their ids and their warm start. A point
// from the deepest vertex alone (vertex-vertex, or the fallbacks) is
// (reference edge << 8) | vertex, sides swapped the same way; a point
// core's vertex is 0; circles use id 0. Collide(b, a) has the ids of
// Collide(a, b) with the bytes swapped (SwapFeatureSides).
//
// Everything is integer arithmetic through the core API (exact Int128 dots,
// correctly rounded Length, Normalize within one ulp); no floating point.
#include "arbiter/core/manifold.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <new>
#include <type_traits>

#include "arbiter/core/collision.h"
#include "collision_internal.h"
#include "manifold_internal.h"

namespace arbiter {
namespace {

/// Faces whose separations differ by at most this are "tied" (2^-22 units).
constexpr Fixed kReferenceTolerance = Fixed::FromRaw(int64_t{1} << 10);
/// Tied faces prefer the outward normal closest to this direction.
constexpr Vec2 kPreferredDirection = {Fixed::FromInt(1), Fixed::FromInt(4)};

/// N values of T on the stack, left unset: Fixed's default constructor
/// zeroes, and zeroing a face list and the edge perps cost more than the
/// rest of a light pair. Every element is written before it is read (the
/// routines below read only the entries [0, n) they filled). The storage
/// is a byte array, which creates the trivially copyable T objects the
/// writes need (C++20 implicit object creation).
template <class T, int N>
class Scratch {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>);

 public:
  T& operator[](int i) { return data()[i]; }
  const T& operator[](int i) const { return data()[i]; }
  T* data() { return std::launder(reinterpret_cast<T*>(bytes_)); }
  const T* data() const { return std::launder(reinterpret_cast<const T*>(bytes_)); }

 private:
  alignas(T) std::byte bytes_[sizeof(T) * N];
};

/// A proxy's core with its edge data. The points and lengths are read in
/// place (the proxy's and the memo's), which outlive the core: it lives
/// for one call.
struct Core {
  const Vec2* v = nullptr;  ///< the proxy's points
  int count = 0;
  Fixed radius;
  int edge_count = 0;                          ///< 0 for a point
  Scratch<Vec2, kMaxPolygonVertices> perp;     ///< exact RightPerp(v[i+1] - v[i]), [0, count) once count >= 2
  internal::CoreMemo* memo = nullptr;          ///< the placed shape's memo, never null once made
};

/// values[i], filled by compute(perp[i]) the first time (bit i of *filled).
template <class T, class Compute>
T Memoized(const Core& c, int i, uint8_t* filled, std::array<T, kMaxPolygonVertices>* values, Compute compute) {
  const auto bit = static_cast<uint8_t>(1u << i);
  if ((*filled & bit) == 0) {
    (*values)[i] = compute(c.perp[i]);
    *filled = static_cast<uint8_t>(*filled | bit);
  }
  return (*values)[i];
}

/// |perp[i]|, correctly rounded, computed once per memo. Only zero for a
/// zero perp: Length rounds sqrt(|v|^2) >= 2^-32 (|v|^2 >= 1 raw unit) to
/// at least one ulp, so "length > 0" is asked of the perp instead.
Fixed LengthOf(const Core& c, int i) {
  return Memoized(c, i, &c.memo->has_length, &c.memo->length, [](Vec2 v) { return Length(v); });
}

bool HasEdge(const Core& c, int i) { return c.perp[i] != Vec2{}; }

/// The unit outward normal of edge i (within one ulp per component),
/// normalised once per memo.
Vec2 NormalOf(const Core& c, int i) {
  return Memoized(c, i, &c.memo->has_normal, &c.memo->normal, [](Vec2 v) { return Normalize(v); });
}

int Next(const Core& c, int i) { return i + 1 == c.count ? 0 : i + 1; }

/// The core of `p`, with `memo` for its lengths and normals, into *out (a
/// fresh Core).
void MakeCore(const internal::ProxyView& p, internal::CoreMemo* memo, Core* out) {
  Core& c = *out;
  c.memo = memo;
  c.count = p.count < 0 ? 0 : (p.count > kMaxPolygonVertices ? kMaxPolygonVertices : p.count);
  c.radius = p.radius;
  c.v = p.points;
  if (c.count < 2) return;
  bool any_edge = false;
  for (int i = 0; i < c.count; ++i) {
    c.perp[i] = RightPerp(c.v[Next(c, i)] - c.v[i]);
    any_edge = any_edge || HasEdge(c, i);
  }
  // World-space rounding can collapse a tiny shape onto one point.
  if (!any_edge) {
    c.count = 1;
    return;
  }
  c.edge_count = c.count;
}

/// The view with its radius set to zero.
internal::ProxyView ZeroRadius(internal::ProxyView v) {
  v.radius = kFixedZero;
  return v;
}

/// One candidate reference face.
struct Face {
  bool on_b = false;
  int edge = -1;
  Fixed separation;  ///< core separation, rounded once
  Int128 min_dot;    ///< exact min over the other core of dot(p - v[edge], perp[edge])
  int deepest = 0;   ///< the other core's vertex achieving it (lowest index on ties)
};

/// Faces of `ref` against `inc`, all but their separation (see
/// SetSeparations); returns how many were written. Sets *separated when
/// some face strictly separates the cores (exact).
int CollectFaces(const Core& ref, const Core& inc, bool on_b, Face* out, bool* separated) {
  int n = 0;
  for (int i = 0; i < ref.edge_count; ++i) {
    if (!HasEdge(ref, i)) continue;
    Face f;
    f.on_b = on_b;
    f.edge = i;
    f.min_dot = DotWide(inc.v[0] - ref.v[i], ref.perp[i]);
    for (int j = 1; j < inc.count; ++j) {
      const Int128 d = DotWide(inc.v[j] - ref.v[i], ref.perp[i]);
      if (d < f.min_dot) {
        f.min_dot = d;
        f.deepest = j;
      }
    }
    if (f.min_dot.Sign() > 0) *separated = true;
    out[n++] = f;
  }
  return n;
}

Fixed SeparationOf(const Face& f, const Core& a, const Core& b) {
  return DivWide(f.min_dot, LengthOf(f.on_b ? b : a, f.edge));
}

/// Sets each face's rounded separation, DivWide(min_dot, |perp|), where it
/// can matter: for the largest and every face within kReferenceTolerance of
/// it (the reference face candidates). A face provably below a pivot face's
/// separation minus the tolerance gets Fixed::Min() instead, with neither
/// its division nor its square root: callers read separations only to find
/// the largest and the faces within the tolerance of it, which such a face
/// is not (below). The proof: with T = s_p - tolerance - 1 ulp (raw) and
/// L_lo = max(|px|, |py|) <= |perp| <= |px| + |py| = L_hi (the rounded
/// square root keeps these integer bounds), min_dot < T L (L = L_lo for
/// T >= 0, L_hi for T < 0) gives min_dot / |perp| < T, so its rounding
/// (to nearest, ties up) is at most T < s_p - tolerance <= best - tolerance.
void SetSeparations(Face* faces, int n, const Core& a, const Core& b) {
  int pivot = 0;
  for (int i = 1; i < n; ++i) {
    if (faces[i].min_dot > faces[pivot].min_dot) pivot = i;
  }
  const Fixed s_pivot = SeparationOf(faces[pivot], a, b);
  faces[pivot].separation = s_pivot;
  // T must not wrap; near Fixed::Min() every face is computed.
  const bool prune = s_pivot.raw() > std::numeric_limits<int64_t>::min() + 2 * kReferenceTolerance.raw() + 2;
  const int64_t t = s_pivot.raw() - kReferenceTolerance.raw() - 1;
  for (int i = 0; i < n; ++i) {
    if (i == pivot) continue;
    Face& f = faces[i];
    if (prune) {
      const Vec2 perp = (f.on_b ? b : a).perp[f.edge];
      // |components| < 2^63 (differences of world points, shapes.h), so
      // the magnitudes fit uint64 and each bound fits int64 whenever it
      // is below 2^63 (else the face is computed).
      const uint64_t ax = perp.x.raw() < 0 ? 0 - static_cast<uint64_t>(perp.x.raw()) : static_cast<uint64_t>(perp.x.raw());
      const uint64_t ay = perp.y.raw() < 0 ? 0 - static_cast<uint64_t>(perp.y.raw()) : static_cast<uint64_t>(perp.y.raw());
      const uint64_t bound = t >= 0 ? (ax > ay ? ax : ay) : ax + ay;
      if (bound <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) &&
          f.min_dot < Int128::Mul(t, static_cast<int64_t>(bound))) {
        f.separation = Fixed::Min();
        continue;
      }
    }
    f.separation = SeparationOf(f, a, b);
  }
}

/// Exact: does the face's line separate the other core by more than
/// `reach`? A face's rounded separation divides by its rounded length,
/// which for an edge a few ulp long (a capsule of microscopic length, once
/// placed) is off by tens of percent: enough to call overlapping shapes
/// separated. So the early exit is confirmed with
/// min_dot^2 > reach^2 |perp|^2 (250-bit products), never decided by it.
bool SeparatesBeyond(const Face& f, const Core& a, const Core& b, Fixed reach) {
  if (reach < kFixedZero) return true;  // a negative speculative distance: the rounded test stands
  if (f.min_dot.Sign() <= 0) return false;
  const Vec2 perp = (f.on_b ? b : a).perp[f.edge];
  return CompareProducts(f.min_dot, f.min_dot, MulWide(reach, reach), LengthSquaredWide(perp)) > 0;
}

/// Orders two tied faces by their geometry alone (never by which argument
/// they came from), so that Collide(a, b) and Collide(b, a) agree: larger
/// dot(normal, kPreferredDirection), then larger separation, then the face
/// line further along its own normal, then the face's first vertex greater
/// in (y, x), then its second vertex greater in (y, x). Returns true when
/// `f` beats `g`.
bool Precedes(const Face& f, const Face& g, const Core& a, const Core& b) {
  const Core& cf = f.on_b ? b : a;
  const Core& cg = g.on_b ? b : a;
  const Vec2 nf = NormalOf(cf, f.edge), ng = NormalOf(cg, g.edge);
  const Int128 df = DotWide(nf, kPreferredDirection), dg = DotWide(ng, kPreferredDirection);
  if (df != dg) return df > dg;
  if (f.separation != g.separation) return f.separation > g.separation;
  const Vec2 vf = cf.v[f.edge], vg = cg.v[g.edge];
  const Int128 of = DotWide(vf, nf), og = DotWide(vg, ng);
  if (of != og) return of > og;
  if (vf.y != vg.y) return vf.y > vg.y;
  if (vf.x != vg.x) return vf.x > vg.x;
  // Two faces on one line from one start vertex may still end apart (a
  // segment lying along part of another): without this key argument order
  // decided, and Collide(b, a) was not the flip of Collide(a, b).
  const Vec2 wf = cf.v[Next(cf, f.edge)], wg = cg.v[Next(cg, g.edge)];
  if (wf.y != wg.y) return wf.y > wg.y;
  if (wf.x != wg.x) return wf.x > wg.x;
  return false;  // the same face geometrically: keep the earlier (A, lower index)
}

/// The tie-breaking rule documented at the top of the file; `best` is the
/// largest separation among the n >= 1 faces.
const Face* ChooseReference(const Face* faces, int n, Fixed best, const Core& a, const Core& b) {
  const Fixed threshold = best - kReferenceTolerance;
  const Face* chosen = nullptr;
  for (int i = 0; i < n; ++i) {
    if (faces[i].separation < threshold) continue;
    if (chosen == nullptr || Precedes(faces[i], *chosen, a, b)) chosen = &faces[i];
  }
  return chosen;
}

/// The incident edge of `inc` for reference normal `n`, at vertex `k`.
struct Incident {
  Vec2 w[2];
  uint16_t code[2] = {0, 0};  ///< the vertex index of w[0] and w[1] (0 for a point core)
  int points = 1;  ///< 1 for a point core
};

Incident FindIncident(const Core& inc, int k, Vec2 n) {
  Incident out;
  if (inc.edge_count == 0) {
    out.w[0] = out.w[1] = inc.v[0];
    return out;
  }
  // The two edges that meet at the deepest vertex; the more anti-parallel
  // one (lower index on ties) is the incident edge. Degenerate edges only
  // when both are.
  const int prev = k == 0 ? inc.count - 1 : k - 1;
  const int first = prev < k ? prev : k;
  const int second = prev < k ? k : prev;
  int e = first;
  const bool first_ok = HasEdge(inc, first);
  const bool second_ok = HasEdge(inc, second);
  if (!first_ok && second_ok) {
    e = second;
  } else if (first_ok && second_ok) {
    // dot(perp_second, n) / |perp_second| < dot(perp_first, n) / |perp_first|,
    // compared exactly by cross-multiplying with the (positive) lengths.
    const Int128 d_first = DotWide(inc.perp[first], n), d_second = DotWide(inc.perp[second], n);
    if (CompareProducts(d_second, Int128(LengthOf(inc, first).raw()), d_first, Int128(LengthOf(inc, second).raw())) < 0) {
      e = second;
    }
  }
  out.w[0] = inc.v[e];
  out.w[1] = inc.v[Next(inc, e)];
  out.code[0] = static_cast<uint16_t>(e);
  out.code[1] = static_cast<uint16_t>(Next(inc, e));
  out.points = out.w[0] == out.w[1] ? 1 : 2;
  return out;
}

void AddPoint(Manifold* m, Vec2 point, Fixed separation, uint16_t id) {
  if (m->point_count == 2) return;
  ManifoldPoint& p = m->points[m->point_count++];
  p.point = point;
  p.separation = separation;
  p.id = id;
}

/// The reference-face manifold: clip the incident edge to the side planes.
Manifold FaceManifold(const Core& ref, const Face& face, Vec2 n, const Core& inc, const Incident& incident,
                      Fixed spec) {
  Manifold m;
  const int i = face.edge;
  const Vec2 v1 = ref.v[i];
  const Vec2 t = ref.v[Next(ref, i)] - v1;
  m.normal = n;
  const Fixed total_radius = ref.radius + inc.radius;
  const Int128 span = LengthSquaredWide(t);
  const Int128 a1 = DotWide(incident.w[0] - v1, t);
  const Int128 a2 = DotWide(incident.w[1] - v1, t);
  Vec2 clipped[2];
  int count = 0;
  if (incident.points == 1) {
    if (a1.Sign() >= 0 && a1 <= span) clipped[count++] = incident.w[0];
  } else if (!(a1.IsNegative() && a2.IsNegative()) && !(a1 > span && a2 > span)) {
    // Each endpoint outside a side plane moves to where the edge crosses it.
    const Vec2 d = incident.w[1] - incident.w[0];
    Vec2 p1 = incident.w[0], p2 = incident.w[1];
    if (a1.IsNegative()) {
      p1 = MulAdd(incident.w[0], RatioWide(-a1, a2 - a1), d);
    } else if (a1 > span) {
      p1 = MulAdd(incident.w[0], RatioWide(a1 - span, a1 - a2), d);
    }
    if (a2.IsNegative()) {
      p2 = MulAdd(incident.w[1], RatioWide(-a2, a1 - a2), -d);
    } else if (a2 > span) {
      p2 = MulAdd(incident.w[1], RatioWide(a2 - span, a2 - a1), -d);
    }
    clipped[count++] = p1;
    clipped[count++] = p2;
  }
  for (int j = 0; j < count; ++j) {
    const Fixed core_separation = DivWide(DotWide(clipped[j] - v1, ref.perp[i]), LengthOf(ref, i));
    const Fixed separation = core_separation - total_radius;
    if (separation > spec) continue;
    if (j == 1 && m.point_count == 1 && clipped[1] == clipped[0]) continue;
    // Midway between the reference surface (offset by its radius) and the
    // incident surface (back along the normal by its radius).
    const Vec2 point = MulAdd(clipped[j], (ref.radius - inc.radius - core_separation).Half(), n);
    // The reference edge's vertex at this point's end (see Feature ids).
    const int ref_vertex = incident.points == 1 ? i : (j == 0 ? Next(ref, i) : i);
    AddPoint(&m, point, separation, static_cast<uint16_t>((ref_vertex << 8) | incident.code[j]));
  }
  return m;
}

/// One point along the distance normal between the radius-0 cores. Returns
/// false when the distance routine reports the cores as touching.
bool DistanceManifold(const internal::ProxyView& ref_proxy, const Core& ref, const internal::ProxyView& inc_proxy,
                      const Core& inc, uint16_t id, Fixed spec, Manifold* out) {
  const DistanceOutput d = internal::ShapeDistance(ZeroRadius(ref_proxy), ZeroRadius(inc_proxy));
  if (d.normal == Vec2{}) return false;
  Manifold m;
  m.normal = d.normal;
  const Fixed separation = d.distance - ref.radius - inc.radius;
  if (separation <= spec) {
    const Vec2 point = MulAdd(d.point_a, (d.distance + ref.radius - inc.radius).Half(), d.normal);
    AddPoint(&m, point, separation, id);
  }
  *out = m;
  return true;
}

/// |v| < 2^61 raw per component: the domain of CirclesApart.
constexpr uint64_t kApartComponentLimit = uint64_t{1} << 61;

uint64_t Magnitude(Fixed v) {
  return v.raw() < 0 ? 0 - static_cast<uint64_t>(v.raw()) : static_cast<uint64_t>(v.raw());
}

/// True when CollideCircles would find Length(d) - ra - rb > spec (no
/// point), decided without the square root, and only where that is
/// provably the same answer; false means "not decided here" (the caller
/// computes as before). Domain: |dx|, |dy| < 2^61 raw, 0 <= ra, rb <=
/// 2^56 raw (kMaxShapeExtent), 0 <= spec < 2^62 raw. There |d|^2 < 2^123,
/// so Length(d) < 2^62, and Length - ra - rb lies in (-2^57, 2^62): the
/// rounded arithmetic neither wraps nor saturates, so "separation > spec"
/// is the integer test Length > R with R = ra + rb + spec < 2^63.
/// Length is ISqrtRound(|d|^2), which rounds up exactly when |d|^2 - r^2 >
/// r for r = floor(sqrt(|d|^2)); hence Length >= R + 1 exactly when |d|^2
/// >= R^2 + R + 1: from (R + 1)^2 up the floor is already R + 1; between
/// R^2 + R + 1 and (R + 1)^2 - 1 the floor is R and the rest exceeds R;
/// at or below R^2 + R the floor is at most R and rounds to at most R.
/// R^2 + R < 2^127 fits the signed 128-bit compare.
bool CirclesApart(Vec2 d, Fixed ra, Fixed rb, Fixed spec) {
  constexpr int64_t kRadiusLimit = int64_t{1} << 56;
  constexpr int64_t kSpecLimit = int64_t{1} << 62;
  static_assert(kFixedMaxShapeExtent.raw() <= kRadiusLimit);
  if (Magnitude(d.x) >= kApartComponentLimit || Magnitude(d.y) >= kApartComponentLimit) return false;
  if (ra.raw() < 0 || ra.raw() > kRadiusLimit || rb.raw() < 0 || rb.raw() > kRadiusLimit) return false;
  if (spec.raw() < 0 || spec.raw() >= kSpecLimit) return false;
  const int64_t r = ra.raw() + rb.raw() + spec.raw();
  return LengthSquaredWide(d) > Int128::Mul(r, r) + Int128(r);
}

Manifold CollideCircles(Vec2 ca, Fixed ra, Vec2 cb, Fixed rb, Fixed spec) {
  const Vec2 d = cb - ca;
  // Far apart: the empty manifold the code below returns (its normal is
  // zero, and so is the flipped one), without the square root. Symmetric
  // in the arguments, so it may precede the canonical direction.
  if (CirclesApart(d, ra, rb, spec)) return Manifold{};
  // Work in one canonical direction so that Collide(b, a) gives exactly the
  // negated normal and the same point (rounding is not odd-symmetric).
  // Concentric disks have no direction: the larger one goes first (then
  // the fallback normal pushes the smaller one up), or both argument orders
  // would pick the same normal.
  const bool concentric = d == Vec2{};
  if (d.y < kFixedZero || (d.y == kFixedZero && d.x < kFixedZero) || (concentric && ra < rb)) {
    Manifold m = CollideCircles(cb, rb, ca, ra, spec);
    m.normal = -m.normal;
    return m;
  }
  // GetLengthAndNormalize's two parts, the direction only once it is used.
  const Fixed distance = Length(d);
  const Fixed separation = distance - ra - rb;
  Manifold m;
  if (separation > spec) return m;
  Vec2 n = Normalize(d);
  if (n == Vec2{}) n = {kFixedZero, kFixedOne};
  m.normal = n;
  AddPoint(&m, MulAdd(ca, (distance + ra - rb).Half(), n), separation, 0);
  return m;
}

}  // namespace

namespace internal {

Manifold CollideOnFirstFace(const ShapeProxy& a, const ShapeProxy& b, Fixed spec) {
  CoreMemo memo_a, memo_b;
  Core ca, cb;
  MakeCore(ViewOf(a), &memo_a, &ca);
  MakeCore(ViewOf(b), &memo_b, &cb);
  if (ca.edge_count == 0 || cb.count == 0 || !HasEdge(ca, 0)) return Manifold{};
  Scratch<Face, kMaxPolygonVertices> faces;
  bool separated = false;
  CollectFaces(ca, cb, false, faces.data(), &separated);
  Face& face = faces[0];
  face.separation = SeparationOf(face, ca, cb);
  const Fixed reach = ca.radius + cb.radius + spec;
  if (face.separation - ca.radius - cb.radius > spec && SeparatesBeyond(face, ca, cb, reach)) return Manifold{};
  const Vec2 n = NormalOf(ca, 0);
  return FaceManifold(ca, face, n, cb, FindIncident(cb, face.deepest, n), spec);
}

Manifold CollideMemo(const ShapeProxy& a, CoreMemo* memo_a, const ShapeProxy& b, CoreMemo* memo_b,
                     Fixed speculative_distance) {
  if (a.one_sided || b.one_sided) return internal::CollideWithChain(a, b, speculative_distance);
  CoreMemo local_a, local_b;
  return CollideViews(ViewOf(a), memo_a != nullptr ? memo_a : &local_a, ViewOf(b),
                      memo_b != nullptr ? memo_b : &local_b, speculative_distance);
}

Manifold CollideViews(const ProxyView& a, CoreMemo* memo_a, const ProxyView& b, CoreMemo* memo_b,
                      Fixed speculative_distance) {
  const Fixed spec = speculative_distance;
  Core ca, cb;
  MakeCore(a, memo_a, &ca);
  MakeCore(b, memo_b, &cb);
  if (ca.count == 0 || cb.count == 0) return Manifold{};
  if (ca.edge_count == 0 && cb.edge_count == 0) return CollideCircles(ca.v[0], ca.radius, cb.v[0], cb.radius, spec);

  // 2. Separating-axis search over the faces of both cores.
  Scratch<Face, 2 * kMaxPolygonVertices> faces;
  bool separated = false;
  int n = CollectFaces(ca, cb, false, faces.data(), &separated);
  n += CollectFaces(cb, ca, true, faces.data() + n, &separated);
  SetSeparations(faces.data(), n, ca, cb);
  int best_face = 0;
  for (int i = 1; i < n; ++i) {
    if (faces[i].separation > faces[best_face].separation) best_face = i;
  }
  const Fixed best = faces[best_face].separation;
  if (best - ca.radius - cb.radius > spec && SeparatesBeyond(faces[best_face], ca, cb, ca.radius + cb.radius + spec)) {
    return Manifold{};
  }

  // Face normals decide disjointness exactly except for a point or segment
  // against a segment, whose Minkowski difference can be flat.
  bool disjoint = separated;
  if (!disjoint && ca.count <= 2 && cb.count <= 2) {
    disjoint = !internal::TestOverlap(ZeroRadius(a), ZeroRadius(b));
  }

  const Face& face = *ChooseReference(faces.data(), n, best, ca, cb);
  const bool flip = face.on_b;
  const Core& ref = flip ? cb : ca;
  const Core& inc = flip ? ca : cb;
  const ProxyView& ref_proxy = flip ? b : a;
  const ProxyView& inc_proxy = flip ? a : b;
  const Vec2 ref_normal = NormalOf(ref, face.edge);

  // 3. Incident edge through the deepest vertex.
  const Incident incident = FindIncident(inc, face.deepest, ref_normal);
  const int k = face.deepest;
  const uint16_t deepest_code = incident.points == 2 && incident.w[1] == inc.v[k] ? incident.code[1] : incident.code[0];
  const uint16_t deepest_id = static_cast<uint16_t>((face.edge << 8) | deepest_code);

  // 4. Disjoint cores: keep the face only if a deepest incident vertex lies
  // within the reference edge's side planes.
  bool use_face = true;
  if (disjoint) {
    const Vec2 v1 = ref.v[face.edge];
    const Vec2 t = ref.v[Next(ref, face.edge)] - v1;
    const Int128 span = LengthSquaredWide(t);
    use_face = false;
    for (int j = 0; j < incident.points && !use_face; ++j) {
      if (DotWide(incident.w[j] - v1, ref.perp[face.edge]) != face.min_dot) continue;
      const Int128 along = DotWide(incident.w[j] - v1, t);
      use_face = along.Sign() >= 0 && along <= span;
    }
  }

  Manifold m;
  bool have = false;
  if (!use_face) have = DistanceManifold(ref_proxy, ref, inc_proxy, inc, deepest_id, spec, &m);
  if (!have) {
    m = FaceManifold(ref, face, ref_normal, inc, incident, spec);
    if (m.point_count == 0) {
      // Only reachable through rounding or the tie tolerance: fall back to
      // the exact answers rather than dropping a real contact.
      if (!disjoint || !DistanceManifold(ref_proxy, ref, inc_proxy, inc, deepest_id, spec, &m)) {
        m = Manifold{};
        m.normal = ref_normal;
        const Fixed separation = face.separation - ref.radius - inc.radius;
        if (separation <= spec) {
          const Vec2 point = MulAdd(inc.v[k], (ref.radius - inc.radius - face.separation).Half(), ref_normal);
          AddPoint(&m, point, separation, deepest_id);
        }
      }
    }
  }

  if (m.point_count == 0) return Manifold{};
  if (flip) {
    m.normal = -m.normal;
    for (int i = 0; i < m.point_count; ++i) m.points[i].id = SwapFeatureSides(m.points[i].id);
  }
  return m;
}

}  // namespace internal

Manifold Collide(const ShapeProxy& a, const ShapeProxy& b, Fixed speculative_distance) {
  return internal::CollideMemo(a, nullptr, b, nullptr, speculative_distance);
}

}  // namespace arbiter
