"""Tests of gpuscan.DeviceArray (gpuscan.asarray): every function on device arrays against numpy, or
against the same function on numpy arrays where numpy has no exact counterpart (float scans), plus the
errors, views and freeing.

Run as test_gpuscan.py is (the `python` CTest test, or by hand with PYTHONPATH=build/python and
GPUSCAN_VALIDATE=1); GPUSCAN_SEED=<seed> replays a run's random data.
"""

import gc

import numpy as np
import pytest

import gpuscan
from test_gpuscan import SEED, ctx, no_validation_messages, rng_for  # noqa: F401

DTYPES = [np.uint32, np.int32, np.float32, np.uint64, np.int64, np.float64]
SIZES = [0, 1, 255, 256, 257, 4097, 100_003]
ids = lambda d: np.dtype(d).name  # noqa: E731


def data(dtype, n, rng, low=-100, high=100):
    """Whole numbers in [low, high] (unsigned: [0, high]), so float sums are exact in any order."""
    dtype = np.dtype(dtype)
    return rng.integers(0 if dtype.kind == "u" else low, high, n, endpoint=True).astype(dtype)


def each_dtype_and_size(test):
    return pytest.mark.parametrize("n", SIZES)(pytest.mark.parametrize("dtype", DTYPES, ids=ids)(test))


def uploaded(ctx, what, dtype, n, low=-100, high=100):
    """The test's generator, its data and the data on `ctx`'s device."""
    rng = rng_for(what, dtype, n)
    a = data(dtype, n, rng, low, high)
    return rng, a, ctx.asarray(a)


def same(got, want, what=""):
    """`got` a DeviceArray equal to numpy's `want`: dtype, shape and bits (NaNs equal)."""
    context = f"{what} (GPUSCAN_SEED={SEED})"
    assert isinstance(got, gpuscan.DeviceArray), f"{context}: got {type(got)}"
    host = got.get()
    assert host.dtype == want.dtype and host.shape == want.shape, f"{context}: {host.dtype} {host.shape}"
    np.testing.assert_array_equal(host.view(f"u{host.itemsize}"), want.view(f"u{want.itemsize}"), err_msg=context)


# --- the array itself ------------------------------------------------------------------------------

@each_dtype_and_size
def test_asarray_round_trip(ctx, dtype, n):
    a = data(dtype, n, rng_for("round trip", dtype, n))
    d = ctx.asarray(a)
    assert isinstance(d, gpuscan.DeviceArray)
    assert d.shape == (n,) and len(d) == n and d.size == n and d.ndim == 1
    assert d.dtype == a.dtype and d.itemsize == a.itemsize and d.nbytes == a.nbytes
    same(d, a, "asarray")
    np.testing.assert_array_equal(np.asarray(d), a)
    assert np.asarray(d, dtype=np.float64).dtype == np.float64
    assert gpuscan.asarray(d) is d and ctx.asarray(d) is d
    assert "DeviceArray" in repr(d) and str(n) in repr(d)


def test_asarray_takes_array_likes_and_any_layout(ctx):
    same(ctx.asarray([1, 2, 3]), np.array([1, 2, 3]))
    a = np.arange(20, dtype=">i4")[::3]  # byte-swapped and strided
    same(ctx.asarray(a), a.astype(np.int32))


@pytest.mark.parametrize("dtype", DTYPES, ids=ids)
def test_slices_are_views(ctx, dtype):
    a = data(dtype, 1000, rng_for("slices", dtype))
    d = ctx.asarray(a)
    for start, stop in [(0, 1000), (3, 997), (1, 2), (500, 500), (-10, None), (None, -990), (990, 2000)]:
        same(d[start:stop], a[start:stop], f"[{start}:{stop}]")
    same(d[7:900][5:13], a[7:900][5:13], "a slice of a slice")
    assert d[5] == a[5] and d[-1] == a[-1] and type(d[0]) is type(a[0])
    with pytest.raises(IndexError):
        d[1000]
    with pytest.raises(NotImplementedError):
        d[::2]
    with pytest.raises(TypeError):
        d[1.5]


