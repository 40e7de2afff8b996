// Working with a fleet of arbiter-server instances (docs/fleet.md).
//
// listFleetWorlds: a fleet's proxy routes a call by its world
// (x-arbiter-world), and ListWorlds names no world, so through the proxy it
// reaches one instance and lists only that instance's worlds. A client that
// wants them all asks every instance of a known list and merges the answers.
//
// migrateWorld: moves one world from one instance to another (FreezeWorld,
// ExportJournal, ImportWorld, DeleteWorld: arbiter.proto "Moving a world"),
// step by step as the C++ client's MigrateWorld (client/src/fleet_migrate.cc)
// and `arbiter migrate` do.

import { performance } from 'node:perf_hooks';

import * as grpc from '@grpc/grpc-js';

import { ArbiterClient, ArbiterError } from './client.js';

/**
 * ListWorlds on each of `instances` ("host:port"), merged. Resolves to
 * { worlds, unreachable }: worlds as { world_id, instance, info } sorted by
 * world id, then by the instance's place in the list (a world shows twice
 * only while it is being migrated); unreachable as { instance, error } for
 * each instance that did not answer, the others' worlds listed all the same.
 * `options` go to ArbiterClient.connect for every instance.
 */
export async function listFleetWorlds(instances, options = {}) {
  const answers = await Promise.all(instances.map(async (instance, order) => {
    let client;
    try {
      client = await ArbiterClient.connect(instance, options);
      return { order, instance, worlds: (await client.listWorlds()).worlds };
    } catch (error) {
      if (!(error instanceof ArbiterError)) throw error;
      return { order, instance, error };
    } finally {
      client?.close();
    }
  }));
  const found = answers.flatMap((a) => (a.worlds ?? []).map((info) => ({
    order: a.order, entry: { world_id: info.world_id, instance: a.instance, info },
  })));
  const byIdThenOrder = (x, y) => {
    if (x.entry.world_id !== y.entry.world_id) return x.entry.world_id < y.entry.world_id ? -1 : 1;
    return x.order - y.order;
  };
  found.sort(byIdThenOrder);
  return {
    worlds: found.map((f) => f.entry),
    unreachable: answers.filter((a) => a.error).map((a) => ({ instance: a.instance, error: a.error })),
  };
}

// The server's message of an ArbiterError, field included.
const messageOf = (error) => (error.field ? `${error.field}: ${error.reason}` : error.reason);
const withContext = (error, what) => new ArbiterError(error.code, `${what}: ${messageOf(error)}`);

// Refuses a move onto an instance that already holds the world, before
// anything changes.
async function checkDestinationFree(to, worldId) {
  try {
    await to.describeWorld({ world_id: worldId });
  } catch (there) {
    if (!(there instanceof ArbiterError)) throw there;
    // A tombstone (the world moved away from there before) is no obstacle.
    const movedAway = there.code === grpc.status.UNAVAILABLE && messageOf(there).includes("' moved to ");
    if (there.code !== grpc.status.NOT_FOUND && !movedAway) {
      throw withContext(there, `--to: asking the destination about world '${worldId}'`);
    }
    return;
  }
  throw new ArbiterError(grpc.status.ALREADY_EXISTS, `--to: the destination already holds world '${worldId}'`);
}

// After a failed export or import: the world must serve on the source again.
// The error to throw, saying whether that worked.
async function thaw(source, worldId, why) {
  try {
    await source.freezeWorld({ world_id: worldId, thaw: true });
  } catch (failed) {
    if (!(failed instanceof ArbiterError)) throw failed;
    return new ArbiterError(why.code, `${why.reason}; and thawing the source failed too (${messageOf(failed)}): ` +
      `world '${worldId}' is frozen there, run \`arbiter migrate --world ${worldId} --from SOURCE --thaw\``);
  }
  return new ArbiterError(why.code, `${why.reason} (the move was undone: world '${worldId}' serves on the source as before)`);
}

