// Chaos for the fleet's one promise (docs/fleet.md "Durable moves"): a real
// nginx fleet of three arbiter-server processes, each on its own journal,
// under load (one stepping client per world and two querying clients, all
// entering through the proxy and following "moved to" answers), while a
// driver moves random worlds between random instances and SIGKILLs the
// source, the destination, a bystander or nobody at a random moment of the
// move, restarts the killed instance on its journal and finishes or undoes
// the move the way an operator would (`arbiter migrate --resume`).
//
// Invariants:
//  - at no moment do two instances take writes to a world at the same
//    epoch: a monitor probes every instance for every world throughout, and
//    since two live copies never share an epoch by design, any such pair is
//    a second writer (the probe changes nothing: it names an impossible
//    tick, and the server checks the epoch before the tick);
//  - after every round each world is listed by exactly one instance, which
//    alone takes writes (ListWorlds and the write probe on every instance);
//  - every acknowledged step's state hash is on that owner (ReportHashes
//    over the acknowledged ticks), so no acknowledged change was lost;
//  - clients see only documented codes: OK, UNAVAILABLE (moving, moved,
//    recovering, an instance down), FAILED_PRECONDITION for expected_tick
//    after a lost reply, DEADLINE_EXCEEDED.
//
// ARBITER_CHAOS_ROUNDS (default 25) and ARBITER_CHAOS_SEED (default: from
// the clock) set the run; both are printed with the counts, so a failing
// run can be replayed (the kill moments are wall-clock, so a replay takes
// the same decisions, not always the same interleaving).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "arbiter/client/fleet.h"
#include "fleet/fleet_cluster.h"
#include "server/auth_support.h"
#include "server/test_support.h"

namespace arbiter::testing {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

constexpr int kWorlds = 4;
constexpr uint32_t kHistoryTicks = 2000;

uint64_t EnvOr(const char* name, uint64_t fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::strtoull(v, nullptr, 10) : fallback;
}

client::ClientOptions Quick() {
  client::ClientOptions o;
  o.timeout = milliseconds(5000);
  return o;
}

std::string ChaosWorld(int i) { return "chaos-" + std::to_string(i); }

// "world 'w' moved to HOST:PORT; retry": the address, when `s` says so.
std::optional<std::string> MovedTo(const absl::Status& s) {
  if (s.code() != absl::StatusCode::kUnavailable) return std::nullopt;
  const std::string message(s.message());
  const size_t at = message.find("' moved to ");
  if (at == std::string::npos) return std::nullopt;
  const size_t from = at + 11;
  return message.substr(from, message.find(';', from) - from);
}

// A status a client may see while worlds move and instances die.
bool Documented(const absl::Status& s) {
  switch (s.code()) {
    case absl::StatusCode::kOk:
    case absl::StatusCode::kUnavailable:
    case absl::StatusCode::kDeadlineExceeded: return true;
    case absl::StatusCode::kFailedPrecondition: return s.message().find("expected_tick: ") != std::string_view::npos;
    default: return false;
  }
}

// What every client thread counts and keeps.
struct ClientLog {
  std::mutex mu;
  std::map<std::string, uint64_t> codes;  // by code name, every call
  std::vector<std::string> undocumented;
  uint64_t retries = 0;

  void Saw(const absl::Status& s) {
    std::lock_guard<std::mutex> lock(mu);
    ++codes[absl::StatusCodeToString(s.code())];
    if (!s.ok()) ++retries;
    if (!Documented(s) && undocumented.size() < 20) undocumented.push_back(s.ToString());
  }
};

// A client's way to a world: the proxy first, then wherever "moved to"
// answers send it; back to the proxy when the instance it knows is down.
class Route {
 public:
  explicit Route(std::string proxy) : proxy_(std::move(proxy)) { Go(proxy_); }
  client::ArbiterClient& client() { return *client_; }

  // After a failed call: where to try next, and a short pause.
  void After(const absl::Status& s) {
    if (std::optional<std::string> to = MovedTo(s)) {
      Go(*to);
      return;
    }
    const std::string message(s.message());
    const bool world_busy = message.find("is moving to") != std::string::npos ||
                            message.find("not back yet") != std::string::npos ||
                            message.find("recovering its journal") != std::string::npos ||
                            message.find("arriving from another instance") != std::string::npos;
    // Anything else unavailable: the instance (or nginx's upstream) is down.
    if (s.code() == absl::StatusCode::kUnavailable && !world_busy) Go(proxy_);
    std::this_thread::sleep_for(milliseconds(world_busy ? 2 : 10));
  }

