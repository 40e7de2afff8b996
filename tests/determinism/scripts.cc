// Seeded random scripts: each builds a small world and runs a random mix of
// mutations (add, remove, move, re-filter), steps, every query kind,
// direct narrow-phase calls (overlap, containment, ray cast, distance,
// shape cast, manifolds both ways), shape construction and validation,
// snapshots and restores, and fixed-point trig, folding every answer.
//
// Everything is generated from SplitMix64 with integer arithmetic only: no
// double ever touches an input (tests/testing/world_builders.h's RandomBody
// goes through doubles, whose evaluation could differ across targets, e.g.
// x87 on i686, or -ffast-math; that would test the harness, not the core).
//
// Rule for this file: at most one random draw per full expression (or in a
// braced initialiser, which C++ evaluates left to right). Function
// arguments are evaluated in an unspecified order, and g++ really does
// order them differently on x86-64 and s390x: two draws in one call made
// the scripts differ across targets in the first version of this file.
//
// Scales vary per script (world extent, shape size, and a far-away origin
// for a quarter of them) so that small and large magnitudes both occur.
#include <algorithm>
#include <chrono>
#include <cstdio>

#include "arbiter/core/collision.h"
#include "arbiter/core/fixed_math.h"
#include "arbiter/core/hull.h"
#include "arbiter/core/manifold.h"
#include "arbiter/core/proxy.h"
#include "arbiter/core/world.h"
#include "digest.h"
#include "runner_world.h"
#include "scenarios.h"
#include "testing/random.h"

namespace arbiter::determinism {

namespace {

using testing::SplitMix64;

// Coverage counters for --stats (informational; never folded).
struct Stats {
  uint64_t scripts = 0, ops = 0, add_ok = 0, add_refused = 0, bodies_at_end = 0, ticks = 0, contact_begins = 0,
           sensor_enters = 0, ray_hits = 0, ray_all_hits = 0, overlap_refs = 0, cast_hits = 0,
           narrow_overlaps = 0, narrow_pairs = 0, manifold_points = 0, shapecast_hits = 0, restores = 0;
} g_stats;

constexpr int64_t kOne = Fixed::kOneRaw;

class Gen {
 public:
  explicit Gen(uint64_t seed) : rng_(seed) {}

  uint64_t Next() { return rng_.Next(); }
  int Below(int n) { return static_cast<int>(rng_.Next() % static_cast<uint64_t>(n)); }
  bool Chance(int num, int den) { return Below(den) < num; }
  bool Bool() { return rng_.Bool(); }

  /// Uniform raw value in [lo, hi].
  Fixed Raw(int64_t lo, int64_t hi) { return Fixed::FromRaw(rng_.Uniform(lo, hi)); }
  /// Uniform in [-s, s] (s >= 0).
  Fixed Sym(Fixed s) { return Raw(-s.raw(), s.raw()); }
  /// Uniform in [lo, hi].
  Fixed In(Fixed lo, Fixed hi) { return Raw(lo.raw(), hi.raw()); }
  Vec2 SymVec(Fixed s) { return {Sym(s), Sym(s)}; }

  /// A raw value of random bit width up to 62 bits, random sign.
  int64_t AnyWidth62() {
    const int bits = Below(63);
    const uint64_t mask = bits == 0 ? 0 : (~uint64_t{0} >> (64 - bits));
    const int64_t v = static_cast<int64_t>(rng_.Next() & mask);
    return Bool() ? v : -v;
  }

  /// An angle: mostly a few turns, sometimes exact quarter turns, sometimes
  /// very large (the range reduction).
  Fixed Angle() {
    switch (Below(10)) {
      case 0:
        return Fixed::FromRaw(kFixedHalfPi.raw() * (Below(17) - 8));
      case 1:
        return Sym(Fixed::FromInt(1 << 20));
      case 2:
        return Sym(Fixed::FromInt(1 << 30));
      default:
        return Sym(Fixed::FromRaw(kFixedTwoPi.raw() * 2));
    }
  }
  Rot AnyRot() {
    if (Chance(1, 10)) return kRotIdentity;
    return MakeRot(Angle());
  }

