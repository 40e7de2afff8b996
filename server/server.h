// File: server.h
//
// An Arbiter server: the registry, the service, the worker pool and the
// gRPC server around them, with health checking and reflection. main.cc
// turns flags into ServerOptions; tests start one on port 0.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <grpcpp/grpcpp.h>

#include "absl/status/statusor.h"
#include "arbiter_service.h"
#include "journal.h"
#include "operations.h"
#include "worker_pool.h"
#include "world_registry.h"

namespace arbiter::server {

struct ServerOptions {
  /// host:port to listen on; port 0 picks a free port (see ArbiterServer::port).
  std::string listen = "127.0.0.1:50051";
  /// Scene files to load at start, each as a world named after its "name".
  std::vector<std::string> preload_scenes;
  RegistryLimits registry;
  ServiceLimits service;
  /// Worker threads for steps, mutations and blocked queries; 0: the number
  /// of hardware threads, at least 2.
  int threads = 0;
  /// Ticks a WatchEvents stream may fall behind before it is dropped.
  size_t max_watch_backlog = 4096;
  /// The journal's directory; empty: no journal (worlds live in memory only).
  std::string data_dir;
  JournalSync journal_sync = JournalSync::kNormal;
  uint32_t snapshot_every_ticks = 600;
  bool journal_queries = false;
};

class ArbiterServer {
 public:
  /// Preloads the scenes, then listens. Errors name the scene or address.
  static absl::StatusOr<std::unique_ptr<ArbiterServer>> Start(const ServerOptions& options);
  ~ArbiterServer();

  /// The port actually bound.
  int port() const { return port_; }
  /// Worlds preloaded at start, in the order given.
  const std::vector<std::string>& preloaded() const { return preloaded_; }
  /// Worlds recovered from the journal at start, by journal key.
  const std::vector<std::string>& recovered() const { return recovered_; }
  WorldRegistry& registry() { return *registry_; }
  grpc::Server& grpc_server() { return *server_; }

  /// Stops serving: health turns NOT_SERVING, watch streams end with
  /// UNAVAILABLE, new calls are refused, calls in flight get up to `grace`
  /// to finish before they are cancelled; returns when all have finished.
  /// Idempotent and safe from any thread.
  void Shutdown(std::chrono::milliseconds grace);
  /// Blocks until Shutdown has completed.
  void Wait();

 private:
  ArbiterServer() = default;

  /// Rebuilds every live world in the journal (before serving).
  absl::Status Recover();

  std::unique_ptr<Journal> journal_;
  std::unique_ptr<WorldRegistry> registry_;
  std::unique_ptr<Operations> operations_;
  std::unique_ptr<WorkerPool> pool_;
  std::unique_ptr<ArbiterService> service_;
  std::unique_ptr<grpc::Server> server_;
  int port_ = 0;
  std::vector<std::string> preloaded_;
  std::vector<std::string> recovered_;
  std::once_flag shutdown_once_;
};

}  // namespace arbiter::server
