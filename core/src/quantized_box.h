// Boxes in 32-bit coordinates of a tree-wide frame, rounded outward.
//
// A frame is an origin (raw Q32.32) and a power-of-two step 2^shift raw:
// coordinate x is stored as floor((x - base) / 2^shift) when it is a lower
// side and as ceil(...) when it is an upper side, so a decoded box always
// contains the box that was encoded. A frame is chosen so that what it holds
// fills at most half of the int32 range, and a box it cannot hold makes the
// owner choose a wider frame (QuantFrame::Holds) rather than clamp.
//
// Bounds: every box a frame is asked to hold has |coordinate| < 2^62 raw
// (static shapes: positions up to 2^29 units, limits.h, plus local extent
// and radius up to 2^24 units each, so < 2^30 units). Then |base| < 2^62,
// |x - base| < 2^63, the shift is at most 33, and a decoded coordinate lies
// within 2^shift of a held one, so below 2^62 + 2^33 in magnitude: every
// step below fits an int64.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>

#include "arbiter/core/math.h"

namespace arbiter::internal {

/// Where box coordinates c stand for raw Q32.32 values base + c 2^shift:
/// what SegmentBoxFilter needs to test boxes without decoding them. The
/// identity (base 0, shift 0) is raw coordinates; otherwise shift >= 2.
struct BoxFrame {
  int64_t base_x = 0, base_y = 0;
  int shift = 0;
};

/// A box in frame units: lower sides rounded down, upper sides rounded up.
/// No default member values: a walk's stack of them is not zeroed per
/// query (5 KB; measured 6% of a ray's time). Initialize with {}.
struct QBox {
  int32_t lx, ly, ux, uy;
  friend bool operator==(const QBox&, const QBox&) = default;
};

inline bool Overlaps(const QBox& a, const QBox& b) {
  return a.lx <= b.ux && b.lx <= a.ux && a.ly <= b.uy && b.ly <= a.uy;
}
inline bool Contains(const QBox& outer, const QBox& inner) {
  return outer.lx <= inner.lx && outer.ly <= inner.ly && inner.ux <= outer.ux && inner.uy <= outer.uy;
}
inline QBox Union(const QBox& a, const QBox& b) {
  return {std::min(a.lx, b.lx), std::min(a.ly, b.ly), std::max(a.ux, b.ux), std::max(a.uy, b.uy)};
}
/// The insertion heuristic's cost, in frame units (< 2^34: only compared).
inline int64_t HalfPerimeterCost(const QBox& a) {
  return (int64_t{a.ux} - a.lx) + (int64_t{a.uy} - a.ly);
}

class QuantFrame {
 public:
  /// The smallest step: 2^10 raw, about 2.4e-7 units, so that a frame
  /// chosen for one small box still spans 2^41 raw (512 units) each way.
  static constexpr int kMinShift = 10;

  QuantFrame() = default;

  /// A frame centred on `bounds` that holds it with room to spare: its
  /// half extent is below 2^30 steps, half the int32 range.
  static QuantFrame Around(const Aabb& bounds) {
    QuantFrame f;
    f.base_x_ = Mid(bounds.lower.x.raw(), bounds.upper.x.raw());
    f.base_y_ = Mid(bounds.lower.y.raw(), bounds.upper.y.raw());
    // Both halves of each side, from the rounded-down midpoint: < 2^63.
    const uint64_t half = std::max({Span(f.base_x_, bounds.upper.x.raw()), Span(bounds.lower.x.raw(), f.base_x_),
                                    Span(f.base_y_, bounds.upper.y.raw()), Span(bounds.lower.y.raw(), f.base_y_)});
    const int width = 64 - std::countl_zero(half);  // half < 2^width
    f.shift_ = std::max(kMinShift, width - 30);
    return f;
  }

  int shift() const { return shift_; }
  BoxFrame box_frame() const { return {base_x_, base_y_, shift_}; }

  /// True when every side of `box` encodes into int32.
  bool Holds(const Aabb& box) const {
    constexpr int64_t lo = std::numeric_limits<int32_t>::min(), hi = std::numeric_limits<int32_t>::max();
    return Down(box.lower.x.raw(), base_x_) >= lo && Down(box.lower.y.raw(), base_y_) >= lo &&
           Up(box.upper.x.raw(), base_x_) <= hi && Up(box.upper.y.raw(), base_y_) <= hi;
  }

  /// The smallest frame box containing `box`; requires Holds(box).
  QBox Encode(const Aabb& box) const {
    return {static_cast<int32_t>(Down(box.lower.x.raw(), base_x_)), static_cast<int32_t>(Down(box.lower.y.raw(), base_y_)),
            static_cast<int32_t>(Up(box.upper.x.raw(), base_x_)), static_cast<int32_t>(Up(box.upper.y.raw(), base_y_))};
  }

  /// A frame box for a query box, each side rounded down and clamped to
  /// int32. Flooring is monotone, so when `box` overlaps a box b, the result
  /// overlaps Encode(b) (whose lower sides are the same floors and whose
  /// upper sides are at least them): a test in frame units never rejects a
  /// pair the exact test accepts. Any query box (|coordinate| < 2^63).
  QBox EncodeQuery(const Aabb& box) const {
    return {Clamp32(Floor(box.lower.x.raw(), base_x_)), Clamp32(Floor(box.lower.y.raw(), base_y_)),
            Clamp32(Floor(box.upper.x.raw(), base_x_)), Clamp32(Floor(box.upper.y.raw(), base_y_))};
  }

  /// The box `q` stands for: it contains every box that encoded into it.
  Aabb Decode(const QBox& q) const {
    const int64_t step = int64_t{1} << shift_;
    return {{Fixed::FromRaw(base_x_ + q.lx * step), Fixed::FromRaw(base_y_ + q.ly * step)},
            {Fixed::FromRaw(base_x_ + q.ux * step), Fixed::FromRaw(base_y_ + q.uy * step)}};
  }

 private:
  static int64_t Mid(int64_t lo, int64_t hi) {
    return lo + static_cast<int64_t>((static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo)) / 2);
  }
  static uint64_t Span(int64_t lo, int64_t hi) { return static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo); }
  // floor((x - base) / 2^shift), exact and without overflow for any int64
  // x and base: with x = xh 2^s + xl and base = bh 2^s + bl (0 <= xl, bl <
  // 2^s), x - base = (xh - bh) 2^s + (xl - bl) and |xl - bl| < 2^s.
  // |xh - bh| < 2^(64 - kMinShift), so it fits.
  int64_t Floor(int64_t x, int64_t base) const {
    const int64_t mask = (int64_t{1} << shift_) - 1;
    return (x >> shift_) - (base >> shift_) - ((x & mask) < (base & mask) ? 1 : 0);
  }
  int64_t Down(int64_t x, int64_t base) const { return Floor(x, base); }
  // ceil(a / 2^s) = -floor(-a / 2^s), with -(x - base) = base - x.
  int64_t Up(int64_t x, int64_t base) const { return -Floor(base, x); }
  static int32_t Clamp32(int64_t v) {
    return static_cast<int32_t>(
        std::clamp<int64_t>(v, std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()));
  }

  int64_t base_x_ = 0, base_y_ = 0;
  int shift_ = kMinShift;
};

}  // namespace arbiter::internal
