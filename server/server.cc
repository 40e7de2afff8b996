#include "server.h"

#include "replay.h"

#include <algorithm>
#include <thread>

#include <grpcpp/ext/proto_server_reflection_plugin.h>
#include <grpcpp/health_check_service_interface.h>

namespace arbiter::server {

absl::StatusOr<std::unique_ptr<ArbiterServer>> ArbiterServer::Start(const ServerOptions& options) {
  std::unique_ptr<ArbiterServer> s(new ArbiterServer());
  s->registry_ = std::make_unique<WorldRegistry>(options.registry);
  Durability durability;
  if (!options.data_dir.empty()) {
    absl::StatusOr<std::unique_ptr<Journal>> journal = Journal::Open({options.data_dir, options.journal_sync});
    if (!journal.ok()) return journal.status();
    s->journal_ = std::move(*journal);
    if (absl::Status r = s->Recover(); !r.ok()) return r;
    durability.journal = s->journal_.get();
    durability.snapshot_every_ticks = options.snapshot_every_ticks;
    durability.record_queries = options.journal_queries;
  }
  s->operations_ = std::make_unique<Operations>(s->registry_.get(), options.service, durability);
  for (const std::string& path : options.preload_scenes) {
    absl::StatusOr<std::string> name = s->operations_->PreloadScene(path);
    if (!name.ok()) return name.status();
    s->preloaded_.push_back(*name);
  }
  const int threads = options.threads > 0 ? options.threads
                                          : std::max(2, static_cast<int>(std::thread::hardware_concurrency()));
  s->pool_ = std::make_unique<WorkerPool>(threads);
  s->service_ = std::make_unique<ArbiterService>(s->operations_.get(), s->pool_.get(), options.max_watch_backlog);

  grpc::EnableDefaultHealthCheckService(true);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  grpc::ServerBuilder builder;
  builder.AddListeningPort(options.listen, grpc::InsecureServerCredentials(), &s->port_);
  builder.RegisterService(s->service_.get());
  const int max_bytes = static_cast<int>(std::min<size_t>(options.service.max_message_bytes, INT32_MAX));
  builder.SetMaxReceiveMessageSize(max_bytes);
  builder.SetMaxSendMessageSize(max_bytes);
  s->server_ = builder.BuildAndStart();
  if (s->server_ == nullptr || s->port_ == 0) {
    return absl::UnavailableError("listen: cannot listen on '" + options.listen + "'");
  }
  return s;
}

absl::Status ArbiterServer::Recover() {
  absl::StatusOr<std::vector<Journal::StoredWorld>> worlds = journal_->LiveWorlds();
  if (!worlds.ok()) return worlds.status();
  for (const Journal::StoredWorld& stored : *worlds) {
    Replayer replayer(registry_.get(), Replayer::Mode::kRecover);
    absl::Status s = journal_->ReadForRecovery(stored.key, [&](const v1::JournalRecord& r) { return replayer.Apply(r); });
    if (s.ok() && replayer.entry() == nullptr) s = absl::DataLossError("no snapshot to start from");
    if (!s.ok()) {
      return absl::Status(s.code(), "recovering world '" + stored.world_id + "' from " + journal_->path() + ": " +
                                        std::string(s.message()));
    }
    replayer.entry()->Write([&](World&) { replayer.entry()->journal() = {stored.key, replayer.last_seq()}; });
    recovered_.push_back(stored.world_id);
  }
  return absl::OkStatus();
}

ArbiterServer::~ArbiterServer() { Shutdown(std::chrono::milliseconds(0)); }

void ArbiterServer::Shutdown(std::chrono::milliseconds grace) {
  std::call_once(shutdown_once_, [&] {
    if (server_ == nullptr) return;
    if (grpc::HealthCheckServiceInterface* health = server_->GetHealthCheckService()) health->Shutdown();
    // Watch streams never end on their own; end them first so that the
    // server's shutdown does not wait out the grace period for them.
    registry_->CloseAll(absl::UnavailableError("server shutting down"));
    server_->Shutdown(std::chrono::system_clock::now() + grace);
    // Every call has finished, so no task will be queued any more; queued
    // tasks have run (their calls finished through them).
    pool_->Stop();
  });
}

void ArbiterServer::Wait() {
  if (server_ != nullptr) server_->Wait();
}

}  // namespace arbiter::server
