"""Tests of gpuscan.histogram against numpy.histogram: the same counts and edges, bin for bin.

Run as test_gpuscan.py is (the `python` CTest test, or by hand with PYTHONPATH=build/python).
"""

import numpy as np
import pytest

import gpuscan
from test_gpuscan import SEED, ctx, no_validation_messages, rng_for  # noqa: F401


def samples(dtype, n, lo, hi, rng):
    """Uniform over [lo, hi) widened by a quarter each side, a fifth exactly on a bin edge."""
    pad = (hi - lo) / 4
    x = rng.uniform(lo - pad, hi + pad, n)
    edges = np.linspace(lo, hi, 11)
    on_edge = rng.random(n) < 0.2
    x[on_edge] = rng.choice(edges, on_edge.sum())
    if np.dtype(dtype).kind in "iu":
        x = np.clip(np.floor(x), np.iinfo(dtype).min, np.iinfo(dtype).max)
    return x.astype(dtype)


@pytest.mark.parametrize("dtype", [np.uint32, np.int32, np.float32])
@pytest.mark.parametrize("n", [1, 255, 256, 257, 100_003])
@pytest.mark.parametrize("bins", [1, 2, 10, 255, 256, 257, 5000])
def test_even_bins_match_numpy(ctx, dtype, n, bins):
    rng = rng_for("even", dtype, n, bins)
    a = samples(dtype, n, 10, 1000, rng)
    counts, edges = ctx.histogram(a, bins=bins, range=(10, 1000))
    want_counts, want_edges = np.histogram(a, bins=bins, range=(10, 1000))
    np.testing.assert_array_equal(edges, want_edges, err_msg=f"seed {SEED}")
    np.testing.assert_array_equal(counts, want_counts, err_msg=f"seed {SEED}")
    assert counts.dtype == np.int64


def test_custom_edges_and_default_range(ctx):
    rng = rng_for("custom")
    a = samples(np.float32, 20_000, -3, 3, rng)
    a[:5] = [np.float32(0.1), np.float32(-3), np.float32(3), np.float32(2.5), np.float32(-0.0)]
    edges = np.array([-3, -1, 0.1, 0.1, 2.5, 3])
    for got, want in zip(ctx.histogram(a, bins=edges), np.histogram(a, bins=edges)):
        np.testing.assert_array_equal(got, want, err_msg=f"seed {SEED}")
    for got, want in zip(ctx.histogram(a, bins=17), np.histogram(a, bins=17)):  # range from a's min and max
        np.testing.assert_array_equal(got, want, err_msg=f"seed {SEED}")


def test_module_level_call_and_empty():
    counts, edges = gpuscan.histogram(np.array([1, 2, 2, 3], np.float32), bins=2)
    np.testing.assert_array_equal(counts, [1, 3])
    np.testing.assert_array_equal(edges, [1.0, 2.0, 3.0])
    counts, _ = gpuscan.histogram(np.array([], np.int32), bins=4, range=(0, 4))
    np.testing.assert_array_equal(counts, [0, 0, 0, 0])


def test_unsupported_dtype(ctx):
    with pytest.raises(TypeError, match="float32"):
        ctx.histogram(np.ones(3, np.float64), bins=2)
