// Chipmunk 7.0.3 behind the step_bench interface. One cpBody per scene
// body: cpBodyNewStatic / cpBodyNewKinematic, or cpBodyNew(mass, moment) for
// dynamic bodies with the mass from the ShapeDef densities (cpAreaForCircle /
// cpAreaForPoly) and the moment from cpMomentForCircle / cpMomentForPoly
// about the body origin (the scene's shapes are centred on it). Shapes:
// cpCircleShapeNew, and cpPolyShapeNew with the polygon's (box's) corners.
// cpSpaceSetIterations(10), cpSpaceStep(1 / tick_hz); every other space
// setting is Chipmunk's default (cpBBTree index, collision slop 0.1, no
// sleeping).
//
// Materials: Chipmunk mixes a pair's friction and elasticity as the PRODUCT
// of the two shapes' values, Box2D and Arbiter as sqrt(fa fb) (friction)
// and max (restitution). Each shape therefore gets sqrt(value), so that a
// pair of shapes of one material (all of rain-2k: friction 0.6,
// restitution 0) has the same coefficients in all three engines.
#include <chipmunk/chipmunk.h>

#include <cmath>
#include <string>
#include <vector>

#include "step/stepper.h"

namespace arbiter::bench {
namespace {

cpVect ToCp(Vec2 v) { return cpv(v.x.ToDouble(), v.y.ToDouble()); }

class ChipmunkStepper final : public Stepper {
 public:
  explicit ChipmunkStepper(int iterations) : iterations_(iterations) {}
  ~ChipmunkStepper() override {
    // cpSpaceFree frees the space's own structures only; shapes and bodies
    // are freed after it without removing them one by one.
    if (space_) cpSpaceFree(space_);
    for (cpShape* s : shapes_) cpShapeFree(s);
    for (cpBody* b : bodies_) cpBodyFree(b);
  }

  std::string Name() const override { return "Chipmunk"; }
  std::string Setup() const override {
    return "Chipmunk 7.0.3 (double; Debian build with debug checks): cpSpaceStep(1/" + std::to_string(tick_hz_) +
           "), iterations " + std::to_string(iterations_) +
           ", defaults otherwise (cpBBTree, collision slop 0.1, no sleeping); per-shape friction sqrt(f) "
           "(Chipmunk multiplies the pair's values)";
  }

  bool Build(const scene::Scene& scene, std::string* error) override {
    tick_hz_ = scene.world.tick_hz;
    space_ = cpSpaceNew();
    cpSpaceSetIterations(space_, iterations_);
    cpSpaceSetGravity(space_, ToCp(scene.world.gravity));
    for (const BodyDef& def : scene.bodies) {
      cpBody* body = nullptr;
      switch (def.type) {
        case BodyType::kStatic: body = cpBodyNewStatic(); break;
        case BodyType::kKinematic: body = cpBodyNewKinematic(); break;
        case BodyType::kDynamic: {
          cpFloat mass = 0, moment = 0;
          for (const ShapeDef& sd : def.shapes) {
            const cpFloat density = sd.density.ToDouble();
            if (sd.shape.type == ShapeType::kCircle) {
              const cpFloat r = sd.shape.circle.radius.ToDouble();
              const cpFloat m = density * cpAreaForCircle(0, r);
              mass += m;
              moment += cpMomentForCircle(m, 0, r, ToCp(sd.shape.circle.center));
            } else if (sd.shape.type == ShapeType::kPolygon) {
              cpVect verts[kMaxPolygonVertices];
              const int n = Vertices(sd.shape.polygon, verts);
              const cpFloat r = sd.shape.polygon.radius.ToDouble();
              const cpFloat m = density * cpAreaForPoly(n, verts, r);
              mass += m;
              moment += cpMomentForPoly(m, n, verts, cpvzero, r);
            }
          }
          if (!(mass > 0) || !(moment > 0)) {
            *error = "Chipmunk: body " + std::to_string(def.id) + ": no mass";
            return false;
          }
          body = cpBodyNew(mass, moment);
          break;
        }
      }
      bodies_.push_back(body);
      cpBodySetPosition(body, ToCp(def.transform.p));
      cpBodySetAngle(body, std::atan2(def.transform.q.s.ToDouble(), def.transform.q.c.ToDouble()));
      if (def.type != BodyType::kStatic) {
        cpBodySetVelocity(body, ToCp(def.linear_velocity));
        cpBodySetAngularVelocity(body, def.angular_velocity.ToDouble());
      }
      cpSpaceAddBody(space_, body);
      for (const ShapeDef& sd : def.shapes) {
        cpShape* shape = nullptr;
        if (sd.shape.type == ShapeType::kCircle) {
          shape = cpCircleShapeNew(body, sd.shape.circle.radius.ToDouble(), ToCp(sd.shape.circle.center));
        } else if (sd.shape.type == ShapeType::kPolygon) {
          cpVect verts[kMaxPolygonVertices];
          const int n = Vertices(sd.shape.polygon, verts);
          shape = cpPolyShapeNew(body, n, verts, cpTransformIdentity, sd.shape.polygon.radius.ToDouble());
        } else {
          *error = "Chipmunk: body " + std::to_string(def.id) + ": shape not mapped";
          return false;
        }
        cpShapeSetFriction(shape, std::sqrt(sd.friction.ToDouble()));
        cpShapeSetElasticity(shape, std::sqrt(sd.restitution.ToDouble()));
        cpSpaceAddShape(space_, shape);
        shapes_.push_back(shape);
      }
      if (def.type == BodyType::kDynamic) dynamic_.push_back(body);
    }
    return true;
  }

  void Step() override { cpSpaceStep(space_, 1.0 / static_cast<cpFloat>(tick_hz_)); }

  void DynamicStates(std::vector<DynamicState>* out) const override {
    out->clear();
    for (cpBody* b : dynamic_) {
      const cpVect p = cpBodyGetPosition(b), v = cpBodyGetVelocity(b);
      out->push_back({cpBodyGetMass(b), p.x, p.y, v.x, v.y, !cpBodyIsSleeping(b)});
    }
  }

 private:
  static int Vertices(const Polygon& p, cpVect* out) {
    for (int i = 0; i < p.count; ++i) out[i] = ToCp(p.vertices[i]);
    return p.count;
  }

  int iterations_;
  int tick_hz_ = 60;
  cpSpace* space_ = nullptr;
  std::vector<cpBody*> bodies_;
  std::vector<cpShape*> shapes_;
  std::vector<cpBody*> dynamic_;  // scene order
};

}  // namespace

std::unique_ptr<Stepper> MakeChipmunkStepper(int iterations) { return std::make_unique<ChipmunkStepper>(iterations); }

}  // namespace arbiter::bench
