// The viewer page end to end in headless Chromium (Debian's chromium,
// driven by playwright-core): a live arbiter-server serving the demo scene,
// the world stepped through the `arbiter` CLI (gRPC), the page checked
// against what the CLI's DescribeWorld reports at the same ticks.
//
// usage: node viewer_test.mjs HTTP_URL GRPC_ADDRESS ARBITER_CLI SCREENSHOT.png VALIDATE_HIT
// Exit 0 when every check passed; the first failure is printed, exit 1.
import { execFileSync } from 'node:child_process';
import { chromium } from 'playwright-core';

const [httpUrl, grpcAddress, cli, screenshot, validateHit] = process.argv.slice(2);
const WORLD = 'demo';

function arbiter(...args) {
  return execFileSync(cli, [...args, '--server', grpcAddress, '--world', WORLD], { encoding: 'utf8' });
}

// Body id -> [x, y] as DescribeWorld reports them (exact: raw * 2^-32).
function describe() {
  const d = JSON.parse(arbiter('describe', '--bodies', '--json'));
  return { tick: d.tick, positions: new Map(d.bodies.map((b) => [String(b.id), b.position])) };
}

function check(ok, what) {
  if (!ok) throw new Error(`FAILED: ${what}`);
  console.log(`ok: ${what}`);
}

// The bodies the page has drawn: id -> [x, y] from their data attributes.
async function drawn(page) {
  return page.$$eval('#bodies g.body', (gs) => gs.map((g) => [g.dataset.id, [Number(g.dataset.x), Number(g.dataset.y)]]));
}

async function samePositions(page, expected, what) {
  const bodies = await drawn(page);
  check(bodies.length === expected.positions.size, `${what}: ${bodies.length} bodies drawn, the world has ${expected.positions.size}`);
  const wrong = bodies.filter(([id, [x, y]]) => {
    const p = expected.positions.get(id);
    return p === undefined || p[0] !== x || p[1] !== y;
  });
  check(wrong.length === 0, `${what}: every drawn position equals tick ${expected.tick}'s` +
        (wrong.length ? ` (first wrong: body ${wrong[0][0]} at ${wrong[0][1]})` : ''));
}

const waitTick = (page, tick) => page.waitForSelector(`#view[data-tick="${tick}"]`, { timeout: 30000 });

async function main() {
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
  try {
    const page = await browser.newPage({ viewport: { width: 1100, height: 640 } });
    page.on('pageerror', (e) => console.log(`page error: ${e.message}`));
    await page.goto(`${httpUrl}/?world=${WORLD}`);
    await page.waitForSelector('body[data-ready="1"]', { timeout: 30000 });
    await samePositions(page, describe(), 'on open');

    // Stepped over gRPC, redrawn from the event stream.
    arbiter('step', '30');
    await waitTick(page, 30);
    const at30 = describe();
    check(at30.tick === 30, 'the CLI stepped the world to tick 30');
    await samePositions(page, at30, 'after stepping 30 ticks');
    arbiter('step', '30');
    await waitTick(page, 60);
    const at60 = describe();
    await samePositions(page, at60, 'after stepping 30 more');

    // Scrub the timeline back: the past tick through the history.
    await page.$eval('#timeline', (t) => { t.value = '30'; t.dispatchEvent(new Event('input')); });
    await waitTick(page, 30);
    check(await page.$eval('#view', (v) => v.dataset.live) === '0', 'the page left live mode');
    await samePositions(page, at30, 'scrubbed to tick 30');

    // A click on a dynamic body shows its state.
    const id = await page.$eval('#bodies g.body.dynamic', (g) => g.dataset.id);
    await page.click(`#bodies g.body[data-id="${id}"]`, { force: true });
    const text = await page.$eval('#state', (s) => s.textContent);
    check(text.startsWith(`id ${id}\ntype dynamic\nposition (`), `clicking body ${id} shows its state`);

    // Back to live; ValidateHit verdicts drawn as the server gives them.
    await page.click('#live');
    await waitTick(page, 60);
    // Verdicts go to the streams open when they are given.
    await page.waitForSelector('#view[data-stream="1"]', { timeout: 30000 });
    const [x, y] = at60.positions.get(id);
    const shots = [[id, '1', x, y, 0, -5], [id, '3', x, y, 60, 0], [id, '3', x, y, 0, 20]];
    const verdicts = shots.map((s) => execFileSync(validateHit, [grpcAddress, WORLD, ...s.map(String)],
                                                   { encoding: 'utf8' }).trim());
    await page.waitForFunction((n) => document.querySelectorAll('#hits div').length === n, shots.length,
                               { timeout: 30000 });
    const listed = await page.$$eval('#hits div', (ds) => ds.map((d) => d.className).reverse());
    check(verdicts[0] === 'CONFIRMED', `body ${id} shooting the ground below it is CONFIRMED`);
    check(JSON.stringify(listed) === JSON.stringify(verdicts.map((v) => `${v}-text`)),
          `the page lists the verdicts the server gave (${verdicts.join(', ')})`);
    const drawnShots = await page.$$eval('#shots line.shot', (ls) => ls.map((l) => l.classList[1]));
    check(JSON.stringify(drawnShots) === JSON.stringify(verdicts), 'and draws each shot in its verdict\'s style');

    // A projectile judged through the history (ValidateShots, published by
    // the operation): its flight drawn as a polyline with a point per tick.
    const judged = JSON.parse(arbiter('validate-shot', '--shooter', id, '--shot', '1', '--fire', '50', '--target', '1',
      '--impact_tick', '52', '--flight_ticks', '20', '--json', String(x), String(y + 8), '0', '-120'));
    await page.waitForFunction(() => document.querySelectorAll('#shots polyline.shot').length === 1, null,
                               { timeout: 30000 });
    const [style, points] = await page.$eval('#shots polyline.shot',
                                             (p) => [p.classList[1], p.getAttribute('points').split(' ').length]);
    check(style === judged.verdict, `the page draws the judged flight in its verdict's style (${judged.verdict})`);
    check(points === judged.ticks_traced + 1,
          `through the fire point, each tick crossed and the end (${points} points, ${judged.ticks_traced} ticks traced)`);
    const listedShot = await page.$eval('#hits div', (d) => d.textContent);
    check(listedShot.includes(`shot 1 of ${id} (fired at tick 50) → 1 ${judged.verdict}`), `and lists it: "${listedShot}"`);
    await page.screenshot({ path: screenshot });
    console.log(`screenshot: ${screenshot}`);
  } finally {
    await browser.close();
  }
}

main().catch((e) => { console.error(e.message); process.exit(1); });
