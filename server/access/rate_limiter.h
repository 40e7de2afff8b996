// File: rate_limiter.h
//
// Per-caller limits: a token bucket (requests per second with a burst) and
// a cap on calls in flight. A caller is a key chosen by AccessControl (the
// token's hash, or the connection's peer address under open access), so one
// caller's flood empties only its own bucket and fills only its own slots.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <string_view>

namespace arbiter::server {

struct RateLimits {
  /// Sustained requests per second per caller; 0: unlimited.
  double requests_per_second = 0;
  /// Bucket size (requests a caller may make at once after being idle);
  /// 0: one second's worth (at least 1).
  double burst = 0;
  /// Calls in flight per caller (streams count while open); 0: unlimited.
  uint32_t max_calls_in_flight = 0;
};

class RateLimiter {
 public:
  using Clock = std::function<std::chrono::steady_clock::time_point()>;

  /// `clock` is for tests; the default is the steady clock.
  explicit RateLimiter(const RateLimits& limits, Clock clock = nullptr);

  const RateLimits& limits() const { return limits_; }
  double burst() const { return burst_; }

  /// Takes one request from `key`'s bucket; false if it is empty.
  bool TryTakeRequest(std::string_view key);
  /// Takes one call-in-flight slot of `key`; false at the cap.
  bool TryEnterCall(std::string_view key);
  /// Returns a slot taken by TryEnterCall.
  void ExitCall(std::string_view key);

  /// Callers with state (for tests of the eviction of idle callers).
  size_t tracked() const;

 private:
  struct Caller {
    double tokens = 0;
    std::chrono::steady_clock::time_point refilled;
    uint32_t in_flight = 0;
  };
  Caller& CallerLocked(std::string_view key, std::chrono::steady_clock::time_point now);
  void RefillLocked(Caller& c, std::chrono::steady_clock::time_point now) const;
  void EvictIdleLocked(std::chrono::steady_clock::time_point now);

  const RateLimits limits_;
  const double burst_;
  const Clock clock_;
  mutable std::mutex mu_;
  std::map<std::string, Caller, std::less<>> callers_;
  size_t evict_at_ = 1024;
};

}  // namespace arbiter::server
