// Every RPC through ArbiterClient against a live server (--max_batch=100).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';

import {
  ArbiterClient, ArbiterError, body, box, chain, circle, distanceQuery, fromUnits, moveClaim, ray, shapeMove, shapeQuery, shot, toUnits,
  vec2,
} from '../index.js';
import { startServer } from './server.js';

let server;
let client;
let next = 0;
const worldId = () => `node-${next++}`;

before(async () => {
  server = await startServer('--max_batch=100');
  client = await ArbiterClient.connect(server.address);
});
after(() => {
  client?.close();
  server?.stop();
});

async function smallWorld(id) {
  return client.createWorld({
    world_id: id, gravity: vec2(0, -10), bodies: [
      body(1, 'static', [0, -1], [box(40, 1)]),
      body(2, 'dynamic', [0, 5], [box(1, 1)]),
      body(3, 'dynamic', [5, 8], [circle(0.5)]),
    ],
  });
}

test('GetServerInfo reports the flags, and the client sizes batches by it', async () => {
  const info = await client.getServerInfo();
  assert.equal(info.limits.max_batch, 100);
  assert.equal(client.maxBatch, 100);
  assert.equal(info.limits.max_message_bytes, 64n << 20n);
  assert.equal(info.features.auth_required, false);
  assert.match(info.version, /^\d+\.\d+\.\d+$/);
});

test('a plain number as a raw value is refused before anything is sent', async () => {
  const id = worldId();
  await client.createWorld({ world_id: id });
  const bad = { id: 1n, type: 'BODY_TYPE_STATIC', shapes: [{ shape: { circle: { radius: 1.5 } } }] };
  await assert.rejects(client.addBodies({ world_id: id, bodies: [bad] }),
    (e) => e instanceof TypeError && e.message.startsWith('bodies[0].shapes[0].shape.circle.radius:'));
  await assert.rejects(client.addBodies({ world_id: id, bodies: [{ id: 1n, radius: 1n }] }),
    (e) => e instanceof TypeError && /no field 'radius'/.test(e.message));
  assert.equal((await client.describeWorld({ world_id: id })).world.body_count, 0n);
});

test('worlds: create, list, describe, delete; errors carry code and field', async () => {
  const id = worldId();
  const created = await smallWorld(id);
  assert.equal(created.world.body_count, 3n);
  assert.equal(toUnits(created.world.gravity.y), -10);
  assert.ok((await client.listWorlds()).worlds.some((w) => w.world_id === id));
  const described = await client.describeWorld({ world_id: id, include_bodies: true });
  assert.deepEqual(described.bodies.map((b) => b.id), [1n, 2n, 3n]);
  assert.equal(described.bodies[2].transform.position.x, fromUnits(5));
  await assert.rejects(client.addBodies({ world_id: id, bodies: [body(2, 'static', [0, 0], [circle(1)])] }),
    (e) => e instanceof ArbiterError && e.codeName === 'ALREADY_EXISTS' && e.field !== null);
  await assert.rejects(client.castRays({ world_id: id, mode: 'CAST_MODE_CLOSEST', rays: [{ origin: { x: 1n << 62n }, translation: { y: 1n } }] }),
    (e) => e.codeName === 'OUT_OF_RANGE' && e.field.startsWith('rays[0]'));
  assert.equal((await client.deleteWorld({ world_id: id })).tick, 0n);
  await assert.rejects(client.describeWorld({ world_id: id }), (e) => e.codeName === 'NOT_FOUND');
});