 private:
  SplitMix64 rng_;
};

// Per-script scales.
struct Scale {
  Vec2 origin;   // where the action is (far away for some scripts)
  Fixed extent;  // half-size of the region bodies and queries use
  Fixed size;    // typical shape size
};

// The batch form: the C ABI has one (arb_world_cast_rays_closest); World
// leaves batches to its callers, a loop of closest casts.
template <class W>
void CastRaysClosest(const W& world, std::span<const RayCastInput> rays, const QueryFilter& filter,
                     std::span<std::optional<CastHit>> out) {
  if constexpr (requires { world.CastRaysClosest(rays, filter, out); }) {
    world.CastRaysClosest(rays, filter, out);
  } else {
    for (size_t i = 0; i < rays.size(); ++i) out[i] = world.CastRayClosest(rays[i], filter);
  }
}

struct Script {
  Gen g;
  Scale sc;
  Digest d;
  RunnerWorld world;
  std::vector<uint64_t> ids;  // live body ids, ascending (refreshed after mutations)
  uint64_t next_id;

  Script(uint64_t seed, const WorldDef& def) : g(seed), world(def), next_id(0) {}

  void Refresh() { ids = world.BodyIds(); }
  uint64_t AnyLiveId() { return ids.empty() ? 12345 : ids[static_cast<size_t>(g.Below(static_cast<int>(ids.size())))]; }
  /// A live id, or now and then an id no body has.
  uint64_t SomeId() {
    if (ids.empty() || g.Chance(1, 10)) return next_id + 1000 + static_cast<uint64_t>(g.Below(1000));
    return AnyLiveId();
  }
  uint64_t NewId() {
    next_id += 1 + static_cast<uint64_t>(g.Below(3));
    return next_id;
  }

  Vec2 Point(Fixed spread) { return sc.origin + g.SymVec(spread); }
  Vec2 Point() { return Point(sc.extent); }
  Transform AnyTransform() { return {Point(), g.AnyRot()}; }
  /// A point of interest: half the time near a live body, so that queries hit.
  Vec2 Target() {
    if (ids.empty() || g.Bool()) return Point();
    const std::optional<BodyView> body = world.FindBody(AnyLiveId());
    const Vec2 jitter = g.SymVec(sc.size);
    return body ? body->transform.p + jitter : Point();
  }
  /// From `from` toward a target, overshooting by up to the same length again.
  Vec2 Toward(Vec2 from) {
    const Vec2 to = Target();
    return MulAdd(to - from, g.In(kFixedZero, kFixedOne), to - from);
  }

  // ---- Shapes ----------------------------------------------------------------

  Polygon FallbackBox() {
    Polygon p;
    (void)MakeBox(sc.size.Half(), sc.size.Half(), &p);
    return p;
  }

  Polygon RandomPolygon() {
    const Fixed s = sc.size;
    Polygon polygon;
    ShapeError error = ShapeError::kOk;
    const Fixed radius = g.Bool() ? kFixedZero : g.In(kFixedZero, Fixed::FromRaw(s.raw() / 4));
    switch (g.Below(4)) {
      case 0: {
        const Fixed hw = g.In(Fixed::FromRaw(s.raw() / 16 + 1), s);
        const Fixed hh = g.In(Fixed::FromRaw(s.raw() / 16 + 1), s);
        error = MakeBox(hw, hh, &polygon);
        break;
      }
      case 1: {
        const Fixed hw = g.In(Fixed::FromRaw(s.raw() / 16 + 1), s);
        const Fixed hh = g.In(Fixed::FromRaw(s.raw() / 16 + 1), s);
        const Vec2 center = g.SymVec(s);
        const Rot rotation = g.AnyRot();
        error = MakeOffsetBox(hw, hh, center, rotation, &polygon);
        break;
      }
      case 2: {  // a regular n-gon at a random phase, built with trig
        const int n = 3 + g.Below(6);
        const Vec2 center = g.SymVec(s);
        const Fixed r = g.In(Fixed::FromRaw(s.raw() / 8 + 1), s);
        const Fixed phase = g.Angle();
        Vec2 points[kMaxPolygonVertices];
        for (int k = 0; k < n; ++k) {
          const Rot q = MakeRot(phase + kFixedTwoPi * Fixed::FromRatio(k, n));
          points[k] = center + RotateVector(q, {r, kFixedZero});
        }
        error = MakePolygon(std::span<const Vec2>(points, static_cast<size_t>(n)), radius, &polygon);
        break;
      }
      default: {  // the hull of random points
        const int m = 3 + g.Below(10);
        std::vector<Vec2> points(static_cast<size_t>(m));
        for (Vec2& p : points) p = g.SymVec(s);
        Vec2 hull[kMaxPolygonVertices];
        const int count = ComputeHull(points, hull);
        d.I32(count);
        for (int i = 0; i < count; ++i) d.V(hull[i]);
        if (count < 3) return FallbackBox();
        error = MakePolygon(std::span<const Vec2>(hull, static_cast<size_t>(count)), radius, &polygon);
        break;
      }
    }
    d.U8(static_cast<uint8_t>(error));
    if (error != ShapeError::kOk) return FallbackBox();
    return polygon;
  }

