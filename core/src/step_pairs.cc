// Stage 2 of a tick: candidate pairs.
//
// The rule is a function of the state alone: shapes a and b pair when
// a's tight box grown by reach_a + reach_b + speculative overlaps b's tight
// box (touching counts). The movable tree's fat boxes depend on when each
// proxy was last re-inserted, history a snapshot does not carry, so they
// must not decide anything here.
//
// Movable against movable: growing each box by its own reach plus half the
// speculative distance makes the rule a plain box overlap (the intervals
// [a - ga, a' + ga] and [b - gb, b' + gb] meet exactly when [a - ga - gb,
// a' + ga + gb] meets [b, b'], in exact integers), so one sort-and-sweep
// over the grown boxes finds exactly the pairs, each once, without a tree
// query per body. Movable against static: one query of the static tree
// (tight boxes) with the box grown by reach + speculative, again exactly
// the rule.
#include <algorithm>

#include "step_internal.h"

namespace arbiter::internal {
namespace {

bool SweepLess(const SweepEntry& x, const SweepEntry& y) { return x.lo != y.lo ? x.lo < y.lo : x.ref < y.ref; }

// The filters every pair passes: different bodies, no sensors, at least one
// body dynamic, the shapes' filters agree.
bool MayPair(const World::Impl& w, uint32_t shape_a, uint32_t shape_b) {
  const ShapeRecord& a = w.shapes[shape_a];
  const ShapeRecord& b = w.shapes[shape_b];
  if (a.body_slot == b.body_slot || a.is_sensor || b.is_sensor) return false;
  if (w.bodies[a.body_slot].type != BodyType::kDynamic && w.bodies[b.body_slot].type != BodyType::kDynamic) return false;
  return ShouldCollide(a.filter, b.filter);
}

void AddPair(const World::Impl& w, uint32_t shape_a, uint32_t shape_b, std::vector<Pair>* pairs) {
  const ShapeRecord& a = w.shapes[shape_a];
  const ShapeRecord& b = w.shapes[shape_b];
  const ShapeRef ra{w.bodies[a.body_slot].id, a.index_in_body};
  const ShapeRef rb{w.bodies[b.body_slot].id, b.index_in_body};
  if (ra < rb) {
    pairs->push_back({ra, rb, shape_a, shape_b});
  } else {
    pairs->push_back({rb, ra, shape_b, shape_a});
  }
}

// Movable shapes against the static tree; collects the sweep entries.
void PairWithStatics(const World::Impl& w, const StepState& st, bool sweep_x, std::vector<Pair>* pairs,
                     std::vector<SweepEntry>* entries) {
  constexpr Fixed half_speculative = Fixed::FromRaw(kSpeculativeDistance.raw() / 2);
  for (const auto& [id, slot] : st.movers) {
    const BodyRecord& body = w.bodies[slot];
    const Fixed reach = st.reach[slot];
    for (uint32_t i = 0; i < body.shape_count; ++i) {
      const uint32_t si = body.first_shape + i;
      const ShapeRecord& s = w.shapes[si];
      if (s.is_sensor) continue;  // sensors are handled after the solve
      const Aabb tight = ComputeProxyAabb(w.ProxyOf(s));
      if (body.type == BodyType::kDynamic) {
        const Fixed g = reach + kSpeculativeDistance;
        w.static_tree.Query({tight.lower - Vec2{g, g}, tight.upper + Vec2{g, g}}, [&, si = si](uint32_t other) {
          if (MayPair(w, si, other)) AddPair(w, si, other, pairs);
          return true;
        });
      }
      const Fixed g = reach + half_speculative;
      const Aabb grown{tight.lower - Vec2{g, g}, tight.upper + Vec2{g, g}};
      const Vec2 lo = grown.lower, hi = grown.upper;
      entries->push_back(sweep_x ? SweepEntry{lo.x.raw(), hi.x.raw(), lo.y.raw(), hi.y.raw(), {id, s.index_in_body}, si, slot}
                                : SweepEntry{lo.y.raw(), hi.y.raw(), lo.x.raw(), hi.x.raw(), {id, s.index_in_body}, si, slot});
    }
  }
}

// Sweeps along the axis over which the movable bodies spread more, so that
// a tall pile does not put every body in one sweep interval.
bool SweepAlongX(const World::Impl& w, const StepState& st) {
  if (st.movers.empty()) return true;
  Vec2 lo = w.bodies[st.movers[0].second].transform.p, hi = lo;
  for (const auto& [id, slot] : st.movers) {
    const Vec2 p = w.bodies[slot].transform.p;
    lo = {Min(lo.x, p.x), Min(lo.y, p.y)};
    hi = {Max(hi.x, p.x), Max(hi.y, p.y)};
  }
  return hi.x - lo.x >= hi.y - lo.y;
}

}  // namespace

void FindPairs(const World::Impl& w, StepState* st) {
  std::vector<Pair>& pairs = st->pairs;  // emptied by StepScratch::Fresh
  const bool sweep_x = SweepAlongX(w, *st);
  std::vector<SweepEntry>& entries = st->sweep;
  PairWithStatics(w, *st, sweep_x, &pairs, &entries);
  std::sort(entries.begin(), entries.end(), SweepLess);
  for (size_t i = 0; i < entries.size(); ++i) {
    const SweepEntry& e = entries[i];
    for (size_t j = i + 1; j < entries.size() && entries[j].lo <= e.hi; ++j) {
      const SweepEntry& f = entries[j];
      if (f.lo2 > e.hi2 || e.lo2 > f.hi2) continue;
      if (MayPair(w, e.shape, f.shape)) AddPair(w, e.shape, f.shape, &pairs);
    }
  }
  // Each pair was found once: a static partner by one query, a movable one
  // by one sweep step.
  std::sort(pairs.begin(), pairs.end());
}

}  // namespace arbiter::internal
