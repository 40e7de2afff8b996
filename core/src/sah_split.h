// The split step of a top-down BVH build: binned SAH over item centres
// (Wald, "On fast Construction of SAH-based Bounding Volume Hierarchies",
// 2007), 32 bins on each axis, the cheaper split kept (x on a tie). Shared
// by both trees (dynamic_tree.h, compact_tree.h); only the tree's shape
// depends on it, never a result.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "arbiter/core/math.h"
#include "dynamic_tree.h"

namespace arbiter::internal {

namespace sah_detail {

constexpr int kSahBins = 32;

// The best binned split of `count` items along one axis: the last bin of
// the left part and its cost n_left P(left) + n_right P(right), in 128 bits.
struct BinnedSplit {
  int bin = -1;  // -1: no split along this axis
  Int128 cost = 0;
};

template <class BoxOf, class BinOf>
BinnedSplit BestSplit(const int32_t* items, int32_t count, BoxOf&& box_of, BinOf&& bin_of) {
  int32_t bin_count[kSahBins] = {};
  Aabb bin_box[kSahBins];
  for (int32_t i = 0; i < count; ++i) {
    const int b = bin_of(items[i]);
    bin_box[b] = bin_count[b] == 0 ? box_of(items[i]) : Union(bin_box[b], box_of(items[i]));
    ++bin_count[b];
  }
  // Sweep from the right to get the cost of every right part, then from
  // the left.
  Int128 right_cost[kSahBins];
  Aabb acc;
  int32_t n = 0;
  for (int b = kSahBins - 1; b > 0; --b) {
    if (bin_count[b] > 0) {
      acc = n == 0 ? bin_box[b] : Union(acc, bin_box[b]);
      n += bin_count[b];
    }
    right_cost[b] = n == 0 ? Int128(0) : Int128::Mul(n, HalfPerimeterCost(acc));
  }
  BinnedSplit best;
  n = 0;
  for (int b = 0; b + 1 < kSahBins; ++b) {
    if (bin_count[b] > 0) {
      acc = n == 0 ? bin_box[b] : Union(acc, bin_box[b]);
      n += bin_count[b];
    }
    if (n == 0 || n == count) continue;
    const Int128 cost = Int128::Mul(n, HalfPerimeterCost(acc)) + right_cost[b + 1];
    if (best.bin < 0 || cost < best.cost) best = {b, cost};
  }
  return best;
}

}  // namespace sah_detail

/// Reorders items[0, count) (count >= 2) into a left part and a right part
/// and returns the left part's size, in [1, count). box_of(item) gives an
/// item's box (any Aabb inside the world range). Deterministic: the result
/// depends only on the boxes and their input order.
template <class BoxOf>
int32_t SahPartition(int32_t* items, int32_t count, BoxOf&& box_of) {
  using sah_detail::BinnedSplit;
  using sah_detail::kSahBins;
  Vec2 lo = Center(box_of(items[0])), hi = lo;
  for (int32_t i = 1; i < count; ++i) {
    const Vec2 c = Center(box_of(items[i]));
    lo = {Min(lo.x, c.x), Min(lo.y, c.y)};
    hi = {Max(hi.x, c.x), Max(hi.y, c.y)};
  }
  auto binner = [&](bool use_x) {
    const Fixed extent = use_x ? hi.x - lo.x : hi.y - lo.y;
    return [&, use_x, extent](int32_t item) {
      const Vec2 c = Center(box_of(item));
      const Fixed key = use_x ? c.x - lo.x : c.y - lo.y;
      return static_cast<int>(DivFloor(Int128::Mul(key.raw(), kSahBins), extent.raw() + 1).ToInt64Wrapped());
    };
  };
  const BinnedSplit split_x = hi.x > lo.x ? sah_detail::BestSplit(items, count, box_of, binner(true)) : BinnedSplit{};
  const BinnedSplit split_y = hi.y > lo.y ? sah_detail::BestSplit(items, count, box_of, binner(false)) : BinnedSplit{};
  const bool use_x = split_y.bin < 0 || (split_x.bin >= 0 && split_x.cost <= split_y.cost);
  const BinnedSplit& best = use_x ? split_x : split_y;
  if (best.bin < 0) return count / 2;  // the fallback: equal halves in input order
  // Stable partition: bins <= best.bin first, input order kept.
  const auto bin_of = binner(use_x);
  std::vector<int32_t> right;
  right.reserve(count);
  int32_t left_n = 0;
  for (int32_t i = 0; i < count; ++i) {
    if (bin_of(items[i]) <= best.bin) {
      items[left_n++] = items[i];
    } else {
      right.push_back(items[i]);
    }
  }
  std::copy(right.begin(), right.end(), items + left_n);
  return left_n;
}

}  // namespace arbiter::internal
