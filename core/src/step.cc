// One tick of dynamics: the stages of step_internal.h, in order.
#include <algorithm>
#include <chrono>
#include <string>

#include "step_internal.h"
#include "step_sleep.h"

namespace arbiter {

using internal::BodyRecord;
using internal::StepState;

namespace {

// Adds the time since the last Lap to a stage's counter; a no-op without
// counters, so the clock is read only when someone asked.
class StageClock {
 public:
  explicit StageClock(StepTimes* times) : times_(times) {
    if (times_ != nullptr) last_ = std::chrono::steady_clock::now();
  }
  void Lap(uint64_t StepTimes::*stage) {
    if (times_ == nullptr) return;
    const auto now = std::chrono::steady_clock::now();
    times_->*stage += static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(now - last_).count());
    last_ = now;
  }

 private:
  StepTimes* times_;
  std::chrono::steady_clock::time_point last_;
};

// Stage 1: awake movable bodies in id order (solver index 0 is the
// immovable body), and each one's speculative reach: how far it can travel
// this tick (L1 bound of its velocity plus what gravity adds). Asleep
// bodies are left out of the whole tick (step_sleep.h).
void SetUpBodies(const World::Impl& w, StepState* st) {
  for (uint32_t slot = 0; slot < w.bodies.size(); ++slot) {
    const BodyRecord& body = w.bodies[slot];
    if (body.id != 0 && body.type != BodyType::kStatic && w.MotionOf(body).awake) st->movers.push_back({body.id, slot});
  }
  // Slots are usually in id order already (bodies added in id order): the
  // check is n steps where the sort was n log n. Ids are unique, so either
  // way the list is the same.
  if (!std::is_sorted(st->movers.begin(), st->movers.end())) std::sort(st->movers.begin(), st->movers.end());
  st->solver_index.assign(w.bodies.size(), 0);
  st->solver.assign(st->movers.size() + 1, internal::SolverBody{});
  st->reach.assign(w.bodies.size(), kFixedZero);
  st->world_center.resize(w.bodies.size());
  for (uint32_t slot = 0; slot < w.bodies.size(); ++slot) {
    const BodyRecord& body = w.bodies[slot];
    if (body.id == 0 || !w.MotionOf(body).awake) continue;
    // A body without a motion record has its centre at the origin, where
    // TransformPoint gives p exactly: no rotation to compute.
    st->world_center[slot] = body.motion == internal::BodyRecord::kNone
                                 ? body.transform.p
                                 : internal::TransformLocal(body.transform, w.motions[body.motion].local_center);
  }
  const Fixed gravity_l1 = Abs(w.def.gravity.x) + Abs(w.def.gravity.y);
  for (size_t i = 0; i < st->movers.size(); ++i) {
    const uint32_t slot = st->movers[i].second;
    const BodyRecord& body = w.bodies[slot];
    const internal::BodyMotion& motion = w.motions[body.motion];
    st->solver_index[slot] = static_cast<int32_t>(i + 1);
    internal::SolverBody& sb = st->solver[i + 1];
    sb.v = motion.linear_velocity;
    sb.w = motion.angular_velocity;
    sb.inv_mass = motion.inv_mass;
    sb.inv_inertia = motion.inv_inertia;
    st->reach[slot] = internal::BodyReach(body.type, motion, gravity_l1, st->dt);
    if (body.type == BodyType::kKinematic) st->any_kinematic = true;
  }
}

// The contacts kept between asleep bodies merged into the tick's new ones
// (both in (a, b) order; no pair is in both, as no pair joins an asleep
// body).
void MergeKeptContacts(StepState* st) {
  if (st->kept_contacts.empty()) return;
  st->merged_contacts.clear();
  std::merge(st->next_contacts.begin(), st->next_contacts.end(), st->kept_contacts.begin(), st->kept_contacts.end(),
             std::back_inserter(st->merged_contacts), internal::PairLess<internal::ContactState, internal::ContactState>);
  std::swap(st->next_contacts, st->merged_contacts);
}

bool EventLess(const ContactEvent& x, const ContactEvent& y) { return internal::PairLess(x, y); }

// A live shape's user_tag; 0 when its body was removed (an end event's).
uint64_t UserTag(const World::Impl& w, const ShapeRef& ref) {
  const BodyRecord* body = w.Find(ref.body_id);
  if (body == nullptr || ref.shape_index >= body->shape_count) return 0;
  return w.shapes[body->first_shape + ref.shape_index].user_tag;
}

void TagContacts(const World::Impl& w, std::vector<ContactEvent>* list) {
  for (ContactEvent& e : *list) {
    e.user_tag_a = UserTag(w, e.a);
    e.user_tag_b = UserTag(w, e.b);
  }
}

void TagSensors(const World::Impl& w, std::vector<SensorEvent>* list) {
  for (SensorEvent& e : *list) {
    e.sensor_user_tag = UserTag(w, e.sensor);
    e.visitor_user_tag = UserTag(w, e.visitor);
  }
}

// `extra` (sorted) merged into the sorted `list`.
void MergeSensors(std::vector<SensorEvent>* list, const std::vector<SensorEvent>& extra) {
  if (extra.empty()) return;
  std::vector<SensorEvent> merged;
  std::merge(list->begin(), list->end(), extra.begin(), extra.end(), std::back_inserter(merged), internal::SensorLess);
  *list = std::move(merged);
}

void ReportEvents(const World::Impl& w, StepState* st, const std::vector<SensorEvent>& sensors, bool any_sensor,
                  TickEvents* events) {
  *events = TickEvents();
  std::set_difference(sensors.begin(), sensors.end(), w.sensor_overlaps.begin(), w.sensor_overlaps.end(),
                      std::back_inserter(events->sensor_enter), internal::SensorLess);
  std::set_difference(w.sensor_overlaps.begin(), w.sensor_overlaps.end(), sensors.begin(), sensors.end(),
                      std::back_inserter(events->sensor_exit), internal::SensorLess);
  // A sensor crossed within the tick: entered and left in it (none without
  // sensors, so the swept bodies' casts are skipped then).
  const std::vector<SensorEvent> crossed =
      any_sensor ? internal::FindSensorCrossings(w, *st, w.sensor_overlaps, sensors) : std::vector<SensorEvent>{};
  MergeSensors(&events->sensor_enter, crossed);
  MergeSensors(&events->sensor_exit, crossed);
  std::sort(st->begin_events.begin(), st->begin_events.end(), EventLess);
  std::sort(st->end_events.begin(), st->end_events.end(), EventLess);
  events->contact_begin = std::move(st->begin_events);
  events->contact_end = std::move(st->end_events);
  TagContacts(w, &events->contact_begin);
  TagContacts(w, &events->contact_end);
  TagSensors(w, &events->sensor_enter);
  TagSensors(w, &events->sensor_exit);
}

}  // namespace

