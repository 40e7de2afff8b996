// The Box2D v3 peer (see box2d3_peer.h). This translation unit is the only
// one that sees Box2D v3's headers; everything but MakeBox2d3Peer has
// internal linkage so that nothing here can collide with Box2D 2.4.1's
// symbols (the two define types of the same names).
#include "peers/box2d3_peer.h"
#include "peers/box2d3_convert.h"

#include <box2d/box2d.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace arbiter::bench {
namespace {

using box2d3::ToB2;
using box2d3::ToF;

uint64_t BodyIdOf(b2ShapeId shape) {
  return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(b2Shape_GetUserData(shape)));
}

struct RayQuery {
  b2Vec2 origin, translation;
};
struct ProxyQuery {
  b2ShapeProxy proxy;
};
struct SweepQuery {
  b2ShapeProxy proxy;
  b2Vec2 translation;
};

// Closest hit: returning the best fraction so far clips the ray (or the
// swept disk) to it; ties go to the lower body id, as in Arbiter. A start
// inside a shape reports fraction 0, which ends the cast.
struct ClosestCast {
  bool hit = false;
  float fraction = 1.0f;
  uint64_t id = 0;
};

float ClipToClosest(b2ShapeId shape, b2Vec2 /*point*/, b2Vec2 /*normal*/, float fraction, void* context) {
  auto* c = static_cast<ClosestCast*>(context);
  const uint64_t id = BodyIdOf(shape);
  if (!c->hit || fraction < c->fraction || (fraction == c->fraction && id < c->id)) {
    c->hit = true;
    c->fraction = fraction;
    c->id = id;
  }
  return c->fraction;
}

bool CollectBody(b2ShapeId shape, void* context) {
  static_cast<std::vector<uint64_t>*>(context)->push_back(BodyIdOf(shape));
  return true;
}

class Box2d3Peer final : public Peer {
 public:
  ~Box2d3Peer() override {
    if (b2World_IsValid(world_)) b2DestroyWorld(world_);
  }

  std::string Name() const override { return "Box2D3"; }
  std::string Setup() const override;
  bool Build(const scene::Scene& scene, std::string* error) override;
  void Prepare(const scene::QuerySet& queries) override;
  CastAnswer Ray(size_t i) override;
  void Aabb(size_t i, std::vector<uint64_t>* ids) override;
  void Disk(size_t i, std::vector<uint64_t>* ids) override;
  CastAnswer Sweep(size_t i) override;

 private:
  bool AddShape(b2BodyId body, const ShapeDef& sd, uint64_t id, std::string* error);

  b2WorldId world_ = b2_nullWorldId;
  int shapes_ = 0;
  int chain_segments_ = 0;
  std::vector<RayQuery> rays_;
  std::vector<ProxyQuery> boxes_;
  std::vector<ProxyQuery> disks_;
  std::vector<SweepQuery> sweeps_;
};

std::string Box2d3Peer::Setup() const {
  const b2Version v = b2GetVersion();
  return "Box2D " + std::to_string(v.major) + "." + std::to_string(v.minor) + "." + std::to_string(v.revision) +
         " (C, float): bodies created in Hilbert order, all static, then b2World_RebuildStaticTree; "
         "b2World_CastRay / b2World_CastShape with a clipping callback, b2World_OverlapShape (GJK) for boxes and "
         "disks. " +
         std::to_string(shapes_) + " shapes" +
         (chain_segments_ ? ", " + std::to_string(chain_segments_) + " chain segments as two-sided segments"
                          : std::string());
}

