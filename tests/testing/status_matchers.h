// gMock matchers for absl::Status and absl::StatusOr (Abseil 20220623 ships
// none): EXPECT_THAT(call, IsOk()), EXPECT_THAT(call, StatusIs(code, text)).
// The test target links GTest::gmock and Abseil's status (as every target
// that has a Status to check does).
#pragma once

#include <gmock/gmock.h>

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace arbiter::testing {

inline absl::Status StatusOf(const absl::Status& s) { return s; }
template <class T>
absl::Status StatusOf(const absl::StatusOr<T>& s) {
  return s.status();
}

/// Matches an OK Status or StatusOr.
MATCHER(IsOk, "is OK") {
  const absl::Status s = StatusOf(arg);
  if (s.ok()) return true;
  *result_listener << "status " << s;
  return false;
}

/// Matches a Status or StatusOr with `code` whose message contains `text`.
MATCHER_P2(StatusIs, code, text, "has code " + absl::StatusCodeToString(code) + " and message containing '" + text + "'") {
  const absl::Status s = StatusOf(arg);
  if (s.code() == code && std::string(s.message()).find(text) != std::string::npos) return true;
  *result_listener << "status " << s;
  return false;
}

}  // namespace arbiter::testing
