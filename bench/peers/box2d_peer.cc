#include "peers/box2d_peer.h"

#include <box2d/b2_distance.h>  // b2ShapeCast, b2DistanceProxy
#include <box2d/box2d.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace arbiter::bench {
namespace {

b2Vec2 ToB2(Vec2 v) { return b2Vec2(static_cast<float>(v.x.ToDouble()), static_cast<float>(v.y.ToDouble())); }
float ToF(Fixed f) { return static_cast<float>(f.ToDouble()); }

uint64_t BodyIdOf(b2Fixture* fixture) { return fixture->GetBody()->GetUserData().pointer; }

struct RayQuery {
  b2Vec2 p1, p2;
};
struct SweepQueryF {
  b2Vec2 center;
  float radius;
  b2Vec2 translation;
  b2AABB bounds;  // the swept box
};

// Closest hit: clip the ray to each hit; ties go to the lower body id, as in
// Arbiter (Box2D itself does not order ties).
class ClosestRay final : public b2RayCastCallback {
 public:
  float ReportFixture(b2Fixture* fixture, const b2Vec2& /*point*/, const b2Vec2& /*normal*/,
                      float fraction) override {
    const uint64_t id = BodyIdOf(fixture);
    if (!hit_ || fraction < fraction_ || (fraction == fraction_ && id < id_)) {
      hit_ = true;
      fraction_ = fraction;
      id_ = id;
    }
    return fraction;
  }
  bool hit_ = false;
  float fraction_ = 1.0f;
  uint64_t id_ = 0;
};

// Candidates from the tree, then the exact overlap test.
class OverlapQuery final : public b2QueryCallback {
 public:
  OverlapQuery(const b2Shape* shape, const b2Transform& xf, std::vector<uint64_t>* ids)
      : shape_(shape), xf_(xf), ids_(ids) {}
  bool ReportFixture(b2Fixture* fixture) override {
    if (b2TestOverlap(shape_, 0, fixture->GetShape(), 0, xf_, fixture->GetBody()->GetTransform())) {
      ids_->push_back(BodyIdOf(fixture));
    }
    return true;
  }

 private:
  const b2Shape* shape_;
  b2Transform xf_;
  std::vector<uint64_t>* ids_;
};

// Candidates from the swept box, then b2ShapeCast per candidate. b2ShapeCast
// moves proxy B (the disk) against proxy A (the fixture).
class SweepCallback final : public b2QueryCallback {
 public:
  explicit SweepCallback(const SweepQueryF& q) {
    disk_.Set(&center_, 1, q.radius);
    input_.proxyB = disk_;
    input_.transformB.Set(q.center, 0.0f);
    input_.translationB = q.translation;
  }
  bool ReportFixture(b2Fixture* fixture) override {
    input_.proxyA.Set(fixture->GetShape(), 0);
    input_.transformA = fixture->GetBody()->GetTransform();
    b2ShapeCastOutput out;
    if (b2ShapeCast(&out, &input_)) {
      const uint64_t id = BodyIdOf(fixture);
      if (!hit_ || out.lambda < lambda_ || (out.lambda == lambda_ && id < id_)) {
        hit_ = true;
        lambda_ = out.lambda;
        id_ = id;
      }
    }
    return true;
  }
  bool hit_ = false;
  float lambda_ = 1.0f;
  uint64_t id_ = 0;

 private:
  b2Vec2 center_{0.0f, 0.0f};
  b2DistanceProxy disk_;
  b2ShapeCastInput input_;
};

}  // namespace

struct Box2dPeer::Impl {
  b2World world{b2Vec2(0.0f, 0.0f)};
  int fixtures = 0;
  int capsules = 0;
  int rounded_polygons = 0;
  std::vector<RayQuery> rays;
  std::vector<b2PolygonShape> boxes;
  std::vector<b2AABB> box_bounds;
  std::vector<b2CircleShape> disks;
  std::vector<b2AABB> disk_bounds;
  std::vector<SweepQueryF> sweeps;
};

Box2dPeer::Box2dPeer() : impl_(std::make_unique<Impl>()) {}
Box2dPeer::~Box2dPeer() = default;

std::string Box2dPeer::Setup() const {
  return "Box2D 2.4.1: b2World, bodies created in Hilbert order, all static, b2DynamicTree (aabb margin 0.1); "
         "capsule = 2 circles + box; polygon skin 0.01; exact overlap b2TestOverlap; sweep = QueryAABB(swept box) + "
         "b2ShapeCast. " +
         std::to_string(impl_->fixtures) + " fixtures (" + std::to_string(impl_->capsules) + " capsules)" +
         (impl_->rounded_polygons ? ", " + std::to_string(impl_->rounded_polygons) +
                                        " rounded polygons NOT representable (radius dropped)"
                                  : std::string());
}

