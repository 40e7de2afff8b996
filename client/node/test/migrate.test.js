// Moving a world between two real arbiter-server processes, each with its
// own journal (freezeWorld, importWorld, fleet.js migrateWorld; the C++ side
// is tests/server/migration_test.cc): the move keeps the tick, the state
// hash and the history (past-tick answers); the source refuses writes while
// frozen and answers "moved to" afterwards; every failed move leaves the
// world serving (thawed) on the source; only admins may freeze or import.
// Durable moves (docs/fleet.md "Durable moves"): a source restarted after the
// destination's import comes back frozen, thawWorld refuses to thaw it and
// resumeMigration finishes the move; an import whose reply was lost goes on,
// one that never arrived leaves the source frozen for resumeMigration or
// thawWorld; a write naming a stale epoch is refused.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';

import * as grpc from '@grpc/grpc-js';

import {
  ArbiterClient, ArbiterError, body, box, circle, migrateWorld, ray, resumeMigration, thawWorld, vec2,
} from '../index.js';
import { deadAddress, startServer } from './server.js';

const root = mkdtempSync(path.join(tmpdir(), 'arbiter-node-migrate-'));
const cleanups = [];
after(() => {
  for (const cleanup of cleanups.reverse()) cleanup();
  rmSync(root, { recursive: true, force: true });
});

let journals = 0;
/** A server with its own journal (or `dataDir`'s, another's stopped), stopped at the end. */
async function journaled(...flags) {
  return journaledIn(path.join(root, `journal-${journals++}`), ...flags);
}
async function journaledIn(dataDir, ...flags) {
  const s = await startServer(`--data_dir=${dataDir}`, '--journal_sync=off', '--snapshot_every_ticks=16', ...flags);
  cleanups.push(s.stop);
  return { ...s, dataDir };
}

async function connect(address, options) {
  const c = await ArbiterClient.connect(address, options);
  cleanups.push(() => c.close());
  return c;
}

const RAYS = Array.from({ length: 9 }, (_, i) => ray([-12 + 3 * i, 30], [0.25 * i, -40]));
const castAt = (c, world_id, tick) => c.castRays({ world_id, mode: 'CAST_MODE_ALL', rays: RAYS, at: { tick } });

/** A falling pile on a floor, stepped `ticks` ticks with a change midway; its { tick, state_hash }. */
async function makeWorld(c, world_id, ticks = 60) {
  await c.createWorld({
    world_id, gravity: vec2(0, -10), history_ticks: 40,
    bodies: [body(1, 'static', [0, -1], [box(20, 1)]),
      ...Array.from({ length: 8 }, (_, i) => body(2 + i, 'dynamic', [-8 + 2 * i, 4 + i], [circle(0.5 + 0.1 * i)]))],
  });
  await c.step({ world_id, ticks: Math.floor(ticks / 2) });
  await c.updateBodies({ world_id, updates: [{ body_id: 3, velocity: { linear: vec2(4, 6) } }] });
  await c.step({ world_id, ticks: ticks - Math.floor(ticks / 2) });
  return c.getStateHash({ world_id });
}

async function refusal(promise) {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof ArbiterError, String(error));
    return error;
  }
  assert.fail('the call succeeded');
}

