"""Tests of gpuscan.compact and gpuscan.partition against numpy boolean indexing.

Run as test_gpuscan.py is (the `python` CTest test, or by hand with PYTHONPATH=build/python); the
validated Context, the validation check after every test and the random data come from there.
"""

import numpy as np
import pytest

import gpuscan
from test_gpuscan import SEED, ctx, no_validation_messages, random_array, rng_for  # noqa: F401

DTYPES = [np.uint32, np.int32, np.float32, np.uint64, np.int64, np.float64]  # compaction's element types
SIZES = [0, 1, 4095, 4096, 4097, 200_003]
DENSITIES = [0.0, 0.01, 0.5, 0.99, 1.0]
ALGORITHMS = ["auto", "three-pass", "single-pass"]
PATHS = ["auto", "ballot", "shared-memory"]


def check_same(got, want, what):
    context = f"{what} (GPUSCAN_SEED={SEED})"
    assert isinstance(got, np.ndarray), context
    assert got.dtype == want.dtype and got.shape == want.shape, f"{context}: got {got.dtype} {got.shape}"
    # Bit patterns: compaction copies elements, NaNs and -0.0 included.
    bad = np.flatnonzero(got.view(np.uint32) != want.view(np.uint32))
    assert bad.size == 0, f"{context}: {bad.size} elements differ, first at {bad[:1]}"


def mask_with_density(n, density, rng):
    return rng.random(n) < density


def skip_without_64_bit(ctx, dtype):
    dtype = np.dtype(dtype)
    if dtype.itemsize == 8 and not ctx.device["shader_float64" if dtype.kind == "f" else "shader_int64"]:
        pytest.skip(f"no 64-bit {dtype.name} in shaders on this device")


def can_run(ctx, path, algorithm):
    device = ctx.device
    if path == "ballot" and not device["subgroup_ballot"]:
        return False
    if algorithm == "single-pass" and (path == "shared-memory" or not device["single_pass_capable"]):
        return False
    return True


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_mask_matches_boolean_indexing(ctx, dtype, n, algorithm):
    skip_without_64_bit(ctx, dtype)
    for density in DENSITIES:
        rng = rng_for("mask", dtype, n, algorithm, density)
        a = random_array(dtype, n, rng)
        m = mask_with_density(n, density, rng)
        check_same(ctx.compact(a, m, algorithm=algorithm), a[m], f"compact mask d={density} {algorithm}")
        values, kept = ctx.partition(a, m)
        assert kept == np.count_nonzero(m)
        check_same(values, np.concatenate((a[m], a[~m])), f"partition mask d={density}")


