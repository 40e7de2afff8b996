// Stage 4 of a tick: the contact solver.
//
// Box2D v3's "soft step" (Erin Catto, "Solver2D", 2024): sequential impulses
// on soft contact constraints, with sub-stepping and a relax pass, then
// restitution; Coulomb friction. Constraints are solved in pair order;
// with an executor, islands of them at once (SolveContacts: the same
// bits).
#include <algorithm>

#include "arbiter/core/fixed_math.h"
#include "step_internal.h"

namespace arbiter::internal {
namespace {

// Soft constraint coefficients for a spring of `hertz` and damping ratio
// `zeta` integrated with step h (Box2D v3 b2MakeSoft).
Softness MakeSoft(Fixed hertz, Fixed zeta, Fixed h) {
  if (hertz == kFixedZero) return {kFixedZero, kFixedOne, kFixedZero};
  const Fixed omega = kFixedTwoPi * hertz;
  const Fixed a1 = zeta.ShiftLeft(1) + h * omega;
  const Fixed a2 = h * omega * a1;
  const Fixed a3 = kFixedOne / (kFixedOne + a2);
  return {omega / a1, a2 * a3, a3};
}

Rot IntegrateRotation(Rot q, Fixed angle) {
  // q + angle * (dq/dtheta) (Box2D v3 b2IntegrateRotation), brought back to
  // unit length by one Newton step for 1/sqrt(m) at m = 1, i.e. scaling by
  // (3 - m) / 2: with m = |q|^2 = 1 + angle^2 + (earlier error) the result
  // is unit to O(angle^4), the error does not accumulate (every step pulls
  // it back), and it costs four products instead of a square root and two
  // divisions per body per sub-step. The pose is normalised exactly once
  // per tick when the step ends.
  const Rot r{q.c - angle * q.s, q.s + angle * q.c};
  const Fixed m = RoundWide(MulWide(r.c, r.c) + MulWide(r.s, r.s));
  const Fixed scale = (Fixed::FromInt(3) - m).Half();
  return {scale * r.c, scale * r.s};
}

// The solver leaves out what the immovable body (solver index 0) adds,
// because every such term is exact: its velocity and pose delta are zero
// and its rotation delta the identity, so a.v + CrossSV(a.w, r) is (0, 0)
// (0 * x rounds to 0), x - 0 is x, RotateVector(identity, r) is r (r 2^32,
// rounded back, is r), and an impulse on it changes nothing (0 * x is 0).
// `S` says which side, if any, is that body; the results are the bits of
// the general code.
template <StaticSide S>
Vec2 Relative(const SolverBody& a, const SolverBody& b, Vec2 ra, Vec2 rb) {
  if constexpr (S == StaticSide::kA) {
    return b.v + CrossSV(b.w, rb);
  } else if constexpr (S == StaticSide::kB) {
    return -(a.v + CrossSV(a.w, ra));  // (0, 0) - x is -x
  } else {
    return RelativeVelocity(a, b, ra, rb);
  }
}

// How far B's anchor has moved relative to A's since the tick began.
template <StaticSide S>
Vec2 Displacement(const SolverBody& a, const SolverBody& b, Vec2 ra, Vec2 rb) {
  if constexpr (S == StaticSide::kA) {
    return b.delta_position + (RotateVector(b.delta_rotation, rb) - ra);
  } else if constexpr (S == StaticSide::kB) {
    return -a.delta_position + (rb - RotateVector(a.delta_rotation, ra));
  } else {
    return (b.delta_position - a.delta_position) + (RotateVector(b.delta_rotation, rb) - RotateVector(a.delta_rotation, ra));
  }
}

// A zero impulse changes nothing either (v - m 0 is v), so callers skip it.
template <StaticSide S>
void ApplyImpulse(SolverBody* a, SolverBody* b, Vec2 ra, Vec2 rb, Vec2 impulse) {
  if constexpr (S != StaticSide::kA) {
    a->v = a->v - a->inv_mass * impulse;
    a->w = a->w - a->inv_inertia * Cross(ra, impulse);
  }
  if constexpr (S != StaticSide::kB) {
    b->v = b->v + b->inv_mass * impulse;
    b->w = b->w + b->inv_inertia * Cross(rb, impulse);
  }
}

// One pass over a contact's points. Two shortcuts keep the bits: a mass
// scale of one and an impulse scale of zero are left out (x 1 rounds to x,
// 0 x is 0 and y - 0 is y), and the soft mass normal_mass * mass_scale is
// the product formed once per tick (soft_normal_mass).
//
// The separation is a function of the poses alone, and the poses change
// only in IntegratePosition: the biased pass of a sub-step sees the poses
// the previous sub-step's relax pass saw (or, in the first sub-step, the
// poses at the start of the tick, where the separation is the manifold's:
// MakeConstraint). So the relax pass computes it and stores it in the
// point, and the biased pass reads it: the same bits, half the work.
template <StaticSide S, bool kUseBias>
void SolveContact(SolverContact& c, SolverBody* bodies, const Softness& soft, Fixed inv_h) {
  SolverBody& a = bodies[c.body_a];
  SolverBody& b = bodies[c.body_b];
  const Vec2 n = c.normal;
  const Vec2 tangent = RightPerp(n);
  for (int i = 0; i < c.point_count; ++i) {
    SolverPoint& p = c.points[i];
    // Current separation from the bodies' motion so far this tick.
    Fixed s;
    if constexpr (kUseBias) {
      s = p.separation;
    } else {
      s = Dot(Displacement<S>(a, b, p.anchor_a, p.anchor_b), n) + p.base_separation;
      p.separation = s;
    }
    const Fixed vn = Dot(Relative<S>(a, b, p.anchor_a, p.anchor_b), n);
    Fixed impulse;
    if (s > kFixedZero) {
      impulse = -(p.normal_mass * (vn + s * inv_h));  // speculative: allow closing exactly the gap
    } else if constexpr (kUseBias) {
      const Fixed bias = Max(soft.bias_rate * s, -kContactPushMaxVelocity);
      impulse = -(p.soft_normal_mass * (vn + bias)) - soft.impulse_scale * p.normal_impulse;
    } else {
      impulse = -(p.normal_mass * vn);  // vn + 0 is vn
    }
    const Fixed new_impulse = Max(p.normal_impulse + impulse, kFixedZero);
    const Fixed applied = new_impulse - p.normal_impulse;
    p.normal_impulse = new_impulse;
    p.max_normal_impulse = Max(p.max_normal_impulse, applied);
    if (applied != kFixedZero) ApplyImpulse<S>(&a, &b, p.anchor_a, p.anchor_b, applied * n);
  }
  for (int i = 0; i < c.point_count; ++i) {
    SolverPoint& p = c.points[i];
    const Fixed limit = c.friction * p.normal_impulse;
    // Clamp(x, -0, 0) is 0 whatever x is: no need for the tangent velocity.
    Fixed new_impulse;
    if (limit == kFixedZero) {
      new_impulse = kFixedZero;
    } else {
      const Fixed vt = Dot(Relative<S>(a, b, p.anchor_a, p.anchor_b), tangent);
      new_impulse = Clamp(p.tangent_impulse - p.tangent_mass * vt, -limit, limit);
    }
    const Fixed applied = new_impulse - p.tangent_impulse;
    p.tangent_impulse = new_impulse;
    if (applied != kFixedZero) ApplyImpulse<S>(&a, &b, p.anchor_a, p.anchor_b, applied * tangent);
  }
}

template <StaticSide S>
void WarmStart(SolverContact& c, SolverBody* bodies) {
  SolverBody& a = bodies[c.body_a];
  SolverBody& b = bodies[c.body_b];
  const Vec2 tangent = RightPerp(c.normal);
  for (int i = 0; i < c.point_count; ++i) {
    const SolverPoint& p = c.points[i];
    if (p.normal_impulse == kFixedZero && p.tangent_impulse == kFixedZero) continue;  // a zero impulse
    ApplyImpulse<S>(&a, &b, p.anchor_a, p.anchor_b, p.normal_impulse * c.normal + p.tangent_impulse * tangent);
  }
}

template <StaticSide S>
void ApplyRestitution(SolverContact& c, SolverBody* bodies) {
  if (c.restitution == kFixedZero) return;
  SolverBody& a = bodies[c.body_a];
  SolverBody& b = bodies[c.body_b];
  for (int i = 0; i < c.point_count; ++i) {
    SolverPoint& p = c.points[i];
    // Only points that were approaching fast enough and did push.
    if (p.relative_velocity > -kRestitutionThreshold || p.max_normal_impulse == kFixedZero) continue;
    const Fixed vn = Dot(Relative<S>(a, b, p.anchor_a, p.anchor_b), c.normal);
    const Fixed impulse = -(p.normal_mass * (vn + c.restitution * p.relative_velocity));
    const Fixed new_impulse = Max(p.normal_impulse + impulse, kFixedZero);
    const Fixed applied = new_impulse - p.normal_impulse;
    p.normal_impulse = new_impulse;
    p.max_normal_impulse = Max(p.max_normal_impulse, applied);
    if (applied != kFixedZero) ApplyImpulse<S>(&a, &b, p.anchor_a, p.anchor_b, applied * c.normal);
  }
}

// Calls f.template operator()<S>() with the contact's static side as a
// compile-time value.
template <class F>
void WithStaticSide(const SolverContact& c, F&& f) {
  switch (c.static_side) {
    case StaticSide::kA: f.template operator()<StaticSide::kA>(); break;
    case StaticSide::kB: f.template operator()<StaticSide::kB>(); break;
    default: f.template operator()<StaticSide::kNone>(); break;
  }
}

// Holds a body's velocity to the limits every entry point checks
// (limits.h). Contacts and restitution (up to kMaxMaterial times the
// approach speed) can push it past them; stored as it is, the state would
// be one Restore and the setters refuse (issue 13). As Box2D clamps the
// translation and rotation of a step, the limit wins.
void ClampVelocity(SolverBody* sb) {
  sb->v = {Clamp(sb->v.x, -kMaxLinearSpeed, kMaxLinearSpeed), Clamp(sb->v.y, -kMaxLinearSpeed, kMaxLinearSpeed)};
  sb->w = Clamp(sb->w, -kMaxAngularSpeed, kMaxAngularSpeed);
}

// x / d, skipping the 128-bit division when d is exactly one (no damping),
// where the quotient is x itself.
Fixed DivideByDamping(Fixed x, Fixed d) { return d == kFixedOne ? x : x / d; }

// The sub-step's constants of each mover: 1 + h c for both dampings and
// the gravity increment (h s) g. They are the products IntegrateVelocity
// formed in every sub-step, with the same operands: formed once instead.
void PrepareIntegration(const World::Impl& w, StepState* st) {
  const Fixed h = st->h;
  st->integration.resize(st->movers.size());
  for (size_t i = 0; i < st->movers.size(); ++i) {
    const BodyRecord& body = w.bodies[st->movers[i].second];
    BodyIntegration& bi = st->integration[i];
    bi.dynamic = body.type == BodyType::kDynamic;
    if (!bi.dynamic) continue;
    const internal::BodyMotion& motion = w.motions[body.motion];
    bi.linear_divisor = kFixedOne + h * motion.linear_damping;
    bi.angular_divisor = kFixedOne + h * motion.angular_damping;
    const Fixed hs = h * motion.gravity_scale;
    bi.gravity_step = {hs * w.def.gravity.x, hs * w.def.gravity.y};
  }
}

// Gravity and implicit damping for solver body i (mover i - 1) in one
// sub-step, when it is dynamic: v = v / (1 + h c) + h g s (Box2D's
// implicit damping).
inline void IntegrateVelocity(SolverBody& sb, const BodyIntegration& bi) {
  if (!bi.dynamic) return;
  sb.v = Vec2{DivideByDamping(sb.v.x, bi.linear_divisor), DivideByDamping(sb.v.y, bi.linear_divisor)};
  sb.v = sb.v + bi.gravity_step;  // MulAdd(v, h s, g), its products formed once
  sb.w = DivideByDamping(sb.w, bi.angular_divisor);
  ClampVelocity(&sb);
}

inline void IntegratePosition(SolverBody& sb, Fixed h) {
  sb.delta_position = MulAdd(sb.delta_position, h, sb.v);
  // A body that has not turned this tick and does not spin keeps the
  // identity: h 0 is 0, so r is q, |q|^2 rounds to exactly 1, and the
  // scale (3 - 1) / 2 is exactly 1 (IntegrateRotation's own bits).
  if (sb.w == kFixedZero && sb.delta_rotation == kRotIdentity) return;
  const Fixed angle = Clamp(h * sb.w, -kMaxRotationPerSubstep, kMaxRotationPerSubstep);
  sb.delta_rotation = IntegrateRotation(sb.delta_rotation, angle);
}

// The solve of a set of constraints over the solver bodies `bodies[0..n]`
// (0: the immovable body; the constraints' body indices point into this
// array): sub-steps, restitution, the velocity clamp, and the impulses
// into st->next_contacts. `constraints` lists indices into st->constraints,
// ascending. Body j >= 1 is mover mover[j - 1] (st->integration); every
// body a constraint of the set acts on is in the set, so the bodies see
// exactly their own integration and constraints, in the order of the
// whole solve.
template <class SlotOf, class MoverOf>
void SolveSet(StepState* st, const Softness& soft, SolverContact* constraints, size_t count, SlotOf slot,
              SolverBody* bodies, size_t n, MoverOf mover) {
  const Fixed inv_h = st->inv_h, h = st->h;
  for (int32_t sub = 0; sub < st->sub_steps; ++sub) {
    for (size_t j = 1; j <= n; ++j) IntegrateVelocity(bodies[j], st->integration[mover(j)]);
    for (size_t k = 0; k < count; ++k) {
      SolverContact& c = constraints[k];
      WithStaticSide(c, [&]<StaticSide S>() { WarmStart<S>(c, bodies); });
    }
    for (size_t k = 0; k < count; ++k) {
      SolverContact& c = constraints[k];
      WithStaticSide(c, [&]<StaticSide S>() { SolveContact<S, true>(c, bodies, soft, inv_h); });
    }
    for (size_t j = 1; j <= n; ++j) IntegratePosition(bodies[j], h);
    for (size_t k = 0; k < count; ++k) {
      SolverContact& c = constraints[k];
      WithStaticSide(c, [&]<StaticSide S>() { SolveContact<S, false>(c, bodies, soft, inv_h); });
    }
  }
  for (size_t k = 0; k < count; ++k) {
    SolverContact& c = constraints[k];
    WithStaticSide(c, [&]<StaticSide S>() { ApplyRestitution<S>(c, bodies); });
  }
  for (size_t j = 1; j <= n; ++j) ClampVelocity(&bodies[j]);
  // Impulses for warm starting next tick.
  for (size_t k = 0; k < count; ++k) {
    const SolverContact& c = constraints[k];
    ContactState& state = st->next_contacts[slot(k)];
    for (int i = 0; i < c.point_count; ++i) state.points[i] = {c.points[i].id, c.points[i].normal_impulse, c.points[i].tangent_impulse};
  }
}

uint32_t IslandRoot(std::vector<uint32_t>& parent, uint32_t x) {
  while (parent[x] != x) {
    parent[x] = parent[parent[x]];  // path halving
    x = parent[x];
  }
  return x;
}

// Islands: the connected components of the movers (solver bodies 1..n)
// under the constraints between two of them (the immovable body 0 joins
// nothing: the solver never writes it, and what it contributes is a
// constant, see Relative). No constraint of one island reads or writes a
// body of another, and a body's integration reads only the body, so the
// islands are independent: solving each island alone, its constraints in
// their global order, gives every body and every constraint the bits of
// the whole solve, which interleaves the islands' steps but never orders
// two steps of different islands against each other in a way either can
// see. The islands are dealt to chunks (largest first, to the lightest
// chunk) and the chunks run as tasks; how they are dealt only balances
// the work, it never reaches a result.
// Returns the number of chunks filled (1: solve serially instead).
uint32_t CutIslands(StepState* st) {
  IslandScratch& is = st->islands;
  const size_t nb = st->solver.size();
  const std::vector<SolverContact>& constraints = st->constraints;
  const uint32_t chunks = st->tasks.Chunks(constraints.size(), 256);
  if (chunks <= 1) return 1;
  is.parent.resize(nb);
  for (uint32_t i = 0; i < nb; ++i) is.parent[i] = i;
  for (const SolverContact& c : constraints) {
    if (c.body_a == 0 || c.body_b == 0) continue;
    const uint32_t ra = IslandRoot(is.parent, static_cast<uint32_t>(c.body_a));
    const uint32_t rb = IslandRoot(is.parent, static_cast<uint32_t>(c.body_b));
    if (ra != rb) is.parent[ra < rb ? rb : ra] = ra < rb ? ra : rb;
  }
  // Work per island: a constraint costs about six body integrations.
  // A parent never has a larger index than its child (a union hangs the
  // larger root under the smaller, path halving moves a node to an
  // ancestor), so one ascending pass leaves every body's parent its root.
  is.weight.assign(nb, 0);
  for (uint32_t i = 1; i < nb; ++i) {
    is.parent[i] = is.parent[is.parent[i]];
    is.weight[is.parent[i]] += 1;
  }
  for (const SolverContact& c : constraints) {
    is.weight[is.parent[static_cast<uint32_t>(c.body_a != 0 ? c.body_a : c.body_b)]] += 6;
  }
  // Islands with constraints, heaviest first, each to the lightest chunk;
  // a body without constraints (weight 1) goes by its index, in even runs,
  // with no sort.
  is.roots.clear();
  is.chunk_of.resize(nb);
  for (uint32_t i = 1; i < nb; ++i) {
    if (is.parent[i] != i) continue;
    if (is.weight[i] > 1) {
      is.roots.push_back(i);
    } else {
      is.chunk_of[i] = static_cast<uint32_t>(uint64_t{i} * chunks / nb);
    }
  }
  std::sort(is.roots.begin(), is.roots.end(), [&](uint32_t x, uint32_t y) {
    return is.weight[x] != is.weight[y] ? is.weight[x] > is.weight[y] : x < y;
  });
  uint64_t load[kMaxStepChunks] = {};
  for (const uint32_t r : is.roots) {
    uint32_t best = 0;
    for (uint32_t c = 1; c < chunks; ++c) {
      if (load[c] < load[best]) best = c;
    }
    load[best] += is.weight[r];
    is.chunk_of[r] = best;
  }
  // Bodies and constraints grouped by chunk, ascending within each.
  uint32_t body_count[kMaxStepChunks + 1] = {}, constraint_count[kMaxStepChunks + 1] = {};
  for (uint32_t i = 1; i < nb; ++i) ++body_count[is.chunk_of[is.parent[i]] + 1];
  is.constraint_chunk.resize(constraints.size());
  for (size_t k = 0; k < constraints.size(); ++k) {
    const SolverContact& c = constraints[k];
    const uint32_t chunk = is.chunk_of[is.parent[static_cast<uint32_t>(c.body_a != 0 ? c.body_a : c.body_b)]];
    is.constraint_chunk[k] = chunk;
    ++constraint_count[chunk + 1];
  }
  for (uint32_t c = 0; c < chunks; ++c) {
    body_count[c + 1] += body_count[c];
    constraint_count[c + 1] += constraint_count[c];
  }
  for (uint32_t c = 0; c <= chunks; ++c) {
    is.body_begin[c] = body_count[c];
    is.constraint_begin[c] = constraint_count[c];
  }
  is.bodies.resize(nb - 1);
  is.constraints.resize(constraints.size());
  is.local_index.resize(nb);
  for (uint32_t i = 1; i < nb; ++i) {
    const uint32_t chunk = is.chunk_of[is.parent[i]];
    is.local_index[i] = body_count[chunk] - is.body_begin[chunk] + 1;
    is.bodies[body_count[chunk]++] = i;
  }
  for (size_t k = 0; k < constraints.size(); ++k) {
    is.constraints[constraint_count[is.constraint_chunk[k]]++] = static_cast<uint32_t>(k);
  }
  return chunks;
}

}  // namespace

Softness ContactSoftness(const World::Impl& w, const StepState& st) {
  // WorldDef::contact_hertz, clamped to a quarter of the sub-step rate.
  return MakeSoft(Min(Fixed::FromInt(w.def.contact_hertz), Fixed::FromRatio(int64_t{w.def.tick_hz} * st.sub_steps, 4)),
                  kContactDampingRatio, st.h);
}

void SolveContacts(const World::Impl& w, StepState* st) {
  // The contacts' soft masses were formed with this softness by stage 3.
  const Softness soft = st->soft;
  PrepareIntegration(w, st);
  const uint32_t chunks = CutIslands(st);
  if (chunks <= 1) {
    SolveSet(st, soft, st->constraints.data(), st->constraints.size(), [](size_t k) { return k; }, st->solver.data(),
             st->solver.size() - 1, [](size_t j) { return j - 1; });
    return;
  }
  IslandScratch& is = st->islands;
  // Each chunk's arrays are sized here, so the tasks allocate nothing (the
  // executor's contract: a task does not throw).
  if (is.local.size() < chunks) is.local.resize(chunks);
  for (uint32_t c = 0; c < chunks; ++c) {
    is.local[c].bodies.resize(is.body_begin[c + 1] - is.body_begin[c] + 1);
    is.local[c].constraints.resize(is.constraint_begin[c + 1] - is.constraint_begin[c]);
  }
  st->tasks.Run(chunks, [&](uint32_t c, uint32_t) {
    // The chunk's bodies and constraints are copied into arrays of its own
    // (IslandScratch::ChunkCopy), so that two tasks never write one cache
    // line: constraints of different islands lie side by side in pair
    // order, and a line written by both threads in every pass moved between
    // the cores on each write. The bodies go back when the chunk is solved;
    // the constraints are not read after the solve, only their impulses,
    // stored by SolveSet.
    const uint32_t* const global = is.bodies.data() + is.body_begin[c];
    const size_t n = is.body_begin[c + 1] - is.body_begin[c];
    std::vector<SolverBody>& local = is.local[c].bodies;
    local[0] = st->solver[0];
    for (size_t j = 0; j < n; ++j) local[j + 1] = st->solver[global[j]];
    const uint32_t* const list = is.constraints.data() + is.constraint_begin[c];
    std::vector<SolverContact>& constraints = is.local[c].constraints;
    for (size_t k = 0; k < constraints.size(); ++k) {
      SolverContact& sc = constraints[k];
      sc = st->constraints[list[k]];
      if (sc.body_a != 0) sc.body_a = static_cast<int32_t>(is.local_index[static_cast<uint32_t>(sc.body_a)]);
      if (sc.body_b != 0) sc.body_b = static_cast<int32_t>(is.local_index[static_cast<uint32_t>(sc.body_b)]);
    }
    SolveSet(st, soft, constraints.data(), constraints.size(), [&](size_t k) { return list[k]; }, local.data(), n,
             [&](size_t j) { return global[j - 1] - 1; });
    for (size_t j = 0; j < n; ++j) st->solver[global[j]] = local[j + 1];
  });
}

}  // namespace arbiter::internal