test('chains: expanded into one-sided segments, refused on a dynamic body', async () => {
  const id = worldId();
  const floor = [[10, 0], [5, 1], [0, 0], [-5, 1], [-10, 0]]; // right to left: faces up
  await client.createWorld({ world_id: id, bodies: [body(1, 'static', [0, 0], [circle(0.5, [0, 5]), chain(floor)])] });
  const described = await client.describeWorld({ world_id: id, include_bodies: true });
  assert.equal(described.bodies[0].shape_count, 5); // the circle and 4 chain segments
  const answer = await client.castRays({ world_id: id, mode: 'CAST_MODE_CLOSEST', rays: [ray([-2.5, 3], [0, -6]), ray([-2.5, -3], [0, 6])] });
  assert.equal(answer.results[0].hits[0].shape_index, 3);
  assert.equal(answer.results[1].hits.length, 0);
  await assert.rejects(client.addBodies({ world_id: id, bodies: [body(2, 'dynamic', [0, 9], [chain(floor, true)])] }),
    (e) => e instanceof ArbiterError && e.codeName === 'INVALID_ARGUMENT' && e.message.includes('a chain has no mass'));
});

test('bodies and rays past max_batch are split, answers in request order', async () => {
  const id = worldId();
  await client.createWorld({ world_id: id });
  const bodies = Array.from({ length: 250 }, (_, i) => body(100 + i, 'static', [i * 4, 0], [circle(1)]));
  assert.equal((await client.addBodies({ world_id: id, bodies })).body_count, 250n);
  const rays = Array.from({ length: 250 }, (_, i) => ray([i * 4, 10], [0, -20]));
  const answer = await client.castRays({ world_id: id, mode: 'CAST_MODE_CLOSEST', rays });
  assert.equal(answer.results.length, 250);
  answer.results.forEach((r, i) => {
    assert.equal(r.hits[0].body_id, BigInt(100 + i));
    assert.ok(Math.abs(toUnits(r.hits[0].point.y) - 1) < 1e-6);
  });
  assert.equal((await client.removeBodies({ world_id: id, body_ids: bodies.map((b) => b.id).slice(0, 120) })).body_count, 130n);
  await client.updateBodies({ world_id: id, updates: [{ body_id: 240n, transform: { position: vec2(1000, 1000) } }] });
  const overlap = await client.overlap({ world_id: id, queries: [{ point: vec2(1000, 1000) }] });
  assert.deepEqual(overlap.results[0].shapes.map((s) => s.body_id), [240n]);
  const sweep = await client.castShapes({
    world_id: id, mode: 'CAST_MODE_CLOSEST', casts: [{ shape: circle(0.5), transform: { position: vec2(1000, 1010) }, translation: vec2(0, -20) }],
  });
  assert.equal(sweep.results[0].hits[0].body_id, 240n);
});

test('step, watch, hashes, snapshot, restore, report', async () => {
  const id = worldId();
  await smallWorld(id);
  const watch = client.watchEvents({ world_id: id });
  // The server subscribes the stream at some point after the call starts:
  // step single ticks until the first event shows it is subscribed.
  const first = watch.next();
  let subscribed = null;
  for (let i = 0; i < 1000 && !subscribed; i++) {
    await client.step({ world_id: id, ticks: 1, omit_events: true });
    subscribed = await Promise.race([first, new Promise((resolve) => setTimeout(() => resolve(null), 10))]);
  }
  assert.ok(subscribed, 'the watch never delivered an event');
  const start = (await client.describeWorld({ world_id: id })).world.tick;
  const stepped = await client.step({ world_id: id, ticks: 120, hash_every_tick: true });
  assert.equal(stepped.tick, start + 120n);
  const seen = [subscribed.value];
  for await (const events of watch) {
    seen.push(events);
    if (events.tick === stepped.tick) break;
  }
  watch.cancel();
  assert.deepEqual(seen.map((e) => e.tick), Array.from({ length: seen.length }, (_, i) => seen[0].tick + BigInt(i)));
  assert.deepEqual(seen.slice(-120), stepped.ticks);  // the watch saw what the step returned
  const hash = await client.getStateHash({ world_id: id });
  assert.equal(hash.state_hash, stepped.state_hash);
  const report = await client.reportHashes({ world_id: id, first_tick: start + 1n, state_hashes: stepped.ticks.map((t) => t.state_hash) });
  assert.equal(report.in_sync, true);
  const snapshot = await client.getSnapshot({ world_id: id });
  await client.step({ world_id: id, ticks: 5, omit_events: true });
  const restored = await client.restore({ world_id: id, snapshot: snapshot.snapshot, expected_tick: stepped.tick + 5n });
  assert.equal(restored.world.tick, stepped.tick);
  assert.equal(restored.world.state_hash, stepped.state_hash);
});