 private:
  void Go(const std::string& address) { client_ = client::ArbiterClient::Connect(address, Quick()); }

  const std::string proxy_;
  std::unique_ptr<client::ArbiterClient> client_;
};

struct Ack {
  int64_t tick;
  uint64_t hash;
};

// Steps one world a tick at a time, expected_tick set (a step whose reply
// was lost cannot run twice), and keeps every acknowledged tick and hash.
class Stepper {
 public:
  Stepper(std::string world, const std::string& proxy, ClientLog* log)
      : world_(std::move(world)), route_(proxy), log_(log) {}

  void Start() { thread_ = std::thread([this] { Loop(); }); }
  void Stop() {
    stop_ = true;
    thread_.join();
  }
  std::vector<Ack> AcksFrom(size_t first) {
    std::lock_guard<std::mutex> lock(mu_);
    return first < acks_.size() ? std::vector<Ack>(acks_.begin() + first, acks_.end()) : std::vector<Ack>{};
  }
  uint64_t lost_replies() const { return lost_replies_; }

 private:
  void Loop() {
    while (!stop_ && !LearnTick()) std::this_thread::sleep_for(milliseconds(5));
    while (!stop_) {
      v1::StepRequest step = OneTick(world_);
      step.set_expected_tick(tick_);
      absl::StatusOr<v1::StepResponse> reply = route_.client().Step(step);
      log_->Saw(reply.status());
      if (reply.ok()) {
        std::lock_guard<std::mutex> lock(mu_);
        acks_.push_back({reply->tick(), reply->state_hash()});
        tick_ = reply->tick();
      } else if (reply.status().code() == absl::StatusCode::kFailedPrecondition) {
        ++lost_replies_;  // an earlier step was applied but its reply lost
        while (!stop_ && !LearnTick()) std::this_thread::sleep_for(milliseconds(5));
      } else {
        route_.After(reply.status());
      }
      std::this_thread::sleep_for(milliseconds(2));
    }
  }

  // The world's tick where the route leads now; false to try again.
  bool LearnTick() {
    v1::GetStateHashRequest read;
    read.set_world_id(world_);
    absl::StatusOr<v1::GetStateHashResponse> h = route_.client().GetStateHash(read);
    log_->Saw(h.status());
    if (!h.ok()) {
      route_.After(h.status());
      return false;
    }
    tick_ = h->tick();
    return true;
  }

  const std::string world_;
  Route route_;
  ClientLog* log_;
  std::mutex mu_;
  std::vector<Ack> acks_;
  int64_t tick_ = 0;
  std::atomic<uint64_t> lost_replies_{0};
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

// Casts rays at random worlds through the proxy, following moves.
class Querier {
 public:
  Querier(const std::string& proxy, uint64_t seed, ClientLog* log) : proxy_(proxy), rng_(seed), log_(log) {}
  void Start() { thread_ = std::thread([this] { Loop(); }); }
  void Stop() {
    stop_ = true;
    thread_.join();
  }
  uint64_t answered() const { return answered_; }

 private:
  void Loop() {
    std::vector<std::unique_ptr<Route>> routes;
    for (int i = 0; i < kWorlds; ++i) routes.push_back(std::make_unique<Route>(proxy_));
    while (!stop_) {
      const int w = static_cast<int>(rng_() % kWorlds);
      v1::CastRaysRequest rays;
      rays.set_world_id(ChaosWorld(w));
      rays.set_mode(v1::CAST_MODE_ALL);
      for (int i = 0; i < 8; ++i) *rays.add_rays() = client::MakeRay(-30 + 8 * i, 12, 0.5 * i - 2, -20);
      absl::StatusOr<v1::CastRaysResponse> reply = routes[w]->client().CastRays(rays);
      log_->Saw(reply.status());
      if (reply.ok()) {
        ++answered_;
      } else {
        routes[w]->After(reply.status());
      }
      std::this_thread::sleep_for(milliseconds(1));
    }
  }

