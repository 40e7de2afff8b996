// peer_bench: Arbiter against Box2D 2.4.1 and Chipmunk 7 (and Box2D v3 when
// built with -DARBITER_BOX2D3_DIR), in one run, on the same scene and query
// files (scenes/FORMAT.md).
//
// For each query set (rays, boxes, disks, sweeps) it reports queries per
// second of every engine (single thread, std::chrono::steady_clock, best of
// --reps repetitions over the set), the ratio Arbiter / peer, and how often
// each peer's answer agrees with Arbiter's. With --growth DIR it adds the
// cost-growth table of rays on arena-1k/10k/100k(/1M) (generated on demand
// with scenes/generate.py --arena N) and the memory per body. A peer too
// slow to answer a whole set within --budget seconds per repetition is
// timed and compared on a prefix of it (its rate marked *).
//
// Exit status: 0 on success; 1 when on some query set the agreement of
// Arbiter with EVERY peer is below 50%; 2 on a usage, loading or build
// error.
//
// Floating point is fine here: the peers are float/double engines. Arbiter
// answers from its World with the file's values as Fixed (the QuerySet of the
// scene library); the peers get the same values through Fixed::ToDouble().

#include <malloc.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "standard_files.h"
#include "arbiter/scene/scene.h"
#include "peers/arbiter_peer.h"
#include "peers/box2d_peer.h"
#ifdef ARBITER_HAVE_BOX2D3
#include "peers/box2d3_peer.h"
#endif
#include "peers/chipmunk_peer.h"
#include "peers/peer.h"

#ifndef ARBITER_SOURCE_DIR
#define ARBITER_SOURCE_DIR "."
#endif
#ifndef ARBITER_SHARED_DIR
#define ARBITER_SHARED_DIR "../shared"
#endif

namespace arbiter::bench {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// ---- Options ----------------------------------------------------------------

struct Options {
  std::string scene_path;
  std::string queries_path;
  size_t limit = 0;  // 0: every query
  int reps = 3;
  std::string growth_dir;  // empty: no growth table
  uint64_t max_bodies = 100000;
  double hash_dim = 16.0;
  std::string generator;
  double tolerance = 1e-4;
  int show = 0;  // disagreements printed per set and peer
  double budget = 2.0;  // seconds per repetition a peer may take on one set
  std::string profile_set;  // non-empty: answer this set with Arbiter alone, for perf record
  double profile_seconds = 5.0;
};

void Usage() {
  std::printf(
      "usage: peer_bench [--scene FILE --queries FILE] [--quick | --limit N] [--reps N]\n"
      "                  [--growth DIR [--max-bodies N] [--generator generate.py]]\n"
      "                  [--hash-dim D] [--tolerance T] [--show N] [--budget S]\n"
      "  --scene/--queries  scene and query files (default: arena-10k from scenes/ or ../shared/scenes/)\n"
      "  --quick            the first 2000 queries of each set (smoke test)\n"
      "  --limit N          the first N queries of each set\n"
      "  --reps N           timed repetitions per set, best kept (default 3)\n"
      "  --growth DIR       ray cost growth on arena-1k/10k/100k/1M in DIR (missing files are\n"
      "                     generated there with python3 generate.py DIR --arena N)\n"
      "  --max-bodies N     largest arena size for --growth (default 100000; 1000000 adds arena-1M)\n"
      "  --generator PATH   generate.py to use (default: scenes/generate.py, else ../shared/scenes/)\n"
      "  --hash-dim D       Chipmunk spatial hash cell size (default 16)\n"
      "  --tolerance T      fraction tolerance for cast agreement (default 1e-4)\n"
      "  --show N           print the first N disagreements per set and peer\n"
      "  --budget S         a peer that would take over S seconds (default 2) per repetition of a set is\n"
      "                     timed and compared on the prefix of the set that fits (rates marked *)\n"
      "  --profile SET      after loading, answer SET (rays, aabbs, circles or sweeps) with Arbiter alone,\n"
      "                     over and over for --profile-seconds (default 5), then exit: for perf record\n");
}

bool ParseOptions(int argc, char** argv, Options* o) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](const char* name) -> const char* {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "peer_bench: %s needs a value\n", name);
        return nullptr;
      }
      return argv[++i];
    };
    const char* v = nullptr;
    if (a == "--scene") {
      if (!(v = value("--scene"))) return false;
      o->scene_path = v;
    } else if (a == "--queries") {
      if (!(v = value("--queries"))) return false;
      o->queries_path = v;
    } else if (a == "--quick") {
      o->limit = 2000;
    } else if (a == "--limit") {
      if (!(v = value("--limit"))) return false;
      o->limit = std::strtoull(v, nullptr, 10);
    } else if (a == "--reps") {
      if (!(v = value("--reps"))) return false;
      o->reps = std::max(1, std::atoi(v));
    } else if (a == "--growth") {
      if (!(v = value("--growth"))) return false;
      o->growth_dir = v;
    } else if (a == "--max-bodies") {
      if (!(v = value("--max-bodies"))) return false;
      o->max_bodies = std::strtoull(v, nullptr, 10);
    } else if (a == "--generator") {
      if (!(v = value("--generator"))) return false;
      o->generator = v;
    } else if (a == "--hash-dim") {
      if (!(v = value("--hash-dim"))) return false;
      o->hash_dim = std::atof(v);
      if (!(o->hash_dim > 0)) {
        std::fprintf(stderr, "peer_bench: --hash-dim must be positive\n");
        return false;
      }
    } else if (a == "--tolerance") {
      if (!(v = value("--tolerance"))) return false;
      o->tolerance = std::atof(v);
    } else if (a == "--budget") {
      if (!(v = value("--budget"))) return false;
      o->budget = std::atof(v);
    } else if (a == "--profile") {
      if (!(v = value("--profile"))) return false;
      o->profile_set = v;
    } else if (a == "--profile-seconds") {
      if (!(v = value("--profile-seconds"))) return false;
      o->profile_seconds = std::atof(v);
    } else if (a == "--show") {
      if (!(v = value("--show"))) return false;
      o->show = std::atoi(v);
    } else if (a == "-h" || a == "--help") {
      Usage();
      std::exit(0);
    } else {
      std::fprintf(stderr, "peer_bench: unknown argument %s\n", a.c_str());
      return false;
    }
  }
  return true;
}

