// Adding, removing, changing and reading bodies, for the C interface.
#include <string>

#include "c_world.h"
#include "convert.h"

using namespace arbiter;
using namespace arbiter::c_api;

namespace {

// A mutation: checks the handle, runs `change` and, when it succeeded,
// ends the last step's events (their contacts may name removed bodies).
template <class Change>
arb_status Mutate(arb_world* world, arb_error* error, Change&& change) {
  return Guarded(error, [&]() -> Status {
    if (world == nullptr) return NullError("world");
    Status s = change(world->world);
    if (s.ok()) world->ForgetEvents();
    return s;
  });
}

}  // namespace

extern "C" {

arb_status arb_world_add_bodies(arb_world* world, const arb_body_def* bodies, size_t count, arb_error* error) {
  return Mutate(world, error, [&](World& w) -> Status {
    if (bodies == nullptr && count > 0) return NullError("bodies");
    std::vector<BodyDef> defs(count);
    for (size_t i = 0; i < count; ++i) {
      if (Status s = FromC(bodies[i], "bodies[" + std::to_string(i) + "]", &defs[i]); !s.ok()) return s;
    }
    return w.AddBodies(defs);
  });
}

arb_status arb_world_remove_bodies(arb_world* world, const uint64_t* ids, size_t count, arb_error* error) {
  return Mutate(world, error, [&](World& w) -> Status {
    if (ids == nullptr && count > 0) return NullError("ids");
    return w.RemoveBodies(std::span<const uint64_t>(ids, count));
  });
}

arb_status arb_world_set_transform(arb_world* world, uint64_t id, const arb_transform* transform, arb_error* error) {
  return Mutate(world, error, [&](World& w) -> Status {
    if (transform == nullptr) return NullError("transform");
    return w.SetBodyTransform(id, FromC(*transform));
  });
}

arb_status arb_world_set_velocity(arb_world* world, uint64_t id, const arb_vec2* linear, int64_t angular,
                                  arb_error* error) {
  return Mutate(world, error, [&](World& w) -> Status {
    if (linear == nullptr) return NullError("linear");
    return w.SetBodyVelocity(id, FromC(*linear), F(angular));
  });
}

arb_status arb_world_set_shape_filter(arb_world* world, uint64_t id, uint32_t shape_index, const arb_filter* filter,
                                      arb_error* error) {
  return Mutate(world, error, [&](World& w) -> Status {
    if (filter == nullptr) return NullError("filter");
    return w.SetShapeFilter(id, shape_index, FromC(*filter));
  });
}

arb_status arb_world_body_ids(const arb_world* world, uint64_t* ids, size_t capacity, size_t* count,
                              arb_error* error) {
  return Guarded(error, [&]() -> Status {
    if (world == nullptr) return NullError("world");
    if (count == nullptr) return NullError("count");
    if (ids == nullptr && capacity > 0) return NullError("ids");
    const std::vector<uint64_t> all = world->world.BodyIds();
    *count = all.size();
    if (all.size() > capacity) {
      return BufferTooSmall("ids", all.size(), capacity);
    }
    std::copy(all.begin(), all.end(), ids);
    return OkStatus();
  });
}

arb_status arb_world_get_body(const arb_world* world, uint64_t id, arb_body_def* out, arb_shape_def* shapes,
                              size_t capacity, size_t* shape_count, arb_error* error) {
  return Guarded(error, [&]() -> Status {
    if (world == nullptr) return NullError("world");
    if (out == nullptr) return NullError("out");
    if (shape_count == nullptr) return NullError("shape_count");
    if (shapes == nullptr && capacity > 0) return NullError("shapes");
    const std::optional<BodyDef> def = world->world.GetBodyDef(id);
    if (!def) return NotFoundError("body_id: no body " + std::to_string(id));
    *shape_count = def->shapes.size();
    if (def->shapes.size() > capacity) {
      return BufferTooSmall("shapes", def->shapes.size(), capacity);
    }
    for (size_t i = 0; i < def->shapes.size(); ++i) shapes[i] = ToC(def->shapes[i]);
    arb_body_def_init(out);
    out->id = def->id;
    out->type = static_cast<arb_body_type>(def->type);
    out->transform = ToC(def->transform);
    out->linear_velocity = ToC(def->linear_velocity);
    out->angular_velocity = def->angular_velocity.raw();
    out->linear_damping = def->linear_damping.raw();
    out->angular_damping = def->angular_damping.raw();
    out->gravity_scale = def->gravity_scale.raw();
    out->is_bullet = def->is_bullet ? 1 : 0;
    out->shapes = shapes;
    out->shape_count = static_cast<uint32_t>(def->shapes.size());
    return OkStatus();
  });
}

}  // extern "C"