@pytest.mark.parametrize("offset", [1, 2, 3, 4, 5])
@pytest.mark.parametrize("dtype", [np.uint32, np.float64], ids=ids)
def test_functions_on_views_at_any_offset(ctx, dtype, offset):
    """Views at offsets that are no multiple of 4 elements run the kernels built for such ranges."""
    a = data(dtype, 5000, rng_for("view offsets", dtype, offset))
    d = ctx.asarray(a)[offset:]
    v = a[offset:]
    same(ctx.sort(d), np.sort(v, kind="stable"), "sort of a view")
    same(ctx.inclusive_scan(d), ctx.inclusive_scan(v), "scan of a view")
    same(ctx.compact(d, "gt:10"), v[v > 10], "compact of a view")
    assert ctx.reduce(d, op="max") == v.max()


# --- the exact chain --------------------------------------------------------------------------------

@pytest.mark.parametrize("n", [1, 257, 100_003])
@pytest.mark.parametrize("dtype", DTYPES, ids=ids)
def test_cumsum_of_sort_stays_on_the_device(dtype, n):
    a = data(dtype, n, rng_for("chain", dtype, n))
    got = gpuscan.cumsum(gpuscan.sort(gpuscan.asarray(a)))
    same(got, np.cumsum(np.sort(a)), "cumsum(sort(asarray(a)))")


# --- each function against numpy ---------------------------------------------------------------------

@each_dtype_and_size
def test_sort_argsort_sort_pairs(ctx, dtype, n):
    rng = rng_for("sort", dtype, n)
    a = data(dtype, n, rng, -50, 50)  # ties
    if np.dtype(dtype).kind == "f" and n > 3:
        a[rng.integers(0, n, 3)] = [np.nan, -0.0, np.inf]
    d = ctx.asarray(a)
    order = np.argsort(a, kind="stable")
    same(ctx.sort(d), a[order], "sort")
    same(ctx.argsort(d), order, "argsort")
    same(ctx.sort(d, descending=True), ctx.sort(a, descending=True), "sort descending")
    values = np.arange(n, dtype=np.float32)
    keys_out, values_out = ctx.sort_pairs(d, ctx.asarray(values))
    same(keys_out, a[order], "sort_pairs keys")
    same(values_out, values[order], "sort_pairs values")
    _, uploaded = ctx.sort_pairs(d, values)  # a host array beside a device one is uploaded
    same(uploaded, values[order], "sort_pairs with host values")


@each_dtype_and_size
def test_scans_and_reduce(ctx, dtype, n):
    _, a, d = uploaded(ctx, "scans", dtype, n)
    ops = ["add", "min", "max", "mul"] + ([] if np.dtype(dtype).kind == "f" else ["and", "or", "xor"])
    for op in ops:
        for kind in ["exclusive", "inclusive"]:
            # The host path is tested against numpy; the device one runs the same kernels, bit for bit.
            want = getattr(ctx, f"{kind}_scan")(a, op=op)
            same(getattr(ctx, f"{kind}_scan")(d, op=op), want, f"{kind} {op}")
        got = ctx.reduce(d, op=op)
        want = ctx.reduce(a, op=op)
        assert isinstance(got, np.generic) and got.dtype == want.dtype and (got == want or (got != got and want != want))
    if np.dtype(dtype).kind != "f":
        same(ctx.inclusive_scan(d), np.cumsum(a, dtype=a.dtype), "inclusive add against numpy")
        assert ctx.reduce(d) == np.add.reduce(a, dtype=a.dtype)


@each_dtype_and_size
def test_cumsum_cumprod(ctx, dtype, n):
    _, a, d = uploaded(ctx, "cumsum", dtype, n, -3, 3)
    same(ctx.cumsum(d), np.cumsum(a), "cumsum")  # int32 and uint32 widened to 64 bits on the GPU, as numpy
    same(ctx.cumsum(d, axis=-1), np.cumsum(a, axis=-1), "cumsum axis=-1")
    same(ctx.cumprod(d), ctx.cumprod(a), "cumprod")
    same(ctx.cumsum(d, dtype=a.dtype), np.cumsum(a, dtype=a.dtype), "cumsum dtype=a.dtype")
    if np.dtype(dtype).itemsize == 4 and np.dtype(dtype).kind != "f":
        same(ctx.cumprod(d[3:], axis=0, dtype=np.int64), np.cumprod(a[3:], dtype=np.int64), "cumprod of a view")
    else:
        with pytest.raises(TypeError, match="conversion"):
            ctx.cumsum(d, dtype=np.float32 if np.dtype(dtype).kind != "f" else np.int64)
    with pytest.raises(NotImplementedError):
        ctx.cumsum(d, out=np.empty_like(a))


