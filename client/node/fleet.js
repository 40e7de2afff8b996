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
// and `arbiter migrate` do; resumeMigration finishes a move that was cut
// short, and thawWorld undoes one that did not happen (docs/fleet.md
// "Durable moves"). A stage that was refused undoes what came before it; a
// stage whose outcome is unknown asks the destination (the world at the
// freeze's epoch there means the move happened) and otherwise leaves the
// source frozen for resumeMigration: thawing it then could make two live
// copies.

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
const failedPrecondition = (message) => new ArbiterError(grpc.status.FAILED_PRECONDITION, message);

// Codes of a call that certainly changed nothing on the server: it was
// refused (validation, limits, roles). Anything else (the server crashed,
// the reply was lost, the deadline passed) may have happened.
const REFUSED = new Set([
  grpc.status.INVALID_ARGUMENT, grpc.status.FAILED_PRECONDITION, grpc.status.RESOURCE_EXHAUSTED,
  grpc.status.ALREADY_EXISTS, grpc.status.PERMISSION_DENIED, grpc.status.UNAUTHENTICATED, grpc.status.NOT_FOUND,
  grpc.status.OUT_OF_RANGE, grpc.status.UNIMPLEMENTED,
]);

const resumeHint = (worldId) => `world '${worldId}' stays frozen on the source; run \`arbiter migrate --world ` +
  `${worldId} --from SOURCE --to DESTINATION --resume\` (or resumeMigration) once both answer`;

// Rethrows what is not an ArbiterError (a bug, not a refusal).
function arbiterErrorOnly(error) {
  if (!(error instanceof ArbiterError)) throw error;
  return error;
}

// What `client`'s instance holds of the world: its WorldInfo, or null when
// it holds none (also for a tombstone: the world moved away from there
// before). Any other failure is thrown, after `context`.
async function holding(client, worldId, context) {
  try {
    return (await client.describeWorld({ world_id: worldId })).world;
  } catch (error) {
    arbiterErrorOnly(error);
    const movedAway = error.code === grpc.status.UNAVAILABLE && messageOf(error).includes("' moved to ");
    if (error.code === grpc.status.NOT_FOUND || movedAway) return null;
    throw withContext(error, context);
  }
}

// The source's WorldInfo of the world; NOT_FOUND when it holds none.
async function onSource(source, worldId) {
  const held = await holding(source, worldId, `--from: asking the source about world '${worldId}'`);
  if (held) return held;
  throw new ArbiterError(grpc.status.NOT_FOUND,
    `--from: the source does not hold world '${worldId}' (none, or it moved away)`);
}

// Refuses a move onto an instance that already holds the world, before
// anything changes.
async function checkDestinationFree(to, worldId) {
  if (await holding(to, worldId, `--to: asking the destination about world '${worldId}'`)) {
    throw new ArbiterError(grpc.status.ALREADY_EXISTS, `--to: the destination already holds world '${worldId}'`);
  }
}

// After an export that failed or an import that was refused: the world must
// serve on the source again. The error to throw, saying whether that worked.
async function thaw(source, worldId, why) {
  try {
    await source.freezeWorld({ world_id: worldId, thaw: true });
  } catch (failed) {
    arbiterErrorOnly(failed);
    return new ArbiterError(why.code, `${why.reason}; and thawing the source failed too (${messageOf(failed)}): ` +
      `${resumeHint(worldId)}, or thaw it with \`arbiter migrate --world ${worldId} --from SOURCE ` +
      '--to DESTINATION --thaw`');
  }
  return new ArbiterError(why.code, `${why.reason} (the move was undone: world '${worldId}' serves on the source as before)`);
}

// An import that failed: returns when the destination serves the world at
// the freeze's epoch (it arrived; the reply was lost) and the move goes on.
// Otherwise throws: the source thawed when the import was refused, left
// frozen when its outcome is unknown.
async function afterFailedImport(source, to, worldId, epoch, failed) {
  const why = withContext(failed, '--to: importing the world');
  let there = null;
  try {
    there = await holding(to, worldId, '--to');
  } catch (error) {
    arbiterErrorOnly(error);  // not known either: as if it did not hold it
  }
  if (there && there.epoch === epoch && !there.moving_to) return;
  if (REFUSED.has(failed.code)) throw await thaw(source, worldId, why);
  throw new ArbiterError(why.code,
    `${why.reason}; whether the destination took the world is not known, so ${resumeHint(worldId)}`);
}

