// The one temporary directory of the tests: a fresh directory made by
// mkdtemp under the test's temporary folder ($TEST_TMPDIR, else $TMPDIR,
// else /tmp), so that nothing an earlier run or another process left
// behind (a journal under a reused process id, say) can be found there,
// and removed with everything in it when the TempDir goes.
#pragma once

#include <stdlib.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string>

namespace arbiter::testing {

class TempDir {
 public:
  /// A new directory named `prefix` plus six random characters.
  explicit TempDir(const std::string& prefix = "arbiter-") {
    std::string pattern = (Base() / (prefix + "XXXXXX")).string();
    if (::mkdtemp(pattern.data()) == nullptr) {
      throw std::runtime_error("mkdtemp " + pattern + ": " + std::strerror(errno));
    }
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  std::string path() const { return path_.string(); }
  /// `name` inside the directory (not created).
  std::string File(const std::string& name) const { return (path_ / name).string(); }

 private:
  static std::filesystem::path Base() {
    for (const char* variable : {"TEST_TMPDIR", "TMPDIR"}) {
      const char* value = std::getenv(variable);
      if (value != nullptr && *value != '\0') return value;
    }
    return "/tmp";
  }

  std::filesystem::path path_;
};

}  // namespace arbiter::testing
