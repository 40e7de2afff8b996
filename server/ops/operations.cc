// Operations: its limits, shared by every capability (operations_*.cc).
#include "ops/operations.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "arbiter/wire/convert.h"
#include "ops/status_convert.h"

namespace arbiter::server {

Operations::Operations(WorldRegistry* registry, ServiceLimits limits, Durability durability)
    : registry_(registry), limits_(std::move(limits)), durability_(durability) {
  if (limits_.step_threads > 1) step_pool_ = std::make_unique<StepThreadPool>(limits_.step_threads);
}

absl::StatusOr<uint32_t> Operations::HistoryTicks(uint32_t requested, int32_t tick_hz) const {
  if (requested > limits_.max_history_ticks) {
    return absl::ResourceExhaustedError("history_ticks: " + std::to_string(requested) + " exceeds the limit of " +
                                        std::to_string(limits_.max_history_ticks) + " (--max_history_ticks)");
  }
  if (requested != 0) return requested;
  const uint64_t ticks = uint64_t{limits_.history_seconds} * static_cast<uint64_t>(std::max(tick_hz, 1));
  return static_cast<uint32_t>(std::clamp<uint64_t>(ticks, 1, limits_.max_history_ticks));
}

absl::Status Operations::CheckBatch(size_t size, const char* field) const {
  if (size == 0) return absl::InvalidArgumentError(std::string(field) + ": empty batch");
  if (size > limits_.max_batch) {
    return absl::ResourceExhaustedError(std::string(field) + ": " + std::to_string(size) +
                                        " items exceed the batch limit of " + std::to_string(limits_.max_batch) +
                                        " (--max_batch)");
  }
  return absl::OkStatus();
}

}  // namespace arbiter::server