// Stages 2 and 3: the source's export from its history window's snapshot,
// replayed on the destination, which must end frozen at `frozen`'s epoch.
async function transfer(source, to, worldId, frozen, report) {
  const fromTick = frozen.tick - BigInt(frozen.history_ticks);
  const exportStarted = performance.now();
  let journal;
  try {
    journal = await source.exportJournal({ world_id: worldId, from_tick: fromTick > 0n ? fromTick : 0n });
  } catch (error) {
    arbiterErrorOnly(error);
    // Nothing changed on the destination yet: undoing the freeze is safe.
    throw await thaw(source, worldId, withContext(error, '--from: exporting the journal'));
  }
  report.export_ms = performance.now() - exportStarted;
  report.export_bytes = journal.length;

  const importStarted = performance.now();
  try {
    const imported = await to.importWorld({
      world_id: worldId, journal, expected_tick: frozen.tick, expected_state_hash: frozen.state_hash,
      expected_epoch: frozen.epoch,
    });
    report.records = imported.records;
  } catch (error) {
    await afterFailedImport(source, to, worldId, frozen.epoch, arbiterErrorOnly(error));
  }
  report.import_ms = performance.now() - importStarted;
}

// Stage 4: the source's copy goes, leaving its tombstone.
async function finish(source, worldId, report) {
  try {
    await source.deleteWorld({ world_id: worldId });
  } catch (error) {
    arbiterErrorOnly(error);
    // Still one writer: the destination. The source stays frozen.
    report.warning = `world '${worldId}' serves on the destination, but deleting it on the source failed ` +
      `(${messageOf(error)}); it stays frozen there: finish with \`arbiter migrate --world ${worldId} ` +
      '--from SOURCE --to DESTINATION --resume` (or resumeMigration)';
  }
}

// The freeze's FreezeWorldResponse, or its failure after `context`.
async function freeze(source, worldId, toAddress, context) {
  try {
    return await source.freezeWorld({ world_id: worldId, destination: toAddress });
  } catch (error) {
    throw withContext(arbiterErrorOnly(error), context);
  }
}

const newReport = (frozen) => ({
  tick: frozen.tick, state_hash: frozen.state_hash, epoch: frozen.epoch, resumed_after_import: false, records: 0n,
  export_bytes: 0, write_refusal_ms: 0, export_ms: 0, import_ms: 0, warning: '',
});

async function migrate(source, to, worldId, toAddress) {
  await checkDestinationFree(to, worldId);
  const frozenAt = performance.now();
  const frozen = await freeze(source, worldId, toAddress, `--from: freezing world '${worldId}'`);
  const report = newReport(frozen);
  await transfer(source, to, worldId, frozen, report);
  report.write_refusal_ms = performance.now() - frozenAt;
  await finish(source, worldId, report);
  return report;
}

async function resume(source, to, worldId, toAddress) {
  const held = await onSource(source, worldId);
  if (!held.moving_to) {
    throw failedPrecondition(`--from: world '${worldId}' is not frozen there: no move to resume (it serves on the source)`);
  }
  if (held.moving_to !== toAddress) {
    throw failedPrecondition(`--to: world '${worldId}' is moving to ${held.moving_to}, not ${toAddress}`);
  }
  // Idempotent re-freeze: the tick, hash and history window it froze at.
  const frozen = await freeze(source, worldId, toAddress, `--from: reading the freeze of world '${worldId}'`);
  const report = newReport(frozen);
  const there = await holding(to, worldId, `--to: asking the destination about world '${worldId}'`);
  if (!there) {
    await transfer(source, to, worldId, frozen, report);
  } else if (there.epoch !== frozen.epoch) {
    throw failedPrecondition(`--to: the destination holds world '${worldId}' at epoch ${there.epoch}, not the ` +
      `epoch ${frozen.epoch} it was frozen at here: two copies; keep one by hand`);
  } else {
    report.resumed_after_import = true;
  }
  await finish(source, worldId, report);
  return report;
}

async function thawChecked(source, to, worldId) {
  if (to) {
    const held = await onSource(source, worldId);
    const there = await holding(to, worldId, `--to: asking the destination about world '${worldId}' ` +
      '(thawing is safe only once it is known not to hold it)');
    if (there && held.moving_to && there.epoch === held.epoch) {
      throw failedPrecondition(`--to: the destination serves world '${worldId}' at epoch ${there.epoch}, the one ` +
        'it was frozen at: the move happened; finish it with --resume (resumeMigration)');
    }
  }
  return source.freezeWorld({ world_id: worldId, thaw: true });
}

