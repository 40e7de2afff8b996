// Seeing every world of a fleet: ListWorlds asked of each instance.
//
// A fleet's proxy routes a call by its world (x-arbiter-world), and
// ListWorlds names no world, so through the proxy it reaches one instance and
// lists only that instance's worlds. A client that wants them all asks every
// instance of a known list and merges the answers: listFleetWorlds.

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