test('migrateWorld keeps the tick, hash and history, and the source says where it went', async () => {
  const a = await journaled();
  const b = await journaled();
  const source = await connect(a.address);
  const destination = await connect(b.address);
  const before = await makeWorld(source, 'match');
  const past = new Map();
  for (let t = before.tick - 39n; t <= before.tick; t += 3n) past.set(t, await castAt(source, 'match', t));
  assert.ok([...past.values()].some((answer) => answer.results.some((r) => r.hit)));

  const report = await migrateWorld(source, destination, 'match');

  assert.deepEqual([report.tick, report.state_hash], [before.tick, before.state_hash]);
  assert.equal(report.warning, '');
  assert.ok(report.records > 0n && report.export_bytes > 0);
  assert.ok(report.import_ms > 0 && report.import_ms <= report.write_refusal_ms);
  assert.ok(report.export_ms > 0 && report.export_ms <= report.write_refusal_ms);
  assert.deepEqual(await destination.getStateHash({ world_id: 'match' }), before);
  for (const [tick, answer] of past) assert.deepEqual(await castAt(destination, 'match', tick), answer, `tick ${tick}`);
  // The source keeps a tombstone: reads and writes get the retryable "moved to".
  for (const call of [() => source.step({ world_id: 'match', ticks: 1 }), () => source.getStateHash({ world_id: 'match' })]) {
    const gone = await refusal(call());
    assert.equal(gone.code, grpc.status.UNAVAILABLE);
    assert.match(gone.reason, new RegExp(`moved to ${b.address}`));
  }
  assert.ok(!(await source.listWorlds()).worlds.some((w) => w.world_id === 'match'));
  assert.equal((await destination.step({ world_id: 'match', ticks: 1 })).tick, before.tick + 1n, 'the destination takes writes');
  const moved = await destination.getStateHash({ world_id: 'match' });

  // Back again, by address: the tombstone on the source is no obstacle.
  const back = await migrateWorld(b.address, a.address, 'match');
  assert.deepEqual([back.tick, back.state_hash], [moved.tick, moved.state_hash]);
  assert.deepEqual(await source.getStateHash({ world_id: 'match' }), moved);
  assert.equal((await source.step({ world_id: 'match', ticks: 1 })).tick, moved.tick + 1n);
});

test('freezeWorld refuses writes, lets reads through, and thaw undoes it', async () => {
  const c = await connect((await journaled()).address);
  const before = await makeWorld(c, 'w', 4);
  const frozen = await c.freezeWorld({ world_id: 'w', destination: '10.0.0.2:50051' });
  assert.deepEqual(frozen, { tick: before.tick, state_hash: before.state_hash, history_ticks: 40, frozen: true, epoch: 1n });
  assert.ok((await c.freezeWorld({ world_id: 'w', destination: '10.0.0.2:50051' })).frozen, 'idempotent');
  const elsewhere = await refusal(c.freezeWorld({ world_id: 'w', destination: '10.0.0.3:50051' }));
  assert.equal(elsewhere.code, grpc.status.FAILED_PRECONDITION);
  const writes = [
    () => c.step({ world_id: 'w', ticks: 1 }),
    () => c.addBodies({ world_id: 'w', bodies: [body(99, 'dynamic', [3, 3], [circle(1)])] }),
    () => c.removeBodies({ world_id: 'w', body_ids: [2] }),
    () => c.updateBodies({ world_id: 'w', updates: [{ body_id: 2, velocity: { linear: vec2(1, 0) } }] }),
  ];
  for (const write of writes) {
    const refused = await refusal(write());
    assert.equal(refused.code, grpc.status.UNAVAILABLE);
    assert.match(refused.reason, /is moving to 10\.0\.0\.2:50051/);
  }
  assert.deepEqual(await c.getStateHash({ world_id: 'w' }), before, 'nothing changed; reads go on');
  assert.equal((await castAt(c, 'w', before.tick)).tick, before.tick);
  assert.equal((await refusal(c.freezeWorld({ world_id: 'w' }))).code, grpc.status.INVALID_ARGUMENT, 'no destination');
  assert.deepEqual((await c.describeWorld({ world_id: 'w' })).world.moving_to, '10.0.0.2:50051');
  const thawed = await c.freezeWorld({ world_id: 'w', thaw: true });
  assert.deepEqual([thawed.frozen, thawed.epoch], [false, 2n]);
  assert.equal((await c.step({ world_id: 'w', ticks: 1 })).tick, before.tick + 1n);
});

