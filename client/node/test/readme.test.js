// The README's Node first program (between <!-- snippet: node-first-program -->
// markers), run as a program against a live server. It is written inside
// this package, so `import ... from 'arbiter-client'` resolves to it.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';

import { startServer } from './server.js';

const packageDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function snippet(name) {
  const text = readFileSync(process.env.ARBITER_README, 'utf8');
  const match = new RegExp(`<!-- snippet: ${name} -->\\n\`\`\`\\w*\\n([\\s\\S]*?)\`\`\`\\n<!-- /snippet -->`).exec(text);
  assert.ok(match, `README.md has no snippet ${name}`);
  return match[1];
}

test('the README first program runs and prints its answers', async (t) => {
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
  assert.match(out, /max_batch 100/);
  assert.match(out, /tick 120: body 2 hit at y = (0\.99\d|1\.00\d)/);
  assert.match(out, /refused: bodies\[0\]\.shapes\[0\]\.shape\.circle\.radius: a raw Q32\.32 value must be a BigInt/);
});