  Shape RandomShape() {
    const Fixed s = sc.size;
    const Fixed min_radius = Fixed::FromRaw(s.raw() / 16 + 1);
    switch (g.Below(5)) {
      case 0:
        return Shape::FromCircle({g.SymVec(s), g.In(min_radius, s)});
      case 1: {
        const Vec2 c1 = g.SymVec(s);
        Vec2 c2 = c1 + g.SymVec(s);
        if (c2 == c1) c2.x += s;
        return Shape::FromCapsule({c1, c2, g.In(min_radius, s.Half())});
      }
      case 2: {
        const Vec2 p1 = g.SymVec(s);
        Vec2 p2 = p1 + g.SymVec(s + s);
        if (p2 == p1) p2.y += s;
        return Shape::FromSegment({p1, p2});
      }
      default:
        return Shape::FromPolygon(RandomPolygon());
    }
  }

  ShapeDef RandomShapeDef() {
    ShapeDef sd;
    sd.shape = RandomShape();
    sd.filter.category_bits = uint64_t{1} << g.Below(4);
    sd.filter.mask_bits = g.Chance(3, 4) ? ~uint64_t{0} : (g.Next() & 0xf);
    const int group = g.Below(8);
    sd.filter.group_index = group == 0 ? -1 : (group == 1 ? 1 : 0);
    sd.is_sensor = g.Chance(1, 10);
    sd.friction = g.In(kFixedZero, kFixedOne);
    sd.restitution = g.Chance(1, 2) ? kFixedZero : g.In(kFixedZero, kFixedOne);
    sd.density = g.In(Fixed::FromRatio(1, 4), Fixed::FromInt(4));
    sd.user_tag = g.Next();
    return sd;
  }

  BodyDef RandomBody(uint64_t id) {
    BodyDef def;
    def.id = id;
    def.type = static_cast<BodyType>(g.Below(3));
    def.transform = AnyTransform();
    if (def.type != BodyType::kStatic) {
      def.linear_velocity = g.SymVec(sc.extent.Half());
      def.angular_velocity = g.Sym(Fixed::FromInt(4));
    }
    if (g.Chance(1, 4)) {
      def.linear_damping = g.In(kFixedZero, kFixedOne);
      def.angular_damping = g.In(kFixedZero, kFixedOne);
    }
    if (g.Chance(1, 6)) def.gravity_scale = g.In(-kFixedOne, Fixed::FromInt(2));
    def.is_bullet = g.Chance(1, 8);
    const int shapes = 1 + g.Below(3);
    for (int i = 0; i < shapes; ++i) def.shapes.push_back(RandomShapeDef());
    return def;
  }

  QueryFilter RandomFilter(std::vector<uint64_t>* exclude) {
    QueryFilter f;
    if (g.Chance(3, 5)) return f;
    if (g.Bool()) f.category_bits = g.Next() & 0xf;
    if (g.Bool()) f.mask_bits = g.Next() & 0xf;
    f.include_sensors = g.Bool();
    f.body_types = static_cast<uint8_t>(g.Below(8));
    const int n = g.Below(3);
    for (int i = 0; i < n; ++i) exclude->push_back(SomeId());
    f.exclude_bodies = *exclude;
    return f;
  }

