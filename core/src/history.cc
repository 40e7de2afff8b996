#include "arbiter/core/history.h"

#include <algorithm>
#include <string>

#include "world_impl.h"

namespace arbiter {

// What retained ticks share until the world's layout stamp changes.
struct WorldHistory::Layout {
  uint64_t stamp = 0;
  std::vector<uint8_t> snapshot;      // the whole world when it was captured
  std::vector<uint64_t> movable_ids;  // kinematic and dynamic bodies, ascending
  std::vector<uint32_t> live_slots;   // their slots in the recorded world
};

namespace {

// Rebuilt worlds kept for reuse: lag-compensated queries cluster on a few
// recent ticks (one per client latency), so a handful covers the common case.
constexpr size_t kCachedViews = 4;

Transform Interpolate(const Transform& a, const Transform& b, Fixed f) {
  Transform out;
  out.p = {a.p.x + (b.p.x - a.p.x) * f, a.p.y + (b.p.y - a.p.y) * f};
  const Vec2 blend{a.q.c + (b.q.c - a.q.c) * f, a.q.s + (b.q.s - a.q.s) * f};
  const Vec2 unit = Normalize(blend);
  // Opposite rotations blend to zero half way: keep the start rotation
  // rather than invent one.
  out.q = (unit.x.raw() == 0 && unit.y.raw() == 0) ? a.q : Rot{unit.x, unit.y};
  return out;
}

}  // namespace

WorldHistory::WorldHistory(uint32_t capacity_ticks) : capacity_(std::max<uint32_t>(capacity_ticks, 1)) {}
WorldHistory::~WorldHistory() = default;

void WorldHistory::Clear() {
  frames_.clear();
  pose_bytes_ = 0;
  std::lock_guard<std::mutex> lock(cache_mu_);
  cache_.clear();
}

void WorldHistory::DropFrom(int64_t tick) {
  while (!frames_.empty() && frames_.back().tick >= tick) {
    pose_bytes_ -= frames_.back().poses.capacity() * sizeof(Transform);
    frames_.pop_back();
  }
  std::lock_guard<std::mutex> lock(cache_mu_);
  std::erase_if(cache_, [&](const CachedView& v) { return v.tick >= tick; });
}

void WorldHistory::Record(const World& world) {
  const World::Impl& w = *world.impl_;
  if (!frames_.empty() && w.tick != frames_.back().tick + 1) Clear();

  std::shared_ptr<const Layout> layout;
  if (!frames_.empty() && frames_.back().layout->stamp == w.layout_stamp) {
    layout = frames_.back().layout;
  } else {
    auto fresh = std::make_shared<Layout>();
    fresh->stamp = w.layout_stamp;
    fresh->snapshot = world.Snapshot();
    std::vector<std::pair<uint64_t, uint32_t>> movable;
    for (uint32_t slot = 0; slot < w.bodies.size(); ++slot) {
      const internal::BodyRecord& body = w.bodies[slot];
      if (body.id != 0 && body.type != BodyType::kStatic) movable.emplace_back(body.id, slot);
    }
    std::sort(movable.begin(), movable.end());
    for (const auto& [id, slot] : movable) {
      fresh->movable_ids.push_back(id);
      fresh->live_slots.push_back(slot);
    }
    layout = std::move(fresh);
  }

  Frame frame;
  frame.tick = w.tick;
  frame.poses.reserve(layout->live_slots.size());
  for (uint32_t slot : layout->live_slots) frame.poses.push_back(w.bodies[slot].transform);
  frame.layout = std::move(layout);
  pose_bytes_ += frame.poses.capacity() * sizeof(Transform);
  frames_.push_back(std::move(frame));
  while (frames_.size() > capacity_) {
    pose_bytes_ -= frames_.front().poses.capacity() * sizeof(Transform);
    frames_.pop_front();
  }

  std::lock_guard<std::mutex> lock(cache_mu_);
  std::erase_if(cache_, [&](const CachedView& v) { return v.tick < frames_.front().tick; });
}

Status WorldHistory::At(const World& live, int64_t tick, Fixed fraction, std::shared_ptr<const World>* out) const {
  *out = nullptr;
  if (fraction.raw() < 0 || fraction.raw() >= Fixed::kOneRaw) {
    return InvalidArgumentError("fraction: must be in [0, 1)");
  }
  const int64_t live_tick = live.tick();
  if (tick == live_tick && fraction.raw() == 0) return OkStatus();
  size_t index = 0;
  if (Status s = FrameIndex(live_tick, tick, fraction, &index); !s.ok()) return s;
  const Frame& frame = frames_[index];
  // Between the newest recorded tick and the live one the live world is the
  // end point, and it may still change before the next step: never cache.
  const bool uses_live = fraction.raw() != 0 && tick + 1 == live_tick;

  std::lock_guard<std::mutex> lock(cache_mu_);
  ++cache_clock_;
  if (!uses_live) {
    *out = CacheFind(tick, fraction, frame);
    if (*out != nullptr) return OkStatus();
  }
  World view;
  if (Status s = RebuildView(frame, tick, PosesAt(live, index, fraction, uses_live), &view); !s.ok()) return s;
  auto shared = std::make_shared<const World>(std::move(view));
  *out = shared;
  if (!uses_live) CacheAdd(tick, fraction, frame, std::move(shared));
  return OkStatus();
}

// The index in frames_ of `tick`, or OUT_OF_RANGE naming the window: a
// fraction needs the tick after `tick` as well (a recorded one or the live
// world).
Status WorldHistory::FrameIndex(int64_t live_tick, int64_t tick, Fixed fraction, size_t* index) const {
  const bool has_frames = !frames_.empty() && frames_.back().tick + 1 == live_tick;
  const int64_t oldest = has_frames ? frames_.front().tick : live_tick;
  const bool beyond = fraction.raw() == 0 ? tick > live_tick : tick >= live_tick;
  if (tick < oldest || beyond) {
    std::string window = "[" + std::to_string(oldest) + ", " + std::to_string(live_tick) + "]";
    if (oldest == live_tick) window += " (only the live tick: nothing stepped since the world was created or restored)";
    return OutOfRangeError("tick: " + std::to_string(tick) + (fraction.raw() != 0 ? " + fraction" : "") +
                           " is outside the retained window " + window +
                           (fraction.raw() != 0 ? "; a fraction needs the next tick too" : ""));
  }
  *index = static_cast<size_t>(tick - oldest);
  return OkStatus();
}

// The movable bodies' poses at frames_[index] + fraction, in the frame's
// layout order: blended towards the live world (uses_live) or the next
// recorded frame. A body gone (or made static) by then keeps its pose.
std::vector<Transform> WorldHistory::PosesAt(const World& live, size_t index, Fixed fraction, bool uses_live) const {
  const Frame& frame = frames_[index];
  const Layout& layout = *frame.layout;
  std::vector<Transform> poses = frame.poses;
  if (fraction.raw() == 0) return poses;
  if (uses_live) {
    const World::Impl& w = *live.impl_;
    for (size_t i = 0; i < poses.size(); ++i) {
      const uint32_t slot = w.SlotOf(layout.movable_ids[i]);
      if (slot == internal::IdMap::kMissing || w.bodies[slot].type == BodyType::kStatic) continue;
      poses[i] = Interpolate(poses[i], w.bodies[slot].transform, fraction);
    }
    return poses;
  }
  const Frame& next = frames_[index + 1];
  const std::vector<uint64_t>& next_ids = next.layout->movable_ids;
  for (size_t i = 0; i < poses.size(); ++i) {
    size_t j = i;
    if (next.layout != frame.layout) {
      auto it = std::lower_bound(next_ids.begin(), next_ids.end(), layout.movable_ids[i]);
      if (it == next_ids.end() || *it != layout.movable_ids[i]) continue;
      j = static_cast<size_t>(it - next_ids.begin());
    }
    poses[i] = Interpolate(poses[i], next.poses[j], fraction);
  }
  return poses;
}

// The frame's world with `poses` at `tick`. It starts from the most
// recently used rebuilt world of the same layout, which differs from the
// target only in the poses that moved in between, and restores the
// layout's snapshot only when there is none.
Status WorldHistory::RebuildView(const Frame& frame, int64_t tick, const std::vector<Transform>& poses,
                                 World* view) const {
  const Layout& layout = *frame.layout;
  const CachedView* base = nullptr;
  for (const CachedView& v : cache_) {
    if (v.layout == frame.layout && (base == nullptr || v.last_used > base->last_used)) base = &v;
  }
  if (base != nullptr) {
    *view = base->world->Clone();
  } else if (Status s = World::Restore(layout.snapshot, view); !s.ok()) {
    // The bytes came from World::Snapshot, and every state a world can
    // reach restores (world.h, Step); should that ever break, the query
    // fails with the reason instead of taking the process down.
    return InternalError("history: the recorded world at tick " + std::to_string(tick) +
                         " does not restore: " + s.message());
  }
  World::Impl& v = *view->impl_;
  for (size_t i = 0; i < poses.size(); ++i) {
    const uint32_t slot = v.SlotOf(layout.movable_ids[i]);
    if (v.bodies[slot].transform == poses[i]) continue;
    v.bodies[slot].transform = poses[i];
    v.SyncBodyShapes(slot);
  }
  v.tick = tick;
  return OkStatus();
}

// A cached rebuild of exactly this tick, fraction and layout (marked used),
// or null.
std::shared_ptr<const World> WorldHistory::CacheFind(int64_t tick, Fixed fraction, const Frame& frame) const {
  for (CachedView& v : cache_) {
    if (v.tick == tick && v.fraction_raw == fraction.raw() && v.layout == frame.layout) {
      v.last_used = cache_clock_;
      return v.world;
    }
  }
  return nullptr;
}

// Keeps a rebuilt world, evicting the least recently used past kCachedViews.
void WorldHistory::CacheAdd(int64_t tick, Fixed fraction, const Frame& frame, std::shared_ptr<const World> world) const {
  if (cache_.size() >= kCachedViews) {
    auto oldest_used = std::min_element(cache_.begin(), cache_.end(), [](const CachedView& a, const CachedView& b) {
      return a.last_used < b.last_used;
    });
    cache_.erase(oldest_used);
  }
  cache_.push_back({tick, fraction.raw(), frame.layout, std::move(world), cache_clock_});
}

size_t WorldHistory::MemoryBytes() const {
  size_t bytes = pose_bytes_ + frames_.size() * sizeof(Frame);
  const Layout* last = nullptr;
  for (const Frame& f : frames_) {
    if (f.layout.get() == last) continue;
    last = f.layout.get();
    bytes += sizeof(Layout) + last->snapshot.capacity() + last->movable_ids.capacity() * sizeof(uint64_t) +
             last->live_slots.capacity() * sizeof(uint32_t);
  }
  return bytes;
}

size_t WorldHistory::CacheBytes() const {
  std::lock_guard<std::mutex> lock(cache_mu_);
  size_t bytes = 0;
  for (const CachedView& v : cache_) bytes += v.world->MemoryBytes();
  return bytes;
}

}  // namespace arbiter
