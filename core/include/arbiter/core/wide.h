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

#if ARBITER_NATIVE_INT128

/// A signed 128-bit two's-complement integer with wrapping arithmetic.
///
/// This is the native form: one `unsigned __int128`, so that a product is a
/// single widening multiply and a shift a `shrd`. Arithmetic is done on the
/// unsigned type (wrapping, never undefined) and reinterpreted as signed
/// only for comparisons and arithmetic shifts, which C++20 defines as
/// two's-complement operations. Every member has the portable form's exact
/// semantics (same words for the same operations), so the two paths give
/// the same bits: tests/core/wide_test.cc compares them on random inputs.
class Int128 {
 public:
  constexpr Int128() = default;
  constexpr Int128(int64_t v)  // NOLINT: implicit widening is exact.
      : v_(static_cast<unsigned __int128>(static_cast<__int128>(v))) {}

  /// Builds a value from its two's-complement words.
  static constexpr Int128 FromWords(uint64_t hi, uint64_t lo) {
    return FromBits((static_cast<unsigned __int128>(hi) << 64) | lo);
  }

  /// The exact product of two 64-bit integers.
  static constexpr Int128 Mul(int64_t a, int64_t b) {
    // |a b| <= 2^126: the signed product cannot overflow.
    return FromBits(static_cast<unsigned __int128>(static_cast<__int128>(a) * b));
  }

  constexpr uint64_t lo() const { return static_cast<uint64_t>(v_); }
  constexpr uint64_t hi() const { return static_cast<uint64_t>(v_ >> 64); }
  constexpr bool IsNegative() const { return Signed() < 0; }
  constexpr bool IsZero() const { return v_ == 0; }
  /// -1, 0 or +1.
  constexpr int Sign() const { return IsNegative() ? -1 : (IsZero() ? 0 : 1); }

  /// True when the value fits in int64_t.
  constexpr bool FitsInt64() const { return Signed() == static_cast<int64_t>(static_cast<uint64_t>(v_)); }
  /// The low 64 bits as a signed value (exact when FitsInt64()).
  constexpr int64_t ToInt64Wrapped() const { return static_cast<int64_t>(static_cast<uint64_t>(v_)); }

  friend constexpr Int128 operator+(Int128 a, Int128 b) { return FromBits(a.v_ + b.v_); }
  friend constexpr Int128 operator-(Int128 a, Int128 b) { return FromBits(a.v_ - b.v_); }
  constexpr Int128 operator-() const { return FromBits(0 - v_); }
  Int128& operator+=(Int128 b) { return *this = *this + b; }
  Int128& operator-=(Int128 b) { return *this = *this - b; }

  friend constexpr bool operator==(Int128 a, Int128 b) = default;
  friend constexpr std::strong_ordering operator<=>(Int128 a, Int128 b) {
    return a.Signed() <=> b.Signed();
  }

  /// Arithmetic shift right by 0..127 (rounds toward negative infinity).
  constexpr Int128 ShiftRight(int n) const {
    return FromBits(static_cast<unsigned __int128>(Signed() >> n));
  }
  /// Shift left by 0..127 (wrapping).
  constexpr Int128 ShiftLeft(int n) const { return FromBits(v_ << n); }

  /// Rounds this / 2^n to the nearest integer, ties toward +infinity.
  constexpr Int128 ShiftRightRound(int n) const {
    if (n == 0) return *this;
    return FromBits(v_ + (static_cast<unsigned __int128>(1) << (n - 1))).ShiftRight(n);
  }

  /// Number of significant bits of |this| (0 for zero).
  constexpr int BitWidth() const {
    const Int128 m = Abs();
    if (m.hi() != 0) return 128 - std::countl_zero(m.hi());
    return 64 - std::countl_zero(m.lo());
  }

  /// |this| as an unsigned magnitude split in two words.
  constexpr Int128 Abs() const { return IsNegative() ? -*this : *this; }

  /// The value as the compiler's signed type (the native path only).
  constexpr __int128 Signed() const { return static_cast<__int128>(v_); }
  /// The two's-complement bits as the compiler's unsigned type.
  constexpr unsigned __int128 Bits() const { return v_; }
  static constexpr Int128 FromBits(unsigned __int128 bits) {
    Int128 r;
    r.v_ = bits;
    return r;
  }

 private:
  unsigned __int128 v_ = 0;
};

#else  // the portable two-word form

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

#endif  // ARBITER_NATIVE_INT128

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

