// The rate limiter alone (a fake clock): buckets per caller, calls in
// flight, forgetting idle callers. In lock_tests, which ThreadSanitizer
// builds without the rest of the server (scripts/test-server-sanitized.sh).
#include "access/rate_limiter.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

namespace arbiter::testing {
namespace {

using std::chrono::milliseconds;

class FakeClock {
 public:
  server::RateLimiter::Clock clock() {
    return [this] { return now_; };
  }
  void Advance(milliseconds d) { now_ += d; }

 private:
  std::chrono::steady_clock::time_point now_{};
};

TEST(RateLimiterTest, Bucket_AllowsTheBurst_ThenTheRate_PerKey) {
  FakeClock clock;
  server::RateLimits limits;
  limits.requests_per_second = 10;
  limits.burst = 3;
  server::RateLimiter limiter(limits, clock.clock());
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(limiter.TryTakeRequest("a")) << i;
  EXPECT_FALSE(limiter.TryTakeRequest("a"));
  EXPECT_TRUE(limiter.TryTakeRequest("b"));  // another caller has its own bucket
  clock.Advance(milliseconds(100));          // one request's worth
  EXPECT_TRUE(limiter.TryTakeRequest("a"));
  EXPECT_FALSE(limiter.TryTakeRequest("a"));
  clock.Advance(milliseconds(60000));  // refills to the burst, not beyond
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(limiter.TryTakeRequest("a")) << i;
  EXPECT_FALSE(limiter.TryTakeRequest("a"));
}

TEST(RateLimiterTest, DefaultBurst_IsOneSecondsWorth) {
  server::RateLimits limits;
  limits.requests_per_second = 4;
  EXPECT_EQ(server::RateLimiter(limits).burst(), 4);
  limits.requests_per_second = 0.25;
  EXPECT_EQ(server::RateLimiter(limits).burst(), 1);
}

TEST(RateLimiterTest, CallsInFlight_AreCappedPerKey_AndReturned) {
  server::RateLimits limits;
  limits.max_calls_in_flight = 2;
  server::RateLimiter limiter(limits);
  EXPECT_TRUE(limiter.TryEnterCall("a"));
  EXPECT_TRUE(limiter.TryEnterCall("a"));
  EXPECT_FALSE(limiter.TryEnterCall("a"));
  EXPECT_TRUE(limiter.TryEnterCall("b"));
  limiter.ExitCall("a");
  EXPECT_TRUE(limiter.TryEnterCall("a"));
  EXPECT_FALSE(limiter.TryEnterCall("a"));
}

TEST(RateLimiterTest, IdleCallers_AreForgotten_OthersAreNot) {
  FakeClock clock;
  server::RateLimits limits;
  limits.requests_per_second = 1;
  limits.burst = 1;
  limits.max_calls_in_flight = 1;
  server::RateLimiter limiter(limits, clock.clock());
  ASSERT_TRUE(limiter.TryEnterCall("busy"));
  // Callers with an empty bucket are remembered, however many there are.
  for (int i = 0; i < 3000; ++i) ASSERT_TRUE(limiter.TryTakeRequest("old-" + std::to_string(i)));
  EXPECT_EQ(limiter.tracked(), 3001u);
  EXPECT_FALSE(limiter.TryTakeRequest("old-0"));
  // Once their buckets are full again they are forgotten as new callers come.
  clock.Advance(milliseconds(10000));
  for (int i = 0; i < 3000; ++i) ASSERT_TRUE(limiter.TryTakeRequest("new-" + std::to_string(i)));
  EXPECT_LT(limiter.tracked(), 4000u);
  // A caller with a call in flight is never forgotten.
  EXPECT_FALSE(limiter.TryEnterCall("busy"));
  limiter.ExitCall("busy");
  EXPECT_TRUE(limiter.TryEnterCall("busy"));
}

}  // namespace
}  // namespace arbiter::testing
