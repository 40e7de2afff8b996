// arbiter-server: flags -> ServerOptions, start, reload the token file on
// SIGHUP, wait for SIGINT/SIGTERM, shut down cleanly. Nothing else lives here.
#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/flags/usage_config.h"
#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "service/server.h"

ABSL_FLAG(std::string, listen, "127.0.0.1:50051", "host:port to listen on (port 0: any free port, printed at start)");
ABSL_FLAG(std::vector<std::string>, scene, {},
          "comma-separated scene files to load at start, each as a world named after its \"name\"");
ABSL_FLAG(std::string, scene_dir, "",
          "directory CreateWorld may load scene files from (relative paths only); empty: none");
ABSL_FLAG(uint32_t, max_batch, 65536, "most items (rays, queries, bodies, updates, commands) in one request");
ABSL_FLAG(uint64_t, max_message_bytes, uint64_t{64} << 20, "largest request or reply, in bytes");
ABSL_FLAG(uint64_t, max_scene_bytes, uint64_t{256} << 20, "largest scene file CreateWorld may load, in bytes");
ABSL_FLAG(uint32_t, max_worlds, 64, "most worlds the server holds");
ABSL_FLAG(uint32_t, max_bodies_per_world, uint32_t{1} << 20, "most bodies in one world");
ABSL_FLAG(uint32_t, max_step_ticks, 100000, "most ticks one Step call may run");
ABSL_FLAG(uint32_t, query_threads, 0,
          "threads one CastRays or CastShapes batch is split across (answers are identical for any count; "
          "0: the machine's cores, at most 8)");
ABSL_FLAG(uint32_t, step_threads, 1,
          "threads one world's tick is spread across (World::Step with a thread pool; state and events are "
          "identical for any count; 1..64, 0: the machine's cores)");
ABSL_FLAG(int32_t, threads, 0, "worker threads for steps and mutations (0: hardware threads, at least 2)");
ABSL_FLAG(std::string, data_dir, "arbiter-data",
          "directory of the durable journal (SQLite, WAL; created if missing); every world in it is recovered at "
          "start. --data_dir= (empty): no journal, worlds live in memory only");
ABSL_FLAG(std::string, journal_sync, "normal",
          "full: acknowledged changes survive power loss (fsync per change); normal: they survive a process "
          "crash, a power loss may drop the last few; off: tests only");
ABSL_FLAG(uint32_t, snapshot_every_ticks, 600, "journal a full snapshot whenever the tick crosses a multiple of this");
ABSL_FLAG(int64_t, journal_retain_ticks, 216000,
          "ticks of journal records kept beyond each world's history window (for exports); older records are "
          "compacted away at each checkpoint");
ABSL_FLAG(bool, journal_queries, false, "also journal every query and its answer (for audits with arbiter replay)");
ABSL_FLAG(uint32_t, history_seconds, 2, "seconds of past ticks each world keeps for lag-compensated queries");
ABSL_FLAG(uint32_t, max_history_ticks, 36000, "most past ticks a world may keep (CreateWorld.history_ticks)");
ABSL_FLAG(uint64_t, max_import_bytes, uint64_t{64} << 20,
          "largest export file ImportWorld accepts (a world moved here from another instance), in bytes");
ABSL_FLAG(uint32_t, moved_tombstone_seconds, 600,
          "how long calls naming a world moved to another instance get UNAVAILABLE 'moved to ...' here");
ABSL_FLAG(uint32_t, max_rewind_ms, 0,
          "ValidateShots: the furthest back any caller's shots are judged, in milliseconds (older shots are TOO_OLD; "
          "a token's max_rewind_ms may lower it); 0: the whole history");
ABSL_FLAG(uint32_t, max_judged_shots, 65536,
          "ValidateShots: judged shots each world remembers inside its history window (once per shot)");
