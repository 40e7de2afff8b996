#include "ops/metrics.h"

#include <algorithm>

namespace arbiter::server {

const char* StatusCodeName(int code) {
  static constexpr const char* kNames[] = {
      "OK",           "CANCELLED",         "UNKNOWN",      "INVALID_ARGUMENT",   "DEADLINE_EXCEEDED", "NOT_FOUND",
      "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE",
      "UNIMPLEMENTED", "INTERNAL",          "UNAVAILABLE",  "DATA_LOSS",          "UNAUTHENTICATED"};
  static_assert(sizeof kNames / sizeof kNames[0] == RpcCounters::kCodes);
  return code >= 0 && code < RpcCounters::kCodes ? kNames[code] : "UNKNOWN";
}

void LatencyHistogram::Observe(uint64_t micros) {
  const auto bound = std::lower_bound(kBoundsMicros.begin(), kBoundsMicros.end(), micros);
  buckets_[static_cast<size_t>(bound - kBoundsMicros.begin())].fetch_add(1, std::memory_order_relaxed);
  sum_micros_.fetch_add(micros, std::memory_order_relaxed);
}

LatencyHistogram::Counts LatencyHistogram::Read() const {
  Counts c;
  for (size_t i = 0; i < buckets_.size(); ++i) {
    c.buckets[i] = buckets_[i].load(std::memory_order_relaxed);
    c.count += c.buckets[i];
  }
  c.sum_micros = sum_micros_.load(std::memory_order_relaxed);
  return c;
}

RpcMetrics::RpcMetrics(const std::vector<std::string>& methods) {
  for (const std::string& m : methods) slots_.emplace(m, std::make_unique<RpcCounters>());
  slots_.emplace("other", std::make_unique<RpcCounters>());
}

std::string_view RpcMetrics::ShortName(std::string_view method) {
  const size_t slash = method.rfind('/');
  return slash == std::string_view::npos ? method : method.substr(slash + 1);
}

RpcCounters* RpcMetrics::Find(std::string_view method) {
  // The map is fixed after construction, so concurrent finds need no lock.
  auto it = slots_.find(ShortName(method));
  if (it == slots_.end()) it = slots_.find("other");
  return it->second.get();
}

}  // namespace arbiter::server
