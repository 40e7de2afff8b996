/* File: arbiter/c/arbiter.h
 *
 * The C interface to Arbiter's core: the same fixed-point world the server
 * runs, for clients that predict locally (C, C#/Unity/Godot through
 * P/Invoke, Rust/Go through their C FFI, the browser through WebAssembly).
 * A world driven through this header computes the same bits as the server:
 * the same state hash after every tick, the same query answers, the same
 * snapshot bytes (tests/determinism runs its digests through it).
 *
 * Numbers. Every geometric value is a raw Q32.32 fixed-point number in an
 * int64_t: value = raw / 2^32 (one unit = 4294967296). Angles are radians,
 * speeds units per second. Build raw values with arb_raw_from_int,
 * arb_raw_from_ratio or, at the edges of a program only, arb_raw_from_double
 * (bit-exact with the server's Fixed::FromDouble; doubles never reach a
 * result). Ranges: body positions, query points and ray origins within
 * +-2^29 units per axis; ray and sweep translations within +-2^30; shape
 * coordinates and radii within +-2^24; rotations (c, s) of unit length
 * (|c^2 + s^2 - 1| <= 2^-16; arb_rot_from_angle makes one).
 *
 * Errors. Every function that can fail returns an arb_status: ARB_OK (0) or
 * a code with the numeric value of the matching gRPC/Abseil code, as the
 * server returns it. When `error` is not NULL it receives the code and a
 * message naming the field and the reason (e.g.
 * "bodies[3].shapes[0].polygon: not convex"), the same text the core gives
 * the server. A call that fails changes nothing: batches are all or nothing,
 * and out-parameters are written only on success (except *count on
 * ARB_BUFFER_TOO_SMALL, which says how many items are needed).
 *
 * Ownership. An arb_world is an opaque handle owned by the caller from
 * arb_world_create / arb_world_restore until arb_world_destroy. Inputs are
 * borrowed for the call only. Results are written to caller-provided
 * buffers (a capacity in, a count out), except snapshot bytes, which the
 * library allocates and arb_bytes_free releases, and a step's events, which
 * the world owns until its next step, mutation or destruction.
 *
 * Threads. A world is not thread-safe: calls that only read it (queries,
 * hashes, inspection, snapshots) may run concurrently with each other, but
 * not with a call that changes it (step, mutation, destroy). Different
 * worlds are independent. No function keeps global state.
 *
 * Exceptions and aborts. No C++ exception crosses this interface; running
 * out of memory is reported as ARB_RESOURCE_EXHAUSTED (on WebAssembly, where
 * exceptions are compiled out, it aborts the module instead).
 *
 * Layout. Structs have no implicit padding between fields on any listed
 * target (int64 fields first, reserved fields where needed), so bindings in
 * other languages can declare them field by field.
 */
#ifndef ARBITER_C_ARBITER_H_
#define ARBITER_C_ARBITER_H_

#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32)
#define ARB_API __declspec(dllexport)
#elif defined(__GNUC__)
#define ARB_API __attribute__((visibility("default")))
#else
#define ARB_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Status codes ------------------------------------------------------- */

typedef int32_t arb_status;
#define ARB_OK 0
#define ARB_INVALID_ARGUMENT 3    /* malformed input: bad shape, non-unit rotation, NULL pointer */
#define ARB_NOT_FOUND 5           /* unknown body id or shape index */
#define ARB_ALREADY_EXISTS 6      /* body id in use or repeated in a batch */
#define ARB_RESOURCE_EXHAUSTED 8  /* past the world's max_bodies, or out of memory */
#define ARB_FAILED_PRECONDITION 9 /* e.g. the velocity of a static body */
#define ARB_OUT_OF_RANGE 11       /* a coordinate, speed, material or rate beyond its limit */
#define ARB_INTERNAL 13           /* a bug in Arbiter */
#define ARB_BUFFER_TOO_SMALL 100  /* *count holds the number of items needed; nothing else written */

/* Capacity of arb_error.message, terminating NUL included. Longer messages
 * are cut (the core's messages are far shorter). */
#define ARB_ERROR_MESSAGE_CAPACITY 256