  RayCastInput RandomRay() {
    RayCastInput ray;
    ray.origin = Point(sc.extent + sc.extent.Half());
    const int aim = g.Below(20);
    ray.translation = aim == 0 ? Vec2{} : (aim < 10 ? g.SymVec(sc.extent + sc.extent) : Toward(ray.origin));
    const int m = g.Below(10);
    ray.max_fraction = m < 7 ? kFixedOne : (m < 9 ? g.In(kFixedZero, kFixedOne) : g.In(kFixedOne, Fixed::FromInt(2)));
    return ray;
  }

  // ---- Operations ------------------------------------------------------------

  void OpAdd() {
    std::vector<BodyDef> defs;
    const int n = 1 + g.Below(4);
    for (int i = 0; i < n; ++i) defs.push_back(RandomBody(NewId()));
    if (g.Chance(1, 8)) {  // one bad definition: the whole batch must be refused
      BodyDef& bad = defs[static_cast<size_t>(g.Below(n))];
      switch (g.Below(6)) {
        case 0: bad.id = ids.empty() ? 0 : AnyLiveId(); break;
        case 1: bad.id = 0; break;
        case 2: bad.transform.q = {kFixedOne, kFixedOne}; break;
        case 3: bad.transform.p.x = kFixedMaxWorldCoordinate + Fixed::FromRaw(1); break;
        case 4: bad.shapes.clear(); break;
        default: bad.shapes[0].shape.circle.radius = -kFixedOne; bad.shapes[0].shape.type = ShapeType::kCircle; break;
      }
    }
    const Status s = world.AddBodies(defs);
    (s.ok() ? g_stats.add_ok : g_stats.add_refused)++;
    d.Code(s);
    d.Size(world.body_count());
    Refresh();
  }

  void OpRemove() {
    std::vector<uint64_t> remove;
    const int n = 1 + g.Below(3);
    for (int i = 0; i < n && !ids.empty(); ++i) {
      const uint64_t id = AnyLiveId();
      if (std::find(remove.begin(), remove.end(), id) == remove.end()) remove.push_back(id);
    }
    if (g.Chance(1, 8)) remove.push_back(next_id + 777);
    d.Code(world.RemoveBodies(remove));
    d.Size(world.body_count());
    Refresh();
  }

  void OpMove() {
    const uint64_t id = SomeId();
    Transform xf = AnyTransform();
    if (g.Chance(1, 20)) xf.q = {Fixed::FromRaw(kOne / 2), kFixedZero};
    d.Code(world.SetBodyTransform(id, xf));
    const uint64_t moving = SomeId();
    const Vec2 v = g.SymVec(sc.extent);
    const Fixed w = g.Sym(Fixed::FromInt(8));
    d.Code(world.SetBodyVelocity(moving, v, w));
    Filter filter;
    filter.category_bits = uint64_t{1} << g.Below(4);
    filter.mask_bits = g.Next() | 1;
    filter.group_index = g.Below(3) - 1;
    const uint64_t filtered = SomeId();
    const uint32_t shape_index = static_cast<uint32_t>(g.Below(4));
    d.Code(world.SetShapeFilter(filtered, shape_index, filter));
  }

  void OpStep() {
    const int n = 1 + g.Below(4);
    TickEvents events;
    for (int i = 0; i < n; ++i) {
      StepWorld(world, &events);
      ++g_stats.ticks;
      g_stats.contact_begins += events.contact_begin.size();
      g_stats.sensor_enters += events.sensor_enter.size();
      d.I64(world.tick());
      d.Events(events);
      d.U64(world.StateHash());
    }
  }

  void OpInspect() {
    d.Size(ids.size());
    for (uint64_t id : ids) d.U64(id);
    const uint64_t id = SomeId();
    d.Body(world.FindBody(id));
    const std::optional<BodyDef> def = world.GetBodyDef(id);
    d.Bool(def.has_value());
    if (def) {
      d.U64(def->id);
      d.U8(static_cast<uint8_t>(def->type));
      d.Xf(def->transform);
      d.V(def->linear_velocity);
      d.F(def->angular_velocity);
      d.F(def->linear_damping);
      d.F(def->angular_damping);
      d.F(def->gravity_scale);
      d.Bool(def->is_bullet);
      d.Size(def->shapes.size());
      for (const ShapeDef& s : def->shapes) {
        d.ShapeValue(s.shape);
        d.U64(s.filter.category_bits);
        d.U64(s.filter.mask_bits);
        d.I32(s.filter.group_index);
        d.Bool(s.is_sensor);
        d.F(s.friction);
        d.F(s.restitution);
        d.F(s.density);
        d.U64(s.user_tag);
      }
    }
  }

