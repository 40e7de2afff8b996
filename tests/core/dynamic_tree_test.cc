#include "dynamic_tree.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "arbiter/core/limits.h"
#include "compact_tree.h"
#include "testing/random.h"

namespace arbiter::internal {
namespace {

Aabb RandomBox(testing::SplitMix64& rng) {
  const int64_t x = rng.Uniform(-(int64_t{1000} << 32), int64_t{1000} << 32);
  const int64_t y = rng.Uniform(-(int64_t{1000} << 32), int64_t{1000} << 32);
  const int64_t w = rng.Uniform(0, int64_t{20} << 32), h = rng.Uniform(0, int64_t{20} << 32);
  return {{Fixed::FromRaw(x), Fixed::FromRaw(y)}, {Fixed::FromRaw(x + w), Fixed::FromRaw(y + h)}};
}

// A tree of random boxes: box i is proxies[i]'s (until removed), user i.
class RandomTree : public ::testing::Test {
 protected:
  void Add() {
    boxes.push_back(RandomBox(rng));
    proxies.push_back(tree.CreateProxy(boxes.back(), static_cast<uint32_t>(boxes.size() - 1)));
  }
  testing::SplitMix64 rng{0};
  DynamicTree tree;
  std::vector<int32_t> proxies;
  std::vector<Aabb> boxes;
};

TEST_F(RandomTree, StaysValidAndBalancedUnderChurn) {
  rng = testing::SplitMix64(40);
  for (int step = 0; step < 6000; ++step) {
    const uint64_t op = rng.Next() % 10;
    if (op < 5 || proxies.empty()) {
      Add();
    } else if (op < 8) {
      const size_t i = rng.Next() % proxies.size();
      boxes[tree.GetUser(proxies[i])] = RandomBox(rng);
      tree.MoveProxy(proxies[i], boxes[tree.GetUser(proxies[i])]);
    } else {
      const size_t i = rng.Next() % proxies.size();
      tree.DestroyProxy(proxies[i]);
      proxies.erase(proxies.begin() + static_cast<std::ptrdiff_t>(i));
    }
    if (step % 500 == 0) {
      ASSERT_TRUE(tree.Validate()) << "step " << step;
    }
  }
  ASSERT_TRUE(tree.Validate());
  // AVL balance keeps the height logarithmic.
  EXPECT_LE(tree.height(), 3 * 12);
  tree.Rebuild();
  ASSERT_TRUE(tree.Validate());
  EXPECT_EQ(tree.leaf_count(), static_cast<int32_t>(proxies.size()));

  // Every query finds exactly the overlapping leaves.
  for (int q = 0; q < 200; ++q) {
    const Aabb probe = RandomBox(rng);
    std::vector<uint32_t> found;
    tree.Query(probe, [&](uint32_t user) {
      found.push_back(user);
      return true;
    });
    std::vector<uint32_t> expected;
    for (int32_t p : proxies) {
      if (Overlaps(tree.GetAabb(p), probe)) expected.push_back(tree.GetUser(p));
    }
    std::sort(found.begin(), found.end());
    std::sort(expected.begin(), expected.end());
    ASSERT_EQ(found, expected);
  }
}

// Small moves: a leaf whose new box stays inside its parent's keeps its
// place and only the boxes above it are refitted (every shrink takes that
// path); the others are re-inserted. Boxes must stay exact unions and
// queries exact either way.
TEST_F(RandomTree, SmallMovesKeepBoxesExactAndQueriesComplete) {
  rng = testing::SplitMix64(42);
  for (int i = 0; i < 300; ++i) Add();
  const int64_t unit = int64_t{1} << 32;
  for (int step = 0; step < 4000; ++step) {
    const size_t i = rng.Next() % proxies.size();
    Aabb& box = boxes[i];
    if (rng.Next() % 2 == 0) {
      // Shrink by up to a quarter unit on each side (never past empty).
      const int64_t dx = std::min(rng.Uniform(0, unit / 4), (box.upper.x - box.lower.x).raw() / 2);
      const int64_t dy = std::min(rng.Uniform(0, unit / 4), (box.upper.y - box.lower.y).raw() / 2);
      box = {{box.lower.x + Fixed::FromRaw(dx), box.lower.y + Fixed::FromRaw(dy)},
             {box.upper.x - Fixed::FromRaw(dx), box.upper.y - Fixed::FromRaw(dy)}};
    } else {
      const Vec2 d{Fixed::FromRaw(rng.Uniform(-unit, unit)), Fixed::FromRaw(rng.Uniform(-unit, unit))};
      box = {box.lower + d, box.upper + d + Vec2{Fixed::FromRaw(unit / 8), Fixed::FromRaw(unit / 8)}};
    }
    tree.MoveProxy(proxies[i], box);
    ASSERT_EQ(tree.GetAabb(proxies[i]), box);
    if (step % 250 == 0) {
      ASSERT_TRUE(tree.Validate()) << "step " << step;
    }
  }
  ASSERT_TRUE(tree.Validate());
  EXPECT_LE(tree.height(), 3 * 9);
  for (int q = 0; q < 200; ++q) {
    const Aabb probe = RandomBox(rng);
    std::vector<uint32_t> found, expected;
    tree.Query(probe, [&](uint32_t user) {
      found.push_back(user);
      return true;
    });
    for (size_t i = 0; i < boxes.size(); ++i) {
      if (Overlaps(boxes[i], probe)) expected.push_back(static_cast<uint32_t>(i));
    }
    std::sort(found.begin(), found.end());
    ASSERT_EQ(found, expected);
  }
}

// Both trees: the static one (CompactTree) tests rounded-out boxes.
template <class Tree>
class AnyTree : public ::testing::Test {};
using TreeTypes = ::testing::Types<DynamicTree, CompactTree>;
TYPED_TEST_SUITE(AnyTree, TreeTypes);

TYPED_TEST(AnyTree, RayCastNeverSkipsABoxTheSegmentTouches) {
  testing::SplitMix64 rng(41);
  TypeParam tree;
  std::vector<Aabb> boxes;
  for (int i = 0; i < 2000; ++i) {
    boxes.push_back(RandomBox(rng));
    tree.CreateProxy(boxes.back(), static_cast<uint32_t>(i));
  }
  tree.Rebuild();
  for (int q = 0; q < 300; ++q) {
    const Aabb a = RandomBox(rng);
    const Vec2 origin = a.lower, translation = a.upper - a.lower + Vec2{Fixed::FromInt(-300), Fixed::FromInt(150)};
    std::vector<uint32_t> visited;
    tree.RayCast(origin, translation, kFixedOne, Vec2{}, [&](uint32_t user) {
      visited.push_back(user);
      return kFixedOne;
    });
    std::sort(visited.begin(), visited.end());
    // Reference: sample-free exact test of segment against each box (slab
    // clipping in long double is accurate enough away from the boundary).
    for (uint32_t i = 0; i < boxes.size(); ++i) {
      long double t0 = 0, t1 = 1;
      const long double o[2] = {origin.x.ToDouble(), origin.y.ToDouble()};
      const long double d[2] = {translation.x.ToDouble(), translation.y.ToDouble()};
      const long double lo[2] = {boxes[i].lower.x.ToDouble(), boxes[i].lower.y.ToDouble()};
      const long double hi[2] = {boxes[i].upper.x.ToDouble(), boxes[i].upper.y.ToDouble()};
      bool hit = true;
      for (int k = 0; k < 2 && hit; ++k) {
        if (d[k] == 0) {
          hit = o[k] >= lo[k] - 1e-6L && o[k] <= hi[k] + 1e-6L;
          continue;
        }
        long double a1 = (lo[k] - o[k]) / d[k], a2 = (hi[k] - o[k]) / d[k];
        if (a1 > a2) std::swap(a1, a2);
        t0 = std::max(t0, a1 - 1e-9L);
        t1 = std::min(t1, a2 + 1e-9L);
        hit = t0 <= t1;
      }
      if (hit) {
        ASSERT_TRUE(std::binary_search(visited.begin(), visited.end(), i)) << "box " << i << " skipped";
      }
    }
  }
}

// Exact reference for SegmentBoxFilter: the segment origin + t d, t in
// [0, 1], meets the box iff their boxes overlap and the box is not strictly
// on one side of the segment's line (doubled centre, 128-bit products).
bool SegmentMeetsBoxExactly(Vec2 o, Vec2 d, const Aabb& box) {
  const Vec2 e = o + d;
  const Aabb seg{{Min(o.x, e.x), Min(o.y, e.y)}, {Max(o.x, e.x), Max(o.y, e.y)}};
  if (!Overlaps(seg, box)) return false;
  // Doubled centres reach 2^63 and the products 2^126: native 128 bits (the
  // test runs on 64-bit hosts; the core itself never needs this).
  using I = __int128;
  const I cx = I{box.lower.x.raw()} + box.upper.x.raw() - 2 * I{o.x.raw()};
  const I cy = I{box.lower.y.raw()} + box.upper.y.raw() - 2 * I{o.y.raw()};
  const I hx = I{box.upper.x.raw()} - box.lower.x.raw();
  const I hy = I{box.upper.y.raw()} - box.lower.y.raw();
  I cross = cy * d.x.raw() - cx * d.y.raw();
  if (cross < 0) cross = -cross;
  const I reach = hx * Abs(d.y).raw() + hy * Abs(d.x).raw();
  return cross <= reach;
}

// Random segments and boxes over every scale the world allows (coordinates
// up to 2^29 units, translations up to 2^30), plus boxes placed to graze
// the segment's line: the 64-bit filter must accept every box the exact
// test accepts.
TEST(SegmentBoxFilter, NeverRejectsABoxTheSegmentTouches) {
  testing::SplitMix64 rng(42);
  const int64_t world = int64_t{1} << 61;  // 2^29 units, raw
  int64_t accepted_exactly = 0, rejected = 0;
  for (int i = 0; i < 200000; ++i) {
    const int scale = static_cast<int>(rng.Next() % 60) + 2;  // raw magnitudes up to 2^61
    const int64_t span = int64_t{1} << scale;
    auto coordinate = [&] { return Fixed::FromRaw(std::clamp<int64_t>(rng.Uniform(-span, span), -world, world)); };
    const Vec2 o{coordinate(), coordinate()};
    Vec2 d{coordinate() - o.x, coordinate() - o.y};
    if (rng.Next() % 8 == 0) d.x = kFixedZero;  // axis-aligned segments
    Aabb box;
    if (rng.Bool()) {
      const Vec2 a{coordinate(), coordinate()}, b{coordinate(), coordinate()};
      box = {{Min(a.x, b.x), Min(a.y, b.y)}, {Max(a.x, b.x), Max(a.y, b.y)}};
    } else {
      // A corner on (or an ulp off) a point of the segment.
      const Fixed t = Fixed::FromRaw(rng.Uniform(0, Fixed::kOneRaw));
      const Vec2 p = MulAdd(o, t, d);
      const int64_t w = rng.Uniform(0, span), h = rng.Uniform(0, span);
      const int64_t jitter = rng.Uniform(-1, 1);
      const Vec2 lo{p.x + Fixed::FromRaw(jitter), p.y};
      box = {lo, {lo.x + Fixed::FromRaw(w), lo.y + Fixed::FromRaw(h)}};
      if (rng.Bool()) box = {{lo.x - Fixed::FromRaw(w), lo.y - Fixed::FromRaw(h)}, lo};
    }
    const Fixed ulp = Fixed::FromRaw(1);
    const Vec2 e = o + d;
    const Aabb seg{{Min(o.x, e.x) - ulp, Min(o.y, e.y) - ulp}, {Max(o.x, e.x) + ulp, Max(o.y, e.y) + ulp}};
    const SegmentBoxFilter filter(o, d, seg, Vec2{});
    SegmentBoxFilter::Centre centre;
    const bool may = filter.MayTouch(box, &centre);
    if (SegmentMeetsBoxExactly(o, d, box)) {
      ++accepted_exactly;
      ASSERT_TRUE(may) << "case " << i << ": o (" << o.x.raw() << ", " << o.y.raw() << ") d (" << d.x.raw() << ", "
                       << d.y.raw() << ") box [" << box.lower.x.raw() << ", " << box.lower.y.raw() << "] - ["
                       << box.upper.x.raw() << ", " << box.upper.y.raw() << "]";
    } else if (!may) {
      ++rejected;
    }
  }
  // The filter must also be useful: it rejects most boxes the segment misses.
  EXPECT_GT(accepted_exactly, 20000);
  EXPECT_GT(rejected, 50000);
}

// The box test's raw bounds (Shorten) at the limits: origins at the world's
// corners, translations of kMaxQueryTranslation toward the far corner,
// boxes inflated by half the largest shape extent, touching the segment's
// far end or an ulp beyond the segment's box. Must neither overflow nor
// reject a touching box.
TEST(SegmentBoxFilter, RawBoundsHoldAtTheLimits) {
  const Fixed world = kFixedMaxWorldCoordinate;
  const Fixed reach = Fixed::FromRaw(kMaxQueryTranslation.raw() / 2);  // per axis, |d| < kMaxQueryTranslation
  const Vec2 inflate{Fixed::FromInt(kMaxShapeExtent / 2), Fixed::FromInt(kMaxShapeExtent / 2)};
  const Fixed ulp = Fixed::FromRaw(1);
  for (const int sx : {-1, 1}) {
    for (const int sy : {-1, 1}) {
      const Vec2 o{sx > 0 ? world : -world, sy > 0 ? world : -world};
      const Vec2 d{sx > 0 ? -reach : reach, sy > 0 ? -reach : reach};
      const Vec2 e = o + d;
      const Aabb seg{{Min(o.x, e.x) - ulp, Min(o.y, e.y) - ulp}, {Max(o.x, e.x) + ulp, Max(o.y, e.y) + ulp}};
      const SegmentBoxFilter filter(o, d, seg, inflate);
      SegmentBoxFilter::Centre centre;
      // A point box whose inflated copy has a corner at the segment's end,
      // beyond it: touches.
      const Vec2 p{d.x > kFixedZero ? e.x + inflate.x : e.x - inflate.x, d.y > kFixedZero ? e.y + inflate.y : e.y - inflate.y};
      EXPECT_TRUE(SegmentMeetsBoxExactly(o, d, Aabb{p - inflate, p + inflate})) << sx << " " << sy;
      EXPECT_TRUE(filter.MayTouch(Aabb{p, p}, &centre)) << sx << " " << sy;
      // Past the segment's box by more than the inflation: rejected.
      const Vec2 beyond{sx > 0 ? seg.lower.x - inflate.x - Fixed::FromInt(2) : seg.upper.x + inflate.x + Fixed::FromInt(2),
                        sy > 0 ? seg.lower.y - inflate.y - Fixed::FromInt(2) : seg.upper.y + inflate.y + Fixed::FromInt(2)};
      EXPECT_FALSE(filter.MayTouch(Aabb{beyond, beyond}, &centre)) << sx << " " << sy;
    }
  }
}

}  // namespace
}  // namespace arbiter::internal