typedef struct arb_error {
  arb_status code;
  char message[ARB_ERROR_MESSAGE_CAPACITY]; /* NUL-terminated; "" on success */
} arb_error;

/* The code's name, e.g. "INVALID_ARGUMENT"; "UNKNOWN" for other values.
 * A static string. */
ARB_API const char* arb_status_name(arb_status code);

/* ---- Raw Q32.32 values ------------------------------------------------- */

#define ARB_RAW_ONE ((int64_t)4294967296) /* 1.0 */

/* v units exactly; |v| < 2^31. */
ARB_API int64_t arb_raw_from_int(int32_t v);
/* num / den rounded to nearest, ties toward +infinity; den == 0 saturates
 * (0 / 0 is 0). */
ARB_API int64_t arb_raw_from_ratio(int64_t num, int64_t den);
/* 1 when d is finite and d * 2^32 rounds into the int64 range. */
ARB_API int32_t arb_raw_is_representable(double d);
/* d rounded to the nearest raw value, ties away from zero (exactly the
 * server's Fixed::FromDouble); saturates, and NaN gives 0. For program
 * edges (configuration, input devices), never for feedback into a result. */
ARB_API int64_t arb_raw_from_double(double d);
/* raw / 2^32 as a double: exact when |raw| < 2^53. For display. */
ARB_API double arb_raw_to_double(int64_t raw);

/* ---- Geometry ------------------------------------------------------------ */

typedef struct arb_vec2 {
  int64_t x, y;
} arb_vec2;

/* A rotation as (cosine, sine), unit length. */
typedef struct arb_rot {
  int64_t c, s;
} arb_rot;

/* Rotate by q, then translate by p. */
typedef struct arb_transform {
  arb_vec2 p;
  arb_rot q;
} arb_transform;

typedef struct arb_aabb {
  arb_vec2 lower, upper;
} arb_aabb;

/* The rotation by `angle` radians (raw), as the core computes it
 * (deterministic fixed-point sine and cosine). */
ARB_API void arb_rot_from_angle(int64_t angle, arb_rot* out);

#define ARB_MAX_POLYGON_VERTICES 8
#define ARB_MAX_SHAPES_PER_BODY 64

typedef int32_t arb_shape_type;
#define ARB_SHAPE_CIRCLE 0
#define ARB_SHAPE_CAPSULE 1
#define ARB_SHAPE_SEGMENT 2
#define ARB_SHAPE_POLYGON 3
#define ARB_SHAPE_CHAIN_SEGMENT 4

#define ARB_MAX_CHAIN_POINTS 4096
/* Chain segments a body may hold on top of its ARB_MAX_SHAPES_PER_BODY others. */
#define ARB_MAX_CHAIN_SEGMENTS_PER_BODY 4096

typedef struct arb_circle {
  arb_vec2 center;
  int64_t radius; /* > 0 */
} arb_circle;

/* The segment center1-center2 swept by a disk of `radius`. */
typedef struct arb_capsule {
  arb_vec2 center1, center2;
  int64_t radius; /* > 0 */
} arb_capsule;

typedef struct arb_segment {
  arb_vec2 point1, point2;
} arb_segment;

/* One segment of a one-sided chain (build chains with arb_make_chain): it
 * collides only from the side of RightPerp(point2 - point1), and the ghosts
 * (the neighbouring chain points) keep bodies from catching on its joints.
 * Only static and kinematic bodies may hold one. See docs/chains.md and
 * core/include/arbiter/core/chain.h. */
typedef struct arb_chain_segment {
  arb_vec2 ghost1, point1, point2, ghost2;
} arb_chain_segment;

/* A strictly convex counter-clockwise polygon with an optional rounding
 * radius. Build it with arb_make_polygon or arb_make_box: the world accepts
 * only the normals and centroid those compute. */
typedef struct arb_polygon {
  arb_vec2 vertices[ARB_MAX_POLYGON_VERTICES];
  arb_vec2 normals[ARB_MAX_POLYGON_VERTICES]; /* outward unit normal of edge i -> i + 1 */
  arb_vec2 centroid;
  int64_t radius;
  int32_t count; /* 3..8 */
  int32_t reserved;
} arb_polygon;

