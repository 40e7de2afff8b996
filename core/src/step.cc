// One tick of dynamics.
//
// The solver is Box2D v3's "soft step" (Erin Catto, "Solver2D", 2024):
// sequential impulses on soft contact constraints, with sub-stepping and a
// relax pass, then restitution; contacts are warm started from the previous
// tick by feature id. Speculative contacts (points within a small margin)
// catch most fast motion; a continuous pass then stops any body that would
// still tunnel through static or kinematic geometry (and, for bullets,
// through dynamic bodies) by casting its shapes along the tick's motion.
//
// Order is fixed everywhere: bodies by id, contacts by (shape a, shape b),
// so the same world steps to the same bits on every machine. All arithmetic
// is Q32.32.
#include <algorithm>

#include "arbiter/core/fixed_math.h"
#include "arbiter/core/manifold.h"
#include "arbiter/core/world.h"
#include "world_impl.h"

namespace arbiter {

using internal::BodyRecord;
using internal::ContactState;
using internal::ShapeRecord;

namespace {

// Tuning, in world units and seconds (Box2D v3's defaults, which are in
// metres). Exact binary fractions where possible.
constexpr int kSubsteps = 4;
constexpr Fixed kLinearSlop = Fixed::FromRaw(21474836);            // 0.005
constexpr Fixed kSpeculativeDistance = Fixed::FromRaw(4 * 21474836);  // 4 slop
constexpr Fixed kContactHertz = Fixed::FromInt(30);
constexpr Fixed kContactDampingRatio = Fixed::FromInt(10);
constexpr Fixed kContactPushMaxVelocity = Fixed::FromInt(3);
constexpr Fixed kRestitutionThreshold = Fixed::FromInt(1);
constexpr Fixed kMaxRotationPerSubstep = Fixed::FromRaw(Fixed::kOneRaw / 4);  // radians

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

// Velocity and pose of a body while the tick is solved. Index 0 is a
// shared immovable body for static shapes.
struct SolverBody {
  Vec2 v;
  Fixed w;
  Vec2 delta_position;  // of the centre of mass since the tick began
  Rot delta_rotation = kRotIdentity;
  Fixed inv_mass;
  Fixed inv_inertia;
};

struct SolverPoint {
  Vec2 anchor_a;  // from centre of mass A, world frame, at the start of the tick
  Vec2 anchor_b;
  Fixed base_separation;  // separation minus dot(anchor_b - anchor_a, normal)
  Fixed normal_impulse;
  Fixed tangent_impulse;
  Fixed max_normal_impulse;
  Fixed normal_mass;
  Fixed tangent_mass;
  Fixed relative_velocity;  // normal velocity at the start, for restitution
  uint16_t id = 0;
};

struct SolverContact {
  int32_t body_a;  // solver body index
  int32_t body_b;
  Vec2 normal;
  Fixed friction;
  Fixed restitution;
  int32_t point_count;
  SolverPoint points[2];
};

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

Vec2 RelativeVelocity(const SolverBody& a, const SolverBody& b, Vec2 ra, Vec2 rb) {
  return (b.v + CrossSV(b.w, rb)) - (a.v + CrossSV(a.w, ra));
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

struct Pair {
  ShapeRef a;
  ShapeRef b;
  uint32_t shape_a;
  uint32_t shape_b;
  friend bool operator<(const Pair& x, const Pair& y) {
    if (x.a != y.a) return x.a < y.a;
    return x.b < y.b;
  }
};

bool KeyLess(const ContactState& c, const Pair& p) { return c.a != p.a ? c.a < p.a : c.b < p.b; }

bool SensorLess(const SensorEvent& x, const SensorEvent& y) {
  return x.sensor != y.sensor ? x.sensor < y.sensor : x.visitor < y.visitor;
}

bool EventLess(const ContactEvent& x, const ContactEvent& y) { return x.a != y.a ? x.a < y.a : x.b < y.b; }

// Holds a body's velocity to the limits every entry point checks
// (limits.h). Contacts and restitution (up to kMaxMaterial times the
// approach speed) can push it past them; stored as it is, the state would
// be one Restore and the setters refuse (issue 13). As Box2D clamps the
// translation and rotation of a step, the limit wins.
void ClampVelocity(SolverBody* sb) {
  sb->v = {Clamp(sb->v.x, -kMaxLinearSpeed, kMaxLinearSpeed), Clamp(sb->v.y, -kMaxLinearSpeed, kMaxLinearSpeed)};
  sb->w = Clamp(sb->w, -kMaxAngularSpeed, kMaxAngularSpeed);
}

// Keeps a body inside the world range: a body reaching the edge stops there
// (velocity along that axis zeroed) instead of leaving the range in which
// the arithmetic is exact.
void ClampToWorld(Vec2* center, Vec2* velocity) {
  const Fixed limit = kFixedMaxWorldCoordinate - Fixed::FromInt(int64_t{1} << 25);
  if (Abs(center->x) > limit) {
    center->x = Clamp(center->x, -limit, limit);
    velocity->x = kFixedZero;
  }
  if (Abs(center->y) > limit) {
    center->y = Clamp(center->y, -limit, limit);
    velocity->y = kFixedZero;
  }
}

}  // namespace

void World::Step(TickEvents* events) {
  Impl& w = *impl_;
  const Fixed h = Fixed::FromRatio(1, int64_t{w.def.tick_hz} * kSubsteps);
  const Fixed inv_h = Fixed::FromInt(int64_t{w.def.tick_hz} * kSubsteps);
  const Softness soft = MakeSoft(Min(kContactHertz, Fixed::FromRatio(int64_t{w.def.tick_hz} * kSubsteps, 4)),
                                 kContactDampingRatio, h);

  // Movable bodies in id order; solver index 0 is the immovable body.
  std::vector<std::pair<uint64_t, uint32_t>> movers;
  for (uint32_t slot = 0; slot < w.bodies.size(); ++slot) {
    if (w.bodies[slot].id != 0 && w.bodies[slot].type != BodyType::kStatic) movers.push_back({w.bodies[slot].id, slot});
  }
  std::sort(movers.begin(), movers.end());
  std::vector<int32_t> solver_index(w.bodies.size(), 0);
  std::vector<SolverBody> solver(movers.size() + 1);
  for (size_t i = 0; i < movers.size(); ++i) {
    const BodyRecord& body = w.bodies[movers[i].second];
    solver_index[movers[i].second] = static_cast<int32_t>(i + 1);
    SolverBody& sb = solver[i + 1];
    sb.v = body.linear_velocity;
    sb.w = body.angular_velocity;
    sb.inv_mass = body.inv_mass;
    sb.inv_inertia = body.inv_inertia;
  }

  // ---- Broad phase: candidate pairs, canonical and deduplicated ----------
  // Speculative reach: how far a body can travel this tick (L1 bound of its
  // velocity plus what gravity adds). Contacts are made that far ahead, so a
  // body approaching at speed is stopped by a speculative contact instead
  // of sinking in and being pushed out slowly (Catto, "Speculative
  // contacts", GDC 2013).
  const Fixed dt = Fixed::FromRatio(1, w.def.tick_hz);
  const Fixed gravity_l1 = Abs(w.def.gravity.x) + Abs(w.def.gravity.y);
  std::vector<Fixed> reach(w.bodies.size());
  for (const auto& [id, slot] : movers) {
    const BodyRecord& body = w.bodies[slot];
    const Fixed speed = Abs(body.linear_velocity.x) + Abs(body.linear_velocity.y) +
                        (body.type == BodyType::kDynamic ? Abs(body.gravity_scale) * gravity_l1 * dt : kFixedZero);
    reach[slot] = speed * dt;
  }
  // A pair is a candidate when the two tight boxes, one grown by both
  // reaches plus the speculative distance, overlap: a function of the state
  // alone. The trees hold fat boxes whose size depends on when each proxy
  // was last re-inserted (history a snapshot does not carry), so every
  // candidate must be found whatever the fat boxes, and the candidates are
  // then filtered by the exact rule. Growing each body's query by twice its
  // own reach finds them all: the faster of the two bodies covers
  // reach_a + reach_b <= 2 max(reach_a, reach_b).
  std::vector<Pair> pairs;
  for (const auto& [id, slot] : movers) {
    const BodyRecord& body = w.bodies[slot];
    const Fixed query_grow = reach[slot] + reach[slot] + kSpeculativeDistance;
    const Vec2 grow{query_grow, query_grow};
    for (uint32_t i = 0; i < body.shape_count; ++i) {
      const uint32_t si = body.first_shape + i;
      const ShapeRecord& s = w.shapes[si];
      if (s.is_sensor) continue;  // sensors are handled after the solve
      const ShapeRef ref{body.id, s.index_in_body};
      const Aabb tight = ComputeProxyAabb(w.ProxyOf(s));
      const Aabb box{tight.lower - grow, tight.upper + grow};
      auto consider = [&, slot = slot](uint32_t other_index) {
        const ShapeRecord& o = w.shapes[other_index];
        const BodyRecord& other = w.bodies[o.body_slot];
        if (o.body_slot == slot || o.is_sensor) return true;
        if (body.type != BodyType::kDynamic && other.type != BodyType::kDynamic) return true;
        if (!ShouldCollide(s.filter, o.filter)) return true;
        const ShapeRef other_ref{other.id, o.index_in_body};
        // Movable pairs can be found from both sides; duplicates go below.
        if (ref < other_ref) {
          pairs.push_back({ref, other_ref, si, other_index});
        } else {
          pairs.push_back({other_ref, ref, other_index, si});
        }
        return true;
      };
      w.static_tree.Query(box, consider);
      w.movable_tree.Query(box, consider);
    }
  }
  std::sort(pairs.begin(), pairs.end());
  pairs.erase(std::unique(pairs.begin(), pairs.end(), [](const Pair& x, const Pair& y) { return x.a == y.a && x.b == y.b; }),
              pairs.end());
  std::erase_if(pairs, [&](const Pair& p) {
    const ShapeRecord& sa = w.shapes[p.shape_a];
    const ShapeRecord& sb = w.shapes[p.shape_b];
    const Fixed g = reach[sa.body_slot] + reach[sb.body_slot] + kSpeculativeDistance;
    const Aabb a = ComputeProxyAabb(w.ProxyOf(sa));
    return !Overlaps({a.lower - Vec2{g, g}, a.upper + Vec2{g, g}}, ComputeProxyAabb(w.ProxyOf(sb)));
  });

  // ---- Narrow phase and constraint preparation -----------------------------
  std::vector<ContactState> next_contacts;
  std::vector<SolverContact> constraints;
  std::vector<ContactEvent> begin_events, end_events;
  size_t old = 0;
  auto center_of = [&](const BodyRecord& body) { return TransformPoint(body.transform, body.local_center); };
  for (const Pair& pair : pairs) {
    const ShapeRecord& sa = w.shapes[pair.shape_a];
    const ShapeRecord& sb = w.shapes[pair.shape_b];
    while (old < w.contacts.size() && KeyLess(w.contacts[old], pair)) {
      if (w.contacts[old].point_count > 0) end_events.push_back({w.contacts[old].a, w.contacts[old].b, {}, {}, {}});
      ++old;
    }
    const ContactState* previous =
        old < w.contacts.size() && w.contacts[old].a == pair.a && w.contacts[old].b == pair.b ? &w.contacts[old] : nullptr;
    if (previous != nullptr) ++old;

    const Fixed speculative = kSpeculativeDistance + reach[sa.body_slot] + reach[sb.body_slot];
    const Manifold m = Collide(w.ProxyOf(sa), w.ProxyOf(sb), speculative);
    ContactState state;
    state.a = pair.a;
    state.b = pair.b;
    state.point_count = m.point_count;
    const BodyRecord& ba = w.bodies[sa.body_slot];
    const BodyRecord& bb = w.bodies[sb.body_slot];
    SolverContact c;
    c.body_a = solver_index[sa.body_slot];
    c.body_b = solver_index[sb.body_slot];
    c.normal = m.normal;
    c.friction = Sqrt(sa.friction * sb.friction);
    c.restitution = Max(sa.restitution, sb.restitution);
    c.point_count = m.point_count;
    const Vec2 ca = center_of(ba), cb = center_of(bb);
    const SolverBody& body_a = solver[c.body_a];
    const SolverBody& body_b = solver[c.body_b];
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
      const Fixed rna = Cross(p.anchor_a, m.normal), rnb = Cross(p.anchor_b, m.normal);
      const Fixed k_normal = body_a.inv_mass + body_b.inv_mass + body_a.inv_inertia * rna * rna + body_b.inv_inertia * rnb * rnb;
      p.normal_mass = k_normal > kFixedZero ? kFixedOne / k_normal : kFixedZero;
      const Fixed rta = Cross(p.anchor_a, tangent), rtb = Cross(p.anchor_b, tangent);
      const Fixed k_tangent = body_a.inv_mass + body_b.inv_mass + body_a.inv_inertia * rta * rta + body_b.inv_inertia * rtb * rtb;
      p.tangent_mass = k_tangent > kFixedZero ? kFixedOne / k_tangent : kFixedZero;
      p.relative_velocity = Dot(RelativeVelocity(body_a, body_b, p.anchor_a, p.anchor_b), m.normal);
    }
    const bool was_touching = previous != nullptr && previous->point_count > 0;
    if (m.point_count > 0 && !was_touching) {
      begin_events.push_back({pair.a, pair.b, m.points[0].point, m.normal, Max(-c.points[0].relative_velocity, kFixedZero)});
    } else if (m.point_count == 0 && was_touching) {
      end_events.push_back({pair.a, pair.b, {}, {}, {}});
    }
    // Only touching contacts are state: pairs whose boxes merely overlap
    // depend on the fat boxes' history, which must not reach the hash.
    if (m.point_count > 0) {
      constraints.push_back(c);
      next_contacts.push_back(state);
    }
  }
  for (; old < w.contacts.size(); ++old) {
    if (w.contacts[old].point_count > 0) end_events.push_back({w.contacts[old].a, w.contacts[old].b, {}, {}, {}});
  }

