// arbiter-server: flags -> ServerOptions, start, wait for SIGINT/SIGTERM,
// shut down cleanly. Nothing else lives here.
#include <csignal>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/flags/usage_config.h"
#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "server.h"

ABSL_FLAG(std::string, listen, "127.0.0.1:50051", "host:port to listen on (port 0: any free port, printed at start)");
ABSL_FLAG(std::vector<std::string>, scene, {},
          "comma-separated scene files to load at start, each as a world named after its \"name\"");
ABSL_FLAG(std::string, scene_dir, "",
          "directory CreateWorld may load scene files from (relative paths only); empty: none");
ABSL_FLAG(uint32_t, max_batch, 65536, "most items (rays, queries, bodies, updates, commands) in one request");
ABSL_FLAG(uint64_t, max_message_bytes, uint64_t{64} << 20, "largest request or reply, in bytes");
ABSL_FLAG(uint32_t, max_worlds, 64, "most worlds the server holds");
ABSL_FLAG(uint32_t, max_bodies_per_world, uint32_t{1} << 20, "most bodies in one world");
ABSL_FLAG(uint32_t, max_step_ticks, 100000, "most ticks one Step call may run");
ABSL_FLAG(int32_t, threads, 0, "worker threads for steps and mutations (0: hardware threads, at least 2)");
ABSL_FLAG(int32_t, shutdown_grace_ms, 10000, "on SIGINT/SIGTERM, how long calls in flight may take to finish");

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage("Serves Arbiter collision worlds over gRPC (arbiter.v1.Arbiter).");
  // --help lists the flags defined in this file (Abseil would look for a
  // file named after the program, arbiter-server.cc).
  absl::FlagsUsageConfig usage;
  usage.contains_help_flags = [](absl::string_view path) { return absl::EndsWith(path, "server/main.cc"); };
  usage.contains_helpshort_flags = usage.contains_help_flags;
  absl::SetFlagsUsageConfig(usage);
  absl::ParseCommandLine(argc, argv);

  // Block the stop signals before any thread starts, so that every thread
  // inherits the mask and only the waiter below ever receives them.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  arbiter::server::ServerOptions options;
  options.listen = absl::GetFlag(FLAGS_listen);
  options.preload_scenes = absl::GetFlag(FLAGS_scene);
  options.service.scene_dir = absl::GetFlag(FLAGS_scene_dir);
  options.service.max_batch = absl::GetFlag(FLAGS_max_batch);
  options.service.max_message_bytes = absl::GetFlag(FLAGS_max_message_bytes);
  options.service.max_step_ticks = absl::GetFlag(FLAGS_max_step_ticks);
  options.registry.max_worlds = absl::GetFlag(FLAGS_max_worlds);
  options.registry.max_bodies_per_world = absl::GetFlag(FLAGS_max_bodies_per_world);
  options.threads = absl::GetFlag(FLAGS_threads);

  absl::StatusOr<std::unique_ptr<arbiter::server::ArbiterServer>> server = arbiter::server::ArbiterServer::Start(options);
  if (!server.ok()) {
    std::fprintf(stderr, "arbiter-server: %s\n", server.status().ToString().c_str());
    return 1;
  }
  const std::string host = options.listen.substr(0, options.listen.rfind(':'));
  // Tests and scripts read this line to learn the port.
  std::printf("arbiter-server listening on %s:%d (worlds: %s)\n", host.c_str(), (*server)->port(),
              (*server)->preloaded().empty() ? "none" : absl::StrJoin((*server)->preloaded(), ", ").c_str());
  std::fflush(stdout);

  const std::chrono::milliseconds grace(absl::GetFlag(FLAGS_shutdown_grace_ms));
  std::thread waiter([&] {
    int signal = 0;
    sigwait(&stop_signals, &signal);
    std::fprintf(stderr, "arbiter-server: %s, finishing calls in flight\n", signal == SIGINT ? "SIGINT" : "SIGTERM");
    (*server)->Shutdown(grace);
  });
  (*server)->Wait();
  waiter.join();
  std::fprintf(stderr, "arbiter-server: stopped\n");
  return 0;
}
