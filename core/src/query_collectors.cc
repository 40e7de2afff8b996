#include "arbiter/core/query_collectors.h"

#include <algorithm>
#include <array>
#include <optional>
#include <vector>

namespace arbiter {
namespace {

// Rays per CastRaysClosest call: the batch form shares its traversal set-up
// across rays; a fixed array keeps the batch off the heap.
constexpr size_t kRayBatch = 256;

void ReportClosest(size_t query, const std::optional<CastHit>& hit, const CastSink& sink) {
  if (hit) {
    sink(query, true, std::span<const CastHit>(&*hit, 1));
  } else {
    sink(query, false, {});
  }
}

void CollectClosestRays(const World& world, std::span<const RayCastInput> rays, const QueryFilter& filter,
                        const CastSink& sink) {
  std::array<std::optional<CastHit>, kRayBatch> closest;
  for (size_t start = 0; start < rays.size(); start += kRayBatch) {
    const size_t count = std::min(kRayBatch, rays.size() - start);
    world.CastRaysClosest(rays.subspan(start, count), filter,
                          std::span<std::optional<CastHit>>(closest.data(), count));
    for (size_t i = 0; i < count; ++i) ReportClosest(start + i, closest[i], sink);
  }
}

}  // namespace

void CollectRayCasts(const World& world, std::span<const RayCastInput> rays, const QueryFilter& filter,
                     CastMode mode, const CastSink& sink) {
  switch (mode) {
    case CastMode::kClosest: CollectClosestRays(world, rays, filter, sink); return;
    case CastMode::kAll:
      for (size_t i = 0; i < rays.size(); ++i) {
        const std::vector<CastHit> hits = world.CastRayAll(rays[i], filter);
        sink(i, !hits.empty(), hits);
      }
      return;
    case CastMode::kAny:
      for (size_t i = 0; i < rays.size(); ++i) sink(i, world.CastRayAny(rays[i], filter), {});
      return;
  }
}

void CollectShapeCasts(const World& world, std::span<const WorldShapeCast> casts, const QueryFilter& filter,
                       CastMode mode, const CastSink& sink) {
  for (size_t i = 0; i < casts.size(); ++i) {
    const WorldShapeCast& c = casts[i];
    switch (mode) {
      case CastMode::kClosest:
        ReportClosest(i, world.CastShapeClosest(c.shape, c.transform, c.translation, filter), sink);
        break;
      case CastMode::kAll: {
        const std::vector<CastHit> hits = world.CastShapeAll(c.shape, c.transform, c.translation, filter);
        sink(i, !hits.empty(), hits);
        break;
      }
      case CastMode::kAny: sink(i, world.CastShapeAny(c.shape, c.transform, c.translation, filter), {}); break;
    }
  }
}

}  // namespace arbiter
