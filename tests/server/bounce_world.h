// A world whose step drives a body to the speed limit (issue 13, item 3):
// a ball with the largest restitution allowed (65536) thrown at a floor at
// 1000 units/s rebounds at 6.5e7 units/s unless the step clamps it to the
// 2^24 every entry point accepts. Until the step kept its state inside the
// limits, a rollback, a snapshot restore, a history rebuild or a journal
// recovery of this world refused the stored velocity (or aborted).
#pragma once

#include <string>

#include "arbiter/core/world.h"
#include "arbiter/v1/arbiter.pb.h"
#include "arbiter/wire/convert.h"

namespace arbiter::testing {

constexpr uint64_t kBounceFloor = 1;
constexpr uint64_t kBounceBall = 2;
/// The ball bounces in the first tick: after it, the step's own state
/// holds the rebound speed (the next tick's integration would clamp it).
constexpr uint32_t kBounceTicks = 1;

inline v1::CreateWorldRequest BounceWorld(const std::string& world_id) {
  v1::CreateWorldRequest request;
  request.set_world_id(world_id);
  request.mutable_gravity()->set_y(Fixed::FromInt(-10).raw());
  BodyDef floor;
  floor.id = kBounceFloor;
  floor.transform.p = {kFixedZero, Fixed::FromInt(-1)};
  Polygon box;
  (void)MakeBox(Fixed::FromInt(50), kFixedOne, &box);
  floor.shapes.push_back(ShapeDef{});
  floor.shapes[0].shape = Shape::FromPolygon(box);
  wire::ToProto(floor, request.add_bodies());
  BodyDef ball;
  ball.id = kBounceBall;
  ball.type = BodyType::kDynamic;
  ball.transform.p = {kFixedZero, Fixed::FromInt(10)};
  ball.linear_velocity = {kFixedZero, Fixed::FromInt(-1000)};
  ball.shapes.push_back(ShapeDef{});
  ball.shapes[0].shape = Shape::FromCircle({Vec2{}, kFixedOne});
  ball.shapes[0].restitution = kMaxMaterial;
  wire::ToProto(ball, request.add_bodies());
  return request;
}

inline v1::StepRequest StepTicks(const std::string& world_id, uint32_t ticks) {
  v1::StepRequest request;
  request.set_world_id(world_id);
  request.set_ticks(ticks);
  request.set_omit_events(true);
  return request;
}

}  // namespace arbiter::testing
