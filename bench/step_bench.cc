// step_bench: the cost of a tick, Arbiter against Box2D 2.4.1 and
// Chipmunk 7, in one run, from the same scene file (default rain-2k: a
// walled floor, 320 static pegs and 2,000 dynamic circles and boxes falling
// onto them, 600 ticks at 60 Hz).
//
// Every engine builds its world from the file (bench/step/stepper.h says how
// each maps shapes and materials); then the engines are stepped in turn,
// tick by tick, each tick timed on its own (steady_clock and thread CPU
// time), so that a slow spell of a shared machine lands on every engine
// rather than on one. Reported per engine: mean wall and CPU milliseconds
// per tick, median and worst tick, the time ratio Arbiter / engine (below 1:
// Arbiter takes less time, i.e. is faster), and, as context for what each
// engine computed, the kinetic energy of the dynamic bodies at the last tick
// (sum of 1/2 m |v|^2, linear only), the fraction of them resting
// (|v| < 0.1) and how many left the static geometry's bounding box.
//
// Engines: Arbiter (World::Step), Box2D with sleeping off (it does the same
// work as Arbiter, which never sleeps), Chipmunk (10 iterations, never
// sleeps by default), Box2D v3 with sleeping off when step_bench is built
// with -DARBITER_BOX2D3_DIR (the scene's sub-steps and contact hertz, one
// thread and --step-threads workers), and, for context, Box2D with its
// default sleeping on.
//
// A second Arbiter row steps with a StepThreadPool (--step-threads, default
// 2) and must end in the one-thread world's state (same state hash).
//
// Solver settings: Arbiter steps the scene as declared ("sub_steps",
// "contact_hertz"; pyramid-5k asks for 8 and 120 so that it stands), and
// the peers get iterations scaled the same way (PeerIterationsFor: Box2D
// 8/3 and Chipmunk 10 times sub_steps / 4). When the scene's settings are
// not the defaults, one more row, "Arbiter 4/30", steps it with the
// defaults, so both are in the table. --solver-defaults steps every engine
// with its defaults instead (the scene's settings ignored).
//
// Last, the settled row (step/settled.h, issue 23 goal 3): the scene
// stepped by Arbiter with WorldDef::allow_sleep and without, ticks 901-1200
// timed (and 2101-2400: rain-2k is still moving at 1,200), and the ratio
// of the two (goal <= 0.10).
//
// Exit status: 0 on success; 1 when an engine ends with a non-finite state
// or the threaded Arbiter world differs; 2 on a usage, loading or build
// error.
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "standard_files.h"
#include "arbiter/core/shapes.h"
#include "arbiter/scene/scene.h"
#include "step/settled.h"
#include "step/stepper.h"

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

constexpr double kRestingSpeed = 0.1;

struct Options {
  std::string scene_path;
  int ticks = -1;  // -1: the scene's `steps` (600 when absent)
  bool box2d_sleep = true;
  bool profile = false;
  uint32_t step_threads = 2;  // the second Arbiter row; 1: no such row
  bool arbiter_only = false;  // no peers (for perf record)
  int settled_ticks = 1200;   // the settled row: ticks stepped (0: no row)...
  int settled_timed = 300;    // ...and the last ones timed
  bool solver_defaults = false;  // ignore the scene's sub_steps and contact_hertz
};

void Usage() {
  std::printf(
      "usage: step_bench [--scene FILE] [--ticks N | --quick] [--step-threads N] [--no-box2d-sleep] [--arbiter-only]\n"
      "                  [--solver-defaults] [--profile]\n"
      "  --scene FILE       scene to step (default: rain-2k from scenes/ or ../shared/scenes/)\n"
      "  --ticks N          ticks to run (default: the scene's \"steps\", else 600)\n"
      "  --quick            60 ticks (smoke test)\n"
      "  --step-threads N   threads of the second Arbiter row, a StepThreadPool (default 2; 1: no such row)\n"
      "  --no-box2d-sleep   leave out the context row of Box2D with sleeping on\n"
      "  --arbiter-only     step the Arbiter rows alone (for perf record; no peer to compare with)\n"
      "  --settled-ticks N  the settled row: the scene stepped 2N ticks with and without sleeping, the last\n"
      "                     quarter-N before N and before 2N timed (default 1200; --quick: 120; 0: no row)\n"
      "  --solver-defaults  step with every engine's default solver settings, not the scene's \"sub_steps\" and\n"
      "                     \"contact_hertz\" (and the peers' iterations scaled to them)\n"
      "  --profile          accepted for compatibility: the per-stage breakdown is always printed\n");
}

