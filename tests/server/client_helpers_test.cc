// The C++ client's past-tick helpers (issue 14): MakePastTick converts the
// fraction exactly, as Fixed::FromDouble, and refuses what the wire does
// not take; the one-query helpers send `at` and answer as the batch RPCs.
#include <cmath>

#include "arbiter/client/client.h"
#include "test_support.h"

namespace arbiter::testing {
namespace {

TEST(ClientHelpersTest, MakePastTick_ConvertsTheFractionExactly) {
  for (const double f : {0.0, 0.25, 0.5, 1.0 / 3.0, 0x1p-32, 0x1p-33, 0.1, 0.999999999}) {
    absl::StatusOr<v1::PastTick> at = client::MakePastTick(7, f);
    ASSERT_THAT(at.status(), IsOk()) << f;
    EXPECT_EQ(at->tick(), 7);
    EXPECT_EQ(at->fraction(), Fixed::FromDouble(f).raw()) << f;
  }
  EXPECT_EQ(client::MakePastTick(7, 0.25)->fraction(), int64_t{1} << 30);
  EXPECT_EQ(client::MakePastTick(7, -0.0)->fraction(), 0);
}

TEST(ClientHelpersTest, MakePastTick_RefusesWhatTheWireDoesNotTake) {
  // The largest double below 1 rounds to 1.0 in Q32.32: refused too.
  for (const double f : {1.0, std::nextafter(1.0, 0.0), -0x1p-40, -0.5, 2.0, std::nan(""), HUGE_VAL}) {
    EXPECT_THAT(client::MakePastTick(7, f).status(),
                StatusIs(absl::StatusCode::kInvalidArgument, "at.fraction: "))
        << f;
  }
  EXPECT_THAT(client::MakePastTick(-1).status(), StatusIs(absl::StatusCode::kInvalidArgument, "at.tick: -1 is negative"));
}

}  // namespace
}  // namespace arbiter::testing