ABSL_FLAG(uint32_t, hash_window_ticks, 36000, "ticks of state hashes kept per world for ReportHashes");
ABSL_FLAG(int32_t, shutdown_grace_ms, 10000, "on SIGINT/SIGTERM, how long calls in flight may take to finish");
ABSL_FLAG(std::string, token_file, "",
          "bearer tokens: lines '<sha256 hex> <reader|writer|admin> <*|world,world...> [label] [max_rewind_ms=N]'; reloaded on "
          "SIGHUP; empty: open access (loopback only, unless --allow_insecure_open_access)");
ABSL_FLAG(bool, allow_insecure_open_access, false,
          "allow serving a non-loopback --listen address without a --token_file (anyone may change any world)");
ABSL_FLAG(std::string, http_listen, "",
          "host:port of the read-only HTTP listener: the live viewer page and GET /metrics (Prometheus); same "
          "exposure rules, tokens and --tls_* flags as --listen; empty: off");
ABSL_FLAG(bool, log_requests, false,
          "write one JSON line per gRPC call to stderr (time, method, world, caller, code, latency_us, items)");
ABSL_FLAG(std::string, tls_cert, "", "PEM certificate chain: serve TLS (with --tls_key); empty: plaintext");
ABSL_FLAG(std::string, tls_key, "", "PEM private key of --tls_cert");
ABSL_FLAG(std::string, tls_client_ca, "",
          "PEM CA certificates: require and verify a client certificate signed by one of them");
ABSL_FLAG(double, rate_limit_rps, 0,
          "requests per second per token (per connection under open access); 0: unlimited");
ABSL_FLAG(double, rate_limit_burst, 0, "requests a caller may make at once after being idle; 0: one second's worth");
ABSL_DECLARE_FLAG(uint32_t, recovery_delay_ms_for_testing);  // test_only_flags.cc

ABSL_FLAG(uint32_t, max_calls_in_flight, 256,
          "calls in flight per token (per connection under open access), streams included; 0: unlimited");

namespace {

// Waits for the journal's recovery and reports how it went: false when it
// failed (the reason is on stderr, as it was when recovery ran before the
// server listened). A shutdown during recovery is no failure.
bool ReportRecovery(arbiter::server::ArbiterServer& server, const std::string& data_dir) {
  const absl::Status recovered = server.WaitUntilRecovered();
  if (recovered.code() == absl::StatusCode::kCancelled) return true;
  if (!recovered.ok()) {
    std::fprintf(stderr, "arbiter-server: %s\n", recovered.ToString().c_str());
    return false;
  }
  // Tests and scripts wait for this line: the server is SERVING from here.
  std::fprintf(stderr, "arbiter-server: journal in %s (sync %s); recovered %zu world(s)%s%s\n", data_dir.c_str(),
               absl::GetFlag(FLAGS_journal_sync).c_str(), server.recovered().size(),
               server.recovered().empty() ? "" : ": ", absl::StrJoin(server.recovered(), ", ").c_str());
  absl::StatusOr<arbiter::server::Journal::Usage> usage = server.JournalUsage();
  if (usage.ok()) {
    std::fprintf(stderr,
                 "arbiter-server: journal holds %lld records in %lld bytes (file %lld bytes); purged %lld deleted "
                 "world(s)\n",
                 static_cast<long long>(usage->records), static_cast<long long>(usage->bytes_used),
                 static_cast<long long>(usage->file_bytes), static_cast<long long>(server.purged_worlds()));
  }
  return true;
}

// --help lists the flags defined in this file (Abseil would look for a
// file named after the program, arbiter-server.cc).
void ConfigureHelp() {
  absl::SetProgramUsageMessage("Serves Arbiter collision worlds over gRPC (arbiter.v1.Arbiter).");
  absl::FlagsUsageConfig usage;
  usage.contains_help_flags = [](absl::string_view path) { return absl::EndsWith(path, "service/main.cc"); };
  usage.contains_helpshort_flags = usage.contains_help_flags;
  absl::SetFlagsUsageConfig(usage);
}

// Blocks SIGINT, SIGTERM and SIGHUP before any thread starts, so that every
// thread inherits the mask and only the waiter (WaitForSignals) receives them.
sigset_t BlockSignals() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  return signals;
}