namespace internal {

StepScratch::StepScratch() : state_(std::make_unique<StepState>()) {}
StepScratch::~StepScratch() = default;
StepScratch::StepScratch(const StepScratch&) : StepScratch() {}

std::vector<ChunkOutput>& StepState::FreshChunks(uint32_t count) {
  if (chunks.size() < count) chunks.resize(count);
  for (uint32_t c = 0; c < count; ++c) {
    ChunkOutput& out = chunks[c];
    out.pairs.clear();
    out.sweep.clear();
    out.begin_events.clear();
    out.end_events.clear();
    out.kept.clear();
    out.touching = 0;
  }
  return chunks;
}

StepState& StepScratch::Fresh() {
  StepState& st = *state_;
  st.movers.clear();
  st.solver_index.clear();
  st.solver.clear();
  st.integration.clear();
  st.reach.clear();
  st.world_center.clear();
  st.any_kinematic = false;
  st.max_pairs = UINT64_MAX;
  st.over_budget = false;
  st.pairs.clear();
  st.sweep.clear();
  // next_contacts keeps its elements: stage 3 sizes it and writes every
  // field (step_contacts.cc), so they need no zeroing first.
  st.kept_contacts.clear();
  st.woken.clear();
  st.begin_events.clear();
  st.end_events.clear();
  st.swept.clear();
  return st;
}

}  // namespace internal

void World::Step(TickEvents* events, StepTimes* times, StepExecutor* executor) {
  // Without a budget the tick cannot be refused.
  (void)StepWithin(UINT64_MAX, events, times, executor);
}

Status World::StepWithin(uint64_t max_pairs, TickEvents* events, StepTimes* times, StepExecutor* executor) {
  Impl& w = *impl_;
  StageClock clock(times);
  StepState& st = w.step_scratch.Fresh();
  st.tasks = internal::StepTasks(executor);
  st.max_pairs = max_pairs;
  st.sub_steps = w.def.sub_steps;
  st.h = Fixed::FromRatio(1, int64_t{w.def.tick_hz} * st.sub_steps);
  st.inv_h = Fixed::FromInt(int64_t{w.def.tick_hz} * st.sub_steps);
  st.dt = Fixed::FromRatio(1, w.def.tick_hz);
  internal::WakeTouched(w, st.dt, &st.woken);
  SetUpBodies(w, &st);
  // Everything movable asleep (with sleeping on): no pair, no contact to
  // solve, every kept contact stays as it is; only sensors and the tick.
  const bool all_asleep = w.def.allow_sleep && st.movers.empty();
  // Enough movers for the finalize stage to be cut into tasks (and, as a
  // rule, the contacts): the executor is told now, so that a sleeping
  // worker wakes during pair finding rather than after the first batch is
  // posted. A small world leaves the workers asleep.
  if (st.tasks.Chunks(st.movers.size(), internal::kFinalizeChunkMovers) > 1) st.tasks.Prepare();
  clock.Lap(&StepTimes::setup_ns);
  if (!all_asleep) internal::FindPairs(w, &st);
  clock.Lap(&StepTimes::pairs_ns);
  // Nothing has changed yet but the wakes, undone here (they keep the
  // timers): setting up and finding pairs read the world.
  if (st.over_budget) {
    for (const uint32_t slot : st.woken) w.MoverMotion(w.bodies[slot]).awake = false;
    return Status(StatusCode::kResourceExhausted, "the tick from " + std::to_string(w.tick) +
                                                      " would find more than " + std::to_string(max_pairs) +
                                                      " candidate contact pairs (shapes piled on one another)");
  }
  if (!all_asleep) {
    internal::PrepareContacts(w, &st);
    clock.Lap(&StepTimes::contacts_ns);
    internal::SolveContacts(w, &st);
    clock.Lap(&StepTimes::solve_ns);
    internal::FinalizeBodies(w, &st);
    internal::UpdateSleep(w, &st);
    MergeKeptContacts(&st);
    clock.Lap(&StepTimes::finalize_ns);
  }
  bool any_sensor = false;
  std::vector<SensorEvent> sensors = internal::FindSensorOverlaps(w, &any_sensor);
  if (events != nullptr) ReportEvents(w, &st, sensors, any_sensor, events);
  w.sensor_overlaps = std::move(sensors);
  if (!all_asleep) std::swap(w.contacts, st.next_contacts);  // the old list's buffer is reused next tick
  ++w.tick;
  clock.Lap(&StepTimes::sensors_ns);
  return Status();
}

}  // namespace arbiter
