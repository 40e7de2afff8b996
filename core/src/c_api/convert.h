// File: convert.h
//
// C structs (arbiter/c/arbiter.h) to core types and back. Raw values pass
// through unchanged (both sides are Q32.32 int64), so a conversion never
// rounds; the functions that can meet a malformed struct (an unknown enum
// value, a NULL array) return a Status naming `field`.
#pragma once

#include <string>
#include <vector>

#include "arbiter/c/arbiter.h"
#include "arbiter/core/world.h"

namespace arbiter::c_api {

inline Fixed F(int64_t raw) { return Fixed::FromRaw(raw); }
inline Vec2 FromC(const arb_vec2& v) { return {F(v.x), F(v.y)}; }
inline Rot FromC(const arb_rot& q) { return {F(q.c), F(q.s)}; }
inline Transform FromC(const arb_transform& xf) { return {FromC(xf.p), FromC(xf.q)}; }
inline Aabb FromC(const arb_aabb& b) { return {FromC(b.lower), FromC(b.upper)}; }
inline Filter FromC(const arb_filter& f) { return {f.category_bits, f.mask_bits, f.group_index}; }
inline RayCastInput FromC(const arb_ray& r) { return {FromC(r.origin), FromC(r.translation), F(r.max_fraction)}; }
Polygon FromC(const arb_polygon& p);

inline arb_vec2 ToC(Vec2 v) { return {v.x.raw(), v.y.raw()}; }
inline arb_rot ToC(Rot q) { return {q.c.raw(), q.s.raw()}; }
inline arb_transform ToC(const Transform& xf) { return {ToC(xf.p), ToC(xf.q)}; }
inline arb_filter ToC(const Filter& f) { return {f.category_bits, f.mask_bits, f.group_index, 0}; }
inline arb_shape_ref ToC(const ShapeRef& r) { return {r.body_id, r.shape_index, 0}; }
arb_polygon ToC(const Polygon& p);
arb_shape ToC(const Shape& s);
arb_shape_def ToC(const ShapeDef& d);
arb_cast_hit ToC(const CastHit& h);
arb_overlap_contact ToC(const OverlapContact& c);
arb_distance_hit ToC(const DistanceHit& h);
arb_contact_event ToC(const ContactEvent& e);
arb_sensor_event ToC(const SensorEvent& e);

/// The shape named by s.type: INVALID_ARGUMENT "<field>: unknown shape
/// type" for another value. The shape itself is not validated here.
Status FromC(const arb_shape& s, const std::string& field, Shape* out);
Status FromC(const arb_shape_def& d, const std::string& field, ShapeDef* out);
Status FromC(const arb_body_def& d, const std::string& field, BodyDef* out);

/// A query filter; null means the default. `exclude` keeps the excluded
/// ids alive for the filter's span.
Status FromC(const arb_query_filter* f, QueryFilter* out);

}  // namespace arbiter::c_api
