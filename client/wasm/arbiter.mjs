// arbiter.mjs: Arbiter's core in WebAssembly, for browsers and node.
//
// A small ES-module wrapper over the C interface (core/include/arbiter/c/
// arbiter.h, which documents every rule): the same fixed-point world the
// server runs, so a world restored from the server's GetSnapshot and stepped
// here has the server's state hash after every tick.
//
// Numbers: every geometric value is a raw Q32.32 BigInt (value = raw / 2^32);
// rawFromInt / rawFromRatio / rawFromDouble build them exactly as the server
// does (rawFromDouble is Fixed::FromDouble compiled to wasm, bit for bit).
// Ids and hashes are BigInts (uint64); ticks and counts are Numbers.
// Errors throw ArbiterError {code, codeName, message}, with the core's
// message naming the field ("bodies[0].shapes[0].box: half extent must be
// positive"); a failed call changes nothing.
//
//   import { loadArbiter, RAW_ONE } from './arbiter.mjs';
//   const arbiter = await loadArbiter();
//   const world = arbiter.restoreWorld(snapshotBytes);   // Uint8Array
//   world.step();                                        // events of the tick
//   world.stateHash();                                   // BigInt, the server's hash
//   world.destroy();                                     // frees the wasm memory
import createArbiterModule from './arbiter_wasm.mjs';

export const RAW_ONE = 1n << 32n;

// Sizes and offsets (bytes) of the C structs on wasm32, checked against the
// module's own (arb_wasm_layout) when it loads.
const LAYOUT = {
  error: 260,
  ray: 40,
  castHit: 64,
  castHitFraction: 24,
  castHitPoint: 32,
  castHitNormal: 48,
  shapeRef: 16,
  aabb: 32,
  tickEvents: 32,
  contactEvent: 88,
  sensorEvent: 48,
  transform: 32,
  worldDef: 24,
  overlapContact: 88,
  overlapContactNormal: 24,
  overlapContactDepth: 40,
  overlapContactPoints: 56,
  distanceHit: 88,
};
const SHAPE_DEF = { size: 360, shapeUnion: 8, userTag: 344, isSensor: 352 };
const BODY_DEF = { size: 112, transform: 8, velocity: 40, angular: 56, shapes: 88, shapeCount: 92, type: 96, bullet: 100 };
const BODY_TYPES = { static: 0, kinematic: 1, dynamic: 2 };
const SHAPE_TYPES = { circle: 0, capsule: 1, segment: 2, polygon: 3 };

export class ArbiterError extends Error {
  constructor(code, codeName, message) {
    super(`${codeName}: ${message}`);
    this.code = code;
    this.codeName = codeName;
    this.detail = message;
  }
}

/** Loads the module (the wasm is embedded in arbiter_wasm.mjs). */
export async function loadArbiter() {
  const m = await createArbiterModule();
  const names = Object.keys(LAYOUT);
  const out = m._malloc(4 * names.length);
  const n = m._arb_wasm_layout(out, names.length);
  const actual = Array.from(new Int32Array(m.HEAPU8.buffer, out, names.length));
  m._free(out);
  names.forEach((name, i) => {
    if (n !== names.length || actual[i] !== LAYOUT[name]) {
      throw new Error(`arbiter.mjs: layout of ${name} is ${actual[i]} in the module, ${LAYOUT[name]} here`);
    }
  });
  return new Arbiter(m);
}

// Memory of one call: malloc'd blocks freed together.
class Scratch {
  constructor(m) {
    this.m = m;
    this.blocks = [];
  }
  alloc(size) {
    const p = this.m._malloc(Math.max(size, 8));
    new Uint8Array(this.m.HEAPU8.buffer, p, size).fill(0);
    this.blocks.push(p);
    return p;
  }
  free() {
    for (const p of this.blocks) this.m._free(p);
    this.blocks = [];
  }
}

class Arbiter {
  constructor(m) {
    this.m = m;
  }

  rawFromInt(n) {
    return this.m._arb_raw_from_int(n);
  }
  rawFromRatio(num, den) {
    return this.m._arb_raw_from_ratio(BigInt(num), BigInt(den));
  }
  rawFromDouble(d) {
    return this.m._arb_raw_from_double(d);
  }
  rawToDouble(raw) {
    return this.m._arb_raw_to_double(raw);
  }
  /** The rotation by `angle` radians (raw), as the core computes it. */
  rotFromAngle(angle) {
    return this.call((s) => {
      const q = s.alloc(16);
      this.m._arb_rot_from_angle(angle, q);
      return { c: this.i64(q), s: this.i64(q + 8) };
    });
  }

