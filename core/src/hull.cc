#include "arbiter/core/hull.h"

#include <algorithm>
#include <array>

namespace arbiter {
namespace {

constexpr int kMaxHullInput = 64;

// Exact orientation of (o, a, b): > 0 for a left turn.
int Orientation(Vec2 o, Vec2 a, Vec2 b) { return CrossWide(a - o, b - o).Sign(); }

bool LexLess(Vec2 a, Vec2 b) { return a.x < b.x || (a.x == b.x && a.y < b.y); }

}  // namespace

int ComputeHull(std::span<const Vec2> points, std::span<Vec2> out) {
  const int n = static_cast<int>(points.size());
  if (n == 0 || n > kMaxHullInput || out.empty()) return 0;
  std::array<Vec2, kMaxHullInput> sorted;
  std::copy(points.begin(), points.end(), sorted.begin());
  // A strict total order on values: equal elements are identical, so the
  // result does not depend on the sort algorithm's stability.
  std::sort(sorted.begin(), sorted.begin() + n, LexLess);
  const int unique = static_cast<int>(std::unique(sorted.begin(), sorted.begin() + n) - sorted.begin());
  if (unique == 1) {
    out[0] = sorted[0];
    return 1;
  }
  // Andrew's monotone chain: lower hull left to right, then upper hull back,
  // popping every non-left turn so collinear points are dropped.
  std::array<Vec2, 2 * kMaxHullInput> chain;
  int k = 0;
  for (int i = 0; i < unique; ++i) {
    while (k >= 2 && Orientation(chain[k - 2], chain[k - 1], sorted[i]) <= 0) --k;
    chain[k++] = sorted[i];
  }
  const int lower_end = k + 1;
  for (int i = unique - 2; i >= 0; --i) {
    while (k >= lower_end && Orientation(chain[k - 2], chain[k - 1], sorted[i]) <= 0) --k;
    chain[k++] = sorted[i];
  }
  const int count = k - 1;  // the last point repeats the first
  if (count > static_cast<int>(out.size())) return 0;
  std::copy(chain.begin(), chain.begin() + count, out.begin());
  return count;
}

}  // namespace arbiter
