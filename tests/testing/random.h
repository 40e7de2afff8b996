// Seeded, platform-independent random numbers for property tests.
#pragma once

#include <cstdint>

namespace arbiter::testing {

/// SplitMix64 (Steele, Lea, Flood 2014): tiny, fast, and the same sequence on
/// every platform, unlike the distributions in <random>.
class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}

  uint64_t Next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  int64_t NextInt64() { return static_cast<int64_t>(Next()); }
  /// Uniform in [lo, hi] (inclusive), for hi - lo < 2^63.
  int64_t Uniform(int64_t lo, int64_t hi) {
    const uint64_t span = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo) + 1;
    return static_cast<int64_t>(static_cast<uint64_t>(lo) + (span == 0 ? Next() : Next() % span));
  }
  /// A value with a random bit width, so that small and large magnitudes are
  /// both common.
  int64_t AnyWidth() {
    const int bits = static_cast<int>(Next() % 64);
    const uint64_t mask = bits == 63 ? ~uint64_t{0} : ((uint64_t{1} << (bits + 1)) - 1);
    return static_cast<int64_t>(Next() & mask) * ((Next() & 1) ? 1 : -1);
  }
  bool Bool() { return (Next() & 1) != 0; }
  /// Uniform in [0, 1), the top 53 bits of Next() (for building test inputs
  /// in world units; never on a path of the core).
  double Unit() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }

 private:
  uint64_t state_;
};

/// Uniform in [lo, hi): lo + (hi - lo) x the top 53 bits of Next() (test
/// inputs in world units; never on a path of the core).
inline double UniformD(SplitMix64& rng, double lo, double hi) {
  return lo + (hi - lo) * static_cast<double>(rng.Next() >> 11) * 0x1p-53;
}

}  // namespace arbiter::testing