// ---- Memory -------------------------------------------------------------------

// Resident set size in bytes, after returning free heap pages to the system
// so that the difference of two readings counts what was built in between.
int64_t TrimmedRss() {
  malloc_trim(0);
  std::ifstream statm("/proc/self/statm");
  int64_t size = 0, resident = 0;
  statm >> size >> resident;
  return resident * static_cast<int64_t>(sysconf(_SC_PAGESIZE));
}

// ---- Engines --------------------------------------------------------------------

struct Engine {
  std::unique_ptr<Peer> peer;
  double build_seconds = 0;
  int64_t rss_bytes = 0;  // RSS growth while building
};

// Engines in table order; Box2D v3 is last and only there when built in.
enum PeerIndex { kArbiter = 0, kBox2d = 1, kCpTree = 2, kCpHash = 3, kBox2d3 = 4 };
#ifdef ARBITER_HAVE_BOX2D3
constexpr int kEngineCount = 5;
#else
constexpr int kEngineCount = 4;
#endif
// Column heads: queries per second, and the agreement of each peer.
constexpr const char* kColumn[] = {"Arbiter", "Box2D", "Cp-tree", "Cp-hash", "Box2D3"};
constexpr const char* kAgreeColumn[] = {"", "agr B2D", "agr CpT", "agr CpH", "agr B2D3"};

bool BuildEngines(const scene::Scene& scene, const scene::QuerySet& queries, const Options& o,
                  std::vector<Engine>* engines) {
  engines->clear();
  engines->resize(kEngineCount);
  (*engines)[kArbiter].peer = std::make_unique<ArbiterPeer>();
  (*engines)[kBox2d].peer = std::make_unique<Box2dPeer>();
  (*engines)[kCpTree].peer = std::make_unique<ChipmunkPeer>(ChipmunkPeer::Index::kBBTree);
  (*engines)[kCpHash].peer = std::make_unique<ChipmunkPeer>(ChipmunkPeer::Index::kSpatialHash, o.hash_dim);
#ifdef ARBITER_HAVE_BOX2D3
  (*engines)[kBox2d3].peer = MakeBox2d3Peer();
#endif
  for (Engine& e : *engines) {
    std::string error;
    const int64_t before = TrimmedRss();
    const auto t0 = Clock::now();
    const bool ok = e.peer->Build(scene, &error);
    e.build_seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    e.rss_bytes = TrimmedRss() - before;
    if (!ok) {
      std::fprintf(stderr, "peer_bench: building %s failed: %s\n", e.peer->Name().c_str(), error.c_str());
      return false;
    }
  }
  for (Engine& e : *engines) e.peer->Prepare(queries);
  return true;
}

// ---- Query sets ------------------------------------------------------------------

enum class Kind { kRays, kAabbs, kDisks, kSweeps };
constexpr Kind kKinds[] = {Kind::kRays, Kind::kAabbs, Kind::kDisks, Kind::kSweeps};

const char* KindName(Kind k) {
  switch (k) {
    case Kind::kRays: return "rays";
    case Kind::kAabbs: return "aabbs";
    case Kind::kDisks: return "circles";
    case Kind::kSweeps: return "sweeps";
  }
  return "?";
}

bool IsCast(Kind k) { return k == Kind::kRays || k == Kind::kSweeps; }

size_t SetSize(const scene::QuerySet& q, Kind k) {
  switch (k) {
    case Kind::kRays: return q.rays.size();
    case Kind::kAabbs: return q.aabbs.size();
    case Kind::kDisks: return q.disks.size();
    case Kind::kSweeps: return q.sweeps.size();
  }
  return 0;
}

size_t Limited(size_t n, const Options& o) { return o.limit ? std::min(n, o.limit) : n; }

