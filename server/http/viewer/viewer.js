// The Arbiter live viewer. Draws one world as SVG: bodies from
// GET /api/worlds/W (optionally ?at=TICK, the past-tick path), redrawn on
// every "tick" of the server-sent event stream /api/worlds/W/events, with
// ValidateHit verdicts and ValidateShots flights ("hit" events) drawn as they arrive.
//
// Hooks for tests and tools: #view carries data-tick (the tick drawn) and
// data-live ("1" while following the world) and data-stream ("1" once the
// event stream has delivered its first message); each body is a
// <g class="body TYPE" data-id data-x data-y> whose x/y are the numbers the
// server sent (exact decimals of the Q32.32 values, parsed by JSON.parse).
'use strict';

const SVG = 'http://www.w3.org/2000/svg';
const $ = (id) => document.getElementById(id);
const state = { world: null, live: true, events: null, bodies: [], selected: null,
                camera: { x: 0, y: 0, scale: 10 }, oldest: 0, liveTick: 0 };

function el(tag, attrs, parent) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}

async function getJson(url) {
  const res = await fetch(url, { credentials: 'same-origin' });
  const body = await res.json();
  if (!res.ok) throw new Error(`${body.code}: ${body.error}`);
  return body;
}

// ---- Drawing ---------------------------------------------------------------

function drawShape(g, body, shape, index) {
  const line = shape.kind === 'segment' || shape.kind === 'chain_segment';
  const cls = [shape.sensor ? 'sensor' : '', line ? 'segment' : '', shape.kind === 'chain_segment' ? 'chain' : ''];
  let e;
  if (shape.kind === 'circle') {
    e = el('circle', { cx: shape.cx, cy: shape.cy, r: shape.r }, g);
  } else if (shape.kind === 'polygon') {
    e = el('polygon', { points: shape.points.map((p) => p.join(',')).join(' ') }, g);
    if (shape.r > 0) { cls.push('round'); e.setAttribute('stroke-width', 2 * shape.r); }
  } else {
    // A capsule is a line of width 2r with round caps, exactly.
    e = el('line', { x1: shape.x1, y1: shape.y1, x2: shape.x2, y2: shape.y2 }, g);
    if (shape.kind === 'capsule') { cls.push('round'); e.setAttribute('stroke-width', 2 * shape.r); }
  }
  e.setAttribute('class', cls.filter(Boolean).join(' '));
  el('title', {}, e).textContent = `body ${body.id} shape ${index}: ${body.type} ${shape.kind}`;
}

function drawBodies(tick, bodies) {
  const layer = $('bodies');
  layer.replaceChildren();
  for (const b of bodies) {
    const g = el('g', { class: `body ${b.type}`, 'data-id': b.id, 'data-x': b.x, 'data-y': b.y,
                        transform: `matrix(${b.c} ${b.s} ${-b.s} ${b.c} ${b.x} ${b.y})` }, layer);
    if (b.id === state.selected) g.classList.add('selected');
    b.shapes.forEach((s, i) => drawShape(g, b, s, i));
    g.addEventListener('click', (ev) => { ev.stopPropagation(); select(b.id); });
  }
  state.bodies = bodies;
  $('view').dataset.tick = tick;
  $('tick').textContent = tick;
  if (state.selected !== null) showState();
}

function select(id) {
  state.selected = id;
  for (const g of $('bodies').children) g.classList.toggle('selected', g.dataset.id === id);
  showState();
}

function showState() {
  const b = state.bodies.find((x) => x.id === state.selected);
  $('state').textContent = b === undefined ? `body ${state.selected}: not in this tick` :
    `id ${b.id}\ntype ${b.type}\nposition (${b.x}, ${b.y})\nrotation (c ${b.c}, s ${b.s})\n` +
    `velocity (${b.vx}, ${b.vy})\nangular velocity ${b.w}\nshapes ${b.shapes.length}\ntick ${$('view').dataset.tick}`;
}