/* One shape in its body's frame; `type` names the union member in use. */
typedef struct arb_shape {
  arb_shape_type type;
  int32_t reserved;
  union {
    arb_circle circle;
    arb_capsule capsule;
    arb_segment segment;
    arb_polygon polygon;
    arb_chain_segment chain_segment;
  } u;
} arb_shape;

/* Validates the points (3..8, counter-clockwise, strictly convex, in range)
 * and fills *out. INVALID_ARGUMENT "points: not convex" etc. */
ARB_API arb_status arb_make_polygon(const arb_vec2* points, int32_t count, int64_t radius, arb_polygon* out,
                                    arb_error* error);
/* The chain through `points` (2..4096; 3.. when `loop` is non-zero) as
 * chain segments written to out[0..*written): count - 1 of them, count for
 * a loop, so `capacity` must be at least that (ARB_BUFFER_TOO_SMALL
 * otherwise; nothing is written on any error). INVALID_ARGUMENT
 * "points: duplicate consecutive vertices" etc. */
ARB_API arb_status arb_make_chain(const arb_vec2* points, int32_t count, int32_t loop, arb_shape* out,
                                  int32_t capacity, int32_t* written, arb_error* error);
/* A box of half extents (hw, hh) centred on the body origin. */
ARB_API arb_status arb_make_box(int64_t half_width, int64_t half_height, arb_polygon* out, arb_error* error);
/* A box centred at `center`, rotated by `rotation`, in the body frame. */
ARB_API arb_status arb_make_offset_box(int64_t half_width, int64_t half_height, const arb_vec2* center,
                                       const arb_rot* rotation, arb_polygon* out, arb_error* error);

/* ---- Definitions --------------------------------------------------------- */

/* Shapes A and B may collide when (A.category & B.mask) != 0 and
 * (B.category & A.mask) != 0, unless they share a non-zero group
 * (positive: always collide, negative: never). */
typedef struct arb_filter {
  uint64_t category_bits; /* default 1 */
  uint64_t mask_bits;     /* default all ones */
  int32_t group_index;    /* default 0 */
  int32_t reserved;
} arb_filter;

typedef struct arb_shape_def {
  arb_shape shape;
  arb_filter filter;
  int64_t friction;    /* [0, 2^16], default 0.6 (raw 2576980378) */
  int64_t restitution; /* [0, 2^16], default 0 */
  int64_t density;     /* mass per unit area, [0, 2^16], default 1 */
  uint64_t user_tag;   /* opaque, returned with hits */
  int32_t is_sensor;   /* 1: reports overlaps, never collides */
  int32_t reserved;
} arb_shape_def;

typedef int32_t arb_body_type;
#define ARB_BODY_STATIC 0
#define ARB_BODY_KINEMATIC 1
#define ARB_BODY_DYNAMIC 2

typedef struct arb_body_def {
  uint64_t id;                 /* non-zero, unique in the world */
  arb_transform transform;     /* default identity */
  arb_vec2 linear_velocity;    /* units per second, |component| <= 2^24 */
  int64_t angular_velocity;    /* radians per second, |w| <= 2^16 */
  int64_t linear_damping;      /* [0, 2^16] */
  int64_t angular_damping;     /* [0, 2^16] */
  int64_t gravity_scale;       /* [-2^16, 2^16], default 1 */
  const arb_shape_def* shapes; /* 1..64, plus up to 4096 chain segments; borrowed */
  uint32_t shape_count;
  arb_body_type type;          /* default ARB_BODY_STATIC */
  int32_t is_bullet;           /* 1: continuous collision against dynamic bodies too */
  int32_t reserved;
} arb_body_def;

typedef struct arb_world_def {
  arb_vec2 gravity;    /* units per second squared, |component| <= 2^24; default zero */
  int32_t tick_hz;     /* ticks per second, 1..10000; default 60 */
  uint32_t max_bodies; /* default 4,000,000 */
} arb_world_def;

