// Box2D 2.4.1 behind the step_bench interface. One b2Body per scene body
// (static, kinematic or dynamic as in the file, same pose, velocities,
// damping and gravity scale), one fixture per shape: b2CircleShape for
// circles, b2PolygonShape::Set for polygons and boxes, with the ShapeDef's
// density, friction and restitution (Box2D mixes friction as sqrt(fa fb) and
// restitution as max, as Arbiter does). b2World::Step(1 / tick_hz, 8, 3).
#include <box2d/box2d.h>

#include <cmath>
#include <string>
#include <vector>

#include "step/stepper.h"

namespace arbiter::bench {
namespace {

b2Vec2 ToB2(Vec2 v) { return b2Vec2(static_cast<float>(v.x.ToDouble()), static_cast<float>(v.y.ToDouble())); }
float ToF(Fixed f) { return static_cast<float>(f.ToDouble()); }

b2BodyType ToB2(BodyType t) {
  switch (t) {
    case BodyType::kStatic: return b2_staticBody;
    case BodyType::kKinematic: return b2_kinematicBody;
    case BodyType::kDynamic: return b2_dynamicBody;
  }
  return b2_staticBody;
}

class Box2dStepper final : public Stepper {
 public:
  explicit Box2dStepper(const Box2dStepOptions& options) : options_(options) {}

  std::string Name() const override { return options_.allow_sleep ? "Box2D+sleep" : "Box2D"; }
  std::string Setup() const override {
    return "Box2D 2.4.1 (float): b2World::Step(1/" + std::to_string(tick_hz_) + ", " +
           std::to_string(options_.velocity_iterations) + ", " + std::to_string(options_.position_iterations) +
           "), sleeping " + (options_.allow_sleep ? "ON (Box2D's default)" : "off") +
           ", continuous physics on (default); circles b2CircleShape, polygons b2PolygonShape (skin 0.01)";
  }

  bool Build(const scene::Scene& scene, std::string* error) override {
    tick_hz_ = scene.world.tick_hz;
    world_.SetGravity(ToB2(scene.world.gravity));
    world_.SetAllowSleeping(options_.allow_sleep);
    for (const BodyDef& def : scene.bodies) {
      b2BodyDef bd;
      bd.type = ToB2(def.type);
      bd.position = ToB2(def.transform.p);
      bd.angle = static_cast<float>(std::atan2(def.transform.q.s.ToDouble(), def.transform.q.c.ToDouble()));
      bd.linearVelocity = ToB2(def.linear_velocity);
      bd.angularVelocity = ToF(def.angular_velocity);
      bd.linearDamping = ToF(def.linear_damping);
      bd.angularDamping = ToF(def.angular_damping);
      bd.gravityScale = ToF(def.gravity_scale);
      bd.bullet = def.is_bullet;
      b2Body* body = world_.CreateBody(&bd);
      for (const ShapeDef& sd : def.shapes) {
        b2FixtureDef fd;
        fd.density = ToF(sd.density);
        fd.friction = ToF(sd.friction);
        fd.restitution = ToF(sd.restitution);
        b2CircleShape circle;
        b2PolygonShape polygon;
        if (sd.shape.type == ShapeType::kCircle) {
          circle.m_p = ToB2(sd.shape.circle.center);
          circle.m_radius = ToF(sd.shape.circle.radius);
          fd.shape = &circle;
        } else if (sd.shape.type == ShapeType::kPolygon && sd.shape.polygon.count <= b2_maxPolygonVertices) {
          const Polygon& p = sd.shape.polygon;
          b2Vec2 points[b2_maxPolygonVertices];
          for (int i = 0; i < p.count; ++i) points[i] = ToB2(p.vertices[i]);
          polygon.Set(points, p.count);
          fd.shape = &polygon;
        } else {
          *error = "Box2D: body " + std::to_string(def.id) + ": shape not mapped";
          return false;
        }
        body->CreateFixture(&fd);
      }
      if (def.type == BodyType::kDynamic) dynamic_.push_back(body);
    }
    return true;
  }

  void Step() override {
    world_.Step(1.0f / static_cast<float>(tick_hz_), options_.velocity_iterations, options_.position_iterations);
  }

  void DynamicStates(std::vector<DynamicState>* out) const override {
    out->clear();
    for (const b2Body* b : dynamic_) {
      const b2Vec2 p = b->GetPosition(), v = b->GetLinearVelocity();
      out->push_back({b->GetMass(), p.x, p.y, v.x, v.y, b->IsAwake()});
    }
  }

 private:
  Box2dStepOptions options_;
  int tick_hz_ = 60;
  b2World world_{b2Vec2(0.0f, 0.0f)};
  std::vector<b2Body*> dynamic_;  // scene order
};

}  // namespace

std::unique_ptr<Stepper> MakeBox2dStepper(const Box2dStepOptions& options) {
  return std::make_unique<Box2dStepper>(options);
}

}  // namespace arbiter::bench