PREDICATES = {
    np.uint32: [("nonzero", lambda a: a != 0), ("gt:2147483648", lambda a: a > 2147483648),
                ("le:1000000000", lambda a: a <= 1000000000), ("eq:7", lambda a: a == 7),
                ("bit:0x10", lambda a: (a & 0x10) != 0),
                ("range:1000:3000000000", lambda a: (a >= 1000) & (a <= 3000000000))],
    np.int32: [("lt:0", lambda a: a < 0), ("ge:-1000000", lambda a: a >= -1000000), ("ne:0", lambda a: a != 0),
               ("range:-5:5", lambda a: (a >= -5) & (a <= 5))],
    np.float32: [("gt:0.5", lambda a: a > 0.5), ("range:-1:1", lambda a: (a >= -1) & (a <= 1)),
                 ("lt:-2.5e2", lambda a: a < -250), ("bit:2147483648", lambda a: np.signbit(a))],
    # 64-bit constants whose high words decide.
    np.uint64: [("nonzero", lambda a: a != 0), ("gt:0x8000000000000000", lambda a: a > 0x8000000000000000),
                ("le:4294967296", lambda a: a <= 4294967296), ("bit:0x100000000", lambda a: (a & 0x100000000) != 0),
                ("range:0x100000000:0xc000000000000000", lambda a: (a >= 0x100000000) & (a <= 0xC000000000000000))],
    np.int64: [("lt:-4294967296", lambda a: a < -4294967296), ("ge:0", lambda a: a >= 0), ("ne:0", lambda a: a != 0),
               ("range:-9223372036854775808:-1", lambda a: a <= -1)],
    np.float64: [("gt:0.5", lambda a: a > 0.5), ("range:-1:1", lambda a: (a >= -1) & (a <= 1)),
                 ("lt:-2.5e2", lambda a: a < -250), ("bit:0x8000000000000000", lambda a: np.signbit(a))],
}


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_predicate_strings_match_numpy(ctx, dtype, path):
    skip_without_64_bit(ctx, dtype)
    for pred, keep in PREDICATES[dtype]:
        for n in (1, 4097, 100_000):
            rng = rng_for("pred", dtype, pred, n)
            a = random_array(dtype, n, rng)
            a[rng.integers(0, n, n // 10)] = 0  # zeros for nonzero, ne:0, range
            m = keep(a)
            for algorithm in ("three-pass", "auto"):
                check_same(ctx.compact(a, pred, path=path, algorithm=algorithm), a[m],
                           f"compact {pred} n={n} {path} {algorithm}")
            values, kept = ctx.partition(a, pred, path=path)
            assert kept == np.count_nonzero(m)
            check_same(values, np.concatenate((a[m], a[~m])), f"partition {pred} n={n} {path}")


def test_docstring_examples_and_default_context():
    got = gpuscan.compact(np.array([5, 0, 7], dtype=np.uint32), "gt:4")
    check_same(got, np.array([5, 7], dtype=np.uint32), "compact example")
    values, kept = gpuscan.partition(np.array([5, 0, 7], dtype=np.int32), "nonzero")
    check_same(values, np.array([5, 7, 0], dtype=np.int32), "partition example")
    assert kept == 2 and isinstance(kept, int)
    a = np.arange(10, dtype=np.uint32)
    check_same(gpuscan.compact(a, a % 3 == 0), a[a % 3 == 0], "compact with a mask expression")
    check_same(gpuscan.compact(a, (a % 2).astype(np.int64) << 40), a[a % 2 == 1], "int64 mask above 32 bits")


def test_integer_masks_and_lists(ctx):
    a = np.arange(6, dtype=np.float32)
    check_same(ctx.compact(a, np.array([0, 3, 0, -1, 0, 1 << 40], dtype=np.int64)),
               np.array([1, 3, 5], dtype=np.float32), "int64 mask")
    check_same(ctx.compact(a, [True, False] * 3), a[::2], "list mask")
    check_same(ctx.compact(np.array([1, 2, 3], dtype=np.int32)[::-1], "gt:1"), np.array([3, 2], dtype=np.int32),
               "a reversed view")


def test_single_pass_is_what_auto_picks_where_the_device_can(ctx):
    a = random_array(np.uint32, 300_001, rng_for("auto"))
    for algorithm in ALGORITHMS:
        if can_run(ctx, "auto", algorithm):
            check_same(ctx.compact(a, "gt:100", algorithm=algorithm), a[a > 100], algorithm)


@pytest.mark.parametrize("pred", ["big:3", "gt:abc", "gt:", "lt", "range:1", "ge:-1", "eq:1.5", "nonzero:1"])
def test_malformed_predicate_raises_value_error(ctx, pred):
    with pytest.raises(ValueError, match=r"invalid predicate .*valid forms: nonzero, eq:C"):
        ctx.compact(np.arange(4, dtype=np.uint32), pred)


@pytest.mark.parametrize("dtype", [np.uint32, np.int32], ids=lambda d: np.dtype(d).name)
def test_hex_integer_constants_in_predicates(ctx, dtype):
    """Integer constants in 0x hex, as bit masks are written (and as the CLI takes them)."""
    a = random_array(dtype, 10_001, rng_for("hex", dtype)) >> np.array(20, dtype)  # small values too
    for pred, keep in [("gt:0x10", a > 0x10), ("eq:0X7", a == 7), ("le:0x0", a <= 0),
                       ("range:0x10:0xfff", (a >= 0x10) & (a <= 0xFFF))]:
        check_same(ctx.compact(a, pred), a[keep], f"{pred} {np.dtype(dtype).name}")
    if dtype == np.int32:
        check_same(ctx.compact(a, "lt:-0x10"), a[a < -0x10], "lt:-0x10 int32")


@pytest.mark.parametrize("pred,dtype,range_text", [
    ("gt:1e39", np.float32, "3.4028235e+38"),
    ("lt:-1e39", np.float32, "3.4028235e+38"),
    ("range:0:1e40", np.float32, "3.4028235e+38"),
    ("gt:1e-50", np.float32, "1.4e-45"),
    ("gt:4294967296", np.uint32, "0 to 4294967295"),
    ("ge:-1", np.uint32, "0 to 4294967295"),
    ("gt:0x100000000", np.uint32, "0 to 4294967295"),
    ("gt:2147483648", np.int32, "-2147483648 to 2147483647"),
    ("lt:-0x80000001", np.int32, "-2147483648 to 2147483647"),
], ids=lambda v: v if isinstance(v, str) else np.dtype(v).name)
def test_out_of_range_constants_say_so_and_name_the_range(ctx, pred, dtype, range_text):
    """A constant the dtype cannot hold is out of range, not malformed; 1e-50 would round to 0 in f32."""
    with pytest.raises(ValueError) as info:
        ctx.compact(np.arange(4).astype(dtype), pred)
    message = str(info.value)
    type_name = {np.uint32: "u32", np.int32: "i32", np.float32: "f32"}[dtype]
    assert f"out of range for type {type_name}" in message, message
    assert range_text in message and "malformed" not in message, message


def test_hex_is_for_integer_dtypes(ctx):
    with pytest.raises(ValueError, match=r"malformed constant '0x10' for type f32"):
        ctx.compact(np.arange(4, dtype=np.float32), "gt:0x10")


def test_bad_arguments(ctx):
    a = np.arange(4, dtype=np.uint32)
    with pytest.raises(ValueError, match=r"one entry per element"):
        ctx.compact(a, np.ones(3, dtype=bool))
    with pytest.raises(ValueError, match=r"one entry per element"):
        ctx.compact(a, np.ones((2, 2), dtype=bool))
    with pytest.raises(TypeError, match=r"predicate string .* mask"):
        ctx.compact(a, np.ones(4, dtype=np.float32))
    with pytest.raises(TypeError, match=r"predicate string .* mask"):
        ctx.compact(a, None)
    with pytest.raises(TypeError, match=r"uint32, int32, float32, uint64, int64 and float64"):
        ctx.compact(a.astype(np.float16), "nonzero")
    with pytest.raises(ValueError, match=r"1-D"):
        ctx.partition(a.reshape(2, 2), "nonzero")
    with pytest.raises(ValueError, match=r"unknown compaction algorithm"):
        ctx.compact(a, "nonzero", algorithm="two-pass")
    with pytest.raises(ValueError, match=r"unknown path"):
        ctx.compact(a, "nonzero", path="warp")
    check_same(ctx.compact(a, "nonzero", path="shared_memory", algorithm="three_pass"), a[1:], "underscores")


@pytest.mark.parametrize("n", [0, 1, 4])
def test_single_pass_partition_is_a_gpuscan_error(ctx, n):
    """Refused whatever the input's length: the algorithm is checked before an empty input returns."""
    a = random_array(np.uint32, n, rng_for("single-pass partition", n))
    for pred in ("nonzero", a % 2 == 0, []) if n == 0 else ("nonzero", a % 2 == 0):
        with pytest.raises(gpuscan.Error) as info:
            ctx.partition(a, pred, algorithm="single-pass")
        assert info.value.code == "unsupported"
        assert "three-pass" in info.value.message


def test_empty_sequence_is_an_empty_mask(ctx):
    """numpy reads [] as float64, yet a[[]] is empty: an empty list (or tuple) is an empty mask."""
    for a in ([], np.zeros(0, np.int16), np.zeros(0, np.float32)):
        want = np.asarray(a)[np.zeros(0, bool)]
        for mask in ([], ()):
            got = ctx.compact(a, mask)
            assert got.dtype == want.dtype and got.size == 0, (a, mask)
            values, kept = ctx.partition(a, mask)
            assert values.dtype == want.dtype and values.size == 0 and kept == 0, (a, mask)
    with pytest.raises(TypeError):  # an array keeps its dtype: a float mask is refused
        ctx.compact(np.zeros(0, np.uint32), np.zeros(0, np.float64))
    assert ctx.segmented_scan(np.zeros(0, np.int32), flags=[]).size == 0
    assert ctx.segmented_scan(np.zeros(0, np.int32), keys=[]).size == 0
    keys, values = ctx.unique_by_key([], np.zeros(0, np.float32))
    assert keys.size == 0 and values.size == 0 and values.dtype == np.float32


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=lambda d: np.dtype(d).name)
def test_nan_and_negative_zero_are_copied_bit_exact(ctx, dtype):
    skip_without_64_bit(ctx, dtype)
    a = np.array([np.nan, -0.0, 1.0, np.inf, -np.nan, 0.0], dtype=dtype)
    check_same(ctx.compact(a, "nonzero"), a[a != 0], "nonzero floats")  # NaN != 0; -0 == 0
    check_same(ctx.compact(a, "eq:-0"), a[a == 0], "eq:-0")  # both zeros
    check_same(ctx.compact(a, "ne:nan"), a, "ne:nan")  # NaN is not equal to anything
    check_same(ctx.compact(a, np.ones(6, dtype=bool)), a, "all, bit exact")


def test_sixty_four_bit_ids_above_two_to_the_32(ctx):
    """The docs' example: u64 ids, selected by a constant only their high words reach."""
    skip_without_64_bit(ctx, np.uint64)
    ids = np.array([7, 1 << 40, 3, (1 << 40) + 5, 1 << 32], dtype=np.uint64)
    check_same(ctx.compact(ids, "ge:0x10000000000"), ids[ids >= 1 << 40], "u64 ids")
    values, kept = ctx.partition(ids, "lt:0x100000000")
    assert kept == 2
    check_same(values, np.concatenate((ids[ids < 1 << 32], ids[ids >= 1 << 32])), "u64 partition")


def check_narrow_or_same(got, want, what):
    if want.dtype.itemsize >= 4:
        check_same(got, want, what)
    else:  # bool and 16-bit: no bit patterns to compare as u32
        assert got.dtype == want.dtype and np.array_equal(got, want), f"{what} (GPUSCAN_SEED={SEED})"


@pytest.mark.parametrize("algorithm", ["three-pass", "single-pass"])
@pytest.mark.parametrize("n", [0, 1, 4097, 200_003])
@pytest.mark.parametrize("dtype", DTYPES + [np.int16, np.bool_], ids=lambda d: np.dtype(d).name)
def test_unique_of_sorted_input_is_numpy_unique(ctx, dtype, n, algorithm):
    skip_without_64_bit(ctx, dtype)
    if not can_run(ctx, "auto", algorithm):
        pytest.skip(f"{algorithm} cannot run on this device")
    rng = rng_for("unique", np.dtype(dtype).name, n, algorithm)
    # Few distinct values, so runs are long and cross tiles; sorted, the result is numpy.unique's.
    pool = random_array(dtype, 50, rng) if dtype != np.bool_ else np.array([False, True])
    a = np.sort(rng.choice(pool, n))
    check_narrow_or_same(ctx.unique(a, algorithm=algorithm), np.unique(a), f"unique {algorithm} n={n}")
    # Unsorted: the first of each run of equal neighbours (std::unique_copy).
    b = rng.choice(pool, n)
    keep = np.ones(n, dtype=bool)
    keep[1:] = b[1:] != b[:-1]
    check_narrow_or_same(ctx.unique(b, algorithm=algorithm), b[keep], f"unique of runs {algorithm} n={n}")


@pytest.mark.parametrize("n", [0, 1, 5000, 200_003])
@pytest.mark.parametrize("dtype", DTYPES + [np.int16, np.bool_], ids=lambda d: np.dtype(d).name)
def test_unique_with_sort_is_numpy_unique_of_any_input(ctx, dtype, n):
    skip_without_64_bit(ctx, dtype)
    rng = rng_for("unique sort", np.dtype(dtype).name, n)
    pool = random_array(dtype, 50, rng) if dtype != np.bool_ else np.array([False, True])
    a = rng.choice(pool, n)
    check_narrow_or_same(ctx.unique(a, sort=True), np.unique(a), f"unique(sort=True) n={n}")
    values, counts = ctx.unique(a, return_counts=True, sort=True)
    want_values, want_counts = np.unique(a, return_counts=True)
    check_narrow_or_same(values, want_values, f"unique(sort=True, return_counts=True) n={n}")
    assert counts.dtype == want_counts.dtype and np.array_equal(counts, want_counts), f"counts (GPUSCAN_SEED={SEED})"


@pytest.mark.parametrize("n", [0, 1, 2, 4097, 100_003])
@pytest.mark.parametrize("dtype", DTYPES + [np.int16, np.bool_], ids=lambda d: np.dtype(d).name)
def test_unique_index_and_inverse_are_numpy_unique(ctx, dtype, n):
    skip_without_64_bit(ctx, dtype)
    rng = rng_for("unique index inverse", np.dtype(dtype).name, n)
    distinct = int(rng.integers(1, 60))
    pool = random_array(dtype, distinct, rng) if dtype != np.bool_ else np.array([False, True])
    a = floats_with_specials(dtype, n, rng) if np.dtype(dtype).kind == "f" and rng.random() < 0.5 else rng.choice(pool, n)
    equal_nan = bool(rng.random() < 0.5)
    values, index, inverse, counts = ctx.unique(a, return_counts=True, sort=True, equal_nan=equal_nan,
                                                return_index=True, return_inverse=True)
    want = np.unique(a, return_index=True, return_inverse=True, return_counts=True, equal_nan=equal_nan)
    what = f"unique(sort=True) of {n} {np.dtype(dtype).name}, equal_nan={equal_nan} (GPUSCAN_SEED={SEED})"
    assert np.array_equal(values, want[0], equal_nan=True) and values.dtype == want[0].dtype, what
    for name, got, expected in (("index", index, want[1]), ("inverse", inverse.ravel(), want[2].ravel()),
                                ("counts", counts, want[3])):
        assert got.dtype == expected.dtype and np.array_equal(got, expected), f"{name}: {what}"
    # Either flag alone gives the same arrays, in numpy's order.
    only_inverse = ctx.unique(a, sort=True, equal_nan=equal_nan, return_inverse=True)
    assert len(only_inverse) == 2 and np.array_equal(only_inverse[1], inverse), f"inverse alone: {what}"
    # Without sort, of the runs: where each starts in `a` and each element's run.
    b = rng.choice(pool, n)
    starts = np.flatnonzero(np.concatenate(([True], b[1:] != b[:-1]))) if n else np.zeros(0, np.intp)
    got_values, got_starts, got_runs = ctx.unique(b, return_index=True, return_inverse=True)
    assert np.array_equal(got_values, b[starts]) and np.array_equal(got_starts, starts), f"runs: {what}"
    assert np.array_equal(got_runs, np.cumsum(np.isin(np.arange(n), starts)) - 1), f"run of each element: {what}"


def test_unique_with_sort_of_float_specials(ctx):
    a = np.array([2.0, np.nan, 0.0, 1.0, -0.0, np.nan, 2.0, -np.inf], dtype=np.float64)
    got = gpuscan.unique(a, sort=True, equal_nan=False)
    want = np.unique(a, equal_nan=False)  # [-inf, 0, 1, 2, nan, nan]
    assert np.array_equal(got, want, equal_nan=True), got
    assert not np.signbit(got[1]), "of the equal zeros, the first in input order (+0.0)"
    assert np.array_equal(gpuscan.unique(a, sort=True), np.unique(a), equal_nan=True)  # one NaN


def floats_with_specials(dtype, n, rng):
    """Few distinct values, among them NaNs (two payloads and a negative one), -0.0, +0.0 and infinities."""
    pool = np.concatenate((random_array(dtype, 20, rng), np.array([np.nan, -np.nan, 0.0, -0.0, np.inf, -np.inf])))
    a = rng.choice(pool.astype(dtype), n)
    a[rng.random(n) < 0.05] = np.array(0x7FC00123, np.uint32).view(np.float32)  # another NaN payload
    return a


def host_unique_runs(a, equal_nan):
    """The first of each run of equal neighbours, NaNs equal to each other where equal_nan."""
    same = a[1:] == a[:-1]
    if equal_nan:
        same |= np.isnan(a[1:]) & np.isnan(a[:-1])
    return np.concatenate(([True], ~same))[:a.size]


@pytest.mark.parametrize("equal_nan", [True, False])
@pytest.mark.parametrize("n", [0, 1, 2, 5000, 100_003])
@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=lambda d: np.dtype(d).name)
def test_unique_treats_nan_as_numpy_unique_does(ctx, dtype, n, equal_nan):
    skip_without_64_bit(ctx, dtype)
    rng = rng_for("unique nan", np.dtype(dtype).name, n, equal_nan)
    a = floats_with_specials(dtype, n, rng)
    what = f"unique equal_nan={equal_nan} n={n} (GPUSCAN_SEED={SEED})"
    want_values, want_counts = np.unique(a, return_counts=True, equal_nan=equal_nan)
    got = ctx.unique(a, sort=True, equal_nan=equal_nan)
    assert got.dtype == a.dtype and np.array_equal(got, want_values, equal_nan=True), what
    values, counts = ctx.unique(a, return_counts=True, sort=True, equal_nan=equal_nan)
    assert np.array_equal(values, want_values, equal_nan=True), what
    assert counts.dtype == want_counts.dtype and np.array_equal(counts, want_counts), what
    if equal_nan:  # numpy's default
        assert np.array_equal(ctx.unique(a, sort=True), np.unique(a), equal_nan=True), what
    # Unsorted: runs of consecutive NaNs are one run where equal_nan, each NaN its own run otherwise.
    starts = host_unique_runs(a, equal_nan)
    assert np.array_equal(ctx.unique(a, equal_nan=equal_nan), a[starts], equal_nan=True), what
    values, counts = ctx.unique(a, return_counts=True, equal_nan=equal_nan)
    assert np.array_equal(values, a[starts], equal_nan=True), what
    assert np.array_equal(counts, np.diff(np.append(np.flatnonzero(starts), n))), what


