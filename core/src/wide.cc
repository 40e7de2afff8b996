#include "arbiter/core/wide.h"

namespace arbiter {
namespace {

// (hi:lo) / d for hi < d, so that the quotient fits in 64 bits; the
// remainder goes to *rem. Knuth's algorithm D on 32-bit digits, in the form
// of Hacker's Delight's divlu (Warren, 2nd ed., 9-4).
uint64_t DivU128ByU64(uint64_t hi, uint64_t lo, uint64_t d, uint64_t* rem) {
#if ARBITER_NATIVE_INT128
  return wide_internal::DivU128ByU64Fits((static_cast<unsigned __int128>(hi) << 64) | lo, d, rem);
#else
  constexpr uint64_t kBase = uint64_t{1} << 32;
  const int s = std::countl_zero(d);
  const uint64_t v = d << s;
  const uint64_t vn1 = v >> 32, vn0 = v & 0xffffffffu;
  const uint64_t un32 = s == 0 ? hi : (hi << s) | (lo >> (64 - s));
  const uint64_t un10 = lo << s;
  const uint64_t un1 = un10 >> 32, un0 = un10 & 0xffffffffu;
  uint64_t q1 = un32 / vn1;
  uint64_t rhat = un32 - q1 * vn1;
  while (q1 >= kBase || q1 * vn0 > kBase * rhat + un1) {
    --q1;
    rhat += vn1;
    if (rhat >= kBase) break;
  }
  const uint64_t un21 = un32 * kBase + un1 - q1 * v;
  uint64_t q0 = un21 / vn1;
  rhat = un21 - q0 * vn1;
  while (q0 >= kBase || q0 * vn0 > kBase * rhat + un0) {
    --q0;
    rhat += vn1;
    if (rhat >= kBase) break;
  }
  *rem = (un21 * kBase + un0 - q0 * v) >> s;
  return q1 * kBase + q0;
#endif
}

#if !ARBITER_NATIVE_INT128
// Restoring long division of a 128-bit magnitude by a 64-bit one.
void UnsignedDivMod(uint64_t n_hi, uint64_t n_lo, uint64_t d, uint64_t& q_hi, uint64_t& q_lo,
                    uint64_t& rem) {
  q_hi = 0;
  q_lo = 0;
  uint64_t r = 0;
  for (int i = 127; i >= 0; --i) {
    const uint64_t bit = i >= 64 ? (n_hi >> (i - 64)) & 1 : (n_lo >> i) & 1;
    const bool top = (r >> 63) != 0;  // r << 1 would exceed 64 bits.
    r = (r << 1) | bit;
    if (top || r >= d) {
      r -= d;
      if (i >= 64) {
        q_hi |= uint64_t{1} << (i - 64);
      } else {
        q_lo |= uint64_t{1} << i;
      }
    }
  }
  rem = r;
}
#endif  // !ARBITER_NATIVE_INT128

}  // namespace

#if !ARBITER_NATIVE_INT128
DivMod FloorDivMod(Int128 a, int64_t d) {
  const bool neg_a = a.IsNegative();
  const bool neg_d = d < 0;
  const Int128 mag_a = a.Abs();
  const uint64_t mag_d = neg_d ? uint64_t{0} - static_cast<uint64_t>(d) : static_cast<uint64_t>(d);
  uint64_t q_hi = 0, q_lo, r;
  if (mag_a.hi() < mag_d) {
    q_lo = DivU128ByU64(mag_a.hi(), mag_a.lo(), mag_d, &r);
  } else {
    UnsignedDivMod(mag_a.hi(), mag_a.lo(), mag_d, q_hi, q_lo, r);
  }
  // Truncated quotient and remainder carry the signs of C++ '/' and '%'.
  Int128 q = Int128::FromWords(q_hi, q_lo);
  Int128 rem = Int128::FromWords(0, r);
  if (neg_a != neg_d) q = -q;
  if (neg_a) rem = -rem;
  if (!rem.IsZero() && (rem.IsNegative() != neg_d)) {
    q = q - Int128(1);
    rem = rem + Int128(d);
  }
  return {q, rem};
}

Int128 DivFloor(Int128 a, int64_t d) { return FloorDivMod(a, d).quotient; }

Int128 DivRoundNearest(Int128 a, int64_t d) {
  const DivMod qr = FloorDivMod(a, d);
  // The exact quotient is q + r/d with r/d in [0, 1); round up when r/d >= 1/2.
  // Written as r >= d - r (d > 0) or r <= d - r (d < 0) so nothing overflows.
  const Int128 rest = Int128(d) - qr.remainder;
  const bool up = d > 0 ? qr.remainder >= rest : qr.remainder <= rest;
  return up ? qr.quotient + Int128(1) : qr.quotient;
}
#endif  // !ARBITER_NATIVE_INT128

namespace {

// ceil(sqrt(k 2^16) 2^18) = ceil(sqrt(k 2^52)) for k in [2^8, 2^10]: the
// square root, with 18 fraction bits, at the knots k 2^16 of [2^24, 2^26],
// rounded up. Exact integers (k 2^52 < 2^63), computed at compile time.
struct SqrtKnots {
  uint64_t upper[1025] = {};
  constexpr SqrtKnots() {
    for (uint64_t k = 256; k <= 1024; ++k) {
      const uint64_t v = k << 52;
      uint64_t r = 0;
      for (uint64_t bit = uint64_t{1} << 31; bit != 0; bit >>= 1) {
        if ((r + bit) * (r + bit) <= v) r += bit;
      }
      upper[k] = r * r == v ? r : r + 1;
    }
  }
};
constexpr SqrtKnots kSqrtKnots;

// An upper bound of sqrt(a) for a of `width` >= 26 bits, at most about
// 2^-21 above it (relative), from a's top 25 or 26 bits t (an even shift 2h
// below them): sqrt(a) < sqrt(v) 2^h with v = t + 1 in (2^24, 2^26]. On
// the knot interval (K, K + L], L = 2^16, holding v, the chord between the
// rounded-up knots lies on or above the chord of f(v) = sqrt(v) 2^18, and f,
// being concave, lies at most L^2 / 8 max|f''| = 2^32 / 8 * 2^18 / (4 2^36)
// = 2^9 above that chord; the chord is rounded down by less than one. So
// U = knot + floor(slope part) + 1 + 2^9 >= f(v), and U 2^(h - 18), rounded
// up (clamped to 2^64 - 1 past it: sqrt(a) < 2^63.5), bounds sqrt(a).
uint64_t SqrtSeedAbove(Int128 a, int width) {
  const int shift = (width - 25) & ~1;  // even, leaving 25 or 26 bits
  const int h = shift / 2;
  const uint64_t t = a.ShiftRight(shift).lo();  // in [2^24, 2^26)
  const uint64_t k = t >> 16;
  const uint64_t d = t + 1 - (k << 16);  // in [1, 2^16]
  const uint64_t lo = kSqrtKnots.upper[k], hi = kSqrtKnots.upper[k + 1];
  const uint64_t u = lo + (((hi - lo) * d) >> 16) + 1 + (uint64_t{1} << 9);  // < 2^32
  if (h < 18) return (u + (uint64_t{1} << (18 - h)) - 1) >> (18 - h);
  const int up = h - 18;
  return up > 0 && (u >> (64 - up)) != 0 ? ~uint64_t{0} : u << up;
}

// a < b for two values taken as unsigned 128-bit integers.
bool LessU128(Int128 a, Int128 b) { return a.hi() != b.hi() ? a.hi() < b.hi() : a.lo() < b.lo(); }

}  // namespace

uint64_t ISqrtFloor(Int128 a) {
  if (a.IsNegative() || a.IsZero()) return 0;
  // Newton's iteration from above (x <- (x + a/x) / 2 decreases to
  // floor(sqrt(a)) and stops there; Crandall & Pomerance, Algorithm 9.2.11):
  // any seed at or above sqrt(a) ends at that floor, a closer one in fewer
  // steps. SqrtSeedAbove's is about 2^-21 too high, so one step brings x
  // within one of sqrt(a) for a below 2^80 (a length's square, about 2^64)
  // and two for any a < 2^127 (a normalisation's, about 2^122). Small a
  // (under 26 bits) take the seed sqrt(top 16 bits) + 1 found bit by bit.
  // Each step's x is at least floor(sqrt(a)); once x^2 <= a it is that
  // floor, which a product tells instead of one more division. Exact: no
  // floats.
  const int width = a.BitWidth();
  uint64_t x;
  if (width >= 26) {
    x = SqrtSeedAbove(a, width);
  } else {
    const int shift = width > 16 ? ((width - 16 + 1) & ~1) : 0;  // even
    const uint64_t top = a.ShiftRight(shift).lo();                 // < 2^16
    uint64_t seed = 0;
    for (uint64_t bit = uint64_t{1} << 7; bit != 0; bit >>= 1) {
      if ((seed + bit) * (seed + bit) <= top) seed += bit;
    }
    x = (seed + 1) << (shift / 2);  // shift <= 10 here: no overflow
  }
  for (;;) {
    // a / x fits in 64 bits because x >= sqrt(a), i.e. a.hi < x.
    uint64_t rem;
    const uint64_t q = a.hi() < x ? DivU128ByU64(a.hi(), a.lo(), x, &rem) : ~uint64_t{0};
    if (q >= x) return x;
    x = q + (x - q) / 2;
    if (!LessU128(a, wide_internal::MulU64(x, x))) return x;  // x^2 <= a
  }
}

uint64_t ISqrtRound(Int128 a) {
  const uint64_t r = ISqrtFloor(a);
  // (r + 1/2)^2 = r^2 + r + 1/4, so round up exactly when a - r^2 > r.
  const Int128 r2 = Int128::FromWords(0, 0) + wide_internal::MulU64(r, r);
  return (a - r2) > Int128::FromWords(0, r) ? r + 1 : r;
}

}  // namespace arbiter
