// Where the benchmark tools find the standard scene files.
#pragma once

#include <filesystem>
#include <string>

namespace arbiter::bench {

/// The standard file `name` from the repo's scenes/ or, failing that, the
/// shared folder beside the checkout (its path is returned even when absent,
/// so the caller's error names where it looked last).
inline std::string FindStandardFile(const std::string& name) {
  const std::string dirs[] = {std::string(ARBITER_SOURCE_DIR) + "/scenes", std::string(ARBITER_SHARED_DIR) + "/scenes"};
  for (const std::string& dir : dirs) {
    if (std::filesystem::exists(dir + "/" + name)) return dir + "/" + name;
  }
  return std::string(ARBITER_SHARED_DIR) + "/scenes/" + name;
}

}  // namespace arbiter::bench
