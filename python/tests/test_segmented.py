"""Tests of gpuscan.segmented_scan against a reference written here with numpy.

Run as test_gpuscan.py is (the `python` CTest test, or by hand with PYTHONPATH=build/python); the
validated Context, the validation check after every test and the random data come from there.
"""

import numpy as np
import pytest

import gpuscan
from test_gpuscan import SEED, ctx, no_validation_messages, random_array, rng_for  # noqa: F401

DTYPES = [np.uint32, np.int32, np.float32, np.uint64, np.int64, np.float64]
SIZES = [0, 1, 4095, 4097, 20_011]  # around the default tile of 4096 elements


def starts_of(n, pattern, rng):
    if pattern == "singletons":
        return np.ones(n, dtype=bool)
    starts = np.zeros(n, dtype=bool) if pattern == "one" else rng.random(n) < 1 / 50
    if n:
        starts[0] = True
    return starts


def reference(a, starts, op, inclusive):
    """The segmented scan: numpy's accumulate of `op` per segment, shifted for exclusive."""
    ufunc = {"add": np.add, "min": np.minimum, "max": np.maximum}[op]
    identity = {"add": 0}.get(op)
    if identity is None:
        if a.dtype.kind == "f":
            identity = np.inf if op == "min" else -np.inf
        else:
            info = np.iinfo(a.dtype)
            identity = info.max if op == "min" else info.min
    wide = a.astype(np.float64 if a.dtype == np.float32 else np.longdouble) if a.dtype.kind == "f" else a
    out = np.empty_like(wide)
    bounds = list(np.flatnonzero(starts)) + [a.size]
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        acc = ufunc.accumulate(wide[lo:hi], dtype=wide.dtype)
        if inclusive:
            out[lo:hi] = acc
        else:
            out[lo] = identity
            out[lo + 1:hi] = acc[:-1]
    return out


def check(got, a, starts, op, inclusive, what):
    context = f"{what} n={a.size} dtype={a.dtype} op={op} inclusive={inclusive} (GPUSCAN_SEED={SEED})"
    assert isinstance(got, np.ndarray) and got.dtype == a.dtype and got.shape == a.shape, context
    want = reference(a, starts, op, inclusive)
    if a.dtype.kind == "f" and op == "add":
        # Within depth * eps * (sum of |a| in the segment so far), the bound of the C++ tests.
        magnitude = reference(np.abs(a), starts, "add", inclusive)
        depth = 8 + 2 * max(int(np.log2(max(a.size, 1))), 0)
        tol = depth * np.finfo(a.dtype).eps * np.abs(magnitude) + 1e-300
        bad = np.flatnonzero(~(np.abs(got.astype(want.dtype) - want) <= tol))
    else:
        bad = np.flatnonzero(got != want.astype(a.dtype))
    assert bad.size == 0, f"{context}: {bad.size} elements differ, first at {bad[:1]}"


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", SIZES)
def test_flags_and_keys_match_the_reference(ctx, dtype, n):
    # (The reference loops over segments in Python: segments of length 1 only up to 4097 elements.)
    for pattern in ["singletons", "random", "one"] if n <= 4097 else ["random", "one"]:
        for op in ["add", "min", "max"]:
            for inclusive in [False, True]:
                rng = rng_for("segmented", np.dtype(dtype).name, n, pattern, op, inclusive)
                a = random_array(dtype, n, rng)
                starts = starts_of(n, pattern, rng)
                flags = starts * rng.integers(1, 1000, n)  # any non-zero value starts a segment
                got = ctx.segmented_scan(a, flags=flags, op=op, inclusive=inclusive)
                check(got, a, starts, op, inclusive, f"flags {pattern}")
                # Keys that change exactly at the starts: int32 counters, or uint64 changing in the high word only.
                keys = np.cumsum(starts).astype(np.int32) if inclusive else np.cumsum(starts).astype(np.uint64) << 32
                got = ctx.segmented_scan(a, keys=keys, op=op, inclusive=inclusive)
                check(got, a, starts, op, inclusive, f"keys {keys.dtype} {pattern}")


def test_documented_example():
    a = np.array([3, 1, 7, 0, 4, 1, 6, 3], dtype=np.uint32)
    assert gpuscan.segmented_scan(a, flags=[1, 0, 0, 1, 0, 1, 0, 0]).tolist() == [0, 3, 4, 0, 0, 0, 1, 7]
    keys = np.array([9, 9, 9, 4, 4, 9, 9, 9])
    assert gpuscan.segmented_scan(a, keys=keys, inclusive=True).tolist() == [3, 4, 11, 0, 4, 1, 7, 10]


def test_float_results_are_reproducible(ctx):
    rng = rng_for("segmented reproducible")
    a = random_array(np.float32, 100_003, rng)
    flags = rng.random(a.size) < 0.001
    first = ctx.segmented_scan(a, flags=flags, inclusive=True)
    for _ in range(5):
        assert np.array_equal(ctx.segmented_scan(a, flags=flags, inclusive=True).view(np.uint32), first.view(np.uint32))


def test_errors(ctx):
    a = np.arange(10, dtype=np.uint32)
    with pytest.raises(ValueError, match="exactly one of flags= or keys="):
        ctx.segmented_scan(a)
    with pytest.raises(ValueError, match="exactly one of flags= or keys="):
        ctx.segmented_scan(a, flags=np.ones(10, bool), keys=np.arange(10))
    with pytest.raises(ValueError, match="`flags` has shape .*one entry per element"):
        ctx.segmented_scan(a, flags=np.ones(9, bool))
    with pytest.raises(TypeError, match=r"segmented_scan\(\) takes `flags` as a boolean .*float64") as raised:
        ctx.segmented_scan(a, flags=np.ones(10, np.float64))
    assert "predicate" not in str(raised.value)
    with pytest.raises(ValueError, match="one key per element"):
        ctx.segmented_scan(a, keys=np.arange(11))
    with pytest.raises(TypeError, match="32- or 64-bit integers"):
        ctx.segmented_scan(a, keys=np.arange(10, dtype=np.float32))
    with pytest.raises(ValueError, match="integer dtypes only"):
        ctx.segmented_scan(a.astype(np.float32), flags=np.ones(10, bool), op="xor")
    with pytest.raises(TypeError):
        ctx.segmented_scan(a.astype(np.float16), flags=np.ones(10, bool))
