"""World units <-> raw Q32.32, exactly as the core's Fixed::FromDouble.

A world unit value v travels as the int64 round(v * 2^32). The C++ side
rounds a double to nearest with ties away from zero (llround), saturates
values whose rounded result leaves the int64 range (and +-inf) to
-2^63 / 2^63 - 1, and maps NaN to 0. `fixed_from_double` reproduces that
bit for bit in integer arithmetic from the float's exact value
(float.as_integer_ratio), so it never depends on the platform's floating
point. Python ints are taken exactly (n units = n * 2^32 raw).

`to_raw` is what the client uses on requests: the same rounding, but NaN,
infinities and values outside the int64 range raise ArbiterValueError
naming the field instead of being saturated (a saturated value would only
be refused by the server with a less helpful message).
"""

import math

import grpc

from .errors import ArbiterValueError

FRACTION_BITS = 32
ONE = 1 << FRACTION_BITS
RAW_MIN = -(1 << 63)
RAW_MAX = (1 << 63) - 1


def _round_scaled(value):
    """round(value * 2^32), ties away from zero, for a finite float or an int."""
    if isinstance(value, int):
        return value << FRACTION_BITS
    num, den = value.as_integer_ratio()  # den is a power of two
    q, r = divmod(abs(num) << FRACTION_BITS, den)
    if 2 * r >= den:
        q += 1
    return -q if num < 0 else q


def fixed_from_double(value):
    """Fixed::FromDouble(value).raw(): saturating, NaN -> 0."""
    value = float(value)
    if math.isnan(value):
        return 0
    if math.isinf(value):
        return RAW_MIN if value < 0 else RAW_MAX
    scaled = _round_scaled(value)
    if scaled < RAW_MIN or scaled > RAW_MAX:
        return RAW_MIN if value < 0 else RAW_MAX
    return scaled


def to_raw(value, field="value"):
    """World units (int or float) -> raw int, refusing what cannot be represented."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ArbiterValueError(field, f"expected a number of world units, got {type(value).__name__}")
    if isinstance(value, float) and not math.isfinite(value):
        raise ArbiterValueError(field, f"{value} is not a finite number", grpc.StatusCode.OUT_OF_RANGE)
    scaled = _round_scaled(value)
    if scaled < RAW_MIN or scaled > RAW_MAX:
        raise ArbiterValueError(field, f"{value} is outside the Q32.32 range [-2^31, 2^31) units",
                                grpc.StatusCode.OUT_OF_RANGE)
    return scaled


def to_units(raw):
    """raw Q32.32 -> float units (exact when |raw| < 2^53, else the nearest float)."""
    return raw / ONE
