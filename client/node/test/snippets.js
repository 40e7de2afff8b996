// The documentation's snippets (between <!-- snippet: NAME --> markers, in
// README.md or docs/*.md) and what the Node first program must print, for
// readme.test.js and package.test.js.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

// README.md ($ARBITER_README) and the pages of docs/ ($ARBITER_DOCS_DIR, by
// default the docs/ beside the README).
function documentation() {
  const readme = process.env.ARBITER_README;
  const docs = process.env.ARBITER_DOCS_DIR ?? path.join(path.dirname(readme), 'docs');
  const pages = readdirSync(docs).filter((f) => f.endsWith('.md')).sort().map((f) => path.join(docs, f));
  return [readme, ...pages];
}

export function snippet(name) {
  const pattern = new RegExp(`<!-- snippet: ${name} -->\\n\`\`\`\\w*\\n([\\s\\S]*?)\`\`\`\\n<!-- /snippet -->`, 'g');
  const found = documentation().flatMap((file) => [...readFileSync(file, 'utf8').matchAll(pattern)].map((m) => m[1]));
  assert.ok(found.length > 0, `README.md and docs/*.md have no snippet ${name}`);
  assert.equal(found.length, 1, `snippet ${name} appears ${found.length} times in README.md and docs/*.md`);
  return found[0];
}

/** The Node first program's output: its answers and the refusal it provokes. */
export function assertFirstProgramOutput(out) {
  assert.match(out, /max_batch 100/);
  assert.match(out, /tick 120: body 2 hit at y = (0\.99\d|1\.00\d)/);
  assert.match(out, /refused: bodies\[0\]\.shapes\[0\]\.shape\.circle\.radius: a raw Q32\.32 value must be a BigInt/);
}
