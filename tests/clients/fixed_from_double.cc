// Prints Fixed::FromDouble(d).raw() for each double d given on stdin as its
// 64-bit pattern in hex (one per line), one decimal raw value per line. The
// Python and Node clients' tests compare their own conversions with it, so
// the reference is the core itself and not a table.
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "arbiter/core/fixed.h"

int main() {
  char line[64];
  while (std::fgets(line, sizeof(line), stdin) != nullptr) {
    uint64_t bits = 0;
    if (std::sscanf(line, "%" SCNx64, &bits) != 1) {
      std::fprintf(stderr, "fixed_from_double: not a hex bit pattern: %s", line);
      return 2;
    }
    double d;
    std::memcpy(&d, &bits, sizeof(d));
    std::printf("%" PRId64 "\n", arbiter::Fixed::FromDouble(d).raw());
  }
  return 0;
}
