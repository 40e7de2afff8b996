// The JavaScript wrapper (client/wasm/arbiter.mjs) under node: raw values
// exact, a world built and stepped through it, queries with exact answers,
// errors with the core's messages, snapshots that restore to the same hash.
//   node wrapper_test.mjs WASM_DIR
import assert from 'node:assert/strict';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const wasmDir = process.argv[2];
if (!wasmDir) {
  console.error('usage: node wrapper_test.mjs WASM_DIR');
  process.exit(2);
}
const { loadArbiter, RAW_ONE, ArbiterError } = await import(pathToFileURL(path.resolve(wasmDir, 'arbiter.mjs')).href);
const arbiter = await loadArbiter();

// Raw helpers: the server's Fixed::FromDouble, bit for bit.
assert.equal(arbiter.rawFromDouble(0.1), 429496730n);
assert.equal(arbiter.rawFromDouble(-2.5), -5n * RAW_ONE / 2n);
assert.equal(arbiter.rawFromDouble(2 ** -33), 1n);
assert.equal(arbiter.rawFromDouble(NaN), 0n);
assert.equal(arbiter.rawFromDouble(1e300), 2n ** 63n - 1n);
assert.equal(arbiter.rawFromInt(-3), -3n * RAW_ONE);
assert.equal(arbiter.rawFromRatio(1, 3), 1431655765n);
assert.equal(arbiter.rawToDouble(RAW_ONE / 4n), 0.25);
assert.deepEqual(arbiter.rotFromAngle(0n), { c: RAW_ONE, s: 0n });

// A ground box (top at y = 0) and a ball of radius 1/2 dropped from y = 2.
const world = arbiter.createWorld({ gravity: { x: 0n, y: -10n * RAW_ONE }, tickHz: 60 });
world.addBodies([
  { id: 1n, transform: { p: { x: 0n, y: -RAW_ONE } }, shapes: [{ box: { halfWidth: 20n * RAW_ONE, halfHeight: RAW_ONE }, userTag: 7n }] },
  { id: 2n, type: 'dynamic', transform: { p: { x: 0n, y: 2n * RAW_ONE } }, shapes: [{ circle: { radius: RAW_ONE / 2n } }] },
]);
assert.equal(world.bodyCount(), 2);

// All or nothing, with the core's message.
assert.throws(
  () => world.addBodies([{ id: 3n, shapes: [{ box: { halfWidth: 0n, halfHeight: RAW_ONE } }] }]),
  (e) => e instanceof ArbiterError && e.codeName === 'INVALID_ARGUMENT' && /half extent must be positive/.test(e.message),
);
assert.throws(
  () => world.addBodies([{ id: 2n, shapes: [{ circle: { radius: RAW_ONE } }] }]),
  (e) => e.codeName === 'ALREADY_EXISTS',
);
assert.throws(() => world.setVelocity(1n, { x: RAW_ONE, y: 0n }), (e) => e.codeName === 'FAILED_PRECONDITION');
assert.equal(world.bodyCount(), 2);

let begins = 0;
for (let i = 0; i < 90; ++i) {
  const events = world.step();
  assert.equal(events.tick, i + 1);
  for (const c of events.contactBegin) {
    assert.equal(c.a.bodyId, 1n);
    assert.equal(c.b.bodyId, 2n);
    assert.equal(c.normal.y, RAW_ONE);
    assert.equal(c.userTagA, 7n);  // the ground's shape
    assert.equal(c.userTagB, 0n);
    ++begins;
  }
}
assert.equal(begins, 1);

// The ray from y = 5 straight down meets the ground's top at exactly half
// its length once the ball is moved away.
world.setTransform(2n, { p: { x: 10n * RAW_ONE, y: 5n * RAW_ONE } });
const hit = world.castRayClosest({ origin: { x: 0n, y: 5n * RAW_ONE }, translation: { x: 0n, y: -10n * RAW_ONE } });
assert.equal(hit.bodyId, 1n);
assert.equal(hit.userTag, 7n);
assert.equal(hit.fraction, RAW_ONE / 2n);
assert.deepEqual(hit.point, { x: 0n, y: 0n });
assert.deepEqual(hit.normal, { x: 0n, y: RAW_ONE });
assert.equal(world.castRayClosest({ origin: { x: 0n, y: 50n * RAW_ONE }, translation: { x: RAW_ONE, y: 0n } }), null);
assert.throws(
  () => world.castRayClosest({ origin: { x: 2n ** 62n, y: 0n }, translation: { x: RAW_ONE, y: 0n } }),
  (e) => e.codeName === 'OUT_OF_RANGE' && /ray\.origin/.test(e.message),
);
const refs = world.overlapAabb({ lower: { x: -RAW_ONE, y: -RAW_ONE }, upper: { x: 11n * RAW_ONE, y: 6n * RAW_ONE } });
assert.deepEqual(refs.map((r) => r.bodyId), [1n, 2n]);

// A disk sunk 1/2 into the ground's top: the way out is straight up; the
// ground is the nearest body to a disk above it, 2 units away.
const [contact] = world.overlapShapeContacts({ circle: { radius: RAW_ONE } }, { p: { x: 0n, y: RAW_ONE / 2n } });
assert.equal(contact.bodyId, 1n);
assert.equal(contact.userTag, 7n);
assert.deepEqual(contact.normal, { x: 0n, y: -RAW_ONE });
assert.equal(contact.depth, RAW_ONE / 2n);
assert.deepEqual(contact.points, [{ x: 0n, y: -RAW_ONE / 4n }]);
const near = world.distance({ circle: { radius: RAW_ONE } }, { p: { x: 0n, y: 3n * RAW_ONE } }, 20n * RAW_ONE, 4);
assert.deepEqual(near.map((h) => h.bodyId), [1n, 2n]);  // the ball at (10, 5) is sqrt(104) - 1.5 away
assert.equal(near[0].distance, 2n * RAW_ONE);
assert.deepEqual(near[0].pointBody, { x: 0n, y: 0n });
assert.throws(() => world.distance({ circle: { radius: RAW_ONE } }, { p: { x: 0n, y: 0n } }, -1n, 1),
  (e) => e.codeName === 'OUT_OF_RANGE' && /max_distance/.test(e.message));

// A snapshot restores to the same hash, and both copies stay equal.
const bytes = world.snapshot();
const copy = arbiter.restoreWorld(bytes);
assert.equal(copy.stateHash(), world.stateHash());
for (let i = 0; i < 30; ++i) {
  world.step();
  copy.step();
  assert.equal(copy.stateHash(), world.stateHash());
}
bytes[0] ^= 0xff;
assert.throws(() => arbiter.restoreWorld(bytes), (e) => e.codeName === 'INVALID_ARGUMENT' && /snapshot/.test(e.message));
copy.destroy();
world.destroy();
console.log('wrapper_test: every check passed');
