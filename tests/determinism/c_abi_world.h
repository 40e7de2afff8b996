// File: c_abi_world.h
//
// The subset of arbiter::World's interface the determinism scenarios use,
// implemented over the C interface (arbiter/c/arbiter.h): every call
// converts its core-typed arguments to the C structs field by field (its
// own conversions, not the library's), calls arb_*, and converts back. A
// query the C interface refuses (which the core would have answered) is a
// discrepancy: it aborts with the message.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "arbiter/c/arbiter.h"
#include "arbiter/core/world.h"

namespace arbiter::determinism {

class CAbiWorld {
 public:
  explicit CAbiWorld(const WorldDef& def = {});
  ~CAbiWorld();
  CAbiWorld(CAbiWorld&& other) noexcept;
  CAbiWorld& operator=(CAbiWorld&& other) noexcept;
  CAbiWorld(const CAbiWorld&) = delete;
  CAbiWorld& operator=(const CAbiWorld&) = delete;

  int64_t tick() const;
  size_t body_count() const;
  uint64_t StateHash() const;
  std::vector<uint8_t> Snapshot() const;
  static Status Restore(std::span<const uint8_t> bytes, CAbiWorld* out);

  Status AddBodies(std::span<const BodyDef> defs);
  Status RemoveBodies(std::span<const uint64_t> ids);
  Status SetBodyTransform(uint64_t id, const Transform& transform);
  Status SetBodyVelocity(uint64_t id, Vec2 linear, Fixed angular);
  Status SetShapeFilter(uint64_t id, uint32_t shape_index, const Filter& filter);
  void Step(TickEvents* events);

  std::vector<uint64_t> BodyIds() const;
  std::optional<BodyDef> GetBodyDef(uint64_t id) const;
  std::optional<BodyView> FindBody(uint64_t id) const;

  std::optional<CastHit> CastRayClosest(const RayCastInput& ray, const QueryFilter& filter = {},
                                        QueryStats* stats = nullptr) const;
  std::vector<CastHit> CastRayAll(const RayCastInput& ray, const QueryFilter& filter = {}) const;
  bool CastRayAny(const RayCastInput& ray, const QueryFilter& filter = {}) const;
  void CastRaysClosest(std::span<const RayCastInput> rays, const QueryFilter& filter,
                       std::span<std::optional<CastHit>> out) const;
  std::vector<ShapeRef> OverlapPoint(Vec2 point, const QueryFilter& filter = {}) const;
  std::vector<ShapeRef> OverlapAabb(const Aabb& box, const QueryFilter& filter = {}) const;
  std::vector<ShapeRef> OverlapShape(const Shape& shape, const Transform& transform,
                                     const QueryFilter& filter = {}) const;
  std::optional<CastHit> CastShapeClosest(const Shape& shape, const Transform& transform, Vec2 translation,
                                          const QueryFilter& filter = {}) const;
  std::vector<CastHit> CastShapeAll(const Shape& shape, const Transform& transform, Vec2 translation,
                                    const QueryFilter& filter = {}) const;

 private:
  explicit CAbiWorld(arb_world* handle) : handle_(handle) {}
  arb_world* handle_ = nullptr;
};

}  // namespace arbiter::determinism
