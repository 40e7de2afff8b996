// The documentation's Node first program (between
// <!-- snippet: node-first-program --> markers, in README.md or docs/*.md),
// run as a program against a live server. It is written inside this
// package, so `import ... from 'arbiter-client'` resolves to it.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';

import { startServer } from './server.js';

const packageDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

// README.md ($ARBITER_README) and the pages of docs/ ($ARBITER_DOCS_DIR, by
// default the docs/ beside the README).
function documentation() {
  const readme = process.env.ARBITER_README;
  const docs = process.env.ARBITER_DOCS_DIR ?? path.join(path.dirname(readme), 'docs');
  const pages = readdirSync(docs).filter((f) => f.endsWith('.md')).sort().map((f) => path.join(docs, f));
  return [readme, ...pages];
}

function snippet(name) {
  const pattern = new RegExp(`<!-- snippet: ${name} -->\\n\`\`\`\\w*\\n([\\s\\S]*?)\`\`\`\\n<!-- /snippet -->`, 'g');
  const found = documentation().flatMap((file) => [...readFileSync(file, 'utf8').matchAll(pattern)].map((m) => m[1]));
  assert.ok(found.length > 0, `README.md and docs/*.md have no snippet ${name}`);
  assert.equal(found.length, 1, `snippet ${name} appears ${found.length} times in README.md and docs/*.md`);
  return found[0];
}

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
  assert.match(out, /max_batch 100/);
  assert.match(out, /tick 120: body 2 hit at y = (0\.99\d|1\.00\d)/);
  assert.match(out, /refused: bodies\[0\]\.shapes\[0\]\.shape\.circle\.radius: a raw Q32\.32 value must be a BigInt/);
});
