#include "suggest.h"

#include <algorithm>

namespace arbiter::cli {

size_t EditDistance(std::string_view a, std::string_view b) {
  // One row of the dynamic programme at a time.
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::string Closest(std::string_view typed, const std::vector<std::string>& candidates) {
  std::string best;
  size_t best_distance = SIZE_MAX;
  for (const std::string& c : candidates) {
    const size_t d = EditDistance(typed, c);
    if (d < best_distance) {
      best = c;
      best_distance = d;
    }
  }
  const size_t allowed = std::max<size_t>(2, std::max(typed.size(), best.size()) / 3);
  return best_distance <= allowed ? best : "";
}

}  // namespace arbiter::cli
