// The settled-world row (settled.h). Both worlds take the same ticks in
// turn, so a slow spell of a shared machine lands on both; only the last
// `timed` ticks are timed, when the scene has had the time to settle. The
// awake counts say whether it did: a world whose bodies never rest never
// sleeps, and then the row measures that, not a settled world.
#include "step/settled.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "arbiter/core/limits.h"
#include "arbiter/core/world.h"

namespace arbiter::bench {
namespace {

using Clock = std::chrono::steady_clock;

size_t AwakeDynamic(const World& world, const std::vector<uint64_t>& dynamic) {
  size_t awake = 0;
  for (const uint64_t id : dynamic) {
    const std::optional<BodyView> view = world.FindBody(id);
    if (view && view->awake) ++awake;
  }
  return awake;
}

// Bodies whose linear speed alone, max(|vx|, |vy|), is above kSleepSpeed:
// a lower bound on the bodies the sleep rule calls fast (it adds
// extent x |w|). While one of them touches the pile, the pile is one
// island that cannot sleep, on any engine whose islands sleep whole.
size_t MovingDynamic(const World& world, const std::vector<uint64_t>& dynamic) {
  size_t moving = 0;
  for (const uint64_t id : dynamic) {
    const std::optional<BodyView> view = world.FindBody(id);
    if (!view) continue;
    const Vec2 v = view->linear_velocity;
    if (Max(Abs(v.x), Abs(v.y)) > kSleepSpeed) ++moving;
  }
  return moving;
}

// The same two counts for a peer, from its own numbers, appended to *line
// as " tick:awake(moving)".
void AppendPeerCounts(const Stepper& peer, int tick, std::vector<DynamicState>* scratch, std::string* line) {
  peer.DynamicStates(scratch);
  size_t awake = 0, moving = 0;
  const double sleep_speed = kSleepSpeed.ToDouble();
  for (const DynamicState& d : *scratch) {
    if (d.awake) ++awake;
    if (d.awake && std::max(std::fabs(d.vx), std::fabs(d.vy)) > sleep_speed) ++moving;
  }
  char text[64];
  std::snprintf(text, sizeof text, " %d:%zu(%zu)", tick, awake, moving);
  line->append(text);
}

}  // namespace

bool RunSettledRow(const scene::Scene& scene, int ticks, int timed, std::span<Stepper* const> sleeping_peers) {
  WorldDef sleeping_def = scene.world;
  sleeping_def.allow_sleep = true;
  World awake(scene.world), sleeping(sleeping_def);
  if (!awake.AddBodies(scene.bodies).ok() || !sleeping.AddBodies(scene.bodies).ok()) {
    std::fprintf(stderr, "step_bench: the settled row's worlds could not be built\n");
    return false;
  }
  std::vector<uint64_t> dynamic;
  for (const BodyDef& b : scene.bodies) {
    if (b.type == BodyType::kDynamic) dynamic.push_back(b.id);
  }
  // Two windows: the last `timed` of `ticks` (issue 23's row), and the
  // last `timed` of twice as many, for a scene still moving at `ticks`.
  struct Window {
    int end;
    double awake_ms = 0, sleeping_ms = 0;
    size_t awake_at_start = 0, awake_at_end = 0;
  };
  Window windows[2] = {{ticks}, {2 * ticks}};
  TickEvents events;
  auto step = [&](World& w, double* ms) {
    const auto t0 = Clock::now();
    w.Step(&events);
    *ms += 1e3 * std::chrono::duration<double>(Clock::now() - t0).count();
  };
  std::printf("\nsettled world: %s stepped %d ticks with and without sleeping (one thread, events on); dynamic "
              "bodies awake with sleeping on, by tick (and, in brackets, how many of them move faster than the sleep speed, "
              "0.05 units/s, linear speed alone):\n ",
              scene.name.c_str(), 2 * ticks);
  std::vector<std::string> peer_lines;
  for (Stepper* peer : sleeping_peers) peer_lines.push_back("  " + peer->Name() + ":");
  std::vector<DynamicState> scratch;
  for (int t = 0; t < 2 * ticks; ++t) {
    Window& win = windows[t < ticks ? 0 : 1];
    double ignored = 0;
    const bool timed_tick = t >= win.end - timed;
    if (t == win.end - timed) win.awake_at_start = AwakeDynamic(sleeping, dynamic);
    step(awake, timed_tick ? &win.awake_ms : &ignored);
    step(sleeping, timed_tick ? &win.sleeping_ms : &ignored);
    if (t + 1 == win.end) win.awake_at_end = AwakeDynamic(sleeping, dynamic);
    for (Stepper* peer : sleeping_peers) peer->Step();
    if ((t + 1) % 100 == 0) {
      std::printf(" %d:%zu(%zu)", t + 1, AwakeDynamic(sleeping, dynamic), MovingDynamic(sleeping, dynamic));
      for (size_t i = 0; i < sleeping_peers.size(); ++i) {
        AppendPeerCounts(*sleeping_peers[i], t + 1, &scratch, &peer_lines[i]);
      }
    }
  }
  std::printf("\n");
  if (!sleeping_peers.empty()) {
    std::printf("  the same counts for peers with their own sleeping on (stepped in the same loop, untimed):\n");
    for (const std::string& line : peer_lines) std::printf("%s\n", line.c_str());
  }
  for (const Window& win : windows) {
    const double a = win.awake_ms / timed, s = win.sleeping_ms / timed;
    std::printf("  ticks %5d-%-5d  no sleeping %7.3f ms/tick, allow_sleep %7.3f ms/tick, ratio %.3f (goal <= 0.10); "
                "awake with sleeping: %zu -> %zu of %zu\n",
                win.end - timed + 1, win.end, a, s, a > 0 ? s / a : 0.0, win.awake_at_start, win.awake_at_end,
                dynamic.size());
  }
  return true;
}

}  // namespace arbiter::bench