#if !ARBITER_NATIVE_INT128
constexpr Int128 Int128::Mul(int64_t a, int64_t b) {
  // Unsigned product, then the two's-complement correction for negative
  // operands: (a + 2^64 [a<0]) (b + 2^64 [b<0]) = ab + 2^64 (...) mod 2^128.
  Int128 p = wide_internal::MulU64(static_cast<uint64_t>(a), static_cast<uint64_t>(b));
  uint64_t hi = p.hi();
  if (a < 0) hi -= static_cast<uint64_t>(b);
  if (b < 0) hi -= static_cast<uint64_t>(a);
  return FromWords(hi, p.lo());
}
#endif

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

/// floor(a / d) and the matching remainder: a - quotient * d lies in [0, d)
/// for d > 0 and in (d, 0] for d < 0.
struct DivMod {
  Int128 quotient;
  Int128 remainder;
};

#if ARBITER_NATIVE_INT128
namespace wide_internal {

/// n / d and n % d for n < d * 2^64, so that the quotient fits 64 bits: one
/// `divq` on x86-64 instead of the library's general 128-bit division (the
/// instruction computes exactly this truncated quotient and remainder).
inline uint64_t DivU128ByU64Fits(unsigned __int128 n, uint64_t d, uint64_t* rem) {
#if defined(__x86_64__)
  uint64_t q, r;
  __asm__("divq %[d]" : "=a"(q), "=d"(r) : [d] "r"(d), "a"(static_cast<uint64_t>(n)),
          "d"(static_cast<uint64_t>(n >> 64)));
  *rem = r;
  return q;
#else
  *rem = static_cast<uint64_t>(n % d);
  return static_cast<uint64_t>(n / d);
#endif
}

}  // namespace wide_internal

/// Floor division of a by d != 0 (|a| <= 2^127).
inline DivMod FloorDivMod(Int128 a, int64_t d) {
  const bool neg_a = a.IsNegative();
  const bool neg_d = d < 0;
  const unsigned __int128 mag_a = neg_a ? 0 - a.Bits() : a.Bits();
  const uint64_t mag_d = neg_d ? uint64_t{0} - static_cast<uint64_t>(d) : static_cast<uint64_t>(d);
  unsigned __int128 q;
  uint64_t r;
  if (static_cast<uint64_t>(mag_a >> 64) < mag_d) {
    q = wide_internal::DivU128ByU64Fits(mag_a, mag_d, &r);
  } else {
    q = mag_a / mag_d;
    r = static_cast<uint64_t>(mag_a % mag_d);
  }
  // The truncated quotient and remainder carry the signs of C++ '/' and '%';
  // floor moves a non-zero remainder to the divisor's side.
  Int128 quotient = Int128::FromBits(neg_a != neg_d ? 0 - q : q);
  Int128 remainder = Int128::FromBits(neg_a ? 0 - static_cast<unsigned __int128>(r) : r);
  if (r != 0 && neg_a != neg_d) {
    quotient = quotient - Int128(1);
    remainder = remainder + Int128(d);
  }
  return {quotient, remainder};
}

/// floor(a / d) for d != 0.
inline Int128 DivFloor(Int128 a, int64_t d) { return FloorDivMod(a, d).quotient; }

/// Quotient of a / d rounded to the nearest integer, ties toward +infinity.
/// Requires d != 0. The quotient is returned as Int128 (it may exceed int64).
inline Int128 DivRoundNearest(Int128 a, int64_t d) {
  const DivMod qr = FloorDivMod(a, d);
  // The exact quotient is q + r/d with r/d in [0, 1); round up when r/d >= 1/2.
  // Written as r >= d - r (d > 0) or r <= d - r (d < 0) so nothing overflows.
  const Int128 rest = Int128(d) - qr.remainder;
  const bool up = d > 0 ? qr.remainder >= rest : qr.remainder <= rest;
  return up ? qr.quotient + Int128(1) : qr.quotient;
}
#else
/// Floor division of a by d != 0.
DivMod FloorDivMod(Int128 a, int64_t d);

/// floor(a / d) for d != 0.
Int128 DivFloor(Int128 a, int64_t d);

/// Quotient of a / d rounded to the nearest integer, ties toward +infinity.
/// Requires d != 0. The quotient is returned as Int128 (it may exceed int64).
Int128 DivRoundNearest(Int128 a, int64_t d);
#endif

/// floor(sqrt(a)) for a >= 0 (returns 0 for negative a).
uint64_t ISqrtFloor(Int128 a);

/// sqrt(a) rounded to the nearest integer, for a >= 0 (0 for negative a).
uint64_t ISqrtRound(Int128 a);

}  // namespace arbiter