// An ArbiterClient for an ArbiterClient (as is), a "host:port" (connected,
// and closed at the end: pushed to `opened`) or null (as is).
async function connect(target, side, options, opened) {
  if (target == null || target instanceof ArbiterClient) return target;
  try {
    const client = await ArbiterClient.connect(target, options);
    opened.push(client);
    return client;
  } catch (error) {
    throw withContext(arbiterErrorOnly(error), `${side}: connecting to ${target}`);
  }
}

// act(source, destination) with both as ArbiterClients (the destination
// null when not given), those connected here closed afterwards.
async function withSides(source, destination, options, act) {
  const opened = [];
  try {
    const from = await connect(source, '--from', options, opened);
    return await act(from, await connect(destination, '--to', options, opened));
  } finally {
    for (const client of opened) client.close();
  }
}

/**
 * Moves `worldId` from `source` to `destination` (admin on both), each an
 * ArbiterClient or a "host:port" (then connected with `options`, as
 * ArbiterClient.connect takes them, and closed afterwards).
 * `options.destinationAddress` is named in the source's refusals and
 * tombstone (default: the destination's address). Resolves to a report
 * { tick, state_hash, epoch, resumed_after_import, records, export_bytes,
 * write_refusal_ms, export_ms, import_ms, warning } (epoch: the one the
 * world was frozen at and now serves at on the destination); rejects with
 * ArbiterError:
 *  - before anything changes: ALREADY_EXISTS when the destination holds the
 *    world already, the source's error (e.g. NOT_FOUND) when it cannot
 *    freeze it, the error when either instance does not answer;
 *  - after the freeze (durable on the source, at a new epoch E): an export
 *    that fails, or an import the destination refused (INVALID_ARGUMENT,
 *    FAILED_PRECONDITION, RESOURCE_EXHAUSTED, ALREADY_EXISTS,
 *    PERMISSION_DENIED, UNAUTHENTICATED, NOT_FOUND, OUT_OF_RANGE,
 *    UNIMPLEMENTED: nothing changed there) thaws the source again, so the
 *    world keeps serving there, and the message says "the move was undone";
 *    if even the thaw fails it says how to finish or undo the move by hand;
 *  - an import whose outcome is unknown (UNAVAILABLE, DEADLINE_EXCEEDED,
 *    INTERNAL, ...) asks the destination: the world live there at epoch E
 *    means it arrived, and the move goes on; otherwise the source stays
 *    frozen (refusing writes, never serving twice) and the error names
 *    `--resume`: run resumeMigration once both instances answer.
 * If the source's copy cannot be deleted at the end the report's warning
 * says so (the source stays frozen; resumeMigration deletes it).
 * Same steps and checks as the C++ client's MigrateWorld.
 */
export async function migrateWorld(source, destination, worldId, options = {}) {
  const { destinationAddress, ...connectOptions } = options;
  return withSides(source, destination, connectOptions,
    (from, to) => migrate(from, to, worldId, destinationAddress ?? to.address));
}

/**
 * Finishes a move cut short (a crash of either instance or of the client
 * after the freeze); arguments as migrateWorld's. The source must hold the
 * world frozen, moving to the destination's address (FAILED_PRECONDITION
 * otherwise). If the destination holds it at the freeze's epoch only the
 * source's copy goes (the report's resumed_after_import); if it does not
 * hold it, the export and import run again first, as in migrateWorld; at
 * another epoch nothing changes (FAILED_PRECONDITION: two copies, keep one
 * by hand). Resolves to a report as migrateWorld's. The C++ client's
 * ResumeMigration.
 */
export async function resumeMigration(source, destination, worldId, options = {}) {
  const { destinationAddress, ...connectOptions } = options;
  return withSides(source, destination, connectOptions,
    (from, to) => resume(from, to, worldId, destinationAddress ?? to.address));
}

/**
 * Undoes a move's freeze on `source` (FreezeWorld with thaw), so the world
 * serves there again; `source` and `options.destination` an ArbiterClient or
 * a "host:port" as in migrateWorld. With a destination, first checks that it
 * does not serve the world at the epoch frozen on the source
 * (FAILED_PRECONDITION: the move happened, resume it instead) and that it
 * answers at all; without, thaws without asking (the caller's word that the
 * destination does not hold the world). Resolves to the
 * FreezeWorldResponse (frozen false, the new epoch). The C++ client's
 * ThawWorld.
 */
export async function thawWorld(source, worldId, options = {}) {
  const { destination, ...connectOptions } = options;
  return withSides(source, destination, connectOptions, (from, to) => thawChecked(from, to, worldId));
}
