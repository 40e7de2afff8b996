#include "peers/arbiter_peer.h"

#include <optional>
#include <string>
#include <vector>

namespace arbiter::bench {
namespace {

CastAnswer FromHit(const std::optional<CastHit>& hit) {
  if (!hit) return {};
  return {true, hit->shape.body_id, hit->fraction.ToDouble()};
}

void AppendBodies(const std::vector<ShapeRef>& refs, std::vector<uint64_t>* ids) {
  for (const ShapeRef& r : refs) ids->push_back(r.body_id);
}

struct SweepInput {
  Shape disk;
  Transform transform;
  Vec2 translation;
};

}  // namespace

struct ArbiterPeer::Impl {
  World world;
  const scene::QuerySet* queries = nullptr;
  std::vector<Shape> disks;
  std::vector<SweepInput> sweeps;
};

ArbiterPeer::ArbiterPeer() : impl_(std::make_unique<Impl>()) {}
ArbiterPeer::~ArbiterPeer() = default;

const World& ArbiterPeer::world() const { return impl_->world; }

std::string ArbiterPeer::Setup() const {
  return "Arbiter (Q32.32): World::AddBodies(scene.bodies) with the file's body types; CastRayClosest, OverlapAabb, "
         "OverlapShape(circle), CastShapeClosest(circle)";
}

bool ArbiterPeer::Build(const scene::Scene& scene, std::string* error) {
  impl_->world = World(scene.world);
  const Status status = impl_->world.AddBodies(scene.bodies);
  if (!status.ok()) {
    *error = "Arbiter: AddBodies: " + status.message();
    return false;
  }
  return true;
}

void ArbiterPeer::Prepare(const scene::QuerySet& queries) {
  Impl& m = *impl_;
  m.queries = &queries;
  m.disks.clear();
  m.sweeps.clear();
  for (const scene::DiskQuery& d : queries.disks) m.disks.push_back(Shape::FromCircle({d.center, d.radius}));
  for (const scene::SweepQuery& s : queries.sweeps) {
    m.sweeps.push_back({Shape::FromCircle({Vec2{}, s.radius}), Transform{s.center, kRotIdentity}, s.translation});
  }
}

CastAnswer ArbiterPeer::Ray(size_t i) { return FromHit(impl_->world.CastRayClosest(impl_->queries->rays[i])); }

void ArbiterPeer::Aabb(size_t i, std::vector<uint64_t>* ids) {
  AppendBodies(impl_->world.OverlapAabb(impl_->queries->aabbs[i]), ids);
}

void ArbiterPeer::Disk(size_t i, std::vector<uint64_t>* ids) {
  AppendBodies(impl_->world.OverlapShape(impl_->disks[i], kTransformIdentity), ids);
}

CastAnswer ArbiterPeer::Sweep(size_t i) {
  const SweepInput& s = impl_->sweeps[i];
  return FromHit(impl_->world.CastShapeClosest(s.disk, s.transform, s.translation));
}

}  // namespace arbiter::bench