uint64_t g_sink = 0;  // keeps the timed answers observable
// Largest wall / thread-CPU time ratio among the kept (best) repetitions: when
// well above 1 the thread was descheduled (a busy machine) and the rates are low.
double g_worst_wall_over_cpu = 1.0;

double ThreadCpuSeconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

struct Timing {
  double wall = 0;
  double cpu = 0;
};

// Seconds to answer queries [0, n) of kind k once.
Timing RunOnce(Peer& p, Kind k, size_t n) {
  std::vector<uint64_t> ids;
  ids.reserve(256);
  uint64_t acc = 0;
  const double c0 = ThreadCpuSeconds();
  const auto t0 = Clock::now();
  switch (k) {
    case Kind::kRays:
      for (size_t i = 0; i < n; ++i) {
        const CastAnswer a = p.Ray(i);
        acc += a.hit ? a.body_id : 0;
      }
      break;
    case Kind::kAabbs:
      for (size_t i = 0; i < n; ++i) {
        ids.clear();
        p.Aabb(i, &ids);
        acc += ids.size();
      }
      break;
    case Kind::kDisks:
      for (size_t i = 0; i < n; ++i) {
        ids.clear();
        p.Disk(i, &ids);
        acc += ids.size();
      }
      break;
    case Kind::kSweeps:
      for (size_t i = 0; i < n; ++i) {
        const CastAnswer a = p.Sweep(i);
        acc += a.hit ? a.body_id : 0;
      }
      break;
  }
  const double s = std::chrono::duration<double>(Clock::now() - t0).count();
  const double c = ThreadCpuSeconds() - c0;
  g_sink += acc;
  return {s, c};
}

// How many of the set's first n queries each engine answers: all, except
// for a peer whose sampled rate says it would take over `budget` seconds per
// repetition (a swept-box query over long sweeps can cost a peer
// milliseconds each); it gets the prefix that fits. The queries of a set are
// drawn independently, so a prefix measures the same rate. Arbiter, the
// reference of every agreement, always answers all n.
std::vector<size_t> FitToBudget(std::vector<Engine>& engines, Kind k, size_t n, double budget) {
  constexpr size_t kProbe = 32;
  std::vector<size_t> counts(engines.size(), n);
  for (size_t e = 1; e < engines.size() && n > kProbe; ++e) {
    const double per_query = RunOnce(*engines[e].peer, k, kProbe).wall / static_cast<double>(kProbe);
    if (per_query * static_cast<double>(n) > budget) {
      counts[e] = std::clamp(static_cast<size_t>(budget / per_query), kProbe, n);
    }
  }
  return counts;
}

// Best-of-reps seconds per engine for its counts[e] queries; repetitions
// interleave the engines so that a slow spell of the machine does not land
// on one engine only.
std::vector<double> TimeSet(std::vector<Engine>& engines, Kind k, const std::vector<size_t>& counts, int reps) {
  std::vector<Timing> best(engines.size(), Timing{1e300, 1e300});
  for (int r = 0; r < reps; ++r) {
    for (size_t e = 0; e < engines.size(); ++e) {
      const Timing t = RunOnce(*engines[e].peer, k, counts[e]);
      if (t.wall < best[e].wall) best[e] = t;
    }
  }
  std::vector<double> wall;
  for (const Timing& t : best) {
    wall.push_back(t.wall);
    if (t.cpu > 0 && t.wall > 1e-3) g_worst_wall_over_cpu = std::max(g_worst_wall_over_cpu, t.wall / t.cpu);
  }
  return wall;
}

// ---- Agreement ----------------------------------------------------------------------

struct Agreement {
  size_t n = 0;
  size_t agree = 0;
  // Casts.
  size_t same_body = 0;       // both miss, or both hit the same body (any fraction)
  size_t both_miss = 0;
  size_t tie = 0;             // both hit at the same t (within tolerance), different bodies
  size_t start_inside = 0;    // Arbiter hit at t = 0, peer disagrees otherwise
  size_t arbiter_only = 0;    // Arbiter hit (t > 0), peer missed
  size_t peer_only = 0;       // peer hit, Arbiter missed
  size_t other_body = 0;      // both hit, different bodies (t > 0 for Arbiter)
  size_t fraction_off = 0;    // same body, |dt| > tolerance
  double max_same_body_dt = 0;
  // Overlaps.
  size_t peer_missing = 0;    // peer's set a strict subset of Arbiter's
  size_t peer_extra = 0;      // peer's set a strict superset
  size_t mixed = 0;           // both have ids the other lacks
  size_t arbiter_ids = 0;     // total ids Arbiter reported

  double Percent() const { return n ? 100.0 * static_cast<double>(agree) / static_cast<double>(n) : 100.0; }
  double SameBodyPercent() const {
    return n ? 100.0 * static_cast<double>(same_body) / static_cast<double>(n) : 100.0;
  }
};

void Normalize(std::vector<uint64_t>* ids) {
  std::sort(ids->begin(), ids->end());
  ids->erase(std::unique(ids->begin(), ids->end()), ids->end());
}

