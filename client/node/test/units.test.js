// World units -> raw: identical to the core's Fixed::FromDouble (the
// tests/clients/fixed_from_double helper), edge cases and random doubles.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';

import { fixedFromDouble, fromUnits, rawOf, toUnits, RAW_MAX, RAW_MIN } from '../index.js';

const view = new DataView(new ArrayBuffer(8));
const bitsOf = (d) => { view.setFloat64(0, d); return view.getBigUint64(0); };
const fromBits = (b) => { view.setBigUint64(0, b); return view.getFloat64(0); };

function edgeDoubles() {
  const t31 = 2 ** 31;
  const half = 2 ** -33;
  return [0, -0, 1, -1, 1.5, -1.5, 0.1, -0.1, 1e-300, -1e-300, 5e-324, -5e-324, 2.2250738585072014e-308,
    half, -half, 3 * half, -3 * half, half * 0.999999, 2 ** -32, 2 ** -32 + 2 ** -60, t31, -t31,
    t31 - 2 ** -32, -t31 + 2 ** -32, t31 - 2 ** -33, t31 - 2 ** -34, -t31 - 2 ** -33, -t31 - 2 ** -32,
    -t31 - 2 ** -22, 2 * t31, -2 * t31, 1e300, -1e300, 2 ** 29, -(2 ** 29), 123456.789, -0.5 * 2 ** -32,
    Infinity, -Infinity, NaN, fromBits(0x7ff8000000000001n), fromBits(0xfff8000000000000n)];
}

// A small seeded generator (xorshift64*), so failures reproduce.
function randomDoubles(count, seed) {
  let s = BigInt(seed);
  const next = () => {
    s ^= s >> 12n; s ^= (s << 25n) & 0xffffffffffffffffn; s ^= s >> 27n;
    return (s * 0x2545f4914f6cdd1dn) & 0xffffffffffffffffn;
  };
  const out = [];
  for (let i = 0; i < count; i++) {
    const r = next();
    if (i % 3 === 0) out.push(fromBits(r));
    else if (i % 3 === 1) out.push((Number(r >> 11n) / 2 ** 53 - 0.5) * 2 ** 32);
    else out.push((Number(BigInt.asIntN(63, r)) + 0.5) / 2 ** 32);
  }
  return out;
}

function coreRaws(doubles) {
  const input = doubles.map((d) => bitsOf(d).toString(16).padStart(16, '0')).join('\n') + '\n';
  const out = execFileSync(process.env.ARBITER_FIXED_HELPER, { input, encoding: 'utf8' });
  return out.trim().split('\n').map((line) => BigInt(line));
}

test('fixedFromDouble equals the core for edge cases and 5000 random doubles', () => {
  const doubles = [...edgeDoubles(), ...randomDoubles(5000, 14)];
  const expected = coreRaws(doubles);
  assert.equal(expected.length, doubles.length);
  const mismatches = doubles.filter((d, i) => fixedFromDouble(d) !== expected[i]);
  assert.deepEqual(mismatches, []);
});

test('fromUnits equals the core where representable and throws naming the field otherwise', () => {
  const doubles = [...edgeDoubles(), ...randomDoubles(1000, 7)];
  const expected = coreRaws(doubles);
  doubles.forEach((d, i) => {
    const saturated = expected[i] === RAW_MAX || (expected[i] === RAW_MIN && d !== -(2 ** 31) && d < -(2 ** 31));
    if (!Number.isFinite(d) || saturated) {
      assert.throws(() => fromUnits(d, 'radius'), (e) => e instanceof RangeError && e.message.startsWith('radius:'));
    } else {
      assert.equal(fromUnits(d), expected[i], `for ${d}`);
    }
  });
});

test('a plain number where a raw value is expected is a TypeError', () => {
  assert.throws(() => rawOf(1.5, 'radius'), (e) => e instanceof TypeError && /fromUnits\(1\.5\)/.test(e.message));
  assert.throws(() => rawOf(1, 'radius'), TypeError);
  assert.throws(() => fromUnits(1n, 'x'), TypeError);
  assert.equal(rawOf(6442450944n), 6442450944n);
  assert.equal(toUnits(6442450944n), 1.5);
  assert.throws(() => toUnits(1.5), TypeError);
});
