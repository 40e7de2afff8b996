// The `arbiter` command-line tool.
#include <cstdio>
#include <cstring>

#include "demo.h"

namespace {

void PrintUsage() {
  std::fprintf(stderr,
               "usage: arbiter <command>\n"
               "commands:\n"
               "  demo    run a few core queries in-process and print the answers\n");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    PrintUsage();
    return 2;
  }
  if (std::strcmp(argv[1], "demo") == 0) return arbiter::cli::RunDemo();
  std::fprintf(stderr, "arbiter: unknown command '%s'\n", argv[1]);
  PrintUsage();
  return 2;
}
