// fleet_bench: CastRays throughput through a fleet's nginx proxy against
// the same calls sent directly to the world's owner (issue 16). The fleet
// is a running one (bench/run_fleet_bench.sh starts it with
// docker/cluster.sh): --proxy is nginx, --instances the servers behind it.
//
// One world holding the scene (default arena-10k) is created through the
// proxy, so it lands on its hash owner; the owner is found by asking each
// instance. Then, before anything is timed, a sample of unary and batch
// calls is sent both ways and the replies must be equal message for
// message (exit 1 otherwise: the smoke test's check). Then, at each
// concurrency (closed-loop caller threads sharing one channel per path):
//
//   unary   CastRays with one ray (CLOSEST)
//   batch   CastRays with --batch rays as packed columns (CLOSEST)
//
// each direct, then through the proxy; printed are calls/s, rays/s, p50
// and p99 latency per call, and the proxy/direct ratio of rays/s. Wall
// clock on a possibly shared machine: numbers, never assertions.
#include <google/protobuf/util/message_differencer.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "arbiter/client/client.h"
#include "arbiter/scene/scene.h"
#include "bench_load.h"  // client/cli: the request builders of `arbiter bench`
#include "standard_files.h"

namespace arbiter::bench {
namespace {

using Clock = std::chrono::steady_clock;
using cli::ColumnBatch;
using cli::Percentile;
using cli::SingleRay;
using google::protobuf::util::MessageDifferencer;

constexpr char kWorld[] = "fleet-bench-arena";

struct Options {
  std::string proxy;
  std::vector<std::string> instances;
  std::string scene = FindStandardFile("arena-10k.scene.json");
  std::string queries = FindStandardFile("arena-10k.queries.json");
  double seconds = 2;
  size_t batch = 256;
  std::vector<int> concurrency = {1, 8, 32};
  size_t check_calls = 64;  // calls of each mode compared before timing
};

std::vector<std::string> SplitList(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream list(text);
  std::string item;
  while (std::getline(list, item, ',')) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

bool Parse(int argc, char** argv, Options* o) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool has_value = i + 1 < argc;
    if (a == "--proxy" && has_value) {
      o->proxy = argv[++i];
    } else if (a == "--instances" && has_value) {
      o->instances = SplitList(argv[++i]);
    } else if (a == "--scene" && has_value) {
      o->scene = argv[++i];
    } else if (a == "--queries" && has_value) {
      o->queries = argv[++i];
    } else if (a == "--seconds" && has_value) {
      o->seconds = std::atof(argv[++i]);
    } else if (a == "--batch" && has_value) {
      o->batch = static_cast<size_t>(std::atol(argv[++i]));
    } else if (a == "--concurrency" && has_value) {
      o->concurrency.clear();
      for (const std::string& n : SplitList(argv[++i])) o->concurrency.push_back(std::atoi(n.c_str()));
    } else if (a == "--quick") {
      // The smoke test: the answer check, then a glimpse of each measurement.
      o->seconds = 0.2;
      o->concurrency = {2};
      o->check_calls = 16;
    } else {
      return false;
    }
  }
  const bool levels_ok = !o->concurrency.empty() &&
                         std::all_of(o->concurrency.begin(), o->concurrency.end(), [](int n) { return n > 0; });
  return !o->proxy.empty() && !o->instances.empty() && o->seconds > 0 && o->batch > 0 && levels_ok;
}

// ---- Setup: the world created through the proxy, and its owner -----------------------

bool CreateWorld(client::ArbiterClient& proxy, const scene::Scene& loaded) {
  v1::DeleteWorldRequest del;
  del.set_world_id(kWorld);
  (void)proxy.DeleteWorld(del);  // a leftover of an earlier run; NOT_FOUND otherwise
  v1::CreateWorldRequest create;
  create.set_world_id(kWorld);
  create.set_tick_hz(loaded.world.tick_hz);
  if (absl::StatusOr<v1::CreateWorldResponse> r = proxy.CreateWorld(create); !r.ok()) {
    std::fprintf(stderr, "fleet_bench: CreateWorld through the proxy: %s\n", r.status().ToString().c_str());
    return false;
  }
  if (absl::Status s = proxy.AddBodiesInBatches(kWorld, loaded.bodies, 4096); !s.ok()) {
    std::fprintf(stderr, "fleet_bench: AddBodies through the proxy: %s\n", s.ToString().c_str());
    return false;
  }
  return true;
}

// The index of the one instance that lists the world; -1 when none or several do.
int FindOwner(const std::vector<std::string>& instances) {
  int owner = -1, holders = 0;
  for (size_t i = 0; i < instances.size(); ++i) {
    absl::StatusOr<v1::ListWorldsResponse> list = client::ArbiterClient::Connect(instances[i])->ListWorlds();
    if (!list.ok()) continue;
    for (const v1::WorldInfo& w : list->worlds()) {
      if (w.world_id() == kWorld) {
        owner = static_cast<int>(i);
        ++holders;
      }
    }
  }
  return holders == 1 ? owner : -1;
}

// ---- The check: the proxy answers exactly what the owner answers -----------------------

bool SameAnswer(client::ArbiterClient& proxy, client::ArbiterClient& direct, const v1::CastRaysRequest& request,
                const char* what, size_t index) {
  absl::StatusOr<v1::CastRaysResponse> a = proxy.CastRays(request);
  absl::StatusOr<v1::CastRaysResponse> b = direct.CastRays(request);
  if (!a.ok() || !b.ok()) {
    std::fprintf(stderr, "fleet_bench: %s call %zu failed: proxy %s, direct %s\n", what, index,
                 a.status().ToString().c_str(), b.status().ToString().c_str());
    return false;
  }
  if (!MessageDifferencer::Equals(*a, *b)) {
    std::fprintf(stderr, "fleet_bench: %s call %zu: the proxy's reply differs from the owner's\n", what, index);
    return false;
  }
  return true;
}

bool CheckAnswers(client::ArbiterClient& proxy, client::ArbiterClient& direct, const std::vector<RayCastInput>& rays,
                  const Options& o) {
  size_t hits = 0;
  for (size_t i = 0; i < o.check_calls; ++i) {
    const v1::CastRaysRequest unary = SingleRay(kWorld, rays, i * 7919);
    if (!SameAnswer(proxy, direct, unary, "unary", i)) return false;
    const v1::CastRaysRequest batch = ColumnBatch(kWorld, rays, i * o.batch, o.batch);
    if (!SameAnswer(proxy, direct, batch, "batch", i)) return false;
  }
  // The rays must hit something, or equal replies would prove little.
  absl::StatusOr<v1::CastRaysResponse> sample = direct.CastRays(ColumnBatch(kWorld, rays, 0, o.batch));
  if (sample.ok()) hits = static_cast<size_t>(sample->columns().query_index_size());  // CLOSEST: one row per hit
  std::printf("check: %zu unary and %zu batch calls answered identically through the proxy and directly "
              "(%zu of the first batch's %zu rays hit)\n",
              o.check_calls, o.check_calls, hits, o.batch);
  return hits > 0;
}

// ---- Measurement ------------------------------------------------------------------------

struct Result {
  double calls_per_second = 0;
  double rays_per_second = 0;
  double p50_us = 0, p99_us = 0;
  uint64_t errors = 0;
};

// `threads` closed loops for `seconds`, thread t sending requests[t % size].
Result Measure(client::ArbiterClient& c, const std::vector<v1::CastRaysRequest>& requests, size_t rays_per_call,
               int threads, double seconds) {
  std::vector<std::vector<double>> latencies(static_cast<size_t>(threads));
  std::atomic<uint64_t> errors{0};
  const Clock::time_point end = Clock::now() + std::chrono::milliseconds(50) +
                                std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  const Clock::time_point begin = end - std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      const v1::CastRaysRequest& request = requests[static_cast<size_t>(t) % requests.size()];
      std::vector<double>& mine = latencies[static_cast<size_t>(t)];
      std::this_thread::sleep_until(begin);
      for (Clock::time_point now = Clock::now(); now < end;) {
        const bool ok = c.CastRays(request).ok();
        const Clock::time_point after = Clock::now();
        if (ok) {
          mine.push_back(std::chrono::duration<double, std::micro>(after - now).count());
        } else {
          errors.fetch_add(1);
        }
        now = after;
      }
    });
  }
  for (std::thread& t : pool) t.join();
  std::vector<double> all;
  for (const std::vector<double>& l : latencies) all.insert(all.end(), l.begin(), l.end());
  Result r;
  r.calls_per_second = static_cast<double>(all.size()) / seconds;
  r.rays_per_second = r.calls_per_second * static_cast<double>(rays_per_call);
  r.p50_us = Percentile(all, 0.50);
  r.p99_us = Percentile(all, 0.99);
  r.errors = errors.load();
  return r;
}