def test_unique_compares_floats_as_numbers(ctx):
    a = np.array([1.0, -0.0, 0.0, np.nan, np.nan, 2.0, 2.0], dtype=np.float32)
    want = np.array([1.0, -0.0, np.nan, np.nan, 2.0], dtype=np.float32)
    check_same(ctx.unique(a, equal_nan=False), want, "-0 == 0, every NaN its own run")
    check_same(ctx.unique(a), np.array([1.0, -0.0, np.nan, 2.0], dtype=np.float32), "one run of NaNs")
    assert gpuscan.unique(np.array([3, 3, 1, 1, 3, 7], dtype=np.uint32)).tolist() == [3, 1, 3, 7]
    values, kept = ctx.partition(np.array([5, 5, 6], dtype=np.int64), "run-start")
    assert values.tolist() == [5, 6, 5] and kept == 2


@pytest.mark.parametrize("key_dtype", [np.uint32, np.int64, np.int16, np.bool_], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("dtype", [np.float32, np.uint64, np.int8], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("n", [0, 1, 4097, 100_003])
def test_unique_by_key_keeps_the_first_of_each_run_of_keys(ctx, key_dtype, dtype, n):
    skip_without_64_bit(ctx, dtype)
    skip_without_64_bit(ctx, key_dtype)
    rng = rng_for("unique_by_key", np.dtype(key_dtype).name, np.dtype(dtype).name, n)
    pool = np.array([False, True]) if key_dtype == np.bool_ else random_array(key_dtype, 7, rng)
    keys = np.repeat(rng.choice(pool, n), rng.integers(1, 9, n))[:n]
    values = random_array(dtype, keys.size, rng)
    first = np.ones(keys.size, dtype=bool)
    first[1:] = keys[1:] != keys[:-1]
    got_keys, got_values = ctx.unique_by_key(keys, values)
    assert got_keys.dtype == keys.dtype and np.array_equal(got_keys, keys[first])
    check_narrow_or_same(got_values, values[first], f"unique_by_key n={n}")


def test_unique_by_key_bad_arguments(ctx):
    with pytest.raises(ValueError):
        ctx.unique_by_key(np.zeros(3, np.uint32), np.zeros(2, np.float32))
    with pytest.raises(TypeError):
        ctx.unique_by_key(np.zeros(3, np.float32), np.zeros(3, np.float32))
    assert [a.tolist() for a in gpuscan.unique_by_key(np.array([5, 5, 9, 2], np.uint32),
                                                      np.array([1.0, 2.0, 3.0, 4.0]))] == [[5, 9, 2], [1.0, 3.0, 4.0]]


def runs_of(dtype, n, rng):
    """n elements in runs of 1..8 equal values from a small pool (a run may continue the one before)."""
    pool = random_array(dtype, 7, rng) if dtype != np.bool_ else np.array([False, True])
    return np.repeat(rng.choice(pool, n), rng.integers(1, 9, n))[:n]


def host_runs(a):
    """(starts, lengths) of the runs of equal neighbours, compared as numbers (every NaN its own run)."""
    first = np.ones(a.size, dtype=bool)
    first[1:] = ~(a[1:] == a[:-1])
    starts = np.flatnonzero(first)
    return starts, np.diff(np.append(starts, a.size))


@pytest.mark.parametrize("dtype", [np.uint32, np.int32, np.float32, np.uint64, np.int64, np.float64, np.int16,
                                   np.bool_], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("n", [0, 1, 2, 4097, 100_003])
def test_run_length_encode_finds_every_run(ctx, dtype, n):
    skip_without_64_bit(ctx, dtype)
    rng = rng_for("run_length_encode", np.dtype(dtype).name, n)
    a = runs_of(dtype, n, rng)
    starts, lengths = host_runs(a)
    values, got_lengths = ctx.run_length_encode(a)
    assert got_lengths.dtype == np.intp and np.array_equal(got_lengths, lengths)
    check_narrow_or_same(values, a[starts], f"run_length_encode values n={n}")
    offsets, trivial_lengths = ctx.non_trivial_runs(a)
    long_runs = lengths > 1
    assert offsets.dtype == np.intp and np.array_equal(offsets, starts[long_runs])
    assert trivial_lengths.dtype == np.intp and np.array_equal(trivial_lengths, lengths[long_runs])


# run_length_encode and non_trivial_runs are registered from the primitive's signature: the settings
# are keywords (algorithm=, path=, non_trivial=), the input positional or `a`, and misuse raises as
# Python's own functions do.
def test_run_length_keywords_and_misuse(ctx):
    rng = rng_for("run_length_keywords")
    a = runs_of(np.float32, 3000, rng)
    starts, lengths = host_runs(a)
    for kw in [dict(algorithm="three-pass"), dict(algorithm="three_pass", path="shared_memory"),
               dict(algorithm="single-pass"), dict(path="ballot", algorithm="three-pass"), dict(a=a)]:
        args = () if "a" in kw else (a,)
        values, got = ctx.run_length_encode(*args, **kw)
        assert np.array_equal(got, lengths) and np.array_equal(values, a[starts]), kw
    offsets, got = ctx.run_length_encode(a, non_trivial=True)
    assert np.array_equal(offsets, starts[lengths > 1]) and np.array_equal(got, lengths[lengths > 1])
    assert ctx.run_length_encode.__doc__.startswith("run_length_encode(a, *, algorithm='auto', path='auto', "
                                                    "non_trivial=False)")
    assert gpuscan.non_trivial_runs.__doc__.startswith("non_trivial_runs(a, *, algorithm='auto', path='auto')")
    cases = [
        (lambda: ctx.run_length_encode(a, algorithm="four-pass"), ValueError,
         r"unknown algorithm 'four-pass': expected 'auto', 'three-pass' or 'single-pass'"),
        (lambda: ctx.run_length_encode(a, path="warp"), ValueError, r"unknown path 'warp'"),
        (lambda: ctx.run_length_encode(a, "three-pass"), TypeError, r"takes 1 positional argument but 2"),
        (lambda: ctx.run_length_encode(a, a=a), TypeError, r"multiple values for argument 'a'"),
        (lambda: ctx.run_length_encode(), TypeError, r"missing required argument 'a'"),
        (lambda: ctx.run_length_encode(a, bins=3), TypeError, r"unexpected keyword argument 'bins'"),
        (lambda: ctx.run_length_encode(a, non_trivial=1), TypeError, r"non_trivial must be True or False"),
        (lambda: ctx.run_length_encode(a, algorithm=3), TypeError, r"algorithm must be a str"),
        (lambda: ctx.non_trivial_runs(a, non_trivial=False), TypeError, r"unexpected keyword argument"),
        (lambda: ctx.run_length_encode(np.zeros(3, np.complex64)), TypeError, r"not complex64"),
    ]
    for call, error, message in cases:
        with pytest.raises(error, match=message):
            call()


@pytest.mark.parametrize("dtype", [np.uint32, np.float32, np.int64], ids=lambda d: np.dtype(d).name)
def test_unique_with_counts_is_numpy_unique_on_sorted_input(ctx, dtype):
    skip_without_64_bit(ctx, dtype)
    rng = rng_for("unique_counts", np.dtype(dtype).name)
    a = np.sort(rng.choice(random_array(dtype, 40, rng), 50_000))
    values, counts = ctx.unique(a, return_counts=True)
    want_values, want_counts = np.unique(a, return_counts=True)
    check_same(values, want_values, "unique(return_counts=True) values")
    assert counts.dtype == want_counts.dtype and np.array_equal(counts, want_counts)
    f = np.array([1.0, -0.0, 0.0, np.nan, np.nan, 2.0, 2.0], dtype=np.float64)
    values, counts = gpuscan.unique(f, return_counts=True, equal_nan=False)
    check_same(values, np.array([1.0, -0.0, np.nan, np.nan, 2.0]), "-0 == 0, every NaN its own run")
    assert counts.tolist() == [1, 2, 1, 1, 2]
    values, counts = gpuscan.unique(f, return_counts=True)
    check_same(values, np.array([1.0, -0.0, np.nan, 2.0]), "consecutive NaNs one run")
    assert counts.tolist() == [1, 2, 2, 2]
    assert [x.tolist() for x in gpuscan.non_trivial_runs(f)] == [[1, 5], [2, 2]]