  const std::string proxy_;
  std::mt19937_64 rng_;
  ClientLog* log_;
  std::atomic<uint64_t> answered_{0};
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

// Whether instance `address` takes writes to `world` right now, and at
// which epoch: a step naming an impossible tick at the epoch the instance
// just described is refused for the tick (it would have been taken) only
// by a live copy at that epoch. Changes nothing.
std::optional<uint64_t> WritableAt(const std::string& address, const std::string& world) {
  std::unique_ptr<client::ArbiterClient> c = client::ArbiterClient::Connect(address, Quick());
  v1::DescribeWorldRequest describe;
  describe.set_world_id(world);
  absl::StatusOr<v1::DescribeWorldResponse> d = c->DescribeWorld(describe);
  if (!d.ok() || !d->world().moving_to().empty()) return std::nullopt;
  v1::StepRequest probe = OneTick(world);
  probe.set_expected_tick(-1);
  probe.set_expected_epoch(d->world().epoch());
  const absl::Status s = c->Step(probe).status();
  if (s.code() == absl::StatusCode::kFailedPrecondition && s.message().find("expected_tick: ") != std::string_view::npos) {
    return d->world().epoch();
  }
  return std::nullopt;
}

// Probes every instance for every world until stopped; records any epoch
// of a world at which two instances took writes.
class Monitor {
 public:
  explicit Monitor(std::vector<std::string> instances) : instances_(std::move(instances)) {}
  void Start() { thread_ = std::thread([this] { Loop(); }); }
  void Stop() {
    stop_ = true;
    thread_.join();
  }
  uint64_t probes() const { return probes_; }
  std::vector<std::string> violations() {
    std::lock_guard<std::mutex> lock(mu_);
    return violations_;
  }
  // Called by the driver too, at the end of each round.
  void Record(const std::string& world, uint64_t epoch, size_t instance) {
    std::lock_guard<std::mutex> lock(mu_);
    std::set<size_t>& writers = writers_[{world, epoch}];
    writers.insert(instance);
    if (writers.size() > 1 && violations_.size() < 20) {
      violations_.push_back("world " + world + " took writes at epoch " + std::to_string(epoch) + " on " +
                            std::to_string(writers.size()) + " instances");
    }
  }

 private:
  void Loop() {
    while (!stop_) {
      for (int w = 0; w < kWorlds && !stop_; ++w) {
        for (size_t i = 0; i < instances_.size(); ++i) {
          ++probes_;
          if (std::optional<uint64_t> e = WritableAt(instances_[i], ChaosWorld(w))) Record(ChaosWorld(w), *e, i);
        }
      }
      std::this_thread::sleep_for(milliseconds(1));
    }
  }

  const std::vector<std::string> instances_;
  std::mutex mu_;
  std::map<std::pair<std::string, uint64_t>, std::set<size_t>> writers_;
  std::vector<std::string> violations_;
  std::atomic<uint64_t> probes_{0};
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

class FleetChaos : public FleetCluster {
 protected:
  enum class Victim { kNobody, kSource, kDestination, kBystander };

  struct Counts {
    int rounds = 0;
    int kills[4] = {0, 0, 0, 0};  // by Victim
    int moved = 0;                // the source's copy gone: moved
    int resumed = 0;              // finished by ResumeMigration after a cut
    int stayed = 0;               // the move did not happen (or was undone)
    int errors = 0;               // MigrateWorld calls that returned an error
  };

  static void Kill(int i) { ASSERT_EQ(Cluster("kill " + dir_.string() + " " + std::to_string(i)), 0); }
  static void Restart(int i) { ASSERT_EQ(Cluster("restart " + dir_.string() + " " + std::to_string(i)), 0); }

  // DescribeWorld on an instance, retried while it recovers its journal.
  static absl::StatusOr<v1::WorldInfo> Describe(int i, const std::string& world) {
    v1::DescribeWorldRequest r;
    r.set_world_id(world);
    absl::StatusOr<v1::DescribeWorldResponse> d;
    for (int attempt = 0; attempt < 400; ++attempt) {
      d = client::ArbiterClient::Connect(instances_[i], Quick())->DescribeWorld(r);
      if (d.ok()) return d->world();
      if (d.status().code() != absl::StatusCode::kUnavailable || MovedTo(d.status())) break;
      std::this_thread::sleep_for(milliseconds(25));
    }
    return d.status();
  }

  // After a round's move and kill: finishes or leaves the move as an
  // operator would, and returns the world's owner.
  static int Settle(const std::string& world, int a, int b, Counts* counts) {
    for (int attempt = 0; attempt < 100; ++attempt) {
      absl::StatusOr<v1::WorldInfo> on_a = Describe(a, world);
      if (on_a.ok() && on_a->moving_to() == instances_[b]) {
        std::unique_ptr<client::ArbiterClient> from = Connect(instances_[a]), to = Connect(instances_[b]);
        if (client::ResumeMigration(*from, *to, world, instances_[b]).ok()) {
          ++counts->resumed;
          return b;
        }
      } else if (on_a.ok() && on_a->moving_to().empty()) {
        ++counts->stayed;
        return a;
      } else if (!on_a.ok() && MovedTo(on_a.status()) == instances_[b]) {
        ++counts->moved;
        return b;
      }
      std::this_thread::sleep_for(milliseconds(50));
    }
    ADD_FAILURE() << "world " << world << " did not settle between " << instances_[a] << " and " << instances_[b];
    return -1;
  }

