// The static tree's rounded-out boxes (quantized_box.h) and its structure
// (compact_tree.h): every decoded box contains the exact one, at every
// scale up to the world's limits, and queries never miss a leaf.
#include "compact_tree.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "arbiter/core/limits.h"
#include "testing/random.h"

namespace arbiter::internal {
namespace {

// |coordinate| of any static shape's box: position 2^29 units plus extent
// and radius of 2^24 each (quantized_box.h), in raw units.
constexpr int64_t kReach = (int64_t{1} << 61) + (int64_t{1} << 58);

Aabb BoxAtScale(testing::SplitMix64& rng, int scale) {
  const int64_t span = int64_t{1} << scale;
  auto coordinate = [&] { return std::clamp<int64_t>(rng.Uniform(-span, span), -kReach, kReach); };
  const int64_t x1 = coordinate(), x2 = coordinate(), y1 = coordinate(), y2 = coordinate();
  return {{Fixed::FromRaw(std::min(x1, x2)), Fixed::FromRaw(std::min(y1, y2))},
          {Fixed::FromRaw(std::max(x1, x2)), Fixed::FromRaw(std::max(y1, y2))}};
}

// Frames around random bounds at every scale (and at the limits): every
// box inside the bounds is held, decodes to a box that contains it, and a
// query box that overlaps it exactly overlaps it in frame units.
TEST(QuantFrame, DecodedBoxesContainTheExactOnesAtEveryScale) {
  testing::SplitMix64 rng(24);
  for (int i = 0; i < 20000; ++i) {
    const int scale = static_cast<int>(rng.Next() % 61) + 2;
    Aabb bounds = BoxAtScale(rng, scale);
    if (i % 16 == 0) bounds = {{Fixed::FromRaw(-kReach), Fixed::FromRaw(-kReach)}, {Fixed::FromRaw(kReach), Fixed::FromRaw(kReach)}};
    const QuantFrame frame = QuantFrame::Around(bounds);
    ASSERT_TRUE(frame.Holds(bounds));
    for (int k = 0; k < 8; ++k) {
      // A box inside the bounds, often a point or touching a side.
      auto inside = [&](Fixed lo, Fixed hi) {
        const uint64_t width = static_cast<uint64_t>(hi.raw()) - static_cast<uint64_t>(lo.raw());
        const uint64_t pick = rng.Next() % 4 == 0 ? (rng.Bool() ? 0 : width) : rng.Next() % (width + 1);
        return Fixed::FromRaw(static_cast<int64_t>(static_cast<uint64_t>(lo.raw()) + pick));
      };
      const Fixed x1 = inside(bounds.lower.x, bounds.upper.x), x2 = inside(bounds.lower.x, bounds.upper.x);
      const Fixed y1 = inside(bounds.lower.y, bounds.upper.y), y2 = inside(bounds.lower.y, bounds.upper.y);
      const Aabb box{{Min(x1, x2), Min(y1, y2)}, {Max(x1, x2), Max(y1, y2)}};
      ASSERT_TRUE(frame.Holds(box));
      const QBox q = frame.Encode(box);
      ASSERT_TRUE(Contains(frame.Decode(q), box)) << "case " << i;
      // Re-encoding in a wider frame keeps containment (CompactTree::Reframe).
      const QuantFrame wider = QuantFrame::Around(Union(bounds, BoxAtScale(rng, std::min(scale + 4, 62))));
      ASSERT_TRUE(Contains(wider.Decode(wider.Encode(frame.Decode(q))), box)) << "case " << i;
      // A query anywhere (beyond the frame too, where it is clamped).
      const Aabb probe = BoxAtScale(rng, static_cast<int>(rng.Next() % 61) + 2);
      if (Overlaps(probe, box)) {
        ASSERT_TRUE(Overlaps(q, frame.EncodeQuery(probe))) << "case " << i;
      }
      const Aabb touching{box.upper, box.upper + Vec2{Fixed::FromRaw(rng.Uniform(0, 1000)), Fixed::FromRaw(rng.Uniform(0, 1000))}};
      ASSERT_TRUE(Overlaps(q, frame.EncodeQuery(touching))) << "case " << i;
    }
  }
}

// SegmentBoxFilter on frame units (the static tree's walk) must decide as
// it does on the decoded box in raw units, centre included: the class
// comment derives the same operands. Segments and frames at every scale,
// up to the limits (origins 2^29 units, translations 2^30, inflation 2^23).
TEST(QuantFrame, SegmentFilterInFrameUnitsMatchesTheDecodedBox) {
  testing::SplitMix64 rng(43);
  const int64_t world = int64_t{1} << 61;
  int64_t accepted = 0;
  for (int i = 0; i < 100000; ++i) {
    const int scale = static_cast<int>(rng.Next() % 60) + 2;
    const Aabb bounds = BoxAtScale(rng, scale);
    const QuantFrame frame = QuantFrame::Around(bounds);
    const Aabb box = BoxAtScale(rng, std::max(2, scale - static_cast<int>(rng.Next() % 8)));
    if (!frame.Holds(box)) continue;
    const QBox q = frame.Encode(box);
    const int64_t span = int64_t{1} << (static_cast<int>(rng.Next() % 60) + 2);
    auto coordinate = [&] { return Fixed::FromRaw(std::clamp<int64_t>(rng.Uniform(-span, span), -world, world)); };
    const Vec2 o{coordinate(), coordinate()};
    const Vec2 d{Fixed::FromRaw(std::clamp<int64_t>(rng.Uniform(-span, span), -(world * 2), world * 2)),
                 rng.Next() % 8 == 0 ? kFixedZero : coordinate() - o.y};
    const Fixed half = Fixed::FromRaw(rng.Uniform(0, int64_t{1} << 55));
    const Vec2 inflate = rng.Bool() ? Vec2{} : Vec2{half, half};
    const Fixed ulp = Fixed::FromRaw(1);
    const Vec2 e = o + d;
    const Aabb seg{{Min(o.x, e.x) - ulp, Min(o.y, e.y) - ulp}, {Max(o.x, e.x) + ulp, Max(o.y, e.y) + ulp}};
    const SegmentBoxFilter raw(o, d, seg, inflate);
    const SegmentBoxFilter framed(o, d, seg, inflate, frame.box_frame());
    SegmentBoxFilter::Centre c1, c2;
    const bool may_raw = raw.MayTouch(frame.Decode(q), &c1);
    const bool may_framed = framed.MayTouch(q.lx, q.ly, q.ux, q.uy, &c2);
    ASSERT_EQ(may_raw, may_framed) << "case " << i;
    if (may_raw) {
      ++accepted;
      ASSERT_EQ(c1.x, c2.x) << "case " << i;
      ASSERT_EQ(c1.y, c2.y) << "case " << i;
    }
  }
  EXPECT_GT(accepted, 1000);
}

Aabb RandomBox(testing::SplitMix64& rng, int64_t range_units) {
  const int64_t unit = int64_t{1} << 32;
  const int64_t x = rng.Uniform(-range_units * unit, range_units * unit);
  const int64_t y = rng.Uniform(-range_units * unit, range_units * unit);
  const int64_t w = rng.Uniform(0, 20 * unit), h = rng.Uniform(0, 20 * unit);
  return {{Fixed::FromRaw(x), Fixed::FromRaw(y)}, {Fixed::FromRaw(x + w), Fixed::FromRaw(y + h)}};
}

// Keys 0..n-1 with their exact boxes; keys of removed leaves are absent.
struct Shadow {
  std::vector<Aabb> boxes;
  std::vector<bool> live;