@each_dtype_and_size
def test_compact_and_partition(ctx, dtype, n):
    rng, a, d = uploaded(ctx, "compact", dtype, n)
    same(ctx.compact(d, "gt:10"), a[a > 10], "compact predicate")
    mask = rng.random(n) < 0.3
    same(ctx.compact(d, mask), a[mask], "compact host mask")
    same(ctx.compact(d, ctx.asarray(mask.astype(np.uint32) * 7)), a[mask], "compact device mask")
    same(ctx.compact(a, ctx.asarray(mask.astype(np.int32))), a[mask], "host values, device mask")
    values, kept = ctx.partition(d, "le:10")
    assert kept == np.count_nonzero(a <= 10)
    host = values.get()
    np.testing.assert_array_equal(host[:kept], a[a <= 10])
    np.testing.assert_array_equal(np.sort(host[kept:]), np.sort(a[a > 10]))


@each_dtype_and_size
def test_unique(ctx, dtype, n):
    _, a, d = uploaded(ctx, "unique", dtype, n, -20, 20)
    same(ctx.unique(d, sort=True), np.unique(a), "unique(sort=True)")
    same(ctx.unique(ctx.sort(d)), np.unique(a), "unique of sorted")
    same(gpuscan.unique(d), ctx.unique(a), "unique of unsorted (run starts)")
    for sort in [False, True]:
        want_values, want_counts = ctx.unique(a, return_counts=True, sort=sort)
        got_values, got_counts = ctx.unique(d, return_counts=True, sort=sort)
        same(got_values, want_values, f"unique(return_counts=True, sort={sort}) values")
        same(got_counts, want_counts, f"unique(return_counts=True, sort={sort}) counts")
    with pytest.raises(NotImplementedError):
        ctx.unique(d, return_index=True)
    for name in ["run_length_encode", "non_trivial_runs"]:
        want = getattr(ctx, name)(a)
        got = getattr(gpuscan, name)(d)
        for g, w in zip(got, want):
            same(g, w, name)


def test_unique_nans(ctx):
    a = np.array([1.0, np.nan, 2.0, 2.0, np.nan], np.float32)
    d = ctx.asarray(a)
    same(ctx.unique(d, sort=True, equal_nan=False), np.unique(a, equal_nan=False), "two NaNs, equal_nan=False")
    with pytest.raises(NotImplementedError, match="equal_nan"):
        ctx.unique(d, sort=True)
    one = np.array([3.0, np.nan, 3.0, 1.0])
    same(ctx.unique(ctx.asarray(one), sort=True), np.unique(one), "one NaN")


def test_histogram_nans(ctx):
    a = np.array([1.0, np.nan, 2.0, 7.5, np.nan], np.float32)
    d = ctx.asarray(a)
    with pytest.raises(ValueError, match="range"):  # numpy's: the autodetected range is not finite
        ctx.histogram(d)
    got, edges = ctx.histogram(d, bins=3, range=(0, 8))  # NaNs fall in no bin, as in numpy
    want, want_edges = np.histogram(a, bins=3, range=(0, 8))
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(edges, want_edges)


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("key_dtype", [np.uint32, np.int64], ids=ids)
@pytest.mark.parametrize("dtype", DTYPES, ids=ids)
def test_unique_by_key(ctx, dtype, key_dtype, n):
    rng = rng_for("unique_by_key", dtype, key_dtype, n)
    keys = np.sort(data(key_dtype, n, rng, -30, 30))
    values = data(dtype, n, rng)
    want_keys, want_values = ctx.unique_by_key(keys, values)
    got_keys, got_values = ctx.unique_by_key(ctx.asarray(keys), ctx.asarray(values))
    same(got_keys, want_keys, "unique_by_key keys")
    same(got_values, want_values, "unique_by_key values")


