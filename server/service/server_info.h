// File: server_info.h
//
// The GetServerInfo reply: the server's version, limits and features, built
// once from its options at start (none of it changes while it runs; a
// token reload changes which tokens exist, not whether tokens are needed).
#pragma once

#include "arbiter/v1/arbiter.pb.h"

namespace arbiter::server {

struct ServerOptions;

/// `options` as clients see them. The version is the CMake project version.
v1::GetServerInfoResponse DescribeServer(const ServerOptions& options);

}  // namespace arbiter::server
