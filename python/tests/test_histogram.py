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
    assert counts.dtype == want_counts.dtype  # intp, as numpy's


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


def assert_same_as_numpy(got, want, what):
    """Counts (or densities) and edges equal to numpy's, dtypes included."""
    for g, w, part in zip(got, want, ("counts", "edges")):
        assert g.dtype == w.dtype, f"{what}: {part} {g.dtype}, numpy {w.dtype} (GPUSCAN_SEED={SEED})"
        np.testing.assert_array_equal(g, w, err_msg=f"{what}: {part} (GPUSCAN_SEED={SEED})")


def random_samples(dtype, n, rng):
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return rng.random(n) < 0.3
    if dtype.kind == "f":
        return rng.normal(0, 100, n).astype(dtype)
    info = np.iinfo(dtype)
    lo, hi = max(info.min, -(1 << 40)), min(info.max, 1 << 40)  # where float64 holds them, as numpy compares
    return rng.integers(lo, hi, n, dtype=dtype, endpoint=True)


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.uint16, np.float16, np.uint32, np.int32,
                                   np.float32], ids=lambda d: np.dtype(d).name)
def test_narrow_dtypes_count_as_numpy(ctx, dtype):
    rng = rng_for("narrow", dtype)
    a = random_samples(dtype, 30_001, rng)
    for bins, range_ in ((10, None), (7, (-50, 60)), (np.sort(rng.choice(a, 6)), None)):
        assert_same_as_numpy(ctx.histogram(a, bins=bins, range=range_), np.histogram(a, bins=bins, range=range_),
                             f"{np.dtype(dtype).name} bins={bins} range={range_}")


def test_array_likes_as_numpy(ctx):
    """Python ints and floats are int64 and float64 samples to numpy: the 64-bit histograms count them."""
    assert_same_as_numpy(gpuscan.histogram([1, 2, 3]), np.histogram([1, 2, 3]), "a list")
    assert_same_as_numpy(ctx.histogram([[1.5, 2], [3, 4]], bins=3), np.histogram([[1.5, 2], [3, 4]], bins=3), "nested")
    assert_same_as_numpy(ctx.histogram(7, bins=2), np.histogram(7, bins=2), "a scalar")
    a = np.array([3, 1, 2], np.int32)
    assert_same_as_numpy(ctx.histogram(list(a), bins=2), np.histogram(list(a), bins=2), "a list of numpy scalars")


def test_bool_as_numpy(ctx):
    b = random_samples(np.bool_, 5000, rng_for("bool"))
    with pytest.warns(RuntimeWarning, match="bool"):
        got = ctx.histogram(b, bins=3)
    with pytest.warns(RuntimeWarning, match="bool"):
        want = np.histogram(b, bins=3)
    assert_same_as_numpy(got, want, "bool (as uint8, with numpy's warning)")


@pytest.mark.parametrize("dtype", [np.float64, np.int64, np.uint64], ids=lambda d: np.dtype(d).name)
def test_sixty_four_bit_samples_as_numpy(ctx, dtype):
    rng = rng_for("64-bit", dtype)
    a = random_samples(dtype, 20_003, rng)
    for bins, range_ in ((10, None), (33, (-1e3, 1e12)), (np.sort(rng.choice(a, 9)), None)):
        assert_same_as_numpy(ctx.histogram(a, bins=bins, range=range_), np.histogram(a, bins=bins, range=range_),
                             f"{np.dtype(dtype).name} bins={bins}")


def test_int64_samples_compare_exactly_with_integer_edges(ctx):
    """With integer edges numpy compares int64 samples exactly (2^53 + 3 stays below 2^53 + 4), and so
    does gpuscan: the samples keep their dtype."""
    edge = 2**53 + 4
    a = np.array([2**53 + 3, 2**53 + 5], np.int64)
    assert ctx.histogram(a, bins=[0, edge, 2**54])[0].tolist() == [1, 1]
    assert np.histogram(a, bins=[0, edge, 2**54])[0].tolist() == [1, 1]