// A verdict line in the list beside the view (the newest 20).
function listVerdict(verdict, text) {
  const line = document.createElement('div');
  line.className = `${verdict}-text`;
  line.textContent = text;
  $('hits').prepend(line);
  while ($('hits').children.length > 20) $('hits').lastChild.remove();
}

// A judged projectile (ValidateShots): its flight as a polyline through
// where it was at each tick it crossed (a dot per tick), from the fire point
// (blue) to what it met (green on the target, orange on a blocker).
function drawShot(s) {
  const layer = $('shots');
  const g = el('g', { class: 'verdict flight' }, layer);
  const points = s.path.map((p) => `${p.x},${p.y}`).join(' ');
  el('polyline', { class: `shot ${s.verdict}`, points }, g);
  const dot = 6 / state.camera.scale;
  el('circle', { class: 'mark shooter', cx: s.path[0].x, cy: s.path[0].y, r: dot }, g);
  for (const p of s.path.slice(1, -1)) el('circle', { class: 'tickmark', cx: p.x, cy: p.y, r: dot / 3 }, g);
  if (s.hit) {
    el('circle', { class: `mark ${s.verdict === 'BLOCKED' ? 'blocker' : 'target'}`, cx: s.hit.x, cy: s.hit.y, r: dot }, g);
  }
  while (layer.children.length > 20) layer.firstChild.remove();
  listVerdict(s.verdict, `tick ${s.tick}: shot ${s.shot} of ${s.shooter} (fired at tick ${s.fire_tick}) → ` +
    `${s.target} ${s.verdict}` + (s.hit && s.verdict === 'BLOCKED' ? ` by ${s.hit.body}` : ''));
}

// A verdict: the ray, the shooter (blue), the blocker (orange) or target (green).
function drawHit(h) {
  if (h.kind === 'shot') return drawShot(h);
  const layer = $('shots');
  const g = el('g', { class: 'verdict' }, layer);
  const end = h.first_hit ? [h.first_hit.x, h.first_hit.y] : [h.ray.x + h.ray.dx, h.ray.y + h.ray.dy];
  el('line', { class: `shot ${h.verdict}`, x1: h.ray.x, y1: h.ray.y, x2: end[0], y2: end[1] }, g);
  const dot = 6 / state.camera.scale;
  el('circle', { class: 'mark shooter', cx: h.ray.x, cy: h.ray.y, r: dot }, g);
  if (h.verdict === 'BLOCKED') el('circle', { class: 'mark blocker', cx: h.first_hit.x, cy: h.first_hit.y, r: dot }, g);
  if (h.target_hit) el('circle', { class: 'mark target', cx: h.target_hit.x, cy: h.target_hit.y, r: dot }, g);
  while (layer.children.length > 20) layer.firstChild.remove();
  listVerdict(h.verdict, `tick ${h.tick}: ${h.shooter} → ${h.target} ${h.verdict}` +
    (h.verdict === 'BLOCKED' ? ` by ${h.first_hit.body}` : ''));
}

// ---- Camera: drag to pan, wheel to zoom ---------------------------------------

function applyCamera() {
  const c = state.camera;
  $('camera').setAttribute('transform', `translate(${c.x} ${c.y}) scale(${c.scale})`);
}

function fitView(bodies) {
  let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
  for (const b of bodies) {
    minX = Math.min(minX, b.x); maxX = Math.max(maxX, b.x); minY = Math.min(minY, b.y); maxY = Math.max(maxY, b.y);
  }
  if (!isFinite(minX)) { minX = minY = -10; maxX = maxY = 10; }
  const box = $('view').getBoundingClientRect();
  const scale = Math.min(box.width / (maxX - minX + 10), box.height / (maxY - minY + 10));
  state.camera = { scale, x: box.width / 2 - scale * (minX + maxX) / 2, y: box.height / 2 + scale * (minY + maxY) / 2 };
  applyCamera();
}