bool ParseOptions(int argc, char** argv, Options* o) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--scene" || a == "--ticks" || a == "--step-threads" || a == "--settled-ticks") {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "step_bench: %s needs a value\n", a.c_str());
        return false;
      }
      const std::string v = argv[++i];
      if (a == "--scene") {
        o->scene_path = v;
      } else if (a == "--settled-ticks") {
        char* end = nullptr;
        const long n = std::strtol(v.c_str(), &end, 10);
        if (end == v.c_str() || *end != '\0' || n < 0 || n > 1'000'000 || (n > 0 && n < 4)) {
          std::fprintf(stderr, "step_bench: --settled-ticks needs 0 or 4..1000000, not '%s'\n", v.c_str());
          return false;
        }
        o->settled_ticks = static_cast<int>(n);
        o->settled_timed = static_cast<int>(n / 4);
      } else if (a == "--step-threads") {
        char* end = nullptr;
        const long n = std::strtol(v.c_str(), &end, 10);
        if (end == v.c_str() || *end != '\0' || n < 1 || n > 64) {
          std::fprintf(stderr, "step_bench: --step-threads needs 1..64, not '%s'\n", v.c_str());
          return false;
        }
        o->step_threads = static_cast<uint32_t>(n);
      } else {
        char* end = nullptr;
        const long n = std::strtol(v.c_str(), &end, 10);
        if (end == v.c_str() || *end != '\0' || n < 1 || n > 10'000'000) {
          std::fprintf(stderr, "step_bench: --ticks needs a positive integer, not '%s'\n", v.c_str());
          return false;
        }
        o->ticks = static_cast<int>(n);
      }
    } else if (a == "--quick") {
      o->ticks = 60;
      o->settled_ticks = 120;
      o->settled_timed = 30;
    } else if (a == "--solver-defaults") {
      o->solver_defaults = true;
    } else if (a == "--arbiter-only") {
      o->arbiter_only = true;
    } else if (a == "--no-box2d-sleep") {
      o->box2d_sleep = false;
    } else if (a == "--profile") {
      o->profile = true;
    } else if (a == "-h" || a == "--help") {
      Usage();
      std::exit(0);
    } else {
      std::fprintf(stderr, "step_bench: unknown argument %s\n", a.c_str());
      return false;
    }
  }
  return true;
}

double ThreadCpuSeconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

double LoadAverage() {
  std::ifstream in("/proc/loadavg");
  double load = -1;
  in >> load;
  return load;
}

// ---- Scene summary -------------------------------------------------------------

struct SceneSummary {
  size_t statics = 0, kinematics = 0, dynamics = 0;
  size_t circles = 0, boxes = 0, polygons = 0;
  Aabb static_bounds{};
  bool has_statics = false;
  std::string materials;  // "density 1, friction 0.6, restitution 0" when uniform
};

bool IsAxisAlignedBox(const Polygon& p) {
  if (p.count != 4) return false;
  for (int i = 0; i < 4; ++i) {
    const Vec2 e = p.vertices[(i + 1) % 4] - p.vertices[i];
    if (e.x != kFixedZero && e.y != kFixedZero) return false;
  }
  return true;
}

SceneSummary Summarize(const scene::Scene& scene) {
  SceneSummary s;
  bool first_shape = true, uniform = true;
  Fixed density, friction, restitution;
  for (const BodyDef& b : scene.bodies) {
    switch (b.type) {
      case BodyType::kStatic: ++s.statics; break;
      case BodyType::kKinematic: ++s.kinematics; break;
      case BodyType::kDynamic: ++s.dynamics; break;
    }
    for (const ShapeDef& sd : b.shapes) {
      if (sd.shape.type == ShapeType::kCircle) {
        ++s.circles;
      } else if (sd.shape.type == ShapeType::kPolygon) {
        ++(IsAxisAlignedBox(sd.shape.polygon) ? s.boxes : s.polygons);
      }
      if (first_shape) {
        density = sd.density;
        friction = sd.friction;
        restitution = sd.restitution;
        first_shape = false;
      } else if (sd.density != density || sd.friction != friction || sd.restitution != restitution) {
        uniform = false;
      }
      if (b.type == BodyType::kStatic) {
        const Aabb box = ComputeAabb(sd.shape, b.transform);
        s.static_bounds = s.has_statics ? Union(s.static_bounds, box) : box;
        s.has_statics = true;
      }
    }
  }
  char buf[128];
  if (uniform && !first_shape) {
    std::snprintf(buf, sizeof buf, "every shape: density %g, friction %g, restitution %g", density.ToDouble(),
                  friction.ToDouble(), restitution.ToDouble());
  } else {
    std::snprintf(buf, sizeof buf, "materials differ between shapes");
  }
  s.materials = buf;
  return s;
}

