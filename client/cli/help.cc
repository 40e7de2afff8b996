#include "help.h"

#include <cstdio>

#include "connection.h"
#include "suggest.h"

#ifndef ARBITER_VERSION
#error "ARBITER_VERSION is set by client/CMakeLists.txt from the project's version"
#endif

namespace arbiter::cli {
namespace {

constexpr const char* kCommonFlags =
    "common flags: --server HOST[:PORT] (default 127.0.0.1:50051; a HOST alone means port 50051),\n"
    "              --world ID (default demo), --json, --timeout_ms MS (default 60000)\n";

std::vector<std::string> CommandNames() {
  std::vector<std::string> names;
  for (const CommandSpec& c : Commands()) names.push_back(c.name);
  return names;
}

}  // namespace

std::string UsageLine(const CommandSpec& spec) {
  std::string line = std::string("usage: arbiter ") + spec.name;
  if (*spec.synopsis != '\0') line += std::string(" ") + spec.synopsis;
  return line;
}

void PrintGeneralHelp(std::FILE* out) {
  std::fprintf(out, "usage: arbiter <command> [args] [flags]\n"
                    "Talks to an arbiter-server (a deterministic 2D collision service).\n\ncommands:\n");
  for (const CommandSpec& c : Commands()) std::fprintf(out, "  %-14s %s\n", c.name, c.summary);
  std::fprintf(out, "\n`arbiter help COMMAND` or `arbiter COMMAND --help` shows a command's arguments.\n%s%s"
                    "exit codes: 0 success, 1 an error (from the server, or a local file), 2 bad usage,\n"
                    "            3 hashes diverged (report-hashes)\n",
               kCommonFlags, ConnectionUsage());
}

void PrintCommandHelp(const CommandSpec& spec) {
  std::printf("%s\n%s\n", UsageLine(spec).c_str(), spec.summary);
  if (*spec.details != '\0') std::printf("\n%s\n", spec.details);
  if (spec.run != nullptr) std::printf("\n%s%s", kCommonFlags, ConnectionUsage());
}

int RunHelp(int argc, char** argv) {
  if (argc < 3) {
    PrintGeneralHelp();
    return 0;
  }
  const CommandSpec* spec = FindCommand(argv[2]);
  if (spec == nullptr) return UnknownCommand(argv[2]);
  PrintCommandHelp(*spec);
  return 0;
}

int UnknownCommand(const std::string& typed) {
  std::fprintf(stderr, "arbiter: unknown command '%s'", typed.c_str());
  if (const std::string best = Closest(typed, CommandNames()); !best.empty()) {
    std::fprintf(stderr, "; did you mean '%s'?", best.c_str());
  }
  std::fprintf(stderr, "\n  `arbiter help` lists the commands\n");
  return 2;
}

const char* VersionText() { return "arbiter " ARBITER_VERSION " (protocol arbiter.v1)"; }

}  // namespace arbiter::cli
