// `arbiter bench`: measures the service on a scene and its query set
// (default arena-10k) against a running server, with closed-loop callers:
//
//   empty    GetStateHash of an empty world: the cheapest call on the same
//            path as a query (callback thread, world lock, tiny reply); the
//            ceiling for unary calls, measured in the same run
//   ray      CastRays with one ray (CLOSEST)
//   batch    CastRays with --batch rays as packed columns
//   sweeps   CastShapes with --batch disk sweeps (CLOSEST), when the query
//            set has sweeps
//   stream   QueryStream, each caller keeping --window batches in flight
//            (its "latency" is the interval between replies)
//
// at each concurrency (--concurrency, default 1,8,64; --modes picks some of
// the modes, default all), plus the in-process
// single-thread ray and sweep rates on the same scene as the yardsticks for
// batches (the server's --query_threads splits one batch across threads).
// Latency is per call (per batch for batch and stream).
#include "bench.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "arbiter/client/client.h"
#include "arbiter/scene/scene.h"
#include "args.h"
#include "bench_load.h"
#include "connection.h"

namespace arbiter::cli {
namespace {

using Clock = std::chrono::steady_clock;
using Json = nlohmann::ordered_json;

constexpr const char* kArenaWorld = "bench-arena";
constexpr const char* kEmptyWorld = "bench-empty";

struct Result {
  std::string mode;
  int concurrency = 0;
  double calls_per_second = 0;
  double rays_per_second = 0;
  double p50_us = 0, p99_us = 0, p999_us = 0;
  uint64_t errors = 0;
};

// Runs `call` in `concurrency` closed loops for `seconds`; each call returns
// false on error. `rays_per_call` scales calls to rays.
template <class MakeCaller>
Result Measure(const std::string& mode, int concurrency, double seconds, uint64_t rays_per_call, MakeCaller make_caller) {
  std::vector<std::vector<double>> latencies(static_cast<size_t>(concurrency));
  std::vector<uint64_t> errors(static_cast<size_t>(concurrency), 0);
  std::atomic<bool> start{false};
  std::vector<std::thread> threads;
  const Clock::duration length = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  Clock::time_point begin;
  for (int t = 0; t < concurrency; ++t) {
    threads.emplace_back([&, t] {
      auto call = make_caller(t);
      while (!start.load()) std::this_thread::yield();
      const Clock::time_point end = begin + length;
      std::vector<double>& mine = latencies[static_cast<size_t>(t)];
      for (Clock::time_point now = Clock::now(); now < end;) {
        const bool ok = call();
        const Clock::time_point after = Clock::now();
        if (ok) {
          mine.push_back(std::chrono::duration<double, std::micro>(after - now).count());
        } else {
          ++errors[static_cast<size_t>(t)];
        }
        now = after;
      }
    });
  }
  begin = Clock::now();
  start = true;
  for (std::thread& t : threads) t.join();
  const double elapsed = std::chrono::duration<double>(Clock::now() - begin).count();
  std::vector<double> all;
  Result r;
  r.mode = mode;
  r.concurrency = concurrency;
  for (size_t t = 0; t < latencies.size(); ++t) {
    all.insert(all.end(), latencies[t].begin(), latencies[t].end());
    r.errors += errors[t];
  }
  r.calls_per_second = static_cast<double>(all.size()) / elapsed;
  r.rays_per_second = r.calls_per_second * static_cast<double>(rays_per_call);
  r.p50_us = Percentile(all, 0.50);
  r.p99_us = Percentile(all, 0.99);
  r.p999_us = Percentile(all, 0.999);
  return r;
}

// Queries per second of `answer_all` (which answers `per_call` queries) on
// this thread, repeated for at least `seconds`.
template <class AnswerAll>
double InProcessRate(double seconds, size_t per_call, AnswerAll answer_all) {
  const Clock::time_point begin = Clock::now();
  size_t answered = 0;
  do {
    answer_all();
    answered += per_call;
  } while (std::chrono::duration<double>(Clock::now() - begin).count() < seconds);
  return static_cast<double>(answered) / std::chrono::duration<double>(Clock::now() - begin).count();
}

int Usage(const std::string& message) {
  std::fprintf(stderr, "arbiter bench: %s\n", message.c_str());
  return 2;
}

// ---- RunBench's stages: flags, the in-process yardsticks, the server's
// worlds, the measured modes, and the report.

struct BenchFlags {
  std::string server;
  std::string scene_path;
  std::string queries_path;
  double seconds = 0;
  uint64_t batch = 0;
  uint64_t window = 0;
  std::vector<int> levels;
  std::set<std::string> modes;