  // ---- Solve: sub-steps of integrate, warm start, solve, move, relax ---------
  for (int sub = 0; sub < kSubsteps; ++sub) {
    for (size_t i = 0; i < movers.size(); ++i) {
      const BodyRecord& body = w.bodies[movers[i].second];
      SolverBody& sb = solver[i + 1];
      if (body.type != BodyType::kDynamic) continue;
      // v = v / (1 + h c) + h g s (Box2D's implicit damping).
      sb.v = Vec2{sb.v.x / (kFixedOne + h * body.linear_damping), sb.v.y / (kFixedOne + h * body.linear_damping)};
      sb.v = MulAdd(sb.v, h * body.gravity_scale, w.def.gravity);
      sb.w = sb.w / (kFixedOne + h * body.angular_damping);
      ClampVelocity(&sb);
    }
    for (SolverContact& c : constraints) WarmStart(c, solver);
    for (SolverContact& c : constraints) SolveContact(c, solver, soft, inv_h, true);
    for (size_t i = 1; i < solver.size(); ++i) {
      SolverBody& sb = solver[i];
      sb.delta_position = MulAdd(sb.delta_position, h, sb.v);
      const Fixed angle = Clamp(h * sb.w, -kMaxRotationPerSubstep, kMaxRotationPerSubstep);
      sb.delta_rotation = IntegrateRotation(sb.delta_rotation, angle);
    }
    for (SolverContact& c : constraints) SolveContact(c, solver, soft, inv_h, false);
  }
  for (SolverContact& c : constraints) ApplyRestitution(c, solver);
  for (size_t i = 1; i < solver.size(); ++i) ClampVelocity(&solver[i]);

