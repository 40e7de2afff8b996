// "Did you mean": the closest known name to a mistyped one.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace arbiter::cli {

/// Levenshtein distance (insertions, deletions, substitutions).
size_t EditDistance(std::string_view a, std::string_view b);

/// The candidate closest to `typed`, or "" when none is close enough to be
/// a plausible typo (distance more than a third of the longer name, at
/// least 2 allowed).
std::string Closest(std::string_view typed, const std::vector<std::string>& candidates);

}  // namespace arbiter::cli
