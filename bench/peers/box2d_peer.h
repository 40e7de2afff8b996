// File: box2d_peer.h
//
// Box2D 2.4.1 as a peer (libbox2d-dev). Every body of the scene becomes a
// static b2Body at its position (the world is never stepped, so the body
// type does not change any query). Bodies are created in Hilbert order
// (SpatialOrder in peer.h): b2World builds its b2DynamicTree by insertion and
// offers no rebuild, and on arena-10k that order makes its queries 3-4x
// faster than the file's order. Shapes: circles as b2CircleShape, boxes
// and polygons as b2PolygonShape, capsules as two circles plus a box (2.4
// has no capsule), segments as two-sided b2EdgeShape.
//
// Queries, each the fastest exact way the 2.4 API offers:
//  - rays: b2World::RayCast with a callback clipping to the closest fraction;
//    Box2D reports no hit for a ray that starts inside a shape;
//  - boxes and disks: b2World::QueryAABB, then b2TestOverlap per candidate;
//  - sweeps: b2World::QueryAABB over the swept box, then b2ShapeCast per
//    candidate, keeping the smallest fraction.
// Box2D polygons carry a skin of b2_polygonRadius (0.01), which b2TestOverlap
// and b2ShapeCast include; nothing here compensates for it. b2ShapeCast stops
// within about b2_linearSlop (0.005) of contact and may miss a disk that
// starts overlapping; the float circle ray cast can report a grazing hit from
// afar (cancellation in |s|^2 - r^2). All of this shows as disagreement.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "peers/peer.h"

namespace arbiter::bench {

class Box2dPeer final : public Peer {
 public:
  Box2dPeer();
  ~Box2dPeer() override;

  std::string Name() const override { return "Box2D"; }
  std::string Setup() const override;
  bool Build(const scene::Scene& scene, std::string* error) override;
  void Prepare(const scene::QuerySet& queries) override;
  CastAnswer Ray(size_t i) override;
  void Aabb(size_t i, std::vector<uint64_t>* ids) override;
  void Disk(size_t i, std::vector<uint64_t>* ids) override;
  CastAnswer Sweep(size_t i) override;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace arbiter::bench