  // Store impulses for warm starting next tick.
  {
    size_t k = 0;
    for (ContactState& state : next_contacts) {
      const SolverContact& c = constraints[k++];
      for (int i = 0; i < c.point_count; ++i) state.points[i] = {c.points[i].id, c.points[i].normal_impulse, c.points[i].tangent_impulse};
    }
  }

  // ---- Finalise poses, then stop tunnelling ---------------------------------
  for (size_t i = 0; i < movers.size(); ++i) {
    const uint32_t slot = movers[i].second;
    BodyRecord& body = w.bodies[slot];
    const SolverBody& sb = solver[i + 1];
    body.linear_velocity = sb.v;
    body.angular_velocity = sb.w;
    const Vec2 start_center = TransformPoint(body.transform, body.local_center);
    Vec2 end_center = start_center + sb.delta_position;
    ClampToWorld(&end_center, &body.linear_velocity);
    const Rot q = NormalizeRot(MulRot(sb.delta_rotation, body.transform.q));
    Transform end{end_center - RotateVector(q, body.local_center), q};

    // Continuous collision: cast each shape (at the end rotation) along the
    // centre's path against what it must not pass through.
    if (body.type == BodyType::kDynamic && sb.delta_position != Vec2{}) {
      const Vec2 motion = sb.delta_position;
      Fixed toi = kFixedOne;
      QueryFilter filter;
      filter.body_types = body.is_bullet ? 0b111 : 0b011;  // static and kinematic (+ dynamic for bullets)
      const uint64_t self[1] = {body.id};
      filter.exclude_bodies = self;
      const Transform start_pose{start_center - RotateVector(q, body.local_center), q};
      for (uint32_t k = 0; k < body.shape_count; ++k) {
        const ShapeRecord& s = w.shapes[body.first_shape + k];
        if (s.is_sensor) continue;
        // Cheap filter first: only shapes that move more than their own size
        // in a tick can tunnel.
        const Aabb box = ComputeProxyAabb(w.ProxyOf(s));
        // Half the smaller half-extent, as Box2D v3's safety factor.
        const Fixed size = Min(box.upper.x - box.lower.x, box.upper.y - box.lower.y).Half().Half();
        if (Max(Abs(motion.x), Abs(motion.y)) <= size) continue;
        const Shape local = w.LocalShapeOf(s);
        QueryFilter shape_filter = filter;
        shape_filter.category_bits = s.filter.category_bits;
        shape_filter.mask_bits = s.filter.mask_bits;
        const auto hit = CastShapeClosest(local, start_pose, motion, shape_filter);
        // Touching at the start is the contact solver's business.
        if (hit && hit->fraction > kFixedZero) toi = Min(toi, hit->fraction);
      }
      if (toi < kFixedOne) {
        // Stop just short of the impact: back off by the linear slop.
        const Fixed length = Length(motion);
        const Fixed back = length > kFixedZero ? kLinearSlop / length : kFixedZero;
        const Fixed t = Max(toi - back, kFixedZero);
        end.p = start_pose.p + t * motion;
      }
    }
    body.transform = end;
    w.SyncBodyShapes(slot);
  }