@each_dtype_and_size
def test_histogram(ctx, dtype, n):
    _, a, d = uploaded(ctx, "histogram", dtype, n, -1000, 1000)
    for kwargs in [{}, {"bins": 7}, {"bins": 5, "range": (-10, 400)}, {"bins": [-500, 0, 3, 900]},
                   {"bins": 4, "density": True}]:
        if kwargs.get("density") and n == 0:
            continue  # numpy divides 0 by 0 with a warning
        got_counts, got_edges = ctx.histogram(d, **kwargs)
        want_counts, want_edges = np.histogram(a, **kwargs)
        assert got_counts.dtype == want_counts.dtype and got_edges.dtype == want_edges.dtype, kwargs
        np.testing.assert_array_equal(got_counts, want_counts, err_msg=f"{kwargs} (GPUSCAN_SEED={SEED})")
        np.testing.assert_array_equal(got_edges, want_edges)
    with pytest.raises(NotImplementedError):
        ctx.histogram(d, bins="auto")
    with pytest.raises(NotImplementedError):
        ctx.histogram(d, weights=np.ones(n))


@each_dtype_and_size
def test_segmented(ctx, dtype, n):
    rng, a, d = uploaded(ctx, "segmented", dtype, n)
    flags = rng.random(n) < 0.05
    keys = np.cumsum(rng.random(n) < 0.05).astype(np.int64)
    for inclusive in [False, True]:
        for op in ["add", "max"]:
            want = ctx.segmented_scan(a, flags=flags, op=op, inclusive=inclusive)
            same(ctx.segmented_scan(d, flags=flags, op=op, inclusive=inclusive), want, "host flags")
            same(ctx.segmented_scan(d, flags=ctx.asarray(flags.astype(np.uint32)), op=op, inclusive=inclusive), want,
                 "device flags")
        want = ctx.segmented_scan(a, keys=keys, inclusive=inclusive)
        same(ctx.segmented_scan(d, keys=ctx.asarray(keys), inclusive=inclusive), want, "device keys")
        same(ctx.segmented_scan(d, keys=keys.astype(np.uint32), inclusive=inclusive), want, "host u32 keys")
    offsets = np.unique(np.concatenate([[0, n], rng.integers(0, n + 1, 10)]))
    for op in ["add", "min"]:
        want = ctx.segmented_reduce(a, offsets, op=op)
        same(ctx.segmented_reduce(d, offsets, op=op), want, "segmented_reduce host offsets")
        same(ctx.segmented_reduce(d, ctx.asarray(offsets.astype(np.uint32)), op=op), want, "device offsets")
    with pytest.raises(ValueError):
        ctx.segmented_reduce(d, [0, n + 1])


# --- errors, contexts and freeing ---------------------------------------------------------------------

def test_bad_dtypes_and_shapes(ctx):
    for bad in [np.zeros(4, bool), np.zeros(4, np.int8), np.zeros(4, np.float16), np.zeros(4, np.complex64)]:
        with pytest.raises(TypeError, match="device arrays hold dtype"):
            ctx.asarray(bad)
    with pytest.raises(ValueError, match="1-D"):
        ctx.asarray(np.zeros((2, 3), np.float32))
    d = ctx.asarray(np.arange(8, dtype=np.float32))
    with pytest.raises(ValueError, match="integer dtypes only"):
        ctx.inclusive_scan(d, op="xor")
    with pytest.raises(TypeError, match="4-byte integer"):
        ctx.compact(d, d)
    with pytest.raises(ValueError, match="as long as the keys"):
        ctx.sort_pairs(d, ctx.asarray(np.arange(3, dtype=np.uint32)))
    with pytest.raises(TypeError):
        gpuscan.DeviceArray()
    with pytest.raises(TypeError, match="context must be"):
        gpuscan.asarray([1, 2], context="gpu")
    same(gpuscan.asarray([1, 2], context=ctx), np.array([1, 2]), "asarray(context=ctx)")


