"""Tests of gpuscan.segmented_reduce (segments by offsets) against an explicit per-segment loop.

numpy's reduceat is not the reference: it gives an empty segment a[offsets[s]] instead of the identity.
Run as test_gpuscan.py is; the validated Context and the random data come from there.
"""

import numpy as np
import pytest

import gpuscan
from test_gpuscan import SEED, ctx, no_validation_messages, random_array, rng_for  # noqa: F401

DTYPES = [np.uint32, np.int32, np.float32, np.uint64, np.int64, np.float64]
UFUNCS = {"add": np.add, "min": np.minimum, "max": np.maximum}


def identity(dtype, op):
    if op == "add":
        return 0
    if np.dtype(dtype).kind == "f":
        return np.inf if op == "min" else -np.inf
    info = np.iinfo(dtype)
    return info.max if op == "min" else info.min


def reference(a, offsets, op):
    wide = a.astype(np.float64 if a.dtype == np.float32 else np.longdouble) if a.dtype.kind == "f" else a
    out = np.empty(len(offsets) - 1, dtype=wide.dtype)
    for s, (lo, hi) in enumerate(zip(offsets[:-1], offsets[1:])):
        out[s] = UFUNCS[op].reduce(wide[lo:hi], dtype=wide.dtype) if hi > lo else identity(a.dtype, op)
    return out


def make_offsets(n, kind, rng):
    """Offsets over [first, last) of n values: lengths in [0, 32], a few huge segments, or many empties."""
    first = int(rng.integers(0, n // 4 + 1))
    last = n - int(rng.integers(0, n // 4 + 1))
    if kind == "mean16":
        lengths = rng.integers(0, 33, max(n // 8, 1))
    elif kind == "huge":
        lengths = rng.integers(1, max(n // 2, 2), 6)
    else:  # empties: half the segments empty, 1000 at one place
        lengths = rng.integers(0, 40, max(n // 10, 1)) * (rng.random(max(n // 10, 1)) < 0.5)
        lengths = np.insert(lengths, len(lengths) // 2, np.zeros(1000, dtype=lengths.dtype))
    ends = np.minimum(first + np.cumsum(lengths), max(last, first))
    return np.concatenate([[first], ends]).astype(np.int64)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [0, 1, 4095, 4097, 50_001])
def test_matches_the_loop_reference(ctx, dtype, n):
    for kind in ["mean16", "huge", "empties"]:
        for op in ["add", "min", "max"]:
            rng = rng_for("segmented_reduce", np.dtype(dtype).name, n, kind, op)
            a = random_array(dtype, n, rng)
            offsets = make_offsets(n, kind, rng)
            got = ctx.segmented_reduce(a, offsets, op=op)
            context = f"n={n} dtype={a.dtype} op={op} {kind} S={len(offsets) - 1} (GPUSCAN_SEED={SEED})"
            assert isinstance(got, np.ndarray) and got.dtype == a.dtype and got.shape == (len(offsets) - 1,), context
            want = reference(a, offsets, op)
            if a.dtype.kind == "f" and op == "add":
                magnitude = reference(np.abs(a), offsets, "add")
                depth = 8 + 2 * max(int(np.log2(max(n, 1))), 0)
                tol = depth * np.finfo(a.dtype).eps * magnitude + 1e-300
                bad = np.flatnonzero(~(np.abs(got.astype(want.dtype) - want) <= tol))
            else:
                bad = np.flatnonzero(got != want.astype(a.dtype))
            assert bad.size == 0, f"{context}: {bad.size} segments differ, first at {bad[:1]}"


def test_documented_example():
    a = np.array([3, 1, 7, 0, 4, 1, 6, 3], dtype=np.uint32)
    assert gpuscan.segmented_reduce(a, [0, 3, 3, 5, 8]).tolist() == [11, 0, 4, 10]
    assert gpuscan.segmented_reduce(a, [0, 3, 3, 5, 8], op="max").tolist() == [7, 0, 4, 6]
    assert gpuscan.segmented_reduce(a, [0]).tolist() == []
    assert gpuscan.segmented_reduce(np.array([], dtype=np.float32), [0, 0], op="min").tolist() == [np.inf]


@pytest.mark.parametrize("offsets_dtype", [np.uint32, np.uint64, np.uint8, np.int32, np.int64])
@pytest.mark.parametrize("op", ["add", "and", "max"])
def test_decreasing_offsets_are_a_value_error_in_every_dtype(ctx, offsets_dtype, op):
    """Unsigned offsets too: their differences wrap instead of going negative."""
    rng = rng_for("decreasing offsets", offsets_dtype, op)
    n = int(rng.integers(10, 200))
    a = random_array(np.int32, n, rng)
    offsets = np.sort(rng.integers(0, n + 1, 6)).astype(offsets_dtype)
    offsets[0], offsets[-1] = 0, n
    at = int(rng.integers(1, 5))
    offsets[at] = offsets[at + 1] + 1 if offsets[at + 1] < n else n
    offsets[at + 1] = offsets[at] - 1
    with pytest.raises(ValueError, match=f"offsets decrease at index {at + 1}"):
        ctx.segmented_reduce(a, offsets, op=op)


def test_errors(ctx):
    a = np.arange(10, dtype=np.uint32)
    # Bad offsets are numpy's ValueError, not gpuscan.Error (which is for what the device reports).
    with pytest.raises(ValueError, match="offsets decrease at index 2"):
        ctx.segmented_reduce(a, [0, 5, 4, 10])
    with pytest.raises(ValueError, match=r"\[0, 10\] \(len\(a\) is 10"):
        ctx.segmented_reduce(a, [0, 11])
    with pytest.raises(ValueError, match=r"S \+ 1 entries .*not of shape \(0,\)"):
        ctx.segmented_reduce(a, [])
    with pytest.raises(ValueError, match=r"\[0, 10\]"):
        ctx.segmented_reduce(a, [-1, 3])
    with pytest.raises(TypeError, match="array of integers"):
        ctx.segmented_reduce(a, [0.5, 3.0])