  /** A new empty world: gravity {x, y} raw, tickHz ticks per second. */
  createWorld({ gravity = { x: 0n, y: 0n }, tickHz = 60 } = {}) {
    return this.call((s, err) => {
      const def = s.alloc(LAYOUT.worldDef);
      this.m._arb_world_def_init(def);
      this.setVec(def, gravity);
      this.view().setInt32(def + 16, tickHz, true);
      const out = s.alloc(4);
      this.check(this.m._arb_world_create(def, out, err), err);
      return new World(this, this.view().getUint32(out, true));
    });
  }

  /** A world rebuilt from snapshot bytes (the server's GetSnapshot). */
  restoreWorld(bytes) {
    return this.call((s, err) => {
      const p = s.alloc(bytes.length);
      this.m.HEAPU8.set(bytes, p);
      const out = s.alloc(4);
      this.check(this.m._arb_world_restore(p, bytes.length, out, err), err);
      return new World(this, this.view().getUint32(out, true));
    });
  }

  // ---- plumbing -------------------------------------------------------------

  call(body) {
    const s = new Scratch(this.m);
    try {
      return body(s, s.alloc(LAYOUT.error));
    } finally {
      s.free();
    }
  }
  check(status, err) {
    if (status === 0) return;
    const name = this.m.UTF8ToString(this.m._arb_status_name(status));
    throw new ArbiterError(status, name, this.m.UTF8ToString(err + 4));
  }
  view() {
    return new DataView(this.m.HEAPU8.buffer);
  }
  i64(p) {
    return this.view().getBigInt64(p, true);
  }
  u64(p) {
    return this.view().getBigUint64(p, true);
  }
  vec(p) {
    return { x: this.i64(p), y: this.i64(p + 8) };
  }
  setVec(p, v) {
    const dv = this.view();
    dv.setBigInt64(p, BigInt(v.x), true);
    dv.setBigInt64(p + 8, BigInt(v.y), true);
  }
  setTransform(p, xf) {
    this.setVec(p, xf.p ?? { x: 0n, y: 0n });
    const q = xf.q ?? { c: RAW_ONE, s: 0n };
    this.setVec(p + 16, { x: q.c, y: q.s });
  }
  ref(p) {
    return { bodyId: this.u64(p), shapeIndex: this.view().getUint32(p + 8, true) };
  }
  hit(p) {
    return {
      ...this.ref(p),
      userTag: this.u64(p + 16),
      fraction: this.i64(p + LAYOUT.castHitFraction),
      point: this.vec(p + LAYOUT.castHitPoint),
      normal: this.vec(p + LAYOUT.castHitNormal),
    };
  }
  // One shape description ({circle: {radius, center?}}, {box: {halfWidth,
  // halfHeight}}, {polygon: {points, radius?}}, {capsule: {center1,
  // center2, radius}}, {segment: {point1, point2}}) into an arb_shape_def.
  writeShapeDef(s, err, p, desc) {
    this.m._arb_shape_def_init(p);
    const u = p + SHAPE_DEF.shapeUnion;
    const dv = this.view();
    const setType = (t) => dv.setInt32(p, t, true);
    if (desc.circle) {
      setType(SHAPE_TYPES.circle);
      this.setVec(u, desc.circle.center ?? { x: 0n, y: 0n });
      dv.setBigInt64(u + 16, BigInt(desc.circle.radius), true);
    } else if (desc.capsule) {
      setType(SHAPE_TYPES.capsule);
      this.setVec(u, desc.capsule.center1);
      this.setVec(u + 16, desc.capsule.center2);
      dv.setBigInt64(u + 32, BigInt(desc.capsule.radius), true);
    } else if (desc.segment) {
      setType(SHAPE_TYPES.segment);
      this.setVec(u, desc.segment.point1);
      this.setVec(u + 16, desc.segment.point2);
    } else if (desc.box) {
      setType(SHAPE_TYPES.polygon);
      this.check(this.m._arb_make_box(BigInt(desc.box.halfWidth), BigInt(desc.box.halfHeight), u, err), err);
    } else if (desc.polygon) {
      setType(SHAPE_TYPES.polygon);
      const pts = s.alloc(16 * desc.polygon.points.length);
      desc.polygon.points.forEach((v, i) => this.setVec(pts + 16 * i, v));
      const status = this.m._arb_make_polygon(pts, desc.polygon.points.length, BigInt(desc.polygon.radius ?? 0n), u, err);
      this.check(status, err);
    } else {
      throw new ArbiterError(3, 'INVALID_ARGUMENT', 'shape: one of circle, capsule, segment, box, polygon');
    }
    if (desc.userTag !== undefined) this.view().setBigUint64(p + SHAPE_DEF.userTag, BigInt(desc.userTag), true);
    if (desc.isSensor) this.view().setInt32(p + SHAPE_DEF.isSensor, 1, true);
  }
}

