"""Tests of the gpuscan Python module against numpy.

Run from CTest (the `python` test: PYTHONPATH points at the built module and GPUSCAN_VALIDATE=1), or by
hand:  PYTHONPATH=build/python GPUSCAN_VALIDATE=1 /usr/bin/python3 -m pytest -q python/tests
Random data come from a seed drawn fresh for each run; failures print it, and GPUSCAN_SEED=<seed>
replays it.
"""

import os
import re
import threading
import time
import zlib

import numpy as np
import pytest

import gpuscan

DTYPES = [np.uint32, np.int32, np.float32]
ALL_DTYPES = DTYPES + [np.uint64, np.int64, np.float64]
OPS = ["add", "min", "max", "mul", "and", "or", "xor"]
# The numpy ufunc of each op and its identity: exclusive scans start with it, empty reductions give it.
UFUNCS = {"add": np.add, "min": np.minimum, "max": np.maximum, "mul": np.multiply,
          "and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}
KINDS = ["exclusive", "inclusive"]
ALGORITHMS = ["auto", "single-pass", "reduce-then-scan", "multipass", "blelloch", "look-ahead"]
SIZES = [0, 1, 4095, 4096, 4097, 1_000_003]

SEED = int(os.environ.get("GPUSCAN_SEED", "0"), 0) or int.from_bytes(os.urandom(4), "little")


def rng_for(*key):
    """A generator seeded by the run's seed and the test's parameters: reproducible per test."""
    return np.random.default_rng([SEED, zlib.crc32(repr(key).encode())])


def random_array(dtype, n, rng):
    if np.dtype(dtype).kind == "f":
        # Mixed magnitudes and signs, as the C++ tests: sign * [1, 2) * 2^[-10, 10].
        mantissa = rng.uniform(1.0, 2.0, n)
        exponent = rng.integers(-10, 11, n)
        sign = rng.choice([-1.0, 1.0], n)
        return (sign * np.ldexp(mantissa, exponent)).astype(dtype)
    info = np.iinfo(dtype)  # the full range: sums wrap
    return rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)


def check_scan(got, a, kind, what=""):
    """Compares a gpuscan result with numpy: exact for integers (wrapping like numpy's cumsum in the
    array's own dtype), for float32 against a float64 cumsum within depth * eps * (sum of |a| so far),
    the bound gpuscan's C++ tests use."""
    context = f"{what} n={a.size} dtype={a.dtype} {kind} (GPUSCAN_SEED={SEED})"
    assert isinstance(got, np.ndarray), context
    assert got.dtype == a.dtype and got.shape == a.shape, f"{context}: got {got.dtype} {got.shape}"
    n = a.size
    if is_float(a.dtype):
        wide = a.astype(np.float64 if a.dtype == np.float32 else np.longdouble)
        expected = np.cumsum(wide)
        magnitude = np.cumsum(np.abs(wide))
        if kind == "exclusive":
            expected = np.concatenate(([0.0], expected[:-1]))[:n]
            magnitude = np.concatenate(([0.0], magnitude[:-1]))[:n]
        depth = 8 + 2 * max(0, int(n).bit_length() - 1)
        tolerance = depth * np.finfo(a.dtype).eps * magnitude + 1e-300
        bad = np.flatnonzero(~(np.abs(got.astype(wide.dtype) - expected) <= tolerance))
        if bad.size:
            i = bad[0]
            pytest.fail(f"{context}: {bad.size} elements off, first [{i}] = {got[i]!r}, expected {expected[i]!r} "
                        f"+- {tolerance[i]:.3g}")
    else:
        expected = np.cumsum(a, dtype=a.dtype)
        if kind == "exclusive":
            expected = np.concatenate((np.zeros(1, a.dtype), expected[:-1]))[:n]
        bad = np.flatnonzero(got != expected)
        if bad.size:
            i = bad[0]
            pytest.fail(f"{context}: {bad.size} elements differ, first [{i}] = {got[i]}, expected {expected[i]}")


def is_float(dtype):
    return np.dtype(dtype).kind == "f"