function setupCamera() {
  const view = $('view');
  let drag = null;
  view.addEventListener('mousedown', (e) => { drag = { x: e.clientX, y: e.clientY }; view.classList.add('dragging'); });
  window.addEventListener('mouseup', () => { drag = null; view.classList.remove('dragging'); });
  window.addEventListener('mousemove', (e) => {
    if (!drag) return;
    state.camera.x += e.clientX - drag.x; state.camera.y += e.clientY - drag.y;
    drag = { x: e.clientX, y: e.clientY };
    applyCamera();
  });
  view.addEventListener('wheel', (e) => {
    e.preventDefault();
    const box = view.getBoundingClientRect();
    const px = e.clientX - box.left, py = e.clientY - box.top, f = Math.exp(-e.deltaY / 500);
    const c = state.camera;
    c.x = px - (px - c.x) * f; c.y = py - (py - c.y) * f; c.scale *= f;
    applyCamera();
  }, { passive: false });
  view.addEventListener('click', () => {
    state.selected = null;
    for (const g of $('bodies').children) g.classList.remove('selected');
    $('state').textContent = 'Click a body.';
  });
}

// ---- Live stream and timeline ---------------------------------------------------

function setTimeline(oldest, liveTick) {
  state.oldest = oldest; state.liveTick = liveTick;
  const t = $('timeline');
  t.min = oldest; t.max = liveTick;
  if (state.live) t.value = liveTick;
}

function setLive(live) {
  state.live = live;
  $('view').dataset.live = live ? '1' : '0';
  $('mode').textContent = live ? '(live)' : '(past)';
}

function openEvents(world) {
  if (state.events) state.events.close();
  const events = new EventSource(`/api/worlds/${encodeURIComponent(world)}/events`);
  $('view').dataset.stream = '0';
  events.addEventListener('tick', (e) => {
    const m = JSON.parse(e.data);
    $('view').dataset.stream = '1';
    // The oldest tick moves with the window; the page's value is a floor.
    setTimeline(Math.max(state.oldest, m.tick - Number($('timeline').dataset.window || 0)), m.tick);
    if (state.live) drawBodies(m.tick, m.bodies);
  });
  events.addEventListener('hit', (e) => drawHit(JSON.parse(e.data)));
  events.addEventListener('end', (e) => { $('mode').textContent = `(stream ended: ${JSON.parse(e.data).reason})`; });
  state.events = events;
}

async function showPast(tick) {
  setLive(false);
  const w = await getJson(`/api/worlds/${encodeURIComponent(state.world)}?at=${tick}`);
  setTimeline(w.oldest_tick, w.live_tick);
  drawBodies(w.tick, w.bodies);
}

async function openWorld(world) {
  state.world = world;
  setLive(true);
  const w = await getJson(`/api/worlds/${encodeURIComponent(world)}`);
  const info = (await getJson('/api/worlds')).worlds.find((x) => x.world_id === world);
  $('timeline').dataset.window = info ? info.history_ticks : 0;
  setTimeline(w.oldest_tick, w.live_tick);
  drawBodies(w.tick, w.bodies);
  fitView(w.bodies);
  openEvents(world);
}

async function main() {
  setupCamera();
  const token = $('token');
  token.addEventListener('change', () => {
    document.cookie = `arbiter_token=${token.value}; path=/; SameSite=Strict`;
    location.reload();
  });
  $('timeline').addEventListener('input', (e) => showPast(Number(e.target.value)).catch(report));
  $('live').addEventListener('click', () => openWorld(state.world).catch(report));
  $('worlds').addEventListener('change', (e) => openWorld(e.target.value).catch(report));
  const { worlds } = await getJson('/api/worlds');
  $('worlds').replaceChildren(...worlds.map((w) => {
    const o = document.createElement('option');
    o.value = w.world_id; o.textContent = `${w.world_id} (${w.body_count} bodies)`;
    return o;
  }));
  const wanted = new URLSearchParams(location.search).get('world');
  const first = worlds.find((w) => w.world_id === wanted) || worlds[0];
  if (first) { $('worlds').value = first.world_id; await openWorld(first.world_id); }
  document.body.dataset.ready = '1';
}

function report(err) { $('mode').textContent = `(${err.message})`; }

main().catch(report);
