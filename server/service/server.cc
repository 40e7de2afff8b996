#include "service/server.h"

#include <arpa/inet.h>

#include <algorithm>
#include <fstream>
#include <future>
#include <sstream>
#include <thread>

#include <grpcpp/ext/proto_server_reflection_plugin.h>
#include <grpcpp/health_check_service_interface.h>

#include "grpc/health/v1/health.pb.h"
#include "service/request_observer.h"
#include "service/rpc_table.h"
#include "service/server_info.h"

namespace arbiter::server {
namespace {

absl::StatusOr<std::string> ReadPem(const std::string& path, const char* flag) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  if (in) text << in.rdbuf();
  if (!in || text.str().empty()) {
    return absl::InvalidArgumentError(std::string(flag) + ": cannot read '" + path + "' (PEM file)");
  }
  return text.str();
}

absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> MakeCredentials(const TlsOptions& tls) {
  if (tls.cert_file.empty()) {
    if (!tls.key_file.empty() || !tls.client_ca_file.empty()) {
      return absl::InvalidArgumentError("--tls_key and --tls_client_ca need --tls_cert");
    }
    return grpc::InsecureServerCredentials();
  }
  if (tls.key_file.empty()) return absl::InvalidArgumentError("--tls_cert needs --tls_key");
  absl::StatusOr<std::string> cert = ReadPem(tls.cert_file, "--tls_cert");
  if (!cert.ok()) return cert.status();
  absl::StatusOr<std::string> key = ReadPem(tls.key_file, "--tls_key");
  if (!key.ok()) return key.status();
  grpc::SslServerCredentialsOptions ssl(tls.client_ca_file.empty()
                                            ? GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE
                                            : GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY);
  ssl.pem_key_cert_pairs.push_back({*key, *cert});
  if (!tls.client_ca_file.empty()) {
    absl::StatusOr<std::string> ca = ReadPem(tls.client_ca_file, "--tls_client_ca");
    if (!ca.ok()) return ca.status();
    ssl.pem_root_certs = *ca;
  }
  return grpc::SslServerCredentials(ssl);
}

// The exposure rule both listeners follow: open access (no token file) only
// on loopback unless allowed; warnings for open access and plaintext.
absl::Status CheckExposure(const std::string& listen, const char* flag, const ServerOptions& options,
                           std::vector<std::string>* warnings) {
  const bool loopback = IsLoopbackListen(listen);
  if (options.access.token_file.empty()) {
    if (!loopback && !options.allow_insecure_open_access) {
      return absl::FailedPreconditionError(
          std::string(flag) + ": '" + listen +
          "' is not a loopback address and there is no --token_file, so anyone who can reach it could change "
          "every world; give a --token_file, or pass --allow_insecure_open_access to accept that");
    }
    warnings->push_back("OPEN ACCESS: no --token_file, so every client that can reach " + listen +
                        (std::string(flag) == "listen" ? " may create, change and delete every world"
                                                       : " may see every world and the server's metrics"));
  }
  if (!loopback && options.tls.cert_file.empty()) {
    warnings->push_back("PLAINTEXT: " + listen +
                        " is not loopback and there is no --tls_cert, so tokens and world data cross the "
                        "network unencrypted");
  }
  return absl::OkStatus();
}

// A counter slot per row of the RPC table.
std::vector<std::string> ServiceMethods() {
  std::vector<std::string> names;
  for (const RpcInfo& rpc : Rpcs()) names.emplace_back(rpc.name);
  return names;
}

}  // namespace

bool IsLoopbackListen(const std::string& listen) {
  const size_t colon = listen.rfind(':');
  std::string host = colon == std::string::npos ? listen : listen.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  if (host == "localhost" || host == "::1") return true;
  in_addr v4{};
  if (inet_pton(AF_INET, host.c_str(), &v4) == 1) return (ntohl(v4.s_addr) >> 24) == 127;
  return false;
}

