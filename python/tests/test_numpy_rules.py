"""numpy's rules in gpuscan: the accumulate dtypes of bool and narrow integers, the dtypes compaction
takes, and the numpy spellings cumsum and cumprod, against numpy.

Run as test_gpuscan.py is (the `python` CTest test, or by hand with PYTHONPATH=build/python); the
validated Context and the validation check after every test come from there, and so do the data:
random, from the run's seed, which a failure prints (GPUSCAN_SEED=<seed> replays it).
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
    assert isinstance(got, np.ndarray), what
    assert got.dtype == want.dtype and got.shape == want.shape, \
        f"{what}: got {got.dtype} {got.shape}, numpy {want.dtype} {want.shape}"
    same = got == want
    if got.dtype.kind == "f":
        same |= np.isnan(got) & np.isnan(want)
    bad = np.flatnonzero(~same)
    assert bad.size == 0, f"{what}: {bad.size} elements differ, first at {bad[:1]} (GPUSCAN_SEED={SEED})"


def assert_close(got, want, a, what):
    """Float sums: gpuscan adds in another order than numpy; within depth * eps * (sum of |a| so far)."""
    assert got.dtype == want.dtype and got.shape == want.shape, f"{what}: got {got.dtype} {got.shape}"
    wide = np.cumsum(np.abs(a.astype(np.float64)).ravel()).reshape(want.shape) if want.size else want
    depth = 8 + 2 * max(0, int(a.size).bit_length() - 1)
    tolerance = depth * np.finfo(want.dtype).eps * wide + 1e-300
    bad = np.flatnonzero(~(np.abs(got.astype(np.float64) - want.astype(np.float64)) <= tolerance))
    assert bad.size == 0, f"{what}: {bad.size} elements off, first at {bad[:1]} (GPUSCAN_SEED={SEED})"


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

def test_python_lists_compact_as_numpy_makes_them(ctx):
    """A list of ints is int64 to numpy, one of floats float64: compaction takes both as they are."""
    if not (ctx.device["shader_int64"] and ctx.device["shader_float64"]):
        pytest.skip("no 64-bit types in shaders on this device")
    x = [5, 0, 7, 3]
    for f in (ctx.compact, gpuscan.compact):
        assert_same(f(x, "gt:4"), np.array([5, 7]), "a list of ints, as int64")
    values, kept = ctx.partition(x, "gt:4")
    assert kept == 2
    assert_same(values, np.array([5, 7, 0, 3]), "a list of ints partitioned")
    assert_same(ctx.compact([0.5, 2.0], "gt:1"), np.array([2.0]), "a list of floats, as float64")


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


# --- cumsum and cumprod --------------------------------------------------------------------------------

CUM_DTYPES = [np.bool_, np.int8, np.uint16, np.int32, np.uint32, np.int64, np.uint64, np.float32, np.float64]


def numpy_twin(f):
    return {"cumsum": np.cumsum, "cumprod": np.cumprod}[f]


def compare(got, want, a, f, what):
    if want.dtype.kind == "f" and f == "cumsum":
        assert_close(got, want, a, what)
    else:
        assert_same(got, want, what)


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", CUM_DTYPES, ids=name)
@pytest.mark.parametrize("f", ["cumsum", "cumprod"])
def test_cumsum_and_cumprod_match_numpy(ctx, f, dtype, n):
    rng = rng_for("cum", f, dtype, n)
    want_dtype = numpy_twin(f)(np.zeros(1, dtype)).dtype
    needs_int64(ctx, want_dtype)
    if want_dtype == np.float64 and not ctx.device["shader_float64"]:
        pytest.skip("the device has no 64-bit floats")
    a = (random_values if f == "cumsum" else product_values)(dtype, n, rng)
    with np.errstate(over="ignore"):
        want = numpy_twin(f)(a)
    for target in (ctx, gpuscan):
        compare(getattr(target, f)(a), want, a, f, f"{f} {name(dtype)} n={n}")
    compare(getattr(ctx, f)(a, axis=0), want, a, f, f"{f} axis=0")
    compare(getattr(ctx, f)(a, axis=-1), want, a, f, f"{f} axis=-1")


@pytest.mark.parametrize("f", ["cumsum", "cumprod"])
def test_cumsum_dtype_argument(ctx, f):
    needs_int64(ctx, np.int64)
    rng = rng_for("cum dtype", f)
    n = 20_001
    # Products of +-1 and some 2s are exact in every dtype, integer (wrapping) or float, in any order.
    a = random_values(np.int32, n, rng) if f == "cumsum" else \
        np.where(rng.integers(0, 64, n) == 0, 2, rng.choice([-1, 1], n)).astype(np.int32)
    for dtype in (np.int32, np.uint32, np.int64, np.int8, np.uint16, np.float64, "f4", np.bool_):
        if np.dtype(dtype) == np.float64 and not ctx.device["shader_float64"]:
            continue
        with np.errstate(over="ignore"):
            want = numpy_twin(f)(a, dtype=dtype)
        compare(getattr(ctx, f)(a, dtype=dtype), want, a.astype(dtype), f, f"{f} dtype={dtype}")
    b = np.array([1.5, 2.5, -0.75])
    assert_same(getattr(ctx, f)(b, dtype=np.int32), numpy_twin(f)(b, dtype=np.int32), "float to int32")
    with pytest.raises(TypeError, match=r"float16"):
        getattr(ctx, f)(a, dtype=np.float16)


@pytest.mark.parametrize("shape", [(3, 4), (2, 3, 5), (7, 0), (1, 4097), (300, 17)])
@pytest.mark.parametrize("dtype", [np.bool_, np.uint8, np.int32, np.float32], ids=name)
@pytest.mark.parametrize("f", ["cumsum", "cumprod"])
def test_axes_of_nd_arrays(ctx, f, dtype, shape):
    needs_int64(ctx, np.int64)
    rng = rng_for("axes", f, dtype, shape)
    a = (random_values if f == "cumsum" else product_values)(dtype, int(np.prod(shape)), rng).reshape(shape)
    for axis in [None] + list(range(-len(shape), len(shape))):
        with np.errstate(over="ignore"):
            want = numpy_twin(f)(a, axis=axis)
        got = getattr(ctx, f)(a, axis=axis)
        compare(got, want, a if axis is None else np.moveaxis(a, axis, -1), f, f"{f} {shape} axis={axis}")
    compare(getattr(ctx, f)(a.T, axis=0), numpy_twin(f)(a.T, axis=0), a.T, f, f"{f} of a transposed view")
    with pytest.raises(np.AxisError):
        getattr(ctx, f)(a, axis=len(shape))
    with pytest.raises(TypeError):
        getattr(ctx, f)(a, axis=1.0)


@pytest.mark.parametrize("f", ["cumsum", "cumprod"])
def test_out_argument(ctx, f):
    needs_int64(ctx, np.int64)
    a = np.arange(1, 13, dtype=np.int16).reshape(3, 4)
    for axis in (None, 0, 1):
        want = numpy_twin(f)(a, axis=axis)
        out = np.full(want.shape, -7, want.dtype)
        assert getattr(ctx, f)(a, axis=axis, out=out) is out
        assert_same(out, want, f"out axis={axis}")
        # Another dtype is cast into, as numpy does; so is a strided view.
        for out in (np.zeros(want.shape, np.float32), np.zeros((*want.shape[:-1], want.shape[-1] * 2), np.int64)[..., ::2]):
            want_cast = numpy_twin(f)(a, axis=axis, out=np.zeros_like(out))
            assert getattr(gpuscan, f)(a, axis=axis, out=out) is out
            assert_same(out, want_cast, f"out {out.dtype} axis={axis}")
    b = np.arange(5, dtype=np.int64)
    getattr(ctx, f)(b, out=b)  # in place
    assert_same(b, numpy_twin(f)(np.arange(5)), "in place")
    with pytest.raises(ValueError, match=r"shape"):
        getattr(ctx, f)(a, out=np.zeros(11, np.int64))
    with pytest.raises(ValueError, match=r"shape"):
        getattr(ctx, f)(a, axis=0, out=np.zeros(12, np.int64))
    with pytest.raises(TypeError, match=r"out must be a numpy array"):
        getattr(ctx, f)(a, out=[0] * 12)
    read_only = np.zeros(12, np.int64)
    read_only.flags.writeable = False
    with pytest.raises(ValueError):
        getattr(ctx, f)(a, out=read_only)


def out_pair_values(f, a_dtype, out_dtype, n, rng):
    """Values whose running results are exact in the loop dtype numpy picks for (a, out), in any order,
    and that tell that dtype apart from a's accumulate dtype: powers of two (products overflow 64-bit
    integers but not float64) or multiples of 1/4 up to 2^20 (float32 sums round, float64 ones do not)."""
    a_dtype, out_dtype = np.dtype(a_dtype), np.dtype(out_dtype)
    if f == "cumprod":
        if a_dtype.kind == "f":
            return (rng.choice([-1.0, 1.0], n) * np.ldexp(1.0, rng.integers(-3, 4, n))).astype(a_dtype)
        return (1 << rng.integers(0, 7, n)).astype(a_dtype)
    if a_dtype.kind == "f":
        return (rng.integers(-(1 << 22), 1 << 22, n) / 4).astype(a_dtype)
    if np.result_type(a_dtype, out_dtype) == np.float32:  # integer sums below 2^24: exact in float32
        return rng.integers(0, 100, n).astype(a_dtype)
    return random_values(a_dtype, n, rng)


OUT_PAIRS = [(np.uint8, np.float64), (np.int32, np.float32), (np.float32, np.int64), (np.float32, np.float64),
             (np.uint8, np.uint8), (np.int16, np.int8), (np.int32, np.uint32), (np.int64, np.bool_),
             (np.bool_, np.int16), (np.float64, np.int32), (np.uint16, np.float32)]


@pytest.mark.parametrize("a_dtype,out_dtype", OUT_PAIRS, ids=lambda d: name(d))
@pytest.mark.parametrize("f", ["cumsum", "cumprod"])
def test_out_sets_the_loop_dtype_as_in_numpy(ctx, f, a_dtype, out_dtype):
    """numpy accumulates into out= in the promotion of out's dtype and a's, not in a's accumulate dtype."""
    loop = np.result_type(a_dtype, out_dtype)
    needs_int64(ctx, loop)
    if loop == np.float64 and not ctx.device["shader_float64"]:
        pytest.skip("the device has no 64-bit floats")
    rng = rng_for("out loop dtype", f, name(a_dtype), name(out_dtype))
    for shape, axis in (((3000,), None), ((40, 70), 1), ((40, 70), 0)):
        a = out_pair_values(f, a_dtype, out_dtype, int(np.prod(shape)), rng).reshape(shape)
        with np.errstate(all="ignore"):
            want = numpy_twin(f)(a, axis=axis, out=np.zeros(a.shape if axis is not None else a.size, out_dtype))
            out = np.full(want.shape, 3, out_dtype)
            assert getattr(ctx, f)(a, axis=axis, out=out) is out
        assert_same(out, want, f"{f} {name(a_dtype)} into out {name(out_dtype)} axis={axis}")


