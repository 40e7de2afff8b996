/* The C interface from C (compiled as C11): every function of
 * arbiter/c/arbiter.h, its error codes and messages, the all-or-nothing
 * rule, and exact raw values where the answer is known in closed form.
 * Exit status 0 when every check passes; each failure is printed. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "arbiter/c/arbiter.h"

static int failures = 0;

#define CHECK(cond)                                                      \
  do {                                                                   \
    if (!(cond)) {                                                       \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                        \
    }                                                                    \
  } while (0)

/* The call returned `code` and the message contains `text`. */
#define CHECK_ERROR(call, want_code, text)                                                      \
  do {                                                                                          \
    arb_status s_ = (call);                                                                     \
    if (s_ != (want_code) || err.code != (want_code) || strstr(err.message, (text)) == NULL) {  \
      fprintf(stderr, "%s:%d: %s: got %s \"%s\", want %s containing \"%s\"\n", __FILE__,        \
              __LINE__, #call, arb_status_name(s_), err.message, arb_status_name(want_code), text); \
      ++failures;                                                                               \
    }                                                                                           \
  } while (0)

#define ONE ARB_RAW_ONE
static arb_error err;

static void test_status_names(void) {
  CHECK(strcmp(arb_status_name(ARB_OK), "OK") == 0);
  CHECK(strcmp(arb_status_name(ARB_INVALID_ARGUMENT), "INVALID_ARGUMENT") == 0);
  CHECK(strcmp(arb_status_name(ARB_NOT_FOUND), "NOT_FOUND") == 0);
  CHECK(strcmp(arb_status_name(ARB_ALREADY_EXISTS), "ALREADY_EXISTS") == 0);
  CHECK(strcmp(arb_status_name(ARB_RESOURCE_EXHAUSTED), "RESOURCE_EXHAUSTED") == 0);
  CHECK(strcmp(arb_status_name(ARB_FAILED_PRECONDITION), "FAILED_PRECONDITION") == 0);
  CHECK(strcmp(arb_status_name(ARB_OUT_OF_RANGE), "OUT_OF_RANGE") == 0);
  CHECK(strcmp(arb_status_name(ARB_INTERNAL), "INTERNAL") == 0);
  CHECK(strcmp(arb_status_name(ARB_BUFFER_TOO_SMALL), "BUFFER_TOO_SMALL") == 0);
  CHECK(strcmp(arb_status_name(42), "UNKNOWN") == 0);
}

static void test_raw(void) {
  arb_rot q;
  CHECK(arb_raw_from_int(3) == 3 * ONE);
  CHECK(arb_raw_from_int(-2) == -2 * ONE);
  CHECK(arb_raw_from_ratio(1, 3) == 1431655765);  /* 2^32 / 3 = 1431655765.33 */
  CHECK(arb_raw_from_ratio(-1, 2) == -ONE / 2);
  CHECK(arb_raw_from_ratio(5, 0) == INT64_MAX);
  CHECK(arb_raw_from_double(0.1) == 429496730);   /* 0.1 * 2^32 = 429496729.6 */
  CHECK(arb_raw_from_double(-2.5) == -5 * ONE / 2);
  CHECK(arb_raw_from_double(0x1p-33) == 1);       /* half an ulp rounds away from zero */
  CHECK(arb_raw_from_double(-0x1p-33) == -1);
  CHECK(arb_raw_from_double(1e300) == INT64_MAX);
  CHECK(arb_raw_from_double(-1e300) == INT64_MIN);
  CHECK(arb_raw_from_double(NAN) == 0);
  CHECK(arb_raw_is_representable(1.5) == 1);
  CHECK(arb_raw_is_representable(2147483648.0) == 0);
  CHECK(arb_raw_is_representable(INFINITY) == 0);
  CHECK(arb_raw_to_double(ONE / 4) == 0.25);
  arb_rot_from_angle(0, &q);
  CHECK(q.c == ONE && q.s == 0);
  arb_rot_from_angle(6746518852, &q); /* pi / 2 */
  CHECK(q.c > -4 && q.c < 4 && q.s > ONE - 4 && q.s <= ONE);
}

static void test_shapes(void) {
  const arb_vec2 square[4] = {{0, 0}, {ONE, 0}, {ONE, ONE}, {0, ONE}};
  const arb_vec2 clockwise[3] = {{0, 0}, {0, ONE}, {ONE, 0}};
  const arb_vec2 center = {ONE, 0};
  const arb_rot identity = {ONE, 0};
  const arb_rot bad_rot = {ONE, ONE};
  arb_polygon p, box, untouched;
  CHECK(arb_make_polygon(square, 4, 0, &p, &err) == ARB_OK && err.code == ARB_OK && err.message[0] == '\0');
  CHECK(p.count == 4 && p.centroid.x == ONE / 2 && p.centroid.y == ONE / 2);
  CHECK(p.normals[0].x == 0 && p.normals[0].y == -ONE); /* bottom edge faces down */
  CHECK(arb_make_box(ONE / 2, ONE / 2, &box, &err) == ARB_OK);
  CHECK(box.count == 4 && box.vertices[0].x == -ONE / 2 && box.vertices[2].y == ONE / 2);
  memset(&untouched, 0x5a, sizeof untouched);
  CHECK_ERROR(arb_make_polygon(clockwise, 3, 0, &untouched, &err), ARB_INVALID_ARGUMENT,
              "points: vertices are not counter-clockwise");
  CHECK(untouched.count == 0x5a5a5a5a); /* not written on failure */
  CHECK_ERROR(arb_make_polygon(square, 2, 0, &p, &err), ARB_INVALID_ARGUMENT, "fewer than 3 vertices");
  CHECK_ERROR(arb_make_polygon(square, 9, 0, &p, &err), ARB_INVALID_ARGUMENT, "more than 8 vertices");
  CHECK_ERROR(arb_make_polygon(NULL, 3, 0, &p, &err), ARB_INVALID_ARGUMENT, "points: NULL");
  CHECK_ERROR(arb_make_box(0, ONE, &p, &err), ARB_INVALID_ARGUMENT, "half extent must be positive");
  CHECK_ERROR(arb_make_box((int64_t)1 << 60, ONE, &p, &err), ARB_OUT_OF_RANGE, "box: coordinate or radius");
  CHECK(arb_make_offset_box(ONE, ONE, &center, &identity, &p, &err) == ARB_OK);
  CHECK(p.centroid.x == ONE && p.centroid.y == 0);
  CHECK_ERROR(arb_make_offset_box(ONE, ONE, &center, &bad_rot, &p, &err), ARB_INVALID_ARGUMENT,
              "rotation: not a unit rotation");
}

/* Bodies used below: 1 static ground box (top at y = 0), 2 a dynamic ball
 * of radius 1/2 at height 2, 3 a sensor disk at (10, 0), 4 a kinematic
 * capsule, 5 a static segment. */
static arb_world* make_world(void) {
  arb_world_def def;
  arb_world* world = NULL;
  arb_shape_def ground, ball, sensor, capsule, segment;
  arb_body_def bodies[5];
  int i;
  arb_world_def_init(&def);
  CHECK(def.tick_hz == 60 && def.gravity.x == 0 && def.gravity.y == 0 && def.max_bodies == 4000000);
  def.gravity.y = arb_raw_from_int(-10);
  def.tick_hz = 0;
  CHECK_ERROR(arb_world_create(&def, &world, &err), ARB_OUT_OF_RANGE, "tick_hz: must be in 1..10000");
  CHECK(world == NULL);
  def.tick_hz = 60;
  CHECK(arb_world_create(&def, &world, &err) == ARB_OK && world != NULL);

  arb_shape_def_init(&ground);
  CHECK(ground.shape.type == ARB_SHAPE_CIRCLE && ground.shape.u.circle.radius == ONE);
  CHECK(ground.friction == arb_raw_from_ratio(3, 5) && ground.density == ONE && ground.filter.category_bits == 1);
  ground.shape.type = ARB_SHAPE_POLYGON;
  CHECK(arb_make_offset_box(20 * ONE, ONE, &(arb_vec2){0, -ONE}, &(arb_rot){ONE, 0}, &ground.shape.u.polygon,
                            &err) == ARB_OK);
  ground.user_tag = 100;
  arb_shape_def_init(&ball);
  ball.shape.u.circle.radius = ONE / 2;
  ball.user_tag = 200;
  arb_shape_def_init(&sensor);
  sensor.is_sensor = 1;
  arb_shape_def_init(&capsule);
  capsule.shape.type = ARB_SHAPE_CAPSULE;
  capsule.shape.u.capsule = (arb_capsule){{-ONE, 0}, {ONE, 0}, ONE / 4};
  arb_shape_def_init(&segment);
  segment.shape.type = ARB_SHAPE_SEGMENT;
  segment.shape.u.segment = (arb_segment){{-ONE, 0}, {ONE, 0}};

  for (i = 0; i < 5; ++i) {
    arb_body_def_init(&bodies[i]);
    bodies[i].id = (uint64_t)(i + 1);
    bodies[i].shape_count = 1;
  }
  CHECK(bodies[0].type == ARB_BODY_STATIC && bodies[0].transform.q.c == ONE && bodies[0].gravity_scale == ONE);
  bodies[0].shapes = &ground;
  bodies[1].shapes = &ball;
  bodies[1].type = ARB_BODY_DYNAMIC;
  bodies[1].transform.p.y = 2 * ONE;
  bodies[2].shapes = &sensor;
  bodies[2].transform.p.x = 10 * ONE;
  bodies[3].shapes = &capsule;
  bodies[3].type = ARB_BODY_KINEMATIC;
  bodies[3].transform.p = (arb_vec2){-10 * ONE, 5 * ONE};
  bodies[4].shapes = &segment;
  bodies[4].transform.p = (arb_vec2){-10 * ONE, 10 * ONE};

  /* One bad body refuses the whole batch. */
  bodies[4].id = 2;
  CHECK_ERROR(arb_world_add_bodies(world, bodies, 5, &err), ARB_ALREADY_EXISTS, "2");
  CHECK(arb_world_body_count(world) == 0);
  bodies[4].id = 5;
  bodies[4].type = 7;
  CHECK_ERROR(arb_world_add_bodies(world, bodies, 5, &err), ARB_INVALID_ARGUMENT, "bodies[4].type: unknown body type");
  bodies[4].type = ARB_BODY_STATIC;
  segment.shape.type = 9;
  CHECK_ERROR(arb_world_add_bodies(world, bodies, 5, &err), ARB_INVALID_ARGUMENT,
              "bodies[4].shapes[0].shape: unknown shape type 9");
  segment.shape.type = ARB_SHAPE_SEGMENT;
  bodies[1].transform.q.s = ONE;
  CHECK_ERROR(arb_world_add_bodies(world, bodies, 5, &err), ARB_INVALID_ARGUMENT,
              "bodies[1].transform.q: not a unit rotation");
  bodies[1].transform.q.s = 0;
  CHECK_ERROR(arb_world_add_bodies(world, NULL, 1, &err), ARB_INVALID_ARGUMENT, "bodies: NULL");
  CHECK(arb_world_body_count(world) == 0);
  CHECK(arb_world_add_bodies(world, bodies, 5, &err) == ARB_OK);
  CHECK(arb_world_body_count(world) == 5);
  return world;
}

static void test_inspection(arb_world* world) {
  uint64_t ids[5];
  size_t count = 0;
  arb_body_def body;
  arb_shape_def shapes[ARB_MAX_SHAPES_PER_BODY];
  arb_world_def def;
  arb_world_get_def(world, &def);
  CHECK(def.tick_hz == 60 && def.gravity.y == -10 * ONE);
  CHECK(arb_world_tick(world) == 0);
  CHECK_ERROR(arb_world_body_ids(world, ids, 2, &count, &err), ARB_BUFFER_TOO_SMALL, "ids: 5 needed, capacity 2");
  CHECK(count == 5);
  CHECK(arb_world_body_ids(world, ids, 5, &count, &err) == ARB_OK && count == 5);
  CHECK(ids[0] == 1 && ids[4] == 5);
  CHECK(arb_world_get_body(world, 1, &body, shapes, ARB_MAX_SHAPES_PER_BODY, &count, &err) == ARB_OK);
  CHECK(count == 1 && body.shapes == shapes && body.shape_count == 1 && body.type == ARB_BODY_STATIC);
  CHECK(shapes[0].shape.type == ARB_SHAPE_POLYGON && shapes[0].shape.u.polygon.vertices[0].y == -2 * ONE);
  CHECK(shapes[0].user_tag == 100);
  CHECK_ERROR(arb_world_get_body(world, 99, &body, shapes, ARB_MAX_SHAPES_PER_BODY, &count, &err), ARB_NOT_FOUND,
              "body_id: no body 99");
  CHECK_ERROR(arb_world_get_body(world, 1, &body, shapes, 0, &count, &err), ARB_BUFFER_TOO_SMALL,
              "shapes: 1 needed");
}

static void test_mutations(arb_world* world) {
  const arb_transform moved = {{-10 * ONE, 6 * ONE}, {ONE, 0}};
  const arb_transform off_world = {{(int64_t)1 << 62, 0}, {ONE, 0}};
  const arb_vec2 velocity = {ONE, 0};
  arb_filter filter = {1, ~(uint64_t)0, 0, 0};
  const uint64_t unknown[2] = {5, 77};
  CHECK(arb_world_set_transform(world, 4, &moved, &err) == ARB_OK);
  CHECK_ERROR(arb_world_set_transform(world, 4, &off_world, &err), ARB_OUT_OF_RANGE, "beyond +-2^29");
  CHECK_ERROR(arb_world_set_transform(world, 4, NULL, &err), ARB_INVALID_ARGUMENT, "transform: NULL");
  CHECK(arb_world_set_velocity(world, 4, &velocity, 0, &err) == ARB_OK);
  CHECK_ERROR(arb_world_set_velocity(world, 1, &velocity, 0, &err), ARB_FAILED_PRECONDITION, "is static");
  CHECK(arb_world_set_shape_filter(world, 5, 0, &filter, &err) == ARB_OK);
  CHECK_ERROR(arb_world_set_shape_filter(world, 5, 3, &filter, &err), ARB_NOT_FOUND, "shape_index");
  CHECK_ERROR(arb_world_remove_bodies(world, unknown, 2, &err), ARB_NOT_FOUND, "no body 77");
  CHECK(arb_world_body_count(world) == 5);
  CHECK(arb_world_remove_bodies(world, unknown, 1, &err) == ARB_OK);
  CHECK(arb_world_body_count(world) == 4);
  /* A world is usable with a NULL error too. */
  CHECK(arb_world_set_velocity(world, 99, &velocity, 0, NULL) == ARB_NOT_FOUND);
}

static void test_step(arb_world* world) {
  arb_tick_events events;
  int tick, begun = 0;
  /* The ball (radius 1/2) falls from y = 2 onto the ground's top at y = 0. */
  for (tick = 1; tick <= 120; ++tick) {
    CHECK(arb_world_step(world, &events, &err) == ARB_OK);
    if (events.contact_begin_count > 0) {
      ++begun;
      CHECK(events.contact_begin[0].a.body_id == 1 && events.contact_begin[0].b.body_id == 2);
      CHECK(events.contact_begin[0].normal.y == ONE && events.contact_begin[0].approach_speed > 0);
      CHECK(events.contact_begin[0].user_tag_a == 100); /* the ground's shape */
    }
  }
  CHECK(begun == 1);
  CHECK(arb_world_tick(world) == 120);
  CHECK(arb_world_step(world, NULL, &err) == ARB_OK && arb_world_tick(world) == 121);
  CHECK_ERROR(arb_world_step(NULL, NULL, &err), ARB_INVALID_ARGUMENT, "world: NULL");
}

static void test_queries(const arb_world* world) {
  arb_ray down = {{0, 5 * ONE}, {0, -10 * ONE}, ONE};
  arb_ray batch[2];
  arb_ray bad = down;
  arb_cast_hit hit, hits[8], batch_hits[2];
  int32_t found = -1, batch_found[2];
  size_t count = 0;
  arb_query_filter filter;
  const uint64_t exclude[1] = {2};
  const arb_vec2 inside_ground = {0, -ONE};
  const arb_aabb around_sensor = {{9 * ONE, -ONE}, {11 * ONE, ONE}};
  const arb_aabb inverted = {{ONE, 0}, {0, 0}};
  arb_shape disk;
  const arb_transform above = {{0, 5 * ONE}, {ONE, 0}};
  const arb_vec2 drop = {0, -10 * ONE};
  arb_shape_ref refs[8];

  /* Closest: the resting ball, above the ground. */
  CHECK(arb_world_cast_ray_closest(world, &down, NULL, &hit, &found, &err) == ARB_OK && found == 1);
  CHECK(hit.shape.body_id == 2 && hit.user_tag == 200 && hit.normal.y == ONE && hit.point.x == 0);
  arb_query_filter_init(&filter);
  CHECK(filter.body_types == 7 && filter.include_sensors == 0 && filter.exclude_count == 0);
  filter.exclude_bodies = exclude;
  filter.exclude_count = 1;
  CHECK(arb_world_cast_ray_closest(world, &down, &filter, &hit, &found, &err) == ARB_OK && found == 1);
  CHECK(hit.shape.body_id == 1 && hit.point.y == 0 && hit.fraction == ONE / 2 && hit.normal.y == ONE);
  CHECK_ERROR(arb_world_cast_ray_all(world, &down, NULL, hits, 1, &count, &err), ARB_BUFFER_TOO_SMALL,
              "hits: 2 needed, capacity 1");
  CHECK(count == 2);
  CHECK(arb_world_cast_ray_all(world, &down, NULL, hits, 8, &count, &err) == ARB_OK && count == 2);
  CHECK(hits[0].shape.body_id == 2 && hits[1].shape.body_id == 1 && hits[0].fraction < hits[1].fraction);
  CHECK(arb_world_cast_ray_any(world, &down, NULL, &found, &err) == ARB_OK && found == 1);
  batch[0] = down;
  batch[1] = (arb_ray){{100 * ONE, 100 * ONE}, {ONE, 0}, ONE};
  CHECK(arb_world_cast_rays_closest(world, batch, 2, NULL, batch_hits, batch_found, &err) == ARB_OK);
  CHECK(batch_found[0] == 1 && batch_hits[0].shape.body_id == 2 && batch_found[1] == 0);
  bad.max_fraction = 2 * ONE; /* beyond 1, but a short reach: accepted */
  CHECK(arb_world_cast_ray_closest(world, &bad, NULL, &hit, &found, &err) == ARB_OK && found == 1);
  bad.translation.y = -((int64_t)1 << 30) * ONE; /* 2^31 units of reach: refused */
  CHECK_ERROR(arb_world_cast_ray_closest(world, &bad, NULL, &hit, &found, &err), ARB_OUT_OF_RANGE,
              "ray.max_fraction: max_fraction x translation beyond +-2^30 units");
  bad.max_fraction = -1;
  CHECK_ERROR(arb_world_cast_ray_closest(world, &bad, NULL, &hit, &found, &err), ARB_OUT_OF_RANGE,
              "ray.max_fraction: must be in [0, 1]");
  batch[1] = bad;
  CHECK_ERROR(arb_world_cast_rays_closest(world, batch, 2, NULL, batch_hits, batch_found, &err), ARB_OUT_OF_RANGE,
              "rays[1].max_fraction");

  CHECK(arb_world_overlap_point(world, &inside_ground, NULL, refs, 8, &count, &err) == ARB_OK);
  CHECK(count == 1 && refs[0].body_id == 1 && refs[0].shape_index == 0);
  CHECK(arb_world_overlap_aabb(world, &around_sensor, NULL, refs, 8, &count, &err) == ARB_OK);
  CHECK(count == 1 && refs[0].body_id == 1); /* the sensor only with include_sensors */
  filter.include_sensors = 1;
  CHECK(arb_world_overlap_aabb(world, &around_sensor, &filter, refs, 8, &count, &err) == ARB_OK);
  CHECK(count == 2 && refs[0].body_id == 1 && refs[1].body_id == 3);
  CHECK_ERROR(arb_world_overlap_aabb(world, &inverted, NULL, refs, 8, &count, &err), ARB_INVALID_ARGUMENT,
              "box: lower must not exceed upper");

  memset(&disk, 0, sizeof disk);
  disk.type = ARB_SHAPE_CIRCLE;
  disk.u.circle.radius = ONE / 4;
  CHECK(arb_world_overlap_shape(world, &disk, &(arb_transform){{0, 0}, {ONE, 0}}, NULL, refs, 8, &count, &err) ==
        ARB_OK);
  CHECK(count >= 1 && refs[0].body_id == 1);
  CHECK(arb_world_cast_shape_closest(world, &disk, &above, &drop, NULL, &hit, &found, &err) == ARB_OK);
  CHECK(found == 1 && hit.shape.body_id == 2);
  CHECK(arb_world_cast_shape_all(world, &disk, &above, &drop, NULL, hits, 8, &count, &err) == ARB_OK);
  CHECK(count == 2 && hits[0].shape.body_id == 2 && hits[1].shape.body_id == 1);
  CHECK(arb_world_cast_shape_any(world, &disk, &above, &drop, NULL, &found, &err) == ARB_OK && found == 1);
  disk.u.circle.radius = -ONE;
  CHECK_ERROR(arb_world_cast_shape_any(world, &disk, &above, &drop, NULL, &found, &err), ARB_INVALID_ARGUMENT,
              "shape: negative radius");
}

static void test_snapshot(arb_world* world) {
  uint8_t* bytes = NULL;
  size_t size = 0;
  arb_world* copy = NULL;
  const uint64_t hash = arb_world_state_hash(world);
  int i;
  CHECK(hash != 0);
  CHECK(arb_world_snapshot(world, &bytes, &size, &err) == ARB_OK && bytes != NULL && size > 0);
  CHECK(arb_world_restore(bytes, size, &copy, &err) == ARB_OK && copy != NULL);
  CHECK(arb_world_state_hash(copy) == hash && arb_world_tick(copy) == arb_world_tick(world));
  for (i = 0; i < 30; ++i) {
    CHECK(arb_world_step(world, NULL, &err) == ARB_OK);
    CHECK(arb_world_step(copy, NULL, &err) == ARB_OK);
    CHECK(arb_world_state_hash(copy) == arb_world_state_hash(world));
  }
  bytes[0] ^= 0xff;
  arb_world_destroy(copy);
  copy = NULL;
  CHECK_ERROR(arb_world_restore(bytes, size, &copy, &err), ARB_INVALID_ARGUMENT, "snapshot:");
  CHECK(copy == NULL);
  CHECK_ERROR(arb_world_restore(NULL, 4, &copy, &err), ARB_INVALID_ARGUMENT, "bytes: NULL");
  arb_bytes_free(bytes);
  arb_world_destroy(NULL);
}

/* arb_make_chain, and a chain floor in a world: one-sided rays, no mass. */
static void test_chains(void) {
  const arb_vec2 points[4] = {{3 * ONE, 0}, {ONE, 0}, {-ONE, 0}, {-3 * ONE, 0}}; /* right to left: faces up */
  arb_shape segments[4];
  arb_shape_def defs[3];
  arb_body_def floor;
  arb_world_def def;
  arb_world* world = NULL;
  arb_ray ray;
  arb_cast_hit hit;
  int32_t written = -1, got = 0, i;
  CHECK_ERROR(arb_make_chain(points, 1, 0, segments, 4, &written, &err), ARB_INVALID_ARGUMENT,
              "points: a chain needs at least 2 points");
  CHECK_ERROR(arb_make_chain(points, 4, 1, segments, 3, &written, &err), ARB_BUFFER_TOO_SMALL, "out: 4 needed");
  CHECK(written == -1);
  CHECK(arb_make_chain(points, 4, 0, segments, 4, &written, &err) == ARB_OK && written == 3);
  CHECK(segments[1].type == ARB_SHAPE_CHAIN_SEGMENT);
  CHECK(segments[1].u.chain_segment.ghost1.x == 3 * ONE && segments[1].u.chain_segment.ghost2.x == -3 * ONE);
  for (i = 0; i < 3; ++i) {
    arb_shape_def_init(&defs[i]);
    defs[i].shape = segments[i];
  }
  arb_world_def_init(&def);
  CHECK(arb_world_create(&def, &world, &err) == ARB_OK);
  arb_body_def_init(&floor);
  floor.id = 1;
  floor.shapes = defs;
  floor.shape_count = 3;
  floor.type = ARB_BODY_DYNAMIC;
  CHECK_ERROR(arb_world_add_bodies(world, &floor, 1, &err), ARB_INVALID_ARGUMENT,
              "bodies[0].shapes[0].chain_segment: a chain has no mass");
  floor.type = ARB_BODY_STATIC;
  CHECK(arb_world_add_bodies(world, &floor, 1, &err) == ARB_OK);
  ray = (arb_ray){{0, 2 * ONE}, {0, -4 * ONE}, ONE};
  CHECK(arb_world_cast_ray_closest(world, &ray, NULL, &hit, &got, &err) == ARB_OK && got == 1);
  CHECK(hit.shape.shape_index == 1 && hit.fraction == ONE / 2 && hit.normal.y == ONE);
  ray = (arb_ray){{0, -2 * ONE}, {0, 4 * ONE}, ONE};
  CHECK(arb_world_cast_ray_closest(world, &ray, NULL, &hit, &got, &err) == ARB_OK && got == 0);
  arb_world_destroy(world);
}

/* A disk sunk 0.5 into a box's top, and the nearest bodies to a disk. */
static void test_contacts_and_distance(void) {
  arb_shape_def box, ball;
  arb_body_def bodies[2];
  arb_world_def def;
  arb_world* world = NULL;
  arb_shape disk;
  arb_overlap_contact contacts[4];
  arb_distance_hit near[4];
  const arb_transform sunk = {{0, 3 * ONE / 2}, {ONE, 0}};
  const arb_transform between = {{6 * ONE, 0}, {ONE, 0}};
  size_t count = 0;
  arb_shape_def_init(&box);
  box.shape.type = ARB_SHAPE_POLYGON;
  CHECK(arb_make_offset_box(2 * ONE, ONE, &(arb_vec2){0, 0}, &(arb_rot){ONE, 0}, &box.shape.u.polygon, &err) == ARB_OK);
  arb_shape_def_init(&ball);
  arb_body_def_init(&bodies[0]);
  bodies[0].id = 7;
  bodies[0].shapes = &box;
  bodies[0].shape_count = 1;
  arb_body_def_init(&bodies[1]);
  bodies[1].id = 9;
  bodies[1].transform.p.x = 10 * ONE;
  bodies[1].shapes = &ball;
  bodies[1].shape_count = 1;
  arb_world_def_init(&def);
  CHECK(arb_world_create(&def, &world, &err) == ARB_OK);
  CHECK(arb_world_add_bodies(world, bodies, 2, &err) == ARB_OK);
  memset(&disk, 0, sizeof disk);
  disk.type = ARB_SHAPE_CIRCLE;
  disk.u.circle.radius = ONE;
  CHECK(arb_world_overlap_shape_contacts(world, &disk, &sunk, NULL, contacts, 4, &count, &err) == ARB_OK);
  CHECK(count == 1 && contacts[0].shape.body_id == 7 && contacts[0].normal.x == 0 && contacts[0].normal.y == -ONE);
  CHECK(contacts[0].depth == ONE / 2 && contacts[0].point_count == 1 && contacts[0].points[0].y == 3 * ONE / 4);
  CHECK_ERROR(arb_world_overlap_shape_contacts(world, &disk, &sunk, NULL, contacts, 0, &count, &err),
              ARB_BUFFER_TOO_SMALL, "contacts: 1 needed");
  CHECK(arb_world_distance(world, &disk, &between, 10 * ONE, 4, NULL, near, 4, &count, &err) == ARB_OK);
  CHECK(count == 2 && near[0].shape.body_id == 9 && near[0].distance == 2 * ONE && near[1].distance == 3 * ONE);
  CHECK(near[0].point_query.x == 7 * ONE && near[0].point_body.x == 9 * ONE && near[0].normal.x == ONE);
  CHECK(arb_world_distance(world, &disk, &sunk, 0, 1, NULL, near, 4, &count, &err) == ARB_OK);
  CHECK(count == 1 && near[0].distance == 0 && near[0].depth == ONE / 2);
  CHECK_ERROR(arb_world_distance(world, &disk, &sunk, -1, 1, NULL, near, 4, &count, &err), ARB_OUT_OF_RANGE,
              "max_distance: must be in [0, 2^30] units");
  CHECK_ERROR(arb_world_distance(world, &disk, &sunk, ONE, 0, NULL, near, 4, &count, &err), ARB_OUT_OF_RANGE,
              "max_results: must be in 1..256");
  arb_world_destroy(world);
}

int main(void) {
  arb_world* world;
  test_status_names();
  test_raw();
  test_shapes();
  test_chains();
  test_contacts_and_distance();
  world = make_world();
  test_inspection(world);
  test_mutations(world);
  test_step(world);
  test_queries(world);
  test_snapshot(world);
  arb_world_destroy(world);
  if (failures != 0) {
    fprintf(stderr, "c_abi_test: %d check(s) failed\n", failures);
    return 1;
  }
  printf("c_abi_test: every check passed\n");
  return 0;
}
