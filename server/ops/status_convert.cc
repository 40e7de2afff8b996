#include "ops/status_convert.h"

#include <string>

namespace arbiter::server {

// arbiter::StatusCode, absl::StatusCode and grpc::StatusCode all use the
// google.rpc.Code numbering (status.h says so for the core; Abseil and gRPC
// document it), so the cast is the mapping.
static_assert(static_cast<int>(arbiter::StatusCode::kInvalidArgument) == static_cast<int>(absl::StatusCode::kInvalidArgument));
static_assert(static_cast<int>(arbiter::StatusCode::kNotFound) == static_cast<int>(absl::StatusCode::kNotFound));
static_assert(static_cast<int>(arbiter::StatusCode::kAlreadyExists) == static_cast<int>(absl::StatusCode::kAlreadyExists));
static_assert(static_cast<int>(arbiter::StatusCode::kResourceExhausted) ==
              static_cast<int>(absl::StatusCode::kResourceExhausted));
static_assert(static_cast<int>(arbiter::StatusCode::kFailedPrecondition) ==
              static_cast<int>(absl::StatusCode::kFailedPrecondition));
static_assert(static_cast<int>(arbiter::StatusCode::kOutOfRange) == static_cast<int>(absl::StatusCode::kOutOfRange));
static_assert(static_cast<int>(arbiter::StatusCode::kInternal) == static_cast<int>(absl::StatusCode::kInternal));
static_assert(static_cast<int>(absl::StatusCode::kUnauthenticated) == static_cast<int>(grpc::StatusCode::UNAUTHENTICATED));
static_assert(static_cast<int>(absl::StatusCode::kResourceExhausted) ==
              static_cast<int>(grpc::StatusCode::RESOURCE_EXHAUSTED));

absl::Status FromCore(const arbiter::Status& status) {
  if (status.ok()) return absl::OkStatus();
  return absl::Status(static_cast<absl::StatusCode>(status.code()), status.message());
}

grpc::Status ToGrpc(const absl::Status& status) {
  if (status.ok()) return grpc::Status::OK;
  return grpc::Status(static_cast<grpc::StatusCode>(status.code()), std::string(status.message()));
}

}  // namespace arbiter::server
