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
// query per body. Movable against static: a static shape's reach is zero,
// so its tight box grown by half the speculative distance joins the same
// sweep (the rule again, exactly) when the statics are few next to the
// movers; when they are many, one query of the static tree per movable
// shape, with its box grown by reach + speculative, and the rule checked on
// each candidate's tight box (the tree's are rounded out), finds the same
// pairs without sweeping every static.
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
  return ShouldCollide(w.FilterOf(a), w.FilterOf(b));
}

void AddPair(const World::Impl& w, uint32_t shape_a, uint32_t shape_b, std::vector<Pair>* pairs) {
  const ShapeRecord& a = w.shapes[shape_a];
  const ShapeRecord& b = w.shapes[shape_b];
  const ShapeRef ra{a.body_id, a.index_in_body};
  const ShapeRef rb{b.body_id, b.index_in_body};
  if (ra < rb) {
    pairs->push_back({ra, rb, shape_a, shape_b});
  } else {
    pairs->push_back({rb, ra, shape_b, shape_a});
  }
}

// A chunk stops adding pairs once its own list exceeds the tick's budget:
// then the total does too, so whether a tick is over budget does not
// depend on how it was cut into chunks (or threads).
bool Over(const StepState& st, const std::vector<Pair>& pairs) { return pairs.size() > st.max_pairs; }

constexpr Fixed kHalfSpeculative = Fixed::FromRaw(kSpeculativeDistance.raw() / 2);

// The sweep entry of a shape whose tight box is `tight`, grown by `g` on
// every side.
SweepEntry MakeEntry(const Aabb& tight, Fixed g, bool sweep_x, ShapeRef ref, uint32_t shape, uint32_t slot) {
  const Aabb grown = GrowBox(tight, g);
  const Vec2 lo = grown.lower, hi = grown.upper;
  return sweep_x ? SweepEntry{lo.x.raw(), hi.x.raw(), lo.y.raw(), hi.y.raw(), ref, shape, slot}
                 : SweepEntry{lo.y.raw(), hi.y.raw(), lo.x.raw(), hi.x.raw(), ref, shape, slot};
}

// Every static non-sensor shape as a sweep entry: its tight box (the
// static tree holds it only rounded out) grown by half the speculative
// distance, the reach of a static body being zero.
void AddStaticEntries(const World::Impl& w, bool sweep_x, std::vector<SweepEntry>* entries) {
  for (uint32_t slot = 0; slot < w.bodies.size(); ++slot) {
    const BodyRecord& body = w.bodies[slot];
    if (body.id == 0 || body.type != BodyType::kStatic) continue;
    for (uint32_t i = 0; i < body.shape_count; ++i) {
      const uint32_t si = body.first_shape + i;
      const ShapeRecord& s = w.shapes[si];
      if (s.is_sensor) continue;
      entries->push_back(MakeEntry(PlacedBox(w, s), kHalfSpeculative, sweep_x, {body.id, s.index_in_body}, si, slot));
    }
  }
}

// Movers [begin, end): their sweep entries, and with `query_statics` their
// pairs with static shapes from the static tree.
void PairWithStatics(const World::Impl& w, const StepState& st, bool sweep_x, bool query_statics, size_t begin,
                     size_t end, ChunkOutput* out) {
  for (size_t m = begin; m < end; ++m) {
    const auto& [id, slot] = st.movers[m];
    const BodyRecord& body = w.bodies[slot];
    const Fixed reach = st.reach[slot];
    for (uint32_t i = 0; i < body.shape_count; ++i) {
      const uint32_t si = body.first_shape + i;
      const ShapeRecord& s = w.shapes[si];
      if (s.is_sensor) continue;  // sensors are handled after the solve
      const Aabb tight = PlacedBox(w, s);
      if (query_statics && body.type == BodyType::kDynamic) {
        const Aabb grown = GrowBox(tight, reach + kSpeculativeDistance);
        // The tree's boxes are rounded out (compact_tree.h), so its
        // candidates are checked against the rule's exact boxes.
        w.static_tree.Query(grown, [&, si = si](uint32_t other) {
          if (MayPair(w, si, other) && Overlaps(grown, PlacedBox(w, w.shapes[other]))) AddPair(w, si, other, &out->pairs);
          return !Over(st, out->pairs);
        });
      }
      out->sweep.push_back(MakeEntry(tight, reach + kHalfSpeculative, sweep_x, {id, s.index_in_body}, si, slot));
    }
  }
}