bool CompareCast(const CastAnswer& a, const CastAnswer& p, double tol, Agreement* g) {
  ++g->n;
  if (!a.hit && !p.hit) {
    ++g->agree;
    ++g->same_body;
    ++g->both_miss;
    return true;
  }
  if (a.hit && p.hit && a.body_id == p.body_id) {
    ++g->same_body;
    const double dt = std::fabs(a.fraction - p.fraction);
    g->max_same_body_dt = std::max(g->max_same_body_dt, dt);
    if (dt <= tol) {
      ++g->agree;
      return true;
    }
  }
  if (a.hit && p.hit && a.body_id != p.body_id && std::fabs(a.fraction - p.fraction) <= tol) {
    ++g->tie;
  } else if (a.hit && a.fraction == 0.0) {
    ++g->start_inside;
  } else if (a.hit && !p.hit) {
    ++g->arbiter_only;
  } else if (!a.hit && p.hit) {
    ++g->peer_only;
  } else if (a.body_id != p.body_id) {
    ++g->other_body;
  } else {
    ++g->fraction_off;
  }
  return false;
}

bool CompareOverlap(const std::vector<uint64_t>& a, const std::vector<uint64_t>& p, Agreement* g) {
  ++g->n;
  g->arbiter_ids += a.size();
  if (a == p) {
    ++g->agree;
    return true;
  }
  const bool p_in_a = std::includes(a.begin(), a.end(), p.begin(), p.end());
  const bool a_in_p = std::includes(p.begin(), p.end(), a.begin(), a.end());
  if (p_in_a) {
    ++g->peer_missing;
  } else if (a_in_p) {
    ++g->peer_extra;
  } else {
    ++g->mixed;
  }
  return false;
}

std::string DescribeQuery(const scene::QuerySet& q, Kind k, size_t i) {
  char buf[200];
  auto d = [](Fixed f) { return f.ToDouble(); };
  switch (k) {
    case Kind::kRays:
      std::snprintf(buf, sizeof buf, "ray origin (%.10g, %.10g) translation (%.10g, %.10g)", d(q.rays[i].origin.x),
                    d(q.rays[i].origin.y), d(q.rays[i].translation.x), d(q.rays[i].translation.y));
      break;
    case Kind::kAabbs:
      std::snprintf(buf, sizeof buf, "box (%.10g, %.10g)-(%.10g, %.10g)", d(q.aabbs[i].lower.x),
                    d(q.aabbs[i].lower.y), d(q.aabbs[i].upper.x), d(q.aabbs[i].upper.y));
      break;
    case Kind::kDisks:
      std::snprintf(buf, sizeof buf, "disk (%.10g, %.10g) r %.10g", d(q.disks[i].center.x), d(q.disks[i].center.y),
                    d(q.disks[i].radius));
      break;
    case Kind::kSweeps:
      std::snprintf(buf, sizeof buf, "disk (%.10g, %.10g) r %.10g translation (%.10g, %.10g)",
                    d(q.sweeps[i].center.x), d(q.sweeps[i].center.y), d(q.sweeps[i].radius),
                    d(q.sweeps[i].translation.x), d(q.sweeps[i].translation.y));
      break;
  }
  return buf;
}

std::string DescribeCast(const CastAnswer& a) {
  if (!a.hit) return "miss";
  char buf[64];
  std::snprintf(buf, sizeof buf, "body %llu t %.9f", static_cast<unsigned long long>(a.body_id), a.fraction);
  return buf;
}

std::string DescribeIds(const std::vector<uint64_t>& ids) {
  std::string s = "{";
  for (size_t i = 0; i < ids.size(); ++i) s += (i ? ", " : "") + std::to_string(ids[i]);
  return s + "}";
}

// Agreement of every peer (engines[1..]) with Arbiter (engines[0]); prints
// the first `show` disagreements of each peer.
// counts[e]: the queries engine e answers (counts[0], Arbiter's, is every one).
std::vector<Agreement> CompareSet(std::vector<Engine>& engines, const scene::QuerySet& queries, Kind k,
                                  const std::vector<size_t>& counts, double tol, int show) {
  const size_t n = counts[0];
  std::vector<Agreement> out(engines.size());
  std::vector<int> shown(engines.size(), 0);
  std::vector<uint64_t> ref, ids;
  auto report = [&](size_t e, size_t i, const std::string& arbiter, const std::string& peer) {
    if (shown[e]++ >= show) return;
    std::printf("  disagreement %s[%zu] %s: Arbiter %s, %s %s\n", KindName(k), i, DescribeQuery(queries, k, i).c_str(),
                arbiter.c_str(), engines[e].peer->Name().c_str(), peer.c_str());
  };
  for (size_t i = 0; i < n; ++i) {
    if (IsCast(k)) {
      const CastAnswer a = k == Kind::kRays ? engines[0].peer->Ray(i) : engines[0].peer->Sweep(i);
      for (size_t e = 1; e < engines.size(); ++e) {
        if (i >= counts[e]) continue;
        const CastAnswer p = k == Kind::kRays ? engines[e].peer->Ray(i) : engines[e].peer->Sweep(i);
        if (!CompareCast(a, p, tol, &out[e])) report(e, i, DescribeCast(a), DescribeCast(p));
      }
    } else {
      ref.clear();
      if (k == Kind::kAabbs) engines[0].peer->Aabb(i, &ref); else engines[0].peer->Disk(i, &ref);
      Normalize(&ref);
      for (size_t e = 1; e < engines.size(); ++e) {
        if (i >= counts[e]) continue;
        ids.clear();
        if (k == Kind::kAabbs) engines[e].peer->Aabb(i, &ids); else engines[e].peer->Disk(i, &ids);
        Normalize(&ids);
        if (!CompareOverlap(ref, ids, &out[e])) report(e, i, DescribeIds(ref), DescribeIds(ids));
      }
    }
  }
  return out;
}