test('importWorld checks the tick and hash and is all or nothing', async () => {
  const source = await connect((await journaled()).address);
  const c = await connect((await journaled()).address);
  const { tick, state_hash } = await makeWorld(source, 'w', 10);
  const journal = await source.exportJournal({ world_id: 'w' });
  const wrong = await refusal(c.importWorld({ world_id: 'w', journal, expected_tick: tick, expected_state_hash: state_hash ^ 1n }));
  assert.equal(wrong.code, grpc.status.FAILED_PRECONDITION);
  assert.match(wrong.message, /expected_state_hash/);
  const cut = await refusal(c.importWorld({
    world_id: 'w', journal: journal.subarray(0, journal.length - 3), expected_tick: tick, expected_state_hash: state_hash,
  }));
  assert.equal(cut.field, 'journal');
  assert.deepEqual((await c.listWorlds()).worlds, [], 'the refused imports left nothing');
  const imported = await c.importWorld({ world_id: 'w', journal, expected_tick: tick, expected_state_hash: state_hash });
  assert.deepEqual([imported.world.tick, imported.world.state_hash], [tick, state_hash]);
  assert.ok(imported.records > 0n);
  const again = await refusal(c.importWorld({ world_id: 'w', journal, expected_tick: tick, expected_state_hash: state_hash }));
  assert.equal(again.code, grpc.status.ALREADY_EXISTS);
});

/**
 * A move of `worldId` from `source` to `destination` fails with `code` and
 * each of `fragments`, and the world still serves, unfrozen, on `source` as
 * it was (`before`). Its { tick, state_hash } after one more step.
 */
async function expectFailedMove(source, destination, worldId, before, code, ...fragments) {
  const failed = await refusal(migrateWorld(source, destination, worldId));
  assert.equal(failed.code, code, failed.message);
  for (const fragment of fragments) assert.ok(failed.message.includes(fragment), `${failed.message} lacks ${fragment}`);
  assert.deepEqual(await source.getStateHash({ world_id: worldId }), before);
  assert.equal((await source.step({ world_id: worldId, ticks: 1 })).tick, before.tick + 1n, 'the source takes writes');
  return source.getStateHash({ world_id: worldId });
}

test('failed moves leave the world serving on the source', async () => {
  const source = await connect((await journaled()).address);
  const destination = await connect((await journaled()).address);
  const refusing = await connect((await journaled('--max_worlds=1')).address);
  const gone = await journaled();
  const stopped = await connect(gone.address);
  let before = await makeWorld(source, 'staying', 6);
  const unknown = await refusal(migrateWorld(source, destination, 'nobody'));
  assert.equal(unknown.code, grpc.status.NOT_FOUND);
  assert.match(unknown.message, /--from: freezing world 'nobody': .*no world 'nobody'/);

  // The destination holds a world of that id: refused before the freeze.
  await destination.createWorld({ world_id: 'staying' });
  before = await expectFailedMove(source, destination, 'staying', before, grpc.status.ALREADY_EXISTS,
    "already holds world 'staying'");
  assert.equal((await destination.describeWorld({ world_id: 'staying' })).world.tick, 0n, "the destination's world is untouched");

  // Nothing listens at the destination, or it stopped after connecting.
  const dead = await deadAddress();
  before = await expectFailedMove(source, dead, 'staying', before, grpc.status.UNAVAILABLE, `--to: connecting to ${dead}`);
  gone.stop();
  before = await expectFailedMove(source, stopped, 'staying', before, grpc.status.UNAVAILABLE,
    "--to: asking the destination about world 'staying'");

  // After the freeze: a destination whose one world slot is taken refuses
  // the import, and the source is thawed.
  await refusing.createWorld({ world_id: 'other' });
  await expectFailedMove(source, refusing, 'staying', before, grpc.status.RESOURCE_EXHAUSTED,
    '--to: importing the world', 'the move was undone');
  assert.deepEqual((await refusing.listWorlds()).worlds.map((w) => w.world_id), ['other']);
});

