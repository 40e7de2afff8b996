// Compiled by `tsc --noEmit` (run-tests.sh), never run: index.d.ts accepts
// the documented program (docs/clients.md) and refuses a plain number where
// a raw value goes.
import {
  ArbiterClient, body, circle, fromUnits, listFleetWorlds, migrateWorld, moveClaim, ray, resumeMigration, thawWorld, toUnits,
  type CastRaysResponse, type MigrationReport, type MoveVerdict,
} from '../index.js';

export async function sample(client: ArbiterClient): Promise<number> {
  await client.createWorld({ world_id: 'w', bodies: [body(1, 'static', [0, 0], [circle(1.5)])] });
  const reply: CastRaysResponse = await client.castRays({ world_id: 'w', mode: 'CAST_MODE_CLOSEST', rays: [ray([0, 5], [0, -10])] });
  const radius = { circle: { radius: fromUnits(1.5) } };
  // @ts-expect-error a number is not a raw value
  const wrong = { circle: { radius: 1.5 } } satisfies typeof radius;
  void wrong;
  for await (const events of client.watchEvents({ world_id: 'w' })) void events.tick;
  const moves = await client.validateMove({ world_id: 'w', max_speed: fromUnits(300), claims: [moveClaim(1, 10, [[1, 0]])] });
  const verdict: MoveVerdict = moves.judgements[0].verdict;
  const snap: bigint = moves.judgements[0].accepted_position.x ?? 0n;
  void verdict, snap;
  // @ts-expect-error max_speed is a raw value, not a number
  await client.validateMove({ world_id: 'w', max_speed: 300, claims: [] });
  const fleet = await listFleetWorlds(['a:1', 'b:2']);
  const where: string = fleet.worlds[0].instance;
  const code: string = fleet.unreachable[0].error.codeName;
  void where, code;
  const frozen = await client.freezeWorld({ world_id: 'w', destination: 'b:2' });
  const journal: Buffer = await client.exportJournal({ world_id: 'w', from_tick: frozen.tick - BigInt(frozen.history_ticks) });
  const imported = await client.importWorld({
    world_id: 'w', journal, expected_tick: frozen.tick, expected_state_hash: frozen.state_hash, expected_epoch: frozen.epoch,
  });
  const epoch: bigint = imported.world.epoch;
  const movingTo: string = (await client.describeWorld({ world_id: 'w' })).world.moving_to;
  await client.step({ world_id: 'w', ticks: 1, expected_tick: imported.world.tick, expected_epoch: epoch });
  await client.addBodies({ world_id: 'w', bodies: [], expected_epoch: 2 });
  // @ts-expect-error the epoch is an integer, not a string
  await client.updateBodies({ world_id: 'w', updates: [], expected_epoch: '2' });
  void movingTo;
  const records: bigint = imported.records;
  // @ts-expect-error the journal is bytes, not a string
  await client.importWorld({ world_id: 'w', journal: 'file', expected_tick: 0, expected_state_hash: 0 });
  const report: MigrationReport = await migrateWorld(client, 'b:2', 'w', { token: 't', destinationAddress: 'b.internal:2' });
  const refused: number = report.write_refusal_ms;
  const hash: bigint = report.state_hash;
  // @ts-expect-error the world id is a string
  await migrateWorld('a:1', 'b:2', 7);
  const resumed: MigrationReport = await resumeMigration('a:1', client, 'w');
  const onlyDeleted: boolean = resumed.resumed_after_import;
  const thawed = await thawWorld(client, 'w', { destination: 'b:2', token: 't' });
  const thawEpoch: bigint = thawed.epoch;
  await thawWorld('a:1', 'w');
  // @ts-expect-error the destination goes in the options
  await thawWorld('a:1', 'b:2', 'w');
  void onlyDeleted, thawEpoch;
  void records, refused, hash;
  return toUnits(reply.results[0].hits[0].fraction);
}