/* Fill a definition with the core's defaults. */
ARB_API void arb_world_def_init(arb_world_def* def);
ARB_API void arb_body_def_init(arb_body_def* def);
/* A circle of radius 1 at the origin with the default material and filter. */
ARB_API void arb_shape_def_init(arb_shape_def* def);

/* ---- Worlds -------------------------------------------------------------- */

typedef struct arb_world arb_world;

/* A new empty world at tick 0. OUT_OF_RANGE naming `gravity` or `tick_hz`. */
ARB_API arb_status arb_world_create(const arb_world_def* def, arb_world** out, arb_error* error);
/* Releases the world (NULL is ignored). Pointers it handed out (events) die with it. */
ARB_API void arb_world_destroy(arb_world* world);

/* Its definition, tick (ticks stepped since creation) and body count. */
ARB_API void arb_world_get_def(const arb_world* world, arb_world_def* out);
ARB_API int64_t arb_world_tick(const arb_world* world);
ARB_API uint64_t arb_world_body_count(const arb_world* world);

/* xxh64 (seed 0) of the canonical snapshot bytes: the value the server's
 * GetStateHash, Step and ReportHashes use. */
ARB_API uint64_t arb_world_state_hash(const arb_world* world);

/* The canonical byte image (the server's GetSnapshot bytes). *bytes is
 * allocated by the library: release it with arb_bytes_free. */
ARB_API arb_status arb_world_snapshot(const arb_world* world, uint8_t** bytes, size_t* size, arb_error* error);
ARB_API void arb_bytes_free(uint8_t* bytes);
/* A new world rebuilt from snapshot bytes (e.g. the server's GetSnapshot).
 * The image is validated like any input: INVALID_ARGUMENT "snapshot: ...". */
ARB_API arb_status arb_world_restore(const uint8_t* bytes, size_t size, arb_world** out, arb_error* error);

/* ---- Bodies -------------------------------------------------------------- */

/* Adds bodies, all or nothing. INVALID_ARGUMENT / OUT_OF_RANGE naming the
 * field ("bodies[3].shapes[0].polygon: not convex"), ALREADY_EXISTS for an
 * id in use or repeated, RESOURCE_EXHAUSTED past max_bodies. */
ARB_API arb_status arb_world_add_bodies(arb_world* world, const arb_body_def* bodies, size_t count, arb_error* error);
/* Removes bodies, all or nothing: NOT_FOUND when any id is unknown. */
ARB_API arb_status arb_world_remove_bodies(arb_world* world, const uint64_t* ids, size_t count, arb_error* error);
ARB_API arb_status arb_world_set_transform(arb_world* world, uint64_t id, const arb_transform* transform,
                                           arb_error* error);
/* FAILED_PRECONDITION for a static body. */
ARB_API arb_status arb_world_set_velocity(arb_world* world, uint64_t id, const arb_vec2* linear, int64_t angular,
                                          arb_error* error);
ARB_API arb_status arb_world_set_shape_filter(arb_world* world, uint64_t id, uint32_t shape_index,
                                              const arb_filter* filter, arb_error* error);

/* Every body id, ascending. *count receives the body count. */
ARB_API arb_status arb_world_body_ids(const arb_world* world, uint64_t* ids, size_t capacity, size_t* count,
                                      arb_error* error);
/* The definition body `id` would need to be re-created as it is now (its
 * current transform and velocities). out->shapes is set to `shapes`, which
 * receives *shape_count definitions (at most ARB_MAX_SHAPES_PER_BODY).
 * NOT_FOUND for an unknown id. */
ARB_API arb_status arb_world_get_body(const arb_world* world, uint64_t id, arb_body_def* out, arb_shape_def* shapes,
                                      size_t capacity, size_t* shape_count, arb_error* error);

/* ---- Stepping ------------------------------------------------------------ */

/* A shape of the world: its body's id and its index within the body. */
typedef struct arb_shape_ref {
  uint64_t body_id;
  uint32_t shape_index;
  uint32_t reserved;
} arb_shape_ref;

/* Two shapes started or stopped touching; a precedes b in (body id, shape
 * index) order and the normal points from a to b. End events carry zero
 * point, normal and speed. */