  void OpRays() {
    std::vector<uint64_t> exclude;
    const QueryFilter filter = RandomFilter(&exclude);
    const RayCastInput ray = RandomRay();
    const Status valid = ValidateRay(ray, "ray");
    d.Code(valid);
    if (!valid.ok()) return;
    QueryStats stats;
    const std::optional<CastHit> closest = world.CastRayClosest(ray, filter, &stats);
    g_stats.ray_hits += closest.has_value();
    d.Hit(closest);
    const std::vector<CastHit> all = world.CastRayAll(ray, filter);
    g_stats.ray_all_hits += all.size();
    d.Hits(all);
    d.Bool(world.CastRayAny(ray, filter));
    // The batch form, on a few rays.
    std::vector<RayCastInput> rays(static_cast<size_t>(1 + g.Below(6)));
    for (RayCastInput& r : rays) r = RandomRay();
    std::vector<std::optional<CastHit>> out(rays.size());
    CastRaysClosest(world, rays, filter, out);
    for (const auto& h : out) d.Hit(h);
  }

  void OpOverlaps() {
    std::vector<uint64_t> exclude;
    const QueryFilter filter = RandomFilter(&exclude);
    const Vec2 point = Target();
    d.Code(ValidatePoint(point, "point"));
    d.Refs(world.OverlapPoint(point, filter));
    Vec2 a = Target(), b = g.Chance(1, 10) ? a : a + g.SymVec(sc.size * Fixed::FromInt(3));
    if (g.Chance(1, 10)) b.x = a.x;  // a degenerate box
    const Aabb box{{Min(a.x, b.x), Min(a.y, b.y)}, {Max(a.x, b.x), Max(a.y, b.y)}};
    d.Code(ValidateAabb(box, "box"));
    d.Refs(world.OverlapAabb(box, filter));
    const Shape shape = RandomShape();
    d.ShapeValue(shape);
    const Vec2 at = Target();
    const std::vector<ShapeRef> refs = world.OverlapShape(shape, {at, g.AnyRot()}, filter);
    g_stats.overlap_refs += refs.size();
    d.Refs(refs);
  }

  void OpShapeCasts() {
    std::vector<uint64_t> exclude;
    const QueryFilter filter = RandomFilter(&exclude);
    const Shape shape = RandomShape();
    const Transform xf = AnyTransform();
    const int aim = g.Below(20);
    const Vec2 translation = aim == 0 ? Vec2{} : (aim < 8 ? g.SymVec(sc.extent + sc.extent) : Toward(xf.p));
    d.ShapeValue(shape);
    const std::optional<CastHit> hit = world.CastShapeClosest(shape, xf, translation, filter);
    g_stats.cast_hits += hit.has_value();
    d.Hit(hit);
    d.Hits(world.CastShapeAll(shape, xf, translation, filter));
  }

  // A shape and transform from the world, or a fresh one.
  void PickPlaced(Shape* shape, Transform* xf) {
    if (!ids.empty() && g.Chance(1, 3)) {
      const std::optional<BodyDef> def = world.GetBodyDef(AnyLiveId());
      if (def && !def->shapes.empty()) {
        *shape = def->shapes[static_cast<size_t>(g.Below(static_cast<int>(def->shapes.size())))].shape;
        *xf = def->transform;
        return;
      }
    }
    *shape = RandomShape();
    *xf = {Point(sc.size * Fixed::FromInt(3)), g.AnyRot()};
  }

