// Shared by the fuzz targets: a check that stays on in every build type
// (assert() vanishes under NDEBUG, and RelWithDebInfo defines it) and says
// which property broke, and on what, before libFuzzer saves the input.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <utility>

/// Prints the values a failed check was about (set through FuzzContext).
inline std::function<void()> g_fuzz_context;

/// Installs a context printer for its scope, restoring the outer one.
class FuzzContext {
 public:
  explicit FuzzContext(std::function<void()> print) : saved_(std::exchange(g_fuzz_context, std::move(print))) {}
  ~FuzzContext() { g_fuzz_context = std::move(saved_); }
  FuzzContext(const FuzzContext&) = delete;
  FuzzContext& operator=(const FuzzContext&) = delete;

 private:
  std::function<void()> saved_;
};

#define FUZZ_CHECK(cond)                                                                 \
  do {                                                                                   \
    if (!(cond)) {                                                                       \
      std::fprintf(stderr, "%s:%d: fuzz check failed: %s\n", __FILE__, __LINE__, #cond); \
      if (g_fuzz_context) g_fuzz_context();                                              \
      std::abort();                                                                      \
    }                                                                                    \
  } while (0)
