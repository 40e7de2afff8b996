// Seeded property tests for chain segments against the double reference
// (tests/reference/chain_reference.h): rays and shape casts are one-sided,
// overlaps see a plain segment, and every contact normal Collide reports
// for a chain segment is one the segment owns by the ghost rule (admitted
// as the plain manifold, skipped, or snapped to the face).
//
// Cases are near the origin at unit scale (property_test.cc covers the
// plain-segment algorithms at every scale). Tolerances: 1e-6 units for
// positions and fractions (a few thousand ulp at this scale); verdicts are
// compared only when the reference's angle is more than kAngleMargin from
// the boundary that decides it (core uses a sine tolerance of 2^-10).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "arbiter/core/chain.h"
#include "arbiter/core/collision.h"
#include "arbiter/core/fixed_math.h"
#include "arbiter/core/manifold.h"
#include "reference/chain_reference.h"
#include "reference/convert.h"
#include "testing/numbers.h"
#include "testing/random.h"

namespace arbiter {
namespace {

namespace ref = reference;
using ref::DVec2;
using testing::RandomFixed;
using testing::RandomVec;
using testing::SplitMix64;
using testing::UniformD;

#if defined(ARBITER_TEST_SANITIZED)
constexpr int kCases = 5000;
#else
constexpr int kCases = 50000;
#endif
constexpr double kTol = 1e-6;
constexpr double kAngleMargin = 0.01;

// A chain segment of length ~1-3 near the origin whose ghosts turn by any
// angle (convex, concave, straight on purpose one time in eight).
ChainSegment RandomChainSegment(SplitMix64& rng) {
  for (;;) {
    ChainSegment c;
    c.point1 = RandomVec(rng, 1.5);
    c.point2 = RandomVec(rng, 1.5);
    const Vec2 d = c.point2 - c.point1;
    c.ghost1 = rng.Next() % 8 == 0 ? c.point1 - d : c.point1 + RandomVec(rng, 2);
    c.ghost2 = rng.Next() % 8 == 0 ? c.point2 + d : c.point2 + RandomVec(rng, 2);
    if (ValidateChainSegment(c) == ShapeError::kOk && Length(d) > Fixed::FromDouble(0.5)) return c;
  }
}

Shape RandomOther(SplitMix64& rng) {
  const Vec2 at = RandomVec(rng, 2.5);
  switch (rng.Next() % 3) {
    case 0: return Shape::FromCircle({at, RandomFixed(rng, 0.05, 0.8)});
    case 1: return Shape::FromCapsule({at, at + RandomVec(rng, 1), RandomFixed(rng, 0.05, 0.5)});
    default: {
      Polygon box;
      const ShapeError e = MakeOffsetBox(RandomFixed(rng, 0.05, 1), RandomFixed(rng, 0.05, 1),
                                         at, MakeRot(RandomFixed(rng, 0, 6.28)), &box);
      if (e != ShapeError::kOk) return Shape::FromCircle({at, Fixed::FromDouble(0.3)});
      if (rng.Bool()) {
        const Fixed radius = RandomFixed(rng, 0, 0.2);
        (void)MakePolygon(std::span<const Vec2>(box.vertices.data(), 4), radius, &box);
      }
      return Shape::FromPolygon(box);
    }
  }
}

ref::DChain ToD(const ChainSegment& c) {
  return {ref::ToD(c.ghost1), ref::ToD(c.point1), ref::ToD(c.point2), ref::ToD(c.ghost2)};
}

// A random chain segment and another shape near it, in core and reference form.
struct PairCase {
  ChainSegment segment;
  ShapeProxy chain, other;
  ref::DChain dc;
  ref::DProxy dother;
};

PairCase MakePairCase(SplitMix64& rng) {
  PairCase c;
  c.segment = RandomChainSegment(rng);
  c.chain = MakeProxy(Shape::FromChainSegment(c.segment), kTransformIdentity);
  c.other = MakeProxy(RandomOther(rng), kTransformIdentity);
  c.dc = ToD(c.segment);
  c.dother = ref::ToD(c.other);
  return c;
}

TEST(ChainProperty, RaysAreOneSidedAndOtherwiseExact) {
  SplitMix64 rng(7101);
  int hits = 0, hidden = 0;
  for (int i = 0; i < kCases; ++i) {
    const ChainSegment c = RandomChainSegment(rng);
    const ShapeProxy proxy = MakeProxy(Shape::FromChainSegment(c), kTransformIdentity);
    const RayCastInput ray{RandomVec(rng, 3), RandomVec(rng, 6), kFixedOne};
    const ref::DChain dc = ToD(c);
    const DVec2 origin = ref::ToD(ray.origin), translation = ref::ToD(ray.translation);
    if (std::fabs(ref::FrontDistance(dc, origin)) < kTol) continue;
    if (ref::RayHitMargin(ref::SegmentOf(dc), origin, translation, 1) < kTol) continue;
    const CastOutput got = RayCast(proxy, ray);
    const ref::CastResult want = ref::ChainRayCast(dc, origin, translation, 1);
    ASSERT_EQ(got.hit, want.hit) << "case " << i;
    if (!want.hit) {
      hidden += ref::RayCast(ref::SegmentOf(dc), origin, translation, 1).hit ? 1 : 0;
      continue;
    }
    ++hits;
    EXPECT_NEAR(got.fraction.ToDouble(), want.fraction, kTol * 100) << "case " << i;
    // A hit from the front meets the face (or an end): the normal faces the ray.
    EXPECT_LE(Dot(got.normal, ray.translation), kFixedZero) << "case " << i;
  }
  RecordProperty("hits", hits);
  RecordProperty("hidden_by_one_side", hidden);
  EXPECT_GT(hits, kCases / 40);
  EXPECT_GT(hidden, kCases / 40);
}

TEST(ChainProperty, OverlapsSeeAPlainSegmentAndCastsAreOneSided) {
  SplitMix64 rng(7102);
  int cast_hits = 0, cast_hidden = 0;
  for (int i = 0; i < kCases; ++i) {
    const PairCase pc = MakePairCase(rng);
    const ShapeProxy& chain = pc.chain;
    const ShapeProxy& other = pc.other;
    const ref::DChain& dc = pc.dc;
    const ref::DProxy& dother = pc.dother;
    const double separation = ref::SignedSeparation(ref::SegmentOf(dc), dother).separation;
    if (std::fabs(separation) > kTol) {
      ASSERT_EQ(TestOverlap(chain, other), separation < 0) << "case " << i;
      ASSERT_EQ(TestOverlap(other, chain), separation < 0) << "case " << i;
    }
    const Vec2 t = RandomVec(rng, 5);
    const DVec2 dt = ref::ToD(t);
    if (std::fabs(ref::FrontDistance(dc, ref::Centre(dother))) < kTol) continue;
    if (ref::ShapeCastHitMargin(dother, ref::SegmentOf(dc), dt, 1) < kTol) continue;
    const CastOutput got = ShapeCast({other, chain, t, kFixedOne});
    const ref::CastResult want = ref::ChainShapeCast(dother, dc, dt, 1);
    ASSERT_EQ(got.hit, want.hit) << "case " << i;
    if (want.hit) {
      ++cast_hits;
      EXPECT_NEAR(got.fraction.ToDouble(), want.fraction, 1e-4) << "case " << i;
    } else if (ref::ShapeCast(dother, ref::SegmentOf(dc), dt, 1).hit) {
      ++cast_hidden;
    }
  }
  RecordProperty("cast_hits", cast_hits);
  RecordProperty("cast_hidden_by_one_side", cast_hidden);
  EXPECT_GT(cast_hits, kCases / 50);
  EXPECT_GT(cast_hidden, kCases / 50);
}

TEST(ChainProperty, ContactNormalsFollowTheGhostRule) {
  SplitMix64 rng(7103);
  int admitted = 0, skipped = 0, snapped = 0, behind = 0;
  for (int i = 0; i < kCases; ++i) {
    const PairCase pc = MakePairCase(rng);
    const ChainSegment& c = pc.segment;
    const ShapeProxy& chain = pc.chain;
    const ShapeProxy& other = pc.other;
    const ref::DChain& dc = pc.dc;
    const ref::DProxy& dother = pc.dother;
    const Fixed spec = RandomFixed(rng, 0, 0.2);
    const Manifold got = Collide(chain, other, spec);
    const Manifold flipped = Collide(other, chain, spec);
    ASSERT_EQ(got.point_count, flipped.point_count) << "case " << i;
    if (got.point_count > 0) {
      ASSERT_EQ(flipped.normal, -got.normal) << "case " << i;
    }
    const double front = ref::FrontDistance(dc, ref::Centre(dother));
    if (std::fabs(front) < kTol) continue;
    if (front < 0) {
      ASSERT_EQ(got.point_count, 0) << "case " << i << ": a contact from behind";
      ++behind;
      continue;
    }
    const ref::Penetration pen = ref::SignedSeparation(ref::SegmentOf(dc), dother);
    if (pen.separation > spec.ToDouble() + kTol) {
      ASSERT_EQ(got.point_count, 0) << "case " << i;
      continue;
    }
    if (pen.separation > spec.ToDouble() - kTol || pen.gap < 1e-3 || pen.lever < 1e-3) continue;
    double margin = 0;
    const ref::DVerdict verdict = ref::ClassifyNormal(dc, pen.normal, &margin);
    if (margin < kAngleMargin) continue;
    const Vec2 face = Normalize(RightPerp(c.point2 - c.point1));
    switch (verdict) {
      case ref::DVerdict::kAdmit: {
        ASSERT_GT(got.point_count, 0) << "case " << i << ": an owned contact was dropped";
        EXPECT_NEAR(got.normal.x.ToDouble(), pen.normal.x, 1e-5) << "case " << i;
        EXPECT_NEAR(got.normal.y.ToDouble(), pen.normal.y, 1e-5) << "case " << i;
        ++admitted;
        break;
      }
      case ref::DVerdict::kSkip:
        ASSERT_EQ(got.point_count, 0) << "case " << i << ": a neighbour's contact was kept";
        ++skipped;
        break;
      case ref::DVerdict::kSnap: {
        if (got.point_count > 0) {
          EXPECT_EQ(got.normal, face) << "case " << i;
        }
        // Never deeper than the other shape reaches below the face.
        double deepest = 1e9;
        const DVec2 n = ref::ToD(face);
        for (const DVec2 p : dother.points) deepest = std::min(deepest, ref::Dot(p - dc.point1, n));
        for (int k = 0; k < got.point_count; ++k) {
          EXPECT_GE(got.points[k].separation.ToDouble(), deepest - dother.radius - kTol) << "case " << i;
        }
        ++snapped;
        break;
      }
    }
  }
  RecordProperty("admitted", admitted);
  RecordProperty("skipped", skipped);
  RecordProperty("snapped", snapped);
  RecordProperty("behind", behind);
  std::printf("[ summary  ] admitted %d, skipped %d, snapped %d, behind %d of %d\n", admitted, skipped, snapped, behind, kCases);
  EXPECT_GT(admitted, kCases / 50);
  EXPECT_GT(skipped, kCases / 500);
  EXPECT_GT(snapped, kCases / 200);
}

}  // namespace
}  // namespace arbiter
