// File: fixed.h
//
// The scalar of the whole core: a Q32.32 fixed-point number held in an int64.
// One unit of the last place is 2^-32 (about 2.3e-10 world units).
//
// Why fixed point: integer arithmetic gives the same bits on every compiler,
// optimisation level and architecture, which is Arbiter's promise. Floating
// point appears only in the explicit double conversions below, which serve
// the edges (scene files, client helpers) and never feed a core decision:
// nothing else in core/ calls them (CTest core.sources_integer_only checks
// that, and that core/ has no other floating point and no unordered
// containers). They are deterministic anyway: scaling by 2^32 is exact and
// the one rounding is llround's.
//
// Rounding rule (one for every operation): results are rounded to the nearest
// representable value, ties toward +infinity. Products are formed exactly in
// 128 bits first (see wide.h), so a multiplication rounds once.
//
// Ranges: world coordinates are limited to |v| <= kMaxWorldCoordinate (limits.h: 2^29,
// about 5.4e8 units) and are checked where they enter the core (world and
// shape constructors, query entry points). Inside that range every sum,
// difference and exact product the core forms fits its type. Arithmetic on
// Fixed never has undefined behaviour: + and - wrap modulo 2^64 and * and /
// saturate, but a wrapped or saturated value is a bug in range checking, not
// a result.
#pragma once

#include <compare>
#include <cstdint>
#include <limits>

#include "arbiter/core/wide.h"

namespace arbiter {

class Fixed {
 public:
  static constexpr int kFractionBits = 32;
  static constexpr int64_t kOneRaw = int64_t{1} << kFractionBits;

  constexpr Fixed() = default;

  /// The value raw * 2^-32.
  static constexpr Fixed FromRaw(int64_t raw) {
    Fixed f;
    f.raw_ = raw;
    return f;
  }
  constexpr int64_t raw() const { return raw_; }

  /// Exact: |v| must be below 2^31.
  static constexpr Fixed FromInt(int64_t v) {
    return FromRaw(static_cast<int64_t>(static_cast<uint64_t>(v) << kFractionBits));
  }
  /// num / den rounded to nearest (ties toward +infinity); den != 0.
  static Fixed FromRatio(int64_t num, int64_t den);

  /// True when d is finite and d * 2^32 rounds into the int64 range.
  static bool IsRepresentable(double d);
  /// d rounded to the nearest Q32.32 value, ties away from zero; saturates
  /// (and maps NaN to zero) when !IsRepresentable(d). Edge use only.
  static Fixed FromDouble(double d);
  /// The exact value as a double when |raw| < 2^53, otherwise the nearest.
  constexpr double ToDouble() const { return static_cast<double>(raw_) * (1.0 / 4294967296.0); }

  /// floor(value) as an integer.
  constexpr int64_t Floor() const { return raw_ >> kFractionBits; }

  static constexpr Fixed Max() { return FromRaw(std::numeric_limits<int64_t>::max()); }
  static constexpr Fixed Min() { return FromRaw(std::numeric_limits<int64_t>::min()); }

  friend constexpr Fixed operator+(Fixed a, Fixed b) {
    return FromRaw(static_cast<int64_t>(static_cast<uint64_t>(a.raw_) + static_cast<uint64_t>(b.raw_)));
  }
  friend constexpr Fixed operator-(Fixed a, Fixed b) {
    return FromRaw(static_cast<int64_t>(static_cast<uint64_t>(a.raw_) - static_cast<uint64_t>(b.raw_)));
  }
  constexpr Fixed operator-() const { return Fixed() - *this; }
  friend constexpr Fixed operator*(Fixed a, Fixed b) { return FromQ64(Int128::Mul(a.raw_, b.raw_)); }
  /// Rounded quotient; x / 0 saturates to Max() or Min() (0 / 0 is 0).
  friend Fixed operator/(Fixed a, Fixed b);

  Fixed& operator+=(Fixed b) { return *this = *this + b; }
  Fixed& operator-=(Fixed b) { return *this = *this - b; }
  Fixed& operator*=(Fixed b) { return *this = *this * b; }
  Fixed& operator/=(Fixed b) { return *this = *this / b; }