@pytest.mark.parametrize("dtype", [np.int64, np.uint64])
def test_64_bit_samples_as_numpy_compares_them(ctx, dtype):
    """Where numpy's edges are floats (a bin count, a string, float edges, and uint64 samples against int64
    edges, whose common dtype is float64) numpy converts int64 and uint64 samples to float64 before it
    compares them, and gpuscan gives its counts: float64(max) may round below the largest sample, which
    numpy still counts in the last bin. With a range= numpy first drops the samples outside it, compared
    with range's values as given (Python ints exactly)."""
    rng = rng_for("64-bit samples", dtype)
    info = np.iinfo(dtype)
    for _ in range(4):
        base = int(rng.integers(info.max // 4, info.max // 2, dtype=dtype))
        a = (np.asarray(base, dtype) + rng.integers(0, 1 << 12, 1000).astype(dtype)).astype(dtype)
        a[:5] = info.max - rng.integers(0, 4, 5).astype(dtype)  # float64 rounds these to 2^63 or 2^64
        hi = int(a.max())
        cases = [dict(bins=4096), dict(bins=3), dict(bins="sturges"),
                 dict(bins=7, range=(base, hi - 1)), dict(bins=7, range=(float(base), float(hi - 1))),
                 dict(bins=np.array([float(base), float(base) + 2048, float(hi)]))]
        if dtype == np.uint64:  # int64 edges: compared in float64, their common dtype, so rounded too
            cases.append(dict(bins=np.array([base, base + 1025, base + 3001], np.int64)))
        for kwargs in cases:
            assert_same_as_numpy(ctx.histogram(a, **kwargs), np.histogram(a, **kwargs), f"{dtype.__name__} {kwargs}")
    small = rng.integers(0, 5, 50).astype(dtype)  # an equal range, widened by 0.5 each way as numpy does
    for kwargs in (dict(bins=10, range=(0, 0)), dict(bins=3, range=(2, 2)), dict(bins=4, range=(1, 3))):
        assert_same_as_numpy(ctx.histogram(small, **kwargs), np.histogram(small, **kwargs), f"small {kwargs}")


def test_edges_have_numpy_dtype(ctx):
    a = random_samples(np.float32, 1000, rng_for("edge dtypes"))
    for bins in (5, np.array([-100, 0, 100], np.int32), np.array([-1.5, 0, 2], np.float32), [-1, 0.5, 3]):
        assert_same_as_numpy(ctx.histogram(a, bins=bins), np.histogram(a, bins=bins), f"bins={bins!r}")
    assert ctx.histogram(a, bins=5)[1].dtype == np.float32  # numpy's for float32 samples with even bins


def test_one_edge_or_none_is_an_empty_histogram(ctx):
    a = random_samples(np.float32, 100, rng_for("one edge"))
    for bins in ([1], [], np.array([2.5], np.float32)):
        assert_same_as_numpy(ctx.histogram(a, bins=bins), np.histogram(a, bins=bins), f"bins={bins!r}")
        assert_same_as_numpy(ctx.histogram(a, bins=bins, density=True), np.histogram(a, bins=bins, density=True),
                             f"bins={bins!r} density")


def test_density_as_numpy(ctx):
    rng = rng_for("density")
    a = random_samples(np.float32, 10_007, rng)
    for bins, range_ in ((10, None), (np.array([-300, -1, 0, 0, 2, 50, 400]), None), (4, (1e6, 2e6))):
        with np.errstate(invalid="ignore"):  # no sample in range: numpy's 0/0
            want = np.histogram(a, bins=bins, range=range_, density=True)
            got = ctx.histogram(a, bins=bins, range=range_, density=True)
        assert_same_as_numpy(got, want, f"density bins={bins!r} range={range_}")
    assert_same_as_numpy(ctx.histogram(a, 5, None, False), np.histogram(a, 5, None, False), "density=False")


def test_weights_are_not_supported(ctx):
    with pytest.raises(NotImplementedError, match="weights"):
        ctx.histogram(np.arange(4, dtype=np.float32), bins=2, weights=np.ones(4))


@pytest.mark.parametrize("kwargs", [dict(bins=0), dict(bins=-1), dict(bins=2.5), dict(bins=[3, 1]),
                                    dict(bins=[[1, 2]]), dict(bins=2, range=(np.nan, 1)),
                                    dict(bins=2, range=(0, np.inf)), dict(bins=2, range=(3, 1)),
                                    dict(bins=2, range=(0, 1, 2)), dict(bins="nonsense")], ids=repr)
def test_bad_bins_and_ranges_raise_numpy_errors(ctx, kwargs):
    a = random_samples(np.float32, 50, rng_for("errors"))
    with pytest.raises(Exception) as numpy_error:
        np.histogram(a, **kwargs)
    with pytest.raises(type(numpy_error.value)) as error:
        ctx.histogram(a, **kwargs)
    assert not isinstance(error.value, gpuscan.Error)


def test_nan_samples_or_edges_are_value_errors(ctx):
    a = np.array([1, np.nan, 3], np.float32)
    with pytest.raises(ValueError, match="not finite"):  # numpy's: the range from the samples is NaN
        ctx.histogram(a)
    with pytest.raises(ValueError, match="NaN"):  # numpy counts meaninglessly there
        ctx.histogram(np.arange(5, dtype=np.float32), bins=[0, np.nan, 4])
    assert ctx.histogram(a, bins=2, range=(0, 4))[0].tolist() == [1, 1]  # NaN samples are not counted


def test_unsupported_dtypes(ctx):
    for a in (np.ones(3, np.complex64), np.array(["a", "b"]), np.ones(3, np.longdouble)):
        with pytest.raises(TypeError, match="histogram"):
            ctx.histogram(a, bins=2, range=(0, 2))


def test_last_bin_is_closed_at_an_edge_between_integers(ctx):
    """An upper edge that is not a sample value: numpy's closed last bin holds the samples up to it only."""
    a = np.array([0, 1, 2, 3], np.int32)
    assert_same_as_numpy(ctx.histogram(a, bins=2, range=(0, 2.5)), np.histogram(a, bins=2, range=(0, 2.5)),
                         "int32 bins=2 range=(0, 2.5)")
    b = np.arange(10, dtype=np.uint32)
    assert_same_as_numpy(ctx.histogram(b, bins=[0, 2.5, 4.5]), np.histogram(b, bins=[0, 2.5, 4.5]),
                         "uint32 bins=[0, 2.5, 4.5]")
    rng = rng_for("closed last bin")
    c = rng.integers(-1000, 1000, 50_000).astype(np.int32)
    upper = rng.integers(-500, 900) + 0.5
    assert_same_as_numpy(ctx.histogram(c, bins=17, range=(-999.5, upper)),
                         np.histogram(c, bins=17, range=(-999.5, upper)), f"upper edge {upper}")