def identity(dtype, op):
    if op in ("add", "or", "xor"):
        return np.zeros((), dtype)[()]
    if op == "mul":
        return np.ones((), dtype)[()]
    if op == "and":
        return np.array(-1).astype(dtype)[()]  # all bits set
    if is_float(dtype):
        return np.array(np.inf if op == "min" else -np.inf, dtype)[()]
    info = np.iinfo(dtype)
    return np.array(info.max if op == "min" else info.min, dtype)[()]


def op_array(dtype, op, n, rng):
    """Data that keeps a scan under `op` informative (as the C++ tests' random_op_values): rare bits for
    and/or, odd factors for integer mul, and for float mul +-1 with now and then a 2 followed by a 1/2,
    so every partial product is +-1 or +-2 (exact in any order, at any length)."""
    a = random_array(dtype, n, rng)
    rare = rng.integers(0, 64, n) == 0
    if op in ("and", "or"):
        bits = np.left_shift(np.ones(n, dtype), rng.integers(0, np.dtype(dtype).itemsize * 8, n).astype(dtype))
        a = np.where(rare, bits, np.zeros(n, dtype))
        if op == "and":
            a = np.invert(a)
    elif op == "mul" and is_float(dtype):
        factor = np.ones(n)
        pairs = np.flatnonzero(rng.integers(0, 32, n // 2) == 0) * 2
        factor[pairs] = 2.0
        factor[pairs + 1] = 0.5
        a = (rng.choice([-1.0, 1.0], n) * factor).astype(dtype)
    elif op == "mul":
        a = a | np.ones(n, dtype)
    return a


def check_op_scan(got, a, kind, op, what=""):
    """Exact against numpy's accumulate in the array's own dtype (wrapping as gpuscan does) for every op
    but float add, which check_scan compares within its tolerance."""
    if op == "add":
        return check_scan(got, a, kind, what)
    context = f"{what} op={op} n={a.size} dtype={a.dtype} {kind} (GPUSCAN_SEED={SEED})"
    assert got.dtype == a.dtype and got.shape == a.shape, f"{context}: got {got.dtype} {got.shape}"
    with np.errstate(over="ignore"):
        expected = UFUNCS[op].accumulate(a, dtype=a.dtype) if a.size else a.copy()
    if kind == "exclusive":
        expected = np.concatenate(([identity(a.dtype, op)], expected[:-1]))[:a.size].astype(a.dtype)
    bad = np.flatnonzero(got != expected)
    if bad.size:
        i = bad[0]
        pytest.fail(f"{context}: {bad.size} elements differ, first [{i}] = {got[i]}, expected {expected[i]}")


def run_scan(target, kind, a, **kwargs):
    return getattr(target, f"{kind}_scan")(a, **kwargs)


@pytest.fixture(scope="module")
def ctx():
    """One validated Context for the module; after closing it, shutdown must be clean too."""
    context = gpuscan.Context(validation=True)
    yield context
    context.close()
    assert context.take_validation_messages() == [], "validation messages at shutdown"


@pytest.fixture(autouse=True)
def no_validation_messages(request):
    """Fails any test during which a validation layer (of `ctx` or of the default Context, which
    validates under GPUSCAN_VALIDATE=1) reported a warning or an error."""
    yield
    contexts = [gpuscan.default_context()]
    if "ctx" in request.fixturenames:
        contexts.append(request.getfixturevalue("ctx"))
    for c in contexts:
        assert c.take_validation_messages() == [], f"validation messages on {c!r}"


# --- results against numpy -------------------------------------------------------------------------

@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_scan_matches_numpy(ctx, dtype, kind, n, algorithm):
    a = random_array(dtype, n, rng_for(dtype, kind, n, algorithm))
    before = a.copy()
    got = run_scan(ctx, kind, a, algorithm=algorithm)
    check_scan(got, a, kind, algorithm)
    assert np.array_equal(a, before, equal_nan=True), "the input was modified"


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_random_sizes(ctx, dtype):
    rng = rng_for("random sizes", dtype)
    sizes = list(rng.integers(2, 70_000, 6)) + list(rng.integers(70_000, 600_000, 2))
    for n in sizes:
        algorithm = ALGORITHMS[int(rng.integers(len(ALGORITHMS)))]
        kind = KINDS[int(rng.integers(2))]
        a = random_array(dtype, int(n), rng)
        check_scan(run_scan(ctx, kind, a, algorithm=algorithm), a, kind, algorithm)


def test_above_single_pass_range(ctx):
    """Above 2^21 elements `auto` switches from single-pass to reduce-then-scan on lavapipe (the H200
    and H100 profiles keep single-pass for exclusive scans of 4-byte types at every size)."""
    n = (1 << 21) + 5
    a = random_array(np.uint32, n, rng_for("large"))
    check_scan(ctx.exclusive_scan(a), a, "exclusive", "auto")


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=lambda d: np.dtype(d).name)
def test_ops_match_numpy(ctx, dtype, op):
    """Every dtype x op, both kinds, around one tile and beyond; the algorithm rotates with the size."""
    if is_float(dtype) and op in ("and", "or", "xor"):
        pytest.skip("bitwise ops are defined on integer dtypes only")
    rng = rng_for("ops", dtype, op)
    for i, n in enumerate([1, 4097, 70_001]):
        for kind in KINDS:
            algorithm = ALGORITHMS[(i + KINDS.index(kind)) % len(ALGORITHMS)]
            a = op_array(dtype, op, n, rng)
            check_op_scan(run_scan(ctx, kind, a, op=op, algorithm=algorithm), a, kind, op, algorithm)


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=lambda d: np.dtype(d).name)
def test_reduce_matches_numpy(ctx, dtype, op):
    if is_float(dtype) and op in ("and", "or", "xor"):
        pytest.skip("bitwise ops are defined on integer dtypes only")
    rng = rng_for("reduce", dtype, op)
    for n in [0, 1, 4097, 1_000_003]:
        a = op_array(dtype, op, n, rng)
        got = ctx.reduce(a, op=op)
        context = f"reduce op={op} n={n} dtype={a.dtype} (GPUSCAN_SEED={SEED})"
        assert isinstance(got, np.generic) and got.dtype == a.dtype, context
        if n == 0:
            assert got == identity(dtype, op) or (np.isnan(got) and np.isnan(identity(dtype, op))), context
        elif op == "add" and is_float(dtype):
            wide = a.astype(np.float64 if a.dtype == np.float32 else np.longdouble)
            depth = 8 + 2 * max(0, int(n).bit_length() - 1)
            tolerance = depth * np.finfo(a.dtype).eps * np.sum(np.abs(wide))
            assert abs(got.astype(wide.dtype) - np.sum(wide)) <= tolerance, f"{context}: {got} vs {np.sum(wide)}"
        elif op == "mul" and is_float(dtype):
            # Exact powers of two, but a running product in the array's dtype can overflow where the
            # GPU's tree of partial products does not (and the total is in range): multiply wider.
            wide = a.astype(np.float64 if a.dtype == np.float32 else np.longdouble)
            with np.errstate(over="ignore"):
                expected = np.multiply.reduce(wide).astype(a.dtype)
            assert got == expected, f"{context}: got {got}, expected {expected}"
        else:
            with np.errstate(over="ignore"):
                expected = UFUNCS[op].reduce(a, dtype=a.dtype)
            assert got == expected, f"{context}: got {got}, expected {expected}"