absl::StatusOr<std::unique_ptr<ArbiterServer>> ArbiterServer::Start(const ServerOptions& options) {
  std::unique_ptr<ArbiterServer> s(new ArbiterServer());
  if (absl::Status e = s->CheckListeners(options); !e.ok()) return e;
  absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> credentials = MakeCredentials(options.tls);
  if (!credentials.ok()) return credentials.status();
  absl::StatusOr<std::unique_ptr<AccessControl>> access = AccessControl::Create(options.access);
  if (!access.ok()) return access.status();
  s->access_ = std::move(*access);
  if (absl::Status e = s->OpenWorlds(options); !e.ok()) return e;
  if (absl::Status e = s->StartGrpc(options, *credentials); !e.ok()) return e;
  if (absl::Status e = s->StartHttp(options); !e.ok()) return e;
  s->StartRecovery();
  return s;
}

absl::Status ArbiterServer::CheckListeners(const ServerOptions& options) {
  if (absl::Status e = CheckExposure(options.listen, "listen", options, &warnings_); !e.ok()) return e;
  if (options.http_listen.empty()) return absl::OkStatus();
  return CheckExposure(options.http_listen, "--http_listen", options, &warnings_);
}

absl::Status ArbiterServer::OpenWorlds(const ServerOptions& options) {
  registry_ = std::make_unique<WorldRegistry>(options.registry);
  Durability durability;
  if (options.journal_retain_ticks < 0) return absl::InvalidArgumentError("--journal_retain_ticks: must not be negative");
  if (!options.data_dir.empty()) {
    absl::StatusOr<std::unique_ptr<Journal>> journal =
        Journal::Open({options.data_dir, options.journal_sync, options.journal_max_pages});
    if (!journal.ok()) return journal.status();
    journal_ = std::move(*journal);
    durability.journal = journal_.get();
    durability.snapshot_every_ticks = options.snapshot_every_ticks;
    durability.record_queries = options.journal_queries;
    durability.retain_ticks = options.journal_retain_ticks;
  }
  operations_ = std::make_unique<Operations>(registry_.get(), options.service, durability);
  operations_->set_verdict_observer(&hits_);  // the viewer's feed of verdicts
  if (journal_ != nullptr) {
    recovery_ = std::make_unique<JournalRecovery>(journal_.get(), registry_.get(), operations_.get(), &gate_,
                                                  options.recovery);
    // Before the scenes, so that a journaled world wins over its scene.
    if (absl::Status r = recovery_->Reserve(); !r.ok()) return r;
  } else {
    gate_.Open();  // nothing to recover
  }
  for (const std::string& path : options.preload_scenes) {
    absl::StatusOr<std::string> name = operations_->PreloadScene(path);
    if (!name.ok()) return name.status();
    preloaded_.push_back(*name);
  }
  return absl::OkStatus();
}

absl::Status ArbiterServer::StartGrpc(const ServerOptions& options,
                                      const std::shared_ptr<grpc::ServerCredentials>& credentials) {
  const int threads = options.threads > 0 ? options.threads
                                          : std::max(2, static_cast<int>(std::thread::hardware_concurrency()));
  pool_ = std::make_unique<WorkerPool>(threads);
  service_ = std::make_unique<ArbiterService>(operations_.get(), pool_.get(), access_.get(), &gate_,
                                              options.max_watch_backlog, DescribeServer(options));
  grpc::EnableDefaultHealthCheckService(true);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  // Reflection describes what the generated pool holds. gRPC's own health
  // service is not built from generated code, so without this reference
  // health.pb.o stays out of the link and reflection lists
  // grpc.health.v1.Health but cannot describe it ("Symbol not found").
  (void)grpc::health::v1::HealthCheckResponse::descriptor();
  grpc::ServerBuilder builder;
  rpc_metrics_ = std::make_unique<RpcMetrics>(ServiceMethods());
  std::vector<std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>> observers;
  observers.push_back(std::make_unique<RequestObserver>(rpc_metrics_.get(), access_.get(), options.log_requests));
  builder.experimental().SetInterceptorCreators(std::move(observers));
  builder.AddListeningPort(options.listen, credentials, &port_);
  // gRPC turns SO_REUSEPORT on by default, which lets a second server bind
  // the same port and take half the calls; a taken port must fail instead.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  builder.RegisterService(service_.get());
  const int max_bytes = static_cast<int>(std::min<size_t>(options.service.max_message_bytes, INT32_MAX));
  builder.SetMaxReceiveMessageSize(max_bytes);
  builder.SetMaxSendMessageSize(max_bytes);
  server_ = builder.BuildAndStart();
  if (server_ == nullptr || port_ == 0) {
    return absl::UnavailableError("listen: cannot listen on '" + options.listen +
                                  "' (is another process using the port?" +
                                  (options.tls.cert_file.empty() ? ")" : " Or the TLS certificate and key do not match)"));
  }
  return absl::OkStatus();
}

