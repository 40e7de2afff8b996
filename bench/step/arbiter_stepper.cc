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
  explicit ArbiterStepper(uint32_t threads) {
    if (threads > 1) pool_ = std::make_unique<StepThreadPool>(threads);
  }

  std::string Name() const override {
    return pool_ == nullptr ? "Arbiter" : "Arbiter " + std::to_string(pool_->Concurrency()) + "T";
  }
  std::string Setup() const override {
    if (pool_ != nullptr) {
      return "as Arbiter, World::Step(&events, times, pool): a StepThreadPool of " +
             std::to_string(pool_->Concurrency()) + " threads";
    }
    return "Arbiter (Q32.32): World::AddBodies(scene.bodies), World::Step(&events) with events on; no sleeping";
  }
  uint64_t StateHash() const override { return world_.StateHash(); }

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

  void Step() override { world_.Step(&events_, &times_, pool_.get()); }

  std::string StageBreakdown(int ticks) const override {
    const std::pair<const char*, uint64_t> stages[] = {
        {"setup (movers, reach)", times_.setup_ns},      {"pairs (sort and sweep, static tree)", times_.pairs_ns},
        {"contacts (manifolds, warm start)", times_.contacts_ns}, {"solve (4 sub-steps, restitution)", times_.solve_ns},
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
                      view->linear_velocity.x.ToDouble(), view->linear_velocity.y.ToDouble()});
    }
  }

 private:
  struct Dynamic {
    uint64_t id;
    double mass;
  };
  std::unique_ptr<StepThreadPool> pool_;  // null: one thread
  World world_;
  StepTimes times_;
  TickEvents events_;  // the last tick's events
  std::vector<Dynamic> dynamic_;
};

}  // namespace

std::unique_ptr<Stepper> MakeArbiterStepper(uint32_t threads) { return std::make_unique<ArbiterStepper>(threads); }

}  // namespace arbiter::bench
