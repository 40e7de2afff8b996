// File: peer.h
//
// The small interface every engine in peer_bench implements (Arbiter, Box2D
// 2.4.1, Chipmunk 7), so that the harness times and compares them the same
// way on the same scene and query files.
//
// Life cycle: Build(scene) once, then Prepare(queries) once (each engine
// converts the file's inputs to its own format here, outside the timed
// loops), then any number of calls answering query i of each kind.
//
// Answers are made comparable: casts (rays, sweeps) give the closest body id
// and the fraction as a double; overlaps (boxes, disks) append body ids in
// any order, possibly repeated (an engine may hold one body as several
// shapes); the harness sorts and de-duplicates them outside the timed loop.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "arbiter/scene/scene.h"

namespace arbiter::bench {

struct CastAnswer {
  bool hit = false;
  uint64_t body_id = 0;
  double fraction = 0.0;
};

class Peer {
 public:
  virtual ~Peer() = default;

  /// Short name for tables, e.g. "Box2D".
  virtual std::string Name() const = 0;
  /// One line on how the engine is set up (index, shape mapping).
  virtual std::string Setup() const = 0;

  /// Builds the engine's world from the scene. False (with *error) on failure.
  virtual bool Build(const scene::Scene& scene, std::string* error) = 0;
  /// Converts the query set to the engine's input format (not timed).
  virtual void Prepare(const scene::QuerySet& queries) = 0;

  /// Closest hit of rays[i].
  virtual CastAnswer Ray(size_t i) = 0;
  /// Bodies overlapping aabbs[i] (exact shape test), appended to *ids.
  virtual void Aabb(size_t i, std::vector<uint64_t>* ids) = 0;
  /// Bodies overlapping disks[i] (exact), appended to *ids.
  virtual void Disk(size_t i, std::vector<uint64_t>* ids) = 0;
  /// First time of impact of sweeps[i].
  virtual CastAnswer Sweep(size_t i) = 0;
};

/// The indices of scene.bodies sorted along a Hilbert curve over their
/// positions. The peers create their bodies in this order: their trees are
/// built by incremental insertion, and a spatially coherent insertion order
/// gives them a much better tree (Box2D 2.4's b2World offers no rebuild).
/// Arbiter needs no such help (AddBodies rebuilds its tree top-down).
inline std::vector<size_t> SpatialOrder(const scene::Scene& scene) {
  if (scene.bodies.empty()) return {};
  double lo_x = 1e300, lo_y = 1e300, hi_x = -1e300, hi_y = -1e300;
  for (const BodyDef& b : scene.bodies) {
    const double x = b.transform.p.x.ToDouble(), y = b.transform.p.y.ToDouble();
    lo_x = std::min(lo_x, x);
    lo_y = std::min(lo_y, y);
    hi_x = std::max(hi_x, x);
    hi_y = std::max(hi_y, y);
  }
  const double span = std::max({hi_x - lo_x, hi_y - lo_y, 1e-9});
  constexpr uint32_t kSide = 1u << 16;
  std::vector<std::pair<uint64_t, size_t>> keyed;
  keyed.reserve(scene.bodies.size());
  for (size_t i = 0; i < scene.bodies.size(); ++i) {
    const BodyDef& b = scene.bodies[i];
    auto cell = [&](double v, double lo) {
      return static_cast<uint32_t>(std::min((v - lo) / span * (kSide - 1), double{kSide - 1}));
    };
    uint32_t x = cell(b.transform.p.x.ToDouble(), lo_x), y = cell(b.transform.p.y.ToDouble(), lo_y);
    uint64_t d = 0;  // Hilbert index of (x, y) on a kSide x kSide grid
    for (uint32_t s = kSide / 2; s > 0; s /= 2) {
      const uint32_t rx = (x & s) ? 1 : 0, ry = (y & s) ? 1 : 0;
      d += static_cast<uint64_t>(s) * s * ((3 * rx) ^ ry);
      if (ry == 0) {
        if (rx == 1) {
          x = s - 1 - x;
          y = s - 1 - y;
        }
        std::swap(x, y);
      }
    }
    keyed.push_back({d, i});
  }
  std::sort(keyed.begin(), keyed.end());
  std::vector<size_t> order;
  order.reserve(keyed.size());
  for (const auto& k : keyed) order.push_back(k.second);
  return order;
}

}  // namespace arbiter::bench