  // Exactly one instance lists the world, and it alone takes writes.
  static void CheckOneOwner(const std::string& world, int owner, Monitor& monitor) {
    for (int i = 0; i < kInstances; ++i) {
      absl::StatusOr<v1::ListWorldsResponse> list;
      for (int attempt = 0; attempt < 400; ++attempt) {
        list = Connect(instances_[i])->ListWorlds();
        if (list.ok() || list.status().code() != absl::StatusCode::kUnavailable) break;
        std::this_thread::sleep_for(milliseconds(25));
      }
      ASSERT_TRUE(list.ok()) << instances_[i] << ": " << list.status();
      const bool listed = std::any_of(list->worlds().begin(), list->worlds().end(),
                                      [&](const v1::WorldInfo& w) { return w.world_id() == world; });
      EXPECT_EQ(listed, i == owner) << world << " on instance " << i << " (owner " << owner << ")";
      const std::optional<uint64_t> writable = WritableAt(instances_[i], world);
      EXPECT_EQ(writable.has_value(), i == owner) << world << " writable on instance " << i;
      if (writable) monitor.Record(world, *writable, i);
    }
  }

  // Every acknowledged step since `*checked` is on the owner, hash for hash,
  // in runs of consecutive ticks (a step applied whose reply was lost
  // leaves a gap: it happened, but nobody was told).
  static void CheckAcks(const std::string& world, int owner, Stepper& stepper, size_t* checked) {
    const std::vector<Ack> acks = stepper.AcksFrom(*checked);
    std::unique_ptr<client::ArbiterClient> c = Connect(instances_[owner]);
    for (size_t start = 0, end = 0; start < acks.size(); start = end) {
      v1::ReportHashesRequest report;
      report.set_world_id(world);
      report.set_first_tick(acks[start].tick);
      for (end = start; end < acks.size() && end - start < 200 &&
                        acks[end].tick == acks[start].tick + static_cast<int64_t>(end - start);
           ++end) {
        report.add_state_hashes(acks[end].hash);
      }
      absl::StatusOr<v1::ReportHashesResponse> same = c->ReportHashes(report);
      ASSERT_TRUE(same.ok()) << world << ": " << same.status();
      ASSERT_TRUE(same->in_sync()) << world << ": the acknowledged tick " << same->first_divergent_tick()
                                   << " differs on its owner " << instances_[owner];
    }
    *checked += acks.size();
  }
};

// Stops the load threads however the test body ends.
template <class Fn>
class Finally {
 public:
  explicit Finally(Fn fn) : fn_(std::move(fn)) {}
  ~Finally() { fn_(); }

