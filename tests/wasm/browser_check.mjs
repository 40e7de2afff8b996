// The browser check (issue 18): a page running the wasm core restores a
// world from the server's snapshot, steps it tick by tick alongside the
// server, and the server judges every tick's hash with ReportHashes.
//
//   node browser_check.mjs SERVER_BINARY REPO_ROOT WASM_DIR
//
// Starts arbiter-server on a free loopback port with rain-2k (no journal),
// steps it 60 ticks (contacts and warm-start state in the snapshot), serves
// page.html and WASM_DIR's arbiter.mjs + arbiter_wasm.mjs from a local
// static server, and drives headless Debian Chromium with playwright-core.
// Then, in chunks: the page steps, the server steps (hash_every_tick), and
// ReportHashes must answer in_sync with each local hash equal to the
// server's. Finally the page changes its world behind the server's back and
// ReportHashes must name the first tick after that change as divergent: the
// check can fail. Exit status 0 when all holds.
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import grpc from '@grpc/grpc-js';
import protoLoader from '@grpc/proto-loader';
import { chromium } from 'playwright-core';

const [serverBinary, repoRoot, wasmDir] = process.argv.slice(2);
if (!serverBinary || !repoRoot || !wasmDir) {
  console.error('usage: node browser_check.mjs SERVER_BINARY REPO_ROOT WASM_DIR');
  process.exit(2);
}
const here = path.dirname(fileURLToPath(import.meta.url));
const WORLD = 'rain-2k';
const TICKS = 120;
const CHUNK = 10;

function fail(message) {
  throw new Error(message);
}

function startServer() {
  const server = spawn(serverBinary, [
    '--listen=127.0.0.1:0',
    '--data_dir=',
    `--scene=${path.join(repoRoot, 'scenes', 'rain-2k.scene.json')}`,
  ]);
  server.stderr.on('data', (d) => process.stderr.write(`[server] ${d}`));
  return new Promise((resolve, reject) => {
    let out = '';
    server.stdout.on('data', (d) => {
      out += d;
      const m = out.match(/listening on 127\.0\.0\.1:(\d+)/);
      if (m) resolve({ server, port: Number(m[1]) });
    });
    server.on('exit', (code) => reject(new Error(`arbiter-server exited with ${code} before listening`)));
  });
}

function connect(port) {
  const def = protoLoader.loadSync('arbiter/v1/arbiter.proto', {
    includeDirs: [path.resolve(repoRoot, 'proto')],
    keepCase: true, // the proto's field names
    longs: String, // 64-bit values whole (hashes are fixed64)
    defaults: true,
  });
  const Arbiter = grpc.loadPackageDefinition(def).arbiter.v1.Arbiter;
  const client = new Arbiter(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  return (method, request) =>
    new Promise((resolve, reject) =>
      client[method](request, (err, reply) => (err ? reject(new Error(`${method}: ${err.message}`)) : resolve(reply))),
    );
}

// page.html and the module files, from one origin (ES modules need http).
function startStatic() {
  const files = {
    '/page.html': [path.join(here, 'page.html'), 'text/html'],
    '/arbiter.mjs': [path.join(wasmDir, 'arbiter.mjs'), 'text/javascript'],
    '/arbiter_wasm.mjs': [path.join(wasmDir, 'arbiter_wasm.mjs'), 'text/javascript'],
  };
  const server = http.createServer(async (req, res) => {
    const file = files[req.url];
    if (req.url === '/favicon.ico') {
      res.writeHead(204).end();
      return;
    }
    if (!file) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': file[1] }).end(await readFile(file[0]));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

async function main() {
  const { server, port } = await startServer();
  const web = await startStatic();
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
  try {
    const call = connect(port);
    await call('Step', { world_id: WORLD, ticks: 60, omit_events: true });
    const snap = await call('GetSnapshot', { world_id: WORLD });
    console.log(`server: ${WORLD} at tick ${snap.tick}, snapshot ${snap.snapshot.length} bytes, hash ${BigInt(snap.state_hash).toString(16)}`);

    const page = await browser.newPage();
    page.on('console', (m) => console.log(`[page] ${m.text()}`));
    page.on('pageerror', (e) => console.log(`[page error] ${e.message}`));
    await page.goto(`http://127.0.0.1:${web.address().port}/page.html`);
    await page.waitForFunction(() => window.arbiterReady === true, null, { timeout: 60000 });
    if ((await page.evaluate(() => window.rawFromDouble(0.1))) !== '429496730') fail('rawFromDouble(0.1) in the page');

    const restored = await page.evaluate((bytes) => window.restore(bytes), Array.from(snap.snapshot));
    if (restored.tick !== Number(snap.tick) || restored.hash !== BigInt(snap.state_hash).toString()) {
      fail(`restored world: tick ${restored.tick} hash ${restored.hash}, server tick ${snap.tick} hash ${snap.state_hash}`);
    }
    console.log(`page: restored ${restored.bodies} bodies at tick ${restored.tick}, same hash as the server`);

    let contactBegins = 0;
    for (let done = 0; done < TICKS; done += CHUNK) {
      const local = await page.evaluate((n) => window.stepTicks(n), CHUNK);
      const stepped = await call('Step', { world_id: WORLD, ticks: CHUNK, hash_every_tick: true });
      const report = await call('ReportHashes', {
        world_id: WORLD,
        first_tick: local[0].tick,
        state_hashes: local.map((t) => t.hash),
      });
      local.forEach((t, i) => {
        const server = stepped.ticks[i];
        if (Number(server.tick) !== t.tick || BigInt(server.state_hash).toString() !== t.hash) {
          fail(`tick ${t.tick}: page hash ${BigInt(t.hash).toString(16)}, server ${BigInt(server.state_hash).toString(16)}`);
        }
        if (server.contact_begin.length !== t.contactBegins) fail(`tick ${t.tick}: contact begins differ`);
        contactBegins += t.contactBegins;
      });
      if (!report.in_sync) fail(`ReportHashes: diverged at tick ${report.first_divergent_tick}`);
    }
    console.log(`ok: ${TICKS} ticks, every tick's hash equal to the server's and ReportHashes in sync (${contactBegins} contact begins)`);

    // The check must be able to fail: a change the server never saw.
    const nudged = await page.evaluate(() => window.nudge());
    const local = await page.evaluate((n) => window.stepTicks(n), 5);
    await call('Step', { world_id: WORLD, ticks: 5, omit_events: true });
    const report = await call('ReportHashes', { world_id: WORLD, first_tick: local[0].tick, state_hashes: local.map((t) => t.hash) });
    if (report.in_sync || Number(report.first_divergent_tick) !== local[0].tick) {
      fail(`after the page moved body ${nudged.id}: ReportHashes ${JSON.stringify(report)}`);
    }
    console.log(`ok: after the page moved body ${nudged.id} on its own, ReportHashes names tick ${report.first_divergent_tick} as divergent`);
  } finally {
    await browser.close();
    web.close();
    server.kill('SIGTERM');
  }
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(`browser_check: FAILED: ${e.message}`);
    process.exit(1);
  },
);