// ---- Formatting ----------------------------------------------------------------------

std::string Rate(double qps) {
  char buf[32];
  if (qps >= 1e6) {
    std::snprintf(buf, sizeof buf, "%.2fM", qps / 1e6);
  } else if (qps < 1e4) {
    std::snprintf(buf, sizeof buf, "%.0f", qps);
  } else {
    std::snprintf(buf, sizeof buf, "%.0fk", qps / 1e3);
  }
  return buf;
}

std::string Bytes(double b) {
  char buf[32];
  if (b >= 1 << 30) std::snprintf(buf, sizeof buf, "%.2f GiB", b / (1 << 30));
  else if (b >= 1 << 20) std::snprintf(buf, sizeof buf, "%.1f MiB", b / (1 << 20));
  else if (b >= 1 << 10) std::snprintf(buf, sizeof buf, "%.1f KiB", b / (1 << 10));
  else std::snprintf(buf, sizeof buf, "%.0f B", b);
  return buf;
}

// ---- Loading ----------------------------------------------------------------------------

bool Load(const std::string& scene_path, const std::string& queries_path, scene::Scene* s, scene::QuerySet* q) {
  Status st = scene::LoadSceneFile(scene_path, s);
  if (!st.ok()) {
    std::fprintf(stderr, "peer_bench: %s: %s\n", scene_path.c_str(), st.message().c_str());
    return false;
  }
  st = scene::LoadQuerySetFile(queries_path, q);
  if (!st.ok()) {
    std::fprintf(stderr, "peer_bench: %s: %s\n", queries_path.c_str(), st.message().c_str());
    return false;
  }
  return true;
}

size_t ShapeCount(const scene::Scene& s) {
  size_t n = 0;
  for (const BodyDef& b : s.bodies) n += b.shapes.size();
  return n;
}

// ---- The main comparison ---------------------------------------------------------------

// One query set's rates and agreements, indexed by PeerIndex.
struct Row {
  Kind kind;
  std::vector<size_t> counts;  // queries answered per engine (FitToBudget)
  std::vector<double> qps;
  std::vector<Agreement> agree;
};

// The queries-per-second table. False when on some set Arbiter agrees with
// no peer on half of the queries (the files or an engine are broken).
bool PrintRateTable(const std::vector<Row>& rows) {
  std::printf("%-8s %6s |", "set", "n");
  for (int e = 0; e < kEngineCount; ++e) std::printf(" %9s", kColumn[e]);
  std::printf(" | %7s %7s%s %7s |", "A/B2D", "A/Cp", kEngineCount > kBox2d3 ? "  A/B2D3" : "", "A/best");
  for (int e = kBox2d; e < kEngineCount; ++e) std::printf(" %8s", kAgreeColumn[e]);
  std::printf("\n%s\n", std::string(kEngineCount > kBox2d3 ? 145 : 121, '-').c_str());
  bool sane = true, budgeted = false;
  for (const Row& r : rows) {
    const double a = r.qps[kArbiter];
    const double cp = std::max(r.qps[kCpTree], r.qps[kCpHash]);
    double best = 0, best_agree = 0;
    for (int e = kBox2d; e < kEngineCount; ++e) {
      best = std::max(best, r.qps[e]);
      best_agree = std::max(best_agree, r.agree[e].Percent());
    }
    std::printf("%-8s %6zu |", KindName(r.kind), r.counts[kArbiter]);
    for (int e = 0; e < kEngineCount; ++e) {
      const bool prefix = r.counts[e] < r.counts[kArbiter];
      std::printf(" %9s", (Rate(r.qps[e]) + (prefix ? "*" : "")).c_str());
      if (prefix) budgeted = true;
    }
    std::printf(" | %7.2f %7.2f", a / r.qps[kBox2d], a / cp);
    if (kEngineCount > kBox2d3) std::printf(" %7.2f", a / r.qps[kBox2d3]);
    std::printf(" %7.2f |", a / best);
    for (int e = kBox2d; e < kEngineCount; ++e) std::printf(" %7.1f%%", r.agree[e].Percent());
    std::printf("\n");
    if (best_agree < 50.0) sane = false;
  }
  if (budgeted) std::printf("* timed and compared on a prefix of the set (--budget; counts in the detail below)\n");
  return sane;
}