bool Box2dPeer::Build(const scene::Scene& scene, std::string* error) {
  b2World& world = impl_->world;
  for (size_t index : SpatialOrder(scene)) {
    const BodyDef& def = scene.bodies[index];
    b2BodyDef bd;
    bd.type = b2_staticBody;
    bd.position = ToB2(def.transform.p);
    bd.angle = static_cast<float>(std::atan2(def.transform.q.s.ToDouble(), def.transform.q.c.ToDouble()));
    bd.userData.pointer = static_cast<uintptr_t>(def.id);
    b2Body* body = world.CreateBody(&bd);
    for (const ShapeDef& sd : def.shapes) {
      const Shape& s = sd.shape;
      switch (s.type) {
        case ShapeType::kCircle: {
          b2CircleShape c;
          c.m_p = ToB2(s.circle.center);
          c.m_radius = ToF(s.circle.radius);
          body->CreateFixture(&c, 0.0f);
          ++impl_->fixtures;
          break;
        }
        case ShapeType::kCapsule: {
          const b2Vec2 a = ToB2(s.capsule.center1), b = ToB2(s.capsule.center2);
          const float r = ToF(s.capsule.radius);
          for (const b2Vec2& p : {a, b}) {
            b2CircleShape c;
            c.m_p = p;
            c.m_radius = r;
            body->CreateFixture(&c, 0.0f);
          }
          const b2Vec2 d = b - a;
          b2PolygonShape box;
          box.SetAsBox(0.5f * d.Length(), r, 0.5f * (a + b), std::atan2(d.y, d.x));
          body->CreateFixture(&box, 0.0f);
          impl_->fixtures += 3;
          ++impl_->capsules;
          break;
        }
        case ShapeType::kSegment: {
          b2EdgeShape e;
          e.SetTwoSided(ToB2(s.segment.point1), ToB2(s.segment.point2));
          body->CreateFixture(&e, 0.0f);
          ++impl_->fixtures;
          break;
        }
        case ShapeType::kChainSegment: {
          // Box2D 2.4's own one-sided edge with ghost vertices, the model
          // of Arbiter's chain segment.
          b2EdgeShape e;
          e.SetOneSided(ToB2(s.chain_segment.ghost1), ToB2(s.chain_segment.point1), ToB2(s.chain_segment.point2),
                        ToB2(s.chain_segment.ghost2));
          body->CreateFixture(&e, 0.0f);
          ++impl_->fixtures;
          break;
        }
        case ShapeType::kPolygon: {
          const Polygon& p = s.polygon;
          if (p.count < 3 || p.count > b2_maxPolygonVertices) {
            *error = "Box2D: body " + std::to_string(def.id) + ": polygon with " + std::to_string(p.count) +
                     " vertices";
            return false;
          }
          b2Vec2 points[b2_maxPolygonVertices];
          for (int i = 0; i < p.count; ++i) points[i] = ToB2(p.vertices[i]);
          b2PolygonShape poly;
          poly.Set(points, p.count);
          body->CreateFixture(&poly, 0.0f);
          ++impl_->fixtures;
          if (p.radius > kFixedZero) ++impl_->rounded_polygons;
          break;
        }
      }
    }
  }
  return true;
}

void Box2dPeer::Prepare(const scene::QuerySet& queries) {
  Impl& m = *impl_;
  m.rays.clear();
  m.boxes.clear();
  m.box_bounds.clear();
  m.disks.clear();
  m.disk_bounds.clear();
  m.sweeps.clear();
  for (const RayCastInput& r : queries.rays) {
    const b2Vec2 p1 = ToB2(r.origin);
    m.rays.push_back({p1, p1 + ToB2(r.translation)});
  }
  for (const arbiter::Aabb& a : queries.aabbs) {
    const b2Vec2 lo = ToB2(a.lower), hi = ToB2(a.upper);
    b2PolygonShape box;
    box.SetAsBox(0.5f * (hi.x - lo.x), 0.5f * (hi.y - lo.y), 0.5f * (lo + hi), 0.0f);
    m.boxes.push_back(box);
    b2AABB bb;
    bb.lowerBound = lo;
    bb.upperBound = hi;
    m.box_bounds.push_back(bb);
  }
  for (const scene::DiskQuery& d : queries.disks) {
    b2CircleShape c;
    c.m_p = ToB2(d.center);
    c.m_radius = ToF(d.radius);
    m.disks.push_back(c);
    b2AABB bb;
    bb.lowerBound = c.m_p - b2Vec2(c.m_radius, c.m_radius);
    bb.upperBound = c.m_p + b2Vec2(c.m_radius, c.m_radius);
    m.disk_bounds.push_back(bb);
  }
  for (const scene::SweepQuery& s : queries.sweeps) {
    SweepQueryF q;
    q.center = ToB2(s.center);
    q.radius = ToF(s.radius);
    q.translation = ToB2(s.translation);
    const b2Vec2 end = q.center + q.translation;
    const b2Vec2 r(q.radius, q.radius);
    q.bounds.lowerBound = b2Min(q.center, end) - r;
    q.bounds.upperBound = b2Max(q.center, end) + r;
    m.sweeps.push_back(q);
  }
}

CastAnswer Box2dPeer::Ray(size_t i) {
  const RayQuery& q = impl_->rays[i];
  ClosestRay cb;
  impl_->world.RayCast(&cb, q.p1, q.p2);
  return {cb.hit_, cb.id_, cb.fraction_};
}

void Box2dPeer::Aabb(size_t i, std::vector<uint64_t>* ids) {
  b2Transform identity;
  identity.SetIdentity();
  OverlapQuery cb(&impl_->boxes[i], identity, ids);
  impl_->world.QueryAABB(&cb, impl_->box_bounds[i]);
}

void Box2dPeer::Disk(size_t i, std::vector<uint64_t>* ids) {
  b2Transform identity;
  identity.SetIdentity();
  OverlapQuery cb(&impl_->disks[i], identity, ids);
  impl_->world.QueryAABB(&cb, impl_->disk_bounds[i]);
}

CastAnswer Box2dPeer::Sweep(size_t i) {
  const SweepQueryF& q = impl_->sweeps[i];
  SweepCallback cb(q);
  impl_->world.QueryAABB(&cb, q.bounds);
  return {cb.hit_, cb.id_, cb.lambda_};
}

}  // namespace arbiter::bench
