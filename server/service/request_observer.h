// File: request_observer.h
//
// Watches every gRPC call from outside the service (a gRPC server
// interceptor), so that no handler needs to remember to: when a call ends
// it counts the call by RPC and status code and its latency (RpcMetrics)
// and, with --log_requests, writes one JSON line to stderr:
//
//   {"time":"2026-12-01T18:30:00.123Z","method":"CastRays","world":"arena",
//    "caller":"token 'game-1'","code":"OK","latency_us":84,"items":64}
//
// time: when the call ended (UTC); world: the request's world_id ("" for
// calls on no world); caller: AccessControl::CallerLabel (a token's label,
// never the token); code: the gRPC status code's name; latency_us: from
// the call's arrival to its status, microseconds; items: the elements of
// the request's top-level repeated fields (rays, as messages or column rows,
// bodies, queries, commands; summed over a stream's messages).
#pragma once

#include <memory>

#include <grpcpp/support/server_interceptor.h>

#include "access/access.h"
#include "ops/metrics.h"

namespace arbiter::server {

class RequestObserver final : public grpc::experimental::ServerInterceptorFactoryInterface {
 public:
  /// `metrics` and `access` must outlive every call.
  RequestObserver(RpcMetrics* metrics, const AccessControl* access, bool log_requests)
      : metrics_(metrics), access_(access), log_requests_(log_requests) {}

  grpc::experimental::Interceptor* CreateServerInterceptor(grpc::experimental::ServerRpcInfo* info) override;

 private:
  class Call;

  RpcMetrics* metrics_;
  const AccessControl* access_;
  const bool log_requests_;
};

}  // namespace arbiter::server
