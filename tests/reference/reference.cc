// File: reference.cc
//
// See reference.h. Nothing here calls core: the only link to core is
// convert.h, which turns core proxies into DProxy.
#include "reference/reference.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <utility>

namespace arbiter::reference {
namespace {

// An edge of a core with its outward unit normal. A segment core has two,
// one per side, so that each side of a capsule has its own offset face.
struct Edge {
  DVec2 v1;
  DVec2 v2;
  DVec2 normal;
};

std::vector<Edge> OutwardEdges(const DProxy& p) {
  std::vector<Edge> edges;
  const size_t n = p.points.size();
  if (n == 2) {
    const DVec2 a = p.points[0], b = p.points[1];
    edges.push_back({a, b, Normalize(RightPerp(b - a))});
    edges.push_back({b, a, Normalize(RightPerp(a - b))});
  } else if (n >= 3) {
    for (size_t i = 0; i < n; ++i) {
      const DVec2 a = p.points[i], b = p.points[(i + 1) % n];
      edges.push_back({a, b, Normalize(RightPerp(b - a))});
    }
  }
  return edges;
}

// The boundary segments of a core, each once (for crossing tests).
std::vector<std::pair<DVec2, DVec2>> Segments(const DProxy& p) {
  std::vector<std::pair<DVec2, DVec2>> segs;
  const size_t n = p.points.size();
  if (n == 2) {
    segs.emplace_back(p.points[0], p.points[1]);
  } else if (n >= 3) {
    for (size_t i = 0; i < n; ++i) segs.emplace_back(p.points[i], p.points[(i + 1) % n]);
  }
  return segs;
}

// Largest signed distance of q from an edge line of a polygon core: <= 0
// exactly when q is inside (or on) the polygon, and then minus the distance
// to the boundary.
double MaxEdgeSeparation(const DProxy& polygon, DVec2 q) {
  double best = -kInfinity;
  const size_t n = polygon.points.size();
  for (size_t i = 0; i < n; ++i) {
    const DVec2 a = polygon.points[i], b = polygon.points[(i + 1) % n];
    best = std::max(best, Dot(Normalize(RightPerp(b - a)), q - a));
  }
  return best;
}

// Is q inside or on the polygon core? (The sign test of MaxEdgeSeparation,
// without normalising.)
bool InsidePolygon(const DProxy& polygon, DVec2 q) {
  const size_t n = polygon.points.size();
  for (size_t i = 0; i < n; ++i) {
    const DVec2 a = polygon.points[i], b = polygon.points[(i + 1) % n];
    if (Cross(b - a, q - a) < 0) return false;
  }
  return true;
}

// Do the open segments cross at a single interior point? Touching at an
// endpoint is left to the vertex-edge distances, which are zero there.
bool ProperlyCross(DVec2 p1, DVec2 p2, DVec2 q1, DVec2 q2, DVec2* at) {
  const double d1 = Cross(q2 - q1, p1 - q1);
  const double d2 = Cross(q2 - q1, p2 - q1);
  const double d3 = Cross(p2 - p1, q1 - p1);
  const double d4 = Cross(p2 - p1, q2 - p1);
  if (((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0))) {
    if (at != nullptr) *at = p1 + (d1 / (d1 - d2)) * (p2 - p1);
    return true;
  }
  return false;
}

// Distance between the cores with a closest pair: zero when they intersect.
double CoreCoreDistance(const DProxy& a, const DProxy& b, DVec2* ca, DVec2* cb) {
  DVec2 at;
  for (const auto& [a1, a2] : Segments(a)) {
    for (const auto& [b1, b2] : Segments(b)) {
      if (ProperlyCross(a1, a2, b1, b2, &at)) {
        *ca = *cb = at;
        return 0;
      }
    }
  }
  // No crossing: either one core holds the other whole, or they are apart
  // (or touch, which the vertex distances below report as zero).
  if (b.points.size() >= 3 && InsidePolygon(b, a.points[0])) {
    *ca = *cb = a.points[0];
    return 0;
  }
  if (a.points.size() >= 3 && InsidePolygon(a, b.points[0])) {
    *ca = *cb = b.points[0];
    return 0;
  }
  // Disjoint convex sets: a closest pair always includes a vertex of one.
  double best = kInfinity;
  DVec2 c;
  for (const DVec2 v : a.points) {
    const double d = CoreDistance(b, v, &c);
    if (d < best) best = d, *ca = v, *cb = c;
  }
  for (const DVec2 v : b.points) {
    const double d = CoreDistance(a, v, &c);
    if (d < best) best = d, *ca = c, *cb = v;
  }
  return best;
}

// Minimum of a convex function on [lo, hi] by golden-section search.
template <typename F>
double MinimizeConvex(F f, double lo, double hi) {
  const double g = (std::sqrt(5.0) - 1) / 2;
  double x1 = hi - g * (hi - lo), x2 = lo + g * (hi - lo);
  double f1 = f(x1), f2 = f(x2);
  // 0.618^90 < 1e-18: the bracket shrinks to rounding level.
  for (int i = 0; i < 90; ++i) {
    if (f1 <= f2) {
      hi = x2, x2 = x1, f2 = f1;
      x1 = hi - g * (hi - lo), f1 = f(x1);
    } else {
      lo = x1, x1 = x2, f1 = f2;
      x2 = lo + g * (hi - lo), f2 = f(x2);
    }
  }
  return std::min({f1, f2, f(lo), f(hi)});
}

}  // namespace

DVec2 ClosestPointOnSegment(DVec2 p, DVec2 a, DVec2 b) {
  const DVec2 e = b - a;
  const double ee = Dot(e, e);
  if (ee == 0) return a;
  const double t = std::clamp(Dot(p - a, e) / ee, 0.0, 1.0);
  return a + t * e;
}

double CoreDistance(const DProxy& proxy, DVec2 q, DVec2* closest) {
  const size_t n = proxy.points.size();
  DVec2 c;
  double best;
  if (n == 1) {
    c = proxy.points[0];
    best = Distance(q, c);
  } else if (n == 2) {
    c = ClosestPointOnSegment(q, proxy.points[0], proxy.points[1]);
    best = Distance(q, c);
  } else if (InsidePolygon(proxy, q)) {
    c = q;
    best = 0;
  } else {
    best = kInfinity;
    for (size_t i = 0; i < n; ++i) {
      const DVec2 e = ClosestPointOnSegment(q, proxy.points[i], proxy.points[(i + 1) % n]);
      const double d = Distance(q, e);
      if (d < best) best = d, c = e;
    }
  }
  if (closest != nullptr) *closest = c;
  return best;
}

double SignedDistance(const DProxy& proxy, DVec2 q) {
  if (proxy.points.size() >= 3) {
    const double inside = MaxEdgeSeparation(proxy, q);
    if (inside <= 0) return inside - proxy.radius;
  }
  return CoreDistance(proxy, q) - proxy.radius;
}

DVec2 SurfaceNormal(const DProxy& proxy, DVec2 q) {
  if (proxy.radius > 0) {
    DVec2 c;
    const double d = CoreDistance(proxy, q, &c);
    if (d > 0) return (1.0 / d) * (q - c);
  }
  // The edge whose (offset) face is nearest to q, measured as a distance to
  // the face segment so that q beyond a face's end does not pick it.
  double best = kInfinity;
  DVec2 normal;
  for (const Edge& e : OutwardEdges(proxy)) {
    const DVec2 w1 = e.v1 + proxy.radius * e.normal, w2 = e.v2 + proxy.radius * e.normal;
    double d = Distance(q, ClosestPointOnSegment(q, w1, w2));
    // A segment's two faces coincide without rounding: take q's side.
    if (proxy.points.size() == 2 && Dot(q - w1, e.normal) < 0) d += kInfinity;
    if (d < best) best = d, normal = e.normal;
  }
  return normal;
}

bool Contains(const DProxy& proxy, DVec2 q) { return CoreDistance(proxy, q) <= proxy.radius; }

bool Overlap(const DProxy& a, const DProxy& b) {
  DVec2 ca, cb;
  return CoreCoreDistance(a, b, &ca, &cb) <= a.radius + b.radius;
}

DistanceResult Distance(const DProxy& a, const DProxy& b) {
  DistanceResult out;
  DVec2 ca, cb;
  out.core_distance = CoreCoreDistance(a, b, &ca, &cb);
  const double gap = out.core_distance - a.radius - b.radius;
  if (gap > 0) {
    out.distance = gap;
    out.normal = (1.0 / out.core_distance) * (cb - ca);
    out.point_a = ca + a.radius * out.normal;
    out.point_b = cb - b.radius * out.normal;
  } else {
    out.point_a = ca;
    out.point_b = cb;
  }
  return out;
}

CastResult RayCast(const DProxy& proxy, DVec2 origin, DVec2 translation, double max_fraction) {
  CastResult out;
  if (SignedDistance(proxy, origin) <= 0) {
    out.hit = true;
    out.point = origin;
    return out;
  }
  const double r = proxy.radius;
  const DVec2 d = translation;
  double best = kInfinity;
  DVec2 best_normal;
  // Arcs around the vertices. The origin is outside every disk, so the
  // entry is the smaller root; written as c / q to avoid cancellation.
  if (r > 0) {
    for (const DVec2 v : proxy.points) {
      const DVec2 m = origin - v;
      const double a = Dot(d, d), b = Dot(m, d), c = Dot(m, m) - r * r;
      const double disc = b * b - a * c;
      if (b >= 0 || disc < 0) continue;  // moving away, or missing
      const double t = c / (-b + std::sqrt(disc));
      if (t < best) best = t, best_normal = Normalize(origin + t * d - v);
    }
  }
  // Faces: each edge pushed out by r. Only faces the ray enters count.
  for (const Edge& e : OutwardEdges(proxy)) {
    const double speed = Dot(d, e.normal);
    if (!(speed < 0)) continue;
    const DVec2 w1 = e.v1 + r * e.normal, w2 = e.v2 + r * e.normal;
    const double t = Dot(w1 - origin, e.normal) / speed;
    if (t < 0) continue;
    const DVec2 h = origin + t * d;
    const double s = Dot(h - w1, w2 - w1) / Dot(w2 - w1, w2 - w1);
    if (s < 0 || s > 1) continue;
    if (t < best) best = t, best_normal = e.normal;
  }
  // Without rounding a vertex is a target of its own: a ray running exactly
  // along an edge line meets the polygon at a vertex that no entered face
  // reports (the normal there is undefined: corner_distance is zero).
  if (r == 0 && Dot(d, d) > 0) {
    for (const DVec2 v : proxy.points) {
      if (Cross(d, v - origin) != 0) continue;
      const double t = Dot(v - origin, d) / Dot(d, d);
      if (t >= 0 && t < best) best = t, best_normal = DVec2{};
    }
  }
  if (!(best <= max_fraction)) return out;
  out.hit = true;
  out.fraction = best;
  out.point = origin + best * d;
  out.normal = best_normal;
  if (r == 0) {
    for (const DVec2 v : proxy.points) out.corner_distance = std::min(out.corner_distance, Distance(v, out.point));
  }
  return out;
}

double RayHitMargin(const DProxy& proxy, DVec2 origin, DVec2 translation, double max_fraction) {
  const DVec2 end = origin + max_fraction * translation;
  if (proxy.radius == 0 && proxy.points.size() <= 2) {
    // Zero area: the ray and the segment (or point) either cross or not;
    // the answer is stable while no endpoint comes near the other segment.
    const DVec2 s1 = proxy.points.front(), s2 = proxy.points.back();
    return std::min({Distance(origin, ClosestPointOnSegment(origin, s1, s2)),
                     Distance(end, ClosestPointOnSegment(end, s1, s2)),
                     Distance(s1, ClosestPointOnSegment(s1, origin, end)),
                     Distance(s2, ClosestPointOnSegment(s2, origin, end))});
  }
  const double deepest = MinimizeConvex(
      [&](double t) { return SignedDistance(proxy, origin + t * translation); }, 0.0, max_fraction);
  return std::fabs(deepest);
}

std::vector<DVec2> ConvexHull(std::vector<DVec2> points) {
  std::sort(points.begin(), points.end(), [](DVec2 a, DVec2 b) { return a.x < b.x || (a.x == b.x && a.y < b.y); });
  points.erase(std::unique(points.begin(), points.end(), [](DVec2 a, DVec2 b) { return a.x == b.x && a.y == b.y; }),
               points.end());
  if (points.size() <= 2) return points;
  std::vector<DVec2> hull(2 * points.size());
  size_t k = 0;
  for (size_t i = 0; i < points.size(); ++i) {  // lower chain
    while (k >= 2 && Cross(hull[k - 1] - hull[k - 2], points[i] - hull[k - 2]) <= 0) --k;
    hull[k++] = points[i];
  }
  for (size_t i = points.size() - 1, lower = k + 1; i-- > 0;) {  // upper chain
    while (k >= lower && Cross(hull[k - 1] - hull[k - 2], points[i] - hull[k - 2]) <= 0) --k;
    hull[k++] = points[i];
  }
  hull.resize(k - 1);  // the last point repeats the first
  return hull;
}

DProxy MinkowskiDifference(const DProxy& b, const DProxy& a) {
  DProxy m;
  std::vector<DVec2> diffs;
  for (const DVec2 pb : b.points) {
    for (const DVec2 pa : a.points) diffs.push_back(pb - pa);
  }
  m.points = ConvexHull(std::move(diffs));
  m.radius = a.radius + b.radius;
  return m;
}

CastResult ShapeCast(const DProxy& a, const DProxy& b, DVec2 translation, double max_fraction) {
  CastResult out = RayCast(MinkowskiDifference(b, a), DVec2{}, translation, max_fraction);
  if (out.hit && out.fraction > 0) {
    // At the time of impact the cores are ra + rb apart; the contact point on
    // B is B's closest core point pushed out by its radius along the normal.
    DProxy moved = a;
    for (DVec2& p : moved.points) p = p + out.fraction * translation;
    DVec2 ca, cb;
    CoreCoreDistance(moved, b, &ca, &cb);
    out.point = cb + b.radius * out.normal;
  }
  return out;
}

double ShapeCastHitMargin(const DProxy& a, const DProxy& b, DVec2 translation, double max_fraction) {
  return RayHitMargin(MinkowskiDifference(b, a), DVec2{}, translation, max_fraction);
}

Penetration SignedSeparation(const DProxy& a, const DProxy& b) {
  // Moving B by v makes the pair touch when -v is on the boundary of
  // M = B - A; the smallest such v is minus the boundary point nearest the
  // origin.
  const DProxy m = MinkowskiDifference(b, a);
  const double r = m.radius;
  Penetration out;
  if (m.points.size() >= 3) {
    double first = -kInfinity, second = -kInfinity;
    DVec2 first_normal;
    const size_t n = m.points.size();
    for (size_t i = 0; i < n; ++i) {
      const DVec2 v1 = m.points[i], v2 = m.points[(i + 1) % n];
      const DVec2 normal = Normalize(RightPerp(v2 - v1));
      const double s = Dot(normal, -v1);  // origin's height above the face
      if (s > first) {
        second = first, first = s, first_normal = normal;
      } else if (s > second) {
        second = s;
      }
    }
    if (first <= 0) {  // origin inside the core of M: exit through a face
      out.separation = first - r;
      out.normal = -first_normal;
      out.gap = first - second;
      return out;
    }
  }
  DVec2 c;
  const double d = CoreDistance(m, DVec2{}, &c);
  out.separation = d - r;
  out.lever = d;
  if (d > 0) {
    out.normal = (1.0 / d) * c;
  } else {
    // The origin is on a zero-area core (segment or point): any side will do.
    out.gap = 0;
    out.normal = m.points.size() == 2 ? Normalize(RightPerp(m.points[1] - m.points[0])) : DVec2{1, 0};
  }
  return out;
}

DManifold Manifold(const DProxy& a, const DProxy& b, double speculative) {
  DManifold out;
  const Penetration pen = SignedSeparation(a, b);
  out.normal = pen.normal;
  if (pen.separation > speculative) return out;
  const DVec2 n = pen.normal, t = {-n.y, n.x};
  // Supporting feature of A along n and of B against n: the core points
  // within a hair of the extreme height, as a tangent interval. The hair only
  // merges the two ends of a face that the rounding left unequal.
  double extent = 1;
  for (const DVec2 p : a.points) extent = std::max(extent, Length(p));
  for (const DVec2 p : b.points) extent = std::max(extent, Length(p));
  const double hair = 1e-12 * extent;
  struct Feature {
    DVec2 lo, hi;  // the feature's ends, by tangent coordinate
  };
  auto support = [&](const DProxy& p, DVec2 dir) {
    double top = -kInfinity;
    for (const DVec2 v : p.points) top = std::max(top, Dot(v, dir));
    Feature f{{}, {}};
    bool any = false;
    for (const DVec2 v : p.points) {
      if (Dot(v, dir) < top - hair) continue;
      if (!any || Dot(v, t) < Dot(f.lo, t)) f.lo = v;
      if (!any || Dot(v, t) > Dot(f.hi, t)) f.hi = v;
      any = true;
    }
    return f;
  };
  const Feature fa = support(a, n), fb = support(b, -n);
  // Height along n of a feature at tangent coordinate s (linear along it).
  auto height = [&](const Feature& f, double s) {
    const double s0 = Dot(f.lo, t), s1 = Dot(f.hi, t);
    if (s1 - s0 <= 0) return Dot(f.lo, n);
    const double u = std::clamp((s - s0) / (s1 - s0), 0.0, 1.0);
    return Dot(f.lo + u * (f.hi - f.lo), n);
  };
  double lo = std::max(Dot(fa.lo, t), Dot(fb.lo, t));
  double hi = std::min(Dot(fa.hi, t), Dot(fb.hi, t));
  if (lo > hi) lo = hi = (lo + hi) / 2;  // no common extent: one point between
  for (const double s : {lo, hi}) {
    const double ha = height(fa, s) + a.radius, hb = height(fb, s) - b.radius;
    const DManifoldPoint p{s * t + (0.5 * (ha + hb)) * n, hb - ha};
    if (p.separation <= speculative) out.points.push_back(p);
    if (hi == lo) break;
  }
  return out;
}

DMass ComputeMass(const DProxy& shape) {
  // Accumulate area, first moment and polar second moment about the origin.
  double area = 0, polar = 0;
  DVec2 moment;
  auto add_triangle = [&](DVec2 p, DVec2 q, DVec2 s) {
    const double ar = std::fabs(Cross(q - p, s - p)) / 2;
    area += ar;
    moment = moment + (ar / 3) * (p + q + s);
    // Integral of |x|^2 over a triangle: A/6 (p.p + q.q + s.s + p.q + q.s + s.p).
    polar += ar / 6 * (Dot(p, p) + Dot(q, q) + Dot(s, s) + Dot(p, q) + Dot(q, s) + Dot(s, p));
  };
  const size_t n = shape.points.size();
  const double r = shape.radius;
  if (n >= 3) {
    for (size_t i = 1; i + 1 < n; ++i) add_triangle(shape.points[0], shape.points[i], shape.points[i + 1]);
  }
  if (r > 0) {
    const std::vector<Edge> edges = OutwardEdges(shape);
    for (const Edge& e : edges) {  // the band outside each edge
      add_triangle(e.v1, e.v2, e.v2 + r * e.normal);
      add_triangle(e.v1, e.v2 + r * e.normal, e.v1 + r * e.normal);
    }
    // The sector at each vertex between the normals of its two edges (all
    // of the disk for a single point).
    auto add_sector = [&](DVec2 v, double phi1, double theta) {
      const double phi2 = phi1 + theta;
      const double ar = theta * r * r / 2;
      const DVec2 m_v = {r * r * r / 3 * (std::sin(phi2) - std::sin(phi1)),
                         r * r * r / 3 * (std::cos(phi1) - std::cos(phi2))};
      const double j_v = theta * r * r * r * r / 4;
      area += ar;
      moment = moment + ar * v + m_v;
      polar += j_v + 2 * Dot(v, m_v) + Dot(v, v) * ar;
    };
    if (n == 1) {
      add_sector(shape.points[0], 0, 2 * std::numbers::pi);
    } else {
      const size_t m = edges.size();
      for (size_t i = 0; i < m; ++i) {
        const Edge& in = edges[(i + m - 1) % m];
        const Edge& out = edges[i];  // starts at the vertex `in` ends at
        const double phi1 = std::atan2(in.normal.y, in.normal.x);
        double theta = std::atan2(out.normal.y, out.normal.x) - phi1;
        while (theta < 0) theta += 2 * std::numbers::pi;
        add_sector(out.v1, phi1, theta);
      }
    }
  }
  DMass out;
  out.area = area;
  out.centroid = (1.0 / area) * moment;
  out.inertia = polar - area * Dot(out.centroid, out.centroid);
  return out;
}

}  // namespace arbiter::reference
