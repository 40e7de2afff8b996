#include "arbiter/core/fixed_math.h"

#include <bit>
#include <cstdint>

namespace arbiter {
namespace {

// Internal formats with more fraction bits than Q32.32, so that series
// evaluation keeps its error well below the final rounding.
constexpr int kQ62 = 62;
constexpr int64_t kHalfPiQ62 = 7244019458077122842;  // pi/2 * 2^62, rounded
constexpr int kQ60 = 60;
constexpr int64_t kOneQ60 = int64_t{1} << kQ60;
constexpr int64_t kPiQ60 = 3622009729038561421;
constexpr int64_t kHalfPiQ60 = 1811004864519280711;
// atan(k / 8) * 2^60, rounded, for k = 0..8.
constexpr int64_t kAtanEighthsQ60[9] = {
    0,
    143371547418228444,
    282441168888798124,
    413634420977155108,
    534549298976576474,
    644021163118254586,
    741906266566127762,
    828754564720302567,
    905502432259640355,
};

int64_t MulQ(int64_t a, int64_t b, int q) { return Int128::Mul(a, b).ShiftRightRound(q).ToInt64Wrapped(); }

int64_t DivQ(int64_t a, int64_t b, int q) { return DivRoundNearest(Int128(a).ShiftLeft(q), b).ToInt64Wrapped(); }

// Taylor series of sin and cos for |r| <= pi/4 in Q2.62. Ten terms each
// leave a truncation error below r^21/21! < 2^-70.
void CosSinQ62(int64_t r, int64_t* c, int64_t* s) {
  const int64_t r2 = MulQ(r, r, kQ62);
  int64_t sin_term = r, sin_sum = r;
  int64_t cos_term = int64_t{1} << kQ62, cos_sum = cos_term;
  for (int k = 1; k <= 10; ++k) {
    cos_term = -MulQ(cos_term, r2, kQ62) / ((2 * k - 1) * (2 * k));
    sin_term = -MulQ(sin_term, r2, kQ62) / ((2 * k) * (2 * k + 1));
    cos_sum += cos_term;
    sin_sum += sin_term;
  }
  *c = cos_sum;
  *s = sin_sum;
}

// atan(u) for |u| <= 1/16 in Q4.60: u^17/17 < 2^-70, so eight terms suffice.
int64_t AtanSmallQ60(int64_t u) {
  const int64_t u2 = MulQ(u, u, kQ60);
  int64_t power = u, sum = u;
  for (int k = 1; k <= 8; ++k) {
    power = -MulQ(power, u2, kQ60);
    sum += power / (2 * k + 1);
  }
  return sum;
}

// Smallest shift that brings max(|x|, |y|) into [2^60, 2^61), so that a
// normalisation works on 60 significant bits whatever the input's size.
int NormalizationShift(Vec2 v) {
  const uint64_t ax = v.x.raw() < 0 ? uint64_t{0} - static_cast<uint64_t>(v.x.raw()) : static_cast<uint64_t>(v.x.raw());
  const uint64_t ay = v.y.raw() < 0 ? uint64_t{0} - static_cast<uint64_t>(v.y.raw()) : static_cast<uint64_t>(v.y.raw());
  const uint64_t m = ax > ay ? ax : ay;
  const int width = 64 - std::countl_zero(m);
  return width < 61 ? 61 - width : 0;
}

}  // namespace

Fixed Sqrt(Fixed a) {
  if (a.raw() <= 0) return kFixedZero;
  // sqrt(raw * 2^-32) * 2^32 = sqrt(raw * 2^32).
  return Fixed::FromRaw(static_cast<int64_t>(ISqrtRound(Int128(a.raw()).ShiftLeft(Fixed::kFractionBits))));
}

Fixed Length(Vec2 v) {
  // sqrt of a Q64.64 value is the Q32.32 raw value itself.
  return Fixed::FromRaw(static_cast<int64_t>(ISqrtRound(LengthSquaredWide(v))));
}

// v / |v| on 60 significant bits, whatever v's scale.
Vec2 NormalizeWithoutLength(Vec2 v) {
  if (v.x.raw() == 0 && v.y.raw() == 0) return {};
  const int shift = NormalizationShift(v);
  const Int128 x = Int128(v.x.raw()).ShiftLeft(shift);
  const Int128 y = Int128(v.y.raw()).ShiftLeft(shift);
  // x, y < 2^61 after the shift, so x^2 + y^2 < 2^123 and the length fits.
  const Int128 len2 = Int128::Mul(x.ToInt64Wrapped(), x.ToInt64Wrapped()) + Int128::Mul(y.ToInt64Wrapped(), y.ToInt64Wrapped());
  const int64_t len = static_cast<int64_t>(ISqrtRound(len2));
  return {Fixed::FromWide(DivRoundNearest(x.ShiftLeft(Fixed::kFractionBits), len)),
          Fixed::FromWide(DivRoundNearest(y.ShiftLeft(Fixed::kFractionBits), len))};
}

Vec2 GetLengthAndNormalize(Fixed* length, Vec2 v) {
  *length = Length(v);
  return NormalizeWithoutLength(v);
}

Vec2 Normalize(Vec2 v) { return NormalizeWithoutLength(v); }

Rot NormalizeRot(Rot q) {
  const Vec2 n = Normalize({q.c, q.s});
  if (n.x.raw() == 0 && n.y.raw() == 0) return kRotIdentity;
  return {n.x, n.y};
}

Rot MakeRot(Fixed angle) {
  // k = round(angle / (pi/2)); r = angle - k pi/2, both in Q62 so the
  // reduction loses nothing for any representable angle.
  const Int128 angle_q62 = Int128(angle.raw()).ShiftLeft(kQ62 - Fixed::kFractionBits);
  const int64_t k = DivRoundNearest(angle_q62, kHalfPiQ62).ToInt64Wrapped();
  const int64_t r = (angle_q62 - Int128::Mul(k, kHalfPiQ62)).ToInt64Wrapped();
  int64_t c, s;
  CosSinQ62(r, &c, &s);
  const int shift = kQ62 - Fixed::kFractionBits;
  const Fixed fc = Fixed::FromWide(Int128(c).ShiftRightRound(shift));
  const Fixed fs = Fixed::FromWide(Int128(s).ShiftRightRound(shift));
  switch (static_cast<uint64_t>(k) & 3) {
    case 0: return {fc, fs};
    case 1: return {-fs, fc};
    case 2: return {-fc, -fs};
    default: return {fs, -fc};
  }
}

Fixed Atan2(Fixed y, Fixed x) {
  if (x.raw() == 0 && y.raw() == 0) return kFixedZero;
  const Int128 ax = Int128(x.raw()).Abs();
  const Int128 ay = Int128(y.raw()).Abs();
  const bool steep = ay > ax;
  const Int128 num = steep ? ax : ay;
  const Int128 den = steep ? ay : ax;
  // t = num / den in [0, 1], Q60. den < 2^64 fits the divisor only as an
  // int64 when below 2^63; halve both when it is exactly 2^63 (x = INT64_MIN).
  Int128 n = num, d = den;
  if (!d.FitsInt64()) {
    n = n.ShiftRight(1);
    d = d.ShiftRight(1);
  }
  const int64_t t = DivRoundNearest(n.ShiftLeft(kQ60), d.ToInt64Wrapped()).ToInt64Wrapped();
  // atan(t) = atan(c) + atan((t - c) / (1 + t c)) with c = k/8 nearest t.
  const int64_t k = (t + (kOneQ60 >> 4)) >> (kQ60 - 3);
  const int64_t c = k << (kQ60 - 3);
  const int64_t u = DivQ(t - c, kOneQ60 + MulQ(t, c, kQ60), kQ60);
  int64_t angle = kAtanEighthsQ60[k] + AtanSmallQ60(u);
  if (steep) angle = kHalfPiQ60 - angle;
  if (x.raw() < 0) angle = kPiQ60 - angle;
  if (y.raw() < 0) angle = -angle;
  return Fixed::FromWide(Int128(angle).ShiftRightRound(kQ60 - Fixed::kFractionBits));
}

}  // namespace arbiter