void ArbiterServer::StartRecovery() {
  if (recovery_ == nullptr) {
    std::promise<absl::Status> nothing_to_recover;
    nothing_to_recover.set_value(absl::OkStatus());
    recovery_done_ = nothing_to_recover.get_future().share();
    return;
  }
  // gRPC's default health service starts SERVING; the window before this
  // line is the few microseconds since BuildAndStart returned.
  SetServing(false);
  std::packaged_task<absl::Status()> recover([this] { return Recover(); });
  recovery_done_ = recover.get_future().share();
  recovery_thread_ = std::thread(std::move(recover));
}

absl::Status ArbiterServer::StartHttp(const ServerOptions& options) {
  if (options.http_listen.empty()) return absl::OkStatus();
  HttpSources sources;
  sources.registry = registry_.get();
  sources.access = access_.get();
  sources.hits = &hits_;
  sources.metrics = {rpc_metrics_.get(), registry_.get(), journal_.get(), access_.get(), pool_.get()};
  absl::StatusOr<std::unique_ptr<HttpListener>> http = HttpListener::Start(options.http_listen, options.tls, sources);
  if (!http.ok()) return http.status();
  http_ = std::move(*http);
  return absl::OkStatus();
}

void ArbiterServer::SetServing(bool serving) {
  grpc::HealthCheckServiceInterface* health = server_->GetHealthCheckService();
  if (health == nullptr) return;
  health->SetServingStatus("", serving);
  health->SetServingStatus(v1::Arbiter::service_full_name(), serving);
}

absl::Status ArbiterServer::Recover() {
  absl::Status s = recovery_->Run([this] { return stop_recovery_.load(); });
  if (!s.ok()) return s;
  // Housekeeping of an older server's leftovers, before anyone may change
  // the journal.
  absl::StatusOr<int64_t> purged = journal_->PurgeDeletedWorlds();
  if (!purged.ok()) return purged.status();
  purged_worlds_ = *purged;
  gate_.Open();
  // Ignored once Shutdown has turned health off for good.
  SetServing(true);
  return absl::OkStatus();
}

const std::vector<std::string>& ArbiterServer::recovered() const {
  static const std::vector<std::string> kNone;
  return recovery_ == nullptr ? kNone : recovery_->recovered();
}

absl::StatusOr<Journal::Usage> ArbiterServer::JournalUsage() {
  if (journal_ == nullptr) return absl::FailedPreconditionError("this server keeps no journal");
  return journal_->MeasureUsage();
}

ArbiterServer::~ArbiterServer() { Shutdown(std::chrono::milliseconds(0)); }

void ArbiterServer::Shutdown(std::chrono::milliseconds grace) {
  std::call_once(shutdown_once_, [&] {
    if (server_ == nullptr) return;
    if (grpc::HealthCheckServiceInterface* health = server_->GetHealthCheckService()) health->Shutdown();
    // The viewer's streams end first; nothing on HTTP changes a world.
    if (http_ != nullptr) http_->Stop();
    // A recovery still running stops at its next record.
    stop_recovery_.store(true);
    if (recovery_thread_.joinable()) recovery_thread_.join();
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
