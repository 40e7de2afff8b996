// The documentation's Node first program (between
// <!-- snippet: node-first-program --> markers, in README.md or docs/*.md),
// run as a program against a live server. It is written inside this
// package, so `import ... from 'arbiter-client'` resolves to it.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
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
