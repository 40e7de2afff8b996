// Flags that exist only for tests of the shipped binary. They live in this
// file so that `arbiter-server --help` (which lists main.cc's flags) does
// not offer them to operators; --helpfull still shows them.
#include <cstdint>

#include "absl/flags/flag.h"

ABSL_FLAG(uint32_t, recovery_delay_ms_for_testing, 0,
          "TESTS ONLY: sleep this long after each journal record replayed at start, so that a test can watch the "
          "server while it recovers a small journal. Never set it in production");