  // ---- Sensors: overlaps against the final poses -------------------------------
  // Every sensor shape against the non-sensor shapes its box touches, when
  // either body can move.
  std::vector<SensorEvent> next_sensors;
  for (uint32_t si = 0; si < w.shapes.size(); ++si) {
    const ShapeRecord& sensor = w.shapes[si];
    if (!sensor.alive || !sensor.is_sensor) continue;
    const BodyRecord& sensor_body = w.bodies[sensor.body_slot];
    const ShapeProxy sensor_proxy = w.ProxyOf(sensor);
    auto visit = [&](uint32_t vi) {
      const ShapeRecord& visitor = w.shapes[vi];
      const BodyRecord& visitor_body = w.bodies[visitor.body_slot];
      if (visitor.is_sensor || visitor.body_slot == sensor.body_slot) return true;
      if (sensor_body.type == BodyType::kStatic && visitor_body.type == BodyType::kStatic) return true;
      if (!ShouldCollide(sensor.filter, visitor.filter)) return true;
      if (TestOverlap(sensor_proxy, w.ProxyOf(visitor))) {
        next_sensors.push_back({{sensor_body.id, sensor.index_in_body}, {visitor_body.id, visitor.index_in_body}});
      }
      return true;
    };
    const Aabb box = ComputeProxyAabb(sensor_proxy);
    w.static_tree.Query(box, visit);
    w.movable_tree.Query(box, visit);
  }
  std::sort(next_sensors.begin(), next_sensors.end(), SensorLess);
  if (events != nullptr) {
    *events = TickEvents();
    std::set_difference(next_sensors.begin(), next_sensors.end(), w.sensor_overlaps.begin(), w.sensor_overlaps.end(),
                        std::back_inserter(events->sensor_enter), SensorLess);
    std::set_difference(w.sensor_overlaps.begin(), w.sensor_overlaps.end(), next_sensors.begin(), next_sensors.end(),
                        std::back_inserter(events->sensor_exit), SensorLess);
    std::sort(begin_events.begin(), begin_events.end(), EventLess);
    std::sort(end_events.begin(), end_events.end(), EventLess);
    events->contact_begin = std::move(begin_events);
    events->contact_end = std::move(end_events);
  }
  w.sensor_overlaps = std::move(next_sensors);
  w.contacts = std::move(next_contacts);
  ++w.tick;
}

}  // namespace arbiter
