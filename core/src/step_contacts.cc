// Stage 3 of a tick: manifolds and solver constraints.
//
// Every candidate pair gets a manifold reaching as far as the two bodies can
// travel this tick (speculative contacts: Catto, "Speculative contacts", GDC
// 2013), so a body approaching at speed is stopped by a speculative contact
// instead of sinking in. Impulses of the previous tick are carried over by
// feature id (warm starting). Only touching contacts are state: pairs whose
// boxes merely overlap must not reach the hash.
#include <algorithm>

#include "arbiter/core/fixed_math.h"
#include "arbiter/core/manifold.h"
#include "step_internal.h"
#include "step_sleep.h"

namespace arbiter::internal {
namespace {

bool KeyLess(const ContactState& c, const Pair& p) { return PairLess(c, p); }

// Effective mass along `axis` of a point with anchors ra, rb.
Fixed EffectiveMass(const SolverBody& a, const SolverBody& b, Vec2 ra, Vec2 rb, Vec2 axis) {
  const Fixed rna = Cross(ra, axis), rnb = Cross(rb, axis);
  const Fixed k = a.inv_mass + b.inv_mass + a.inv_inertia * rna * rna + b.inv_inertia * rnb * rnb;
  return k > kFixedZero ? kFixedOne / k : kFixedZero;
}

// sqrt(fa fb), Box2D's friction mixing. Most pairs of a scene share their
// materials, so the last answer is kept: a pure function of its inputs,
// memoised, gives the same bits as computing it again.
class FrictionMixer {
 public:
  Fixed Mix(Fixed fa, Fixed fb) {
    if (!valid_ || fa != fa_ || fb != fb_) {
      fa_ = fa;
      fb_ = fb;
      mixed_ = Sqrt(fa * fb);
      valid_ = true;
    }
    return mixed_;
  }

