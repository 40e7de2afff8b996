// Every RPC through ArbiterClient against a live server (--max_batch=100).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { ArbiterClient, ArbiterError, body, box, circle, fromUnits, ray, toUnits, vec2 } from '../index.js';
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