// [client, whether we opened it] for an ArbiterClient or a "host:port".
async function connect(target, side, options) {
  if (target instanceof ArbiterClient) return [target, false];
  try {
    return [await ArbiterClient.connect(target, options), true];
  } catch (error) {
    if (!(error instanceof ArbiterError)) throw error;
    throw withContext(error, `${side}: connecting to ${target}`);
  }
}

async function migrate(source, to, worldId, toAddress) {
  await checkDestinationFree(to, worldId);
  const frozenAt = performance.now();
  let frozen;
  try {
    frozen = await source.freezeWorld({ world_id: worldId, destination: toAddress });
  } catch (error) {
    if (!(error instanceof ArbiterError)) throw error;
    throw withContext(error, `--from: freezing world '${worldId}'`);
  }

  // From the snapshot the history window starts at, as recovery reads it.
  const fromTick = frozen.tick - BigInt(frozen.history_ticks);
  const exportStarted = performance.now();
  let journal;
  try {
    journal = await source.exportJournal({ world_id: worldId, from_tick: fromTick > 0n ? fromTick : 0n });
  } catch (error) {
    if (!(error instanceof ArbiterError)) throw error;
    throw await thaw(source, worldId, withContext(error, '--from: exporting the journal'));
  }
  const exportMs = performance.now() - exportStarted;

  const importStarted = performance.now();
  let imported;
  try {
    imported = await to.importWorld({
      world_id: worldId, journal, expected_tick: frozen.tick, expected_state_hash: frozen.state_hash,
    });
  } catch (error) {
    if (!(error instanceof ArbiterError)) throw error;
    throw await thaw(source, worldId, withContext(error, '--to: importing the world'));
  }
  const now = performance.now();
  const report = {
    tick: frozen.tick, state_hash: frozen.state_hash, records: imported.records, export_bytes: journal.length,
    write_refusal_ms: now - frozenAt, export_ms: exportMs, import_ms: now - importStarted, warning: '',
  };
  try {
    await source.deleteWorld({ world_id: worldId });
  } catch (error) {
    if (!(error instanceof ArbiterError)) throw error;
    // Still one writer: the destination. The source stays frozen.
    report.warning = `world '${worldId}' serves on the destination, but deleting it on the source failed ` +
      `(${messageOf(error)}); it stays frozen there: delete it with ` +
      `\`arbiter delete --server SOURCE --world ${worldId} --yes\``;
  }
  return report;
}

/**
 * Moves `worldId` from `source` to `destination` (admin on both), each an
 * ArbiterClient or a "host:port" (then connected with `options`, as
 * ArbiterClient.connect takes them, and closed afterwards).
 * `options.destinationAddress` is named in the source's refusals and
 * tombstone (default: the destination's address). Resolves to a report
 * { tick, state_hash, records, export_bytes, write_refusal_ms, export_ms,
 * import_ms, warning }; rejects with ArbiterError:
 *  - before anything changes: ALREADY_EXISTS when the destination holds the
 *    world already, the source's error (e.g. NOT_FOUND) when it cannot
 *    freeze it, the error when either instance does not answer;
 *  - after the freeze (the export fails, or the destination refuses the
 *    import: --max_import_bytes, its world limit, a hash mismatch) the
 *    source is thawed again, so the world keeps serving there, and the
 *    message says "the move was undone"; if even the thaw fails it says how
 *    to thaw it by hand (`arbiter migrate --world W --from A --thaw`).
 * Same steps and checks as the C++ client's MigrateWorld.
 */
export async function migrateWorld(source, destination, worldId, options = {}) {
  const { destinationAddress, ...connectOptions } = options;
  const opened = [];
  try {
    const [from, mineFrom] = await connect(source, '--from', connectOptions);
    if (mineFrom) opened.push(from);
    const [to, mineTo] = await connect(destination, '--to', connectOptions);
    if (mineTo) opened.push(to);
    return await migrate(from, to, worldId, destinationAddress ?? to.address);
  } finally {
    for (const client of opened) client.close();
  }
}
