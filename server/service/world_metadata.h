// File: world_metadata.h
//
// The `x-arbiter-world` call metadata. A fleet routes calls by world id in a
// proxy that cannot read request bodies (nginx hashes this header: see
// docker/nginx/), so clients send each world-scoped call's world id here
// too; the server refuses a call whose metadata and body disagree, because
// such a call may have reached an instance that does not own the world it
// names. Calls without the metadata (direct clients) are unaffected.
#pragma once

#include <string_view>

#include <grpcpp/server_context.h>

#include "absl/status/status.h"
#include "arbiter/wire/convert.h"

namespace arbiter::server {

using wire::kWorldMetadataKey;

/// INVALID_ARGUMENT naming `x-arbiter-world` when the call carries the
/// metadata and it differs from `world_id`; OK otherwise (also when
/// `world_id` is empty: calls that name no world).
absl::Status CheckWorldMetadata(const grpc::ServerContextBase& context, std::string_view world_id);

}  // namespace arbiter::server
