// Ray, overlap and sweep queries, for the C interface. Inputs are checked
// as the server checks them (range, unit rotation, valid shape) before the
// core sees them: the core's queries assume in-range input.
#include <string>

#include "c_world.h"
#include "convert.h"
#include "validate.h"

using namespace arbiter;
using namespace arbiter::c_api;

namespace {

Status CheckShape(const arb_shape* shape, const arb_transform* transform, Shape* out_shape, Transform* out_xf) {
  if (shape == nullptr) return NullError("shape");
  if (transform == nullptr) return NullError("transform");
  if (Status s = FromC(*shape, "shape", out_shape); !s.ok()) return s;
  if (Status s = ShapeStatus(ValidateShape(*out_shape), "shape"); !s.ok()) return s;
  *out_xf = FromC(*transform);
  return internal::ValidateTransform(*out_xf, "transform");
}

Status CheckTranslation(const arb_vec2* translation, Vec2* out) {
  if (translation == nullptr) return NullError("translation");
  // ValidateRay owns the translation limit; a ray from the origin checks
  // exactly that.
  const RayCastInput probe{Vec2{}, FromC(*translation), kFixedOne};
  if (!ValidateRay(probe, "").ok()) return OutOfRangeError("translation: beyond +-2^30 units");
  *out = probe.translation;
  return OkStatus();
}

struct Sweep {
  Shape shape;
  Transform xf;
  Vec2 translation;
};

Status CheckSweep(const arb_shape* shape, const arb_transform* transform, const arb_vec2* translation, Sweep* out) {
  if (Status s = CheckShape(shape, transform, &out->shape, &out->xf); !s.ok()) return s;
  return CheckTranslation(translation, &out->translation);
}

// ValidateRay (the server's rule) admits max_fraction in [0, 1]. The core
// needs only the reach in range, so a longer fraction is accepted too while
// max_fraction x translation stays within +-2^30 units per axis: the swept
// segment is then no longer than the longest ray ValidateRay admits. (The
// determinism scripts cast such rays; arbiter_digest_c passes them here.)
Status CheckRay(const arb_ray* ray, const char* field, RayCastInput* out) {
  if (ray == nullptr) return NullError(field);
  const RayCastInput r = FromC(*ray);
  if (r.max_fraction <= kFixedOne) {
    if (Status s = ValidateRay(r, field); !s.ok()) return s;
  } else {
    if (Status s = ValidateRay({r.origin, r.translation, kFixedOne}, field); !s.ok()) return s;
    const Int128 limit = MulWide(kMaxQueryTranslation, kFixedOne);
    if (MulWide(r.max_fraction, r.translation.x).Abs() > limit ||
        MulWide(r.max_fraction, r.translation.y).Abs() > limit) {
      return OutOfRangeError(std::string(field) + ".max_fraction: max_fraction x translation beyond +-2^30 units");
    }
  }
  *out = r;
  return OkStatus();
}

// A query on a checked world and filter: `run` does the rest.
template <class Run>
arb_status Query(const arb_world* world, const arb_query_filter* filter, arb_error* error, Run&& run) {
  return Guarded(error, [&]() -> Status {
    if (world == nullptr) return NullError("world");
    QueryFilter f;
    if (Status s = FromC(filter, &f); !s.ok()) return s;
    return run(world->world, f);
  });
}

template <class T, class Out>
Status WriteList(const std::vector<T>& items, const char* field, Out* out, size_t capacity, size_t* count) {
  if (count == nullptr) return NullError("count");
  if (out == nullptr && capacity > 0) return NullError(field);
  *count = items.size();
  if (items.size() > capacity) return BufferTooSmall(field, items.size(), capacity);
  for (size_t i = 0; i < items.size(); ++i) out[i] = ToC(items[i]);
  return OkStatus();
}

Status WriteHit(const std::optional<CastHit>& h, arb_cast_hit* out, int32_t* hit) {
  if (out == nullptr) return NullError("out");
  if (hit == nullptr) return NullError("hit");
  *hit = h ? 1 : 0;
  *out = h ? ToC(*h) : arb_cast_hit{};
  return OkStatus();
}

Status WriteFlag(bool value, int32_t* hit) {
  if (hit == nullptr) return NullError("hit");
  *hit = value ? 1 : 0;
  return OkStatus();
}

}  // namespace

