#include "access/rate_limiter.h"

#include <algorithm>

namespace arbiter::server {

RateLimiter::RateLimiter(const RateLimits& limits, Clock clock)
    : limits_(limits),
      burst_(limits.burst > 0 ? limits.burst : std::max(1.0, limits.requests_per_second)),
      clock_(clock ? std::move(clock) : Clock([] { return std::chrono::steady_clock::now(); })) {}

void RateLimiter::RefillLocked(Caller& c, std::chrono::steady_clock::time_point now) const {
  if (now <= c.refilled) return;
  const double seconds = std::chrono::duration<double>(now - c.refilled).count();
  c.tokens = std::min(burst_, c.tokens + seconds * limits_.requests_per_second);
  c.refilled = now;
}

RateLimiter::Caller& RateLimiter::CallerLocked(std::string_view key, std::chrono::steady_clock::time_point now) {
  auto it = callers_.find(key);
  if (it != callers_.end()) return it->second;
  // Per-connection keys come and go; without eviction the map would grow
  // with every connection ever made.
  if (callers_.size() >= evict_at_) EvictIdleLocked(now);
  Caller fresh;
  fresh.tokens = burst_;
  fresh.refilled = now;
  return callers_.emplace(std::string(key), fresh).first->second;
}

void RateLimiter::EvictIdleLocked(std::chrono::steady_clock::time_point now) {
  // A caller with no call in flight and a full bucket is indistinguishable
  // from a new one, so forgetting it changes no decision.
  for (auto it = callers_.begin(); it != callers_.end();) {
    RefillLocked(it->second, now);
    const bool full = limits_.requests_per_second <= 0 || it->second.tokens >= burst_;
    it = (it->second.in_flight == 0 && full) ? callers_.erase(it) : std::next(it);
  }
  evict_at_ = std::max<size_t>(1024, 2 * callers_.size());
}

bool RateLimiter::TryTakeRequest(std::string_view key) {
  if (limits_.requests_per_second <= 0) return true;
  const auto now = clock_();
  std::lock_guard<std::mutex> lock(mu_);
  Caller& c = CallerLocked(key, now);
  RefillLocked(c, now);
  if (c.tokens < 1) return false;
  c.tokens -= 1;
  return true;
}

bool RateLimiter::TryEnterCall(std::string_view key) {
  if (limits_.max_calls_in_flight == 0) return true;
  const auto now = clock_();
  std::lock_guard<std::mutex> lock(mu_);
  Caller& c = CallerLocked(key, now);
  if (c.in_flight >= limits_.max_calls_in_flight) return false;
  ++c.in_flight;
  return true;
}

void RateLimiter::ExitCall(std::string_view key) {
  if (limits_.max_calls_in_flight == 0) return;
  std::lock_guard<std::mutex> lock(mu_);
  auto it = callers_.find(key);
  // Entries with calls in flight are never evicted, so it is there.
  if (it != callers_.end() && it->second.in_flight > 0) --it->second.in_flight;
}

size_t RateLimiter::tracked() const {
  std::lock_guard<std::mutex> lock(mu_);
  return callers_.size();
}

}  // namespace arbiter::server
