// Stage 3 of a tick: manifolds and solver constraints.
//
// Every candidate pair gets a manifold reaching as far as the two bodies can
// travel this tick (speculative contacts: Catto, "Speculative contacts", GDC
// 2013), so a body approaching at speed is stopped by a speculative contact
// instead of sinking in. Impulses of the previous tick are carried over by
// feature id (warm starting). Only touching contacts are state: pairs whose
// boxes merely overlap must not reach the hash.
#include "arbiter/core/fixed_math.h"
#include "arbiter/core/manifold.h"
#include "step_internal.h"

namespace arbiter::internal {
namespace {

bool KeyLess(const ContactState& c, const Pair& p) { return c.a != p.a ? c.a < p.a : c.b < p.b; }

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
// written into `c` (a fresh, value-initialised constraint).
void MakeConstraint(const World::Impl& w, const StepState& st, const Pair& pair, const Manifold& m,
                    const ContactState* previous, FrictionMixer* friction, SolverContact* out) {
  const ShapeRecord& sa = w.shapes[pair.shape_a];
  const ShapeRecord& sb = w.shapes[pair.shape_b];
  SolverContact& c = *out;
  c.body_a = st.solver_index[sa.body_slot];
  c.body_b = st.solver_index[sb.body_slot];
  c.static_side = c.body_a == 0 ? StaticSide::kA : (c.body_b == 0 ? StaticSide::kB : StaticSide::kNone);
  c.normal = m.normal;
  c.friction = friction->Mix(sa.friction, sb.friction);
  c.restitution = Max(sa.restitution, sb.restitution);
  c.point_count = m.point_count;
  const Vec2 ca = st.world_center[sa.body_slot], cb = st.world_center[sb.body_slot];
  const SolverBody& body_a = st.solver[c.body_a];
  const SolverBody& body_b = st.solver[c.body_b];
  const Vec2 tangent = RightPerp(m.normal);
  for (int i = 0; i < m.point_count; ++i) {
    SolverPoint& p = c.points[i];
    p.id = m.points[i].id;
    p.anchor_a = m.points[i].point - ca;
    p.anchor_b = m.points[i].point - cb;
    p.base_separation = m.points[i].separation - Dot(p.anchor_b - p.anchor_a, m.normal);
    if (previous != nullptr) {
      for (int k = 0; k < previous->point_count; ++k) {
        if (previous->points[k].id == p.id) {
          p.normal_impulse = previous->points[k].normal_impulse;
          p.tangent_impulse = previous->points[k].tangent_impulse;
        }
      }
    }
    p.normal_mass = EffectiveMass(body_a, body_b, p.anchor_a, p.anchor_b, m.normal);
    p.tangent_mass = EffectiveMass(body_a, body_b, p.anchor_a, p.anchor_b, tangent);
    p.relative_velocity = Dot(RelativeVelocity(body_a, body_b, p.anchor_a, p.anchor_b), m.normal);
  }
}

}  // namespace

void PrepareContacts(const World::Impl& w, StepState* st) {
  // Shapes keep their placement through this stage, so a shape's memo
  // serves every pair it is in; reset only the memos of shapes in pairs.
  if (st->core_memos.size() < w.shapes.size()) st->core_memos.resize(w.shapes.size());
  for (const Pair& pair : st->pairs) {
    st->core_memos[pair.shape_a].Reset();
    st->core_memos[pair.shape_b].Reset();
  }
  size_t old = 0;
  FrictionMixer friction;
  auto end_event = [&](const ContactState& c) { st->end_events.push_back({c.a, c.b, {}, {}, {}}); };
  for (const Pair& pair : st->pairs) {
    // Contacts of the last tick are sorted like the pairs: merge.
    while (old < w.contacts.size() && KeyLess(w.contacts[old], pair)) {
      if (w.contacts[old].point_count > 0) end_event(w.contacts[old]);
      ++old;
    }
    const ContactState* previous =
        old < w.contacts.size() && w.contacts[old].a == pair.a && w.contacts[old].b == pair.b ? &w.contacts[old] : nullptr;
    if (previous != nullptr) ++old;

    const ShapeRecord& sa = w.shapes[pair.shape_a];
    const ShapeRecord& sb = w.shapes[pair.shape_b];
    const Fixed speculative = kSpeculativeDistance + st->reach[sa.body_slot] + st->reach[sb.body_slot];
    const Manifold m =
        CollideMemo(w.ProxyOf(sa), &st->core_memos[pair.shape_a], w.ProxyOf(sb), &st->core_memos[pair.shape_b], speculative);
    const bool was_touching = previous != nullptr && previous->point_count > 0;
    if (m.point_count == 0) {
      if (was_touching) end_event(*previous);
      continue;
    }
    // Only touching manifolds become constraints; built in place.
    SolverContact& c = st->constraints.emplace_back();
    MakeConstraint(w, *st, pair, m, previous, &friction, &c);
    if (!was_touching) {
      st->begin_events.push_back({pair.a, pair.b, m.points[0].point, m.normal, Max(-c.points[0].relative_velocity, kFixedZero)});
    }
    ContactState state;
    state.a = pair.a;
    state.b = pair.b;
    state.point_count = m.point_count;
    st->next_contacts.push_back(state);
  }
  for (; old < w.contacts.size(); ++old) {
    if (w.contacts[old].point_count > 0) end_event(w.contacts[old]);
  }
}

}  // namespace arbiter::internal