  friend constexpr bool operator==(Fixed a, Fixed b) = default;
  friend constexpr auto operator<=>(Fixed a, Fixed b) = default;

  /// Multiplies by 2^n (n in 0..31), exactly; wraps outside the range.
  constexpr Fixed ShiftLeft(int n) const {
    return FromRaw(static_cast<int64_t>(static_cast<uint64_t>(raw_) << n));
  }
  /// Divides by 2^n, rounding to nearest (ties toward +infinity).
  constexpr Fixed Half() const { return FromRaw(Int128(raw_).ShiftRightRound(1).ToInt64Wrapped()); }

  /// Saturating conversion of an Int128 raw value.
  static constexpr Fixed FromWide(Int128 raw) {
    if (raw.FitsInt64()) return FromRaw(raw.ToInt64Wrapped());
    return raw.IsNegative() ? Min() : Max();
  }
  /// A Q64.64 raw value rounded to Q32.32 (ties toward +infinity),
  /// saturating: FromWide(q64.ShiftRightRound(kFractionBits)), bit for bit.
  /// Every product rounds here, so the range test looks at the rounded
  /// value's high word alone: r >> 32 fits in int64 exactly when r's high
  /// word fits in int32, one compare instead of rebuilding the shifted
  /// high word and comparing it with the low word's sign.
  static constexpr Fixed FromQ64(Int128 q64) {
    const Int128 r = q64 + Int128(kOneRaw / 2);
    const int64_t hi = static_cast<int64_t>(r.hi());
    if (hi == static_cast<int32_t>(hi)) [[likely]] {
      // Int128's own shift: one double-word shift (shrd) on __int128
      // targets, two shifts and an or on the portable path.
      return FromRaw(static_cast<int64_t>(r.ShiftRight(kFractionBits).lo()));
    }
    return hi < 0 ? Min() : Max();
  }

 private:
  int64_t raw_ = 0;
};

constexpr Fixed kFixedZero = Fixed();
constexpr Fixed kFixedOne = Fixed::FromRaw(Fixed::kOneRaw);
constexpr Fixed kFixedHalf = Fixed::FromRaw(Fixed::kOneRaw / 2);
/// Pi, rounded to Q32.32.
constexpr Fixed kFixedPi = Fixed::FromRaw(13493037705);
constexpr Fixed kFixedHalfPi = Fixed::FromRaw(6746518852);
constexpr Fixed kFixedTwoPi = Fixed::FromRaw(26986075409);

/// |a|; note that Abs(Fixed::Min()) wraps to Fixed::Min(): range checks
/// use WithinMagnitude, which has no such corner.
constexpr Fixed Abs(Fixed a) { return a < kFixedZero ? -a : a; }
/// -limit <= v <= limit, for limit >= 0, with no negation of v.
constexpr bool WithinMagnitude(Fixed v, Fixed limit) { return v >= -limit && v <= limit; }
constexpr Fixed Min(Fixed a, Fixed b) { return a < b ? a : b; }
constexpr Fixed Max(Fixed a, Fixed b) { return a < b ? b : a; }
constexpr Fixed Clamp(Fixed v, Fixed lo, Fixed hi) { return v < lo ? lo : (hi < v ? hi : v); }

/// The exact product a * b as a Q64.64 raw value.
constexpr Int128 MulWide(Fixed a, Fixed b) { return Int128::Mul(a.raw(), b.raw()); }
/// A Q64.64 raw value rounded to Q32.32 (saturating).
constexpr Fixed RoundWide(Int128 q64) { return Fixed::FromQ64(q64); }
/// q64 / d for a Q64.64 numerator and a Q32.32 divisor: a Q32.32 quotient,
/// rounded to nearest; saturates, and d == 0 gives Max()/Min()/0 by sign.
Fixed DivWide(Int128 q64, Fixed d);
/// num / den for two Q64.64 values (or any two values of one scale): a
/// Q32.32 quotient. When den needs more than 62 bits both are shifted down
/// first, so the result is within one ulp of the exact quotient (and exact
/// otherwise); saturates; den == 0 gives Max()/Min()/0 by the sign of num.
Fixed RatioWide(Int128 num, Int128 den);

}  // namespace arbiter
