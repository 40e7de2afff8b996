// File: history.h
//
// A world's recent past, for lag compensation: the world as it stood at
// tick T, or between T and T + 1 as a client's interpolated view shows it.
//
// What "the world at tick T" means: the world as the step into T left it,
// plus every change made before the step out of T began. Record the world
// right before each Step and the history holds exactly what live queries
// saw at each tick.
//
// What is kept per retained tick: the pose of every kinematic and dynamic
// body (32 bytes each). The bodies, shapes, filters and static poses are
// shared between ticks and copied (as a snapshot) only when they change:
// bodies added or removed, a filter or a static body's transform set.
//
// Why answers are bit-identical to the live ones: a past query runs on a
// rebuilt world with the same bodies, shapes and poses, and every query
// result is a function of that state alone, never of the broad phase's
// internal shape (see world.h). Rebuilt worlds are cached, and a new one
// starts as a copy of a cached world with the same layout, so a run of
// queries at a few recent ticks rebuilds little.
//
// Interpolation (tick + fraction): each kinematic and dynamic body present
// at both T and T + 1 is placed at p = p0 + (p1 - p0) * f and
// q = normalize(q0 + (q1 - q0) * f) (normalized lerp; q0 when the two
// rotations are opposite), in Q32.32 with the library's one rounding rule;
// everything else is as at T.
//
// Thread safety: Record and Clear need exclusive access to the history
// (the server holds the world's write lock); At may run on many threads at
// once (a mutex guards the cache of rebuilt worlds).
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <vector>

#include "arbiter/core/fixed.h"
#include "arbiter/core/math.h"
#include "arbiter/core/status.h"
#include "arbiter/core/world.h"

namespace arbiter {

class WorldHistory {
 public:
  /// Keeps the last `capacity_ticks` ticks (at least 1).
  explicit WorldHistory(uint32_t capacity_ticks);
  ~WorldHistory();
  WorldHistory(const WorldHistory&) = delete;
  WorldHistory& operator=(const WorldHistory&) = delete;

  uint32_t capacity() const { return capacity_; }

  /// Records `world` as the state at world.tick(). Ticks must follow each
  /// other; a gap or a repeat (after a restore) drops what came before.
  void Record(const World& world);
  /// Forgets everything (e.g. after the world was replaced by a snapshot).
  void Clear();
  /// Forgets `tick` and every later tick (a multi-tick step that was rolled
  /// back). Ticks already pushed out by the capacity stay lost.
  void DropFrom(int64_t tick);

  bool empty() const { return frames_.empty(); }
  /// The oldest retained tick; only when !empty().
  int64_t oldest_tick() const { return frames_.front().tick; }
  /// The newest retained tick; only when !empty().
  int64_t newest_tick() const { return frames_.back().tick; }

  /// The world as at `tick` + `fraction` (fraction in [0, 1)), given the
  /// live world it was recorded from (the caller holds at least its shared
  /// lock). Sets *out to null when that is the live world itself (tick ==
  /// live.tick(), fraction 0). OUT_OF_RANGE naming the window when `tick`
  /// is older than the oldest retained tick or not before the live tick
  /// (with a fraction); INVALID_ARGUMENT for a fraction outside [0, 1).
  /// The rebuilt world reports tick() == `tick`. INTERNAL if a recorded
  /// world does not restore (a core bug: every reachable state restores).
  Status At(const World& live, int64_t tick, Fixed fraction, std::shared_ptr<const World>* out) const;

  /// Heap bytes held by the retained ticks (poses and shared layouts), not
  /// counting the cache of rebuilt worlds.
  size_t MemoryBytes() const;
  /// Heap bytes of the rebuilt worlds cached right now.
  size_t CacheBytes() const;

 private:
  struct Layout;
  struct Frame {
    int64_t tick = 0;
    std::shared_ptr<const Layout> layout;
    std::vector<Transform> poses;  // kinematic and dynamic bodies, by id
  };
  struct CachedView {
    int64_t tick = 0;
    int64_t fraction_raw = 0;
    std::shared_ptr<const Layout> layout;
    std::shared_ptr<const World> world;
    uint64_t last_used = 0;
  };

  // At's stages (history.cc). The Cache* ones run under cache_mu_.
  Status FrameIndex(int64_t live_tick, int64_t tick, Fixed fraction, size_t* index) const;
  std::vector<Transform> PosesAt(const World& live, size_t index, Fixed fraction, bool uses_live) const;
  Status RebuildView(const Frame& frame, int64_t tick, const std::vector<Transform>& poses, World* view) const;
  std::shared_ptr<const World> CacheFind(int64_t tick, Fixed fraction, const Frame& frame) const;
  void CacheAdd(int64_t tick, Fixed fraction, const Frame& frame, std::shared_ptr<const World> world) const;

  const uint32_t capacity_;
  std::deque<Frame> frames_;
  size_t pose_bytes_ = 0;

  mutable std::mutex cache_mu_;
  mutable std::vector<CachedView> cache_;
  mutable uint64_t cache_clock_ = 0;
};

}  // namespace arbiter