typedef struct arb_contact_event {
  arb_shape_ref a, b;
  arb_vec2 point;
  arb_vec2 normal;
  int64_t approach_speed; /* closing speed along the normal when it began (>= 0) */
  uint64_t user_tag_a;    /* the shapes' user_tag; 0 for a removed body's (end events) */
  uint64_t user_tag_b;
} arb_contact_event;

typedef struct arb_sensor_event {
  arb_shape_ref sensor;
  arb_shape_ref visitor;
  uint64_t sensor_user_tag; /* the shapes' user_tag, as in arb_contact_event */
  uint64_t visitor_user_tag;
} arb_sensor_event;

/* One tick's events, each list in canonical order. The arrays belong to the
 * world and stay valid until its next step, mutation or destruction. */
typedef struct arb_tick_events {
  const arb_contact_event* contact_begin;
  const arb_contact_event* contact_end;
  const arb_sensor_event* sensor_enter;
  const arb_sensor_event* sensor_exit;
  uint32_t contact_begin_count;
  uint32_t contact_end_count;
  uint32_t sensor_enter_count;
  uint32_t sensor_exit_count;
} arb_tick_events;

/* Advances the world by one tick of 1 / tick_hz seconds; when `events` is
 * not NULL, fills it with the tick's events. */
ARB_API arb_status arb_world_step(arb_world* world, arb_tick_events* events, arb_error* error);

/* ---- Queries ------------------------------------------------------------- */

/* Which shapes a query considers: (shape.category & mask_bits) != 0 and
 * (shape.mask & category_bits) != 0, its body type's bit (1 << type) is in
 * body_types, not a sensor unless include_sensors, its body not excluded.
 * A NULL filter is the default (everything but sensors). */
typedef struct arb_query_filter {
  uint64_t category_bits;          /* default all ones */
  uint64_t mask_bits;              /* default all ones */
  const uint64_t* exclude_bodies;  /* body ids, any order, borrowed; may be NULL when exclude_count is 0 */
  uint32_t exclude_count;
  uint32_t body_types;             /* default 7 (all three) */
  int32_t include_sensors;         /* default 0 */
  int32_t reserved;
} arb_query_filter;

ARB_API void arb_query_filter_init(arb_query_filter* filter);

/* Points origin + t * translation for t in [0, max_fraction]. origin
 * within +-2^29 and translation within +-2^30 units per axis; max_fraction
 * in [0, 1] (the server's CastRays rule) or above 1 while max_fraction *
 * translation stays within +-2^30 units per axis. OUT_OF_RANGE otherwise. */
typedef struct arb_ray {
  arb_vec2 origin;
  arb_vec2 translation;
  int64_t max_fraction; /* ARB_RAW_ONE for the whole translation */
} arb_ray;

/* A ray or sweep hit. A cast that starts touching hits at fraction 0 with
 * a zero normal. */
typedef struct arb_cast_hit {
  arb_shape_ref shape;
  uint64_t user_tag;
  int64_t fraction; /* of the translation, [0, max_fraction] */
  arb_vec2 point;   /* world space */
  arb_vec2 normal;  /* unit, out of the shape hit */
} arb_cast_hit;

/* The closest hit: *hit is 1 and *out filled, or *hit is 0. Ties go to the
 * lower (body id, shape index). */
ARB_API arb_status arb_world_cast_ray_closest(const arb_world* world, const arb_ray* ray,
                                              const arb_query_filter* filter, arb_cast_hit* out, int32_t* hit,
                                              arb_error* error);
/* Every hit by (fraction, body id, shape index). */
ARB_API arb_status arb_world_cast_ray_all(const arb_world* world, const arb_ray* ray, const arb_query_filter* filter,
                                          arb_cast_hit* hits, size_t capacity, size_t* count, arb_error* error);
/* *hit = 1 when the ray hits anything. */
ARB_API arb_status arb_world_cast_ray_any(const arb_world* world, const arb_ray* ray, const arb_query_filter* filter,
                                          int32_t* hit, arb_error* error);
/* A batch of closest-hit rays: out[i] and hit[i] answer rays[i]. */
ARB_API arb_status arb_world_cast_rays_closest(const arb_world* world, const arb_ray* rays, size_t count,
                                               const arb_query_filter* filter, arb_cast_hit* out, int32_t* hit,
                                               arb_error* error);

