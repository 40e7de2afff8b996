// File: server.h
//
// An Arbiter server: the registry, the service, the worker pool and the
// gRPC server around them, with health checking and reflection. main.cc
// turns flags into ServerOptions; tests start one on port 0.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <grpcpp/grpcpp.h>

#include "absl/status/statusor.h"
#include "access/access.h"
#include "access/tls_options.h"
#include "http/http_listener.h"
#include "journal/journal.h"
#include "journal/journal_recovery.h"
#include "journal/recovery_gate.h"
#include "ops/operations.h"
#include "ops/worker_pool.h"
#include "ops/world_registry.h"
#include "service/arbiter_service.h"

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
  /// Ticks of journal records kept beyond each world's history window.
  int64_t journal_retain_ticks = 216000;
  /// Tests only: the journal's page limit (a full disk); 0: none.
  uint32_t journal_max_pages = 0;
  /// Progress of the journal's recovery at start (journal_recovery.h).
  RecoveryOptions recovery;
  /// Tokens and per-caller limits (access.h).
  AccessOptions access;
  TlsOptions tls;
  /// Without a token file the server refuses to listen on anything but
  /// loopback unless this is set (both listeners).
  bool allow_insecure_open_access = false;
  /// host:port of the read-only HTTP listener (viewer, /metrics;
  /// http_listener.h); empty: none. Port 0 picks a free port.
  std::string http_listen;
  /// One JSON line per gRPC call on stderr (request_observer.h).
  bool log_requests = false;
};

/// True for 127.0.0.0/8, ::1 and localhost (the host part of host:port).
bool IsLoopbackListen(const std::string& listen);

class ArbiterServer {
 public:
  /// Reserves the journal's worlds, preloads the scenes (a journaled world
  /// wins over a scene of its name), then listens, and recovers the
  /// journal's worlds in the background: until that is done, health says
  /// NOT_SERVING and the RecoveryGate refuses changes (recovery_gate.h).
  /// Errors name the scene, address, token file or certificate;
  /// FAILED_PRECONDITION for open access on a non-loopback address without
  /// allow_insecure_open_access.
  static absl::StatusOr<std::unique_ptr<ArbiterServer>> Start(const ServerOptions& options);
  ~ArbiterServer();

  /// Blocks until the journal's worlds are back (OK at once without a
  /// journal). Otherwise why not: the recovery's error (DATA_LOSS naming
  /// the world and the journal, ...), and then the server must not serve;
  /// CANCELLED when the server shut down first.
  absl::Status WaitUntilRecovered() const { return recovery_done_.get(); }

  /// The port actually bound.
  int port() const { return port_; }
  /// The HTTP listener's port; 0 without --http_listen.
  int http_port() const { return http_ == nullptr ? 0 : http_->port(); }
  /// Worlds preloaded at start, in the order given.
  const std::vector<std::string>& preloaded() const { return preloaded_; }
  /// Worlds recovered from the journal at start, by journal key; complete
  /// once WaitUntilRecovered has returned OK.
  const std::vector<std::string>& recovered() const;
  /// Deleted worlds whose records an older server had kept, purged once
  /// the recovery is done (see WaitUntilRecovered).
  int64_t purged_worlds() const { return purged_worlds_; }
  /// The journal's size now; FAILED_PRECONDITION without a journal.
  absl::StatusOr<Journal::Usage> JournalUsage();
  WorldRegistry& registry() { return *registry_; }
  AccessControl& access() { return *access_; }
  /// Things the operator must hear about at start (open access, plaintext
  /// on a non-loopback address), one sentence each.
  const std::vector<std::string>& warnings() const { return warnings_; }
  /// Re-reads the token file; see AccessControl::ReloadTokens.
  absl::StatusOr<size_t> ReloadTokens() { return access_->ReloadTokens(); }

  /// Stops serving: health turns NOT_SERVING, watch streams end with
  /// UNAVAILABLE, new calls are refused, calls in flight get up to `grace`
  /// to finish before they are cancelled; returns when all have finished.
  /// Idempotent and safe from any thread.
  void Shutdown(std::chrono::milliseconds grace);
  /// Blocks until Shutdown has completed.
  void Wait();

 private:
  ArbiterServer() = default;

  /// Runs on recovery_thread_: replays the journal, purges deleted worlds,
  /// then opens the gate and turns health SERVING.
  absl::Status Recover();
  /// Health of the overall server ("") and of arbiter.v1.Arbiter.
  void SetServing(bool serving);
  // Start's stages, in order.
  /// Refuses (or warns of) listening beyond loopback without tokens.
  absl::Status CheckListeners(const ServerOptions& options);
  /// The registry, the journal, Operations, the worlds recovery will
  /// replay (reserved) and the preloaded scenes.
  absl::Status OpenWorlds(const ServerOptions& options);
  /// The worker pool, the service and the gRPC server, listening.
  absl::Status StartGrpc(const ServerOptions& options, const std::shared_ptr<grpc::ServerCredentials>& credentials);
  /// Starts the HTTP listener when options ask for one.
  absl::Status StartHttp(const ServerOptions& options);
  /// Replays the journal on its own thread (health NOT_SERVING until done).
  void StartRecovery();

  std::unique_ptr<Journal> journal_;
  // Open unless a journal is being recovered; read by the service.
  RecoveryGate gate_;
  // Declared first so that it outlives every call holding a Permit.
  std::unique_ptr<AccessControl> access_;
  // Before server_: the request observer gRPC owns writes to these.
  std::unique_ptr<RpcMetrics> rpc_metrics_;
  HitFeed hits_;
  std::unique_ptr<WorldRegistry> registry_;
  std::unique_ptr<Operations> operations_;
  std::unique_ptr<WorkerPool> pool_;
  std::unique_ptr<ArbiterService> service_;
  std::unique_ptr<grpc::Server> server_;
  std::unique_ptr<HttpListener> http_;
  std::unique_ptr<JournalRecovery> recovery_;
  std::atomic<bool> stop_recovery_{false};
  std::shared_future<absl::Status> recovery_done_;
  // Joined in Shutdown, before anything it uses is destroyed.
  std::thread recovery_thread_;
  int port_ = 0;
  std::vector<std::string> preloaded_;
  int64_t purged_worlds_ = 0;
  std::vector<std::string> warnings_;
  std::once_flag shutdown_once_;
};

}  // namespace arbiter::server