// ---- Running ---------------------------------------------------------------------

struct Run {
  std::unique_ptr<Stepper> engine;
  double build_ms = 0;
  std::vector<double> tick_ms;  // wall, per tick
  double cpu_s = 0;
  // At the last tick.
  double kinetic_energy = 0;
  double resting = 0;  // fraction of dynamic bodies
  size_t outside = 0;  // dynamic bodies beside or below the static bounds
  double top_drop = 0;  // how far the highest dynamic body at the start came down
  size_t dynamic = 0;
  bool finite = true;

  double WallMsPerTick() const {
    double sum = 0;
    for (double t : tick_ms) sum += t;
    return tick_ms.empty() ? 0 : sum / static_cast<double>(tick_ms.size());
  }
  double CpuMsPerTick() const { return tick_ms.empty() ? 0 : 1e3 * cpu_s / static_cast<double>(tick_ms.size()); }
  double Percentile(double q) const {
    if (tick_ms.empty()) return 0;
    std::vector<double> sorted = tick_ms;
    std::sort(sorted.begin(), sorted.end());
    return sorted[static_cast<size_t>(q * static_cast<double>(sorted.size() - 1))];
  }
};

// The highest dynamic body at the start (the first in scene order on a
// tie): its index in DynamicStates (-1 when there is none) and height. For
// a stack (pyramid-5k) its drop says whether the stack stood.
struct TopBody {
  int index = -1;
  double start_y = 0;
};

TopBody FindTopBody(const Stepper& engine) {
  std::vector<DynamicState> states;
  engine.DynamicStates(&states);
  TopBody top;
  for (size_t i = 0; i < states.size(); ++i) {
    if (top.index < 0 || states[i].y > top.start_y) top = {static_cast<int>(i), states[i].y};
  }
  return top;
}

void Measure(Run* r, const SceneSummary& summary, const TopBody& top) {
  std::vector<DynamicState> states;
  r->engine->DynamicStates(&states);
  if (top.index >= 0 && static_cast<size_t>(top.index) < states.size()) {
    r->top_drop = top.start_y - states[static_cast<size_t>(top.index)].y;
  }
  r->dynamic = states.size();
  size_t resting = 0;
  for (const DynamicState& s : states) {
    const double v2 = s.vx * s.vx + s.vy * s.vy;
    r->kinetic_energy += 0.5 * s.mass * v2;
    if (std::sqrt(v2) < kRestingSpeed) ++resting;
    if (!std::isfinite(s.x) || !std::isfinite(s.y) || !std::isfinite(v2)) r->finite = false;
    if (summary.has_statics) {
      const Aabb& b = summary.static_bounds;
      // Beside or below the static geometry: fallen off it. (Above it is
      // where a stack on the ground stands.)
      if (s.x < b.lower.x.ToDouble() || s.x > b.upper.x.ToDouble() || s.y < b.lower.y.ToDouble()) {
        ++r->outside;
      }
    }
  }
  r->resting = states.empty() ? 0 : static_cast<double>(resting) / static_cast<double>(states.size());
  if (!std::isfinite(r->kinetic_energy)) r->finite = false;
}

// The threaded Arbiter row (runs[1]) against the one-thread row and
// Chipmunk: its state hash must equal the one-thread world's (the same
// bits), and issue 23's goal 2 asks for <= 0.55 x Chipmunk's wall time. Its
// cpu column counts the stepping thread only, not the pool's workers.
bool PrintThreadedSummary(const std::vector<Run>& runs) {
  const Run& one = runs[0];
  const Run& many = runs[1];
  const bool same = one.engine->StateHash() == many.engine->StateHash();
  std::printf("\n%s: state hash %s the one-thread world's at the last tick (%016llx); wall time %.2fx one thread's",
              many.engine->Name().c_str(), same ? "equals" : "DIFFERS FROM",
              static_cast<unsigned long long>(many.engine->StateHash()), many.WallMsPerTick() / one.WallMsPerTick());
  for (const Run& r : runs) {
    if (r.engine->Name() == "Chipmunk") std::printf(", %.2fx Chipmunk's", many.WallMsPerTick() / r.WallMsPerTick());
  }
  std::printf(" (its cpu column: the stepping thread only).\n");
  if (!same) std::fprintf(stderr, "step_bench: %s ended in another state than Arbiter\n", many.engine->Name().c_str());
  return same;
}

