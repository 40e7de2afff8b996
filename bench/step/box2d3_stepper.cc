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
// (Box2D v3's soft step is the one Arbiter's solver follows). With one
// thread b2World_Step runs on the calling thread alone; with more, on a
// task system of the kind Box2D expects (TaskSystem, below).
#include <box2d/box2d.h>

#include <atomic>
#include <cmath>
#include <cstdint>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
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

// Box2D v3's task interface (b2WorldDef::enqueueTask / finishTask) on
// `workers` - 1 threads of its own plus the stepping thread, which is
// worker 0 and runs queued parts while it waits in finishTask, as enkiTS
// (Box2D's samples) does. Each enqueued task is cut into at most `workers`
// parts of at least minRange items. The solver enqueues one task per
// worker that spin-wait for each other, so the threads must run them at
// once: with the stepping thread and workers - 1 threads there are exactly
// enough. Idle threads poll the queue for a while before they sleep, so a
// step's many short tasks do not each pay a wake-up.
class TaskSystem {
 public:
  explicit TaskSystem(int workers) : workers_(workers) {
    for (int i = 1; i < workers; ++i) threads_.emplace_back([this, i] { Work(static_cast<uint32_t>(i)); });
  }
  ~TaskSystem() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    for (std::thread& t : threads_) t.join();
  }

  /// Wakes sleeping threads to poll for the step about to begin, as
  /// Arbiter's step does its pool's (StepExecutor::Prepare): in step_bench
  /// the other engines step between two of this world's ticks, and a
  /// thread woken by the first task would miss most of it.
  void Prepare() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      ++wakes_;
    }
    wake_.notify_all();
  }

  static void* Enqueue(b2TaskCallback* task, int item_count, int min_range, void* task_context, void* user) {
    return static_cast<TaskSystem*>(user)->Add(task, item_count, min_range, task_context);
  }
  static void Finish(void* handle, void* user) { static_cast<TaskSystem*>(user)->Wait(static_cast<Set*>(handle)); }

 private:
  struct Set {
    b2TaskCallback* task;
    void* context;
    std::atomic<int> remaining;
  };
  struct Part {
    Set* set;
    int start, end;
  };

  Set* Add(b2TaskCallback* task, int item_count, int min_range, void* context) {
    const int range = min_range > 0 ? min_range : 1;
    int parts = item_count / range;
    parts = parts < 1 ? 1 : parts > workers_ ? workers_ : parts;
    auto* set = new Set{task, context, {parts}};
    {
      std::lock_guard<std::mutex> lock(mutex_);
      for (int p = 0; p < parts; ++p) {
        queue_.push_back({set, static_cast<int>(int64_t{item_count} * p / parts),
                          static_cast<int>(int64_t{item_count} * (p + 1) / parts)});
      }
      queued_.fetch_add(parts, std::memory_order_release);
    }
    wake_.notify_all();
    return set;
  }

  bool TryRun(uint32_t worker) {
    Part part;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (queue_.empty()) return false;
      part = queue_.front();
      queue_.pop_front();
      queued_.fetch_sub(1, std::memory_order_relaxed);
    }
    part.set->task(part.start, part.end, worker, part.set->context);
    part.set->remaining.fetch_sub(1, std::memory_order_acq_rel);
    return true;
  }

  void Wait(Set* set) {
    while (set->remaining.load(std::memory_order_acquire) > 0) {
      if (!TryRun(0)) std::this_thread::yield();
    }
    delete set;
  }

  void Work(uint32_t worker) {
    for (;;) {
      if (TryRun(worker)) continue;
      // Poll as Arbiter's StepThreadPool does (2,000 pauses, then 1,000
      // yields, about a millisecond), so that neither engine's workers
      // are kept awake longer, then sleep until a task or the end comes.
      bool found = false;
      for (int i = 0; i < 3000 && !found; ++i) {
        found = queued_.load(std::memory_order_acquire) > 0;
        if (found) break;
        if (i < 2000) {
#if defined(__x86_64__) || defined(__i386__)
          __builtin_ia32_pause();
#endif
        } else {
          std::this_thread::yield();
        }
      }
      if (found) continue;
      std::unique_lock<std::mutex> lock(mutex_);
      const uint64_t seen = wakes_;
      wake_.wait(lock, [this, seen] { return stop_ || !queue_.empty() || wakes_ != seen; });
      if (stop_ && queue_.empty()) return;
    }
  }

  const int workers_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Part> queue_;
  std::atomic<int> queued_{0};
  uint64_t wakes_ = 0;  // Prepare calls; guarded by mutex_
  bool stop_ = false;
  std::vector<std::thread> threads_;
};

class Box2d3Stepper final : public Stepper {
 public:
  explicit Box2d3Stepper(const Box2d3StepOptions& options) : options_(options) {}
  ~Box2d3Stepper() override {
    if (b2World_IsValid(world_)) b2DestroyWorld(world_);
  }

  std::string Name() const override {
    if (options_.allow_sleep) return "Box2D3+sleep";
    return options_.threads > 1 ? "Box2D v3 " + std::to_string(options_.threads) + "T" : "Box2D v3";
  }
  std::string Setup() const override {
    const b2Version v = b2GetVersion();
    return "Box2D " + std::to_string(v.major) + "." + std::to_string(v.minor) + "." + std::to_string(v.revision) +
           " (C, float, source build): b2World_Step(1/" + std::to_string(tick_hz_) + ", " +
           std::to_string(sub_steps_) + " sub-steps), contact hertz " + std::to_string(contact_hertz_) +
           ", sleeping " + (options_.allow_sleep ? "on" : "off") + ", continuous on (default), " +
           (options_.threads > 1 ? std::to_string(options_.threads) + " workers (the stepping thread and a pool)"
                                 : std::string("one thread"));
  }

  bool Build(const scene::Scene& scene, std::string* error) override {
    tick_hz_ = scene.world.tick_hz;
    sub_steps_ = options_.sub_steps;
    contact_hertz_ = options_.contact_hertz;
    b2WorldDef wd = b2DefaultWorldDef();
    wd.gravity = ToB2(scene.world.gravity);
    wd.enableSleep = options_.allow_sleep;
    wd.contactHertz = static_cast<float>(contact_hertz_);
    if (options_.threads > 1) {
      tasks_ = std::make_unique<TaskSystem>(options_.threads);
      wd.workerCount = options_.threads;
      wd.enqueueTask = &TaskSystem::Enqueue;
      wd.finishTask = &TaskSystem::Finish;
      wd.userTaskContext = tasks_.get();
    }
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

  void Step() override {
    if (tasks_) tasks_->Prepare();
    b2World_Step(world_, 1.0f / static_cast<float>(tick_hz_), sub_steps_);
  }

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
  std::unique_ptr<TaskSystem> tasks_;  // outlives world_: declared before it
  b2WorldId world_ = b2_nullWorldId;
  std::vector<b2BodyId> dynamic_;  // scene order
};

}  // namespace

std::unique_ptr<Stepper> MakeBox2d3Stepper(const Box2d3StepOptions& options) {
  return std::make_unique<Box2d3Stepper>(options);
}

}  // namespace arbiter::bench
