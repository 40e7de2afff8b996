// The load pieces shared by `arbiter bench` (bench.cc) and bench/fleet_bench:
// ray and disk-sweep batches from a query set, and latency percentiles. Header-only, so
// the benchmark reuses them without linking the CLI.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

#include "arbiter/core/world.h"
#include "arbiter/scene/scene.h"
#include "arbiter/v1/arbiter.pb.h"

namespace arbiter::cli {

/// A CLOSEST CastRays of `count` rays as packed columns: rays[first],
/// rays[first + 1], ... wrapping around the end of `rays` (not empty).
inline v1::CastRaysRequest ColumnBatch(const std::string& world_id, const std::vector<RayCastInput>& rays, size_t first,
                                       size_t count) {
  v1::CastRaysRequest request;
  request.set_world_id(world_id);
  request.set_mode(v1::CAST_MODE_CLOSEST);
  v1::RayColumns* c = request.mutable_columns();
  for (size_t k = 0; k < count; ++k) {
    const RayCastInput& r = rays[(first + k) % rays.size()];
    c->add_origin_x(r.origin.x.raw());
    c->add_origin_y(r.origin.y.raw());
    c->add_translation_x(r.translation.x.raw());
    c->add_translation_y(r.translation.y.raw());
  }
  return request;
}

/// A CLOSEST CastShapes of `count` disk sweeps: sweeps[first], ... wrapping
/// around the end of `sweeps` (not empty); each disk is a circle centred on
/// its transform's position.
inline v1::CastShapesRequest SweepBatch(const std::string& world_id, const std::vector<scene::SweepQuery>& sweeps,
                                        size_t first, size_t count) {
  v1::CastShapesRequest request;
  request.set_world_id(world_id);
  request.set_mode(v1::CAST_MODE_CLOSEST);
  for (size_t k = 0; k < count; ++k) {
    const scene::SweepQuery& s = sweeps[(first + k) % sweeps.size()];
    v1::ShapeCast* w = request.add_casts();
    w->mutable_shape()->mutable_circle()->set_radius(s.radius.raw());
    w->mutable_transform()->mutable_position()->set_x(s.center.x.raw());
    w->mutable_transform()->mutable_position()->set_y(s.center.y.raw());
    w->mutable_translation()->set_x(s.translation.x.raw());
    w->mutable_translation()->set_y(s.translation.y.raw());
  }
  return request;
}

/// A CLOSEST CastRays of the one ray rays[index % rays.size()], as a Ray.
inline v1::CastRaysRequest SingleRay(const std::string& world_id, const std::vector<RayCastInput>& rays, size_t index) {
  v1::CastRaysRequest request;
  request.set_world_id(world_id);
  request.set_mode(v1::CAST_MODE_CLOSEST);
  const RayCastInput& r = rays[index % rays.size()];
  v1::Ray* w = request.add_rays();
  w->mutable_origin()->set_x(r.origin.x.raw());
  w->mutable_origin()->set_y(r.origin.y.raw());
  w->mutable_translation()->set_x(r.translation.x.raw());
  w->mutable_translation()->set_y(r.translation.y.raw());
  return request;
}

/// The q-quantile (0 <= q < 1) of `v` by rank, reordering `v`; 0 when empty.
inline double Percentile(std::vector<double>& v, double q) {
  if (v.empty()) return 0;
  const size_t k = std::min(v.size() - 1, static_cast<size_t>(q * static_cast<double>(v.size())));
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
  return v[k];
}

}  // namespace arbiter::cli