int RunBench(const Options& o) {
  scene::Scene scene;
  const Status st = scene::LoadSceneFile(o.scene_path, &scene);
  if (!st.ok()) {
    std::fprintf(stderr, "step_bench: %s\n", st.message().c_str());
    return 2;
  }
  std::string error;
  if (!CheckComparable(scene, &error)) {
    std::fprintf(stderr, "step_bench: %s: %s\n", o.scene_path.c_str(), error.c_str());
    return 2;
  }
  const int ticks = o.ticks > 0 ? o.ticks : (scene.steps > 0 ? scene.steps : 600);
  if (o.solver_defaults) {
    scene.world.sub_steps = kDefaultSubSteps;
    scene.world.contact_hertz = kDefaultContactHertz;
  }
  const bool declared = scene.world.sub_steps != kDefaultSubSteps || scene.world.contact_hertz != kDefaultContactHertz;
  const PeerIterations peers = PeerIterationsFor(scene.world.sub_steps);
  const SceneSummary summary = Summarize(scene);
  const double load = LoadAverage();

  std::printf(
      "step_bench: %s, %zu bodies (%zu static, %zu kinematic, %zu dynamic); shapes: %zu circles, %zu boxes, "
      "%zu other polygons\n",
      scene.name.c_str(), scene.bodies.size(), summary.statics, summary.kinematics, summary.dynamics, summary.circles,
      summary.boxes, summary.polygons);
  std::printf("  %s; gravity (%g, %g); %d ticks at %d Hz; solver %d sub-steps, contact hertz %d%s\n",
              summary.materials.c_str(), scene.world.gravity.x.ToDouble(), scene.world.gravity.y.ToDouble(), ticks,
              scene.world.tick_hz, scene.world.sub_steps, scene.world.contact_hertz,
              o.solver_defaults ? " (--solver-defaults)" : declared ? " (the scene's)" : " (defaults)");
  std::printf(
      "  engines stepped in turn, tick by tick, each tick timed alone (steady_clock, thread CPU time);\n"
      "  load average at start %.2f on %u hardware threads\n",
      load, std::thread::hardware_concurrency());

  std::vector<Run> runs;
  auto add = [&runs](std::unique_ptr<Stepper> engine) {
    runs.emplace_back();
    runs.back().engine = std::move(engine);
  };
  add(MakeArbiterStepper());  // first: the ratios divide by runs[0]
  if (o.step_threads > 1) add(MakeArbiterStepper(o.step_threads));
  if (!o.arbiter_only) {
    add(MakeBox2dStepper({peers.box2d_velocity, peers.box2d_position, false}));
    add(MakeChipmunkStepper(peers.chipmunk));
#ifdef ARBITER_HAVE_BOX2D3
    add(MakeBox2d3Stepper({scene.world.sub_steps, scene.world.contact_hertz, false, 1}));
    if (o.step_threads > 1) {
      add(MakeBox2d3Stepper({scene.world.sub_steps, scene.world.contact_hertz, false, static_cast<int>(o.step_threads)}));
    }
#endif
    if (o.box2d_sleep) add(MakeBox2dStepper({peers.box2d_velocity, peers.box2d_position, true}));
  }
  if (declared) add(MakeArbiterStepper(1, /*solver_defaults=*/true));

  for (Run& r : runs) {
    const auto t0 = Clock::now();
    if (!r.engine->Build(scene, &error)) {
      std::fprintf(stderr, "step_bench: building %s failed: %s\n", r.engine->Name().c_str(), error.c_str());
      return 2;
    }
    r.build_ms = 1e3 * std::chrono::duration<double>(Clock::now() - t0).count();
    r.tick_ms.reserve(static_cast<size_t>(ticks));
  }
  // Every engine starts from the scene's poses: the top body is read off the first.
  const TopBody top = FindTopBody(*runs[0].engine);
  std::printf("\nengines (build time):\n");
  for (const Run& r : runs) {
    std::printf("  %-12s %8.1f ms  %s\n", r.engine->Name().c_str(), r.build_ms, r.engine->Setup().c_str());
  }
  std::fflush(stdout);

  for (int t = 0; t < ticks; ++t) {
    for (Run& r : runs) {
      const double c0 = ThreadCpuSeconds();
      const auto t0 = Clock::now();
      r.engine->Step();
      const auto t1 = Clock::now();
      r.cpu_s += ThreadCpuSeconds() - c0;
      r.tick_ms.push_back(1e3 * std::chrono::duration<double>(t1 - t0).count());
    }
  }
  for (Run& r : runs) Measure(&r, summary, top);

  const Run& arbiter = runs[0];
  std::printf(
      "\nms per tick (lower is better). A/x = Arbiter's time / the engine's time: below 1 Arbiter is faster,\n"
      "above 1 slower (2.0: Arbiter takes twice as long). At the last tick: KE = sum 1/2 m |v|^2 of the dynamic\n"
      "bodies, rest = share of them with |v| < %.1f, out = how many fell off the static geometry (beside or\n"
      "below its bounding box), top = how far the highest dynamic body at the start has come down (about 0\n"
      "when a stack stands).\n\n",
      kRestingSpeed);
  std::printf("%-12s | %8s %8s %8s %8s | %8s %8s | %11s %6s %5s %8s\n", "engine", "ms/tick", "cpu ms", "median",
              "worst", "A/x wall", "A/x cpu", "KE", "rest", "out", "top");
  std::printf("%s\n", std::string(106, '-').c_str());
  bool finite = true;
  double worst_wall_over_cpu = 1;
  for (const Run& r : runs) {
    const double wall = r.WallMsPerTick(), cpu = r.CpuMsPerTick();
    std::printf("%-12s | %8.3f %8.3f %8.3f %8.3f | %8.2f %8.2f | %11.4g %5.1f%% %5zu %8.4f\n", r.engine->Name().c_str(),
                wall, cpu, r.Percentile(0.5), r.Percentile(1.0), arbiter.WallMsPerTick() / wall,
                arbiter.CpuMsPerTick() / cpu, r.kinetic_energy, 100.0 * r.resting, r.outside, r.top_drop);
    if (!r.finite) {
      std::fprintf(stderr, "step_bench: %s ended with a non-finite state\n", r.engine->Name().c_str());
      finite = false;
    }
    if (cpu > 0) worst_wall_over_cpu = std::max(worst_wall_over_cpu, wall / cpu);
  }
  const bool same_bits = o.step_threads == 1 || PrintThreadedSummary(runs);
  std::printf("\nThe peers do the same work as Arbiter (nobody sleeps)%s.\n",
              o.box2d_sleep ? "; Box2D+sleep is context only: it skips resting bodies" : "");
  if (worst_wall_over_cpu > 1.15) {
    std::printf(
        "NOTE: the machine was busy: an engine's wall time was up to %.2fx its thread CPU time (load average\n"
        "%.2f at start), so wall times are inflated; the cpu columns are the better measure. Rerun on an idle\n"
        "machine for clean numbers.\n",
        worst_wall_over_cpu, load);
  } else if (load > 1.5) {
    std::printf(
        "NOTE: load average %.2f at start: other processes shared the machine (caches, memory bandwidth), though\n"
        "this thread was rarely descheduled (wall time within %.2fx of CPU time). Rerun on an idle machine for\n"
        "clean numbers.\n",
        load, worst_wall_over_cpu);
  }

  // Always printed: the breakdown costs seven clock reads per tick.
  for (const Run& r : runs) {
    const std::string breakdown = r.engine->StageBreakdown(ticks);
    if (breakdown.empty()) continue;
    std::printf("\n%s per stage (wall clock; perf record gives a finer picture):\n%s", r.engine->Name().c_str(),
                breakdown.c_str());
  }
  bool settled = true;
  if (o.settled_ticks > 0) {
    std::vector<std::unique_ptr<Stepper>> peers_asleep;
#ifdef ARBITER_HAVE_BOX2D3
    if (!o.arbiter_only) peers_asleep.push_back(MakeBox2d3Stepper({scene.world.sub_steps, scene.world.contact_hertz, true, 1}));
#endif
    std::vector<Stepper*> built;
    for (const std::unique_ptr<Stepper>& peer : peers_asleep) {
      if (!peer->Build(scene, &error)) {
        std::fprintf(stderr, "step_bench: building %s failed: %s\n", peer->Name().c_str(), error.c_str());
        return 2;
      }
      built.push_back(peer.get());
    }
    settled = RunSettledRow(scene, o.settled_ticks, o.settled_timed, built);
  }
  return finite && same_bits && settled ? 0 : 1;
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
  if (o.scene_path.empty()) o.scene_path = arbiter::bench::FindStandardFile("rain-2k.scene.json");
  return RunBench(o);
}