  bool wanted(const char* mode) const { return modes.count(mode) > 0; }
};

// The flags, or the usage message naming the bad one.
std::optional<std::string> ParseBenchFlags(const Args& args, BenchFlags* out) {
  out->server = args.Get("server", "127.0.0.1:50051");
  out->scene_path = args.Get("scene", "scenes/arena-10k.scene.json");
  out->queries_path = args.Get("queries", "scenes/arena-10k.queries.json");
  const std::optional<double> seconds = ParseDouble(args.Get("seconds", "2"));
  const std::optional<uint64_t> batch = ParseUint(args.Get("batch", "1024"));
  const std::optional<uint64_t> window = ParseUint(args.Get("window", "4"));
  if (!seconds || *seconds <= 0 || !batch || *batch == 0 || !window || *window == 0) {
    return "--seconds, --batch and --window must be positive";
  }
  out->seconds = *seconds;
  out->batch = *batch;
  out->window = *window;
  for (absl::string_view part : absl::StrSplit(args.Get("concurrency", "1,8,64"), ',')) {
    int n = 0;
    if (!absl::SimpleAtoi(part, &n) || n <= 0) return "--concurrency is a comma-separated list of positive counts";
    out->levels.push_back(n);
  }
  for (absl::string_view part : absl::StrSplit(args.Get("modes", "empty,ray,batch,sweeps,stream"), ',')) {
    if (part != "empty" && part != "ray" && part != "batch" && part != "sweeps" && part != "stream") {
      return "--modes is a comma-separated list of empty, ray, batch, sweeps, stream";
    }
    out->modes.insert(std::string(part));
  }
  return std::nullopt;
}

struct InProcessRates {
  double rays_per_second = 0;
  double sweeps_per_second = 0;
};

// The yardsticks: the core in this process, one thread, the same queries
// (the closest hit of each, as the server's CLOSEST mode answers). False
// when the scene does not load.
bool MeasureInProcess(const scene::Scene& loaded, const scene::QuerySet& queries, double seconds, InProcessRates* out) {
  World world(loaded.world);
  if (!world.AddBodies(loaded.bodies).ok()) return false;
  std::optional<CastHit> hit;
  out->rays_per_second = InProcessRate(seconds, queries.rays.size(), [&] {
    for (const RayCastInput& ray : queries.rays) hit = world.CastRayClosest(ray);
  });
  if (!queries.sweeps.empty()) {
    out->sweeps_per_second = InProcessRate(seconds, queries.sweeps.size(), [&] {
      for (const scene::SweepQuery& q : queries.sweeps) {
        const Transform at{q.center, kRotIdentity};
        hit = world.CastShapeClosest(Shape::FromCircle({{}, q.radius}), at, q.translation);
      }
    });
  }
  return true;
}

// The server side: the scene uploaded as kArenaWorld, and an empty world,
// each created afresh. False (after printing why) on any error.
bool PrepareServerWorlds(client::ArbiterClient& c, const scene::Scene& loaded) {
  for (const char* id : {kArenaWorld, kEmptyWorld}) {
    v1::DeleteWorldRequest del;
    del.set_world_id(id);
    (void)c.DeleteWorld(del);
    v1::CreateWorldRequest create;
    create.set_world_id(id);
    create.set_tick_hz(loaded.world.tick_hz);
    if (absl::StatusOr<v1::CreateWorldResponse> r = c.CreateWorld(create); !r.ok()) {
      std::fprintf(stderr, "arbiter bench: %s\n", r.status().ToString().c_str());
      return false;
    }
  }
  if (absl::Status s = c.AddBodiesInBatches(kArenaWorld, loaded.bodies, 4096); !s.ok()) {
    std::fprintf(stderr, "arbiter bench: %s\n", s.ToString().c_str());
    return false;
  }
  return true;
}

// A stream caller keeps `window` batches in flight; a "call" is one reply.
auto StreamCaller(client::ArbiterClient& c, const std::vector<RayCastInput>& rays, size_t first, const BenchFlags& flags) {
  struct State {
    ~State() {
      if (stream) stream->Finish().IgnoreError();  // drains the replies still in flight
    }
    std::unique_ptr<client::RayStream> stream;
    v1::CastRaysRequest request;
    bool primed = false;
  };
  auto state = std::make_shared<State>();
  state->stream = c.OpenQueryStream();
  state->request = ColumnBatch(kArenaWorld, rays, first, flags.batch);
  const uint64_t in_flight = flags.window;
  return [state, in_flight] {
    if (!state->primed) {
      for (uint64_t i = 1; i < in_flight; ++i) state->stream->Write(state->request);
      state->primed = true;
    }
    return state->stream->Write(state->request) && state->stream->Read().has_value();
  };
}

// Every wanted mode at every concurrency, each reported to stderr as it ends.
std::vector<Result> MeasureModes(client::ArbiterClient& c, const BenchFlags& flags, const scene::QuerySet& queries) {
  const std::vector<RayCastInput>& rays = queries.rays;
  const std::vector<scene::SweepQuery>& sweeps = queries.sweeps;
  const uint64_t batch = flags.batch;
  std::vector<Result> results;
  auto report = [&](const Result& r) {
    std::fprintf(stderr, "bench: %-6s x%-3d %10.0f calls/s %12.0f rays/s  p50 %8.1f us  p99 %8.1f us  p999 %8.1f us%s\n",
                 r.mode.c_str(), r.concurrency, r.calls_per_second, r.rays_per_second, r.p50_us, r.p99_us, r.p999_us,
                 r.errors ? "  (errors!)" : "");
    results.push_back(r);
  };
  for (int level : flags.levels) {
    if (flags.wanted("empty")) report(Measure("empty", level, flags.seconds, 0, [&](int) {
      v1::GetStateHashRequest request;
      request.set_world_id(kEmptyWorld);
      return [&c, request] { return c.GetStateHash(request).ok(); };
    }));
    if (flags.wanted("ray")) report(Measure("ray", level, flags.seconds, 1, [&](int t) {
      auto next = std::make_shared<size_t>(static_cast<size_t>(t) * 7919);
      return [&c, &rays, next] { return c.CastRays(SingleRay(kArenaWorld, rays, (*next)++)).ok(); };
    }));
    if (flags.wanted("batch")) report(Measure("batch", level, flags.seconds, batch, [&](int t) {
      auto request = std::make_shared<v1::CastRaysRequest>(ColumnBatch(kArenaWorld, rays, static_cast<size_t>(t) * batch, batch));
      return [&c, request] { return c.CastRays(*request).ok(); };
    }));
    if (flags.wanted("sweeps") && !sweeps.empty()) {
      report(Measure("sweeps", level, flags.seconds, batch, [&](int t) {
        auto request = std::make_shared<v1::CastShapesRequest>(
            SweepBatch(kArenaWorld, sweeps, static_cast<size_t>(t) * batch, batch));
        return [&c, request] { return c.CastShapes(*request).ok(); };
      }));
    }
    if (flags.wanted("stream")) report(Measure("stream", level, flags.seconds, batch, [&](int t) {
      return StreamCaller(c, rays, static_cast<size_t>(t) * batch, flags);
    }));
  }
  return results;
}

// The targets of issue 5, computed from this run: the best batched rates
// against the in-process ones, and unary rays against the empty call.
Json Ratios(const std::vector<Result>& results, const std::vector<int>& levels, const InProcessRates& in_process) {
  auto find = [&](const std::string& mode, int level) -> const Result* {
    for (const Result& r : results) {
      if (r.mode == mode && r.concurrency == level) return &r;
    }
    return nullptr;
  };
  double best_batch = 0, best_sweeps = 0;
  for (const Result& r : results) {
    if (r.mode == "batch" || r.mode == "stream") best_batch = std::max(best_batch, r.rays_per_second);
    if (r.mode == "sweeps") best_sweeps = std::max(best_sweeps, r.rays_per_second);
  }
  Json ratios;
  ratios["batched_rays_vs_in_process"] = best_batch / in_process.rays_per_second;
  if (in_process.sweeps_per_second > 0 && best_sweeps > 0) {
    ratios["batched_sweeps_vs_in_process"] = best_sweeps / in_process.sweeps_per_second;
  }
  for (int level : levels) {
    const Result* empty = find("empty", level);
    const Result* ray = find("ray", level);
    if (empty && ray && empty->calls_per_second > 0 && empty->p99_us > 0) {
      ratios["unary_ray_rate_vs_empty_x" + std::to_string(level)] = ray->calls_per_second / empty->calls_per_second;
      ratios["unary_ray_p99_vs_empty_x" + std::to_string(level)] = ray->p99_us / empty->p99_us;
    }
  }
  return ratios;
}

Json ResultTable(const std::vector<Result>& results) {
  Json table = Json::array();
  for (const Result& r : results) {
    table.push_back({{"mode", r.mode},
                     {"concurrency", r.concurrency},
                     {"calls_per_second", r.calls_per_second},
                     {"rays_per_second", r.rays_per_second},
                     {"p50_us", r.p50_us},
                     {"p99_us", r.p99_us},
                     {"p999_us", r.p999_us},
                     {"errors", r.errors}});
  }
  return table;
}

void PrintTable(const std::string& scene_name, const InProcessRates& in_process, const std::vector<Result>& results,
                const Json& ratios) {
  std::printf("scene %s, in-process single-thread rays/s: %.0f, sweeps/s: %.0f\n", scene_name.c_str(),
              in_process.rays_per_second, in_process.sweeps_per_second);
  std::printf("%-7s %5s %12s %14s %10s %10s %10s\n", "mode", "conc", "calls/s", "queries/s", "p50 us", "p99 us",
              "p999 us");
  for (const Result& r : results) {
    std::printf("%-7s %5d %12.0f %14.0f %10.1f %10.1f %10.1f\n", r.mode.c_str(), r.concurrency, r.calls_per_second,
                r.rays_per_second, r.p50_us, r.p99_us, r.p999_us);
  }
  for (const auto& [name, value] : ratios.items()) std::printf("%s: %.3f\n", name.c_str(), value.get<double>());
}

}  // namespace

int RunBench(int argc, char** argv) {
  std::set<std::string> valued = {"server", "scene", "queries", "seconds", "concurrency", "batch", "window", "modes"};
  valued.insert(ConnectionValuedFlags().begin(), ConnectionValuedFlags().end());
  const Args args(argc, argv, 2, valued);
  if (args.error()) return Usage(*args.error());
  BenchFlags flags;
  if (std::optional<std::string> error = ParseBenchFlags(args, &flags)) return Usage(*error);

  scene::Scene loaded;
  scene::QuerySet queries;
  if (const arbiter::Status s = scene::LoadSceneFile(flags.scene_path, &loaded); !s.ok()) return Usage(s.message());
  if (const arbiter::Status s = scene::LoadQuerySetFile(flags.queries_path, &queries); !s.ok()) return Usage(s.message());
  if (queries.rays.empty()) return Usage("the query set has no rays");
  InProcessRates in_process;
  if (!MeasureInProcess(loaded, queries, flags.seconds, &in_process)) return Usage("the scene does not load into a world");

  client::ClientOptions options;
  options.timeout = std::chrono::milliseconds(0);
  if (std::optional<std::string> error = ApplyConnectionFlags(args, &options)) return Usage(*error);
  std::unique_ptr<client::ArbiterClient> c = client::ArbiterClient::Connect(flags.server, options);
  if (!PrepareServerWorlds(*c, loaded)) return 1;

  const std::vector<Result> results = MeasureModes(*c, flags, queries);
  const Json ratios = Ratios(results, flags.levels, in_process);
  if (args.Has("json")) {
    const Json out = {{"server", flags.server},
                      {"scene", loaded.name},
                      {"in_process_rays_per_second", in_process.rays_per_second},
                      {"in_process_sweeps_per_second", in_process.sweeps_per_second},
                      {"results", ResultTable(results)},
                      {"ratios", ratios}};
    std::printf("%s\n", out.dump(2).c_str());
  } else {
    PrintTable(loaded.name, in_process, results, ratios);
  }
  for (const char* id : {kArenaWorld, kEmptyWorld}) {
    v1::DeleteWorldRequest del;
    del.set_world_id(id);
    (void)c->DeleteWorld(del);
  }
  return 0;
}

}  // namespace arbiter::cli