def test_out_with_dtype_and_the_documented_example(ctx):
    needs_int64(ctx, np.int64)
    a = np.full(25, 200, np.uint8)
    want = np.cumprod(a, out=np.empty(25))
    assert want[-1] > 1e57
    got = gpuscan.cumprod(a, out=np.empty(25))  # multiplied in another order: the last bits may differ
    np.testing.assert_allclose(got, want, rtol=1e-14, err_msg="uint8 products into a float64 out")
    b = np.array([200, 100, 100, 7], np.uint8)  # dtype= sets the loop: uint8 sums wrap before the cast
    assert_same(gpuscan.cumsum(b, dtype=np.uint8, out=np.empty(4, np.float32)),
                np.cumsum(b, dtype=np.uint8, out=np.empty(4, np.float32)), "dtype=uint8 into float32")
    with pytest.raises(TypeError, match=r"float16"):  # numpy would sum uint8 into float16 in float16
        gpuscan.cumsum(b, out=np.empty(4, np.float16))


def test_scalars_and_lists_as_numpy(ctx):
    needs_int64(ctx, np.int64)
    assert_same(gpuscan.cumsum(5), np.cumsum(5), "a Python int")
    assert_same(gpuscan.cumsum(np.float32(2.5)), np.cumsum(np.float32(2.5)), "a numpy scalar")
    assert_same(gpuscan.cumsum([True, False, True]), np.cumsum([True, False, True]), "a list of bools")
    assert_same(gpuscan.cumprod([[1, 2], [3, 4]]), np.cumprod([[1, 2], [3, 4]]), "nested lists")
    assert_same(gpuscan.cumsum([]), np.cumsum([]), "an empty list")
    with pytest.raises(TypeError, match=r"complex"):
        gpuscan.cumsum(np.ones(3, np.complex64))