// --profile: Arbiter alone on one set, repeated, so that a profiler's
// samples are the queries' and not the peers' or the loading's.
int RunProfile(const Options& o) {
  const Kind* kind = std::find_if(std::begin(kKinds), std::end(kKinds),
                                  [&](Kind k) { return o.profile_set == KindName(k); });
  if (kind == std::end(kKinds)) {
    std::fprintf(stderr, "peer_bench: --profile takes rays, aabbs, circles or sweeps, not '%s'\n", o.profile_set.c_str());
    return 2;
  }
  scene::Scene scene;
  scene::QuerySet queries;
  if (!Load(o.scene_path, o.queries_path, &scene, &queries)) return 2;
  ArbiterPeer arbiter;
  std::string error;
  if (!arbiter.Build(scene, &error)) {
    std::fprintf(stderr, "peer_bench: building Arbiter failed: %s\n", error.c_str());
    return 2;
  }
  arbiter.Prepare(queries);
  const size_t n = Limited(SetSize(queries, *kind), o);
  if (n == 0) {
    std::fprintf(stderr, "peer_bench: the query file has no %s\n", o.profile_set.c_str());
    return 2;
  }
  double wall = 0, cpu = 0;
  int reps = 0;
  while (wall < o.profile_seconds) {
    const Timing t = RunOnce(arbiter, *kind, n);
    wall += t.wall;
    cpu += t.cpu;
    ++reps;
  }
  std::printf("peer_bench --profile %s: %d x %zu queries, %.0f q/s (wall), %.0f q/s (thread cpu)\n",
              o.profile_set.c_str(), reps, n, static_cast<double>(n) * reps / wall, static_cast<double>(n) * reps / cpu);
  return 0;
}

int RunComparison(const Options& o) {
  scene::Scene scene;
  scene::QuerySet queries;
  const auto t0 = Clock::now();
  if (!Load(o.scene_path, o.queries_path, &scene, &queries)) return 2;
  const double load_s = std::chrono::duration<double>(Clock::now() - t0).count();

  std::printf("peer_bench: %s (%zu bodies, %zu shapes), queries %s\n", scene.name.c_str(), scene.bodies.size(),
              ShapeCount(scene), o.queries_path.c_str());
  std::printf("  loaded in %.2f s; %s; single thread, best of %d, steady_clock\n", load_s,
              o.limit ? ("first " + std::to_string(o.limit) + " queries per set").c_str() : "every query", o.reps);

  std::vector<Engine> engines;
  if (!BuildEngines(scene, queries, o, &engines)) return 2;
  std::printf("\nengines (build time, RSS growth while building):\n");
  for (const Engine& e : engines) {
    std::printf("  %-17s %7.3f s %10s  %s\n", e.peer->Name().c_str(), e.build_seconds,
                Bytes(static_cast<double>(e.rss_bytes)).c_str(), e.peer->Setup().c_str());
  }

  std::vector<Row> rows;
  for (Kind k : kKinds) {
    const size_t n = Limited(SetSize(queries, k), o);
    if (n == 0) continue;
    Row row{k, FitToBudget(engines, k, n, o.budget), {}, {}};
    const std::vector<double> seconds = TimeSet(engines, k, row.counts, o.reps);
    for (size_t e = 0; e < seconds.size(); ++e) row.qps.push_back(static_cast<double>(row.counts[e]) / seconds[e]);
    row.agree = CompareSet(engines, queries, k, row.counts, o.tolerance, o.show);
    rows.push_back(std::move(row));
  }
  if (rows.empty()) {
    std::fprintf(stderr, "peer_bench: the query file has no queries\n");
    return 2;
  }

  std::printf(
      "\nqueries per second (ratio = Arbiter q/s / peer q/s, > 1: Arbiter faster); agreement with Arbiter:\n"
      "casts agree when both miss or both hit the same body with |dt| <= %g; overlaps when the id sets are equal.\n"
      "Expected disagreement: Box2D ignores rays starting inside a shape (Arbiter: hit at t = 0), its polygons\n"
      "(boxes, capsule sides) carry a 0.01 skin, b2ShapeCast stops within ~0.005 of contact (and misses some\n"
      "starting overlaps) and its float circle ray cast can graze-hit from afar; Chipmunk's point query leaves out\n"
      "shapes exactly touching a disk, its capsule (segment with radius) ray and sweep test the end caps only when\n"
      "the side is missed (they can overshoot to the side), and its ties at t = 0 may go to another body. Box2D v3\n"
      "(Box2D3) has no polygon skin, but its b2ShapeCast also stops short of contact (by up to its linear slop,\n"
      "0.005) and its overlaps count shapes within 0.0005 of the query.\n\n",
      o.tolerance);
  std::printf(
      "Cp-tree = Chipmunk(bbtree), Cp-hash = Chipmunk(spatial hash), Box2D3 = Box2D v3 (when built in); A/B2D =\n"
      "Arbiter/Box2D, A/Cp = Arbiter/faster Chipmunk index, A/best = Arbiter/best peer; agr = agreement with "
      "Arbiter.\n\n");
  const bool sane = PrintRateTable(rows);
  std::printf("\nagreement in detail (counts out of n):\n");
  for (const Row& r : rows) {
    for (int e = kBox2d; e < kEngineCount; ++e) {
      const Agreement& g = r.agree[e];
      const std::string name = engines[e].peer->Name();
      if (IsCast(r.kind)) {
        std::printf(
            "  %-8s %-17s agree %zu/%zu (%.2f%%), same body %.2f%%; both miss %zu; disagree: tie (same t, other "
            "body) %zu, Arbiter t=0 (start inside) %zu, Arbiter-only %zu, peer-only %zu, other body %zu, "
            "same body |dt|>tol %zu; max |dt| same body %.2g\n",
            KindName(r.kind), name.c_str(), g.agree, g.n, g.Percent(), g.SameBodyPercent(), g.both_miss, g.tie,
            g.start_inside, g.arbiter_only, g.peer_only, g.other_body, g.fraction_off, g.max_same_body_dt);
      } else {
        std::printf(
            "  %-8s %-17s equal sets %zu/%zu (%.2f%%); peer missing ids %zu, peer extra ids %zu, mixed %zu; "
            "Arbiter %.2f ids/query\n",
            KindName(r.kind), name.c_str(), g.agree, g.n, g.Percent(), g.peer_missing, g.peer_extra, g.mixed,
            static_cast<double>(g.arbiter_ids) / static_cast<double>(g.n));
      }
    }
  }
  if (!sane) {
    std::fprintf(stderr,
                 "peer_bench: FAILED: on some set Arbiter agrees with no peer on 50%% of the queries\n");
    return 1;
  }
  return 0;
}

