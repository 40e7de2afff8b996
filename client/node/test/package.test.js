// The package installed the ecosystem's way, into a clean project outside
// the repository (CTest's node_client.npm_install), by docs/clients.md's
// commands run as they stand with bash: node-install, `npm pack` (whose
// prepack copies proto/ into the package; run from the root of a copy laid
// out as the repository is) then `npm install ./arbiter-client-<version>.tgz`
// in a fresh `npm init` folder (dependencies from npm's cache when it has
// them, else the registry); and node-install-folder, `npm install` of
// client/node, which links the folder. Each install runs the documented first
// program against a live server, as readme.test.js runs it inside the package.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';

import { startServer } from './server.js';
import { assertFirstProgramOutput, snippet } from './snippets.js';

const packageDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const npmFlags = ['--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'];
// The same as npm's environment, for the documented commands run as they stand.
const npmEnv = {
  npm_config_prefer_offline: 'true', npm_config_audit: 'false', npm_config_fund: 'false', npm_config_loglevel: 'error',
};

function npm(args, cwd) {
  return execFileSync('npm', [...args, ...npmFlags], { cwd, encoding: 'utf8', env: { ...process.env, NODE_PATH: '' } });
}

// A documented snippet, as it stands, with bash in `cwd`.
function runSnippet(name, cwd, env) {
  const commands = snippet(name);
  try {
    return execFileSync('bash', ['-euo', 'pipefail', '-c', commands],
      { cwd, encoding: 'utf8', env: { ...process.env, NODE_PATH: '', ...npmEnv, ...env } });
  } catch (e) {
    throw new Error(`snippet ${name} failed:\n${commands}${e.stdout ?? ''}${e.stderr ?? ''}`);
  }
}

// A fresh project in a temporary folder; removed after the test.
function freshProject(t) {
  const dir = mkdtempSync(path.join(tmpdir(), 'arbiter-npm-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  npm(['init', '-y'], dir);
  return dir;
}

// Runs the documented first program from `dir`; returns where
// 'arbiter-client' resolved from there.
function runFirstProgram(dir, server) {
  writeFileSync(path.join(dir, 'first.mjs'), snippet('node-first-program'));
  const env = { ...process.env, ARBITER_SERVER: server.address, NODE_PATH: '' };
  delete env.ARBITER_PROTO_DIR;
  assertFirstProgramOutput(execFileSync(process.execPath, ['first.mjs'], { cwd: dir, encoding: 'utf8', env }));
  const where = execFileSync(process.execPath, ['-e', "console.log(require.resolve('arbiter-client'))"],
    { cwd: dir, encoding: 'utf8', env });
  return where.trim();
}

// The package's files and proto/ copied into a temporary tree laid out as
// the repository is, so that packing (prepack writes proto/ into the
// package, postpack removes it) never touches the folder the other tests
// load the protos from.
function packingTree(t) {
  const root = mkdtempSync(path.join(tmpdir(), 'arbiter-pack-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const copy = path.join(root, 'client', 'node');
  const manifest = JSON.parse(readFileSync(path.join(packageDir, 'package.json'), 'utf8'));
  for (const file of ['package.json', ...manifest.files.filter((f) => !f.startsWith('proto'))]) {
    cpSync(path.join(packageDir, file), path.join(copy, file));
  }
  cpSync(path.join(packageDir, '..', '..', 'proto'), path.join(root, 'proto'), { recursive: true });
  return { root, copy, version: manifest.version };
}

test('npm pack, then npm install of the tarball in a clean project', async (t) => {
  const server = await startServer('--max_batch=100');
  t.after(() => server.stop());
  const dir = freshProject(t);
  const { root, copy, version } = packingTree(t);
  runSnippet('node-install', root, { PROJECT: dir });
  assert.ok(!existsSync(path.join(copy, 'proto')), 'postpack left client/node/proto behind');
  const tarball = `arbiter-client-${version}.tgz`;
  assert.ok(existsSync(path.join(dir, tarball)), `no ${tarball}: does the documented command name this version?`);
  const installed = path.join(dir, 'node_modules', 'arbiter-client');
  assert.ok(existsSync(path.join(installed, 'proto', 'arbiter', 'v1', 'arbiter.proto')), 'the tarball has no protos');
  assert.ok(!existsSync(path.join(installed, 'test')), 'the tarball ships the tests');
  const resolved = runFirstProgram(dir, server);
  assert.equal(realpathSync(resolved), realpathSync(path.join(installed, 'index.js')));
});

test('npm install of the client/node folder in a clean project', async (t) => {
  const server = await startServer('--max_batch=100');
  t.after(() => server.stop());
  const dir = freshProject(t);
  runSnippet('node-install-folder', tmpdir(), { PROJECT: dir, ARBITER_REPO: path.resolve(packageDir, '..', '..') });
  const resolved = runFirstProgram(dir, server);
  assert.equal(realpathSync(resolved), realpathSync(path.join(packageDir, 'index.js')));
});