  void OpNarrowPhase() {
    Shape a, b;
    Transform xa, xb;
    PickPlaced(&a, &xa);
    PickPlaced(&b, &xb);
    if (g.Chance(2, 3)) xb.p = xa.p + g.SymVec(sc.size * Fixed::FromInt(2));  // near each other
    const ShapeProxy pa = MakeProxy(a, xa);
    const ShapeProxy pb = MakeProxy(b, xb);
    d.Proxy(pa);
    d.Proxy(pb);
    const bool overlap = TestOverlap(pa, pb);
    ++g_stats.narrow_pairs;
    g_stats.narrow_overlaps += overlap;
    d.Bool(overlap);
    d.Bool(TestOverlap(a, xa, b, xb));
    d.Bool(TestOverlap(pb, pa));
    const Vec2 point = xa.p + g.SymVec(sc.size * Fixed::FromInt(2));
    d.Bool(ContainsPoint(pa, point));
    d.Bool(ContainsPoint(b, xb, point));
    RayCastInput ray;
    ray.origin = xa.p + g.SymVec(sc.size * Fixed::FromInt(4));
    ray.translation = (xa.p - ray.origin) + (xa.p - ray.origin) + g.SymVec(sc.size);
    ray.max_fraction = g.Bool() ? kFixedOne : g.In(kFixedZero, Fixed::FromInt(2));
    d.Cast(RayCast(pa, ray));
    d.Cast(RayCast(b, xb, ray));
    d.Distance(ShapeDistance(pa, pb));
    d.Distance(ShapeDistance(b, xb, a, xa));
    ShapeCastInput cast{pa, pb, (xb.p - xa.p) + g.SymVec(sc.size * Fixed::FromInt(2)), kFixedOne};
    if (g.Chance(1, 4)) cast.max_fraction = g.In(kFixedZero, Fixed::FromInt(2));
    const CastOutput cast_out = ShapeCast(cast);
    g_stats.shapecast_hits += cast_out.hit;
    d.Cast(cast_out);
    const Fixed speculative = g.Bool() ? kFixedZero : g.In(kFixedZero, sc.size);
    const Manifold manifold = Collide(pa, pb, speculative);
    g_stats.manifold_points += static_cast<uint64_t>(manifold.point_count);
    d.Contacts(manifold);
    d.Contacts(Collide(pb, pa, speculative));
    d.Box(ComputeAabb(a, xa));
    d.Box(ComputeProxyAabb(pb));
    d.F(ComputeArea(b));
    d.Mass(ComputeMass(a, g.In(kFixedZero, Fixed::FromInt(4))));
  }

  void OpTrig() {
    for (int i = 0; i < 8; ++i) {
      const Fixed angle = g.Angle();
      const Rot q = MakeRot(angle);
      d.R(q);
      d.F(RotAngle(q));
      const Fixed y = Fixed::FromRaw(g.AnyWidth62());
      const Fixed x = Fixed::FromRaw(g.AnyWidth62());
      d.F(Atan2(y, x));
      d.F(Sqrt(Fixed::FromRaw(g.AnyWidth62() & INT64_MAX)));
      const Vec2 v{Fixed::FromRaw(g.AnyWidth62() >> 1), Fixed::FromRaw(g.AnyWidth62() >> 1)};
      d.V(Normalize(v));
      Fixed length;
      d.V(GetLengthAndNormalize(&length, v));
      d.F(length);
      d.F(Length(v));
      d.R(NormalizeRot({Fixed::FromRaw(g.AnyWidth62() >> 2), Fixed::FromRaw(g.AnyWidth62() >> 2)}));
      const Rot r = MakeRot(g.Angle());
      d.R(MulRot(q, r));
      d.R(InvMulRot(q, r));
      const Transform xf{Point(), q};
      const Vec2 p = g.SymVec(sc.extent);
      d.V(TransformPoint(xf, p));
      d.V(InvTransformPoint(xf, p));
      d.Xf(MulTransforms(xf, {p, r}));
      d.Xf(InvMulTransforms(xf, {p, r}));
      const int64_t den = g.AnyWidth62() >> 31;
      d.F(Fixed::FromRatio(g.AnyWidth62() >> 31, den == 0 ? 1 : den));
      d.F(x / Fixed::FromRaw(g.AnyWidth62() >> 20));
      d.F(x * y);
      d.Wide(MulWide(x, y));
      d.F(DivWide(MulWide(x, y), Fixed::FromRaw(g.AnyWidth62() >> 1)));
      d.F(RatioWide(MulWide(x, y), MulWide(y, x) + Int128(g.AnyWidth62())));
    }
  }