// ---- Cost growth -----------------------------------------------------------------------

std::string FindGenerator(const Options& o) {
  if (!o.generator.empty()) return o.generator;
  const std::string repo = std::string(ARBITER_SOURCE_DIR) + "/scenes/generate.py";
  if (fs::exists(repo)) return repo;
  return std::string(ARBITER_SHARED_DIR) + "/scenes/generate.py";
}

std::string SizeLabel(uint64_t n) {
  if (n >= 1000000 && n % 1000000 == 0) return std::to_string(n / 1000000) + "M";
  if (n >= 1000 && n % 1000 == 0) return std::to_string(n / 1000) + "k";
  return std::to_string(n);
}

bool EnsureArena(const Options& o, uint64_t n, std::string* scene_path, std::string* queries_path) {
  const std::string base = o.growth_dir + "/arena-" + std::to_string(n);
  *scene_path = base + ".scene.json";
  *queries_path = base + ".queries.json";
  if (fs::exists(*scene_path) && fs::exists(*queries_path)) return true;
  std::error_code ec;
  fs::create_directories(o.growth_dir, ec);
  const std::string cmd =
      "python3 '" + FindGenerator(o) + "' '" + o.growth_dir + "' --arena " + std::to_string(n);
  std::printf("  generating arena-%s: %s\n", SizeLabel(n).c_str(), cmd.c_str());
  std::fflush(stdout);
  if (std::system(cmd.c_str()) != 0 || !fs::exists(*scene_path) || !fs::exists(*queries_path)) {
    std::fprintf(stderr, "peer_bench: generating arena-%llu failed\n", static_cast<unsigned long long>(n));
    return false;
  }
  return true;
}

