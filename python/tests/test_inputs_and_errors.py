"""What every function shares: any array layout numpy has (byte-swapped, strided) works alike, errors in
the input's shape or values are numpy's exception types (ValueError, TypeError), never gpuscan.Error, and
positions, counts and lengths come back as numpy's intp.

Run as test_gpuscan.py is (the `python` CTest test, or by hand with PYTHONPATH=build/python); the
validated Context, the validation check after every test and the random data come from there.
"""

import numpy as np
import pytest

import gpuscan
from test_gpuscan import SEED, ctx, no_validation_messages, random_array, rng_for  # noqa: F401

N = 5003


def swapped(a):
    """`a` with its bytes in the other order (the same values)."""
    return a.astype(a.dtype.newbyteorder("S"))


def strided(a):
    """`a` as every other element of a twice-as-long array (the same values)."""
    wide = np.zeros(2 * a.size, a.dtype)
    wide[::2] = a
    return wide[::2]


def calls(ctx, rng):
    """(name, function of one array, the array): every function, on data it takes."""
    u = random_array(np.uint32, N, rng)
    f = random_array(np.float64, N, rng)
    few = rng.choice(random_array(np.int32, 20, rng), N)  # runs and repeats
    flags = (rng.random(N) < 0.1).astype(np.int32)
    offsets = np.sort(rng.integers(0, N, 30)).astype(np.int64)
    affine = ("struct A { uint a; uint b; };\n#define T A\nT identity() { return A(1u, 0u); }\n"
              "T combine(T f, T g) { return A(g.a * f.a, g.a * f.b + g.b); }")
    return [
        ("exclusive_scan", ctx.exclusive_scan, u),
        ("inclusive_scan f64 max", lambda a: ctx.inclusive_scan(a, op="max"), f),
        ("reduce", ctx.reduce, f),
        ("cumsum", ctx.cumsum, few),
        ("cumprod 2-D axis 0", lambda a: ctx.cumprod(a.reshape(-1, 1), axis=0), few),
        ("compact pred", lambda a: ctx.compact(a, "gt:0"), few),
        ("compact mask", lambda m: ctx.compact(u, m), flags),
        ("partition", lambda a: ctx.partition(a, "lt:0"), f),
        ("unique", ctx.unique, few),
        ("unique sort counts", lambda a: ctx.unique(a, return_counts=True, sort=True), few),
        ("run_length_encode", ctx.run_length_encode, few),
        ("non_trivial_runs", ctx.non_trivial_runs, few),
        ("unique_by_key keys", lambda k: ctx.unique_by_key(k, f), few),
        ("unique_by_key values", lambda v: ctx.unique_by_key(few, v), f),
        ("segmented_scan values", lambda a: ctx.segmented_scan(a, flags=flags), u),
        ("segmented_scan flags", lambda m: ctx.segmented_scan(u, flags=m), flags),
        ("segmented_scan keys", lambda k: ctx.segmented_scan(u, keys=k), few),
        ("segmented_reduce", lambda a: ctx.segmented_reduce(a, offsets), f),
        ("segmented_reduce offsets", lambda o: ctx.segmented_reduce(f, o), offsets),
        ("sort", ctx.sort, f),
        ("argsort", ctx.argsort, few),
        ("sort_pairs keys", lambda k: ctx.sort_pairs(k, u), few),
        ("sort_pairs values", lambda v: ctx.sort_pairs(few, v), f),
        ("histogram", lambda a: ctx.histogram(a, bins=37), few),
        ("custom_scan", lambda a: ctx.custom_scan(a.reshape(-1, 2), affine), u[:N - 1]),
    ]


def assert_same_results(got, want, what):
    got = got if isinstance(got, tuple) else (got,)
    want = want if isinstance(want, tuple) else (want,)
    for g, w in zip(got, want):
        g, w = np.asarray(g), np.asarray(w)
        assert g.dtype == w.dtype and np.array_equal(g, w), f"{what} (GPUSCAN_SEED={SEED})"


@pytest.mark.parametrize("layout", [swapped, strided, lambda a: strided(swapped(a))],
                         ids=["byte-swapped", "strided", "both"])