// What each request may ask (ServiceLimits); 0 threads: this machine's.
arbiter::server::ServiceLimits ServiceFromFlags() {
  arbiter::server::ServiceLimits service;
  service.scene_dir = absl::GetFlag(FLAGS_scene_dir);
  service.max_batch = absl::GetFlag(FLAGS_max_batch);
  service.max_message_bytes = absl::GetFlag(FLAGS_max_message_bytes);
  service.max_step_ticks = absl::GetFlag(FLAGS_max_step_ticks);
  service.query_threads = absl::GetFlag(FLAGS_query_threads);
  if (service.query_threads == 0) service.query_threads = std::clamp(std::thread::hardware_concurrency(), 1u, 8u);
  service.step_threads = absl::GetFlag(FLAGS_step_threads);
  if (service.step_threads == 0) service.step_threads = std::max(std::thread::hardware_concurrency(), 1u);
  service.step_threads = std::min(service.step_threads, arbiter::kMaxStepWorkers);
  service.max_scene_bytes = absl::GetFlag(FLAGS_max_scene_bytes);
  service.history_seconds = absl::GetFlag(FLAGS_history_seconds);
  service.max_history_ticks = absl::GetFlag(FLAGS_max_history_ticks);
  service.max_import_bytes = absl::GetFlag(FLAGS_max_import_bytes);
  service.max_rewind_ms = absl::GetFlag(FLAGS_max_rewind_ms);
  service.max_judged_shots = absl::GetFlag(FLAGS_max_judged_shots);
  return service;
}

// Who may call, and how the server is reached (tokens, limits, TLS, HTTP).
void AccessFromFlags(arbiter::server::ServerOptions* options) {
  options->access.token_file = absl::GetFlag(FLAGS_token_file);
  options->access.limits.requests_per_second = absl::GetFlag(FLAGS_rate_limit_rps);
  options->access.limits.burst = absl::GetFlag(FLAGS_rate_limit_burst);
  options->access.limits.max_calls_in_flight = absl::GetFlag(FLAGS_max_calls_in_flight);
  options->allow_insecure_open_access = absl::GetFlag(FLAGS_allow_insecure_open_access);
  options->http_listen = absl::GetFlag(FLAGS_http_listen);
  options->log_requests = absl::GetFlag(FLAGS_log_requests);
  options->tls.cert_file = absl::GetFlag(FLAGS_tls_cert);
  options->tls.key_file = absl::GetFlag(FLAGS_tls_key);
  options->tls.client_ca_file = absl::GetFlag(FLAGS_tls_client_ca);
}

// The whole ServerOptions; an error for a flag value that does not parse.
absl::StatusOr<arbiter::server::ServerOptions> OptionsFromFlags() {
  arbiter::server::ServerOptions options;
  options.listen = absl::GetFlag(FLAGS_listen);
  options.preload_scenes = absl::GetFlag(FLAGS_scene);
  options.service = ServiceFromFlags();
  options.registry.max_worlds = absl::GetFlag(FLAGS_max_worlds);
  options.registry.max_bodies_per_world = absl::GetFlag(FLAGS_max_bodies_per_world);
  options.registry.hash_window_ticks = absl::GetFlag(FLAGS_hash_window_ticks);
  options.registry.moved_tombstone = std::chrono::seconds(absl::GetFlag(FLAGS_moved_tombstone_seconds));
  options.threads = absl::GetFlag(FLAGS_threads);
  options.data_dir = absl::GetFlag(FLAGS_data_dir);
  options.snapshot_every_ticks = absl::GetFlag(FLAGS_snapshot_every_ticks);
  options.journal_queries = absl::GetFlag(FLAGS_journal_queries);
  options.journal_retain_ticks = absl::GetFlag(FLAGS_journal_retain_ticks);
  absl::StatusOr<arbiter::server::JournalSync> sync = arbiter::server::ParseJournalSync(absl::GetFlag(FLAGS_journal_sync));
  if (!sync.ok()) return sync.status();
  options.journal_sync = *sync;
  AccessFromFlags(&options);
  options.recovery.log = [](const std::string& line) { std::fprintf(stderr, "arbiter-server: %s\n", line.c_str()); };
  options.recovery.delay_per_record_for_testing =
      std::chrono::milliseconds(absl::GetFlag(FLAGS_recovery_delay_ms_for_testing));
  return options;
}