void PrintRow(const char* mode, int threads, const char* path, const Result& r, double ratio) {
  std::printf("%-6s %5d  %-6s %10.0f %12.0f %10.1f %10.1f", mode, threads, path, r.calls_per_second, r.rays_per_second,
              r.p50_us, r.p99_us);
  if (ratio > 0) std::printf(" %7.2fx", ratio);
  if (r.errors > 0) std::printf("  (%llu errors)", static_cast<unsigned long long>(r.errors));
  std::printf("\n");
}

// Direct then proxy, for one mode at one concurrency. Returns the ratio.
double Compare(const char* mode, client::ArbiterClient& proxy, client::ArbiterClient& direct,
               const std::vector<v1::CastRaysRequest>& requests, size_t rays_per_call, int threads, double seconds) {
  const Result d = Measure(direct, requests, rays_per_call, threads, seconds);
  const Result p = Measure(proxy, requests, rays_per_call, threads, seconds);
  const double ratio = d.rays_per_second > 0 ? p.rays_per_second / d.rays_per_second : 0;
  PrintRow(mode, threads, "direct", d, 0);
  PrintRow(mode, threads, "proxy", p, ratio);
  std::fflush(stdout);
  return ratio;
}

int Run(const Options& o) {
  scene::Scene loaded;
  scene::QuerySet queries;
  if (Status s = scene::LoadSceneFile(o.scene, &loaded); !s.ok()) {
    std::fprintf(stderr, "fleet_bench: %s\n", s.message().c_str());
    return 1;
  }
  if (Status s = scene::LoadQuerySetFile(o.queries, &queries); !s.ok() || queries.rays.empty()) {
    std::fprintf(stderr, "fleet_bench: %s: %s\n", o.queries.c_str(), s.ok() ? "no rays" : s.message().c_str());
    return 1;
  }
  std::unique_ptr<client::ArbiterClient> proxy = client::ArbiterClient::Connect(o.proxy);
  if (!CreateWorld(*proxy, loaded)) return 1;
  const int owner = FindOwner(o.instances);
  if (owner < 0) {
    std::fprintf(stderr, "fleet_bench: %s is not on exactly one instance after its creation\n", kWorld);
    return 1;
  }
  const std::string& owner_address = o.instances[static_cast<size_t>(owner)];
  std::printf("scene %s (%zu bodies), world %s owned by instance %d (%s), proxy %s\n", loaded.name.c_str(),
              loaded.bodies.size(), kWorld, owner, owner_address.c_str(), o.proxy.c_str());
  std::unique_ptr<client::ArbiterClient> direct = client::ArbiterClient::Connect(owner_address);
  if (!CheckAnswers(*proxy, *direct, queries.rays, o)) return 1;

  const int most = *std::max_element(o.concurrency.begin(), o.concurrency.end());
  std::vector<v1::CastRaysRequest> unary, batch;
  for (int t = 0; t < most; ++t) {
    unary.push_back(SingleRay(kWorld, queries.rays, static_cast<size_t>(t) * 7919));
    batch.push_back(ColumnBatch(kWorld, queries.rays, static_cast<size_t>(t) * o.batch, o.batch));
  }
  std::printf("%-6s %5s  %-6s %10s %12s %10s %10s %8s\n", "mode", "conc", "path", "calls/s", "rays/s", "p50 us",
              "p99 us", "proxy/direct");
  double worst_batch = 0;
  for (int threads : o.concurrency) {
    Compare("unary", *proxy, *direct, unary, 1, threads, o.seconds);
    const double ratio = Compare("batch", *proxy, *direct, batch, o.batch, threads, o.seconds);
    worst_batch = worst_batch == 0 ? ratio : std::min(worst_batch, ratio);
  }
  std::printf("batch rays/s through the proxy, worst level: %.2fx direct (issue 16's target: >= 0.80x)\n", worst_batch);
  v1::DeleteWorldRequest del;
  del.set_world_id(kWorld);
  (void)proxy->DeleteWorld(del);
  return 0;
}

}  // namespace
}  // namespace arbiter::bench

int main(int argc, char** argv) {
  arbiter::bench::Options options;
  if (!arbiter::bench::Parse(argc, argv, &options)) {
    std::fprintf(stderr,
                 "usage: fleet_bench --proxy HOST:PORT --instances HOST:PORT,... [--scene FILE] [--queries FILE]\n"
                 "                   [--seconds S] [--batch N] [--concurrency N,N,...] [--quick]\n");
    return 2;
  }
  return arbiter::bench::Run(options);
}