/* Shapes containing the point (boundary included), by (body id, shape index). */
ARB_API arb_status arb_world_overlap_point(const arb_world* world, const arb_vec2* point,
                                           const arb_query_filter* filter, arb_shape_ref* refs, size_t capacity,
                                           size_t* count, arb_error* error);
/* Shapes touching the box (exact shape test; touching counts). */
ARB_API arb_status arb_world_overlap_aabb(const arb_world* world, const arb_aabb* box,
                                          const arb_query_filter* filter, arb_shape_ref* refs, size_t capacity,
                                          size_t* count, arb_error* error);
/* Shapes touching `shape` placed at `transform`. */
ARB_API arb_status arb_world_overlap_shape(const arb_world* world, const arb_shape* shape,
                                           const arb_transform* transform, const arb_query_filter* filter,
                                           arb_shape_ref* refs, size_t capacity, size_t* count, arb_error* error);

/* How deep a shape overlaps the query shape and which way out: moving the
 * query shape by -normal * depth leaves the two touching (world.h,
 * OverlapContact: the step's own manifold for the pair). */
typedef struct arb_overlap_contact {
  arb_shape_ref shape;
  uint64_t user_tag;
  arb_vec2 normal;      /* unit, from the query shape towards the body's shape */
  int64_t depth;        /* >= 0; 0 when touching */
  int32_t point_count;  /* 1 or 2 */
  int32_t reserved;     /* 0 */
  arb_vec2 points[2];   /* midway between the surfaces */
} arb_overlap_contact;

/* arb_world_overlap_shape with each overlap's contact, in the same order. */
ARB_API arb_status arb_world_overlap_shape_contacts(const arb_world* world, const arb_shape* shape,
                                                    const arb_transform* transform, const arb_query_filter* filter,
                                                    arb_overlap_contact* contacts, size_t capacity, size_t* count,
                                                    arb_error* error);

/* A body near a distance query's shape, at its nearest shape (world.h,
 * DistanceHit). */
typedef struct arb_distance_hit {
  arb_shape_ref shape;
  uint64_t user_tag;
  int64_t distance;      /* between the surfaces; 0 when overlapping */
  arb_vec2 point_query;  /* closest point on the query shape (inside both when overlapping) */
  arb_vec2 point_body;   /* closest point on the body's shape */
  arb_vec2 normal;       /* unit, query towards body; the contact's normal when overlapping */
  int64_t depth;         /* the overlap's depth; 0 when apart */
} arb_distance_hit;

/* The bodies within max_distance (raw, [0, 2^30] units) of `shape` at
 * `transform`, nearest first, each body once, at most max_results
 * (1..256): *count is how many were written. */
ARB_API arb_status arb_world_distance(const arb_world* world, const arb_shape* shape, const arb_transform* transform,
                                      int64_t max_distance, uint32_t max_results, const arb_query_filter* filter,
                                      arb_distance_hit* hits, size_t capacity, size_t* count, arb_error* error);

/* `shape` at `transform` moved by `translation` (a sweep): the first hit,
 * every hit, or whether anything is hit. */
ARB_API arb_status arb_world_cast_shape_closest(const arb_world* world, const arb_shape* shape,
                                                const arb_transform* transform, const arb_vec2* translation,
                                                const arb_query_filter* filter, arb_cast_hit* out, int32_t* hit,
                                                arb_error* error);
ARB_API arb_status arb_world_cast_shape_all(const arb_world* world, const arb_shape* shape,
                                            const arb_transform* transform, const arb_vec2* translation,
                                            const arb_query_filter* filter, arb_cast_hit* hits, size_t capacity,
                                            size_t* count, arb_error* error);
ARB_API arb_status arb_world_cast_shape_any(const arb_world* world, const arb_shape* shape,
                                            const arb_transform* transform, const arb_vec2* translation,
                                            const arb_query_filter* filter, int32_t* hit, arb_error* error);

#ifdef __cplusplus
}  // extern "C"
#endif

#endif  // ARBITER_C_ARBITER_H_