// The lines operators, tests and scripts read once the server is up.
void Announce(arbiter::server::ArbiterServer& server, const arbiter::server::ServerOptions& options) {
  for (const std::string& warning : server.warnings()) {
    std::fprintf(stderr, "arbiter-server: *** WARNING *** %s\n", warning.c_str());
  }
  if (!options.access.token_file.empty()) {
    std::fprintf(stderr, "arbiter-server: %zu tokens from %s (SIGHUP reloads)\n", server.access().token_count(),
                 options.access.token_file.c_str());
  }
  const std::string host = options.listen.substr(0, options.listen.rfind(':'));
  // Tests and scripts read this line to learn the port.
  std::printf("arbiter-server listening on %s:%d (worlds: %s)\n", host.c_str(), server.port(),
              server.preloaded().empty() ? "none" : absl::StrJoin(server.preloaded(), ", ").c_str());
  if (server.http_port() != 0) {
    const std::string http = options.http_listen.substr(0, options.http_listen.rfind(':'));
    // Tests read this line to learn the HTTP port.
    std::printf("arbiter-server http on %s://%s:%d (viewer /, metrics /metrics)\n",
                options.tls.cert_file.empty() ? "http" : "https", http.c_str(), server.http_port());
  }
  std::fflush(stdout);
}

// Until SIGINT or SIGTERM: SIGHUP reloads the token file. Then shuts the
// server down, finishing calls in flight within `grace`.
void WaitForSignals(const sigset_t& signals, arbiter::server::ArbiterServer& server, const std::string& token_file,
                    std::chrono::milliseconds grace) {
  int signal = 0;
  while (sigwait(&signals, &signal) == 0 && signal == SIGHUP) {
    // A bad file (half written, a typo) must not lock everyone out: the
    // old tokens stay until a good file is read.
    absl::StatusOr<size_t> tokens = server.ReloadTokens();
    if (tokens.ok()) {
      std::fprintf(stderr, "arbiter-server: SIGHUP: %zu tokens from %s\n", *tokens, token_file.c_str());
    } else {
      std::fprintf(stderr, "arbiter-server: SIGHUP: token file not reloaded, keeping the old tokens: %s\n",
                   tokens.status().ToString().c_str());
    }
  }
  std::fprintf(stderr, "arbiter-server: %s, finishing calls in flight\n", signal == SIGINT ? "SIGINT" : "SIGTERM");
  server.Shutdown(grace);
}

}  // namespace

int main(int argc, char** argv) {
  ConfigureHelp();
  absl::ParseCommandLine(argc, argv);
  const sigset_t signals = BlockSignals();

  absl::StatusOr<arbiter::server::ServerOptions> options = OptionsFromFlags();
  if (!options.ok()) {
    std::fprintf(stderr, "arbiter-server: %s\n", std::string(options.status().message()).c_str());
    return 1;
  }
  absl::StatusOr<std::unique_ptr<arbiter::server::ArbiterServer>> server = arbiter::server::ArbiterServer::Start(*options);
  if (!server.ok()) {
    std::fprintf(stderr, "arbiter-server: %s\n", server.status().ToString().c_str());
    return 1;
  }
  Announce(**server, *options);

  const std::chrono::milliseconds grace(absl::GetFlag(FLAGS_shutdown_grace_ms));
  std::thread waiter([&] { WaitForSignals(signals, **server, options->access.token_file, grace); });
  if (!options->data_dir.empty() && !ReportRecovery(**server, options->data_dir)) {
    // Do not serve a half-recovered journal. The waiter above sits in
    // sigwait and cannot be joined, so leave at once: the journal was only
    // read, and the kernel releases the data directory's lock.
    (*server)->Shutdown(std::chrono::milliseconds(0));
    std::fflush(stderr);
    std::_Exit(1);
  }
  (*server)->Wait();
  waiter.join();
  std::fprintf(stderr, "arbiter-server: stopped\n");
  return 0;
}
