// Progress of long commands (load, step, export, replay verify) on stderr,
// so that stdout stays the result alone.
#pragma once

#include <cstdint>

namespace arbiter::cli {

/// "\r<what>: done/total", rewritten in place on a terminal; a newline
/// once done == total.
void Progress(const char* what, uint64_t done, uint64_t total);

}  // namespace arbiter::cli
