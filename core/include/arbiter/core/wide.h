// File: wide.h
//
// Exact wide integers for the fixed-point core. Every product of two Q32.32
// values is held exactly in an Int128 (a Q64.64 value), so predicates such as
// "do these shapes touch" compare exact quantities instead of rounded ones.
//
// Two interchangeable implementations exist: one over the compiler's
// `__int128`, and a portable one over two uint64 words for targets without it
// (32-bit x86, MSVC). Define ARBITER_PORTABLE_INT128 (CMake option of the same
// name) to force the portable path; both give identical bits, which
// tests/core/wide_test.cc and the determinism digests check.
//
// Nothing here has undefined behaviour for any input: arithmetic wraps modulo
// 2^128 (it is done on unsigned words), and callers keep values inside the
// ranges documented in fixed.h, where no wrap can happen.
#pragma once

#include <bit>
#include <compare>
#include <cstdint>

#if defined(__SIZEOF_INT128__) && !defined(ARBITER_PORTABLE_INT128)
#define ARBITER_NATIVE_INT128 1
#else
#define ARBITER_NATIVE_INT128 0
#endif

namespace arbiter {

/// A signed 128-bit two's-complement integer with wrapping arithmetic.
class Int128 {
 public:
  constexpr Int128() = default;
  constexpr Int128(int64_t v)  // NOLINT: implicit widening is exact.
      : lo_(static_cast<uint64_t>(v)), hi_(v < 0 ? ~uint64_t{0} : 0) {}

  /// Builds a value from its two's-complement words.
  static constexpr Int128 FromWords(uint64_t hi, uint64_t lo) {
    Int128 r;
    r.lo_ = lo;
    r.hi_ = hi;
    return r;
  }

  /// The exact product of two 64-bit integers.
  static constexpr Int128 Mul(int64_t a, int64_t b);

  constexpr uint64_t lo() const { return lo_; }
  constexpr uint64_t hi() const { return hi_; }
  constexpr bool IsNegative() const { return (hi_ >> 63) != 0; }
  constexpr bool IsZero() const { return (lo_ | hi_) == 0; }
  /// -1, 0 or +1.
  constexpr int Sign() const { return IsNegative() ? -1 : (IsZero() ? 0 : 1); }

  /// True when the value fits in int64_t.
  constexpr bool FitsInt64() const {
    return hi_ == (static_cast<uint64_t>(static_cast<int64_t>(lo_) >> 63));
  }
  /// The low 64 bits as a signed value (exact when FitsInt64()).
  constexpr int64_t ToInt64Wrapped() const { return static_cast<int64_t>(lo_); }

  friend constexpr Int128 operator+(Int128 a, Int128 b) {
    const uint64_t lo = a.lo_ + b.lo_;
    return FromWords(a.hi_ + b.hi_ + (lo < a.lo_ ? 1 : 0), lo);
  }
  friend constexpr Int128 operator-(Int128 a, Int128 b) {
    const uint64_t lo = a.lo_ - b.lo_;
    return FromWords(a.hi_ - b.hi_ - (a.lo_ < b.lo_ ? 1 : 0), lo);
  }
  constexpr Int128 operator-() const { return Int128() - *this; }
  Int128& operator+=(Int128 b) { return *this = *this + b; }
  Int128& operator-=(Int128 b) { return *this = *this - b; }

  friend constexpr bool operator==(Int128 a, Int128 b) = default;
  friend constexpr std::strong_ordering operator<=>(Int128 a, Int128 b) {
    const int64_t ah = static_cast<int64_t>(a.hi_);
    const int64_t bh = static_cast<int64_t>(b.hi_);
    if (ah != bh) return ah <=> bh;
    return a.lo_ <=> b.lo_;
  }

  /// Arithmetic shift right by 0..127 (rounds toward negative infinity).
  constexpr Int128 ShiftRight(int n) const {
    if (n == 0) return *this;
    const uint64_t fill = IsNegative() ? ~uint64_t{0} : 0;
    if (n >= 64) {
      const int m = n - 64;
      const uint64_t lo = m == 0 ? hi_ : (hi_ >> m) | (fill << (64 - m));
      return FromWords(fill, lo);
    }
    return FromWords((hi_ >> n) | (fill << (64 - n)), (lo_ >> n) | (hi_ << (64 - n)));
  }
  /// Shift left by 0..127 (wrapping).
  constexpr Int128 ShiftLeft(int n) const {
    if (n == 0) return *this;
    if (n >= 64) return FromWords(lo_ << (n - 64), 0);
    return FromWords((hi_ << n) | (lo_ >> (64 - n)), lo_ << n);
  }

  /// Rounds this / 2^n to the nearest integer, ties toward +infinity.
  constexpr Int128 ShiftRightRound(int n) const {
    if (n == 0) return *this;
    return (*this + Int128(1).ShiftLeft(n - 1)).ShiftRight(n);
  }

