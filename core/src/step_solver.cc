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

void ApplyImpulse(SolverBody* a, SolverBody* b, Vec2 ra, Vec2 rb, Vec2 impulse) {
  a->v = a->v - a->inv_mass * impulse;
  a->w = a->w - a->inv_inertia * Cross(ra, impulse);
  b->v = b->v + b->inv_mass * impulse;
  b->w = b->w + b->inv_inertia * Cross(rb, impulse);
}

void SolveContact(SolverContact& c, std::vector<SolverBody>& bodies, const Softness& soft, Fixed inv_h, bool use_bias) {
  SolverBody& a = bodies[c.body_a];
  SolverBody& b = bodies[c.body_b];
  const Vec2 n = c.normal;
  const Vec2 tangent = RightPerp(n);
  for (int i = 0; i < c.point_count; ++i) {
    SolverPoint& p = c.points[i];
    // Current separation from the bodies' motion so far this tick.
    const Vec2 d = (b.delta_position - a.delta_position) +
                   (RotateVector(b.delta_rotation, p.anchor_b) - RotateVector(a.delta_rotation, p.anchor_a));
    const Fixed s = Dot(d, n) + p.base_separation;
    Fixed bias, mass_scale = kFixedOne, impulse_scale;
    if (s > kFixedZero) {
      bias = s * inv_h;  // speculative: allow closing exactly the gap
    } else if (use_bias) {
      bias = Max(soft.bias_rate * s, -kContactPushMaxVelocity);
      mass_scale = soft.mass_scale;
      impulse_scale = soft.impulse_scale;
    }
    const Fixed vn = Dot(RelativeVelocity(a, b, p.anchor_a, p.anchor_b), n);
    const Fixed impulse = -(p.normal_mass * mass_scale * (vn + bias)) - impulse_scale * p.normal_impulse;
    const Fixed new_impulse = Max(p.normal_impulse + impulse, kFixedZero);
    const Fixed applied = new_impulse - p.normal_impulse;
    p.normal_impulse = new_impulse;
    p.max_normal_impulse = Max(p.max_normal_impulse, applied);
    ApplyImpulse(&a, &b, p.anchor_a, p.anchor_b, applied * n);
  }
  for (int i = 0; i < c.point_count; ++i) {
    SolverPoint& p = c.points[i];
    const Fixed vt = Dot(RelativeVelocity(a, b, p.anchor_a, p.anchor_b), tangent);
    const Fixed limit = c.friction * p.normal_impulse;
    const Fixed new_impulse = Clamp(p.tangent_impulse - p.tangent_mass * vt, -limit, limit);
    const Fixed applied = new_impulse - p.tangent_impulse;
    p.tangent_impulse = new_impulse;
    ApplyImpulse(&a, &b, p.anchor_a, p.anchor_b, applied * tangent);
  }
}

void WarmStart(SolverContact& c, std::vector<SolverBody>& bodies) {
  SolverBody& a = bodies[c.body_a];
  SolverBody& b = bodies[c.body_b];
  const Vec2 tangent = RightPerp(c.normal);
  for (int i = 0; i < c.point_count; ++i) {
    const SolverPoint& p = c.points[i];
    ApplyImpulse(&a, &b, p.anchor_a, p.anchor_b, p.normal_impulse * c.normal + p.tangent_impulse * tangent);
  }
}

void ApplyRestitution(SolverContact& c, std::vector<SolverBody>& bodies) {
  if (c.restitution == kFixedZero) return;
  SolverBody& a = bodies[c.body_a];
  SolverBody& b = bodies[c.body_b];
  for (int i = 0; i < c.point_count; ++i) {
    SolverPoint& p = c.points[i];
    // Only points that were approaching fast enough and did push.
    if (p.relative_velocity > -kRestitutionThreshold || p.max_normal_impulse == kFixedZero) continue;
    const Fixed vn = Dot(RelativeVelocity(a, b, p.anchor_a, p.anchor_b), c.normal);
    const Fixed impulse = -(p.normal_mass * (vn + c.restitution * p.relative_velocity));
    const Fixed new_impulse = Max(p.normal_impulse + impulse, kFixedZero);
    const Fixed applied = new_impulse - p.normal_impulse;
    p.normal_impulse = new_impulse;
    p.max_normal_impulse = Max(p.max_normal_impulse, applied);
    ApplyImpulse(&a, &b, p.anchor_a, p.anchor_b, applied * c.normal);
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

// Gravity and implicit damping for the dynamic bodies of one sub-step:
// v = v / (1 + h c) + h g s (Box2D's implicit damping).
void IntegrateVelocities(const World::Impl& w, StepState* st) {
  const Fixed h = st->h;
  for (size_t i = 0; i < st->movers.size(); ++i) {
    const BodyRecord& body = w.bodies[st->movers[i].second];
    SolverBody& sb = st->solver[i + 1];
    if (body.type != BodyType::kDynamic) continue;
    const Fixed linear = kFixedOne + h * body.linear_damping;
    sb.v = Vec2{DivideByDamping(sb.v.x, linear), DivideByDamping(sb.v.y, linear)};
    sb.v = MulAdd(sb.v, h * body.gravity_scale, w.def.gravity);
    sb.w = DivideByDamping(sb.w, kFixedOne + h * body.angular_damping);
    ClampVelocity(&sb);
  }
}

void IntegratePositions(StepState* st) {
  for (size_t i = 1; i < st->solver.size(); ++i) {
    SolverBody& sb = st->solver[i];
    sb.delta_position = MulAdd(sb.delta_position, st->h, sb.v);
    const Fixed angle = Clamp(st->h * sb.w, -kMaxRotationPerSubstep, kMaxRotationPerSubstep);
    sb.delta_rotation = IntegrateRotation(sb.delta_rotation, angle);
  }
}

}  // namespace

void SolveContacts(const World::Impl& w, StepState* st) {
  const Softness soft = MakeSoft(Min(kContactHertz, Fixed::FromRatio(int64_t{w.def.tick_hz} * kSubsteps, 4)),
                                 kContactDampingRatio, st->h);
  std::vector<SolverContact>& constraints = st->constraints;
  for (int sub = 0; sub < kSubsteps; ++sub) {
    IntegrateVelocities(w, st);
    for (SolverContact& c : constraints) WarmStart(c, st->solver);
    for (SolverContact& c : constraints) SolveContact(c, st->solver, soft, st->inv_h, true);
    IntegratePositions(st);
    for (SolverContact& c : constraints) SolveContact(c, st->solver, soft, st->inv_h, false);
  }
  for (SolverContact& c : constraints) ApplyRestitution(c, st->solver);
  for (size_t i = 1; i < st->solver.size(); ++i) ClampVelocity(&st->solver[i]);

  // Impulses for warm starting next tick.
  for (size_t k = 0; k < constraints.size(); ++k) {
    const SolverContact& c = constraints[k];
    ContactState& state = st->next_contacts[k];
    for (int i = 0; i < c.point_count; ++i) state.points[i] = {c.points[i].id, c.points[i].normal_impulse, c.points[i].tangent_impulse};
  }
}

}  // namespace arbiter::internal