class World {
  constructor(arbiter, handle) {
    this.a = arbiter;
    this.m = arbiter.m;
    this.handle = handle;
  }

  destroy() {
    this.m._arb_world_destroy(this.handle);
    this.handle = 0;
  }
  tick() {
    return Number(this.m._arb_world_tick(this.handle));
  }
  bodyCount() {
    return Number(this.m._arb_world_body_count(this.handle));
  }
  /** xxh64 of the canonical snapshot: the server's GetStateHash value. */
  stateHash() {
    return BigInt.asUintN(64, this.m._arb_world_state_hash(this.handle));
  }
  snapshot() {
    return this.a.call((s, err) => {
      const bytes = s.alloc(4);
      const size = s.alloc(4);
      this.a.check(this.m._arb_world_snapshot(this.handle, bytes, size, err), err);
      const dv = this.a.view();
      const p = dv.getUint32(bytes, true);
      const copy = this.m.HEAPU8.slice(p, p + dv.getUint32(size, true));
      this.m._arb_bytes_free(p);
      return copy;
    });
  }

  /** One tick; returns its events, each list in canonical order. */
  step() {
    return this.a.call((s, err) => {
      const ev = s.alloc(LAYOUT.tickEvents);
      this.a.check(this.m._arb_world_step(this.handle, ev, err), err);
      const dv = this.a.view();
      const list = (i, size, decode) =>
        Array.from({ length: dv.getUint32(ev + 16 + 4 * i, true) }, (_, k) => decode(dv.getUint32(ev + 4 * i, true) + k * size));
      const contact = (p) => ({
        a: this.a.ref(p),
        b: this.a.ref(p + 16),
        point: this.a.vec(p + 32),
        normal: this.a.vec(p + 48),
        approachSpeed: this.a.i64(p + 64),
        userTagA: this.a.u64(p + 72),
        userTagB: this.a.u64(p + 80),
      });
      const sensor = (p) => ({
        sensor: this.a.ref(p), visitor: this.a.ref(p + 16), sensorUserTag: this.a.u64(p + 32), visitorUserTag: this.a.u64(p + 40),
      });
      return {
        tick: this.tick(),
        contactBegin: list(0, LAYOUT.contactEvent, contact),
        contactEnd: list(1, LAYOUT.contactEvent, contact),
        sensorEnter: list(2, LAYOUT.sensorEvent, sensor),
        sensorExit: list(3, LAYOUT.sensorEvent, sensor),
      };
    });
  }

  /**
   * Adds bodies, all or nothing: [{id, type: 'static'|'kinematic'|'dynamic',
   * transform: {p: {x, y}, q: {c, s}}, velocity: {x, y}, angularVelocity,
   * shapes: [shape descriptions, see writeShapeDef]}].
   */
  addBodies(bodies) {
    this.a.call((s, err) => {
      const defs = s.alloc(BODY_DEF.size * bodies.length);
      bodies.forEach((b, i) => {
        const p = defs + BODY_DEF.size * i;
        this.m._arb_body_def_init(p);
        const shapes = s.alloc(SHAPE_DEF.size * b.shapes.length);
        b.shapes.forEach((desc, k) => this.a.writeShapeDef(s, err, shapes + SHAPE_DEF.size * k, desc));
        const dv = this.a.view();
        dv.setBigUint64(p, BigInt(b.id), true);
        this.a.setTransform(p + BODY_DEF.transform, b.transform ?? {});
        this.a.setVec(p + BODY_DEF.velocity, b.velocity ?? { x: 0n, y: 0n });
        dv.setBigInt64(p + BODY_DEF.angular, BigInt(b.angularVelocity ?? 0n), true);
        dv.setUint32(p + BODY_DEF.shapes, shapes, true);
        dv.setUint32(p + BODY_DEF.shapeCount, b.shapes.length, true);
        dv.setInt32(p + BODY_DEF.type, BODY_TYPES[b.type ?? 'static'] ?? -1, true);
        dv.setInt32(p + BODY_DEF.bullet, b.isBullet ? 1 : 0, true);
      });
      this.a.check(this.m._arb_world_add_bodies(this.handle, defs, bodies.length, err), err);
    });
  }
  removeBodies(ids) {
    this.a.call((s, err) => {
      const p = s.alloc(8 * ids.length);
      ids.forEach((id, i) => this.a.view().setBigUint64(p + 8 * i, BigInt(id), true));
      this.a.check(this.m._arb_world_remove_bodies(this.handle, p, ids.length, err), err);
    });
  }
  setTransform(id, transform) {
    this.a.call((s, err) => {
      const p = s.alloc(LAYOUT.transform);
      this.a.setTransform(p, transform);
      this.a.check(this.m._arb_world_set_transform(this.handle, BigInt(id), p, err), err);
    });
  }
  setVelocity(id, linear, angular = 0n) {
    this.a.call((s, err) => {
      const p = s.alloc(16);
      this.a.setVec(p, linear);
      this.a.check(this.m._arb_world_set_velocity(this.handle, BigInt(id), p, BigInt(angular), err), err);
    });
  }

