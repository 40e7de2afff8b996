// Message builders from world units (numbers), converted with fromUnits.

import { fromUnits } from './units.js';

export function vec2(x, y, field = 'vec') {
  return { x: fromUnits(x, `${field}.x`), y: fromUnits(y, `${field}.y`) };
}

export function circle(radius, [cx, cy] = [0, 0]) {
  return { circle: { center: vec2(cx, cy, 'circle.center'), radius: fromUnits(radius, 'circle.radius') } };
}

export function box(halfWidth, halfHeight, [cx, cy] = [0, 0]) {
  return { box: { half_extents: vec2(halfWidth, halfHeight, 'box.half_extents'), center: vec2(cx, cy, 'box.center') } };
}

export function polygon(points, radius = 0) {
  return {
    polygon: { points: points.map(([x, y], i) => vec2(x, y, `polygon.points[${i}]`)), radius: fromUnits(radius, 'polygon.radius') },
  };
}

export function capsule([x1, y1], [x2, y2], radius) {
  return {
    capsule: { center1: vec2(x1, y1, 'capsule.center1'), center2: vec2(x2, y2, 'capsule.center2'), radius: fromUnits(radius, 'capsule.radius') },
  };
}

export function segment([x1, y1], [x2, y2]) {
  return { segment: { point1: vec2(x1, y1, 'segment.point1'), point2: vec2(x2, y2, 'segment.point2') } };
}

/**
 * A one-sided chain through points [[x, y], ...] (body frame): it collides only from the right of
 * each segment (a counter-clockwise loop faces outward). The server expands it into one chain
 * segment per edge, each its own shape index. Only static and kinematic bodies may hold chains.
 */
export function chain(points, loop = false) {
  return { chain: { points: points.map(([x, y], i) => vec2(x, y, `chain.points[${i}]`)), loop } };
}

/** A BodyDef: type 'static' | 'kinematic' | 'dynamic', at [x, y], with shapes. */
export function body(id, type, [x, y], shapes, extra = {}) {
  return {
    id: BigInt(id),
    type: `BODY_TYPE_${type.toUpperCase()}`,
    transform: { position: vec2(x, y, 'transform.position') },
    shapes: shapes.map((shape) => ('shape' in shape ? shape : { shape })),
    ...extra,
  };
}

export function ray([ox, oy], [tx, ty]) {
  return { origin: vec2(ox, oy, 'ray.origin'), translation: vec2(tx, ty, 'ray.translation') };
}

/** A ShapeMove: `shape` placed at [x, y] tries to move by [tx, ty] (units) and slide. */
export function shapeMove(shape, [x, y], [tx, ty]) {
  return { shape, transform: { position: vec2(x, y, 'transform.position') }, translation: vec2(tx, ty, 'translation') };
}

/** A ShapeQuery: `shape` placed at [x, y] (Overlap's { shape } kind, DistanceQuery.shape). */
export function shapeQuery(shape, [x, y] = [0, 0]) {
  return { shape, transform: { position: vec2(x, y, 'transform.position') } };
}

/**
 * A DistanceQuery: the bodies within `maxDistance` units of `shape` placed at [x, y], nearest first,
 * at most `maxResults` (1..256).
 */
export function distanceQuery(shape, [x, y], maxDistance, maxResults = 1) {
  return { shape: shapeQuery(shape, [x, y]), max_distance: fromUnits(maxDistance, 'max_distance'), max_results: maxResults };
}

/** A MoveClaim: body `bodyId` (its shape `shapeIndex`) claims to be at `positions` ([x, y] units) at tick + 1, tick + 2, ... */
export function moveClaim(bodyId, tick, positions, shapeIndex = 0) {
  return {
    body_id: BigInt(bodyId), shape_index: shapeIndex, tick: BigInt(tick),
    positions: positions.map(([x, y], i) => vec2(x, y, `positions[${i}]`)),
  };
}

/**
 * A Shot for validateShots: fired by `shooterBodyId` at `fire` (a tick, or [tick, fraction]) from [x, y]
 * at [vx, vy] units/s, claimed to hit `targetBodyId` at `impactTick`. `options`: flightTicks (default 60),
 * acceleration [ax, ay] units/s^2, radius (units; 0: a point), impactPoint [x, y].
 */
export function shot(shooterBodyId, shotId, fire, [x, y], [vx, vy], targetBodyId, impactTick, options = {}) {
  const [tick, fraction] = Array.isArray(fire) ? fire : [fire, 0];
  const s = {
    shooter_body_id: BigInt(shooterBodyId), shot_id: BigInt(shotId),
    fire: { tick: BigInt(tick), fraction: fromUnits(fraction, 'fire.fraction') },
    origin: vec2(x, y, 'origin'), velocity: vec2(vx, vy, 'velocity'),
    radius: fromUnits(options.radius ?? 0, 'radius'), flight_ticks: options.flightTicks ?? 60,
    target_body_id: BigInt(targetBodyId), impact_tick: BigInt(impactTick),
  };
  if (options.acceleration) s.acceleration = vec2(options.acceleration[0], options.acceleration[1], 'acceleration');
  if (options.impactPoint) s.impact_point = vec2(options.impactPoint[0], options.impactPoint[1], 'impact_point');
  return s;
}
