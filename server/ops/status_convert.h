// File: status_convert.h
//
// The one place where status codes cross layers. The core's Status and
// absl::Status both carry the canonical google.rpc codes, as does
// grpc::Status, so every conversion keeps the numeric code and the message
// unchanged: a client sees exactly the code and field-naming message the
// core or the validator produced (never a blanket INTERNAL).
#pragma once

#include <grpcpp/support/status.h>

#include "absl/status/status.h"
#include "arbiter/core/status.h"
#include "arbiter/wire/convert.h"

namespace arbiter::server {

/// Core Status -> absl::Status, code for code: the wire library's, the one
/// conversion (the wire's Parse* already return absl::Status).
using wire::FromCore;

/// absl::Status -> grpc::Status, code for code.
grpc::Status ToGrpc(const absl::Status& status);

}  // namespace arbiter::server
