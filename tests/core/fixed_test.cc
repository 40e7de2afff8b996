#include "arbiter/core/fixed.h"

#include <gtest/gtest.h>

#include <cmath>

#include "arbiter/core/limits.h"
#include "testing/random.h"

namespace arbiter {
namespace {

using testing::SplitMix64;

// Exact reference for one rounded step: floor(num / den + 1/2) on long double
// is not exact for 96-bit numerators, so use integer arithmetic through
// __int128 where the compiler has it.
#ifdef __SIZEOF_INT128__
int64_t RoundDivReference(__int128 num, __int128 den) {
  if (den < 0) {
    num = -num;
    den = -den;
  }
  // floor((2 num + den) / (2 den))
  __int128 n = 2 * num + den, d = 2 * den;
  __int128 q = n / d;
  if (n % d != 0 && n < 0) --q;
  return static_cast<int64_t>(q);
}

TEST(Fixed, MultiplicationRoundsToNearestTiesUp) {
  SplitMix64 rng(10);
  for (int i = 0; i < 200000; ++i) {
    const int64_t a = rng.AnyWidth() >> 1, b = rng.AnyWidth() >> 32;
    const __int128 exact = static_cast<__int128>(a) * b;
    const int64_t expect = RoundDivReference(exact, static_cast<__int128>(1) << 32);
    ASSERT_EQ((Fixed::FromRaw(a) * Fixed::FromRaw(b)).raw(), expect) << a << " * " << b;
  }
  // Ties: 0.5 ulp rounds up, -0.5 ulp rounds up (toward +infinity).
  EXPECT_EQ((Fixed::FromRaw(1) * kFixedHalf).raw(), 1);
  EXPECT_EQ((Fixed::FromRaw(-1) * kFixedHalf).raw(), 0);
}

TEST(Fixed, DivisionRoundsToNearestTiesUp) {
  SplitMix64 rng(11);
  for (int i = 0; i < 200000; ++i) {
    const int64_t a = rng.AnyWidth() >> 20;
    int64_t b = rng.AnyWidth();
    if (b == 0) b = 3;
    const __int128 num = static_cast<__int128>(a) << 32;
    const int64_t expect = RoundDivReference(num, b);
    const Int128 exact_q = DivRoundNearest(Int128(a).ShiftLeft(32), b);
    if (!exact_q.FitsInt64()) continue;
    ASSERT_EQ((Fixed::FromRaw(a) / Fixed::FromRaw(b)).raw(), expect) << a << " / " << b;
  }
}
#endif

TEST(Fixed, DivisionByZeroSaturatesBySign) {
  EXPECT_EQ(kFixedOne / kFixedZero, Fixed::Max());
  EXPECT_EQ(-kFixedOne / kFixedZero, Fixed::Min());
  EXPECT_EQ(kFixedZero / kFixedZero, kFixedZero);
  EXPECT_EQ(Fixed::FromRatio(1, 0), Fixed::Max());
}

TEST(Fixed, OverflowingProductsSaturateInsteadOfWrapping) {
  const Fixed big = Fixed::FromInt(1 << 30);
  EXPECT_EQ(big * big, Fixed::Max());
  EXPECT_EQ(big * -big, Fixed::Min());
}

TEST(Fixed, IntegerAndRatioConversionsAreExact) {
  EXPECT_EQ(Fixed::FromInt(3).raw(), int64_t{3} << 32);
  EXPECT_EQ(Fixed::FromInt(-7).raw(), -(int64_t{7} << 32));
  EXPECT_EQ(Fixed::FromInt(kMaxWorldCoordinate).raw(), int64_t{1} << 61);
  EXPECT_EQ(Fixed::FromRatio(1, 4).raw(), int64_t{1} << 30);
  EXPECT_EQ(Fixed::FromRatio(-3, 4).raw(), -(int64_t{3} << 30));
  // 1/3 = 1431655765.33 ulp rounds down; 2/3 = 2863311530.67 rounds up.
  EXPECT_EQ(Fixed::FromRatio(1, 3).raw(), 1431655765);
  EXPECT_EQ(Fixed::FromRatio(2, 3).raw(), 2863311531);
  EXPECT_EQ(Fixed::FromInt(-5).Floor(), -5);
  EXPECT_EQ(Fixed::FromRatio(-1, 2).Floor(), -1);
}

TEST(Fixed, DoubleConversionRoundsToNearest) {
  SplitMix64 rng(12);
  for (int i = 0; i < 100000; ++i) {
    const int64_t raw = rng.AnyWidth() >> 11;  // exactly representable in a double
    const Fixed f = Fixed::FromRaw(raw);
    ASSERT_EQ(Fixed::FromDouble(f.ToDouble()), f);
  }
  // Scene numbers are multiples of 1/1024 and convert exactly.
  EXPECT_EQ(Fixed::FromDouble(989.4501953125).raw(), static_cast<int64_t>(989.4501953125 * 4294967296.0));
  EXPECT_EQ(Fixed::FromDouble(0.1).raw(), 429496730);  // 429496729.6 rounds to nearest
  EXPECT_EQ(Fixed::FromDouble(-0.1).raw(), -429496730);
  // Half an ulp: ties away from zero.
  EXPECT_EQ(Fixed::FromDouble(std::ldexp(1.0, -33)).raw(), 1);
  EXPECT_FALSE(Fixed::IsRepresentable(std::nan("")));
  EXPECT_FALSE(Fixed::IsRepresentable(INFINITY));
  EXPECT_FALSE(Fixed::IsRepresentable(3e9));
  EXPECT_TRUE(Fixed::IsRepresentable(2e9));
  EXPECT_EQ(Fixed::FromDouble(3e9), Fixed::Max());
  EXPECT_EQ(Fixed::FromDouble(-3e9), Fixed::Min());
  EXPECT_EQ(Fixed::FromDouble(std::nan("")), kFixedZero);
}

TEST(Fixed, AdditionWrapsWithoutUndefinedBehaviour) {
  // Out of the documented range, + wraps (defined) rather than trapping; the
  // sanitizer build proves there is no signed overflow.
  EXPECT_EQ((Fixed::Max() + Fixed::FromRaw(1)), Fixed::Min());
  EXPECT_EQ((Fixed::Min() - Fixed::FromRaw(1)), Fixed::Max());
}

}  // namespace
}  // namespace arbiter