bool Box2d3Peer::AddShape(b2BodyId body, const ShapeDef& sd, uint64_t id, std::string* error) {
  b2ShapeDef def = b2DefaultShapeDef();
  def.userData = reinterpret_cast<void*>(static_cast<uintptr_t>(id));
  def.updateBodyMass = false;  // static bodies; spares a mass pass per shape
  const Shape& s = sd.shape;
  switch (s.type) {
    case ShapeType::kCircle: {
      const b2Circle c{ToB2(s.circle.center), ToF(s.circle.radius)};
      b2CreateCircleShape(body, &def, &c);
      break;
    }
    case ShapeType::kCapsule: {
      const b2Capsule c{ToB2(s.capsule.center1), ToB2(s.capsule.center2), ToF(s.capsule.radius)};
      b2CreateCapsuleShape(body, &def, &c);
      break;
    }
    case ShapeType::kSegment: {
      const b2Segment g{ToB2(s.segment.point1), ToB2(s.segment.point2)};
      b2CreateSegmentShape(body, &def, &g);
      break;
    }
    case ShapeType::kChainSegment: {
      const b2Segment g{ToB2(s.chain_segment.point1), ToB2(s.chain_segment.point2)};
      b2CreateSegmentShape(body, &def, &g);
      ++chain_segments_;
      break;
    }
    case ShapeType::kPolygon: {
      b2Polygon polygon;
      std::string why;
      if (!box2d3::ToB2Polygon(s.polygon, &polygon, &why)) {
        *error = "Box2D3: body " + std::to_string(id) + ": " + why;
        return false;
      }
      b2CreatePolygonShape(body, &def, &polygon);
      break;
    }
  }
  ++shapes_;
  return true;
}

bool Box2d3Peer::Build(const scene::Scene& scene, std::string* error) {
  b2WorldDef wd = b2DefaultWorldDef();
  wd.gravity = b2Vec2{0.0f, 0.0f};
  world_ = b2CreateWorld(&wd);
  for (size_t index : SpatialOrder(scene)) {
    const BodyDef& def = scene.bodies[index];
    b2BodyDef bd = b2DefaultBodyDef();
    bd.type = b2_staticBody;
    bd.position = ToB2(def.transform.p);
    bd.rotation = b2NormalizeRot(b2Rot{ToF(def.transform.q.c), ToF(def.transform.q.s)});
    const b2BodyId body = b2CreateBody(world_, &bd);
    for (const ShapeDef& sd : def.shapes) {
      if (!AddShape(body, sd, def.id, error)) return false;
    }
  }
  b2World_RebuildStaticTree(world_);
  return true;
}

void Box2d3Peer::Prepare(const scene::QuerySet& queries) {
  rays_.clear();
  boxes_.clear();
  disks_.clear();
  sweeps_.clear();
  for (const RayCastInput& r : queries.rays) rays_.push_back({ToB2(r.origin), ToB2(r.translation)});
  for (const arbiter::Aabb& a : queries.aabbs) {
    const b2Vec2 lo = ToB2(a.lower), hi = ToB2(a.upper);
    const b2Vec2 corners[4] = {lo, {hi.x, lo.y}, hi, {lo.x, hi.y}};
    boxes_.push_back({b2MakeProxy(corners, 4, 0.0f)});
  }
  for (const scene::DiskQuery& d : queries.disks) {
    const b2Vec2 center = ToB2(d.center);
    disks_.push_back({b2MakeProxy(&center, 1, ToF(d.radius))});
  }
  for (const scene::SweepQuery& s : queries.sweeps) {
    const b2Vec2 center = ToB2(s.center);
    sweeps_.push_back({b2MakeProxy(&center, 1, ToF(s.radius)), ToB2(s.translation)});
  }
}

CastAnswer Box2d3Peer::Ray(size_t i) {
  ClosestCast c;
  b2World_CastRay(world_, rays_[i].origin, rays_[i].translation, b2DefaultQueryFilter(), ClipToClosest, &c);
  return {c.hit, c.id, c.fraction};
}

void Box2d3Peer::Aabb(size_t i, std::vector<uint64_t>* ids) {
  b2World_OverlapShape(world_, &boxes_[i].proxy, b2DefaultQueryFilter(), CollectBody, ids);
}

void Box2d3Peer::Disk(size_t i, std::vector<uint64_t>* ids) {
  b2World_OverlapShape(world_, &disks_[i].proxy, b2DefaultQueryFilter(), CollectBody, ids);
}

CastAnswer Box2d3Peer::Sweep(size_t i) {
  ClosestCast c;
  b2World_CastShape(world_, &sweeps_[i].proxy, sweeps_[i].translation, b2DefaultQueryFilter(), ClipToClosest, &c);
  return {c.hit, c.id, c.fraction};
}

}  // namespace

std::unique_ptr<Peer> MakeBox2d3Peer() { return std::make_unique<Box2d3Peer>(); }

}  // namespace arbiter::bench
