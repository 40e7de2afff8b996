// File: stepper.h
//
// The small interface every engine in step_bench implements (Arbiter,
// Box2D 2.4.1, Chipmunk 7), so that the harness builds, steps and inspects
// them the same way from the same scene file.
//
// Shapes the comparison maps: circles and convex polygons (boxes included),
// each with the ShapeDef's density, friction and restitution. Capsules,
// segments, sensors and rounded polygons are refused (CheckComparable) before
// any engine is built: the peers would need approximations whose cost is not
// the cost of the scene. rain-2k has circles and boxes only.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "arbiter/core/limits.h"
#include "arbiter/scene/scene.h"

namespace arbiter::bench {

/// One dynamic body after a tick, in the engine's own numbers.
struct DynamicState {
  double mass = 0;
  double x = 0, y = 0;    ///< body origin
  double vx = 0, vy = 0;  ///< linear velocity of the centre of mass
  bool awake = true;      ///< false while the engine lets the body sleep
};

class Stepper {
 public:
  virtual ~Stepper() = default;

  /// Short name for tables, e.g. "Box2D".
  virtual std::string Name() const = 0;
  /// One line on how the engine is set up (solver settings, shape mapping).
  virtual std::string Setup() const = 0;

  /// Builds the engine's world from the scene. False (with *error) on failure.
  virtual bool Build(const scene::Scene& scene, std::string* error) = 0;
  /// Advances one tick of 1 / scene.world.tick_hz seconds.
  virtual void Step() = 0;
  /// Every dynamic body of the scene, in scene order.
  virtual void DynamicStates(std::vector<DynamicState>* out) const = 0;
  /// Where the time of the `ticks` ticks stepped so far went, one line per
  /// stage, or empty when the engine does not say.
  virtual std::string StageBreakdown(int ticks) const {
    (void)ticks;
    return {};
  }
  /// World::StateHash for Arbiter, so that rows of one engine at different
  /// thread counts can be checked to agree; 0 for the other engines.
  virtual uint64_t StateHash() const { return 0; }
};

/// OK when every shape of the scene is one the steppers map exactly;
/// otherwise false with *error naming the first body that is not.
inline bool CheckComparable(const scene::Scene& scene, std::string* error) {
  for (const BodyDef& b : scene.bodies) {
    for (const ShapeDef& sd : b.shapes) {
      const bool mapped = sd.shape.type == ShapeType::kCircle ||
                          (sd.shape.type == ShapeType::kPolygon && sd.shape.polygon.radius == kFixedZero);
      if (!mapped || sd.is_sensor) {
        *error = "body " + std::to_string(b.id) +
                 ": step_bench compares circles and unrounded polygons only (no capsules, segments, "
                 "rounded polygons or sensors)";
        return false;
      }
    }
  }
  return true;
}

/// World::Step, on the calling thread alone (threads 1) or with a
/// StepThreadPool of `threads` threads, named "Arbiter" or "Arbiter NT".
/// With solver_defaults the world ignores the scene's "sub_steps" and
/// "contact_hertz" and uses the defaults (named "Arbiter 4/30").
std::unique_ptr<Stepper> MakeArbiterStepper(uint32_t threads = 1, bool solver_defaults = false);

/// The peers' solver work matched to a scene's WorldDef::sub_steps: their
/// iteration counts (Box2D 2.4.1's 8 velocity and 3 position iterations,
/// Chipmunk's 10) times sub_steps / 4, rounded up, so that a scene asking
/// Arbiter for twice its default sub-steps asks the peers for twice their
/// iterations. Neither peer has sub-steps or a contact spring (Box2D 2.4.1
/// solves rigid contacts and corrects positions in its own iterations;
/// Chipmunk uses a bias), so iterations are the knob their APIs give.
struct PeerIterations {
  int box2d_velocity = 8;
  int box2d_position = 3;
  int chipmunk = 10;
};
inline PeerIterations PeerIterationsFor(int32_t sub_steps) {
  auto scale = [sub_steps](int n) { return (n * sub_steps + kDefaultSubSteps - 1) / kDefaultSubSteps; };
  return {scale(8), scale(3), scale(10)};
}

/// b2World::Step(dt, velocity_iterations, position_iterations). Box2D lets
/// resting bodies sleep by default; Arbiter and Chipmunk (by default) never
/// sleep, so the like-for-like run turns sleeping off.
struct Box2dStepOptions {
  int velocity_iterations = 8;
  int position_iterations = 3;
  bool allow_sleep = false;
};
std::unique_ptr<Stepper> MakeBox2dStepper(const Box2dStepOptions& options);

/// cpSpaceStep(dt) with cpSpaceSetIterations(iterations).
std::unique_ptr<Stepper> MakeChipmunkStepper(int iterations);

/// b2World_Step(dt, sub_steps) of Box2D v3 with the given contact hertz, on
/// the calling thread (threads 1) or with that many workers. Defined only
/// when step_bench is built with -DARBITER_BOX2D3_DIR (then
/// ARBITER_HAVE_BOX2D3 is set; box2d3.cmake).
struct Box2d3StepOptions {
  int sub_steps = kDefaultSubSteps;
  int contact_hertz = kDefaultContactHertz;
  bool allow_sleep = false;
  int threads = 1;
};
std::unique_ptr<Stepper> MakeBox2d3Stepper(const Box2d3StepOptions& options);

}  // namespace arbiter::bench
