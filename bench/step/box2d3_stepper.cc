// Box2D v3 behind the step_bench interface (built only with
// -DARBITER_BOX2D3_DIR, box2d3.cmake). This translation unit is the only one
// of step_bench that sees Box2D v3's headers; everything but
// MakeBox2d3Stepper has internal linkage, because Box2D 2.4.1 (the other
// peer) defines types of the same names.
//
// One body per scene body (type, pose, velocities, damping, gravity scale,
// bullet flag as in the file), one shape per ShapeDef: b2CreateCircleShape,
// and b2CreatePolygonShape of b2MakePolygon(b2ComputeHull(vertices)), with
// the ShapeDef's density, friction and restitution (v3 mixes friction as
// sqrt(fa fb) and restitution as max, as Arbiter does). The solver runs the
// scene's sub-steps and contact hertz, the same settings Arbiter is given
// (Box2D v3's soft step is the one Arbiter's solver follows). No task
// system: b2World_Step on the calling thread.
#include <box2d/box2d.h>

#include <cmath>
#include <string>
#include <vector>

#include "peers/box2d3_convert.h"
#include "step/stepper.h"

namespace arbiter::bench {
namespace {

using box2d3::ToB2;
using box2d3::ToF;

b2BodyType ToB2(BodyType t) {
  switch (t) {
    case BodyType::kStatic: return b2_staticBody;
    case BodyType::kKinematic: return b2_kinematicBody;
    case BodyType::kDynamic: return b2_dynamicBody;
  }
  return b2_staticBody;
}

class Box2d3Stepper final : public Stepper {
 public:
  explicit Box2d3Stepper(const Box2d3StepOptions& options) : options_(options) {}
  ~Box2d3Stepper() override {
    if (b2World_IsValid(world_)) b2DestroyWorld(world_);
  }

  std::string Name() const override { return options_.allow_sleep ? "Box2D3+sleep" : "Box2D v3"; }
  std::string Setup() const override {
    const b2Version v = b2GetVersion();
    return "Box2D " + std::to_string(v.major) + "." + std::to_string(v.minor) + "." + std::to_string(v.revision) +
           " (C, float, source build): b2World_Step(1/" + std::to_string(tick_hz_) + ", " +
           std::to_string(sub_steps_) + " sub-steps), contact hertz " + std::to_string(contact_hertz_) +
           ", sleeping " + (options_.allow_sleep ? "on" : "off") + ", continuous on (default), one thread";
  }

  bool Build(const scene::Scene& scene, std::string* error) override {
    tick_hz_ = scene.world.tick_hz;
    sub_steps_ = options_.sub_steps;
    contact_hertz_ = options_.contact_hertz;
    b2WorldDef wd = b2DefaultWorldDef();
    wd.gravity = ToB2(scene.world.gravity);
    wd.enableSleep = options_.allow_sleep;
    wd.contactHertz = static_cast<float>(contact_hertz_);
    world_ = b2CreateWorld(&wd);
    for (const BodyDef& def : scene.bodies) {
      b2BodyDef bd = b2DefaultBodyDef();
      bd.type = ToB2(def.type);
      bd.position = ToB2(def.transform.p);
      bd.rotation = b2Rot{ToF(def.transform.q.c), ToF(def.transform.q.s)};
      bd.linearVelocity = ToB2(def.linear_velocity);
      bd.angularVelocity = ToF(def.angular_velocity);
      bd.linearDamping = ToF(def.linear_damping);
      bd.angularDamping = ToF(def.angular_damping);
      bd.gravityScale = ToF(def.gravity_scale);
      bd.isBullet = def.is_bullet;
      const b2BodyId body = b2CreateBody(world_, &bd);
      for (const ShapeDef& sd : def.shapes) {
        if (!AddShape(body, sd, def.id, error)) return false;
      }
      if (def.type == BodyType::kDynamic) dynamic_.push_back(body);
    }
    return true;
  }

  void Step() override { b2World_Step(world_, 1.0f / static_cast<float>(tick_hz_), sub_steps_); }

  void DynamicStates(std::vector<DynamicState>* out) const override {
    out->clear();
    for (const b2BodyId b : dynamic_) {
      const b2Vec2 p = b2Body_GetPosition(b), v = b2Body_GetLinearVelocity(b);
      out->push_back({b2Body_GetMass(b), p.x, p.y, v.x, v.y, b2Body_IsAwake(b)});
    }
  }

 private:
  static bool AddShape(b2BodyId body, const ShapeDef& sd, uint64_t id, std::string* error) {
    b2ShapeDef def = b2DefaultShapeDef();
    def.density = ToF(sd.density);
    def.material.friction = ToF(sd.friction);
    def.material.restitution = ToF(sd.restitution);
    if (sd.shape.type == ShapeType::kCircle) {
      const b2Circle c{ToB2(sd.shape.circle.center), ToF(sd.shape.circle.radius)};
      b2CreateCircleShape(body, &def, &c);
      return true;
    }
    b2Polygon polygon;
    std::string why = "shape not mapped";
    if (sd.shape.type != ShapeType::kPolygon || !box2d3::ToB2Polygon(sd.shape.polygon, &polygon, &why)) {
      *error = "Box2D v3: body " + std::to_string(id) + ": " + why;
      return false;
    }
    b2CreatePolygonShape(body, &def, &polygon);
    return true;
  }

  Box2d3StepOptions options_;
  int tick_hz_ = 60;
  int sub_steps_ = 4;
  int contact_hertz_ = 30;
  b2WorldId world_ = b2_nullWorldId;
  std::vector<b2BodyId> dynamic_;  // scene order
};

}  // namespace

std::unique_ptr<Stepper> MakeBox2d3Stepper(const Box2d3StepOptions& options) {
  return std::make_unique<Box2d3Stepper>(options);
}

}  // namespace arbiter::bench
