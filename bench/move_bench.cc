// move_bench: movement validation against hit validation on arena-10k
// (issue 17). ValidateMove's cost per judged step is one World::MoveAndSlide
// (plus a history lookup, shared with every past-tick query); ValidateHit's
// per shot is one CastRayAll. Both are run here in-process, single thread,
// on the same world:
//  - moves: each disk sweep of the standard query set as a mover (the disk
//    from its centre by its translation, skin 1/64, 4 iterations);
//  - shots: each ray of the standard query set through CastRayAll.
// Printed: moves/s, shots/s and their ratio, and what the moves did
// (slid, blocked, planes met, casts made). Wall-clock on a possibly shared
// machine: compare the ratio of one run, not absolute numbers across runs.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "arbiter/core/world.h"
#include "arbiter/scene/scene.h"
#include "standard_files.h"

namespace arbiter::bench {
namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  std::string scene = FindStandardFile("arena-10k.scene.json");
  std::string queries = FindStandardFile("arena-10k.queries.json");
  size_t limit = 0;  // 0: every query
  int reps = 3;
};

bool Parse(int argc, char** argv, Options* o) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool has_value = i + 1 < argc;
    if (a == "--scene" && has_value) {
      o->scene = argv[++i];
    } else if (a == "--queries" && has_value) {
      o->queries = argv[++i];
    } else if (a == "--quick") {
      o->limit = 1000;
      o->reps = 1;
    } else if (a == "--reps" && has_value) {
      o->reps = std::max(1, std::atoi(argv[++i]));
    } else {
      std::fprintf(stderr, "usage: move_bench [--scene FILE] [--queries FILE] [--quick] [--reps N]\n");
      return false;
    }
  }
  return true;
}

struct MoveTally {
  size_t moves = 0, slid = 0, blocked = 0, planes = 0, casts = 0;
  uint64_t checksum = 0;
};

template <class Run>
double BestRate(size_t n, int reps, Run run) {
  double best = 0;
  for (int r = 0; r < reps; ++r) {
    const auto start = Clock::now();
    run();
    const double s = std::chrono::duration<double>(Clock::now() - start).count();
    if (s > 0) best = std::max(best, static_cast<double>(n) / s);
  }
  return best;
}

int Run(const Options& o) {
  scene::Scene sc;
  scene::QuerySet qs;
  if (Status s = scene::LoadSceneFile(o.scene, &sc); !s.ok()) {
    std::fprintf(stderr, "move_bench: %s\n", s.message().c_str());
    return 1;
  }
  if (Status s = scene::LoadQuerySetFile(o.queries, &qs); !s.ok()) {
    std::fprintf(stderr, "move_bench: %s\n", s.message().c_str());
    return 1;
  }
  World world(sc.world);
  if (Status s = world.AddBodies(sc.bodies); !s.ok()) {
    std::fprintf(stderr, "move_bench: AddBodies: %s\n", s.message().c_str());
    return 1;
  }
  const size_t moves = o.limit ? std::min(o.limit, qs.sweeps.size()) : qs.sweeps.size();
  const size_t shots = o.limit ? std::min(o.limit, qs.rays.size()) : qs.rays.size();
  std::vector<MoveInput> inputs(moves);
  for (size_t i = 0; i < moves; ++i) {
    inputs[i].shape = Shape::FromCircle({Vec2{}, qs.sweeps[i].radius});
    inputs[i].start = {qs.sweeps[i].center, kRotIdentity};
    inputs[i].translation = qs.sweeps[i].translation;
    if (Status s = ValidateMoveInput(inputs[i], "move"); !s.ok()) {
      std::fprintf(stderr, "move_bench: sweep %zu: %s\n", i, s.message().c_str());
      return 1;
    }
  }
  MoveTally tally;
  const double move_rate = BestRate(moves, o.reps, [&] {
    tally = {};
    for (const MoveInput& in : inputs) {
      const MoveResult r = world.MoveAndSlide(in);
      ++tally.moves;
      tally.blocked += r.blocked;
      tally.slid += !r.blocked && !r.planes.empty();
      tally.planes += r.planes.size();
      tally.casts += static_cast<size_t>(r.iterations);
      tally.checksum = tally.checksum * 31 + static_cast<uint64_t>(r.position.x.raw() ^ r.position.y.raw());
    }
  });
  size_t hits = 0;
  const double shot_rate = BestRate(shots, o.reps, [&] {
    hits = 0;
    for (size_t i = 0; i < shots; ++i) hits += world.CastRayAll(qs.rays[i]).size();
  });
  std::printf("arena-10k (%zu bodies), one thread, best of %d\n", world.body_count(), o.reps);
  std::printf("  moves validated (MoveAndSlide, %zu disk movers): %10.0f /s\n", moves, move_rate);
  std::printf("  shots validated (CastRayAll,   %zu rays):        %10.0f /s\n", shots, shot_rate);
  std::printf("  moves / shots: %.2f\n", shot_rate > 0 ? move_rate / shot_rate : 0.0);
  std::printf("  the moves: %zu slid, %zu blocked, %.2f planes and %.2f casts per move (checksum %llu)\n",
              tally.slid, tally.blocked, static_cast<double>(tally.planes) / static_cast<double>(moves),
              static_cast<double>(tally.casts) / static_cast<double>(moves),
              static_cast<unsigned long long>(tally.checksum));
  std::printf("  the shots: %.2f hits per ray\n", static_cast<double>(hits) / static_cast<double>(shots));
  // A smoke run that moved nothing into anything measured nothing.
  return tally.planes > 0 && hits > 0 ? 0 : 1;
}

}  // namespace
}  // namespace arbiter::bench

int main(int argc, char** argv) {
  arbiter::bench::Options o;
  if (!arbiter::bench::Parse(argc, argv, &o)) return 2;
  return arbiter::bench::Run(o);
}
