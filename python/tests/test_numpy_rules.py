"""numpy's rules in gpuscan: the accumulate dtypes of bool and narrow integers, the dtypes compaction
takes, against numpy.

Run as test_gpuscan.py is (the `python` CTest test, or by hand with PYTHONPATH=build/python); the
validated Context, the validation check after every test and the random data come from there.
"""

import numpy as np
import pytest

import gpuscan
from test_gpuscan import SEED, UFUNCS, ctx, no_validation_messages, rng_for  # noqa: F401

NARROW = [np.bool_, np.int8, np.uint8, np.int16, np.uint16]
SIZES = [0, 1, 4097, 70_001]
name = lambda d: np.dtype(d).name  # noqa: E731


def random_values(dtype, n, rng):
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return rng.random(n) < 0.5
    if dtype.kind == "f":
        return (rng.choice([-1.0, 1.0], n) * np.ldexp(rng.uniform(1.0, 2.0, n), rng.integers(-10, 11, n))).astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)


def product_values(dtype, n, rng):
    """Factors whose running products stay exact in any order: +-1, now and then 2 and later 1/2 for
    floats; odd integers (products wrap, as numpy's) and, for bool, mostly True."""
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return rng.random(n) < 0.999
    if dtype.kind == "f":
        factor = np.ones(n)
        pairs = np.flatnonzero(rng.integers(0, 32, n // 2) == 0) * 2
        factor[pairs], factor[pairs + 1] = 2.0, 0.5
        return (rng.choice([-1.0, 1.0], n) * factor).astype(dtype)
    return random_values(dtype, n, rng) | np.ones(n, dtype)


def assert_same(got, want, what):
    context = f"{what} (GPUSCAN_SEED={SEED})"
    assert isinstance(got, np.ndarray), context
    assert got.dtype == want.dtype and got.shape == want.shape, \
        f"{context}: got {got.dtype} {got.shape}, numpy {want.dtype} {want.shape}"
    bad = np.flatnonzero(~((got == want) | (np.isnan(got) & np.isnan(want)) if got.dtype.kind == "f" else got == want))
    assert bad.size == 0, f"{context}: {bad.size} elements differ, first at {bad[:1]}"


def needs_int64(ctx, *dtypes):
    if any(np.dtype(d).itemsize == 8 for d in dtypes) and not ctx.device["shader_int64"]:
        pytest.skip("the device has no 64-bit integers")


# --- bool and narrow integers in the scans: numpy's accumulate dtypes ------------------------------

@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", NARROW, ids=name)
def test_add_and_mul_of_narrow_dtypes_follow_numpy(ctx, dtype, n):
    """np.cumsum(bool) is int64, np.cumsum(uint8) uint64, ...: gpuscan converts to that dtype first."""
    needs_int64(ctx, np.int64)
    rng = rng_for("narrow add mul", dtype, n)
    a = random_values(dtype, n, rng)
    assert_same(ctx.inclusive_scan(a), np.cumsum(a), f"inclusive add {name(dtype)} n={n}")
    want = np.cumsum(a)
    assert_same(ctx.exclusive_scan(a), np.concatenate((np.zeros(1, want.dtype), want[:-1]))[:n],
                f"exclusive add {name(dtype)} n={n}")
    p = product_values(dtype, n, rng)
    assert_same(gpuscan.inclusive_scan(p, op="mul"), np.cumprod(p), f"inclusive mul {name(dtype)} n={n}")
    got = ctx.reduce(a)
    assert isinstance(got, np.generic) and got.dtype == np.add.reduce(a).dtype and got == np.add.reduce(a)
    starts = np.zeros(n, bool)
    starts[:1] = True
    assert_same(ctx.segmented_scan(a, flags=starts, inclusive=True), np.cumsum(a), f"segmented {name(dtype)} n={n}")


@pytest.mark.parametrize("op", ["min", "max", "and", "or", "xor"])
@pytest.mark.parametrize("dtype", NARROW, ids=name)
def test_other_ops_of_narrow_dtypes_keep_the_dtype(ctx, dtype, op):
    """numpy keeps the dtype for min, max and the bitwise ops; gpuscan runs them in 32 bits and narrows
    back, the exclusive scan's identity being the narrow dtype's."""
    rng = rng_for("narrow ops", dtype, op)
    ufunc = UFUNCS[op]
    for n in (1, 4097, 70_001):
        a = random_values(dtype, n, rng)
        want = ufunc.accumulate(a)
        assert_same(ctx.inclusive_scan(a, op=op), want, f"inclusive {op} {name(dtype)} n={n}")
        assert_same(ctx.exclusive_scan(a, op=op)[1:], want[:-1], f"exclusive {op} {name(dtype)} n={n}")
        got = ctx.reduce(a, op=op)
        assert got.dtype == np.dtype(dtype) and got == ufunc.reduce(a), f"reduce {op} {name(dtype)}"
    # The identity at the front of an exclusive scan: min starts at the dtype's largest value, max at
    # its smallest, and at all ones; each absorbed by numpy's op.
    a = random_values(dtype, 5, rng)
    first = ctx.exclusive_scan(a, op=op)[0]
    assert first.dtype == np.dtype(dtype)
    assert ufunc(first, a[0]) == a[0], f"exclusive {op} {name(dtype)} starts with {first!r}"


# --- compaction --------------------------------------------------------------------------------------

def test_python_list_of_ints_in_compact_names_the_dtype_and_the_fix(ctx):
    """A list of ints is int64 to numpy, which compaction does not take: the TypeError says what to pass."""
    x = [5, 0, 7, 3]
    for f in (ctx.compact, gpuscan.compact, ctx.partition):
        with pytest.raises(TypeError, match=r"not int64: pass np\.asarray\(a, np\.int32\) where the values fit"):
            f(x, "gt:4")
    with pytest.raises(TypeError, match=r"not float64: pass np\.asarray\(a, np\.float32\)"):
        ctx.compact([0.5, 2.0], "gt:1")
    with pytest.raises(TypeError, match=r"not uint64: pass np\.asarray\(a, np\.uint32\)"):
        ctx.compact(np.array(x, np.uint64), "nonzero")
    a = np.asarray(x, np.int32)
    assert_same(ctx.compact(a, "gt:4"), a[a > 4], "the converted list")


@pytest.mark.parametrize("dtype", NARROW, ids=name)
def test_compaction_of_narrow_dtypes_keeps_the_dtype(ctx, dtype):
    """bool and 8- and 16-bit integers compact as numpy's a[mask] does, dtype kept, predicates compared
    in their values."""
    for n in (0, 1, 4097, 70_001):
        rng = rng_for("narrow compact", dtype, n)
        a = random_values(dtype, n, rng)
        m = rng.random(n) < 0.3
        assert_same(ctx.compact(a, m), a[m], f"mask {name(dtype)} n={n}")
        values, kept = ctx.partition(a, m)
        assert kept == np.count_nonzero(m)
        assert_same(values, np.concatenate((a[m], a[~m])), f"partition {name(dtype)} n={n}")
        assert_same(ctx.compact(a, "nonzero"), a[a != 0], f"nonzero {name(dtype)} n={n}")
        if np.dtype(dtype).kind != "b":
            assert_same(ctx.compact(a, "gt:0x10"), a[a > 16], f"gt:0x10 {name(dtype)} n={n}")
            if np.dtype(dtype).kind == "i":
                assert_same(ctx.compact(a, "range:-100:-0x10"), a[(a >= -100) & (a <= -16)], f"range {name(dtype)}")