int RunGrowth(const Options& o) {
  std::vector<uint64_t> sizes;
  for (uint64_t n : {uint64_t{1000}, uint64_t{10000}, uint64_t{100000}, uint64_t{1000000}}) {
    if (n <= o.max_bodies) sizes.push_back(n);
  }
  std::printf("\ncost growth: rays on arena-N (N static shapes + N/10 dynamic, constant density), %s, in %s\n",
              o.limit ? ("first " + std::to_string(o.limit) + " rays").c_str() : "every ray", o.growth_dir.c_str());

  struct GrowthRow {
    uint64_t n;
    size_t bodies;
    size_t rays;
    std::vector<double> ns;  // per ray
    std::vector<double> agree;
    std::vector<double> rss_per_body;
    double arbiter_bytes_per_body;
  };
  std::vector<GrowthRow> rows;
  for (uint64_t n : sizes) {
    std::string scene_path, queries_path;
    if (!EnsureArena(o, n, &scene_path, &queries_path)) return 2;
    scene::Scene scene;
    scene::QuerySet queries;
    if (!Load(scene_path, queries_path, &scene, &queries)) return 2;
    std::vector<Engine> engines;
    if (!BuildEngines(scene, queries, o, &engines)) return 2;
    GrowthRow row{n, scene.bodies.size(), Limited(queries.rays.size(), o), {}, {}, {}, 0};
    if (row.rays == 0) {
      std::fprintf(stderr, "peer_bench: %s has no rays\n", queries_path.c_str());
      return 2;
    }
    const std::vector<size_t> counts = FitToBudget(engines, Kind::kRays, row.rays, o.budget);
    const std::vector<double> seconds = TimeSet(engines, Kind::kRays, counts, o.reps);
    for (size_t e = 0; e < seconds.size(); ++e) row.ns.push_back(1e9 * seconds[e] / static_cast<double>(counts[e]));
    const std::vector<Agreement> agree = CompareSet(engines, queries, Kind::kRays, counts, o.tolerance, o.show);
    for (const Agreement& g : agree) row.agree.push_back(g.Percent());
    const double bodies = static_cast<double>(row.bodies);
    for (const Engine& e : engines) row.rss_per_body.push_back(static_cast<double>(e.rss_bytes) / bodies);
    row.arbiter_bytes_per_body =
        static_cast<double>(static_cast<const ArbiterPeer&>(*engines[kArbiter].peer).world().MemoryBytes()) / bodies;
    std::printf("  arena-%-5s %8zu bodies: built (s)", SizeLabel(n).c_str(), row.bodies);
    for (int e = 0; e < kEngineCount; ++e) std::printf("%s %s %.2f", e ? "," : "", kColumn[e], engines[e].build_seconds);
    std::printf("\n");
    std::fflush(stdout);
    rows.push_back(std::move(row));
  }

  std::printf("\nns per ray (lower is better); agreement of rays with Arbiter in brackets\n");
  std::printf("%-15s %8s | %10s", "scene", "bodies", kColumn[kArbiter]);
  for (int e = kBox2d; e < kEngineCount; ++e) std::printf(" %19s", kColumn[e]);
  std::printf("\n%s\n", std::string(38 + 20 * (kEngineCount - 1), '-').c_str());
  for (const GrowthRow& r : rows) {
    std::printf("%-15s %8zu | %10.0f", ("arena-" + SizeLabel(r.n)).c_str(), r.bodies, r.ns[kArbiter]);
    for (int e = kBox2d; e < kEngineCount; ++e) std::printf(" %10.0f (%5.1f%%)", r.ns[e], r.agree[e]);
    std::printf("\n");
  }
  if (rows.size() >= 2) {
    const GrowthRow& a = rows.front();
    const GrowthRow& b = rows.back();
    const std::string label = "cost " + SizeLabel(b.n) + "/" + SizeLabel(a.n);
    std::printf("%-15s %8s | %9.1fx", label.c_str(), "", b.ns[kArbiter] / a.ns[kArbiter]);
    for (int e = kBox2d; e < kEngineCount; ++e) std::printf(" %9.1fx%9s", b.ns[e] / a.ns[e], "");
    std::printf("\n");
  }

  std::printf(
      "\nmemory per body (bytes): Arbiter World::MemoryBytes() / bodies, and the RSS growth while building / bodies\n");
  std::printf("%-15s %8s | %10s %10s |", "scene", "bodies", "Arb Memory", "Arb RSS");
  for (int e = kBox2d; e < kEngineCount; ++e) std::printf(" %10s", (kColumn[e] + std::string(" RSS")).c_str());
  std::printf("\n%s\n", std::string(52 + 11 * (kEngineCount - 1), '-').c_str());
  for (const GrowthRow& r : rows) {
    std::printf("%-15s %8zu | %10.0f %10.0f |", ("arena-" + SizeLabel(r.n)).c_str(), r.bodies,
                r.arbiter_bytes_per_body, r.rss_per_body[kArbiter]);
    for (int e = kBox2d; e < kEngineCount; ++e) std::printf(" %10.0f", r.rss_per_body[e]);
    std::printf("\n");
  }
  return 0;
}

}  // namespace
}  // namespace arbiter::bench

int main(int argc, char** argv) {
  using namespace arbiter::bench;
  Options o;
  if (!ParseOptions(argc, argv, &o)) {
    Usage();
    return 2;
  }
  if (o.scene_path.empty() != o.queries_path.empty()) {
    std::fprintf(stderr, "peer_bench: give both --scene and --queries, or neither\n");
    return 2;
  }
  if (o.scene_path.empty()) {
    o.scene_path = arbiter::bench::FindStandardFile("arena-10k.scene.json");
    o.queries_path = arbiter::bench::FindStandardFile("arena-10k.queries.json");
  }
  if (!o.profile_set.empty()) return RunProfile(o);
  int rc = RunComparison(o);
  if (rc == 2) return rc;
  if (!o.growth_dir.empty()) {
    const int g = RunGrowth(o);
    if (g != 0) rc = g;
  }
  if (g_worst_wall_over_cpu > 1.15) {
    std::printf(
        "\nNOTE: the machine was busy: some kept repetition took %.2fx its thread CPU time, so rates are low and\n"
        "ratios noisy; rerun on an idle machine.\n",
        g_worst_wall_over_cpu);
  }
  std::printf("\n(checksum %llu)\n", static_cast<unsigned long long>(g_sink));
  return rc;
}