test('a failed export thaws the source', async () => {
  const memoryOnly = await startServer();  // no journal: ExportJournal is refused after the freeze
  cleanups.push(memoryOnly.stop);
  const source = await connect(memoryOnly.address);
  const b = await journaled();
  const before = await makeWorld(source, 'w', 3);
  await expectFailedMove(source, b.address, 'w', before, grpc.status.FAILED_PRECONDITION,
    '--from: exporting the journal', 'the move was undone');
});

test('only admins may freeze, import or migrate', async () => {
  const tokens = path.join(root, 'tokens');
  writeFileSync(tokens, [['admin-0123', 'admin'], ['writer-4567', 'writer']]
    .map(([token, role]) => `${createHash('sha256').update(token).digest('hex')} ${role} *\n`).join(''));
  const a = await journaled(`--token_file=${tokens}`);
  const b = await journaled(`--token_file=${tokens}`);
  const admin = await connect(a.address, { token: 'admin-0123' });
  const writer = await connect(a.address, { token: 'writer-4567' });
  const before = await makeWorld(admin, 'w', 5);
  const denied = [
    await refusal(writer.freezeWorld({ world_id: 'w', destination: b.address })),
    await refusal(writer.importWorld({ world_id: 'v', journal: Buffer.alloc(0), expected_tick: 0, expected_state_hash: 0 })),
    await refusal(migrateWorld(a.address, b.address, 'w', { token: 'writer-4567' })),
  ];
  assert.deepEqual(denied.map((e) => e.codeName), Array(3).fill('PERMISSION_DENIED'));
  assert.equal((await writer.step({ world_id: 'w', ticks: 1 })).tick, before.tick + 1n, 'not frozen');
  const report = await migrateWorld(a.address, b.address, 'w', { token: 'admin-0123' });
  assert.equal(report.tick, before.tick + 1n);
  const there = await connect(b.address, { token: 'writer-4567' });
  assert.deepEqual(await there.getStateHash({ world_id: 'w' }), { tick: report.tick, state_hash: report.state_hash });
});

