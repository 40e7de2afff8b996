#include "arbiter/core/wide.h"

#include <gtest/gtest.h>

#include "testing/random.h"

namespace arbiter {
namespace {

using testing::SplitMix64;

#ifdef __SIZEOF_INT128__
// The compiler's __int128 is the reference even when the core under test
// uses the portable two-word path.
__int128 Native(Int128 v) {
  return static_cast<__int128>((static_cast<unsigned __int128>(v.hi()) << 64) | v.lo());
}

__int128 FloorDiv(__int128 a, __int128 d) {
  __int128 q = a / d;
  if ((a % d != 0) && ((a < 0) != (d < 0))) --q;
  return q;
}

TEST(Int128, ArithmeticMatchesNative) {
  SplitMix64 rng(1);
  for (int i = 0; i < 200000; ++i) {
    const int64_t a = rng.AnyWidth(), b = rng.AnyWidth(), c = rng.AnyWidth(), d = rng.AnyWidth();
    const Int128 p = Int128::Mul(a, b);
    const Int128 q = Int128::Mul(c, d);
    ASSERT_EQ(Native(p), static_cast<__int128>(a) * b) << a << " * " << b;
    ASSERT_EQ(Native(p + q), Native(p) + Native(q));
    ASSERT_EQ(Native(p - q), Native(p) - Native(q));
    ASSERT_EQ(p < q, Native(p) < Native(q));
    ASSERT_EQ(p == q, Native(p) == Native(q));
    const int n = static_cast<int>(rng.Next() % 127);
    ASSERT_EQ(Native(p.ShiftRight(n)), Native(p) >> n);
    if (n > 0) {
      const __int128 half = static_cast<__int128>(1) << (n - 1);
      ASSERT_EQ(Native(p.ShiftRightRound(n)), (Native(p) + half) >> n);
    }
  }
}

TEST(Int128, DivisionMatchesNative) {
  SplitMix64 rng(2);
  for (int i = 0; i < 200000; ++i) {
    const Int128 a = Int128::Mul(rng.AnyWidth(), rng.AnyWidth()).ShiftRight(1);
    int64_t d = rng.AnyWidth();
    if (d == 0) d = 1;
    const __int128 na = Native(a);
    const __int128 q = FloorDiv(na, d);
    ASSERT_EQ(Native(DivFloor(a, d)), q);
    // Round to nearest, ties toward +infinity: floor(a/d + 1/2).
    const __int128 r = na - q * d;  // in [0, d) or (d, 0]
    const bool up = d > 0 ? 2 * r >= static_cast<__int128>(d) : 2 * r <= static_cast<__int128>(d);
    ASSERT_EQ(Native(DivRoundNearest(a, d)), up ? q + 1 : q) << static_cast<double>(na) << " / " << d;
  }
}

TEST(Int128, DivisionTiesRoundTowardPositiveInfinity) {
  EXPECT_EQ(DivRoundNearest(Int128(5), 2), Int128(3));
  EXPECT_EQ(DivRoundNearest(Int128(-5), 2), Int128(-2));
  EXPECT_EQ(DivRoundNearest(Int128(5), -2), Int128(-2));
  EXPECT_EQ(DivRoundNearest(Int128(7), 3), Int128(2));
  EXPECT_EQ(DivRoundNearest(Int128(-7), 3), Int128(-2));
  EXPECT_EQ(DivFloor(Int128(-7), 2), Int128(-4));
}

// The native path divides with one divq when the quotient fits 64 bits and
// with the library otherwise; both sides of that boundary, the extreme
// divisors and both signs must agree with the compiler's own division.
TEST(Int128, DivisionAtTheQuotientWidthBoundary) {
  const int64_t divisors[] = {1, -1, 2, -2, 3, 7, -7, int64_t{1} << 32, (int64_t{1} << 62) + 5,
                              INT64_MAX, INT64_MIN, INT64_MIN + 1, -(int64_t{1} << 40) - 3};
  SplitMix64 rng(4);
  for (const int64_t d : divisors) {
    const unsigned __int128 mag_d = d < 0 ? 0 - static_cast<unsigned __int128>(static_cast<__int128>(d))
                                          : static_cast<unsigned __int128>(d);
    for (int k = 0; k < 400; ++k) {
      // Magnitudes just below, at and just above |d| * 2^64, and random ones.
      unsigned __int128 mag = mag_d << 64;
      const uint64_t jitter = rng.Next() % 5;
      switch (k % 4) {
        case 0: mag -= 1 + jitter; break;
        case 1: mag += jitter; break;
        case 2: mag = (mag >> 1) + rng.Next(); break;
        default: mag = (static_cast<unsigned __int128>(rng.Next()) << 64 | rng.Next()) >> (1 + rng.Next() % 100);
      }
      if (mag >= (static_cast<unsigned __int128>(1) << 126)) mag >>= 2;  // |a| < 2^127 with room
      const __int128 na = (k & 1) ? -static_cast<__int128>(mag) : static_cast<__int128>(mag);
      const Int128 a = Int128::FromWords(static_cast<uint64_t>(static_cast<unsigned __int128>(na) >> 64),
                                         static_cast<uint64_t>(static_cast<unsigned __int128>(na)));
      const __int128 q = FloorDiv(na, d);
      ASSERT_EQ(Native(DivFloor(a, d)), q) << k << " / " << d;
      const __int128 r = na - q * d;
      const bool up = d > 0 ? 2 * r >= static_cast<__int128>(d) : 2 * r <= static_cast<__int128>(d);
      ASSERT_EQ(Native(DivRoundNearest(a, d)), up ? q + 1 : q) << k << " / " << d;
    }
  }
}

TEST(Int128, CompareProductsIsExact) {
  SplitMix64 rng(3);
  for (int i = 0; i < 100000; ++i) {
    // Magnitudes up to 2^126 so that the products need 253 bits.
    const Int128 a = Int128::Mul(rng.AnyWidth(), rng.AnyWidth()).ShiftRight(1);
    const Int128 b = Int128::Mul(rng.AnyWidth(), rng.AnyWidth()).ShiftRight(1);
    const Int128 c = rng.Bool() ? a : Int128::Mul(rng.AnyWidth(), rng.AnyWidth()).ShiftRight(1);
    const Int128 d = rng.Bool() ? b : Int128::Mul(rng.AnyWidth(), rng.AnyWidth()).ShiftRight(1);
    const int got = CompareProducts(a, b, c, d);
    // Reference: compare a*b and c*d as doubles where they clearly differ,
    // and exactly when both sides are the same product.
    if (a == c && b == d) {
      ASSERT_EQ(got, 0);
      continue;
    }
    const long double lhs = static_cast<long double>(Native(a)) * static_cast<long double>(Native(b));
    const long double rhs = static_cast<long double>(Native(c)) * static_cast<long double>(Native(d));
    const long double scale = std::max(std::abs(lhs), std::abs(rhs));
    if (std::abs(lhs - rhs) > scale * 1e-15L) {
      ASSERT_EQ(got, lhs < rhs ? -1 : 1);
    }
  }
  // Products that differ only in the lowest bit of 250-bit values.
  const Int128 big = Int128(1).ShiftLeft(125);
  EXPECT_EQ(CompareProducts(big + Int128(1), big, big, big + Int128(1)), 0);
  EXPECT_EQ(CompareProducts(big + Int128(1), big + Int128(1), big, big + Int128(2)), 1);
  EXPECT_EQ(CompareProducts(-big, big, big, big), -1);
  EXPECT_EQ(CompareProducts(-big, -big, big, big), 0);
}

TEST(Int128, SquareRootIsExact) {
  SplitMix64 rng(4);
  for (int i = 0; i < 100000; ++i) {
    const Int128 a = Int128::Mul(rng.AnyWidth(), rng.AnyWidth()).Abs().ShiftRight(1);
    const __int128 na = Native(a);
    const unsigned __int128 r = ISqrtFloor(a);
    ASSERT_LE(r * r, static_cast<unsigned __int128>(na));
    ASSERT_GT((r + 1) * (r + 1), static_cast<unsigned __int128>(na));
    const unsigned __int128 rr = ISqrtRound(a);
    // |rr - sqrt(a)| <= 1/2  <=>  (rr - 1/2)^2 <= a <= (rr + 1/2)^2.
    const unsigned __int128 four_a = static_cast<unsigned __int128>(na) * 4;
    if (rr > 0) {
      ASSERT_LE((2 * rr - 1) * (2 * rr - 1), four_a);
    }
    ASSERT_GE((2 * rr + 1) * (2 * rr + 1), four_a);
  }
  // The seeds' edges: squares and their neighbours at every size, powers
  // of two and their neighbours (the top-bits table's bins start and end
  // there), small values (the bit-by-bit seed) and values near 2^127.
  auto check_floor = [](unsigned __int128 v) {
    if (v == 0 || (v >> 127) != 0) return;
    const unsigned __int128 r = ISqrtFloor(Int128::FromWords(static_cast<uint64_t>(v >> 64), static_cast<uint64_t>(v)));
    ASSERT_LE(r * r, v);
    ASSERT_GT((r + 1) * (r + 1), v);
  };
  for (int i = 0; i < 200000; ++i) {
    const uint64_t k = rng.Next() >> (rng.Next() % 64);
    const unsigned __int128 k2 = static_cast<unsigned __int128>(k) * k;
    for (const unsigned __int128 v : {k2 - 1, k2, k2 + 1, k2 + 2 * static_cast<unsigned __int128>(k)}) check_floor(v);
  }
  for (int b = 0; b < 127; ++b) {
    const unsigned __int128 p = static_cast<unsigned __int128>(1) << b;
    check_floor(p - 1);
    check_floor(p);
    check_floor(p + 1);
  }
  for (uint64_t v = 1; v < 70000; ++v) check_floor(v);
  // The interpolated seed's knots: top bits t just below and at each knot
  // k 2^16 (the chord's ends, where rounding leaves least room), every
  // bit under them set (the largest a with those top bits), at every width
  // the seed serves.
  for (int width = 26; width <= 127; ++width) {
    const int shift = (width - 25) & ~1;
    const unsigned __int128 low = (static_cast<unsigned __int128>(1) << shift) - 1;
    for (unsigned __int128 k = 256; k <= 1024; ++k) {
      for (const unsigned __int128 t : {(k << 16) - 1, k << 16, (k << 16) + 1}) {
        check_floor((t << shift) | low);  // past 2^127: skipped
      }
    }
  }
  EXPECT_EQ(ISqrtFloor(Int128(0)), 0u);
  EXPECT_EQ(ISqrtFloor(Int128(-5)), 0u);
  EXPECT_EQ(ISqrtRound(Int128(2)), 1u);
  EXPECT_EQ(ISqrtRound(Int128(3)), 2u);
  const Int128 max = Int128::FromWords(0x7fffffffffffffffull, ~uint64_t{0});
  EXPECT_EQ(ISqrtFloor(max), 13043817825332782212ull);
}
#endif  // __SIZEOF_INT128__

}  // namespace
}  // namespace arbiter
