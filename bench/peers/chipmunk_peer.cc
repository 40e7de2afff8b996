#include "peers/chipmunk_peer.h"

#include <chipmunk/chipmunk.h>
#include <chipmunk/chipmunk_structs.h>  // cpSpace::staticShapes, for cpBBTreeOptimize
#include <chipmunk/chipmunk_unsafe.h>   // cpPolyShapeSetVertsRaw for the reusable query box

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace arbiter::bench {
namespace {

cpVect ToCp(Vec2 v) { return cpv(v.x.ToDouble(), v.y.ToDouble()); }

uint64_t BodyIdOf(const cpShape* shape) {
  return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(cpShapeGetUserData(shape)));
}

struct RayQuery {
  cpVect a, b;
};
struct BoxQuery {
  cpVect verts[4];  // counter-clockwise
};
struct DiskQueryD {
  cpVect center;
  cpFloat radius;
};
struct SweepQueryD {
  cpVect a, b;
  cpFloat radius;
  cpBB bounds;
};

struct ClosestCast {
  cpVect a, b;
  cpFloat radius;
  bool hit = false;
  cpFloat alpha = 1.0;
  uint64_t id = 0;
};

void SweepShape(cpShape* shape, void* data) {
  auto* c = static_cast<ClosestCast*>(data);
  cpSegmentQueryInfo info;
  if (cpShapeSegmentQuery(shape, c->a, c->b, c->radius, &info)) {
    const uint64_t id = BodyIdOf(shape);
    if (!c->hit || info.alpha < c->alpha || (info.alpha == c->alpha && id < c->id)) {
      c->hit = true;
      c->alpha = info.alpha;
      c->id = id;
    }
  }
}

void CollectShape(cpShape* shape, cpContactPointSet* /*points*/, void* data) {
  static_cast<std::vector<uint64_t>*>(data)->push_back(BodyIdOf(shape));
}

void CollectPoint(cpShape* shape, cpVect /*point*/, cpFloat /*distance*/, cpVect /*gradient*/, void* data) {
  static_cast<std::vector<uint64_t>*>(data)->push_back(BodyIdOf(shape));
}

}  // namespace

struct ChipmunkPeer::Impl {
  Index index;
  double hash_dim;
  int hash_cells = 0;
  cpSpace* space = nullptr;
  std::vector<cpBody*> bodies;
  std::vector<cpShape*> shapes;
  cpShape* query_box = nullptr;  // body-less shape reused by every box query
  std::vector<RayQuery> rays;
  std::vector<BoxQuery> boxes;
  std::vector<DiskQueryD> disks;
  std::vector<SweepQueryD> sweeps;

  ~Impl() {
    if (query_box) cpShapeFree(query_box);
    // cpSpaceFree frees the indexes only; shapes and bodies are freed after
    // it without removing them one by one (nothing touches the space then).
    if (space) cpSpaceFree(space);
    for (cpShape* s : shapes) cpShapeFree(s);
    for (cpBody* b : bodies) cpBodyFree(b);
  }
};

ChipmunkPeer::ChipmunkPeer(Index index, double hash_dim) : impl_(std::make_unique<Impl>()) {
  impl_->index = index;
  impl_->hash_dim = hash_dim;
}
ChipmunkPeer::~ChipmunkPeer() = default;

std::string ChipmunkPeer::Name() const {
  return impl_->index == Index::kBBTree ? "Chipmunk(bbtree)" : "Chipmunk(hash)";
}

std::string ChipmunkPeer::Setup() const {
  std::string s =
      "Chipmunk 7.0.3 (double; Debian build with debug checks), bodies created in Hilbert order, all static; "
      "capsule = segment shape with radius; ";
  if (impl_->index == Index::kBBTree) {
    s += "index cpBBTree, balanced by cpBBTreeOptimize";
  } else {
    char buf[96];
    std::snprintf(buf, sizeof buf, "index cpSpaceHash, cell %.3g, %d cells (empty dynamic hash: 1000)",
                  impl_->hash_dim, impl_->hash_cells);
    s += buf;
  }
  s += "; boxes cpSpaceShapeQuery; disks cpSpacePointQuery(maxDistance = r); sweeps cpSpaceBBQuery(swept box) + "
       "cpShapeSegmentQuery(radius) per shape";
  return s;
}