extern "C" {

arb_status arb_world_cast_ray_closest(const arb_world* world, const arb_ray* ray, const arb_query_filter* filter,
                                      arb_cast_hit* out, int32_t* hit, arb_error* error) {
  return Query(world, filter, error, [&](const World& w, const QueryFilter& f) -> Status {
    RayCastInput r;
    if (Status s = CheckRay(ray, "ray", &r); !s.ok()) return s;
    return WriteHit(w.CastRayClosest(r, f), out, hit);
  });
}

arb_status arb_world_cast_ray_all(const arb_world* world, const arb_ray* ray, const arb_query_filter* filter,
                                  arb_cast_hit* hits, size_t capacity, size_t* count, arb_error* error) {
  return Query(world, filter, error, [&](const World& w, const QueryFilter& f) -> Status {
    RayCastInput r;
    if (Status s = CheckRay(ray, "ray", &r); !s.ok()) return s;
    return WriteList(w.CastRayAll(r, f), "hits", hits, capacity, count);
  });
}

arb_status arb_world_cast_ray_any(const arb_world* world, const arb_ray* ray, const arb_query_filter* filter,
                                  int32_t* hit, arb_error* error) {
  return Query(world, filter, error, [&](const World& w, const QueryFilter& f) -> Status {
    RayCastInput r;
    if (Status s = CheckRay(ray, "ray", &r); !s.ok()) return s;
    return WriteFlag(w.CastRayAny(r, f), hit);
  });
}

arb_status arb_world_cast_rays_closest(const arb_world* world, const arb_ray* rays, size_t count,
                                       const arb_query_filter* filter, arb_cast_hit* out, int32_t* hit,
                                       arb_error* error) {
  return Query(world, filter, error, [&](const World& w, const QueryFilter& f) -> Status {
    if (count > 0 && (rays == nullptr || out == nullptr || hit == nullptr)) return NullError("rays, out or hit");
    std::vector<RayCastInput> inputs(count);
    for (size_t i = 0; i < count; ++i) {
      const std::string field = "rays[" + std::to_string(i) + "]";
      if (Status s = CheckRay(&rays[i], field.c_str(), &inputs[i]); !s.ok()) return s;
    }
    // Checked as a whole first (all or nothing), then answered one by one:
    // the core has no batch form, a batch is a loop with one collector.
    ClosestHitCollector closest;
    for (size_t i = 0; i < count; ++i) {
      w.CastRay(inputs[i], f, closest);
      (void)WriteHit(closest.hit(), &out[i], &hit[i]);
    }
    return OkStatus();
  });
}

arb_status arb_world_overlap_point(const arb_world* world, const arb_vec2* point, const arb_query_filter* filter,
                                   arb_shape_ref* refs, size_t capacity, size_t* count, arb_error* error) {
  return Query(world, filter, error, [&](const World& w, const QueryFilter& f) -> Status {
    if (point == nullptr) return NullError("point");
    if (Status s = ValidatePoint(FromC(*point), "point"); !s.ok()) return s;
    return WriteList(w.OverlapPoint(FromC(*point), f), "refs", refs, capacity, count);
  });
}

arb_status arb_world_overlap_aabb(const arb_world* world, const arb_aabb* box, const arb_query_filter* filter,
                                  arb_shape_ref* refs, size_t capacity, size_t* count, arb_error* error) {
  return Query(world, filter, error, [&](const World& w, const QueryFilter& f) -> Status {
    if (box == nullptr) return NullError("box");
    if (Status s = ValidateAabb(FromC(*box), "box"); !s.ok()) return s;
    return WriteList(w.OverlapAabb(FromC(*box), f), "refs", refs, capacity, count);
  });
}

arb_status arb_world_overlap_shape(const arb_world* world, const arb_shape* shape, const arb_transform* transform,
                                   const arb_query_filter* filter, arb_shape_ref* refs, size_t capacity,
                                   size_t* count, arb_error* error) {
  return Query(world, filter, error, [&](const World& w, const QueryFilter& f) -> Status {
    Shape s;
    Transform xf;
    if (Status st = CheckShape(shape, transform, &s, &xf); !st.ok()) return st;
    return WriteList(w.OverlapShape(s, xf, f), "refs", refs, capacity, count);
  });
}

arb_status arb_world_overlap_shape_contacts(const arb_world* world, const arb_shape* shape,
                                            const arb_transform* transform, const arb_query_filter* filter,
                                            arb_overlap_contact* contacts, size_t capacity, size_t* count,
                                            arb_error* error) {
  return Query(world, filter, error, [&](const World& w, const QueryFilter& f) -> Status {
    Shape s;
    Transform xf;
    if (Status st = CheckShape(shape, transform, &s, &xf); !st.ok()) return st;
    return WriteList(w.OverlapShapeContacts(s, xf, f), "contacts", contacts, capacity, count);
  });
}

arb_status arb_world_distance(const arb_world* world, const arb_shape* shape, const arb_transform* transform,
                              int64_t max_distance, uint32_t max_results, const arb_query_filter* filter,
                              arb_distance_hit* hits, size_t capacity, size_t* count, arb_error* error) {
  return Query(world, filter, error, [&](const World& w, const QueryFilter& f) -> Status {
    Shape s;
    Transform xf;
    if (Status st = CheckShape(shape, transform, &s, &xf); !st.ok()) return st;
    const Fixed reach = Fixed::FromRaw(max_distance);
    if (Status st = ValidateMaxDistance(reach, "max_distance"); !st.ok()) return st;
    if (max_results < 1 || max_results > kMaxDistanceResults) {
      return OutOfRangeError("max_results: must be in 1.." + std::to_string(kMaxDistanceResults));
    }
    return WriteList(w.Distance(s, xf, reach, max_results, f), "hits", hits, capacity, count);
  });
}

arb_status arb_world_cast_shape_closest(const arb_world* world, const arb_shape* shape, const arb_transform* transform,
                                        const arb_vec2* translation, const arb_query_filter* filter,
                                        arb_cast_hit* out, int32_t* hit, arb_error* error) {
  return Query(world, filter, error, [&](const World& w, const QueryFilter& f) -> Status {
    Sweep sw;
    if (Status st = CheckSweep(shape, transform, translation, &sw); !st.ok()) return st;
    return WriteHit(w.CastShapeClosest(sw.shape, sw.xf, sw.translation, f), out, hit);
  });
}

arb_status arb_world_cast_shape_all(const arb_world* world, const arb_shape* shape, const arb_transform* transform,
                                    const arb_vec2* translation, const arb_query_filter* filter, arb_cast_hit* hits,
                                    size_t capacity, size_t* count, arb_error* error) {
  return Query(world, filter, error, [&](const World& w, const QueryFilter& f) -> Status {
    Sweep sw;
    if (Status st = CheckSweep(shape, transform, translation, &sw); !st.ok()) return st;
    return WriteList(w.CastShapeAll(sw.shape, sw.xf, sw.translation, f), "hits", hits, capacity, count);
  });
}

arb_status arb_world_cast_shape_any(const arb_world* world, const arb_shape* shape, const arb_transform* transform,
                                    const arb_vec2* translation, const arb_query_filter* filter, int32_t* hit,
                                    arb_error* error) {
  return Query(world, filter, error, [&](const World& w, const QueryFilter& f) -> Status {
    Sweep sw;
    if (Status st = CheckSweep(shape, transform, translation, &sw); !st.ok()) return st;
    return WriteFlag(w.CastShapeAny(sw.shape, sw.xf, sw.translation, f), hit);
  });
}

}  // extern "C"