# Custom operators on 1-D device arrays: a wrapping sum of uint32 and a maximum of int32, against numpy.
CUSTOM_OPS = {
    "u32_sum": (np.uint32, "#define T uint\nT identity() { return 0u; }\nT combine(T a, T b) { return a + b; }",
                lambda a: np.cumsum(a, dtype=np.uint32), 0),
    "i32_max": (np.int32, "#define T int\nT identity() { return int(0x80000000u); }\n"
                "T combine(T a, T b) { return max(a, b); }", np.maximum.accumulate, np.iinfo(np.int32).min),
}


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("op", list(CUSTOM_OPS))
@pytest.mark.parametrize("inclusive", [False, True])
def test_custom_scan_on_device_arrays(ctx, op, n, inclusive):
    dtype, glsl, accumulate, identity = CUSTOM_OPS[op]
    _, a, d = uploaded(ctx, "custom scan " + op, np.dtype(dtype), n)
    want = accumulate(a).astype(dtype)
    if not inclusive:
        want = np.concatenate([np.array([identity], dtype), want[:-1]])[:n]
    same(ctx.custom_scan(d, glsl, inclusive=inclusive), want, f"custom_scan {op} inclusive={inclusive}")
    np.testing.assert_array_equal(ctx.custom_scan(a, glsl, inclusive=inclusive), want, err_msg="the host path")


def test_arrays_of_different_contexts(ctx):
    a = np.arange(100, dtype=np.int32)
    with gpuscan.Context(validation=True) as other:
        mine, theirs = ctx.asarray(a), other.asarray(a)
        with pytest.raises(ValueError, match="another gpuscan.Context"):
            ctx.sort(theirs)
        with pytest.raises(ValueError, match="another gpuscan.Context"):
            gpuscan.sort_pairs(mine, theirs)
        with pytest.raises(ValueError, match="another gpuscan.Context"):
            ctx.asarray(theirs)
        # The module-level functions run on the array's own Context.
        same(gpuscan.inclusive_scan(theirs), np.cumsum(a, dtype=np.int32), "module function, other Context")
        same(other.asarray(theirs.get()), a, "moved by get()")
        del mine, theirs
        gc.collect()
        assert other.take_validation_messages() == []


def test_closed_context(ctx):
    context = gpuscan.Context(validation=True)
    d = context.asarray(np.arange(10, dtype=np.float64))
    view = d[2:5]
    context.close()
    for use in [d.get, lambda: np.asarray(d), lambda: gpuscan.sort(d), lambda: gpuscan.cumsum(view),
                lambda: view[1], lambda: d[1:3]]:
        with pytest.raises(ValueError, match="closed"):
            use()
    assert "closed" in repr(d) and len(d) == 10
    del d, view  # the last arrays free their memory, then the Context goes
    gc.collect()
    assert context.take_validation_messages() == []


def rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096


def test_memory_is_freed_when_arrays_are_collected():
    """Lavapipe's device memory is the process's: 60 rounds of a 4 MB array and its 4 MB scan kept would
    be 480 MB more."""
    context = gpuscan.Context(validation=True)
    a = np.ones(1 << 20, np.float32)
    for _ in range(10):  # warm up the allocator and the pipelines
        context.inclusive_scan(context.asarray(a))
    gc.collect()
    before = rss_bytes()
    for _ in range(60):
        d = context.asarray(a)
        s = context.inclusive_scan(d)[10:]
        del d, s
    gc.collect()
    grown = rss_bytes() - before
    assert grown < 200 << 20, f"resident memory grew by {grown >> 20} MB"
    context.close()
    assert context.take_validation_messages() == []


def test_widening_past_one_binding(ctx):
    """cumsum of int32 past one storage binding of int64 (lavapipe's is 128 MiB: 2^24 elements) widens
    window by window; a view at an odd offset makes each window's input start off its binding's offset."""
    limit = ctx.device["max_storage_buffer_range"]
    n = min(limit // 8 + 1000, 1 << 25)  # two windows where bindings are small; on other devices one big one
    a = rng_for("widen windows").integers(-5, 5, n + 3).astype(np.int32)
    same(ctx.cumsum(ctx.asarray(a)[3:]), np.cumsum(a[3:]), "cumsum past one binding")
