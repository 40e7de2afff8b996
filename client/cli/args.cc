#include "args.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>

namespace arbiter::cli {

Args::Args(int argc, char** argv, int first, const std::set<std::string>& valued) {
  for (int i = first; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.size() <= 2 || arg.compare(0, 2, "--") != 0) {
      positional_.push_back(arg);
      continue;
    }
    const size_t eq = arg.find('=');
    std::string name = arg.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
    std::replace(name.begin(), name.end(), '-', '_');  // --max-speed is --max_speed
    if (eq != std::string::npos) {
      flags_[name] = arg.substr(eq + 1);
    } else if (valued.count(name) > 0) {
      if (i + 1 >= argc) {
        error_ = "--" + name + " needs a value";
        return;
      }
      flags_[name] = argv[++i];
    } else {
      flags_[name] = "";
    }
  }
}

std::string Args::Get(const std::string& flag, const std::string& fallback) const {
  auto it = flags_.find(flag);
  return it == flags_.end() ? fallback : it->second;
}

std::vector<std::string> Args::Unknown(const std::set<std::string>& known) const {
  std::vector<std::string> out;
  for (const auto& [name, value] : flags_) {
    if (known.count(name) == 0) out.push_back(name);
  }
  return out;
}

std::optional<double> ParseDouble(const std::string& s) {
  if (s.empty()) return std::nullopt;
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size() || errno != 0 || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::optional<uint64_t> ParseUint(const std::string& s) {
  if (s.empty() || s[0] == '-' || s[0] == '+') return std::nullopt;
  char* end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(s.c_str(), &end, 10);
  if (end != s.c_str() + s.size() || errno != 0) return std::nullopt;
  return v;
}

std::optional<std::string> WholeFlag(const Args& args, const std::string& name, uint64_t min, uint64_t max,
                                     const char* what, uint64_t* out) {
  const std::string text = args.Get(name, "");
  const std::optional<uint64_t> v = ParseUint(text);
  if (!v || *v < min || *v > max) {
    return "--" + name + ": '" + text + "' is not " + what + " (" + std::to_string(min) + ".." + std::to_string(max) + ")";
  }
  *out = *v;
  return std::nullopt;
}

}  // namespace arbiter::cli
