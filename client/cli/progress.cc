#include "progress.h"

#include <cinttypes>
#include <cstdio>

namespace arbiter::cli {

void Progress(const char* what, uint64_t done, uint64_t total) {
  std::fprintf(stderr, "\r%s: %" PRIu64 "/%" PRIu64, what, done, total);
  if (done == total) std::fprintf(stderr, "\n");
  std::fflush(stderr);
}

}  // namespace arbiter::cli
