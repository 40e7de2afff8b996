#include "arbiter/core/fixed_math.h"

#include <gtest/gtest.h>

#include <cmath>

#include "testing/random.h"

namespace arbiter {
namespace {

using testing::SplitMix64;

constexpr int kSamples = 1000000;
constexpr long double kUlp = 1.0L / 4294967296.0L;

long double ToLd(Fixed f) { return static_cast<long double>(f.raw()) * kUlp; }
long double UlpError(Fixed got, long double want) { return std::fabs(ToLd(got) - want) / kUlp; }

TEST(FixedMath, SqrtIsCorrectlyRounded) {
  SplitMix64 rng(20);
  for (int i = 0; i < kSamples; ++i) {
    const int64_t raw = rng.AnyWidth() & 0x7fffffffffffffff;
    const Fixed r = Sqrt(Fixed::FromRaw(raw));
    // sqrt(raw * 2^-32) * 2^32 = sqrt(raw * 2^32); check |r - that| <= 1/2
    // exactly: (2r - 1)^2 <= 4 raw 2^32 <= (2r + 1)^2.
    const Int128 four_x = Int128(raw).ShiftLeft(34);
    const int64_t r2 = 2 * r.raw();
    if (r2 > 0) {
      ASSERT_LE(Int128::Mul(r2 - 1, r2 - 1), four_x) << raw;
    }
    ASSERT_GE(Int128::Mul(r2 + 1, r2 + 1), four_x) << raw;
  }
  EXPECT_EQ(Sqrt(Fixed::FromInt(4)), Fixed::FromInt(2));
  EXPECT_EQ(Sqrt(Fixed::FromInt(-4)), kFixedZero);
}

TEST(FixedMath, LengthIsCorrectlyRounded) {
  SplitMix64 rng(21);
  for (int i = 0; i < kSamples; ++i) {
    const Vec2 v{Fixed::FromRaw(rng.AnyWidth() >> 2), Fixed::FromRaw(rng.AnyWidth() >> 2)};
    const Fixed len = Length(v);
    const Int128 four_x = LengthSquaredWide(v).ShiftLeft(2);
    const int64_t l2 = 2 * len.raw();
    if (l2 > 0) {
      ASSERT_LE(Int128::Mul(l2 - 1, l2 - 1), four_x);
    }
    ASSERT_GE(Int128::Mul(l2 + 1, l2 + 1), four_x);
  }
  EXPECT_EQ(Length(MakeVec2(3, 4)), Fixed::FromInt(5));
}

TEST(FixedMath, CosSinWithinOneUlpOverAMillionAngles) {
  SplitMix64 rng(22);
  long double worst = 0;
  for (int i = 0; i < kSamples; ++i) {
    // Angles up to +-2^12 radians, plus the full range near zero.
    const int64_t raw = i % 2 ? rng.Uniform(-(int64_t{1} << 44), int64_t{1} << 44) : rng.Uniform(-(int64_t{1} << 34), int64_t{1} << 34);
    const Rot q = MakeRot(Fixed::FromRaw(raw));
    const long double a = static_cast<long double>(raw) * kUlp;
    const long double ec = UlpError(q.c, cosl(a));
    const long double es = UlpError(q.s, sinl(a));
    worst = std::max(worst, std::max(ec, es));
    ASSERT_LE(ec, 1.0L) << "angle raw " << raw;
    ASSERT_LE(es, 1.0L) << "angle raw " << raw;
  }
  RecordProperty("max_ulp_error_x1000", static_cast<int>(worst * 1000));
  EXPECT_EQ(MakeRot(kFixedZero), kRotIdentity);
  EXPECT_EQ(MakeRot(kFixedHalfPi).c.raw(), 0);
  EXPECT_EQ(MakeRot(kFixedHalfPi).s, kFixedOne);
  EXPECT_EQ(MakeRot(kFixedPi).c, -kFixedOne);
}

TEST(FixedMath, Atan2WithinOneUlpOverAMillionPairs) {
  SplitMix64 rng(23);
  long double worst = 0;
  for (int i = 0; i < kSamples; ++i) {
    const int64_t y = rng.AnyWidth() >> 1;
    const int64_t x = rng.AnyWidth() >> 1;
    const Fixed got = Atan2(Fixed::FromRaw(y), Fixed::FromRaw(x));
    const long double want = atan2l(static_cast<long double>(y), static_cast<long double>(x));
    if (x == 0 && y == 0) continue;
    const long double e = UlpError(got, want);
    worst = std::max(worst, e);
    ASSERT_LE(e, 1.0L) << y << ", " << x;
  }
  RecordProperty("max_ulp_error_x1000", static_cast<int>(worst * 1000));
  EXPECT_EQ(Atan2(kFixedZero, kFixedZero), kFixedZero);
  EXPECT_EQ(Atan2(kFixedZero, -kFixedOne), kFixedPi);
  EXPECT_EQ(Atan2(kFixedOne, kFixedZero), kFixedHalfPi);
  EXPECT_EQ(Atan2(-kFixedOne, kFixedZero), -kFixedHalfPi);
  EXPECT_LE(UlpError(Atan2(Fixed::Min(), Fixed::Min()), -3.0L * atan2l(1, 1)), 1.0L);
}

TEST(FixedMath, RotAngleRoundTrips) {
  SplitMix64 rng(24);
  for (int i = 0; i < 100000; ++i) {
    const Fixed angle = Fixed::FromRaw(rng.Uniform(-kFixedPi.raw() + 8, kFixedPi.raw() - 8));
    ASSERT_LE(std::abs((RotAngle(MakeRot(angle)) - angle).raw()), 3) << angle.raw();
  }
}

TEST(FixedMath, NormalizeWithinOneUlp) {
  SplitMix64 rng(25);
  for (int i = 0; i < kSamples; ++i) {
    const Vec2 v{Fixed::FromRaw(rng.AnyWidth() >> 2), Fixed::FromRaw(rng.AnyWidth() >> 2)};
    if (v.x.raw() == 0 && v.y.raw() == 0) continue;
    const Vec2 n = Normalize(v);
    const long double x = static_cast<long double>(v.x.raw()), y = static_cast<long double>(v.y.raw());
    const long double len = std::sqrt(x * x + y * y);
    ASSERT_LE(UlpError(n.x, x / len), 1.0L) << v.x.raw() << ", " << v.y.raw();
    ASSERT_LE(UlpError(n.y, y / len), 1.0L) << v.x.raw() << ", " << v.y.raw();
  }
  EXPECT_EQ(Normalize(Vec2{}), Vec2{});
  // A tiny vector normalises as precisely as a large one.
  const Vec2 tiny = Normalize({Fixed::FromRaw(3), Fixed::FromRaw(4)});
  EXPECT_EQ(tiny.x, Fixed::FromRatio(3, 5));
  EXPECT_EQ(tiny.y, Fixed::FromRatio(4, 5));
}

}  // namespace
}  // namespace arbiter