  /// Number of significant bits of |this| (0 for zero).
  constexpr int BitWidth() const {
    const Int128 m = Abs();
    if (m.hi_ != 0) return 128 - std::countl_zero(m.hi_);
    return 64 - std::countl_zero(m.lo_);
  }

  /// |this| as an unsigned magnitude split in two words.
  constexpr Int128 Abs() const { return IsNegative() ? -*this : *this; }

 private:
  uint64_t lo_ = 0;
  uint64_t hi_ = 0;
};

namespace wide_internal {

/// The exact 128-bit product of two unsigned 64-bit integers.
constexpr Int128 MulU64(uint64_t a, uint64_t b) {
#if ARBITER_NATIVE_INT128
  const unsigned __int128 p = static_cast<unsigned __int128>(a) * b;
  return Int128::FromWords(static_cast<uint64_t>(p >> 64), static_cast<uint64_t>(p));
#else
  const uint64_t a0 = a & 0xffffffffu, a1 = a >> 32;
  const uint64_t b0 = b & 0xffffffffu, b1 = b >> 32;
  const uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
  const uint64_t mid = (p00 >> 32) + (p01 & 0xffffffffu) + (p10 & 0xffffffffu);
  const uint64_t lo = (mid << 32) | (p00 & 0xffffffffu);
  const uint64_t hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
  return Int128::FromWords(hi, lo);
#endif
}

}  // namespace wide_internal

constexpr Int128 Int128::Mul(int64_t a, int64_t b) {
  // Unsigned product, then the two's-complement correction for negative
  // operands: (a + 2^64 [a<0]) (b + 2^64 [b<0]) = ab + 2^64 (...) mod 2^128.
  Int128 p = wide_internal::MulU64(static_cast<uint64_t>(a), static_cast<uint64_t>(b));
  uint64_t hi = p.hi();
  if (a < 0) hi -= static_cast<uint64_t>(b);
  if (b < 0) hi -= static_cast<uint64_t>(a);
  return FromWords(hi, p.lo());
}

/// Unsigned 256-bit value as four little-endian words; only what the exact
/// predicates need (products of two 128-bit magnitudes and comparison).
struct U256 {
  uint64_t w[4] = {0, 0, 0, 0};
  friend constexpr std::strong_ordering operator<=>(const U256& a, const U256& b) {
    for (int i = 3; i >= 0; --i) {
      if (a.w[i] != b.w[i]) return a.w[i] <=> b.w[i];
    }
    return std::strong_ordering::equal;
  }
  friend constexpr bool operator==(const U256& a, const U256& b) = default;
};

/// The exact product of two non-negative Int128 values (magnitudes < 2^127).
constexpr U256 MulU128(Int128 a, Int128 b) {
  using wide_internal::MulU64;
  const uint64_t x[2] = {a.lo(), a.hi()};
  const uint64_t y[2] = {b.lo(), b.hi()};
  U256 r;
  for (int i = 0; i < 2; ++i) {
    uint64_t carry = 0;
    for (int j = 0; j < 2; ++j) {
      const Int128 p = MulU64(x[i], y[j]);
      // r.w[i+j] + p.lo + carry, propagated as a 128-bit sum.
      uint64_t lo = r.w[i + j] + p.lo();
      uint64_t c1 = lo < p.lo() ? 1 : 0;
      const uint64_t lo2 = lo + carry;
      c1 += lo2 < carry ? 1 : 0;
      r.w[i + j] = lo2;
      carry = p.hi() + c1;  // cannot overflow: p.hi <= 2^64 - 2.
    }
    r.w[i + 2] += carry;
  }
  return r;
}

/// Sign of (a * b - c * d), computed exactly. Operands are any Int128 values
/// whose magnitudes are below 2^127.
constexpr int CompareProducts(Int128 a, Int128 b, Int128 c, Int128 d) {
  const int s1 = a.Sign() * b.Sign();
  const int s2 = c.Sign() * d.Sign();
  if (s1 != s2) return s1 > s2 ? 1 : -1;
  if (s1 == 0) return 0;
  const U256 p1 = MulU128(a.Abs(), b.Abs());
  const U256 p2 = MulU128(c.Abs(), d.Abs());
  const auto order = p1 <=> p2;
  const int mag = order < 0 ? -1 : (order > 0 ? 1 : 0);
  return s1 > 0 ? mag : -mag;
}

/// Quotient of a / d rounded to the nearest integer, ties toward +infinity.
/// Requires d != 0. The quotient is returned as Int128 (it may exceed int64).
Int128 DivRoundNearest(Int128 a, int64_t d);

/// floor(a / d) for d != 0.
Int128 DivFloor(Int128 a, int64_t d);

/// floor(sqrt(a)) for a >= 0 (returns 0 for negative a).
uint64_t ISqrtFloor(Int128 a);

/// sqrt(a) rounded to the nearest integer, for a >= 0 (0 for negative a).
uint64_t ISqrtRound(Int128 a);

}  // namespace arbiter
