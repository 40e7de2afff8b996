"""World units -> raw: identical to the core's Fixed::FromDouble (the
tests/clients/fixed_from_double helper) for edge cases and many random doubles."""

import math
import os
import random
import struct
import subprocess
from fractions import Fraction

import grpc
import pytest

from arbiter_client import ArbiterValueError, fixed_from_double, to_raw, to_units


def bits(d):
    return struct.unpack("<Q", struct.pack("<d", d))[0]


def from_bits(b):
    return struct.unpack("<d", struct.pack("<Q", b))[0]


def edge_doubles():
    two31 = 2.0**31
    ulp_half = 2.0**-33  # half a raw step
    values = [0.0, -0.0, 1.0, -1.0, 1.5, -1.5, 0.1, -0.1, 1e-300, -1e-300, 5e-324, -5e-324,
              2.2250738585072014e-308, ulp_half, -ulp_half, 3 * ulp_half, -3 * ulp_half, ulp_half * 0.999999,
              2.0**-32, 2.0**-32 + 2.0**-60, two31, -two31, two31 - 2.0**-32, -two31 + 2.0**-32,
              two31 - 2.0**-33, two31 - 2.0**-34, -two31 - 2.0**-33, -two31 - 2.0**-32, -two31 - 2.0**-22,
              two31 * 2, -two31 * 2, 1e300, -1e300, 2.0**29, -(2.0**29), 123456.789, -0.5 * 2.0**-32,
              float("inf"), float("-inf"), float("nan"), from_bits(0x7FF8000000000001), from_bits(0xFFF8000000000000)]
    return values


def random_doubles(count=4000, seed=14):
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        kind = rng.randrange(3)
        if kind == 0:
            out.append(from_bits(rng.getrandbits(64)))  # anything, NaNs included
        elif kind == 1:
            out.append(rng.uniform(-2.0**31, 2.0**31))
        else:  # exact halves of a raw step, and their neighbours
            raw = rng.randrange(-2**62, 2**62)
            out.append((raw + 0.5) / 2**32 + rng.choice([0.0, 2.0**-60, -2.0**-60]))
    return out


def core_raws(doubles):
    helper = os.environ["ARBITER_FIXED_HELPER"]
    text = "".join(f"{bits(d):016x}\n" for d in doubles)
    out = subprocess.run([helper], input=text, capture_output=True, text=True, check=True).stdout
    return [int(line) for line in out.split()]


def representable(d):
    """Whether d * 2^32 rounds (half away from zero) into the int64 range, by Fraction."""
    if not math.isfinite(d):
        return False
    v = abs(Fraction(d) * 2**32)
    r = math.floor(v + Fraction(1, 2))
    return (-r if d < 0 else r) in range(-(2**63), 2**63)


def test_fixed_from_double_equals_the_core():
    doubles = edge_doubles() + random_doubles()
    expected = core_raws(doubles)
    assert len(expected) == len(doubles)
    mismatches = [(d.hex(), fixed_from_double(d), e) for d, e in zip(doubles, expected) if fixed_from_double(d) != e]
    assert not mismatches, mismatches[:10]


def test_to_raw_equals_the_core_where_representable_and_refuses_the_rest():
    doubles = edge_doubles() + random_doubles(1000, seed=7)
    for d, expected in zip(doubles, core_raws(doubles)):
        if not representable(d):
            with pytest.raises(ArbiterValueError) as e:
                to_raw(d, "radius")
            assert e.value.field == "radius"
            assert e.value.code in (grpc.StatusCode.OUT_OF_RANGE, grpc.StatusCode.INVALID_ARGUMENT)
        else:
            assert to_raw(d) == expected, d.hex()


def test_ints_are_exact_and_non_numbers_refused():
    assert to_raw(3) == 3 << 32
    assert to_raw(-(2**31)) == -(2**63)
    with pytest.raises(ArbiterValueError):
        to_raw(2**31)
    for bad in ("1.5", None, True, [1]):
        with pytest.raises(ArbiterValueError):
            to_raw(bad, "x")


def test_to_units_is_exact_below_2_to_53():
    assert to_units(3 << 31) == 1.5
    assert to_units(-1) == -(2.0**-32)
    assert to_units(to_raw(0.1)) == fixed_from_double(0.1) / 2**32
