// File: http_listener.h
//
// The read-only HTTP listener (--http_listen, off by default), through
// cpp-httplib: the viewer page, its JSON and event stream (viewer_api.h,
// viewer_stream.h) and GET /metrics (metrics_exposition.h). Only GET
// routes exist: nothing on this listener changes a world.
//
// Exposure follows the gRPC listener's rules (server.cc checks the address
// before Start): loopback by default; another address needs a token file
// or --allow_insecure_open_access; TLS with the same --tls_cert, --tls_key
// and --tls_client_ca (Debian's cpp-httplib is built with OpenSSL).
//
// With a token file every route but the page itself (/, /viewer.js: no
// data) needs a token of any role that may read the world asked about
// (reader, writer or admin), sent either as the header
// "Authorization: Bearer <token>" or as the cookie "arbiter_token=<token>"
// (the page's EventSource cannot send headers, so the page uses the
// cookie). /metrics and /api/worlds show only the worlds the token may
// read. Calls count against the token's rate and calls-in-flight limits
// like gRPC calls (an event stream holds one slot while open).
//
// Errors: JSON {"code":"NOT_FOUND","error":"..."} with the HTTP status of
// the gRPC code (400, 401, 403, 404, 429, 503, 500).
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>

#include "absl/status/statusor.h"
#include "access/access.h"
#include "access/tls_options.h"
#include "http/metrics_exposition.h"
#include "http/hit_feed.h"
#include "ops/world_registry.h"

namespace httplib {
class Server;
struct Request;
struct Response;
}  // namespace httplib

namespace arbiter::server {

class ViewerStream;

struct HttpSources {
  WorldRegistry* registry = nullptr;
  AccessControl* access = nullptr;
  HitFeed* hits = nullptr;
  MetricsSources metrics;
};

class HttpListener {
 public:
  /// Most event streams open at once (each holds one HTTP thread).
  static constexpr size_t kMaxStreams = 8;

  /// Binds `listen` (host:port; port 0: any free port) and serves on a
  /// thread of its own. Errors name --http_listen or the TLS flag.
  static absl::StatusOr<std::unique_ptr<HttpListener>> Start(const std::string& listen, const TlsOptions& tls,
                                                             const HttpSources& sources);
  ~HttpListener();

  int port() const { return port_; }
  /// Ends the event streams, stops listening and joins the thread. Idempotent.
  void Stop();

 private:
  explicit HttpListener(const HttpSources& sources);  // in the .cc: httplib::Server is incomplete here
  void Route();
  void ServeEvents(const std::string& world_id, const httplib::Request& req, httplib::Response& res);
  /// AccessControl::Admit for a read of `world_id` with the request's
  /// header or cookie token.
  absl::StatusOr<Permit> Admit(const httplib::Request& req, std::string_view world_id);

  const HttpSources sources_;
  std::unique_ptr<httplib::Server> server_;
  std::thread thread_;
  int port_ = 0;
  std::mutex streams_mu_;
  std::set<ViewerStream*> streams_;
  bool stopping_ = false;  // guarded by streams_mu_
  std::once_flag stop_once_;
};

}  // namespace arbiter::server