// The sweep from entries [begin, end) of the sorted list: each against the
// entries after it whose intervals start within its own.
void SweepPairs(const World::Impl& w, const StepState& st, const std::vector<SweepEntry>& entries, size_t begin,
                size_t end, std::vector<Pair>* pairs) {
  const SweepEntry* const all = entries.data();
  const size_t n = entries.size();
  for (size_t i = begin; i < end && !Over(st, *pairs); ++i) {
    const int64_t hi = all[i].hi, lo2 = all[i].lo2, hi2 = all[i].hi2;
    for (size_t j = i + 1; j < n && all[j].lo <= hi; ++j) {
      // One branch on both tests (the overlap along the other axis is a
      // coin toss the predictor loses twice as often when split).
      const int tests = static_cast<int>(all[j].lo2 <= hi2) + static_cast<int>(lo2 <= all[j].hi2);
      if (tests == 2 && MayPair(w, all[i].shape, all[j].shape)) AddPair(w, all[i].shape, all[j].shape, pairs);
    }
  }
}

// The chunks' sorted pair lists merged into one sorted list (pairs are
// unique, so the merge is the same whatever chunk found which pair).
void MergePairs(std::vector<ChunkOutput>& chunks, uint32_t count, std::vector<Pair>* out) {
  if (count == 1) {
    std::swap(*out, chunks[0].pairs);  // both keep their capacity
    return;
  }
  size_t total = 0;
  for (uint32_t c = 0; c < count; ++c) total += chunks[c].pairs.size();
  out->reserve(total);
  size_t heads[kMaxStepChunks] = {};
  for (size_t n = 0; n < total; ++n) {
    uint32_t best = count;
    for (uint32_t c = 0; c < count; ++c) {
      if (heads[c] == chunks[c].pairs.size()) continue;
      if (best == count || chunks[c].pairs[heads[c]] < chunks[best].pairs[heads[best]]) best = c;
    }
    out->push_back(chunks[best].pairs[heads[best]++]);
  }
}

// The entries sorted by SweepLess. Keys are unique, so any sort gives the
// same list; bodies move little in a tick, so last tick's order of the
// shapes (when along the same axis) is nearly sorted already, and an
// insertion sort from it does about n steps where a full sort does
// n log n. A list too far from sorted (more shifts than a budget) is
// sorted anew, as is any list after an axis change.
void SortSweep(const World::Impl& w, StepState* st, bool sweep_x) {
  std::vector<SweepEntry>& entries = st->sweep;
  std::vector<uint32_t>& previous = st->sweep_previous;
  if (sweep_x != st->sweep_was_x || previous.empty()) {
    std::sort(entries.begin(), entries.end(), SweepLess);
  } else {
    // Last tick's order first (shapes still sweeping), then the new ones.
    std::vector<uint32_t>& entry_of = st->sweep_entry_of;  // by shape: 1 + its entry, 0 for none
    if (entry_of.size() < w.shapes.size()) entry_of.resize(w.shapes.size(), 0);
    for (size_t i = 0; i < entries.size(); ++i) entry_of[entries[i].shape] = static_cast<uint32_t>(i + 1);
    std::vector<SweepEntry>& ordered = st->sweep_ordered;
    ordered.clear();
    for (const uint32_t shape : previous) {
      if (shape < entry_of.size() && entry_of[shape] != 0) {
        ordered.push_back(entries[entry_of[shape] - 1]);
        entry_of[shape] = 0;
      }
    }
    for (const SweepEntry& e : entries) {
      if (entry_of[e.shape] == 0) continue;
      ordered.push_back(e);
      entry_of[e.shape] = 0;
    }
    std::swap(entries, ordered);
    const size_t budget = 8 * entries.size() + 64;
    size_t shifts = 0;
    for (size_t i = 1; i < entries.size() && shifts <= budget; ++i) {
      const SweepEntry e = entries[i];
      size_t j = i;
      for (; j > 0 && SweepLess(e, entries[j - 1]); --j) entries[j] = entries[j - 1];
      entries[j] = e;
      shifts += i - j;
    }
    if (shifts > budget) std::sort(entries.begin(), entries.end(), SweepLess);
  }
  st->sweep_was_x = sweep_x;
  previous.clear();
  for (const SweepEntry& e : entries) previous.push_back(e.shape);
}

// Each pairable shape's place in (body id, shape index) order, by shape
// index: the movers' and the static bodies' shapes, bodies merged by id.
// Ranks order shapes as their refs do, so pairs sort by (rank a, rank b).
void RankShapes(const World::Impl& w, StepState* st) {
  std::vector<std::pair<uint64_t, uint32_t>>& statics = st->static_bodies;
  statics.clear();
  for (uint32_t slot = 0; slot < w.bodies.size(); ++slot) {
    if (w.bodies[slot].id != 0 && w.bodies[slot].type == BodyType::kStatic) statics.push_back({w.bodies[slot].id, slot});
  }
  if (!std::is_sorted(statics.begin(), statics.end())) std::sort(statics.begin(), statics.end());
  st->shape_rank.resize(w.shapes.size());
  uint32_t rank = 0;
  size_t m = 0, s = 0;
  while (m < st->movers.size() || s < statics.size()) {
    const bool mover = s == statics.size() || (m < st->movers.size() && st->movers[m].first < statics[s].first);
    const BodyRecord& body = w.bodies[mover ? st->movers[m++].second : statics[s++].second];
    for (uint32_t i = 0; i < body.shape_count; ++i) st->shape_rank[body.first_shape + i] = rank++;
  }
}

