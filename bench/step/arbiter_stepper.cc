// Arbiter behind the step_bench interface: World::AddBodies(scene.bodies),
// then World::Step(&events) per tick, with events on (issue 23's goal is
// measured with continuous collision, bullets and events on: the contact
// begin/end and sensor lists are built, sorted and tagged every tick, as a
// server stepping with events pays), with the stage clock on
// (seven clock reads per tick, next to milliseconds of work). With threads
// > 1 the step runs with a StepThreadPool (persistent workers, made once).
#include <cstdio>
#include <memory>
#include <optional>
#include <utility>
#include <string>
#include <vector>

#include "arbiter/core/step_thread_pool.h"
#include "arbiter/core/world.h"
#include "step/stepper.h"

namespace arbiter::bench {
namespace {

class ArbiterStepper final : public Stepper {
 public:
  ArbiterStepper(uint32_t threads, bool solver_defaults) : solver_defaults_(solver_defaults) {
    if (threads > 1) pool_ = std::make_unique<StepThreadPool>(threads);
  }

  std::string Name() const override {
    if (solver_defaults_) return "Arbiter " + std::to_string(kDefaultSubSteps) + "/" + std::to_string(kDefaultContactHertz);
    return pool_ == nullptr ? "Arbiter" : "Arbiter " + std::to_string(pool_->Concurrency()) + "T";
  }
  std::string Setup() const override {
    const std::string solver = std::to_string(world_.def().sub_steps) + " sub-steps, contact hertz " +
                               std::to_string(world_.def().contact_hertz);
    if (solver_defaults_) return "as Arbiter, with the default solver settings (" + solver + ") instead of the scene's";
    if (pool_ != nullptr) {
      return "as Arbiter, World::Step(&events, times, pool): a StepThreadPool of " +
             std::to_string(pool_->Concurrency()) + " threads";
    }
    return "Arbiter (Q32.32): World::AddBodies(scene.bodies), World::Step(&events) with events on; no sleeping; " +
           solver;
  }
  uint64_t StateHash() const override { return world_.StateHash(); }

  bool Build(const scene::Scene& scene, std::string* error) override {
    WorldDef def = scene.world;
    if (solver_defaults_) {
      def.sub_steps = kDefaultSubSteps;
      def.contact_hertz = kDefaultContactHertz;
    }
    world_ = World(def);
    const Status status = world_.AddBodies(scene.bodies);
    if (!status.ok()) {
      *error = "Arbiter: AddBodies: " + status.message();
      return false;
    }
    solve_name_ = "solve (" + std::to_string(def.sub_steps) + " sub-steps, restitution)";
    dynamic_.clear();
    for (const BodyDef& b : scene.bodies) {
      if (b.type != BodyType::kDynamic) continue;
      double mass = 0;
      for (const ShapeDef& sd : b.shapes) mass += ComputeMass(sd.shape, sd.density).mass.ToDouble();
      dynamic_.push_back({b.id, mass});
    }
    return true;
  }

  void Step() override { world_.Step(&events_, &times_, pool_.get()); }

  std::string StageBreakdown(int ticks) const override {
    const std::pair<const char*, uint64_t> stages[] = {
        {"setup (movers, reach)", times_.setup_ns},      {"pairs (sort and sweep, static tree)", times_.pairs_ns},
        {"contacts (manifolds, warm start)", times_.contacts_ns}, {solve_name_.c_str(), times_.solve_ns},
        {"finalize (poses, tree, continuous)", times_.finalize_ns}, {"sensors and events", times_.sensors_ns}};
    std::string out;
    char line[160];
    for (const auto& [name, ns] : stages) {
      std::snprintf(line, sizeof line, "  %-38s %8.3f ms/tick\n", name, ticks > 0 ? ns / 1e6 / ticks : 0.0);
      out += line;
    }
    return out;
  }

  void DynamicStates(std::vector<DynamicState>* out) const override {
    out->clear();
    for (const Dynamic& d : dynamic_) {
      const std::optional<BodyView> view = world_.FindBody(d.id);
      if (!view) continue;
      out->push_back({d.mass, view->transform.p.x.ToDouble(), view->transform.p.y.ToDouble(),
                      view->linear_velocity.x.ToDouble(), view->linear_velocity.y.ToDouble(), view->awake});
    }
  }

 private:
  struct Dynamic {
    uint64_t id;
    double mass;
  };
  bool solver_defaults_;
  std::string solve_name_;
  std::unique_ptr<StepThreadPool> pool_;  // null: one thread
  World world_;
  StepTimes times_;
  TickEvents events_;  // the last tick's events
  std::vector<Dynamic> dynamic_;
};

}  // namespace

std::unique_ptr<Stepper> MakeArbiterStepper(uint32_t threads, bool solver_defaults) {
  return std::make_unique<ArbiterStepper>(threads, solver_defaults);
}

}  // namespace arbiter::bench