  void ExpectQueriesComplete(const CompactTree& tree, testing::SplitMix64& rng, int64_t range_units) const {
    for (int q = 0; q < 200; ++q) {
      const Aabb probe = RandomBox(rng, range_units);
      std::vector<uint32_t> found;
      tree.Query(probe, [&](uint32_t key) {
        found.push_back(key);
        return true;
      });
      std::sort(found.begin(), found.end());
      ASSERT_TRUE(std::adjacent_find(found.begin(), found.end()) == found.end());
      for (uint32_t k = 0; k < boxes.size(); ++k) {
        if (live[k] && Overlaps(boxes[k], probe)) {
          ASSERT_TRUE(std::binary_search(found.begin(), found.end(), k)) << "leaf " << k << " missed";
        }
      }
      // Only boxes that overlap up to rounding: an ulp of the frame here.
      const Vec2 grace{Fixed::FromRaw(int64_t{1} << 20), Fixed::FromRaw(int64_t{1} << 20)};
      for (uint32_t k : found) {
        ASSERT_TRUE(live[k]);
        ASSERT_TRUE(Overlaps(boxes[k], Aabb{probe.lower - grace, probe.upper + grace})) << "leaf " << k;
      }
    }
  }
};

TEST(CompactTree, StaysValidUnderChurnAndQueriesStayComplete) {
  testing::SplitMix64 rng(40);
  CompactTree tree;
  Shadow shadow;
  std::vector<uint32_t> live_keys;
  for (int step = 0; step < 6000; ++step) {
    const uint64_t op = rng.Next() % 10;
    if (op < 5 || live_keys.empty()) {
      const uint32_t key = static_cast<uint32_t>(shadow.boxes.size());
      shadow.boxes.push_back(RandomBox(rng, 1000));
      shadow.live.push_back(true);
      ASSERT_EQ(tree.CreateProxy(shadow.boxes.back(), key), static_cast<int32_t>(key));
      live_keys.push_back(key);
    } else if (op < 8) {
      const uint32_t key = live_keys[rng.Next() % live_keys.size()];
      shadow.boxes[key] = RandomBox(rng, 1000);
      tree.MoveProxy(static_cast<int32_t>(key), shadow.boxes[key]);
    } else {
      const size_t i = rng.Next() % live_keys.size();
      tree.DestroyProxy(static_cast<int32_t>(live_keys[i]));
      shadow.live[live_keys[i]] = false;
      live_keys.erase(live_keys.begin() + static_cast<std::ptrdiff_t>(i));
    }
    if (step % 500 == 0) {
      ASSERT_TRUE(tree.Validate()) << "step " << step;
    }
  }
  ASSERT_TRUE(tree.Validate());
  EXPECT_LE(tree.height(), 3 * 12);
  for (uint32_t key : live_keys) ASSERT_TRUE(Contains(tree.GetAabb(static_cast<int32_t>(key)), shadow.boxes[key]));
  shadow.ExpectQueriesComplete(tree, rng, 1000);
  tree.Rebuild();
  ASSERT_TRUE(tree.Validate());
  EXPECT_EQ(tree.leaf_count(), static_cast<int32_t>(live_keys.size()));
  shadow.ExpectQueriesComplete(tree, rng, 1000);
  // N leaves, N - 1 nodes of 48 bytes, one int32 place per key.
  EXPECT_LE(tree.MemoryBytes(), live_keys.size() * 48 + shadow.boxes.size() * sizeof(int32_t));
}

// Leaves added ever farther away, up to the world's limits, widen the
// frame many times; boxes must still contain the exact ones, and moves
// back to the middle keep the tree valid.
TEST(CompactTree, WideningFramesKeepBoxesContained) {
  testing::SplitMix64 rng(41);
  CompactTree tree;
  Shadow shadow;
  for (int i = 0; i < 400; ++i) {
    const int scale = 20 + i * 42 / 400;  // up to 2^61 raw
    shadow.boxes.push_back(BoxAtScale(rng, scale));
    shadow.live.push_back(true);
    tree.CreateProxy(shadow.boxes.back(), static_cast<uint32_t>(i));
    if (i % 40 == 0) {
      ASSERT_TRUE(tree.Validate()) << i;
    }
  }
  for (int i = 0; i < 400; i += 3) {
    shadow.boxes[i] = RandomBox(rng, 10);
    tree.MoveProxy(i, shadow.boxes[i]);
  }
  ASSERT_TRUE(tree.Validate());
  for (int i = 0; i < 400; ++i) ASSERT_TRUE(Contains(tree.GetAabb(i), shadow.boxes[i])) << i;
  tree.Rebuild();
  ASSERT_TRUE(tree.Validate());
  for (int i = 0; i < 400; ++i) ASSERT_TRUE(Contains(tree.GetAabb(i), shadow.boxes[i])) << i;
}

// Renumber renames keys as CompactIfSparse does (ascending, packed).
TEST(CompactTree, RenumberKeepsBoxesUnderTheirNewKeys) {
  testing::SplitMix64 rng(42);
  CompactTree tree;
  std::vector<Aabb> boxes;
  for (uint32_t i = 0; i < 300; ++i) {
    boxes.push_back(RandomBox(rng, 100));
    tree.CreateProxy(boxes.back(), i);
  }
  std::vector<uint32_t> new_key(300, 0);
  uint32_t next = 0;
  for (uint32_t i = 0; i < 300; ++i) {
    if (i % 3 == 0) {
      tree.DestroyProxy(static_cast<int32_t>(i));
    } else {
      new_key[i] = next++;
    }
  }
  tree.Renumber(new_key);
  ASSERT_TRUE(tree.Validate());
  EXPECT_EQ(tree.leaf_count(), static_cast<int32_t>(next));
  for (uint32_t i = 0; i < 300; ++i) {
    if (i % 3 != 0) {
      ASSERT_TRUE(Contains(tree.GetAabb(static_cast<int32_t>(new_key[i])), boxes[i])) << i;
    }
  }
}

}  // namespace
}  // namespace arbiter::internal
