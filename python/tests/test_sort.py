"""Tests of gpuscan.sort, argsort and sort_pairs against numpy's stable sort, bit for bit.

Run as test_gpuscan.py is (the `python` CTest test, or by hand with PYTHONPATH=build/python).
"""

import numpy as np
import pytest

import gpuscan
from test_gpuscan import SEED, ctx, no_validation_messages, rng_for  # noqa: F401

DTYPES = [np.uint32, np.int32, np.float32, np.uint64, np.int64, np.float64]


def keys(dtype, n, rng, distinct=None):
    """Random keys over the dtype's range (floats: mixed signs and magnitudes with -0.0, infinities and
    NaNs of both signs); with `distinct`, drawn from that many values so that ties are common."""
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        a = (rng.standard_normal(n) * 10.0 ** rng.integers(-5, 5, n)).astype(dtype)
        specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan], dtype)
        pick = rng.random(n) < 0.1
        a[pick] = rng.choice(specials, pick.sum())
    else:
        info = np.iinfo(dtype)
        a = rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
    if distinct:
        a = rng.choice(a[:distinct] if n >= distinct else a, n)
    return a


def same_bits(got, want):
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got.view(f"u{got.itemsize}"), want.view(f"u{want.itemsize}"), err_msg=f"seed {SEED}")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [0, 1, 1000, 40_001])
def test_sort_and_argsort_match_numpy(ctx, dtype, n):
    rng = rng_for("sort", dtype, n)
    a = keys(dtype, n, rng, distinct=50 if n > 1000 else None)
    want = np.argsort(a, kind="stable")
    same_bits(ctx.sort(a), a[want])
    got = ctx.argsort(a)
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got, want, err_msg=f"seed {SEED}")


@pytest.mark.parametrize("dtype", [np.int32, np.float64])
def test_descending_keeps_ties_in_input_order(ctx, dtype):
    rng = rng_for("descending", dtype)
    a = keys(dtype, 5000, rng, distinct=30)
    order = gpuscan.argsort(a, descending=True)
    # Largest first, ties in input order: numpy's stable argsort of the negated order.
    ranks = np.unique(a, return_inverse=True)[1].reshape(-1)  # NaNs: numpy's unique puts them last
    np.testing.assert_array_equal(order, np.argsort(-ranks, kind="stable"), err_msg=f"seed {SEED}")


@pytest.mark.parametrize("value_dtype", [np.float32, np.uint64, np.complex64])
def test_sort_pairs_moves_values_with_keys(ctx, value_dtype):
    rng = rng_for("pairs", value_dtype)
    k = keys(np.uint32, 30_000, rng, distinct=100)
    v = np.arange(k.size).astype(value_dtype)
    sk, sv = gpuscan.sort_pairs(k, v)
    o = np.argsort(k, kind="stable")
    same_bits(sk, k[o])
    assert sv.dtype == v.dtype
    np.testing.assert_array_equal(sv, v[o])


@pytest.mark.parametrize("dtype", [np.uint32, np.float64])
def test_onesweep_matches_numpy(ctx, dtype):
    rng = rng_for("onesweep", dtype)
    a = keys(dtype, 20_000, rng, distinct=100)
    o = np.argsort(a, kind="stable")
    try:
        got = ctx.argsort(a, algorithm="onesweep")
    except gpuscan.Error as e:  # a device without 64-bit buffer atomics refuses it
        assert e.code == "unsupported"
        pytest.skip(e.message)
    np.testing.assert_array_equal(got, o, err_msg=f"seed {SEED}")
    sk, sv = ctx.sort_pairs(a, np.arange(a.size, dtype=np.uint64), algorithm="onesweep")
    same_bits(sk, a[o])
    np.testing.assert_array_equal(sv, o)


def test_float_order_is_numpys(ctx):
    a = np.array([np.nan, 1.0, 0.0, -np.nan, -0.0, np.inf, -1.0, -np.inf], np.float32)
    np.testing.assert_array_equal(ctx.argsort(a), np.argsort(a, kind="stable"))
    np.testing.assert_array_equal(ctx.argsort(a), [7, 6, 2, 4, 1, 5, 0, 3])


def test_refusals(ctx):
    with pytest.raises(TypeError):
        ctx.sort(np.zeros(3, np.int16))
    with pytest.raises(ValueError):
        ctx.sort(np.zeros((2, 2), np.uint32))
    with pytest.raises(ValueError):
        ctx.sort_pairs(np.zeros(3, np.uint32), np.zeros(4, np.uint32))
    with pytest.raises(TypeError):
        ctx.sort_pairs(np.zeros(3, np.uint32), np.zeros(3, np.uint16))
    with pytest.raises(ValueError):
        ctx.sort(np.zeros(3, np.uint32), algorithm="quick")
