// Command-line arguments of the `arbiter` tool: `--name=value`,
// `--name value` (for flags that take a value) and bare `--name` switches,
// anywhere on the line; everything else is positional. A single leading
// dash is not a flag, so negative numbers ("-20") are positionals. Dashes
// in a flag's name are underscores (--max-speed is --max_speed).
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace arbiter::cli {

class Args {
 public:
  /// Parses argv[first..argc). `valued` lists the flags that take a value.
  /// On a malformed line, error() is set.
  Args(int argc, char** argv, int first, const std::set<std::string>& valued);

  const std::vector<std::string>& positional() const { return positional_; }
  bool Has(const std::string& flag) const { return flags_.count(flag) > 0; }
  std::string Get(const std::string& flag, const std::string& fallback) const;
  const std::optional<std::string>& error() const { return error_; }
  /// Flags that were given but are not in `known` (for typo reports).
  std::vector<std::string> Unknown(const std::set<std::string>& known) const;

 private:
  std::vector<std::string> positional_;
  std::map<std::string, std::string> flags_;
  std::optional<std::string> error_;
};

/// Parses a double; nullopt unless the whole string is a finite number.
std::optional<double> ParseDouble(const std::string& s);
/// Parses a non-negative integer; nullopt unless the whole string is one.
std::optional<uint64_t> ParseUint(const std::string& s);

/// Flag --`name` of `args` as a whole number in [min, max] into *out; the
/// error to print (naming the flag, the value, `what` it should be and the
/// range), or nullopt.
std::optional<std::string> WholeFlag(const Args& args, const std::string& name, uint64_t min, uint64_t max,
                                     const char* what, uint64_t* out);

}  // namespace arbiter::cli