// The pairs sorted as operator< sorts them (pairs are unique, so the
// result is the same list): a counting sort by a's rank, then each run of
// one a (its partners: few, but a floor's can be hundreds) by b's rank.
// `counts` and `sorted` are scratch.
void SortPairs(const std::vector<uint32_t>& rank, std::vector<Pair>* pairs, std::vector<uint32_t>* counts,
               std::vector<Pair>* sorted) {
  counts->assign(rank.size() + 1, 0);
  for (const Pair& p : *pairs) ++(*counts)[rank[p.shape_a] + 1];
  for (size_t i = 1; i < counts->size(); ++i) (*counts)[i] += (*counts)[i - 1];
  sorted->resize(pairs->size());
  for (const Pair& p : *pairs) (*sorted)[(*counts)[rank[p.shape_a]]++] = p;
  // Now counts[r] is where run r ends (and run r + 1 begins).
  auto b_less = [&](const Pair& x, const Pair& y) { return rank[x.shape_b] < rank[y.shape_b]; };
  Pair* const first = sorted->data();
  for (size_t r = 0, begin = 0; r + 1 < counts->size(); begin = (*counts)[r++]) {
    const size_t end = (*counts)[r];
    if (end - begin > 16) {
      std::sort(first + begin, first + end, b_less);
      continue;
    }
    for (size_t i = begin + 1; i < end; ++i) {
      const Pair p = first[i];
      size_t j = i;
      for (; j > begin && b_less(p, first[j - 1]); --j) first[j] = first[j - 1];
      first[j] = p;
    }
  }
  std::swap(*pairs, *sorted);
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
  const bool sweep_x = SweepAlongX(w, *st);
  // Statics sweep with the movers when there are no more of them than
  // movers (a leaf count bounds the static shapes; either way the pairs
  // are the rule's).
  const bool sweep_statics = static_cast<size_t>(w.static_tree.leaf_count()) <= st->movers.size();
  // Movers (against the static tree), by ranges of movers; their sweep
  // entries are gathered and sorted (keys are unique: the order found
  // never shows). Without the queries an entry is a few comparisons, not
  // worth waking a thread for.
  const uint32_t by_mover =
      sweep_statics ? 1 : std::min(st->tasks.Chunks(st->movers.size(), 256), st->tasks.workers());
  std::vector<ChunkOutput>& chunks = st->FreshChunks(kMaxStepChunks);
  st->tasks.Run(by_mover, [&](uint32_t c, uint32_t) {
    const size_t n = st->movers.size();
    PairWithStatics(w, *st, sweep_x, !sweep_statics, ChunkBegin(n, by_mover, c), ChunkBegin(n, by_mover, c + 1),
                    &chunks[c]);
  });
  std::vector<SweepEntry>& entries = st->sweep;  // emptied by StepScratch::Fresh
  if (by_mover == 1) {
    std::swap(entries, chunks[0].sweep);
  } else {
    for (uint32_t c = 0; c < by_mover; ++c) entries.insert(entries.end(), chunks[c].sweep.begin(), chunks[c].sweep.end());
  }
  if (sweep_statics) AddStaticEntries(w, sweep_x, &entries);
  SortSweep(w, st, sweep_x);
  RankShapes(w, st);
  // The sweep by ranges of entries, each range's pairs into its own chunk
  // (after the static pairs it may hold), then each chunk sorted and all
  // merged: each pair was found once, a static partner by one query, a
  // movable one by one sweep step.
  // A range of the sweep is a few microseconds' work per thousand entries:
  // less than what another thread costs to start on entries this one just
  // sorted, plus the merge (rain-2k's 2,300 entries swept in two ranges
  // took 0.34 ms a tick against 0.22 ms in one, on two cores).
  const uint32_t by_entry = std::min(st->tasks.Chunks(entries.size(), 4096), st->tasks.workers());
  const uint32_t lists = std::max(by_mover, by_entry);
  st->tasks.Run(lists, [&](uint32_t c, uint32_t) {
    const size_t n = entries.size();
    if (c < by_entry && !Over(*st, chunks[c].pairs)) {
      SweepPairs(w, *st, entries, ChunkBegin(n, by_entry, c), ChunkBegin(n, by_entry, c + 1), &chunks[c].pairs);
    }
    SortPairs(st->shape_rank, &chunks[c].pairs, &chunks[c].pair_counts, &chunks[c].pairs_sorted);
  });
  uint64_t total = 0;
  for (uint32_t c = 0; c < lists; ++c) total += chunks[c].pairs.size();
  if (total > st->max_pairs) {
    st->over_budget = true;
    return;
  }
  MergePairs(chunks, lists, &st->pairs);
}

}  // namespace arbiter::internal