  /** The closest hit of {origin, translation, maxFraction?}, or null. */
  castRayClosest(ray) {
    return this.a.call((s, err) => {
      const r = s.alloc(LAYOUT.ray);
      this.a.setVec(r, ray.origin);
      this.a.setVec(r + 16, ray.translation);
      this.a.view().setBigInt64(r + 32, BigInt(ray.maxFraction ?? RAW_ONE), true);
      const out = s.alloc(LAYOUT.castHit);
      const found = s.alloc(4);
      this.a.check(this.m._arb_world_cast_ray_closest(this.handle, r, 0, out, found, err), err);
      return this.a.view().getInt32(found, true) ? this.a.hit(out) : null;
    });
  }

  /** Shapes touching the box {lower, upper}, by (body id, shape index). */
  overlapAabb(box) {
    return this.a.call((s, err) => {
      const b = s.alloc(LAYOUT.aabb);
      this.a.setVec(b, box.lower);
      this.a.setVec(b + 16, box.upper);
      return this.list(s, err, LAYOUT.shapeRef, (out, capacity, count) =>
        this.m._arb_world_overlap_aabb(this.handle, b, 0, out, capacity, count, err), (p) => this.a.ref(p));
    });
  }

  /**
   * Each shape overlapping `shape` (a shape description, as in addBodies) placed at `transform`
   * ({p, q?}), with the way out: {bodyId, shapeIndex, userTag, normal (unit, from the query shape
   * towards the body), depth (>= 0), points (1 or 2, midway between the surfaces)}. Moving the
   * query shape by -normal * depth leaves it touching.
   */
  overlapShapeContacts(shape, transform) {
    return this.a.call((s, err) => {
      const sh = s.alloc(SHAPE_DEF.size);
      this.a.writeShapeDef(s, err, sh, shape);
      const xf = s.alloc(LAYOUT.transform);
      this.a.setTransform(xf, transform);
      return this.list(s, err, LAYOUT.overlapContact, (out, capacity, count) =>
        this.m._arb_world_overlap_shape_contacts(this.handle, sh, xf, 0, out, capacity, count, err), (p) => {
        const n = this.a.view().getInt32(p + LAYOUT.overlapContactPoints - 8, true);
        return {
          ...this.a.ref(p),
          userTag: this.a.u64(p + 16),
          normal: this.a.vec(p + LAYOUT.overlapContactNormal),
          depth: this.a.i64(p + LAYOUT.overlapContactDepth),
          points: Array.from({ length: n }, (_, i) => this.a.vec(p + LAYOUT.overlapContactPoints + 16 * i)),
        };
      });
    });
  }

  /**
   * The bodies within maxDistance (raw) of `shape` placed at `transform`, nearest first, each
   * once, at most maxResults (1..256): {bodyId, shapeIndex, userTag, distance (0 when
   * overlapping), pointQuery, pointBody, normal (unit, query towards body), depth (when
   * overlapping)}.
   */
  distance(shape, transform, maxDistance, maxResults = 1) {
    return this.a.call((s, err) => {
      const sh = s.alloc(SHAPE_DEF.size);
      this.a.writeShapeDef(s, err, sh, shape);
      const xf = s.alloc(LAYOUT.transform);
      this.a.setTransform(xf, transform);
      return this.list(s, err, LAYOUT.distanceHit, (out, capacity, count) =>
        this.m._arb_world_distance(this.handle, sh, xf, BigInt(maxDistance), maxResults, 0, out, capacity, count, err),
      (p) => ({
        ...this.a.ref(p),
        userTag: this.a.u64(p + 16),
        distance: this.a.i64(p + 24),
        pointQuery: this.a.vec(p + 32),
        pointBody: this.a.vec(p + 48),
        normal: this.a.vec(p + 64),
        depth: this.a.i64(p + 80),
      }));
    });
  }

  // A list the C interface writes into a caller's buffer: grown to the size
  // it asks for (ARB_BUFFER_TOO_SMALL) and read with `read(pointer)`.
  list(s, err, size, call, read) {
    const count = s.alloc(4);
    let capacity = 64;
    for (;;) {
      const out = s.alloc(size * capacity);
      const status = call(out, capacity, count);
      const n = this.a.view().getUint32(count, true);
      if (status === 100 && n > capacity) {
        capacity = n;
        continue;
      }
      this.a.check(status, err);
      return Array.from({ length: n }, (_, i) => read(out + size * i));
    }
  }
}