@pytest.mark.parametrize("op", ["min", "max"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=lambda d: np.dtype(d).name)
def test_nan_propagates_like_numpy(ctx, dtype, op):
    """min and max propagate NaN as np.minimum/np.maximum do: NaN from the first NaN on (inclusive),
    from the element after it (exclusive), and the reduction of anything holding a NaN is NaN."""
    small = np.array([1, np.nan, 3, .5, 7], dtype)
    np.testing.assert_array_equal(ctx.inclusive_scan(small, op=op), UFUNCS[op].accumulate(small))
    assert np.isnan(ctx.reduce(small, op=op))
    rng = rng_for("nan", dtype, op)
    for i, n in enumerate([2, 4097, 70_001]):
        a = op_array(dtype, op, n, rng)
        a[rng.integers(n // 2, n, 3)] = np.nan  # the first half still tests min/max themselves
        for kind in KINDS:
            algorithm = ALGORITHMS[(i + KINDS.index(kind)) % len(ALGORITHMS)]
            expected = UFUNCS[op].accumulate(a)
            if kind == "exclusive":
                expected = np.concatenate(([identity(a.dtype, op)], expected[:-1])).astype(a.dtype)
            got = run_scan(ctx, kind, a, op=op, algorithm=algorithm)
            assert np.array_equal(got, expected, equal_nan=True), f"{op} {kind} n={n} {algorithm} (GPUSCAN_SEED={SEED})"
        assert np.isnan(ctx.reduce(a, op=op))
        assert not np.isnan(ctx.reduce(a[: n // 2], op=op))


def test_float_results_are_reproducible(ctx):
    """Deterministic by default: the same float input gives the same bits on every run."""
    rng = rng_for("deterministic")
    for dtype in (np.float32, np.float64):
        a = random_array(dtype, 300_007, rng)
        first, total = ctx.inclusive_scan(a), ctx.reduce(a)
        for _ in range(5):
            assert ctx.inclusive_scan(a).tobytes() == first.tobytes()
            assert ctx.reduce(a).tobytes() == total.tobytes()


def test_nondeterministic_float_scans(ctx):
    """deterministic=False: float single-pass scans take the unordered look-back; still correct, and the
    flag is keyword-only (a fourth positional argument is an error, not a silent mode switch)."""
    rng = rng_for("nondeterministic")
    for dtype in (np.float32, np.float64):
        a = random_array(dtype, 200_003, rng)
        check_scan(ctx.exclusive_scan(a, "add", "single-pass", deterministic=False), a, "exclusive", "unordered")
        check_scan(gpuscan.inclusive_scan(a, algorithm="single-pass", deterministic=False), a, "inclusive",
                   "unordered, module-level")
        ordered = ctx.inclusive_scan(a, algorithm="single-pass")
        check_scan(ordered, a, "inclusive", "ordered single-pass")
        assert ctx.inclusive_scan(a, algorithm="single-pass").tobytes() == ordered.tobytes()
    with pytest.raises(TypeError):
        ctx.exclusive_scan(np.arange(4, dtype=np.float32), "add", "auto", False)


def test_default_context_functions():
    a = random_array(np.int32, 10_007, rng_for("default"))
    check_scan(gpuscan.exclusive_scan(a), a, "exclusive", "module-level")
    check_scan(gpuscan.inclusive_scan(a, "add", "multipass"), a, "inclusive", "module-level")
    assert gpuscan.default_context() is gpuscan.default_context()
    assert gpuscan.default_context().validation == (os.environ.get("GPUSCAN_VALIDATE", "") not in ("", "0"))


def test_readme_example(ctx):
    a = np.array([3, 1, 7, 0, 4, 1, 6, 3], dtype=np.uint32)
    assert ctx.exclusive_scan(a).tolist() == [0, 3, 4, 11, 11, 15, 16, 22]
    assert ctx.inclusive_scan(a).tolist() == [3, 4, 11, 11, 15, 16, 22, 25]


def test_wrapping(ctx):
    u = np.array([0xFFFFFFFF, 2, 0xFFFFFFFF], dtype=np.uint32)
    assert ctx.inclusive_scan(u).tolist() == [0xFFFFFFFF, 1, 0]
    i = np.array([2**31 - 1, 1, -1], dtype=np.int32)
    assert ctx.inclusive_scan(i).tolist() == [2**31 - 1, -(2**31), 2**31 - 1]


# --- input layouts ---------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_non_contiguous_input(ctx, dtype):
    base = random_array(dtype, 20_001, rng_for("strided", dtype))
    packed = np.zeros(base.size, dtype=[("pad", np.uint8), ("x", dtype)])  # fields unaligned, stride 5
    packed["x"] = base
    for view in (base[::3], base[::-1], base[5:17_000:7], np.asfortranarray(base.reshape(-1, 3))[:, 2],
                 packed["x"]):
        assert view.ndim == 1 and view.dtype == dtype
        check_scan(ctx.inclusive_scan(view), np.ascontiguousarray(view), "inclusive", "view")
        check_scan(ctx.exclusive_scan(view), np.ascontiguousarray(view), "exclusive", "view")


def test_byte_swapped_and_read_only_input(ctx):
    a = random_array(np.int32, 5000, rng_for("swapped"))
    swapped = a.astype(a.dtype.newbyteorder())
    got = ctx.inclusive_scan(swapped)
    assert got.dtype == np.int32 and got.dtype.isnative
    check_scan(got, a, "inclusive", "byte-swapped")
    ro = a.copy()
    ro.flags.writeable = False
    check_scan(ctx.exclusive_scan(ro), a, "exclusive", "read-only")


def test_result_is_a_new_writeable_array(ctx):
    a = np.arange(100, dtype=np.float32)
    out = ctx.inclusive_scan(a)
    assert out.flags.c_contiguous and out.flags.writeable and out.flags.owndata is False
    assert not np.shares_memory(a, out)
    out[0] = 42  # ours to modify
    del out  # the capsule frees the C++ vector
    empty = ctx.exclusive_scan(np.empty(0, np.uint32))
    assert empty.shape == (0,) and empty.dtype == np.uint32


def test_array_likes_of_supported_dtype(ctx):
    class ArrayLike:
        def __array__(self, dtype=None):
            return np.array([1, 2, 3], dtype=np.uint32)

    assert ctx.inclusive_scan(ArrayLike()).tolist() == [1, 3, 6]
    assert ctx.inclusive_scan(memoryview(np.array([1, 2, 3], dtype=np.int32))).tolist() == [1, 3, 6]


# --- errors ----------------------------------------------------------------------------------------

# bool and 8- and 16-bit integers are converted as numpy converts them (test_numpy_rules.py).
@pytest.mark.parametrize("dtype", [np.float16, np.complex64, np.longdouble, object, "U3", "M8[s]"])
def test_unsupported_dtype_raises_type_error(ctx, dtype):
    a = np.zeros(4, dtype=dtype)
    for f in (ctx.exclusive_scan, ctx.inclusive_scan, gpuscan.exclusive_scan, ctx.reduce, gpuscan.reduce):
        with pytest.raises(TypeError, match=r"uint32, int32, float32, uint64, int64 and float64"):
            f(a)


def test_structured_dtype_of_four_bytes_raises_type_error(ctx):
    with pytest.raises(TypeError, match=r"uint32, int32, float32, uint64, int64 and float64"):
        ctx.inclusive_scan(np.zeros(4, dtype=[("x", np.uint16), ("y", np.uint16)]))


@pytest.mark.parametrize("shape", [(2, 3), (4, 1), (1, 4), (0, 0), (2, 2, 2), ()])
def test_not_1d_raises_value_error(ctx, shape):
    a = np.zeros(shape, dtype=np.uint32)
    with pytest.raises(ValueError, match=r"1-D"):
        ctx.exclusive_scan(a)
    with pytest.raises(ValueError, match=r"1-D"):
        gpuscan.inclusive_scan(a)


@pytest.mark.parametrize("op", ["nand", "sum", "ADD", ""])
def test_unknown_ops_raise_value_error(ctx, op):
    with pytest.raises(ValueError, match=r"unknown op .*expected one of 'add', 'min', 'max', 'mul', 'and'"):
        ctx.inclusive_scan(np.ones(3, np.uint32), op=op)
    with pytest.raises(ValueError, match=r"unknown op"):
        gpuscan.exclusive_scan(np.ones(3, np.uint32), op)
    with pytest.raises(ValueError, match=r"unknown op"):
        gpuscan.reduce(np.ones(3, np.uint32), op)


@pytest.mark.parametrize("op", ["and", "or", "xor"])
def test_bitwise_ops_on_floats_raise_value_error(ctx, op):
    for dtype in (np.float32, np.float64):
        with pytest.raises(ValueError, match=r"integer dtypes only"):
            ctx.exclusive_scan(np.ones(3, dtype), op=op)
        with pytest.raises(ValueError, match=r"integer dtypes only"):
            ctx.reduce(np.ones(3, dtype), op=op)


def test_unknown_algorithm_raises_value_error(ctx):
    with pytest.raises(ValueError, match=r"unknown algorithm 'fastest': expected one of 'auto', 'single-pass'"):
        ctx.exclusive_scan(np.ones(3, np.uint32), algorithm="fastest")
    with pytest.raises(ValueError, match=r"unknown algorithm"):
        gpuscan.inclusive_scan(np.ones(3, np.float32), algorithm="subgroup")
    with pytest.raises(TypeError):
        ctx.exclusive_scan(np.ones(3, np.uint32), algorithm=1)


def test_algorithm_names_accept_underscores(ctx):
    a = np.arange(10, dtype=np.uint32)
    assert ctx.inclusive_scan(a, algorithm="reduce_then_scan").tolist() == np.cumsum(a).tolist()
    assert ctx.resolve_algorithm(10_000, "single_pass") == "single-pass"


def test_gpuscan_error_from_the_library():
    assert issubclass(gpuscan.Error, RuntimeError)
    with pytest.raises(gpuscan.Error) as info:
        gpuscan.Context(device="no device is called this")
    e = info.value
    assert e.code == "no_device"
    assert e.vk_result is None
    assert "no device name contains" in str(e) and e.message == str(e)
    with pytest.raises(gpuscan.Error, match=r"out of range") as info:
        gpuscan.Context(device=len(gpuscan.devices()))
    assert info.value.code == "no_device"
    with pytest.raises(ValueError):
        gpuscan.Context(device=-1)
    with pytest.raises(TypeError):
        gpuscan.Context(device=1.5)


def test_unsupported_algorithm_raises_gpuscan_error(ctx):
    if ctx.device["single_pass_capable"]:
        pytest.skip("the device runs every algorithm")
    with pytest.raises(gpuscan.Error) as info:
        ctx.exclusive_scan(np.ones(10_000, np.uint32), algorithm="single-pass")
    assert info.value.code == "unsupported"


def test_closed_context(ctx):
    with gpuscan.Context(validation=True) as c:
        assert not c.closed
        assert c.inclusive_scan(np.ones(3, np.int32)).tolist() == [1, 2, 3]
    assert c.closed and "closed" in repr(c)
    with pytest.raises(ValueError, match=r"closed"):
        c.exclusive_scan(np.ones(3, np.int32))
    with pytest.raises(ValueError, match=r"closed"):
        c.device
    c.close()  # idempotent
    assert c.take_validation_messages() == []


# --- devices, version, contexts ----------------------------------------------------------------------

def test_devices():
    devices = gpuscan.devices()
    assert isinstance(devices, list) and devices
    for i, d in enumerate(devices):
        assert d["index"] == i
        assert isinstance(d["name"], str) and d["name"]
        assert d["type"] in ("discrete GPU", "integrated GPU", "virtual GPU", "CPU", "other")
        assert re.fullmatch(r"\d+\.\d+\.\d+", d["api_version"])
        assert isinstance(d["subgroup_size"], int) and d["subgroup_size"] >= 1
        for key in ("single_pass_capable", "subgroup_arithmetic", "subgroup_ballot", "push_descriptors",
                    "shader_int64", "shader_float64", "subgroup_extended_types", "buffer_device_address",
                    "subgroup_uniform_control_flow", "maximal_reconvergence"):
            assert isinstance(d[key], bool), key
        assert len(d["max_workgroup_count"]) == 3
        assert d["max_workgroup_invocations"] >= 1 and d["max_storage_buffer_range"] >= 1
        assert isinstance(d["shader_cores"], int) and d["shader_cores"] >= 0
        assert isinstance(d["largest_memory_heap_bytes"], int) and d["largest_memory_heap_bytes"] > 0


def test_context_device_and_repr(ctx):
    d = ctx.device
    assert d == gpuscan.devices()[d["index"]]
    assert ctx.validation is True
    assert repr(ctx) == f"<gpuscan.Context device={d['name']!r} validation=True>"
    by_index = gpuscan.Context(device=d["index"])
    assert by_index.device["name"] == d["name"] and by_index.validation is False
    assert by_index.take_validation_messages() == []
    by_index.close()
    by_name = gpuscan.Context(device=d["name"][:4].upper())  # a case-insensitive substring
    assert by_name.device["name"] == d["name"]
    by_name.close()


def test_resolve_algorithm(ctx):
    for algorithm in ALGORITHMS:
        if algorithm in ("single-pass", "look-ahead") and not ctx.device["single_pass_capable"]:
            continue
        resolved = ctx.resolve_algorithm(1_000_003, algorithm)
        assert resolved in ("single-pass", "reduce-then-scan", "multipass", "look-ahead")
        assert (resolved == "look-ahead") == (algorithm == "look-ahead")  # auto: only deterministic f32 past 2^21 (H100)
        if algorithm != "auto":
            assert resolved == ("multipass" if algorithm == "blelloch" else algorithm)


def test_version():
    assert re.fullmatch(r"\d+\.\d+\.\d+", gpuscan.version)
    assert gpuscan.__version__ == gpuscan.version
    assert gpuscan.algorithms == tuple(ALGORITHMS)


# --- threads -----------------------------------------------------------------------------------------

def test_threads_share_a_context(ctx):
    errors = []

    def worker(t):
        try:
            rng = rng_for("threads", t)
            for i in range(6):
                dtype = DTYPES[(t + i) % 3]
                kind = KINDS[i % 2]
                a = random_array(dtype, int(rng.integers(1, 200_000)), rng)
                check_scan(run_scan(ctx, kind, a, algorithm=ALGORITHMS[i % 5]), a, kind, f"thread {t}")
        except BaseException as e:  # noqa: B902 - reported below
            errors.append(e)

    threads = [threading.Thread(target=worker, args=(t,)) for t in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


def test_default_context_is_created_once_across_threads():
    gpuscan.default_context().close()  # the next module-level call creates a new one
    barrier = threading.Barrier(6)
    contexts, errors = [], []

    def worker():
        try:
            barrier.wait()
            assert gpuscan.inclusive_scan(np.ones(1000, np.uint32))[-1] == 1000
            contexts.append(gpuscan.default_context())
        except BaseException as e:  # noqa: B902
            errors.append(e)

    threads = [threading.Thread(target=worker) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert len({id(c) for c in contexts}) == 1 and not contexts[0].closed


def test_gil_is_released_during_gpu_work(ctx):
    """A Python thread keeps running while a long scan runs: the longest pause it sees stays well below
    the scan's duration (holding the GIL would stall it for the whole scan)."""
    a = np.ones(4 << 20, dtype=np.uint32)
    ctx.exclusive_scan(a[:4096], algorithm="multipass")  # pipelines built before timing
    stop = threading.Event()
    gaps = []

    def ticker():
        last = time.perf_counter()
        while not stop.is_set():
            now = time.perf_counter()
            gaps.append(now - last)
            last = now
            time.sleep(0.001)

    thread = threading.Thread(target=ticker)
    thread.start()
    time.sleep(0.05)
    gaps.clear()
    start = time.perf_counter()
    out = ctx.inclusive_scan(a, algorithm="multipass")
    duration = time.perf_counter() - start
    stop.set()
    thread.join()
    assert out[-1] == a.size
    if duration < 0.1:
        pytest.skip(f"the scan took only {duration * 1000:.0f} ms: too short to tell")
    assert max(gaps) < 0.5 * duration, f"longest pause {max(gaps):.3f} s during a {duration:.3f} s scan"
