#include "arbiter/core/wide.h"

namespace arbiter {
namespace {

// floor(a / d) and the matching remainder, with a - q * d in [0, d) for d > 0
// and in (d, 0] for d < 0.
struct DivMod {
  Int128 quotient;
  Int128 remainder;
};

#if ARBITER_NATIVE_INT128

__int128 ToNative(Int128 v) {
  return static_cast<__int128>((static_cast<unsigned __int128>(v.hi()) << 64) | v.lo());
}
Int128 FromNative(__int128 v) {
  const auto u = static_cast<unsigned __int128>(v);
  return Int128::FromWords(static_cast<uint64_t>(u >> 64), static_cast<uint64_t>(u));
}

DivMod FloorDivMod(Int128 a, int64_t d) {
  const __int128 n = ToNative(a);
  __int128 q = n / d;  // |n| < 2^127 and d != 0, so no overflow.
  __int128 r = n % d;
  if (r != 0 && ((r < 0) != (d < 0))) {
    q -= 1;
    r += d;
  }
  return {FromNative(q), FromNative(r)};
}

#else

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

DivMod FloorDivMod(Int128 a, int64_t d) {
  const bool neg_a = a.IsNegative();
  const bool neg_d = d < 0;
  const Int128 mag_a = a.Abs();
  const uint64_t mag_d = neg_d ? uint64_t{0} - static_cast<uint64_t>(d) : static_cast<uint64_t>(d);
  uint64_t q_hi, q_lo, r;
  UnsignedDivMod(mag_a.hi(), mag_a.lo(), mag_d, q_hi, q_lo, r);
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

#endif

}  // namespace

Int128 DivFloor(Int128 a, int64_t d) { return FloorDivMod(a, d).quotient; }

Int128 DivRoundNearest(Int128 a, int64_t d) {
  const DivMod qr = FloorDivMod(a, d);
  // The exact quotient is q + r/d with r/d in [0, 1); round up when r/d >= 1/2.
  // Written as r >= d - r (d > 0) or r <= d - r (d < 0) so nothing overflows.
  const Int128 rest = Int128(d) - qr.remainder;
  const bool up = d > 0 ? qr.remainder >= rest : qr.remainder <= rest;
  return up ? qr.quotient + Int128(1) : qr.quotient;
}

uint64_t ISqrtFloor(Int128 a) {
  if (a.IsNegative() || a.IsZero()) return 0;
  // Digit-by-digit (base 4) square root: exact, branch-light, no floats.
  Int128 rest = a;
  Int128 result = 0;
  Int128 bit = Int128(1).ShiftLeft(126);
  while (bit > rest) bit = bit.ShiftRight(2);
  while (!bit.IsZero()) {
    const Int128 trial = result + bit;
    if (rest >= trial) {
      rest = rest - trial;
      result = result.ShiftRight(1) + bit;
    } else {
      result = result.ShiftRight(1);
    }
    bit = bit.ShiftRight(2);
  }
  return result.lo();
}

uint64_t ISqrtRound(Int128 a) {
  const uint64_t r = ISqrtFloor(a);
  // (r + 1/2)^2 = r^2 + r + 1/4, so round up exactly when a - r^2 > r.
  const Int128 r2 = Int128::FromWords(0, 0) + wide_internal::MulU64(r, r);
  return (a - r2) > Int128::FromWords(0, r) ? r + 1 : r;
}

}  // namespace arbiter
