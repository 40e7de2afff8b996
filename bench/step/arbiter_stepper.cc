// Arbiter behind the step_bench interface: World::AddBodies(scene.bodies),
// then World::Step() per tick, without events.
#include <optional>
#include <string>
#include <vector>

#include "arbiter/core/world.h"
#include "step/stepper.h"

namespace arbiter::bench {
namespace {

class ArbiterStepper final : public Stepper {
 public:
  std::string Name() const override { return "Arbiter"; }
  std::string Setup() const override {
    return "Arbiter (Q32.32): World::AddBodies(scene.bodies), World::Step() without events; no sleeping";
  }

  bool Build(const scene::Scene& scene, std::string* error) override {
    world_ = World(scene.world);
    const Status status = world_.AddBodies(scene.bodies);
    if (!status.ok()) {
      *error = "Arbiter: AddBodies: " + status.message();
      return false;
    }
    dynamic_.clear();
    for (const BodyDef& b : scene.bodies) {
      if (b.type != BodyType::kDynamic) continue;
      double mass = 0;
      for (const ShapeDef& sd : b.shapes) mass += ComputeMass(sd.shape, sd.density).mass.ToDouble();
      dynamic_.push_back({b.id, mass});
    }
    return true;
  }

  void Step() override { world_.Step(); }

  void DynamicStates(std::vector<DynamicState>* out) const override {
    out->clear();
    for (const Dynamic& d : dynamic_) {
      const std::optional<BodyView> view = world_.FindBody(d.id);
      if (!view) continue;
      out->push_back({d.mass, view->transform.p.x.ToDouble(), view->transform.p.y.ToDouble(),
                      view->linear_velocity.x.ToDouble(), view->linear_velocity.y.ToDouble()});
    }
  }

 private:
  struct Dynamic {
    uint64_t id;
    double mass;
  };
  World world_;
  std::vector<Dynamic> dynamic_;
};

}  // namespace

std::unique_ptr<Stepper> MakeArbiterStepper() { return std::make_unique<ArbiterStepper>(); }

}  // namespace arbiter::bench