/** describeWorld's WorldInfo, retried while a restarted server replays its journal ("not back yet"). */
async function describeWhenBack(c, world_id) {
  for (let attempt = 0; attempt < 400; ++attempt) {
    try {
      return (await c.describeWorld({ world_id })).world;
    } catch (error) {
      if (!String(error.reason).includes('not back yet')) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  assert.fail(`world '${world_id}' did not come back`);
}

/** The promise fails with `code` and each of `fragments`; the error. */
async function refusedWith(promise, code, ...fragments) {
  const error = await refusal(promise);
  assert.equal(error.code, code, error.message);
  for (const fragment of fragments) assert.ok(error.message.includes(fragment), `${error.message} lacks ${fragment}`);
  return error;
}

/**
 * A move's first three stages by hand (the freeze, the export, the
 * destination's import at the freeze's epoch), stopping before the source's
 * delete. The FreezeWorldResponse.
 */
async function freezeAndImport(source, destination, world_id, toAddress) {
  const frozen = await source.freezeWorld({ world_id, destination: toAddress });
  const fromTick = frozen.tick - BigInt(frozen.history_ticks);
  const journal = await source.exportJournal({ world_id, from_tick: fromTick > 0n ? fromTick : 0n });
  const imported = await destination.importWorld({
    world_id, journal, expected_tick: frozen.tick, expected_state_hash: frozen.state_hash, expected_epoch: frozen.epoch,
  });
  assert.deepEqual([imported.world.epoch, imported.world.moving_to], [frozen.epoch, ''], 'it serves there at the epoch');
  return frozen;
}

test('a source restarted after the import comes back frozen, and resumeMigration finishes the move', async () => {
  let a = await journaled();
  const b = await journaled();
  const destination = await connect(b.address);
  let source = await connect(a.address);
  const before = await makeWorld(source, 'crashing', 20);
  const fresh = (await source.describeWorld({ world_id: 'crashing' })).world;
  assert.deepEqual([fresh.epoch, fresh.moving_to], [0n, '']);
  const frozen = await freezeAndImport(source, destination, 'crashing', b.address);
  assert.deepEqual([frozen.tick, frozen.state_hash, frozen.epoch], [before.tick, before.state_hash, 1n]);
  source.close();
  a.stop();  // SIGKILL before the source's delete
  await a.exited;
  a = await journaledIn(a.dataDir);
  source = await connect(a.address);

  const back = await describeWhenBack(source, 'crashing');
  assert.deepEqual([back.moving_to, back.epoch, back.tick, back.state_hash],
    [b.address, frozen.epoch, before.tick, before.state_hash], 'the source comes back frozen, not live');
  await refusedWith(source.step({ world_id: 'crashing', ticks: 1 }), grpc.status.UNAVAILABLE, `is moving to ${b.address}`);

  // The move happened: thawing the source would make two writers.
  await refusedWith(thawWorld(source, 'crashing', { destination }), grpc.status.FAILED_PRECONDITION,
    `serves world 'crashing' at epoch ${frozen.epoch}`, 'the move happened');
  assert.equal((await describeWhenBack(source, 'crashing')).moving_to, b.address, 'still frozen');
  // Resuming towards another destination is refused before anything changes.
  await refusedWith(resumeMigration(source, destination, 'crashing', { destinationAddress: '10.0.0.9:1' }),
    grpc.status.FAILED_PRECONDITION, `is moving to ${b.address}, not 10.0.0.9:1`);

  const report = await resumeMigration(a.address, b.address, 'crashing');
  assert.deepEqual([report.tick, report.state_hash, report.epoch], [before.tick, before.state_hash, frozen.epoch]);
  assert.deepEqual([report.resumed_after_import, report.records, report.warning], [true, 0n, '']);
  await refusedWith(source.getStateHash({ world_id: 'crashing' }), grpc.status.UNAVAILABLE, `moved to ${b.address}`);
  assert.equal((await destination.step({ world_id: 'crashing', ticks: 1, expected_epoch: frozen.epoch })).tick,
    before.tick + 1n);
  await refusedWith(resumeMigration(source, destination, 'crashing'), grpc.status.NOT_FOUND,
    "does not hold world 'crashing'");
});

test('an import of unknown outcome asks the destination, and otherwise leaves the source frozen', async () => {
  const b = await journaled();
  const source = await connect((await journaled()).address);
  const destination = await connect(b.address);
  // A destination whose ImportWorld fails as if the connection dropped:
  // after the server committed the import (`arrives`) or before it got it.
  const flaky = await connect(b.address);
  let arrives = true;
  const importWorld = flaky.importWorld.bind(flaky);
  flaky.importWorld = async (request) => {
    if (arrives) await importWorld(request);
    throw new ArbiterError(grpc.status.UNAVAILABLE, 'Socket closed');
  };
  const worlds = {};
  for (const w of ['arrived', 'lost', 'undone']) worlds[w] = await makeWorld(source, w, 8);

  // The import committed and only its reply was lost: the world serves on
  // the destination at the freeze's epoch, so the move goes on.
  const report = await migrateWorld(source, flaky, 'arrived');
  assert.deepEqual([report.tick, report.state_hash, report.epoch, report.warning],
    [worlds.arrived.tick, worlds.arrived.state_hash, 1n, '']);
  const there = (await destination.describeWorld({ world_id: 'arrived' })).world;
  assert.deepEqual([there.epoch, there.moving_to, there.state_hash], [1n, '', worlds.arrived.state_hash]);
  await refusedWith(source.step({ world_id: 'arrived', ticks: 1 }), grpc.status.UNAVAILABLE, `moved to ${b.address}`);

  // The import never got there: the source stays frozen (thawing it could
  // make two writers were it not so) and the error says --resume.
  arrives = false;
  for (const w of ['lost', 'undone']) {
    await refusedWith(migrateWorld(source, flaky, w), grpc.status.UNAVAILABLE, '--to: importing the world: Socket closed',
      'whether the destination took the world is not known', '--resume');
    const held = (await source.describeWorld({ world_id: w })).world;
    assert.deepEqual([held.moving_to, held.epoch], [b.address, 1n]);
    await refusedWith(source.step({ world_id: w, ticks: 1 }), grpc.status.UNAVAILABLE, `is moving to ${b.address}`);
    await refusedWith(destination.describeWorld({ world_id: w }), grpc.status.NOT_FOUND);
  }

  const resumed = await resumeMigration(source, destination, 'lost');
  assert.deepEqual([resumed.tick, resumed.state_hash, resumed.epoch], [worlds.lost.tick, worlds.lost.state_hash, 1n]);
  assert.ok(!resumed.resumed_after_import && resumed.records > 0n && resumed.export_bytes > 0);
  assert.equal((await destination.step({ world_id: 'lost', ticks: 1, expected_epoch: 1n })).tick, worlds.lost.tick + 1n);

  // The destination answers and does not hold it: thawing is safe.
  const thawed = await thawWorld(source.address, 'undone', { destination: b.address });
  assert.deepEqual([thawed.frozen, thawed.epoch], [false, 2n]);
  assert.equal((await source.step({ world_id: 'undone', ticks: 1, expected_epoch: 2 })).tick, worlds.undone.tick + 1n);
});

test('a write naming a stale epoch is refused by a copy thawed by hand', async () => {
  const b = await journaled();
  const source = await connect((await journaled()).address);
  const destination = await connect(b.address);
  await makeWorld(source, 'w', 6);
  const frozen = await freezeAndImport(source, destination, 'w', b.address);
  // The operator's word, without asking the destination: two live copies.
  const thawed = await thawWorld(source, 'w');
  assert.deepEqual([thawed.frozen, thawed.epoch], [false, frozen.epoch + 1n]);
  const info = (await source.describeWorld({ world_id: 'w' })).world;
  assert.deepEqual([info.epoch, info.moving_to], [thawed.epoch, '']);

  const stale = `expected_epoch: ${frozen.epoch}, but world 'w' is at epoch ${thawed.epoch}`;
  const { snapshot } = await source.getSnapshot({ world_id: 'w' });
  const before = await source.getStateHash({ world_id: 'w' });
  const expected_epoch = frozen.epoch;
  const writes = [
    (c) => c.step({ world_id: 'w', ticks: 1, expected_epoch }),
    (c) => c.addBodies({ world_id: 'w', bodies: [body(99, 'dynamic', [3, 3], [circle(1)])], expected_epoch }),
    (c) => c.updateBodies({ world_id: 'w', updates: [{ body_id: 2, velocity: { linear: vec2(1, 0) } }], expected_epoch }),
    (c) => c.removeBodies({ world_id: 'w', body_ids: [2], expected_epoch }),
    (c) => c.restore({ world_id: 'w', snapshot, expected_epoch }),
  ];
  for (const write of writes) {
    await refusedWith(write(source), grpc.status.FAILED_PRECONDITION, stale);
    assert.deepEqual(await source.getStateHash({ world_id: 'w' }), before, 'a refused write changes nothing');
    await write(destination);  // the owner at that epoch takes it
  }
  await refusedWith(destination.step({ world_id: 'w', ticks: 1, expected_epoch: thawed.epoch }),
    grpc.status.FAILED_PRECONDITION, `expected_epoch: ${thawed.epoch}, but world 'w' is at epoch ${frozen.epoch}`);
  assert.equal((await source.step({ world_id: 'w', ticks: 1, expected_epoch: thawed.epoch })).tick, before.tick + 1n);
});