test('past ticks and ValidateHit', async () => {
  const id = worldId();
  await client.createWorld({
    world_id: id, bodies: [
      body(1, 'kinematic', [0, 0], [circle(1)], { linear_velocity: vec2(60, 0) }),
      body(2, 'static', [-20, 0], [circle(1)]),
    ],
  });
  await client.step({ world_id: id, ticks: 10 });
  const past = await client.castRays({ world_id: id, mode: 'CAST_MODE_CLOSEST', rays: [ray([0, 10], [0, -20])], at: { tick: 0n } });
  assert.equal(past.results[0].hits[0].body_id, 1n);
  const half = await client.castRays({
    world_id: id, mode: 'CAST_MODE_ANY', rays: [ray([5.2, 10], [0, -20])], at: { tick: 4n, fraction: fromUnits(0.5) },
  });
  assert.equal(half.results[0].hit, true);
  assert.equal(half.tick_fraction, fromUnits(0.5));
  const verdict = await client.validateHit({ world_id: id, shooter_body_id: 2n, target_body_id: 1n, ray: ray([-18, 0], [20, 0]), at: { tick: 0n } });
  assert.equal(verdict.verdict, 'HIT_VERDICT_CONFIRMED');
});

// As tests/server/move_service_test.cc: at 60 Hz, player 1 a kinematic disk
// of radius 0.5 at the origin, wall 2 a static box whose left face is at
// x = 5 (y in -10..10); stepped to tick 60.
async function moveWorld(id) {
  await client.createWorld({
    world_id: id, tick_hz: 60, history_ticks: 120,
    bodies: [body(1, 'kinematic', [0, 0], [circle(0.5)]), body(2, 'static', [6, 0], [box(1, 10)])],
  });
  await client.step({ world_id: id, ticks: 60, omit_events: true });
}
const claimed = (x0, y0, dx, dy, count) => Array.from({ length: count }, (_, i) => [x0 + dx * (i + 1), y0 + dy * (i + 1)]);
const U = (n) => BigInt(n) << 32n;  // whole units, raw

test('ValidateMove: VALID, CORRECTED at the wall, REJECTED for speed, with exact raw evidence', async () => {
  const id = worldId();
  await moveWorld(id);
  const fast = [[-1, 0], [-8, 0], [-9, 0]];  // 7 units into tick 12
  const reply = await client.validateMove({
    world_id: id, max_speed: fromUnits(300), tolerance: fromUnits(0.01),  // 5 units a tick
    claims: [moveClaim(1, 10, claimed(0, 0, -1, 0.5, 8)), moveClaim(1, 10, claimed(0, 0, 2, 0, 5)), moveClaim(1n, 10n, fast)],
  });
  assert.equal(reply.tick, 60n);
  const [valid, corrected, rejected] = reply.judgements;

  assert.equal(valid.verdict, 'MOVE_VERDICT_VALID');
  assert.equal(valid.body_id, 1n);
  assert.equal(valid.judged_tick, 18n);
  assert.deepEqual(valid.accepted_position, { x: U(-8), y: U(4) });
  assert.deepEqual(valid.claimed_position, valid.accepted_position);
  assert.deepEqual(valid.planes, []);

  // Move-and-slide stops the disk skin-clear (1/64) of the face: x = 4.484375.
  assert.equal(corrected.verdict, 'MOVE_VERDICT_CORRECTED');
  assert.equal(corrected.judged_tick, 13n);
  assert.deepEqual(corrected.accepted_position, { x: 287n << 26n, y: 0n });
  assert.equal(corrected.accepted_position.x, fromUnits(4.5 - 1 / 64));
  assert.equal(toUnits(corrected.accepted_position.x), 4.484375);
  assert.deepEqual(corrected.claimed_position, { x: U(6), y: 0n });
  assert.equal(corrected.blocked, true);
  assert.equal(corrected.planes.length, 1);
  const wall = corrected.planes[0];
  assert.equal(wall.body_id, 2n);
  assert.equal(wall.shape_index, 0);
  assert.equal(wall.pushed_out, false);
  assert.deepEqual(wall.normal, { x: U(-1), y: 0n });
  assert.equal(wall.point.x, U(5));
  assert.match(corrected.reason, /tick 13.*met body 2/);

  assert.equal(rejected.verdict, 'MOVE_VERDICT_REJECTED');
  assert.equal(rejected.judged_tick, 12n);
  assert.equal(rejected.step_length, U(7));
  assert.equal(rejected.max_step, U(5));
  assert.deepEqual(rejected.accepted_position, { x: U(-1), y: 0n });  // the last accepted claim
  assert.deepEqual(rejected.claimed_position, { x: U(-8), y: 0n });
  assert.match(rejected.reason, /7\.000 units.*5\.000/);

  // The same path at 420 units/s (7 a tick) is valid.
  const faster = await client.validateMove({ world_id: id, max_speed: fromUnits(420), claims: [moveClaim(1, 10, fast)] });
  assert.equal(faster.judgements[0].verdict, 'MOVE_VERDICT_VALID');
});