def test_every_function_takes_any_layout(ctx, layout):
    if not ctx.device["shader_int64"] or not ctx.device["shader_float64"]:
        pytest.skip("the device has no 64-bit types")
    for name, call, a in calls(ctx, rng_for("layouts")):
        b = layout(a)
        assert np.array_equal(a, b) and (not b.dtype.isnative or not b.flags.c_contiguous)
        assert_same_results(call(b), call(a), f"{name} of {layout.__name__} input")


def test_positions_counts_and_lengths_are_intp(ctx):
    rng = rng_for("intp")
    a = rng.choice(random_array(np.uint32, 30, rng), N)
    assert ctx.argsort(a).dtype == np.argsort(a).dtype == np.intp
    assert ctx.unique(a, return_counts=True, sort=True)[1].dtype == np.unique(a, return_counts=True)[1].dtype
    assert ctx.histogram(a)[0].dtype == np.histogram(a)[0].dtype
    values, lengths = ctx.run_length_encode(a)
    offsets, run_lengths = ctx.non_trivial_runs(a)
    assert lengths.dtype == offsets.dtype == run_lengths.dtype == np.flatnonzero(a).dtype == np.intp
    _, kept = ctx.partition(a, "gt:7")
    assert type(kept) is type(np.count_nonzero(a > 7)) is int


def bad_calls(ctx):
    """(name, call, numpy's exception type): input whose shape or values are wrong."""
    a = np.arange(10, dtype=np.float32)
    return [
        ("segmented_reduce no offsets", lambda: ctx.segmented_reduce(a, []), ValueError),
        ("segmented_reduce decreasing", lambda: ctx.segmented_reduce(a, [0, 6, 3, 10]), ValueError),
        ("segmented_reduce past len(a)", lambda: ctx.segmented_reduce(a, [0, 11]), ValueError),
        ("segmented_reduce negative", lambda: ctx.segmented_reduce(a, [-1, 3]), ValueError),
        ("segmented_reduce 2-D offsets", lambda: ctx.segmented_reduce(a, [[0, 3]]), ValueError),
        ("segmented_reduce float offsets", lambda: ctx.segmented_reduce(a, [0.0, 3.0]), TypeError),
        ("segmented_scan short flags", lambda: ctx.segmented_scan(a, flags=[1, 0]), ValueError),
        ("segmented_scan short keys", lambda: ctx.segmented_scan(a, keys=np.zeros(3, np.int32)), ValueError),
        ("scan of 2-D", lambda: ctx.inclusive_scan(a.reshape(2, 5)), ValueError),
        ("scan of a scalar", lambda: ctx.exclusive_scan(np.float32(3)), ValueError),
        ("reduce of 2-D", lambda: ctx.reduce(a.reshape(2, 5)), ValueError),
        ("compact short mask", lambda: ctx.compact(a, [True]), ValueError),
        ("partition of 2-D", lambda: ctx.partition(a.reshape(2, 5), "gt:1"), ValueError),
        ("unique of 2-D", lambda: ctx.unique(a.reshape(2, 5)), ValueError),
        ("run_length_encode of 2-D", lambda: ctx.run_length_encode(a.reshape(2, 5)), ValueError),
        ("unique_by_key lengths", lambda: ctx.unique_by_key(np.zeros(3, np.int32), a), ValueError),
        ("sort of 2-D", lambda: ctx.sort(a.reshape(2, 5)), ValueError),
        ("argsort of a scalar", lambda: ctx.argsort(np.float32(1)), ValueError),
        ("sort_pairs lengths", lambda: ctx.sort_pairs(a, a[:3]), ValueError),
        ("histogram bins=0", lambda: ctx.histogram(a, bins=0), ValueError),
        ("histogram decreasing edges", lambda: ctx.histogram(a, bins=[3, 1]), ValueError),
        ("cumsum out shape", lambda: ctx.cumsum(a, out=np.zeros(3, np.float32)), ValueError),
        ("cumsum axis", lambda: ctx.cumsum(a, axis=1), ValueError),
        ("custom_scan of a scalar", lambda: ctx.custom_scan(np.uint32(1), "bad"), ValueError),
    ]


def test_bad_input_raises_numpy_exception_types(ctx):
    for name, call, error in bad_calls(ctx):
        with pytest.raises(Exception) as info:
            call()
        assert isinstance(info.value, error) and not isinstance(info.value, gpuscan.Error), \
            f"{name}: {type(info.value).__name__}: {info.value}"
