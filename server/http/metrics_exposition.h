// File: metrics_exposition.h
//
// GET /metrics: the server's counters in Prometheus' text format (0.0.4),
// series in a fixed order (methods and worlds sorted by name). Latencies
// are exported in seconds, written as exact decimals of whole microseconds.
//
//   arbiter_requests_total{method,code}              counter  finished gRPC calls
//   arbiter_request_duration_seconds{method}         histogram
//   arbiter_world_ticks_total{world}                 counter  ticks stepped since start
//   arbiter_world_step_duration_seconds{world}       histogram  one Step call
//   arbiter_world_bodies{world}, arbiter_world_tick{world}         gauges
//   arbiter_world_history_bytes{world}               gauge  retained past ticks
//   arbiter_journal_commit_duration_seconds          histogram
//   arbiter_journal_written_bytes_total, arbiter_journal_write_failures_total
//   arbiter_rate_limited_total, arbiter_in_flight_rejected_total  counters
//   arbiter_worker_queue_depth                       gauge
//
// Reading a world's bodies and history takes its shared lock for a moment
// (the scrape, not the hot path, waits behind a step).
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "access/access.h"
#include "journal/journal.h"
#include "ops/metrics.h"
#include "ops/worker_pool.h"
#include "ops/world_registry.h"

namespace arbiter::server {

struct MetricsSources {
  const RpcMetrics* rpc = nullptr;
  WorldRegistry* registry = nullptr;
  const Journal* journal = nullptr;  ///< null: no journal series
  const AccessControl* access = nullptr;
  WorkerPool* pool = nullptr;
};

/// The exposition. `visible(world)` says which worlds' series to include
/// (a token scoped to some worlds does not learn the others' names).
std::string RenderMetrics(const MetricsSources& sources, const std::function<bool(std::string_view)>& visible);

}  // namespace arbiter::server
