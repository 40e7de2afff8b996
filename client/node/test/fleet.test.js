// Through a real fleet (docker/cluster.sh: three arbiter-server processes
// behind nginx routing by x-arbiter-world): the client names each call's
// world in its metadata, so worlds created through the proxy spread over the
// instances and every later call finds its world on its owner.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';

import { ArbiterClient, listFleetWorlds } from '../index.js';
import { deadAddress } from './server.js';

const cluster = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../docker/cluster.sh');
const nginx = ['/usr/sbin/nginx', '/usr/bin/nginx'].find((p) => existsSync(p));
// NGINX_BIN, not NGINX: nginx itself reads $NGINX (inherited sockets).
const env = { ...process.env, ARBITER_SERVER: process.env.ARBITER_SERVER_BINARY, NGINX_BIN: nginx };
let root;
let proxy;
let instances;

before(() => {
  assert.ok(nginx, 'nginx is not installed (scripts/install-deps.sh installs it)');
  root = mkdtempSync(path.join(tmpdir(), 'arbiter-node-fleet-'));
  execFileSync('bash', [cluster, 'start', root, '3'], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  const values = Object.fromEntries(
    readFileSync(path.join(root, 'cluster.env'), 'utf8').trim().split('\n').map((l) => l.split('=')));
  proxy = values.PROXY;
  instances = values.INSTANCES.split(',');
});

after(() => {
  execFileSync('bash', [cluster, 'stop', root], { env, stdio: 'inherit' });
  rmSync(root, { recursive: true, force: true });
});

test('worlds spread over the fleet and calls find their owner', async () => {
  const names = Array.from({ length: 12 }, (_, i) => `node-${i}`);
  const c = await ArbiterClient.connect(proxy);
  try {
    for (const world_id of names) {
      await c.createWorld({ world_id });
      await c.step({ world_id, ticks: 2 });
      assert.equal((await c.getStateHash({ world_id })).tick, 2n);
    }
  } finally {
    c.close();
  }
  const owners = new Map();
  for (const [index, address] of instances.entries()) {
    const direct = await ArbiterClient.connect(address);
    try {
      for (const w of (await direct.listWorlds()).worlds) owners.set(w.world_id, [...(owners.get(w.world_id) ?? []), index]);
    } finally {
      direct.close();
    }
  }
  assert.deepEqual([...owners.keys()].sort(), [...names].sort());
  for (const where of owners.values()) assert.equal(where.length, 1);
  // Without the metadata every call would reach the same instance.
  assert.ok(new Set([...owners.values()].map((w) => w[0])).size >= 2);
});

test('listFleetWorlds asks every instance and names the unreachable', async () => {
  const names = Array.from({ length: 12 }, (_, i) => `node-list-${i}`);
  const c = await ArbiterClient.connect(proxy);
  let throughProxy;
  try {
    for (const world_id of names) await c.createWorld({ world_id });
    // Through the proxy ListWorlds reaches one instance only.
    throughProxy = new Set((await c.listWorlds()).worlds.map((w) => w.world_id));
  } finally {
    c.close();
  }
  const listing = await listFleetWorlds(instances);
  assert.deepEqual(listing.unreachable, []);
  const ids = listing.worlds.map((w) => w.world_id);
  assert.deepEqual(ids, [...ids].sort());
  assert.equal(new Set(ids).size, ids.length);
  const mine = listing.worlds.filter((w) => names.includes(w.world_id));
  assert.deepEqual(mine.map((w) => w.world_id), [...names].sort());
  for (const w of mine) {
    const direct = await ArbiterClient.connect(w.instance);
    try {
      assert.ok((await direct.listWorlds()).worlds.some((x) => x.world_id === w.world_id));
    } finally {
      direct.close();
    }
  }
  assert.ok(!names.every((n) => throughProxy.has(n)));
  const dead = await deadAddress();
  const partial = await listFleetWorlds([dead, ...instances]);
  assert.deepEqual(partial.unreachable.map((u) => u.instance), [dead]);
  assert.equal(partial.unreachable[0].error.codeName, 'UNAVAILABLE');
  assert.deepEqual(partial.worlds.map((w) => w.world_id), ids);
});
