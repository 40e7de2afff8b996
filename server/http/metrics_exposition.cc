#include "http/metrics_exposition.h"

#include <cstdint>

#include "ops/shot_judge.h"

namespace arbiter::server {
namespace {

// Whole microseconds as seconds, exactly: 2500 -> "0.0025".
std::string Seconds(uint64_t micros) {
  std::string frac = std::to_string(micros % 1'000'000);
  frac.insert(0, 6 - frac.size(), '0');
  while (!frac.empty() && frac.back() == '0') frac.pop_back();
  return std::to_string(micros / 1'000'000) + (frac.empty() ? "" : "." + frac);
}

void Header(std::string* out, const char* name, const char* type, const char* help) {
  out->append("# HELP ").append(name).append(" ").append(help).append("\n# TYPE ").append(name).append(" ");
  out->append(type).append("\n");
}

void Sample(std::string* out, std::string_view name, std::string_view labels, const std::string& value) {
  out->append(name);
  if (!labels.empty()) out->append("{").append(labels).append("}");
  out->append(" ").append(value).append("\n");
}

// One histogram's series; `labels` without braces ("" for none).
void Histogram(std::string* out, const std::string& name, const std::string& labels, const LatencyHistogram& h) {
  const LatencyHistogram::Counts c = h.Read();
  const std::string sep = labels.empty() ? "" : labels + ",";
  uint64_t cumulative = 0;
  for (size_t i = 0; i < c.buckets.size(); ++i) {
    cumulative += c.buckets[i];
    const std::string le = i < LatencyHistogram::kBoundsMicros.size() ? Seconds(LatencyHistogram::kBoundsMicros[i])
                                                                       : "+Inf";
    Sample(out, name + "_bucket", sep + "le=\"" + le + "\"", std::to_string(cumulative));
  }
  Sample(out, name + "_sum", labels, Seconds(c.sum_micros));
  Sample(out, name + "_count", labels, std::to_string(c.count));
}

void RpcSeries(std::string* out, const RpcMetrics& rpc) {
  Header(out, "arbiter_requests_total", "counter", "Finished gRPC calls by method and status code.");
  for (const auto& [method, counters] : rpc.all()) {
    for (int code = 0; code < RpcCounters::kCodes; ++code) {
      const uint64_t n = counters->by_code[code].load(std::memory_order_relaxed);
      // Every method shows its OK series, other codes once they happened.
      if (n == 0 && code != 0) continue;
      Sample(out, "arbiter_requests_total", "method=\"" + method + "\",code=\"" + StatusCodeName(code) + "\"",
             std::to_string(n));
    }
  }
  Header(out, "arbiter_request_duration_seconds", "histogram", "gRPC call latency, arrival to status, by method.");
  for (const auto& [method, counters] : rpc.all()) {
    Histogram(out, "arbiter_request_duration_seconds", "method=\"" + method + "\"", counters->latency);
  }
}

struct WorldSample {
  std::string id;
  const WorldCounters* counters;
  uint64_t bodies = 0;
  int64_t tick = 0;
  uint64_t history_bytes = 0;
};

std::vector<WorldSample> ReadWorlds(WorldRegistry& registry, const std::function<bool(std::string_view)>& visible) {
  std::vector<WorldSample> worlds;
  for (const std::shared_ptr<WorldEntry>& entry : registry.List()) {  // by id
    if (!visible(entry->id())) continue;
    WorldSample s{entry->id(), &entry->counters()};
    entry->Read([&](const World& world) {
      s.bodies = world.body_count();
      s.tick = world.tick();
      s.history_bytes = entry->history().MemoryBytes() + entry->history().CacheBytes();
    });
    worlds.push_back(std::move(s));
  }
  return worlds;
}

template <class Label>
void ShotSeries(std::string* out, const std::vector<WorldSample>& worlds, const Label& label) {
  Header(out, "arbiter_shots_judged_total", "counter",
         "ValidateShots: shots judged, by world and verdict (too_old: beyond the caller's rewind cap or the history).");
  for (const WorldSample& w : worlds) {
    for (int v = 0; v < kShotVerdictCount; ++v) {
      const std::string labels = label(w) + ",verdict=\"" + ShotVerdictName(static_cast<ShotVerdict>(v)) + "\"";
      Sample(out, "arbiter_shots_judged_total", labels,
             std::to_string(w.counters->shots[static_cast<size_t>(v)].load(std::memory_order_relaxed)));
    }
  }
  Header(out, "arbiter_shots_duplicate_total", "counter", "ValidateShots: re-sent shots answered with their first judgement.");
  for (const WorldSample& w : worlds) {
    Sample(out, "arbiter_shots_duplicate_total", label(w),
           std::to_string(w.counters->duplicate_shots.load(std::memory_order_relaxed)));
  }
}

void WorldSeries(std::string* out, const std::vector<WorldSample>& worlds) {
  auto label = [](const WorldSample& w) { return "world=\"" + w.id + "\""; };
  Header(out, "arbiter_world_ticks_total", "counter", "Ticks stepped since the server started, by world.");
  for (const WorldSample& w : worlds) {
    Sample(out, "arbiter_world_ticks_total", label(w), std::to_string(w.counters->ticks.load(std::memory_order_relaxed)));
  }
  Header(out, "arbiter_world_step_duration_seconds", "histogram", "Duration of one Step call (all its ticks), by world.");
  for (const WorldSample& w : worlds) Histogram(out, "arbiter_world_step_duration_seconds", label(w), w.counters->step);
  Header(out, "arbiter_world_bodies", "gauge", "Bodies in the world.");
  for (const WorldSample& w : worlds) Sample(out, "arbiter_world_bodies", label(w), std::to_string(w.bodies));
  Header(out, "arbiter_world_tick", "gauge", "The world's current tick.");
  for (const WorldSample& w : worlds) Sample(out, "arbiter_world_tick", label(w), std::to_string(w.tick));
  Header(out, "arbiter_world_history_bytes", "gauge", "Heap bytes of the world's retained past ticks.");
  for (const WorldSample& w : worlds) Sample(out, "arbiter_world_history_bytes", label(w), std::to_string(w.history_bytes));
  ShotSeries(out, worlds, label);
}

void JournalSeries(std::string* out, const JournalCounters& j) {
  Header(out, "arbiter_journal_commit_duration_seconds", "histogram", "One journal transaction, insert to commit.");
  Histogram(out, "arbiter_journal_commit_duration_seconds", "", j.commit);
  Header(out, "arbiter_journal_written_bytes_total", "counter", "Journal record bytes committed.");
  Sample(out, "arbiter_journal_written_bytes_total", "", std::to_string(j.bytes_written.load(std::memory_order_relaxed)));
  Header(out, "arbiter_journal_write_failures_total", "counter", "Journal transactions that failed.");
  Sample(out, "arbiter_journal_write_failures_total", "", std::to_string(j.failures.load(std::memory_order_relaxed)));
}

}  // namespace

std::string RenderMetrics(const MetricsSources& sources, const std::function<bool(std::string_view)>& visible) {
  std::string out;
  RpcSeries(&out, *sources.rpc);
  WorldSeries(&out, ReadWorlds(*sources.registry, visible));
  if (sources.journal != nullptr) JournalSeries(&out, sources.journal->counters());
  Header(&out, "arbiter_rate_limited_total", "counter", "Calls refused by the per-caller rate limit.");
  Sample(&out, "arbiter_rate_limited_total", "", std::to_string(sources.access->rate_limited()));
  Header(&out, "arbiter_in_flight_rejected_total", "counter", "Calls refused by the per-caller calls-in-flight limit.");
  Sample(&out, "arbiter_in_flight_rejected_total", "", std::to_string(sources.access->in_flight_rejected()));
  Header(&out, "arbiter_worker_queue_depth", "gauge", "Tasks waiting for a worker thread.");
  Sample(&out, "arbiter_worker_queue_depth", "", std::to_string(sources.pool->queue_depth()));
  return out;
}

}  // namespace arbiter::server