test('ValidateShots: a rocket CONFIRMED through the history, MISSED fired now, once per shot, TOO_OLD past the cap', async () => {
  const id = worldId();
  await client.createWorld({
    world_id: id, tick_hz: 60, history_ticks: 120,
    bodies: [body(1, 'kinematic', [0, 0], [circle(0.5)]),
      body(2, 'kinematic', [10, -1], [circle(0.5)], { linear_velocity: vec2(0, 6, 'v') })],
  });
  await client.step({ world_id: id, ticks: 60, omit_events: true });
  const rocket = (shotId, tick, impact) => shot(1, shotId, tick, [0, 0], [120, 0], 2, impact, { flightTicks: 30 });
  const reply = await client.validateShots({ world_id: id, shots: [rocket(1, 10, 14), rocket(2, 60, 64)] });
  assert.equal(reply.tick, 60n);
  const [hit, missed] = reply.judgements;
  assert.equal(hit.verdict, 'SHOT_VERDICT_CONFIRMED');
  assert.equal(hit.duplicate, false);
  assert.equal(hit.hit.body_id, 2n);
  assert.equal(hit.impact.tick, 14n);
  assert.ok(Math.abs(toUnits(hit.impact.fraction) - 0.85) < 1e-6);
  assert.equal(hit.ticks_traced, 5);
  assert.equal(missed.verdict, 'SHOT_VERDICT_MISSED');
  assert.equal(missed.end, 'FLIGHT_END_CURRENT_TICK');
  assert.deepEqual(missed.end_position, { x: U(2), y: 0n });
  const again = await client.validateShots({ world_id: id, shots: [rocket(1, 10, 99)] });
  assert.equal(again.judgements[0].duplicate, true);
  assert.equal(again.judgements[0].verdict, 'SHOT_VERDICT_CONFIRMED');
  const capped = await client.validateShots({ world_id: id, shots: [rocket(3, 10, 14)], max_rewind_ticks: 20 });
  assert.equal(capped.judgements[0].verdict, 'SHOT_VERDICT_TOO_OLD');
  assert.equal(capped.judgements[0].oldest_allowed_tick, 40n);
  await assert.rejects(client.validateShots({ world_id: id, shots: [rocket(4, 61, 64)] }),
    (e) => e instanceof ArbiterError && e.codeName === 'OUT_OF_RANGE' && e.field === 'shots[0].fire.tick');
});

