// Stage 4 of a tick: the contact solver.
//
// Box2D v3's "soft step" (Erin Catto, "Solver2D", 2024): sequential impulses
// on soft contact constraints, with sub-stepping and a relax pass, then
// restitution; Coulomb friction. Constraints are solved in pair order.
#include "arbiter/core/fixed_math.h"
#include "step_internal.h"

namespace arbiter::internal {
namespace {

struct Softness {
  Fixed bias_rate;
  Fixed mass_scale;
  Fixed impulse_scale;
};

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
template <StaticSide S>
void SolveContact(SolverContact& c, std::vector<SolverBody>& bodies, const Softness& soft, Fixed inv_h, bool use_bias) {
  SolverBody& a = bodies[c.body_a];
  SolverBody& b = bodies[c.body_b];
  const Vec2 n = c.normal;
  const Vec2 tangent = RightPerp(n);
  for (int i = 0; i < c.point_count; ++i) {
    SolverPoint& p = c.points[i];
    // Current separation from the bodies' motion so far this tick.
    const Fixed s = Dot(Displacement<S>(a, b, p.anchor_a, p.anchor_b), n) + p.base_separation;
    const Fixed vn = Dot(Relative<S>(a, b, p.anchor_a, p.anchor_b), n);
    Fixed impulse;
    if (s > kFixedZero) {
      impulse = -(p.normal_mass * (vn + s * inv_h));  // speculative: allow closing exactly the gap
    } else if (use_bias) {
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
void WarmStart(SolverContact& c, std::vector<SolverBody>& bodies) {
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
void ApplyRestitution(SolverContact& c, std::vector<SolverBody>& bodies) {
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
// the gravity increment (h s) g. They are the products IntegrateVelocities
// formed in every sub-step, with the same operands: formed once instead.
void PrepareIntegration(const World::Impl& w, StepState* st) {
  const Fixed h = st->h;
  st->integration.resize(st->movers.size());
  for (size_t i = 0; i < st->movers.size(); ++i) {
    const BodyRecord& body = w.bodies[st->movers[i].second];
    BodyIntegration& bi = st->integration[i];
    bi.dynamic = body.type == BodyType::kDynamic;
    if (!bi.dynamic) continue;
    bi.linear_divisor = kFixedOne + h * body.linear_damping;
    bi.angular_divisor = kFixedOne + h * body.angular_damping;
    const Fixed hs = h * body.gravity_scale;
    bi.gravity_step = {hs * w.def.gravity.x, hs * w.def.gravity.y};
  }
}

// Gravity and implicit damping for the dynamic bodies of one sub-step:
// v = v / (1 + h c) + h g s (Box2D's implicit damping).
void IntegrateVelocities(StepState* st) {
  for (size_t i = 0; i < st->movers.size(); ++i) {
    const BodyIntegration& bi = st->integration[i];
    if (!bi.dynamic) continue;
    SolverBody& sb = st->solver[i + 1];
    sb.v = Vec2{DivideByDamping(sb.v.x, bi.linear_divisor), DivideByDamping(sb.v.y, bi.linear_divisor)};
    sb.v = sb.v + bi.gravity_step;  // MulAdd(v, h s, g), its products formed once
    sb.w = DivideByDamping(sb.w, bi.angular_divisor);
    ClampVelocity(&sb);
  }
}

void IntegratePositions(StepState* st) {
  for (size_t i = 1; i < st->solver.size(); ++i) {
    SolverBody& sb = st->solver[i];
    sb.delta_position = MulAdd(sb.delta_position, st->h, sb.v);
    // A body that has not turned this tick and does not spin keeps the
    // identity: h 0 is 0, so r is q, |q|^2 rounds to exactly 1, and the
    // scale (3 - 1) / 2 is exactly 1 (IntegrateRotation's own bits).
    if (sb.w == kFixedZero && sb.delta_rotation == kRotIdentity) continue;
    const Fixed angle = Clamp(st->h * sb.w, -kMaxRotationPerSubstep, kMaxRotationPerSubstep);
    sb.delta_rotation = IntegrateRotation(sb.delta_rotation, angle);
  }
}

}  // namespace

void SolveContacts(const World::Impl& w, StepState* st) {
  const Softness soft = MakeSoft(Min(kContactHertz, Fixed::FromRatio(int64_t{w.def.tick_hz} * kSubsteps, 4)),
                                 kContactDampingRatio, st->h);
  std::vector<SolverContact>& constraints = st->constraints;
  std::vector<SolverBody>& bodies = st->solver;
  const Fixed inv_h = st->inv_h;
  PrepareIntegration(w, st);
  for (SolverContact& c : constraints) {
    for (int i = 0; i < c.point_count; ++i) c.points[i].soft_normal_mass = c.points[i].normal_mass * soft.mass_scale;
  }
  for (int sub = 0; sub < kSubsteps; ++sub) {
    IntegrateVelocities(st);
    for (SolverContact& c : constraints) {
      WithStaticSide(c, [&]<StaticSide S>() { WarmStart<S>(c, bodies); });
    }
    for (SolverContact& c : constraints) {
      WithStaticSide(c, [&]<StaticSide S>() { SolveContact<S>(c, bodies, soft, inv_h, true); });
    }
    IntegratePositions(st);
    for (SolverContact& c : constraints) {
      WithStaticSide(c, [&]<StaticSide S>() { SolveContact<S>(c, bodies, soft, inv_h, false); });
    }
  }
  for (SolverContact& c : constraints) {
    WithStaticSide(c, [&]<StaticSide S>() { ApplyRestitution<S>(c, bodies); });
  }
  for (size_t i = 1; i < bodies.size(); ++i) ClampVelocity(&bodies[i]);

  // Impulses for warm starting next tick.
  for (size_t k = 0; k < constraints.size(); ++k) {
    const SolverContact& c = constraints[k];
    ContactState& state = st->next_contacts[k];
    for (int i = 0; i < c.point_count; ++i) state.points[i] = {c.points[i].id, c.points[i].normal_impulse, c.points[i].tangent_impulse};
  }
}

}  // namespace arbiter::internal
