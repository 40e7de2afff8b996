// The `arbiter` command-line tool: `demo` runs the core in-process; every
// other command talks to an arbiter-server (see commands.h).
#include <cstdio>
#include <cstring>

#include "bench.h"
#include "commands.h"
#include "connection.h"
#include "demo.h"
#include "render_command.h"
#include "replay_command.h"

namespace {

void PrintUsage() {
  std::fprintf(stderr,
               "usage: arbiter <command> [args] [flags]\n"
               "commands:\n"
               "  demo                            run a few core queries in-process and print the answers\n"
               "  bench [--seconds S] [--concurrency 1,8,64] [--batch N] [--window W] [--scene F --queries F]\n"
               "                                  load generator: empty RPC, unary and batched rays, stream\n"
               "  replay verify FILE [--json]     re-run a journal export offline; exit 1 if any tick or answer differs\n"
               "%s%s%s",
               arbiter::cli::RenderUsage(), arbiter::cli::ServerCommandsUsage(), arbiter::cli::ConnectionUsage());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || std::strcmp(argv[1], "help") == 0 || std::strcmp(argv[1], "--help") == 0) {
    PrintUsage();
    return argc < 2 ? 2 : 0;
  }
  if (std::strcmp(argv[1], "demo") == 0) return arbiter::cli::RunDemo();
  if (std::strcmp(argv[1], "bench") == 0) return arbiter::cli::RunBench(argc, argv);
  if (std::strcmp(argv[1], "replay") == 0) return arbiter::cli::RunReplay(argc, argv);
  if (std::strcmp(argv[1], "render") == 0) return arbiter::cli::RunRender(argc, argv);
  if (arbiter::cli::IsServerCommand(argv[1])) return arbiter::cli::RunServerCommand(argc, argv);
  std::fprintf(stderr, "arbiter: unknown command '%s'\n", argv[1]);
  PrintUsage();
  return 2;
}
