// A live arbiter-server with --http_listen=127.0.0.1:0 and an HTTP client
// of its listener (cpp-httplib), for the observability tests.
#pragma once

#include <httplib.h>

#include <memory>
#include <string>
#include <vector>

#include "server/server_process.h"

namespace arbiter::testing {

/// A server process with an HTTP listener; http_port() is 0 when it did
/// not start (the test then fails on it).
class HttpServerProcess {
 public:
  explicit HttpServerProcess(std::vector<std::string> extra_args) : process_(WithHttp(std::move(extra_args))) {
    // "arbiter-server http on http://127.0.0.1:PORT (viewer /, metrics /metrics)"
    const std::string line = process_.NextStdoutLine();
    const size_t on = line.find("://");
    const size_t colon = line.find(':', on + 3);
    if (on != std::string::npos && colon != std::string::npos) http_port_ = std::atoi(line.c_str() + colon + 1);
  }

  ServerProcess& process() { return process_; }
  std::string grpc_address() const { return process_.address(); }
  int http_port() const { return http_port_; }
  httplib::Client Http() const { return httplib::Client("127.0.0.1", http_port_); }

 private:
  static std::vector<std::string> WithHttp(std::vector<std::string> args) {
    args.insert(args.begin(), "--http_listen=127.0.0.1:0");
    return args;
  }

  ServerProcess process_;
  int http_port_ = 0;
};

}  // namespace arbiter::testing
