// Contact manifolds against a one-sided chain segment (chain.h).
//
// After Box2D v2.4's b2CollideEdgeAndPolygon ("smooth collision", Catto,
// box2d.org/posts/2020/06/ghost-collisions) and v3's chain segment
// routines, written for Q32.32 on top of the generic Collide:
//
//  1. One side: no contact unless the other shape's centre (ProxyCenter)
//     lies strictly in front of the segment's line (exact).
//  2. The generic manifold of the plain segment against the other shape.
//  3. Its normal n (from the segment toward the other shape) is classified
//     against the cone of normals the segment owns. n leans toward the end
//     it points along (dot(n, d) <= 0 leans toward point1); the ghost at
//     that end gives the neighbour's edge e:
//      - behind the face (dot(n, RightPerp(d)) <= 0): SNAP to the face;
//      - convex joint (a left turn from e into d, straight included): the
//        segment owns the normals between its face normal and the
//        neighbour's. A normal past the neighbour's by more than
//        kConeTolerance belongs to the neighbour: SKIP (the neighbour makes
//        that contact; a box sliding over a flat joint meets no corner);
//        otherwise ADMIT;
//      - concave joint: only the face normal belongs here; a normal leaning
//        more than kConeTolerance toward the joint SNAPs to the face.
//     The tolerance admits a normal on the boundary of two cones by both
//     segments, so rounding can never make both skip it.
// Snapped manifolds use the segment's face as reference (CollideOnFirstFace).
#include "arbiter/core/chain.h"
#include "arbiter/core/fixed_math.h"
#include "manifold_internal.h"

namespace arbiter::internal {
namespace {

/// Sine of the angle by which a normal may pass a cone's edge and still be
/// admitted (2^-10, about 0.06 degrees): far above the rounding of a unit
/// normal (2^-31), far below any joint angle that matters.
constexpr Fixed kConeTolerance = Fixed::FromRaw(int64_t{1} << 22);

enum class Verdict { kAdmit, kSkip, kSnap };

// Exact: dot(n, e) beyond tolerance * |e|, on the side given by `sign`
// (+1: dot > tol |e|; -1: dot < -tol |e|).
bool PastBy(Vec2 n, Vec2 e, int sign) {
  const Int128 dot = DotWide(n, e);
  const Int128 margin = MulWide(kConeTolerance, Length(e));
  return sign > 0 ? dot > margin : dot < -margin;
}

Verdict Classify(const ShapeProxy& chain, Vec2 n) {
  const Vec2 p1 = chain.points[0], p2 = chain.points[1];
  const Vec2 d = p2 - p1;
  if (DotWide(n, RightPerp(d)).Sign() <= 0) return Verdict::kSnap;
  const bool toward_p1 = DotWide(n, d).Sign() <= 0;
  const Vec2 e = toward_p1 ? p1 - chain.ghost1 : chain.ghost2 - p2;
  const bool convex = (toward_p1 ? CrossWide(e, d) : CrossWide(d, e)).Sign() >= 0;
  // Leaning toward point1 means dot(n, d) < 0; "past the neighbour's
  // normal" at point1 is dot(n, e) < 0, at point2 dot(n, e) > 0.
  const int outward = toward_p1 ? -1 : 1;
  if (convex) return PastBy(n, e, outward) ? Verdict::kSkip : Verdict::kAdmit;
  return PastBy(n, d, outward) ? Verdict::kSnap : Verdict::kAdmit;
}

Manifold CollideChainSegment(const ShapeProxy& chain, const ShapeProxy& other, Fixed spec) {
  if (ChainSide(chain, ProxyCenter(other)) <= 0) return Manifold{};
  ShapeProxy segment = chain;
  segment.one_sided = false;
  const Manifold m = Collide(segment, other, spec);
  if (m.point_count == 0) return m;
  switch (Classify(chain, m.normal)) {
    case Verdict::kAdmit: return m;
    case Verdict::kSkip: return Manifold{};
    case Verdict::kSnap: break;
  }
  return CollideOnFirstFace(segment, other, spec);
}

}  // namespace

Manifold CollideWithChain(const ShapeProxy& a, const ShapeProxy& b, Fixed spec) {
  if (a.one_sided && b.one_sided) return Manifold{};
  if (a.one_sided) return CollideChainSegment(a, b, spec);
  Manifold m = CollideChainSegment(b, a, spec);
  m.normal = -m.normal;
  for (int i = 0; i < m.point_count; ++i) m.points[i].id = SwapFeatureSides(m.points[i].id);
  return m;
}

}  // namespace arbiter::internal
