// Sleeping: timers, islands falling asleep, and every way an island wakes
// (step_sleep.h has the rule). Which bodies end up awake is a closure (the
// least set containing the seeds and closed under the kept contacts and
// the pair rule), so the order in which trees and lists are walked here
// never shows: only the set does, and the timers, which a wake either
// keeps or resets to zero for every body it reaches.
#include "step_sleep.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "step_internal.h"

namespace arbiter::internal {
namespace {

// The largest per-axis distance of the body's shapes' tight boxes from
// `center` (its centre of mass): how far from it a point of the body is.
Fixed Extent(const World::Impl& w, const BodyRecord& b, Vec2 center) {
  Fixed extent;
  for (uint32_t i = 0; i < b.shape_count; ++i) {
    const Aabb box = PlacedBox(w, w.shapes[b.first_shape + i]);
    extent = Max(extent, Max(Max(center.x - box.lower.x, box.upper.x - center.x),
                             Max(center.y - box.lower.y, box.upper.y - center.y)));
  }
  return extent;
}

// Whether a body's fastest point is within kSleepSpeed (limits.h).
bool IsSlow(const World::Impl& w, const BodyRecord& b, const BodyMotion& m) {
  const Fixed linear = Max(Abs(m.linear_velocity.x), Abs(m.linear_velocity.y));
  if (linear > kSleepSpeed) return false;
  if (m.angular_velocity == kFixedZero) return true;
  // A product saturates (fixed.h), never wraps: a huge one is just large.
  const Fixed turning = Extent(w, b, TransformPoint(b.transform, m.local_center)) * Abs(m.angular_velocity);
  return turning <= kSleepSpeed - linear;
}

bool Moves(const BodyMotion& m) { return m.linear_velocity != Vec2{} || m.angular_velocity != kFixedZero; }

// The kept contacts between two non-static bodies as adjacency lists by
// body slot (built only when something asleep is to be woken).
class ContactGraph {
 public:
  explicit ContactGraph(const World::Impl& w) : begin_(w.bodies.size() + 1, 0) {
    std::vector<std::pair<uint32_t, uint32_t>> edges;
    edges.reserve(w.contacts.size());
    for (const ContactState& c : w.contacts) {
      const uint32_t a = w.SlotOf(c.a.body_id), b = w.SlotOf(c.b.body_id);
      if (w.bodies[a].type == BodyType::kStatic || w.bodies[b].type == BodyType::kStatic) continue;
      edges.push_back({a, b});
      ++begin_[a + 1];
      ++begin_[b + 1];
    }
    for (size_t i = 1; i < begin_.size(); ++i) begin_[i] += begin_[i - 1];
    next_.resize(begin_.back());
    std::vector<uint32_t> fill(begin_.begin(), begin_.end() - 1);
    for (const auto& [a, b] : edges) {
      next_[fill[a]++] = b;
      next_[fill[b]++] = a;
    }
  }
  std::span<const uint32_t> Neighbours(uint32_t slot) const {
    return {next_.data() + begin_[slot], next_.data() + begin_[slot + 1]};
  }