test('ValidateMove: split by max_batch over claims and positions, raw fields BigInt only, errors name the field', async () => {
  const id = worldId();
  await moveWorld(id);
  // 3 claims of 40 positions: 120 steps, past the server's 100 together.
  const claims = [moveClaim(1, 10, claimed(0, 0, -1, 0, 40)), moveClaim(1, 10, claimed(0, 0, 0.1, 0, 40)), moveClaim(1, 15, claimed(0, 0, 0, 1, 40))];
  const rules = { world_id: id, max_speed: fromUnits(300) };
  const together = await client.validateMove({ ...rules, claims });
  const alone = [];
  for (const claim of claims) alone.push((await client.validateMove({ ...rules, claims: [claim] })).judgements[0]);
  assert.deepEqual(together.judgements, alone);
  assert.deepEqual(alone.map((j) => j.verdict), ['MOVE_VERDICT_VALID', 'MOVE_VERDICT_VALID', 'MOVE_VERDICT_VALID']);
  assert.equal(alone[1].accepted_position.x, fromUnits(0.1 * 40));
  await assert.rejects(client.validateMove({ ...rules, claims: [moveClaim(1, 0, claimed(0, 0, 0, 0, 101))] }),
    (e) => e instanceof ArbiterError && e.codeName === 'RESOURCE_EXHAUSTED' && e.field === 'claims[0].positions');

  // Refused before anything is sent: plain numbers where raw values go, in any part of a split request.
  await assert.rejects(client.validateMove({ world_id: id, max_speed: 300, claims: [moveClaim(1, 10, [[0, 0]])] }),
    (e) => e instanceof TypeError && e.message.startsWith('max_speed:'));
  const bad = { body_id: 1n, tick: 10n, positions: [{ x: 0n, y: 0.5 }] };
  await assert.rejects(client.validateMove({ ...rules, claims: [...claims, bad] }),
    (e) => e instanceof TypeError && e.message.startsWith('claims[3].positions[0].y:'));
  await assert.rejects(client.validateMove({ ...rules, claims: [{ ...moveClaim(1, 10, [[0, 0]]), speed: 1n }] }),
    (e) => e instanceof TypeError && /no field 'speed'/.test(e.message));

  await assert.rejects(client.validateMove({ ...rules, claims: [moveClaim(99, 10, [[0, 0]])] }),
    (e) => e.codeName === 'NOT_FOUND' && e.field === 'claims[0].body_id');
  await assert.rejects(client.validateMove({ ...rules, skin: fromUnits(2), claims: [moveClaim(1, 10, [[0, 0]])] }),
    (e) => e.codeName === 'OUT_OF_RANGE' && e.field === 'skin');
});

test('MoveShapes: stops skin-clear, slides, splits by max_batch, errors name the field', async () => {
  const id = worldId();
  await moveWorld(id);
  const disk = circle(0.5);
  const reply = await client.moveShapes({
    world_id: id,
    moves: [shapeMove(disk, [0, -5], [10, 0]), shapeMove(disk, [0, -5], [10, 4]), shapeMove(disk, [-10, -5], [-3, 1])],
  });
  assert.equal(reply.tick, 60n);
  const [headOn, slid, clear] = reply.results;
  assert.equal(headOn.blocked, true);
  // 4.484375 = 4.5 - 1/64: skin-clear of the face, to within the cast's rounding (a few raw units).
  const skinClear = (x) => x >= (287n << 26n) - 8n && x <= (287n << 26n) + 8n;
  assert.ok(skinClear(headOn.position.x));
  assert.equal(headOn.position.y, U(-5));
  assert.deepEqual(headOn.planes.map((p) => [p.body_id, p.normal]), [[2n, { x: U(-1), y: 0n }]]);
  assert.equal(slid.blocked, false);
  assert.ok(skinClear(slid.position.x));
  assert.equal(slid.position.y, U(-1));
  assert.equal(slid.iterations, 2);
  assert.deepEqual(clear.position, { x: U(-13), y: U(-4) });
  assert.equal(clear.fraction, U(1));
  const many = await client.moveShapes({
    world_id: id, moves: Array.from({ length: 150 }, (_, i) => shapeMove(disk, [0, -5 + i / 16], [10, 0])),
  });
  assert.equal(many.results.length, 150);
  assert.ok(many.results.every((r) => r.blocked && skinClear(r.position.x)));
  await assert.rejects(client.moveShapes({ world_id: id, moves: [shapeMove(disk, [0, 0], [2 ** 28 + 1, 0])] }),
    (e) => e.codeName === 'OUT_OF_RANGE' && e.field === 'moves[0].translation');
  await assert.rejects(client.moveShapes({ world_id: id, skin: fromUnits(2), moves: [shapeMove(disk, [0, 0], [1, 0])] }),
    (e) => e.codeName === 'OUT_OF_RANGE' && e.field === 'skin');
});

