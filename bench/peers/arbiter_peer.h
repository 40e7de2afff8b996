// File: arbiter_peer.h
//
// Arbiter itself behind the peer interface: World::AddBodies(scene.bodies),
// then World::CastRayClosest, OverlapAabb, OverlapShape (a circle at the
// identity transform) and CastShapeClosest (a circle placed at the sweep's
// centre), with the Fixed inputs of the query file as loaded. Overlap results
// are ShapeRefs; they are reported by body id.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "arbiter/core/world.h"
#include "peers/peer.h"

namespace arbiter::bench {

class ArbiterPeer final : public Peer {
 public:
  ArbiterPeer();
  ~ArbiterPeer() override;

  std::string Name() const override { return "Arbiter"; }
  std::string Setup() const override;
  bool Build(const scene::Scene& scene, std::string* error) override;
  void Prepare(const scene::QuerySet& queries) override;
  CastAnswer Ray(size_t i) override;
  void Aabb(size_t i, std::vector<uint64_t>* ids) override;
  void Disk(size_t i, std::vector<uint64_t>* ids) override;
  CastAnswer Sweep(size_t i) override;

  const World& world() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace arbiter::bench
