// World units <-> raw Q32.32 (BigInt), exactly as the core's Fixed::FromDouble.
//
// A world-unit value v travels as the int64 round(v * 2^32). The core rounds
// a double to nearest, ties away from zero, saturates results outside the
// int64 range (and +-Infinity) and maps NaN to 0. fixedFromDouble does the
// same in BigInt arithmetic from the double's bits, so it is exact on every
// machine. fromUnits is what requests use: the same rounding, but NaN,
// infinities and out-of-range values throw a RangeError naming the field.
//
// Raw values are BigInt and nothing else: rawOf(1.5) throws a TypeError, so
// a world-unit number can never pass silently as a raw value (the bug where
// `radius: 1.5` became raw 1, i.e. 2^-32 units).

export const FRACTION_BITS = 32n;
export const RAW_MIN = -(1n << 63n);
export const RAW_MAX = (1n << 63n) - 1n;

const bitsView = new DataView(new ArrayBuffer(8));

/** The double's exact value as sign * mantissa * 2^exponent (BigInt mantissa). */
function decompose(d) {
  bitsView.setFloat64(0, d);
  const bits = bitsView.getBigUint64(0);
  const negative = (bits >> 63n) === 1n;
  const biased = Number((bits >> 52n) & 0x7ffn);
  const fraction = bits & ((1n << 52n) - 1n);
  // Subnormals have no implicit bit and the exponent of the smallest normal.
  const mantissa = biased === 0 ? fraction : fraction | (1n << 52n);
  const exponent = (biased === 0 ? 1 : biased) - 1075;
  return { negative, mantissa, exponent };
}

/** round(d * 2^32), ties away from zero, for a finite double d. */
function roundScaled(d) {
  const { negative, mantissa, exponent } = decompose(d);
  const shift = exponent + 32;
  let magnitude;
  if (shift >= 0) {
    magnitude = mantissa << BigInt(shift);
  } else {
    const down = BigInt(-shift);
    magnitude = mantissa >> down;
    const remainder = mantissa - (magnitude << down);
    if (remainder * 2n >= 1n << down) magnitude += 1n;
  }
  return negative ? -magnitude : magnitude;
}

/** Fixed::FromDouble(d).raw() as a BigInt: saturating, NaN -> 0n. */
export function fixedFromDouble(d) {
  if (Number.isNaN(d)) return 0n;
  if (!Number.isFinite(d)) return d < 0 ? RAW_MIN : RAW_MAX;
  const scaled = roundScaled(d);
  if (scaled < RAW_MIN || scaled > RAW_MAX) return d < 0 ? RAW_MIN : RAW_MAX;
  return scaled;
}

/** World units (a number) -> raw BigInt; throws for what cannot be represented. */
export function fromUnits(value, field = 'value') {
  if (typeof value === 'bigint') {
    throw new TypeError(`${field}: fromUnits takes world units as a number; ${value}n is already a BigInt (a raw value?)`);
  }
  if (typeof value !== 'number') throw new TypeError(`${field}: expected a number of world units, got ${typeof value}`);
  if (!Number.isFinite(value)) throw new RangeError(`${field}: ${value} is not a finite number`);
  const scaled = roundScaled(value);
  if (scaled < RAW_MIN || scaled > RAW_MAX) {
    throw new RangeError(`${field}: ${value} is outside the Q32.32 range [-2^31, 2^31) units`);
  }
  return scaled;
}

/** raw BigInt -> world units as a number (exact when |raw| < 2^53). */
export function toUnits(raw) {
  if (typeof raw !== 'bigint') throw new TypeError(`toUnits takes a raw BigInt, got ${typeof raw}`);
  return Number(raw) / 4294967296;
}

/** A raw Q32.32 value: BigInt only, in the int64 range. */
export function rawOf(value, field = 'value') {
  if (typeof value !== 'bigint') {
    const hint = typeof value === 'number' ? ` (for ${value} world units use fromUnits(${value}))` : '';
    throw new TypeError(`${field}: a raw Q32.32 value must be a BigInt, got ${typeof value} ${String(value)}${hint}`);
  }
  if (value < RAW_MIN || value > RAW_MAX) throw new RangeError(`${field}: ${value} is outside the int64 range`);
  return value;
}