  void OpSnapshot() {
    const std::vector<uint8_t> bytes = world.Snapshot();
    d.Size(bytes.size());
    d.U64(Xxh64(bytes.data(), bytes.size()));
    RunnerWorld restored;
    d.Code(RunnerWorld::Restore(bytes, &restored));
    ++g_stats.restores;
    d.Bool(restored.StateHash() == world.StateHash());
    if (g.Chance(1, 2)) world = std::move(restored);  // carry on from the restored copy
    if (!bytes.empty() && g.Chance(1, 3)) {
      std::vector<uint8_t> damaged = bytes;
      const size_t at = static_cast<size_t>(g.Below(static_cast<int>(damaged.size())));
      const uint8_t flip = static_cast<uint8_t>(1 + g.Below(255));
      damaged[at] ^= flip;
      RunnerWorld other;
      d.Code(RunnerWorld::Restore(damaged, &other));
    }
  }

  void OpBadShapes() {
    // Construction and validation errors (each a stable code).
    const Fixed s = sc.size;
    Polygon p;
    const Vec2 cw[3] = {{kFixedZero, kFixedZero}, {kFixedZero, s}, {s, kFixedZero}};
    d.U8(static_cast<uint8_t>(MakePolygon(cw, kFixedZero, &p)));
    const Vec2 line[3] = {{kFixedZero, kFixedZero}, {s, s}, {s + s, s + s}};
    d.U8(static_cast<uint8_t>(MakePolygon(line, kFixedZero, &p)));
    const Vec2 two[2] = {{kFixedZero, kFixedZero}, {s, s}};
    d.U8(static_cast<uint8_t>(MakePolygon(two, kFixedZero, &p)));
    d.U8(static_cast<uint8_t>(MakeBox(kFixedZero, s, &p)));
    d.U8(static_cast<uint8_t>(ValidateCircle({{}, -s})));
    d.U8(static_cast<uint8_t>(ValidateCapsule({{s, s}, {s, s}, s})));
    d.U8(static_cast<uint8_t>(ValidateSegment({{s, s}, {s, s}})));
    d.U8(static_cast<uint8_t>(ValidateShape(RandomShape())));
    d.Str(ShapeErrorMessage(static_cast<ShapeError>(g.Below(12))));
  }
};

WorldDef RandomWorldDef(Gen& g) {
  WorldDef def;
  switch (g.Below(4)) {
    case 0: break;  // no gravity
    case 1: def.gravity = {g.Sym(Fixed::FromInt(20)), g.Sym(Fixed::FromInt(20))}; break;
    default: def.gravity = {kFixedZero, Fixed::FromInt(-10)}; break;
  }
  static constexpr int32_t kHz[] = {30, 60, 60, 120, 240};
  def.tick_hz = kHz[g.Below(5)];
  if (g.Chance(1, 10)) def.max_bodies = static_cast<uint32_t>(20 + g.Below(20));
  return def;
}

Scale RandomScale(Gen& g) {
  static constexpr int kExtents[] = {8, 16, 32, 128};
  Scale sc;
  sc.extent = Fixed::FromInt(kExtents[g.Below(4)]);
  switch (g.Below(8)) {
    case 0: sc.size = Fixed::FromRatio(1, 256); break;
    case 1: sc.size = Fixed::FromInt(16); break;
    default: sc.size = g.In(Fixed::FromRatio(1, 4), Fixed::FromInt(2)); break;
  }
  if (g.Chance(1, 4)) {
    const Fixed far = Fixed::FromInt(int64_t{1} << 28);
    sc.origin = g.SymVec(far);
  }
  return sc;
}

constexpr const char* kOpNames[] = {"add",     "remove", "move",   "step",  "inspect",   "rays", "overlaps",
                                    "casts",   "narrow", "trig",   "snapshot", "bad-shapes"};

uint64_t RunScript(uint64_t index, bool detail) {
  // Seeds: script i uses SplitMix64 seeded by a fixed mix of i.
  Gen setup(0xa5b1'7e12'0000'0000ull ^ (index * 0x9e37'79b9'7f4a'7c15ull));
  const WorldDef def = RandomWorldDef(setup);
  const Scale sc = RandomScale(setup);
  Script s(setup.Next(), def);
  s.sc = sc;
  s.next_id = setup.Chance(1, 4) ? (setup.Next() | (uint64_t{1} << 63)) - (uint64_t{1} << 20) : 0;
  s.d.I32(def.tick_hz);
  s.d.V(def.gravity);
  s.d.U32(def.max_bodies);