 private:
  bool valid_ = false;
  Fixed fa_, fb_, mixed_;
};

// The solver contact of one manifold, warm started from `previous`,
// written into `out`: every field the solver reads (the points past
// point_count are never read), so `out` may hold an older tick's contact.
void MakeConstraint(const World::Impl& w, const StepState& st, const Pair& pair, const Manifold& m,
                    const ContactState* previous, FrictionMixer* friction, SolverContact* out) {
  const ShapeRecord& sa = w.shapes[pair.shape_a];
  const ShapeRecord& sb = w.shapes[pair.shape_b];
  SolverContact& c = *out;
  c.body_a = st.solver_index[sa.body_slot];
  c.body_b = st.solver_index[sb.body_slot];
  c.static_side = c.body_a == 0 ? StaticSide::kA : (c.body_b == 0 ? StaticSide::kB : StaticSide::kNone);
  c.normal = m.normal;
  const ShapeMaterial& ma = w.MaterialOf(sa);
  const ShapeMaterial& mb = w.MaterialOf(sb);
  c.friction = friction->Mix(ma.friction, mb.friction);
  c.restitution = Max(ma.restitution, mb.restitution);
  c.point_count = m.point_count;
  const Vec2 ca = st.world_center[sa.body_slot], cb = st.world_center[sb.body_slot];
  const SolverBody& body_a = st.solver[c.body_a];
  const SolverBody& body_b = st.solver[c.body_b];
  const Vec2 tangent = RightPerp(m.normal);
  for (int i = 0; i < m.point_count; ++i) {
    SolverPoint& p = c.points[i];
    p = SolverPoint{};
    p.id = m.points[i].id;
    p.anchor_a = m.points[i].point - ca;
    p.anchor_b = m.points[i].point - cb;
    p.base_separation = m.points[i].separation - Dot(p.anchor_b - p.anchor_a, m.normal);
    // What the solver's first pass computes from the poses at the start
    // of the tick (step_solver.cc, SolveContact): Dot(anchor_b - anchor_a,
    // normal) + base_separation, which wraps back to the manifold's.
    p.separation = m.points[i].separation;
    if (previous != nullptr) {
      for (int k = 0; k < previous->point_count; ++k) {
        if (previous->points[k].id == p.id) {
          p.normal_impulse = previous->points[k].normal_impulse;
          p.tangent_impulse = previous->points[k].tangent_impulse;
        }
      }
    }
    p.normal_mass = EffectiveMass(body_a, body_b, p.anchor_a, p.anchor_b, m.normal);
    p.soft_normal_mass = p.normal_mass * st.soft.mass_scale;
    p.tangent_mass = EffectiveMass(body_a, body_b, p.anchor_a, p.anchor_b, tangent);
    p.relative_velocity = Dot(RelativeVelocity(body_a, body_b, p.anchor_a, p.anchor_b), m.normal);
  }
}

}  // namespace

namespace {

// Stage 3a for pairs [begin, end): their manifolds, into st->manifolds.
// Shapes keep their placement through this stage, so a shape's memo serves
// every pair it is in; the worker's memos of the range's shapes are reset
// first (they may be a tick old). Returns how many manifolds touch.
size_t CollidePairs(const World::Impl& w, StepState* st, size_t begin, size_t end, std::vector<CoreMemo>* memos) {
  if (memos->size() < w.shapes.size()) memos->resize(w.shapes.size());
  for (size_t i = begin; i < end; ++i) {
    (*memos)[st->pairs[i].shape_a].Reset();
    (*memos)[st->pairs[i].shape_b].Reset();
  }
  size_t touching = 0;
  for (size_t i = begin; i < end; ++i) {
    const Pair& pair = st->pairs[i];
    const ShapeRecord& sa = w.shapes[pair.shape_a];
    const ShapeRecord& sb = w.shapes[pair.shape_b];
    const Fixed speculative = kSpeculativeDistance + st->reach[sa.body_slot] + st->reach[sb.body_slot];
    CoreMemo* memo_a = &(*memos)[pair.shape_a];
    CoreMemo* memo_b = &(*memos)[pair.shape_b];
    // Convex shapes are read in place (the proxy Collide would be given
    // holds the same points); chain segments take the proxy's path.
    const Manifold& m = st->manifolds[i] =
        sa.type == ShapeType::kChainSegment || sb.type == ShapeType::kChainSegment
            ? CollideMemo(w.ProxyOf(sa), memo_a, w.ProxyOf(sb), memo_b, speculative)
            : CollideViews(w.ViewOf(sa), memo_a, w.ViewOf(sb), memo_b, speculative);
    if (m.point_count > 0) ++touching;
  }
  return touching;
}

// The first contact of the last tick after every pair before `begin`:
// where a range's merge with w.contacts starts.
size_t FirstContactOfRange(const World::Impl& w, const StepState& st, size_t begin) {
  if (begin == 0) return 0;
  const Pair& before = st.pairs[begin - 1];
  return static_cast<size_t>(
      std::upper_bound(w.contacts.begin(), w.contacts.end(), before,
                       PairLess<Pair, ContactState>) -
      w.contacts.begin());
}

// Stage 3b for pairs [begin, end), whose touching manifolds become
// constraints (and next contacts) from index `first` on: warm starting
// from the last tick's contacts (sorted like the pairs: merged), and the
// range's begin and end events (`last`: the range also ends the contacts
// after every pair).
void BuildConstraints(const World::Impl& w, StepState* st, size_t begin, size_t end, size_t first, bool last,
                      ChunkOutput* out) {
  size_t old = FirstContactOfRange(w, *st, begin);
  size_t next = first;
  FrictionMixer friction;
  auto end_event = [&](const ContactState& c) { out->end_events.push_back({c.a, c.b, {}, {}, {}}); };
  // A last-tick contact no pair found: it ends, unless its bodies sleep
  // (no pair joins an asleep body): then it is kept as it is.
  const bool sleeping = w.def.allow_sleep;
  auto unmatched = [&](const ContactState& c) {
    if (sleeping && ContactAsleep(w, c)) {
      out->kept.push_back(c);
    } else if (c.point_count > 0) {
      end_event(c);
    }
  };
  for (size_t i = begin; i < end; ++i) {
    const Pair& pair = st->pairs[i];
    while (old < w.contacts.size() && KeyLess(w.contacts[old], pair)) unmatched(w.contacts[old++]);
    const ContactState* previous =
        old < w.contacts.size() && w.contacts[old].a == pair.a && w.contacts[old].b == pair.b ? &w.contacts[old] : nullptr;
    if (previous != nullptr) ++old;
    const Manifold& m = st->manifolds[i];
    const bool was_touching = previous != nullptr && previous->point_count > 0;
    if (m.point_count == 0) {
      if (was_touching) end_event(*previous);
      continue;
    }
    // Only touching manifolds become constraints; built in place.
    SolverContact& c = st->constraints[next];
    MakeConstraint(w, *st, pair, m, previous, &friction, &c);
    if (!was_touching) {
      out->begin_events.push_back({pair.a, pair.b, m.points[0].point, m.normal, Max(-c.points[0].relative_velocity, kFixedZero)});
    }
    // Every field is written (the list is not emptied between ticks):
    // the solver fills points [0, point_count), the rest is default.
    ContactState& state = st->next_contacts[next++];
    state.a = pair.a;
    state.b = pair.b;
    state.point_count = m.point_count;
    for (int k = m.point_count; k < 2; ++k) state.points[k] = ContactPointState{};
  }
  if (!last) return;
  for (; old < w.contacts.size(); ++old) unmatched(w.contacts[old]);
}

void AppendEvents(const std::vector<ContactEvent>& from, std::vector<ContactEvent>* to) {
  to->insert(to->end(), from.begin(), from.end());
}

}  // namespace

void PrepareContacts(const World::Impl& w, StepState* st) {
  st->soft = ContactSoftness(w, *st);
  const size_t n = st->pairs.size();
  const uint32_t chunks = st->tasks.Chunks(n, 128);
  std::vector<ChunkOutput>& out = st->FreshChunks(chunks);
  if (st->core_memos.size() < st->tasks.workers()) st->core_memos.resize(st->tasks.workers());
  if (st->manifolds.size() < n) st->manifolds.resize(n);
  st->tasks.Run(chunks, [&](uint32_t c, uint32_t worker) {
    out[c].touching = CollidePairs(w, st, ChunkBegin(n, chunks, c), ChunkBegin(n, chunks, c + 1), &st->core_memos[worker]);
  });
  // Each chunk's constraints start after the earlier chunks' (pair order).
  size_t firsts[kMaxStepChunks + 1] = {};
  for (uint32_t c = 0; c < chunks; ++c) firsts[c + 1] = firsts[c] + out[c].touching;
  // Neither is emptied between ticks (StepScratch::Fresh): MakeConstraint
  // and BuildConstraints write every field of a constraint and its next
  // contact, so only new elements are initialised.
  st->constraints.resize(firsts[chunks]);
  st->next_contacts.resize(firsts[chunks]);
  st->tasks.Run(chunks, [&](uint32_t c, uint32_t) {
    BuildConstraints(w, st, ChunkBegin(n, chunks, c), ChunkBegin(n, chunks, c + 1), firsts[c], c + 1 == chunks, &out[c]);
  });
  for (uint32_t c = 0; c < chunks; ++c) {
    AppendEvents(out[c].begin_events, &st->begin_events);
    AppendEvents(out[c].end_events, &st->end_events);
    // Chunks hold ascending, disjoint runs of last tick's list.
    st->kept_contacts.insert(st->kept_contacts.end(), out[c].kept.begin(), out[c].kept.end());
  }
}

}  // namespace arbiter::internal
