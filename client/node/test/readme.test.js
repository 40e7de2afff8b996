// The documentation's Node programs (between <!-- snippet: NAME --> markers,
// in README.md or docs/*.md), run against live servers: the first program
// and the migration example (against two, each with a journal). They are
// written inside this package, so `import ... from 'arbiter-client'`
// resolves to it.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';

import { startServer } from './server.js';
import { assertFirstProgramOutput, snippet } from './snippets.js';

const packageDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

test('the documented first program runs and prints its answers', async (t) => {
  const server = await startServer('--max_batch=100');
  const dir = mkdtempSync(path.join(packageDir, '.readme-'));
  t.after(() => {
    server.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  const program = snippet('node-first-program');
  assert.ok(program.split('\n').length < 30);
  writeFileSync(path.join(dir, 'first.mjs'), program);
  const out = execFileSync(process.execPath, [path.join(dir, 'first.mjs')], {
    encoding: 'utf8', env: { ...process.env, ARBITER_SERVER: server.address },
  });
  assertFirstProgramOutput(out);
});

test('the documented migration runs and moves the world', async (t) => {
  const data = mkdtempSync(path.join(tmpdir(), 'arbiter-node-readme-'));
  const servers = [];
  const dir = mkdtempSync(path.join(packageDir, '.readme-'));
  t.after(() => {
    for (const s of servers) s.stop();
    rmSync(dir, { recursive: true, force: true });
    rmSync(data, { recursive: true, force: true });
  });
  for (const name of ['a', 'b']) servers.push(await startServer(`--data_dir=${path.join(data, name)}`, '--journal_sync=off'));
  const program = snippet('node-migrate');
  assert.ok(program.split('\n').length < 30);
  writeFileSync(path.join(dir, 'migrate.mjs'), program);
  const out = execFileSync(process.execPath, [path.join(dir, 'migrate.mjs')], {
    encoding: 'utf8', env: { ...process.env, ARBITER_FROM: servers[0].address, ARBITER_TO: servers[1].address },
  });
  const before = /^before: (tick 30 hash 0x[0-9a-f]+)$/m.exec(out);
  assert.ok(before, out);
  assert.equal(/^after: (.*)$/m.exec(out)?.[1], before[1], out);
  assert.match(out, /^moved at tick 30: [1-9]\d* records, [1-9]\d* bytes, writes refused for \d+\.\d ms$/m);
  assert.ok(out.includes(`source: UNAVAILABLE world 'roaming' moved to ${servers[1].address}; retry`), out);
});