  // The initial population.
  {
    std::vector<BodyDef> bodies;
    const int n = 6 + s.g.Below(36);
    for (int i = 0; i < n; ++i) bodies.push_back(s.RandomBody(s.NewId()));
    s.d.Code(s.world.AddBodies(bodies));
    s.Refresh();
  }
  if (detail) std::printf("  script %llu: op -1 (populate) %016llx\n", static_cast<unsigned long long>(index),
                          static_cast<unsigned long long>(s.d.Value()));

  const int ops = 10 + s.g.Below(15);
  for (int op = 0; op < ops; ++op) {
    // Weights: steps and queries dominate.
    static constexpr int kWeights[] = {2, 1, 2, 4, 1, 3, 3, 2, 3, 1, 1, 1};
    int total = 0;
    for (int w : kWeights) total += w;
    int pick = s.g.Below(total);
    int kind = 0;
    while (pick >= kWeights[kind]) pick -= kWeights[kind++];
    s.d.U8(static_cast<uint8_t>(kind));
    ++g_stats.ops;
    switch (kind) {
      case 0: s.OpAdd(); break;
      case 1: s.OpRemove(); break;
      case 2: s.OpMove(); break;
      case 3: s.OpStep(); break;
      case 4: s.OpInspect(); break;
      case 5: s.OpRays(); break;
      case 6: s.OpOverlaps(); break;
      case 7: s.OpShapeCasts(); break;
      case 8: s.OpNarrowPhase(); break;
      case 9: s.OpTrig(); break;
      case 10: s.OpSnapshot(); s.Refresh(); break;
      default: s.OpBadShapes(); break;
    }
    if (detail) {
      std::printf("  script %llu: op %d (%s) %016llx\n", static_cast<unsigned long long>(index), op, kOpNames[kind],
                  static_cast<unsigned long long>(s.d.Value()));
    }
  }
  ++g_stats.scripts;
  g_stats.bodies_at_end += s.world.body_count();
  s.d.I64(s.world.tick());
  s.d.Size(s.world.body_count());
  s.d.U64(s.world.StateHash());
  return s.d.Value();
}

}  // namespace

ScenarioResult RunScripts(int count, int detail_script) {
  const auto start = std::chrono::steady_clock::now();
  ScenarioResult result{"scripts", "script", {}, 0, 0};
  for (int i = 0; i < count; ++i) result.items.push_back(RunScript(static_cast<uint64_t>(i), i == detail_script));
  FinishScenario(&result);
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

void PrintScriptStats() {
  const Stats& t = g_stats;
  std::printf(
      "# scripts: %llu scripts, %llu operations; adds ok %llu, refused %llu; %llu bodies at the end; %llu ticks, "
      "%llu contact begins, %llu sensor enters; ray hits %llu closest, %llu all; overlap-shape refs %llu; "
      "shape-cast hits %llu; narrow phase %llu pairs, %llu overlapping, %llu manifold points, %llu cast hits; "
      "%llu restores\n",
      (unsigned long long)t.scripts, (unsigned long long)t.ops, (unsigned long long)t.add_ok,
      (unsigned long long)t.add_refused, (unsigned long long)t.bodies_at_end, (unsigned long long)t.ticks,
      (unsigned long long)t.contact_begins, (unsigned long long)t.sensor_enters, (unsigned long long)t.ray_hits,
      (unsigned long long)t.ray_all_hits, (unsigned long long)t.overlap_refs, (unsigned long long)t.cast_hits,
      (unsigned long long)t.narrow_pairs, (unsigned long long)t.narrow_overlaps, (unsigned long long)t.manifold_points,
      (unsigned long long)t.shapecast_hits, (unsigned long long)t.restores);
}

}  // namespace arbiter::determinism
