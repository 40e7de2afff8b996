#include "ops/status_convert.h"

#include <string>

namespace arbiter::server {

// absl::StatusCode and grpc::StatusCode both use the google.rpc.Code
// numbering (the core's codes are mapped to absl in arbiter/wire/convert.cc),
// so the cast is the mapping.
static_assert(static_cast<int>(absl::StatusCode::kUnauthenticated) == static_cast<int>(grpc::StatusCode::UNAUTHENTICATED));
static_assert(static_cast<int>(absl::StatusCode::kResourceExhausted) ==
              static_cast<int>(grpc::StatusCode::RESOURCE_EXHAUSTED));

grpc::Status ToGrpc(const absl::Status& status) {
  if (status.ok()) return grpc::Status::OK;
  return grpc::Status(static_cast<grpc::StatusCode>(status.code()), std::string(status.message()));
}

}  // namespace arbiter::server