test('Overlap with contacts and Distance', async () => {
  const id = worldId();
  await client.createWorld({ world_id: id, bodies: [body(7, 'static', [0, 0], [box(2, 1)]), body(9, 'static', [10, 0], [circle(1)])] });
  const overlap = await client.overlap({ world_id: id, want_contacts: true, queries: [{ shape: shapeQuery(circle(1), [0, 1.5]) }] });
  const [{ shapes, contacts }] = overlap.results;
  assert.deepEqual(shapes.map((s) => s.body_id), [7n]);
  assert.deepEqual(contacts[0].normal, { x: 0n, y: U(-1) });
  assert.equal(contacts[0].depth, U(1) / 2n);
  assert.deepEqual(contacts[0].points, [{ x: 0n, y: U(3) / 4n }]);
  await assert.rejects(client.overlap({ world_id: id, want_contacts: true, queries: [{ point: vec2(0, 0) }] }),
    (e) => e.codeName === 'INVALID_ARGUMENT' && e.field === 'queries[0]');
  const near = await client.distance({
    world_id: id, queries: [distanceQuery(circle(1), [6, 0], 10, 5), distanceQuery(circle(1), [0, 1.5], 0)],
  });
  assert.deepEqual(near.results[0].hits.map((h) => [h.body_id, h.distance]), [[9n, U(2)], [7n, U(3)]]);
  assert.deepEqual(near.results[0].hits[0].point_body, { x: U(9), y: 0n });
  assert.equal(near.results[1].hits[0].distance, 0n);
  assert.equal(near.results[1].hits[0].depth, U(1) / 2n);
  await assert.rejects(client.distance({ world_id: id, queries: [distanceQuery(circle(1), [0, 0], 1, 300)] }),
    (e) => e.codeName === 'OUT_OF_RANGE' && e.field === 'queries[0].max_results');
});

test('QueryStream answers each request in order', async () => {
  const id = worldId();
  await smallWorld(id);
  const stream = client.queryStream();
  [0, 5, 30].forEach((x, i) => stream.write({ world_id: id, mode: 'CAST_MODE_CLOSEST', request_tag: BigInt(i), rays: [ray([x, 20], [0, -40])] }));
  stream.end();
  const replies = [];
  for await (const reply of stream) replies.push(reply);
  assert.deepEqual(replies.map((r) => r.request_tag), [0n, 1n, 2n]);
  assert.deepEqual(replies.map((r) => r.results[0].hits[0].body_id), [2n, 3n, 1n]);
});

test('ExportJournal from a journaled server', async (t) => {
  let journaled;
  const dir = mkdtempSync(path.join(tmpdir(), 'arbiter-node-'));
  journaled = await startServer(`--data_dir=${dir}`, '--journal_sync=off');
  const c = await ArbiterClient.connect(journaled.address);
  t.after(() => {
    c.close();
    journaled.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  assert.equal(c.info.features.journal, true);
  await c.createWorld({ world_id: 'j', bodies: [body(1, 'dynamic', [0, 0], [circle(1)])] });
  await c.step({ world_id: 'j', ticks: 3 });
  const file = await c.exportJournal({ world_id: 'j' });
  assert.ok(file.length > 100);
  await assert.rejects(c.exportJournal({ world_id: 'nope' }), (e) => e.codeName === 'NOT_FOUND');
});