 private:
  std::vector<uint32_t> begin_;
  std::vector<uint32_t> next_;
};

// Wakes every asleep body connected to a seed through kept contacts; with
// `reset` every seed's and woken body's timer restarts. Appends the bodies
// it woke to *woken. Static seeds are ignored.
void WakeIslands(World::Impl& w, std::optional<ContactGraph>* graph, const std::vector<uint32_t>& seeds, bool reset,
                 std::vector<uint32_t>* woken) {
  std::vector<uint32_t> stack;
  for (const uint32_t seed : seeds) {
    const BodyRecord& body = w.bodies[seed];
    if (body.type == BodyType::kStatic) continue;
    BodyMotion& motion = w.MoverMotion(body);
    if (reset) motion.sleep_time = kFixedZero;
    if (motion.awake) continue;
    if (!graph->has_value()) graph->emplace(w);
    motion.awake = true;
    stack.push_back(seed);
    while (!stack.empty()) {
      const uint32_t slot = stack.back();
      stack.pop_back();
      woken->push_back(slot);
      for (const uint32_t other : (*graph)->Neighbours(slot)) {
        BodyMotion& o = w.MoverMotion(w.bodies[other]);
        if (reset) o.sleep_time = kFixedZero;
        if (o.awake) continue;
        o.awake = true;
        stack.push_back(other);
      }
    }
  }
}

// The asleep bodies with a non-sensor shape that `s` (a shape of `body`)
// may collide with and whose tight box meets `box`, appended to *out (with
// repeats). The movable tree's fat boxes contain the tight ones, so it
// finds every such shape; the exact test decides.
void AsleepWithin(const World::Impl& w, const BodyRecord& body, const ShapeRecord& s, const Aabb& box,
                  std::vector<uint32_t>* out) {
  w.movable_tree.Query(box, [&](uint32_t other) {
    const ShapeRecord& o = w.shapes[other];
    const BodyRecord& ob = w.bodies[o.body_slot];
    if (w.MotionOf(ob).awake || o.is_sensor || o.body_slot == s.body_slot) return true;
    if (body.type != BodyType::kDynamic && ob.type != BodyType::kDynamic) return true;
    if (ShouldCollide(w.FilterOf(s), w.FilterOf(o)) && Overlaps(box, PlacedBox(w, o))) out->push_back(o.body_slot);
    return true;
  });
}

}  // namespace

Fixed BodyReach(BodyType type, const BodyMotion& motion, Fixed gravity_l1, Fixed dt) {
  const Fixed speed = Abs(motion.linear_velocity.x) + Abs(motion.linear_velocity.y) +
                      (type == BodyType::kDynamic ? Abs(motion.gravity_scale) * gravity_l1 * dt : kFixedZero);
  return speed * dt;
}

bool ContactAsleep(const World::Impl& w, const ContactState& c) {
  const BodyRecord* body = w.Find(c.a.body_id);
  if (body->type == BodyType::kStatic) body = w.Find(c.b.body_id);
  return !w.MotionOf(*body).awake;
}

namespace {

// Seeds of WakeTouched's first round found from the asleep side, one tree
// query per asleep shape (for when they are fewer than the awake movers'
// shapes): the same pairs as the awake side's test, as the rule is one box
// overlap, queried with the largest reach of any source and then decided
// by each candidate's own.
void AsleepReached(const World::Impl& w, const std::vector<uint32_t>& asleep, Fixed gravity_l1, Fixed dt,
                   Fixed max_reach, std::vector<uint32_t>* seeds) {
  for (const uint32_t slot : asleep) {
    const BodyRecord& body = w.bodies[slot];
    for (uint32_t i = 0; i < body.shape_count; ++i) {
      const ShapeRecord& s = w.shapes[body.first_shape + i];
      if (s.is_sensor) continue;
      const Aabb tight = PlacedBox(w, s);
      bool reached = false;
      w.movable_tree.Query(GrowBox(tight, max_reach + kSpeculativeDistance), [&](uint32_t other) {
        const ShapeRecord& o = w.shapes[other];
        const BodyRecord& ob = w.bodies[o.body_slot];
        const BodyMotion& om = w.MotionOf(ob);
        if (!om.awake || o.is_sensor || o.body_slot == slot || !(ob.type == BodyType::kDynamic || Moves(om))) return true;
        if (body.type != BodyType::kDynamic && ob.type != BodyType::kDynamic) return true;
        if (!ShouldCollide(w.FilterOf(s), w.FilterOf(o))) return true;
        reached = Overlaps(GrowBox(PlacedBox(w, o), BodyReach(ob.type, om, gravity_l1, dt) + kSpeculativeDistance), tight);
        return !reached;
      });
      if (reached) {
        seeds->push_back(slot);
        break;
      }
    }
  }
}

}  // namespace

void WakeTouched(World::Impl& w, Fixed dt, std::vector<uint32_t>* woken_all) {
  if (!w.def.allow_sleep) return;
  std::vector<uint32_t> sources, asleep;
  for (uint32_t slot = 0; slot < w.bodies.size(); ++slot) {
    const BodyRecord& body = w.bodies[slot];
    if (body.id == 0 || body.type == BodyType::kStatic) continue;
    const BodyMotion& motion = w.MoverMotion(body);
    if (!motion.awake) {
      asleep.push_back(slot);
    } else if (body.type == BodyType::kDynamic || Moves(motion)) {
      sources.push_back(slot);
    }
  }
  if (asleep.empty() || sources.empty()) return;
  const Fixed gravity_l1 = Abs(w.def.gravity.x) + Abs(w.def.gravity.y);
  std::optional<ContactGraph> graph;
  std::vector<uint32_t> seeds, woken;
  bool first = true;
  while (!sources.empty()) {
    seeds.clear();
    if (first && asleep.size() < sources.size()) {
      Fixed max_reach;
      for (const uint32_t slot : sources) max_reach = Max(max_reach, BodyReach(w.bodies[slot].type, w.MoverMotion(w.bodies[slot]), gravity_l1, dt));
      AsleepReached(w, asleep, gravity_l1, dt, max_reach, &seeds);
    } else {
      for (const uint32_t slot : sources) {
        const BodyRecord& body = w.bodies[slot];
        // The pair rule with an asleep partner, whose reach is zero.
        const Fixed g = BodyReach(body.type, w.MoverMotion(body), gravity_l1, dt) + kSpeculativeDistance;
        for (uint32_t i = 0; i < body.shape_count; ++i) {
          const ShapeRecord& s = w.shapes[body.first_shape + i];
          if (!s.is_sensor) AsleepWithin(w, body, s, GrowBox(PlacedBox(w, s), g), &seeds);
        }
      }
    }
    first = false;
    woken.clear();
    WakeIslands(w, &graph, seeds, /*reset=*/false, &woken);
    woken_all->insert(woken_all->end(), woken.begin(), woken.end());
    // Woken bodies are at rest: only the dynamic ones move this tick.
    sources.clear();
    for (const uint32_t slot : woken) {
      if (w.bodies[slot].type == BodyType::kDynamic) sources.push_back(slot);
    }
  }
}

void UpdateSleep(World::Impl& w, StepState* st) {
  if (!w.def.allow_sleep) return;
  const size_t n = st->movers.size();
  bool any_ready = false;
  for (const auto& [id, slot] : st->movers) {
    const BodyRecord& body = w.bodies[slot];
    BodyMotion& motion = w.MoverMotion(body);
    motion.sleep_time = IsSlow(w, body, motion) ? Min(motion.sleep_time + st->dt, kTimeToSleep) : kFixedZero;
    any_ready = any_ready || motion.sleep_time == kTimeToSleep;
  }
  // No timer at the cap: no island can sleep (while the world moves).
  if (!any_ready) return;
  // Islands over solver bodies 1..n joined by this tick's touching
  // manifolds (the contacts kept for next tick), a root the smallest index.
  std::vector<uint32_t>& parent = st->sleep_parent;
  parent.resize(n + 1);
  for (uint32_t i = 0; i <= n; ++i) parent[i] = i;
  auto root = [&](uint32_t x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  };
  for (size_t i = 0; i < st->pairs.size(); ++i) {
    if (st->manifolds[i].point_count == 0) continue;
    const uint32_t a = static_cast<uint32_t>(st->solver_index[w.shapes[st->pairs[i].shape_a].body_slot]);
    const uint32_t b = static_cast<uint32_t>(st->solver_index[w.shapes[st->pairs[i].shape_b].body_slot]);
    if (a == 0 || b == 0) continue;
    const uint32_t ra = root(a), rb = root(b);
    if (ra != rb) parent[ra < rb ? rb : ra] = ra < rb ? ra : rb;
  }
  std::vector<uint8_t>& ready = st->sleep_ready;  // by root: every timer at the cap
  ready.assign(n + 1, 1);
  for (uint32_t j = 1; j <= n; ++j) {
    if (w.MoverMotion(w.bodies[st->movers[j - 1].second]).sleep_time < kTimeToSleep) ready[root(j)] = 0;
  }
  for (uint32_t j = 1; j <= n; ++j) {
    if (ready[root(j)] == 0) continue;
    BodyMotion& motion = w.MoverMotion(w.bodies[st->movers[j - 1].second]);
    motion.awake = false;
    motion.linear_velocity = Vec2{};
    motion.angular_velocity = kFixedZero;
  }
}

void WakeForChange(World::Impl& w, uint32_t slot) {
  if (!w.def.allow_sleep) return;
  const BodyRecord& body = w.bodies[slot];
  std::vector<uint32_t> seeds{slot};
  if (body.type == BodyType::kStatic) {
    // What rests on it (kept contacts) and what its shapes now reach.
    for (const ContactState& c : w.contacts) {
      if (c.a.body_id == body.id) seeds.push_back(w.SlotOf(c.b.body_id));
      if (c.b.body_id == body.id) seeds.push_back(w.SlotOf(c.a.body_id));
    }
    for (uint32_t i = 0; i < body.shape_count; ++i) {
      const ShapeRecord& s = w.shapes[body.first_shape + i];
      if (!s.is_sensor) AsleepWithin(w, body, s, GrowBox(PlacedBox(w, s), kSpeculativeDistance), &seeds);
    }
  }
  std::optional<ContactGraph> graph;
  std::vector<uint32_t> woken;
  WakeIslands(w, &graph, seeds, /*reset=*/true, &woken);
}

void WakeForRemoval(World::Impl& w, std::span<const uint64_t> removed) {
  if (!w.def.allow_sleep) return;
  auto gone = [&](uint64_t id) { return std::binary_search(removed.begin(), removed.end(), id); };
  std::vector<uint32_t> seeds;
  for (const ContactState& c : w.contacts) {
    const bool a = gone(c.a.body_id), b = gone(c.b.body_id);
    if (a && !b) seeds.push_back(w.SlotOf(c.b.body_id));
    if (b && !a) seeds.push_back(w.SlotOf(c.a.body_id));
  }
  std::optional<ContactGraph> graph;
  std::vector<uint32_t> woken;
  WakeIslands(w, &graph, seeds, /*reset=*/true, &woken);
}

}  // namespace arbiter::internal
