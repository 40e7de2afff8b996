// The `arbiter` command-line tool: `demo`, `bench` and `replay` run in
// this process; every other command talks to an arbiter-server. The
// commands, their help and flags are one table (command_table.cc).
#include <cstdio>
#include <string>

#include "command.h"
#include "help.h"

namespace {

bool WantsHelp(int argc, char** argv) {
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--help" || a == "-h") return true;
  }
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace arbiter::cli;
  if (argc < 2) {
    PrintGeneralHelp(stderr);
    return 2;
  }
  const std::string first = argv[1];
  if (first == "help") return RunHelp(argc, argv);
  if (first == "--help" || first == "-h") {
    PrintGeneralHelp();
    return 0;
  }
  if (first == "--version" || first == "version") {
    std::printf("%s\n", VersionText());
    return 0;
  }
  const CommandSpec* spec = FindCommand(first);
  if (spec == nullptr) return UnknownCommand(first);
  if (WantsHelp(argc, argv)) {
    PrintCommandHelp(*spec);
    return 0;
  }
  if (spec->run_local != nullptr) return spec->run_local(argc, argv);
  return RunServerCommand(*spec, argc, argv);
}