 private:
  Fn fn_;
};

TEST_F(FleetChaos, MovesAndKills_NeverTwoWriters_NoAcknowledgedTickLost) {
  const uint64_t seed =
      EnvOr("ARBITER_CHAOS_SEED", static_cast<uint64_t>(Clock::now().time_since_epoch().count()) % 1000000007);
  const int rounds = static_cast<int>(EnvOr("ARBITER_CHAOS_ROUNDS", 25));
  std::cout << "chaos: seed " << seed << ", " << rounds << " rounds (ARBITER_CHAOS_SEED, ARBITER_CHAOS_ROUNDS)\n";
  std::mt19937_64 rng(seed);

  std::unique_ptr<client::ArbiterClient> proxy = Connect(proxy_);
  std::vector<int> owner(kWorlds);
  for (int w = 0; w < kWorlds; ++w) {
    v1::CreateWorldRequest create = SmallWorld(ChaosWorld(w));
    create.set_history_ticks(kHistoryTicks);
    ASSERT_THAT(proxy->CreateWorld(create), IsOk());
    owner[w] = OwnerOf(ChaosWorld(w));
    ASSERT_GE(owner[w], 0);
  }

  ClientLog log;
  std::vector<std::unique_ptr<Stepper>> steppers;
  for (int w = 0; w < kWorlds; ++w) steppers.push_back(std::make_unique<Stepper>(ChaosWorld(w), proxy_, &log));
  Querier q1(proxy_, seed + 1, &log), q2(proxy_, seed + 2, &log);
  Monitor monitor(instances_);
  bool running = true;
  const auto stop = [&] {
    if (!running) return;
    running = false;
    monitor.Stop();
    q1.Stop();
    q2.Stop();
    for (auto& s : steppers) s->Stop();
  };
  for (auto& s : steppers) s->Start();
  q1.Start();
  q2.Start();
  monitor.Start();
  const Finally stop_on_exit(stop);

  Counts counts;
  std::vector<size_t> checked(kWorlds, 0);
  for (int round = 0; round < rounds && !HasFatalFailure(); ++round) {
    const int w = static_cast<int>(rng() % kWorlds);
    const std::string world = ChaosWorld(w);
    const int a = owner[w];
    const int b = (a + 1 + static_cast<int>(rng() % (kInstances - 1))) % kInstances;
    const int bystander = 3 - a - b;
    const auto victim = static_cast<Victim>(rng() % 4);
    // Within the few milliseconds a move of these worlds takes (the freeze,
    // the export, the import, the delete), so kills land at every stage.
    const auto delay = std::chrono::microseconds(rng() % 8000);
    std::this_thread::sleep_for(milliseconds(20 + static_cast<int>(rng() % 60)));  // let the load run

    absl::StatusOr<client::MigrationReport> report = absl::UnknownError("not run");
    std::thread mover([&] {
      std::unique_ptr<client::ArbiterClient> from = client::ArbiterClient::Connect(instances_[a], Quick());
      std::unique_ptr<client::ArbiterClient> to = client::ArbiterClient::Connect(instances_[b], Quick());
      report = client::MigrateWorld(*from, *to, world, instances_[b]);
    });
    int killed = -1;
    if (victim != Victim::kNobody) {
      std::this_thread::sleep_for(delay);
      killed = victim == Victim::kSource ? a : victim == Victim::kDestination ? b : bystander;
      Kill(killed);
    }
    ++counts.kills[static_cast<int>(victim)];
    mover.join();
    if (!report.ok()) ++counts.errors;
    if (killed >= 0) Restart(killed);
    ASSERT_FALSE(HasFatalFailure());

    owner[w] = Settle(world, a, b, &counts);
    ASSERT_GE(owner[w], 0) << "round " << round << ", seed " << seed;
    for (int v = 0; v < kWorlds; ++v) {
      ASSERT_NO_FATAL_FAILURE(CheckOneOwner(ChaosWorld(v), owner[v], monitor)) << "round " << round;
      ASSERT_NO_FATAL_FAILURE(CheckAcks(ChaosWorld(v), owner[v], *steppers[v], &checked[v])) << "round " << round;
    }
    ++counts.rounds;
  }

  stop();
  for (int w = 0; w < kWorlds; ++w) ASSERT_NO_FATAL_FAILURE(CheckAcks(ChaosWorld(w), owner[w], *steppers[w], &checked[w]));

  uint64_t acked = 0, lost = 0;
  for (int w = 0; w < kWorlds; ++w) {
    acked += checked[w];
    lost += steppers[w]->lost_replies();
  }
  std::cout << "chaos: seed " << seed << ": " << counts.rounds << " rounds; kills: " << counts.kills[1]
            << " sources, " << counts.kills[2] << " destinations, " << counts.kills[3] << " bystanders ("
            << counts.kills[0] << " rounds without); moves: " << counts.moved << " finished by MigrateWorld, "
            << counts.resumed << " finished by ResumeMigration, " << counts.stayed << " did not happen (" << counts.errors << " MigrateWorld calls failed); "
            << acked << " acknowledged ticks checked on their owners; " << lost
            << " steps applied whose reply was lost; " << q1.answered() + q2.answered() << " queries answered; "
            << monitor.probes() << " write probes; client retries " << log.retries << "; codes:";
  for (const auto& [code, n] : log.codes) std::cout << " " << code << "=" << n;
  std::cout << "\n";

  EXPECT_EQ(counts.rounds, rounds);
  EXPECT_GT(acked, 0u);
  const std::vector<std::string> violations = monitor.violations();
  EXPECT_TRUE(violations.empty()) << violations.front() << " (seed " << seed << ")";
  EXPECT_TRUE(log.undocumented.empty()) << log.undocumented.front() << " (seed " << seed << ")";
}

}  // namespace
}  // namespace arbiter::testing