bool ChipmunkPeer::Build(const scene::Scene& scene, std::string* error) {
  Impl& m = *impl_;
  m.space = cpSpaceNew();
  size_t shape_count = 0;
  for (const BodyDef& def : scene.bodies) shape_count += def.shapes.size();
  if (m.index == Index::kSpatialHash) {
    m.hash_cells = static_cast<int>(std::max<size_t>(1000, 10 * shape_count));
    cpSpaceUseSpatialHash(m.space, m.hash_dim, m.hash_cells);
    // Every body goes in as static, so the dynamic index stays empty; its
    // table is shrunk so that the cells a query visits there stay in cache
    // (with the full-size table this empty index costs ~20% of a query).
    cpSpaceHashResize(reinterpret_cast<cpSpaceHash*>(m.space->dynamicShapes), m.hash_dim, 1000);
  }
  m.bodies.reserve(scene.bodies.size());
  m.shapes.reserve(shape_count);
  for (size_t index : SpatialOrder(scene)) {
    const BodyDef& def = scene.bodies[index];
    cpBody* body = cpBodyNewStatic();
    cpBodySetPosition(body, ToCp(def.transform.p));
    cpBodySetAngle(body, std::atan2(def.transform.q.s.ToDouble(), def.transform.q.c.ToDouble()));
    cpSpaceAddBody(m.space, body);
    m.bodies.push_back(body);
    void* user = reinterpret_cast<void*>(static_cast<uintptr_t>(def.id));
    for (const ShapeDef& sd : def.shapes) {
      const Shape& s = sd.shape;
      cpShape* shape = nullptr;
      switch (s.type) {
        case ShapeType::kCircle:
          shape = cpCircleShapeNew(body, s.circle.radius.ToDouble(), ToCp(s.circle.center));
          break;
        case ShapeType::kCapsule:
          shape = cpSegmentShapeNew(body, ToCp(s.capsule.center1), ToCp(s.capsule.center2),
                                    s.capsule.radius.ToDouble());
          break;
        case ShapeType::kSegment:
          shape = cpSegmentShapeNew(body, ToCp(s.segment.point1), ToCp(s.segment.point2), 0.0);
          break;
        case ShapeType::kChainSegment:
          // Chipmunk has no one-sided segment; a two-sided one would be a
          // different scene, so the peer refuses rather than compare unlike things.
          *error = "Chipmunk: body " + std::to_string(def.id) + ": chain segments (one-sided) are not supported";
          return false;
        case ShapeType::kPolygon: {
          const Polygon& p = s.polygon;
          if (p.count < 3) {
            *error = "Chipmunk: body " + std::to_string(def.id) + ": polygon with " + std::to_string(p.count) +
                     " vertices";
            return false;
          }
          cpVect verts[kMaxPolygonVertices];
          for (int i = 0; i < p.count; ++i) verts[i] = ToCp(p.vertices[i]);
          // Arbiter polygons are strictly convex and counter-clockwise, which
          // is what Chipmunk 7 expects, so no hull pass is needed.
          shape = cpPolyShapeNewRaw(body, p.count, verts, p.radius.ToDouble());
          break;
        }
      }
      cpShapeSetUserData(shape, user);
      cpSpaceAddShape(m.space, shape);
      m.shapes.push_back(shape);
    }
  }
  // The static tree is built by insertion; cpBBTreeOptimize rebuilds it
  // top-down, which makes every query kind markedly faster here.
  if (m.index == Index::kBBTree) cpBBTreeOptimize(m.space->staticShapes);
  cpVect unit[4] = {cpv(0, 0), cpv(1, 0), cpv(1, 1), cpv(0, 1)};
  m.query_box = cpPolyShapeNewRaw(nullptr, 4, unit, 0.0);
  return true;
}

void ChipmunkPeer::Prepare(const scene::QuerySet& queries) {
  Impl& m = *impl_;
  m.rays.clear();
  m.boxes.clear();
  m.disks.clear();
  m.sweeps.clear();
  for (const RayCastInput& r : queries.rays) {
    const cpVect a = ToCp(r.origin);
    m.rays.push_back({a, cpvadd(a, ToCp(r.translation))});
  }
  for (const arbiter::Aabb& a : queries.aabbs) {
    const cpVect lo = ToCp(a.lower), hi = ToCp(a.upper);
    m.boxes.push_back({{lo, cpv(hi.x, lo.y), hi, cpv(lo.x, hi.y)}});
  }
  for (const scene::DiskQuery& d : queries.disks) m.disks.push_back({ToCp(d.center), d.radius.ToDouble()});
  for (const scene::SweepQuery& s : queries.sweeps) {
    SweepQueryD q;
    q.a = ToCp(s.center);
    q.b = cpvadd(q.a, ToCp(s.translation));
    q.radius = s.radius.ToDouble();
    q.bounds = cpBBNew(std::min(q.a.x, q.b.x) - q.radius, std::min(q.a.y, q.b.y) - q.radius,
                       std::max(q.a.x, q.b.x) + q.radius, std::max(q.a.y, q.b.y) + q.radius);
    m.sweeps.push_back(q);
  }
}

CastAnswer ChipmunkPeer::Ray(size_t i) {
  const RayQuery& q = impl_->rays[i];
  cpSegmentQueryInfo info;
  const cpShape* shape = cpSpaceSegmentQueryFirst(impl_->space, q.a, q.b, 0.0, CP_SHAPE_FILTER_ALL, &info);
  if (!shape) return {};
  return {true, BodyIdOf(shape), info.alpha};
}

void ChipmunkPeer::Aabb(size_t i, std::vector<uint64_t>* ids) {
  BoxQuery& q = impl_->boxes[i];
  cpPolyShapeSetVertsRaw(impl_->query_box, 4, q.verts);
  cpShapeUpdate(impl_->query_box, cpTransformIdentity);
  cpSpaceShapeQuery(impl_->space, impl_->query_box, CollectShape, ids);
}

void ChipmunkPeer::Disk(size_t i, std::vector<uint64_t>* ids) {
  const DiskQueryD& q = impl_->disks[i];
  cpSpacePointQuery(impl_->space, q.center, q.radius, CP_SHAPE_FILTER_ALL, CollectPoint, ids);
}

CastAnswer ChipmunkPeer::Sweep(size_t i) {
  const SweepQueryD& q = impl_->sweeps[i];
  ClosestCast c{q.a, q.b, q.radius};
  cpSpaceBBQuery(impl_->space, q.bounds, CP_SHAPE_FILTER_ALL, SweepShape, &c);
  if (!c.hit) return {};
  return {true, c.id, c.alpha};
}

}  // namespace arbiter::bench
