#!/usr/bin/python3
"""A seeded differential fuzzer: gpuscan's Python module and its `gpuscan` command-line tool against numpy.

    python3 tests/fuzz/numpy_differential.py --cli build/tools/gpuscan/gpuscan [--seed S] [--cases N] [--long]
        [--only NAME[,NAME...]] [--replay S:I] [--shard K/N] [--cli-rate R] [--trace] [--verbose] [--keep-files]

Run with PYTHONPATH naming the built module (build/python) and GPUSCAN_VALIDATE=1, as CTest's `fuzz_numpy`
does. The run's seed is printed first (GPUSCAN_SEED or --seed fixes it, else it is fresh). Case I of seed S
draws everything from its own generator, numpy.random.default_rng([S, I]), so `--replay S:I` runs that case
alone. Each failure prints its kind (value, dtype, shape, type, refusal, validation, mutated-input, exit,
or fuzzer-error for an exception in the fuzzer itself), the
target, the exact call and the first mismatching positions; the run ends with `N passed, N failed,
N skipped` and exits 1 on any failure. A crash of the module ends the process: `--trace` prints each case's
replay token before it runs, so the last one printed is the culprit; --keep-files keeps a replayed CLI
case's input and output files; --verbose adds skipped cases and the time spent per target.

Every case draws a target (below), the arguments, the dtype (every numeric dtype, byte-swapped and
strided views, Python lists, and dtypes the target must refuse with numpy's exception type), a size
concentrated around tile and recursion boundaries, and a data pattern (uniform, few distinct values,
long runs, sorted, reversed, the type's extremes, small integers scaled by a power of two so that every
float order of summation is exact, and for floats NaN, +-inf, -0.0, denormals, huge and tiny values).

Targets compared with numpy, Python (module functions, and the same methods called on the default
Context, which validates under GPUSCAN_VALIDATE=1):
  inclusive_scan, exclusive_scan, reduce, cumsum, cumprod, segmented_scan, segmented_reduce, custom_scan,
  compact, partition, unique, unique_by_key, run_length_encode, non_trivial_runs, sort, argsort,
  sort_pairs, histogram.
Targets compared with numpy, CLI (each run with --validate, and --verify where the command has it; scan,
reduce, compact, unique and sort on OpenGL too, with --api gl, a fifth of the time):
  scan (plain, --segments, --keys, --op-file), reduce (plain, --offsets), compact (--pred, --flags,
  --partition), unique, rle (plain, --non-trivial), sort (--values, --indices-out, --bits, --descending),
  histogram (--bins/--lower/--upper, --edges, --closed).
Not compared, with the reason:
  devices(), Context.device: a description of the hardware, nothing numpy computes.
  default_context(), Context(), Context.close/closed/validation/take_validation_messages: the machinery
    every case runs through (every case checks take_validation_messages() is empty).
  Context.resolve_algorithm: names the plan a scan would take; no numpy analogue (every algorithm it can
    name is fuzzed through the scans' algorithm= argument).
  version, __version__, algorithms, Error: constants and the exception type (Error is what a refusal
    must not be).
  CLI `info` and `demo`: they describe the device and time built-in random data; nothing to compare.

Where gpuscan legitimately differs from numpy the comparison says why next to it: float sums and
products combined in another order are compared within the operation's error bound (or exactly, on data
that makes every order exact); the sign of a zero chosen by min/max, and NaN payloads after arithmetic,
are not compared; a result's byte order is not compared (its dtype otherwise is, as a failure of its own
kind).
"""

import argparse
import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
import warnings

import numpy as np

LONG_CASES = 100_000
DEFAULT_CASES = 3_000  # CTest's fuzz_numpy: about two minutes on 2 cores with lavapipe
# A CLI case costs about 0.2 s (0.14 s of it process start-up with the validation layer, measured on
# lavapipe with a warm pipeline cache), a Python case about 0.03 s: at 15 % the CLI takes about half the run.
DEFAULT_CLI_RATE = 0.15

try:
    import gpuscan
except ImportError as e:  # the module lives in the build tree
    sys.exit(f"cannot import gpuscan ({e}): set PYTHONPATH to the build's python/ directory")

# --- dtypes -----------------------------------------------------------------------------------------------

NARROW_INTS = [np.dtype(t) for t in ("int8", "int16", "uint8", "uint16")]
WIDE_INTS = [np.dtype(t) for t in ("int32", "uint32", "int64", "uint64")]
INTS = NARROW_INTS + WIDE_INTS
FLOATS = [np.dtype("float32"), np.dtype("float64")]
BOOL = np.dtype("bool")
NUMERIC = [BOOL] + INTS + FLOATS
SCAN_NATIVE = [np.dtype(t) for t in ("uint32", "int32", "float32", "uint64", "int64", "float64")]
# Dtypes no gpuscan function takes (numpy takes some of them): every function must refuse them with TypeError.
REFUSED = ["float16", "complex64", "complex128", "longdouble", "U3", "datetime64[s]", "object"]

OPS = ["add", "min", "max", "mul", "and", "or", "xor"]
UFUNCS = {"add": np.add, "min": np.minimum, "max": np.maximum, "mul": np.multiply,
          "and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}
SCAN_ALGORITHMS = ["auto", "single-pass", "reduce-then-scan", "multipass", "blelloch", "look-ahead",
                   "reduce_then_scan", "single_pass"]
CLI_TYPES = {"u32": "uint32", "i32": "int32", "f32": "float32", "u64": "uint64", "i64": "int64", "f64": "float64"}


def is_float(dt):
    return np.dtype(dt).kind == "f"


def is_int(dt):
    return np.dtype(dt).kind in "iu"


def uint_of(dt):
    """The unsigned integer dtype of dt's width: a float's bits, for bit predicates and sort keys."""
    return np.dtype(f"u{np.dtype(dt).itemsize}")


def scan_result_dtype(dt, op):
    """The dtype the scans, reductions and segmented functions return (python/README.md, dtype rules)."""
    dt = np.dtype(dt)
    if dt in SCAN_NATIVE or op not in ("add", "mul"):
        return dt
    return np.dtype("uint64") if dt.kind == "u" else np.dtype("int64")


def identity(op, dt):
    dt = np.dtype(dt)
    if op in ("add", "or", "xor"):
        return np.zeros((), dt)[()]
    if op == "mul":
        return np.ones((), dt)[()]
    if dt == BOOL:
        return np.bool_(op in ("min", "and"))
    if op == "and":
        return np.array(-1).astype(dt)[()]
    if is_float(dt):
        return dt.type(np.inf if op == "min" else -np.inf)
    info = np.iinfo(dt)
    return dt.type(info.max if op == "min" else info.min)


# --- sizes and data ---------------------------------------------------------------------------------------

BOUNDARIES = [255, 256, 257, 511, 512, 513, 1023, 1024, 1025, 2047, 2048, 2049, 4095, 4096, 4097,
              8191, 8192, 8193]


def draw_size(rng, cap=None):
    """Mostly small and at tile boundaries, now and then a recursion level deeper; about 2,000 on average."""
    r = rng.random()
    if r < 0.15:
        n = int(rng.integers(0, 4))
    elif r < 0.42:
        n = int(rng.integers(4, 200))
    elif r < 0.80:
        n = int(rng.choice(BOUNDARIES))
    elif r < 0.975:
        n = int(rng.integers(200, 20_000))
    elif r < 0.997:
        n = int(rng.integers(65535, 65538))
    else:
        n = int(rng.integers(295_000, 305_000))
    return n if cap is None else min(n, cap)


PATTERNS = ["uniform", "few", "runs", "sorted", "reversed", "extremes", "small"]
FLOAT_PATTERNS = PATTERNS + ["specials", "specials", "denormals"]


def float_specials(dt):
    f = np.finfo(dt)
    bits = uint_of(dt)
    quiet = np.array(np.nan, dt).view(bits)
    payload_nan = (quiet | bits.type(5)).view(dt)          # a NaN with a payload
    negative_nan = (quiet | (bits.type(1) << bits.type(8 * dt.itemsize - 1))).view(dt)
    return np.array([np.nan, payload_nan, negative_nan, np.inf, -np.inf, 0.0, -0.0, f.max, -f.max, f.tiny,
                     -f.tiny, f.smallest_subnormal, -f.smallest_subnormal, f.eps, 1.0, -1.0], dt)


def uniform(rng, dt, n):
    if dt == BOOL:
        return rng.random(n) < rng.random()
    if is_int(dt):
        info = np.iinfo(dt)
        return rng.integers(info.min, info.max, n, dtype=dt, endpoint=True)
    span = int(rng.choice([10, 60]))
    return (rng.choice([-1.0, 1.0], n) * np.ldexp(rng.uniform(1.0, 2.0, n), rng.integers(-span, span + 1, n))).astype(dt)


def small_exact(rng, dt, n):
    """Small integers (times a power of two for floats) whose every partial sum, in any order, is exact."""
    if dt == BOOL:
        return rng.random(n) < 0.5
    if is_int(dt):
        info = np.iinfo(dt)
        hi = min(int(info.max), 100)
        return rng.integers(max(int(info.min), -100), hi, n, endpoint=True).astype(dt)
    mantissa_bits = np.finfo(dt).nmant + 1
    k = max(1, min(1000, (1 << mantissa_bits) // max(n, 1) - 1))
    return np.ldexp(rng.integers(-k, k + 1, n).astype(np.float64), int(rng.integers(-8, 9))).astype(dt)


def make_values(rng, dt, n, pattern):
    """A native, contiguous array of n values of dt following `pattern`."""
    dt = np.dtype(dt)
    if pattern == "small":
        return small_exact(rng, dt, n)
    if pattern == "few":
        pool = uniform(rng, dt, int(rng.integers(1, 6)))
        return rng.choice(pool, n) if n else pool[:0]
    if pattern == "runs":
        lengths = rng.geometric(1.0 / float(rng.choice([2, 8, 64, 1000])), n)
        values = uniform(rng, dt, n)
        return np.repeat(values, lengths)[:n] if n else values
    if pattern in ("sorted", "reversed"):
        v = np.sort(uniform(rng, dt, n), kind="stable")
        return v if pattern == "sorted" else v[::-1].copy()
    if pattern == "extremes":
        if dt == BOOL:
            pool = np.array([False, True])
        elif is_int(dt):
            info = np.iinfo(dt)
            pool = np.array(sorted({int(info.min), int(info.min) + 1, int(info.max), int(info.max) - 1, 0, 1,
                                    int(info.max) // 2, max(int(info.min), -1)}), dtype=object).astype(dt)
        else:
            pool = float_specials(dt)[3:]  # no NaN: the extremes of the finite and infinite values
        return rng.choice(pool, n) if n else pool[:0]
    if pattern in ("specials", "denormals"):
        v = uniform(rng, dt, n)
        if is_float(dt) and n:
            if pattern == "denormals":
                f = np.finfo(dt)
                pool = (rng.integers(-50, 51, 64) * f.smallest_subnormal).astype(dt)
                v = rng.choice(pool, n)
            else:
                hit = rng.random(n) < rng.choice([0.01, 0.1, 0.5])
                v[hit] = rng.choice(float_specials(dt), int(hit.sum()))
        return v
    return uniform(rng, dt, n)


def power_walk(rng, dt, n, exact, specials):
    """Float factors for products: +-2^e with the running exponent kept within +-60, so that the product
    of any run of consecutive factors -- whatever order a scan combines them in -- neither overflows nor
    underflows; integer e makes every product exact, fractional e leaves rounding only."""
    steps = rng.integers(-1, 2, n).astype(np.float64) if exact else rng.uniform(-1.0, 1.0, n)
    walk = np.empty(n)
    level = 0.0
    for i in range(n):  # keep the running exponent inside the band
        s = steps[i]
        if abs(level + s) > 60:
            s = -s
        level += s
        walk[i] = s
    v = (rng.choice([-1.0, 1.0], n) * np.exp2(walk)).astype(dt)
    if specials and n:
        hit = rng.random(n) < 0.02
        v[hit] = rng.choice(np.array([np.nan, np.inf, -np.inf, 0.0, -0.0], dt), int(hit.sum()))
    return v


LAYOUTS = ["contiguous"] * 14 + ["byteswapped", "byteswapped", "strided", "strided", "reversed", "list"]


def lay_out(rng, values, layout):
    """The argument passed: `values` as a byte-swapped array, a strided or negatively strided view, or a
    Python list; the values themselves are the same."""
    if layout == "byteswapped":
        return values.astype(values.dtype.newbyteorder(">" if sys.byteorder == "little" else "<"))
    if layout == "strided":
        step = int(rng.integers(2, 4))
        big = np.empty(values.size * step, values.dtype)
        big[::step] = values
        return big[::step]
    if layout == "reversed":
        return values[::-1].copy()[::-1]
    if layout == "list":
        # numpy reads a list holding integers past int64's range as float64: keep uint64 lists within it
        return (values >> np.uint64(1) if values.dtype == np.uint64 else values).tolist()
    return values


def describe(x):
    """An argument, as a failure report shows it."""
    if isinstance(x, np.ndarray):
        layout = "" if x.flags.c_contiguous else ", non-contiguous"
        return f"ndarray(shape={x.shape}, dtype='{x.dtype.str}'{layout})"
    if isinstance(x, list):
        return f"list(len={len(x)})"
    return repr(x)


# --- cases, failures, comparisons -------------------------------------------------------------------------

class Skip(Exception):
    """The case cannot run here (a device without the feature); counted as skipped."""


class Case:
    def __init__(self, seed, index, target):
        self.token = f"{seed}:{index}"
        self.target = target
        self.call = ""
        self.data = ""
        self.failures = []  # (kind, text)
        self.unsupported_ok = False  # an explicitly chosen algorithm the device may not offer
        self.inputs = []  # (argument, its bytes before the call): gpuscan must not write its inputs

    def fail(self, kind, text):
        self.failures.append((kind, text))


def native(a):
    return np.asarray(a).astype(np.asarray(a).dtype.newbyteorder("="), copy=False)


def first_mismatches(bad, got, want, tol=None, limit=5):
    parts = []
    for i in np.flatnonzero(bad)[:limit]:
        i = int(i)
        g, w = got.flat[i], want.flat[i]
        extra = f" (+-{tol.flat[i]:.3g})" if tol is not None and np.ndim(tol) else ""
        pos = np.unravel_index(i, got.shape) if got.ndim > 1 else i
        parts.append(f"[{pos}] got {g!r} expected {w!r}{extra}")
    return f"{int(np.count_nonzero(bad))} of {bad.size} differ: " + "; ".join(parts)


def check_dtype(case, what, got, want_dtype):
    """A dtype other than numpy's is a failure of its own kind; byte order is not compared (numpy keeps
    a byte-swapped input's order in a[mask] or np.sort, and a copy into native order is as good)."""
    g, w = np.dtype(got).newbyteorder("="), np.dtype(want_dtype).newbyteorder("=")
    if g != w:
        case.fail("dtype", f"{what}: dtype {g}, numpy's is {w}")


def comparable(got, want):
    """got and want in one dtype where every value of both is exact, for ==."""
    if got.dtype == want.dtype:
        return got, want
    if got.dtype.kind in "biu" and want.dtype.kind in "biu":
        return got.astype(object), want.astype(object)
    wide = np.longdouble
    return got.astype(wide), want.astype(wide)


def check_array(case, what, got, want, mode="exact", tol=None, loose=None, dtype=None):
    """Compares an array result with numpy's `want`: its type, shape, dtype, then values.
    mode 'bits': the same bytes (copies, sorts: NaN payloads and signs of zero kept); 'exact': equal
    values, NaN matching NaN, the sign of zero not compared; 'tol': |got - want| <= tol (want in a wider
    float), NaN matching NaN and infinities exactly, any value where `loose` is set. `dtype`: numpy's
    result dtype where `want` is held wider."""
    if not isinstance(got, np.ndarray):
        case.fail("type", f"{what}: returned {type(got).__name__}, numpy returns ndarray")
        got = np.asarray(got)
    if got.shape != want.shape:
        case.fail("shape", f"{what}: shape {got.shape}, numpy's is {want.shape}")
        return
    check_dtype(case, what, got.dtype, want.dtype if dtype is None else dtype)
    got = native(got)
    if mode == "bits" and got.dtype.itemsize == want.dtype.itemsize and got.dtype.kind == want.dtype.kind:
        u = uint_of(want.dtype) if want.dtype.kind in "fiu" else want.dtype
        bad = got.view(u) != native(want).view(u)
    elif mode == "tol" and is_float(want.dtype):
        g = got.astype(want.dtype)
        both_nan = np.isnan(g) & np.isnan(want)
        finite = np.isfinite(want)
        with np.errstate(invalid="ignore", over="ignore"):
            close = np.abs(g - want) <= tol
            if dtype is not None and is_float(dtype):
                close |= g == want.astype(dtype)  # the wide reference rounded into the result: inf past its range
        bad = ~(both_nan | np.where(finite, close, g == want))
        # An infinite tolerance (expect_reduce: magnitudes past the type's range) is a loose position too:
        # in another order partial sums overflow to +inf and -inf, and their sum is NaN.
        bad &= ~np.isinf(np.broadcast_to(np.asarray(tol, np.longdouble), bad.shape))
        if loose is not None:
            bad &= ~loose
    else:
        g, w = comparable(got, native(want))
        if w.dtype.kind == "f":
            bad = ~((g == w) | (np.isnan(g) & np.isnan(w)))
        else:
            bad = g != w
    bad = np.asarray(bad)
    if bad.any():
        case.fail("value", f"{what}: " + first_mismatches(bad, got, native(want), tol if mode == "tol" else None))


def check_scalar(case, what, got, want, dtype, tol=None):
    """A reduction's result: a numpy scalar of numpy's dtype, equal to `want` (within tol where given)."""
    if not isinstance(got, np.generic):
        case.fail("type", f"{what}: returned {type(got).__name__}, numpy returns a numpy scalar")
    g, w = np.asarray(got).reshape(1), np.asarray(want).reshape(1)
    if tol is None:
        check_array(case, what, g, w, dtype=dtype)
    else:
        check_array(case, what, g, w, "tol", np.full(1, tol, np.longdouble), dtype=dtype)


def pair_check(case, names, modes=("exact", "exact")):
    """The compare function for a result that is a tuple of arrays, (values, counts) and the like."""
    def compare(got, want):
        if not (isinstance(got, tuple) and len(got) == len(names)):
            return case.fail("type", f"returned {type(got).__name__}, expected ({', '.join(names)})")
        for name, mode, g, w in zip(names, modes, got, want):
            check_array(case, name, g, w, mode)
    return compare


def category(exc):
    """The class a gpuscan refusal must share with numpy's: the most specific of numpy's that matters."""
    for cls in (np.AxisError, TypeError, ValueError, IndexError, OverflowError):
        if isinstance(exc, cls):
            return cls
    return type(exc)


def describe_exc(e):
    text = str(e).splitlines()[0] if str(e) else ""
    return f"{type(e).__module__}.{type(e).__name__}: {text[:200]}"


def outcome(fn):
    """(result, None) or (None, the exception)."""
    try:
        return fn(), None
    except Exception as e:  # noqa: BLE001 -- any exception is an outcome to compare
        return None, e


def expect(case, gp, ref, compare, refuse=None, may_refuse=()):
    """Runs gpuscan (`gp`) and numpy (`ref`) and compares outcomes. `refuse`: an exception class gpuscan
    must raise whatever numpy does (an argument gpuscan does not take). `may_refuse`: classes gpuscan may
    raise instead of numpy's result (arguments it documents as outside its domain). Otherwise gpuscan
    must fail exactly where numpy fails, with an exception of numpy's category, and agree elsewhere."""
    got, got_exc = outcome(gp)
    if refuse is not None:
        names = " or ".join(c.__name__ for c in (refuse if isinstance(refuse, tuple) else (refuse,)))
        if got_exc is None:
            case.fail("refusal", f"returned a result; expected {names}")
        elif not isinstance(got_exc, refuse) or isinstance(got_exc, gpuscan.Error):
            case.fail("refusal", f"raised {describe_exc(got_exc)}; expected {names}")
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with np.errstate(all="ignore"):
            want, want_exc = outcome(ref)
    if want_exc is not None:
        cls = category(want_exc)
        if got_exc is None:
            case.fail("refusal", f"returned a result; numpy raises {describe_exc(want_exc)}")
        elif not isinstance(got_exc, cls) or isinstance(got_exc, gpuscan.Error):
            case.fail("refusal", f"raised {describe_exc(got_exc)}; numpy raises {describe_exc(want_exc)}")
        return
    if got_exc is not None:
        if isinstance(got_exc, may_refuse) and not isinstance(got_exc, gpuscan.Error):
            return
        if isinstance(got_exc, gpuscan.Error) and got_exc.code == "unsupported" and case.unsupported_ok:
            raise Skip(describe_exc(got_exc))
        case.fail("refusal", f"raised {describe_exc(got_exc)}; numpy returns a result")
        return
    compare(got, want)


# --- numpy references -------------------------------------------------------------------------------------

def wide_float(dt):
    """A float type wider than dt, for reference sums: float64 for float32, long double for float64."""
    return np.float64 if np.dtype(dt) == np.float32 else np.longdouble


def sum_bound(n, dt, magnitude):
    """The error bound of a float sum combined in any tree order of depth up to ~2 log2(n) (the bound
    gpuscan's own tests use): depth * eps * (the sum of the magnitudes combined)."""
    depth = 8 + 2 * max(0, int(n).bit_length() - 1)
    return depth * np.finfo(dt).eps * magnitude


def scan_doubling(cols, combine, starts):
    """Inclusive segmented scan by recursive doubling (Hillis-Steele), vectorized: cols is a list of
    arrays (one element = one row across them), combine(earlier, later) a vectorized associative operator,
    starts[i] true where a segment starts. Exact for every associative integer, bitwise and min/max
    operator; for floats it adds in a tree order, as gpuscan does (compared within sum_bound)."""
    cols = [c.copy() for c in cols]
    f = starts.copy()
    n = f.size
    d = 1
    while d < n:
        take = np.flatnonzero(~f[d:]) + d
        if take.size:
            merged = combine([c[take - d] for c in cols], [c[take] for c in cols])
            for c, m in zip(cols, merged):
                c[take] = m
        nf = f.copy()
        nf[d:] |= f[:-d]
        f = nf
        d *= 2
    return cols


def exclusive_from(inclusive, starts, ident):
    """The exclusive scan from the inclusive one: each segment's first element the identity."""
    out = np.empty_like(inclusive)
    out[1:] = inclusive[:-1]
    out[starts] = ident
    return out


def expect_scan(x, op, inclusive, starts, exact):
    """numpy's scan of x (already in the result dtype) restarting where `starts` is set: (want, mode,
    tol, loose) for check_array. Integer ops wrap and bitwise/min/max ops are exact in any order; float
    sums are compared within sum_bound (exactly on data that makes every order exact), float products
    within a relative (k - 1) * eps of each k-element product (their data neither overflows nor
    underflows: power_walk)."""
    n = x.size
    ufunc = UFUNCS[op]
    dt = x.dtype
    if not is_float(dt) or op in ("min", "max"):
        if starts[1:].any():
            want = scan_doubling([x], lambda a, b: [ufunc(a[0], b[0])], starts)[0]
        else:
            want = ufunc.accumulate(x, dtype=dt) if n else x.copy()
        if not inclusive:
            want = exclusive_from(want, starts, identity(op, dt))
        return want, "exact", None, None
    wide = x.astype(wide_float(dt))
    want = scan_doubling([wide], lambda a, b: [ufunc(a[0], b[0])], starts)[0]
    if op == "add":
        magnitude = scan_doubling([np.abs(wide)], lambda a, b: [a[0] + b[0]], starts)[0]
        tol = np.zeros(n) if exact else sum_bound(n, dt, magnitude)
        # Where the magnitudes summed exceed the type's range, whether an intermediate sum overflows
        # depends on the order: any result is legitimate there.
        loose = magnitude > np.finfo(dt).max
    else:
        count = scan_doubling([np.ones(n)], lambda a, b: [a[0] + b[0]], starts)[0]
        tol = np.zeros(n) if exact else count * np.finfo(dt).eps * np.abs(want)
        loose = None
    if not inclusive:
        want = exclusive_from(want, starts, identity(op, dt))
        tol = exclusive_from(np.asarray(tol, np.longdouble), starts, 0)
        if loose is not None:
            loose = exclusive_from(loose, starts, False)
    return want, "tol", tol, loose


def expect_reduce(x, op, exact):
    """(want, tol or None) for ufunc.reduce of x (in the result dtype); the identity when empty."""
    dt = x.dtype
    if x.size == 0:
        return identity(op, dt), None
    if is_float(dt) and op in ("add", "mul"):
        wide = x.astype(wide_float(dt))
        want = UFUNCS[op].reduce(wide)
        if exact:
            return want, 0.0
        if op == "add":
            magnitude = np.abs(wide).sum()
            if magnitude > np.finfo(dt).max:
                return want, np.inf  # the order decides whether a partial sum overflows
            return want, sum_bound(x.size, dt, magnitude)
        return want, x.size * np.finfo(dt).eps * abs(want)
    return UFUNCS[op].reduce(x, dtype=dt), None


def run_starts(x):
    """Where a run of equal consecutive elements starts, comparing as numbers: -0.0 == 0.0, NaN != NaN."""
    m = np.ones(x.size, bool)
    if x.size > 1:
        m[1:] = x[1:] != x[:-1]
    return m


def ordered_rank(x):
    """A rank per key in numpy's sort order (-0.0 == 0.0, NaNs equal and last): equal keys, equal ranks."""
    order = np.argsort(x, kind="stable")
    s = x[order]
    new = np.ones(x.size, bool)
    if x.size > 1:
        same = s[1:] == s[:-1]
        if is_float(x.dtype):
            same |= np.isnan(s[1:]) & np.isnan(s[:-1])
        new[1:] = ~same
    rank = np.empty(x.size, np.int64)
    rank[order] = np.cumsum(new) - 1
    return rank


def sort_order(x, descending):
    """numpy's stable argsort; descending: the reverse key order with ties still in input order."""
    if not descending:
        return np.argsort(x, kind="stable")
    return np.argsort(-ordered_rank(x), kind="stable")


def ordered_key_bits(x):
    """The unsigned key gpuscan's radix sort orders by (docs/sort.md): signed integers with the sign bit
    flipped; floats with -0.0 made +0.0, negatives' bits all flipped, positives' sign bit flipped, every
    NaN all ones."""
    u = uint_of(x.dtype)
    top = u.type(1) << u.type(8 * u.itemsize - 1)
    if x.dtype.kind == "u":
        return x.astype(u)
    if x.dtype.kind == "i":
        return x.view(u) ^ top
    y = np.where(x == 0, np.zeros((), x.dtype), x)
    b = y.view(u)
    key = np.where(b & top, ~b, b | top)
    key[np.isnan(x)] = ~u.type(0)
    return key


# --- drawing arguments ------------------------------------------------------------------------------------

def refused_array(rng, name, n):
    """An array of a dtype gpuscan does not take."""
    base = np.arange(n)
    if name == "U3":
        return base.astype("U3")
    if name == "datetime64[s]":
        return base.astype("datetime64[s]")
    if name == "object":
        return base.astype(object)
    return rng.uniform(-4, 4, n).astype(name)


class Drawn:
    """An array argument: `arg` as passed, `values` its native contiguous numpy equivalent (what numpy
    computes on), `refused` whether its dtype is one gpuscan must refuse."""

    def __init__(self, arg, values, refused, pattern):
        self.arg, self.values, self.refused, self.pattern = arg, values, refused, pattern
        self.dtype = values.dtype


def draw_array(case, rng, dtypes, n=None, pattern=None, refuse_rate=0.04, layouts=LAYOUTS, label="a"):
    n = draw_size(rng) if n is None else n
    if rng.random() < refuse_rate:
        name = str(rng.choice(REFUSED))
        arr = refused_array(rng, name, n)
        case.data += f" {label}: refused dtype {name}, n={n};"
        return Drawn(arr, arr, True, "refused")
    dt = np.dtype(rng.choice(dtypes))
    if pattern is None:
        pattern = str(rng.choice(FLOAT_PATTERNS if is_float(dt) else PATTERNS))
    values = make_values(rng, dt, n, pattern) if isinstance(pattern, str) else pattern(dt, n)
    layout = str(rng.choice(layouts))
    arg = lay_out(rng, values, layout)
    if isinstance(arg, np.ndarray):
        case.inputs.append((arg, arg.tobytes()))
    name = pattern if isinstance(pattern, str) else pattern.__name__
    case.data += f" {label}: {dt.name} n={n} pattern={name} layout={layout};"
    return Drawn(arg, native(np.asarray(arg)), False, name)


def argument_problems(*checks):
    """The exception classes of the arguments' problems, from (condition, class) pairs: with several,
    gpuscan may report whichever it checks first."""
    return tuple(dict.fromkeys(cls for bad, cls in checks if bad))


BITWISE = ("and", "or", "xor")


def args_text(*args, **kwargs):
    parts = [describe(a) for a in args] + [f"{k}={describe(v)}" for k, v in kwargs.items()]
    return ", ".join(parts)


def float_mul_pattern(rng):
    """Data for float products: power_walk, exact or rounded, with or without specials."""
    exact = bool(rng.random() < 0.5)
    specials = bool(rng.random() < 0.3)

    def walk(dt, n):
        return power_walk(rng, dt, n, exact, specials)
    walk.__name__ = f"power_walk(exact={exact}, specials={specials})"
    return walk


def is_exact_data(drawn, op):
    """Whether every order of combining the data gives the same float result."""
    return drawn.pattern == "small" or drawn.pattern.startswith("power_walk(exact=True")


# --- Python targets ---------------------------------------------------------------------------------------

def py_scan(case, rng, fn, inclusive):
    op = str(rng.choice(OPS))
    dt_choice = np.dtype(rng.choice(NUMERIC))
    pattern = float_mul_pattern(rng) if is_float(dt_choice) and op == "mul" else None
    d = draw_array(case, rng, [dt_choice], pattern=pattern)
    algorithm = str(rng.choice(SCAN_ALGORITHMS))
    deterministic = bool(rng.random() < 0.8)
    case.unsupported_ok = algorithm not in ("auto",)
    case.call = f"{case.target}({args_text(d.arg, op=op, algorithm=algorithm, deterministic=deterministic)})"

    def gp():
        return fn(d.arg, op=op, algorithm=algorithm, deterministic=deterministic)
    # a dtype gpuscan does not take: TypeError; an op the dtype has not: an argument error, ValueError
    problems = argument_problems((d.refused, TypeError), (is_float(d.dtype) and op in BITWISE, ValueError))
    if problems:
        return expect(case, gp, None, None, refuse=problems)
    res = scan_result_dtype(d.dtype, op)
    x = d.values.astype(res)
    starts = np.zeros(x.size, bool)
    starts[:1] = True
    want, mode, tol, loose = expect_scan(x, op, inclusive, starts, is_exact_data(d, op))
    expect(case, gp, lambda: want,
           lambda got, w: check_array(case, "result", got, w, mode, tol, loose, dtype=res))


def py_reduce(case, rng, fn):
    op = str(rng.choice(OPS))
    dt_choice = np.dtype(rng.choice(NUMERIC))
    pattern = float_mul_pattern(rng) if is_float(dt_choice) and op == "mul" else None
    d = draw_array(case, rng, [dt_choice], pattern=pattern)
    case.call = f"{case.target}({args_text(d.arg, op=op)})"

    def gp():
        return fn(d.arg, op=op)
    problems = argument_problems((d.refused, TypeError), (is_float(d.dtype) and op in BITWISE, ValueError))
    if problems:
        return expect(case, gp, None, None, refuse=problems)
    res = scan_result_dtype(d.dtype, op)
    want, tol = expect_reduce(d.values.astype(res), op, is_exact_data(d, op))
    expect(case, gp, lambda: want, lambda got, w: check_scalar(case, "result", got, w, res, tol))


def draw_shape(rng):
    """1-D mostly; else 2-D or 3-D with a total size about draw_size's."""
    n = draw_size(rng)
    r = rng.random()
    if r < 0.6:
        return (n,)
    if r < 0.65:
        return ()
    dims = 2 if r < 0.9 else 3
    side = max(1, int(round(n ** (1.0 / dims))))
    return tuple(int(rng.integers(0, 2 * side + 2)) for _ in range(dims))


def py_cumulative(case, rng, fn, op):
    """cumsum (op 'add') or cumprod ('mul'): numpy's arguments axis=, dtype=, out=, N-D arrays, scalars."""
    shape = draw_shape(rng)
    size = int(np.prod(shape))
    ndim = len(shape)
    r = rng.random()
    if r < 0.4 or ndim == 0:
        axis = None if r < 0.95 else int(rng.integers(-2, 3))
    elif r < 0.95:
        axis = int(rng.integers(-ndim, ndim))
    else:
        axis = int(rng.choice([ndim, -ndim - 1, ndim + 2]))  # out of bounds: numpy's AxisError
    if rng.random() < 0.04:
        a = refused_array(rng, str(rng.choice(REFUSED)), size).reshape(shape)
        case.data += f" a: refused dtype {a.dtype}, shape={shape};"
        case.call = f"{case.target}({args_text(a, axis=axis)})"
        bad_axis = axis is not None and not -max(ndim, 1) <= axis < max(ndim, 1)
        return expect(case, lambda: fn(a, axis=axis), None, None,
                      refuse=argument_problems((True, TypeError), (bad_axis, np.AxisError)))
    dt = np.dtype(rng.choice(NUMERIC))
    dtype_arg = None if rng.random() < 0.6 else np.dtype(rng.choice(NUMERIC + [np.dtype("float16")]))
    out_dtype = np.dtype(rng.choice(NUMERIC)) if rng.random() < 0.3 else None
    comp_dt = loop_dtype(dt, dtype_arg, out_dtype)
    comp_float = is_float(comp_dt)
    # A float computation written into an integer out= truncates: rounding that crosses an integer would
    # change the result, so such cases take data every order sums (multiplies) exactly.
    exact = comp_float and out_dtype is not None and not is_float(out_dtype)
    moved = shape if axis is None or not -ndim <= axis < ndim else \
        tuple(np.delete(np.array(shape, int), axis)) + (shape[axis],)
    if comp_float and op == "mul" and not is_float(dt):
        # integers multiplied as floats: +-1 and at most 100 twos, so every product is exact in any order
        def walk(d, k):
            v = rng.choice(np.array([1, -1 if d.kind == "i" else 1]), k)
            v[rng.integers(0, max(k, 1), min(k, 100))] = 2
            return v.astype(d)
        pattern = "power_walk(exact=True, integers)"
    elif comp_float and op == "mul":
        walk = float_mul_pattern(rng) if not exact else (lambda d, k: power_walk(rng, d, k, True, False))
        pattern = walk.__name__ if not exact else "power_walk(exact=True)"
    if comp_float and op == "mul":
        # The walk runs along the scanned rows (the axis moved last), which is what bounds each product.
        values = walk(dt, size).reshape(moved)
        if axis is not None and -ndim <= axis < ndim:
            values = np.moveaxis(values, -1, axis)
    else:
        pattern = "small" if exact else str(rng.choice(FLOAT_PATTERNS if is_float(dt) else PATTERNS))
        values = make_values(rng, dt, size, pattern).reshape(shape)
    exact = exact or pattern == "small" or pattern.startswith("power_walk(exact=True")
    if is_float(values.dtype) and np.dtype(comp_dt).kind in "iu":
        # Floats into an integer loop: numpy casts NaN, infinities and values outside the integer's range
        # one way in astype and another in a ufunc's own loop (4294967344.0 to uint32: 0 and 48; C leaves
        # the conversion undefined), so such data has no one right answer. Those elements become 1.
        lim = np.iinfo(comp_dt)
        with np.errstate(invalid="ignore"):
            bad = ~np.isfinite(values) | (values < lim.min) | (values >= float(lim.max) + 1)
        values = np.where(bad, 1, values).astype(values.dtype)
        pattern += " (uncastable to the loop dtype: 1)"
    layout = str(rng.choice(["contiguous"] * 6 + ["byteswapped", "transposed", "list", "scalar"]))
    if layout == "scalar":
        values = values.reshape(-1)[:1]
        a = values[0] if values.size else 0
        axis = None
    elif layout == "transposed" and values.ndim > 1:
        a = np.asfortranarray(values)  # the same values, another memory order
    elif layout == "list":
        # numpy reads a list holding integers past int64's range as float64: keep uint64 lists within it
        a = (values >> np.uint64(1) if values.dtype == np.uint64 else values).tolist()
    elif layout == "byteswapped":
        a = lay_out(rng, values, "byteswapped")
    else:
        a = values
    values = native(np.asarray(a))
    comp_dt = loop_dtype(values.dtype, dtype_arg, out_dtype)  # a list of float32 reads as float64
    comp_float = is_float(comp_dt)
    case.data += f" a: {values.dtype.name} shape={values.shape} pattern={pattern} layout={layout};"
    out_gp = out_np = None
    wrong_out = False
    if out_dtype is not None:
        result_shape = (values.size,) if axis is None else np.atleast_1d(values).shape
        if rng.random() < 0.08:
            wrong_out = True
            result_shape = (values.size + 1,)  # the wrong shape: numpy's ValueError
        out_gp = np.zeros(result_shape, out_dtype)
        out_np = np.zeros(result_shape, out_dtype)
    case.call = f"{case.target}({args_text(a, axis=axis, dtype=dtype_arg, out=out_gp)})"
    np_fn = np.cumsum if op == "add" else np.cumprod

    def gp():
        if out_gp is not None:
            return fn(a, axis=axis, dtype=dtype_arg, out=out_gp)
        return fn(a, axis=axis, dtype=dtype_arg)

    def reference():
        return np_fn(values, axis=axis, dtype=dtype_arg, out=out_np)

    def compare(got, want):
        if out_gp is not None and got is not out_gp:
            case.fail("type", "out= given, but the result is not the out array itself")
        if not comp_float or exact:
            return check_array(case, "result", got, want)
        # Float sums (products) in another order than numpy's: against a wide reference, within the
        # bound in the narrowest float involved plus the rounding into the result's dtype.
        # A 0-d input scans as one element, as numpy's does (its result has shape (1,)).
        shaped = np.atleast_1d(values)
        x = (shaped.reshape(-1) if axis is None else np.moveaxis(shaped, axis, -1)).astype(comp_dt)
        flat = x.reshape(-1)
        starts = np.zeros(flat.size, bool)
        row = x.shape[-1] if x.ndim else 1
        if flat.size:
            starts[::row] = True
        ref, _, tol, loose = expect_scan(flat, op, True, starts, False)
        lowest = max([d for d in (comp_dt, want.dtype) if is_float(d)], key=lambda d: np.finfo(d).eps)
        tol = np.asarray(tol) * (np.finfo(lowest).eps / np.finfo(comp_dt).eps) + np.abs(ref) * np.finfo(lowest).eps

        def back(v):
            v = v.reshape(x.shape)
            return v if axis is None else np.moveaxis(v, -1, axis)  # x's axes: shaped's, that axis last
        if want.dtype.kind != "f":
            # A float loop cast into an integer (or bool) out=: judged in the loop dtype, before the cast.
            return check_cast_interval(case, got, back(ref), back(tol), None if loose is None else back(loose),
                                       want.dtype)
        check_array(case, "result", got, back(ref), "tol", back(tol),
                    None if loose is None else back(loose), dtype=want.dtype)
    if wrong_out and dtype_arg != np.float16:
        # numpy does not always check out's shape (a (1,) result into a (2,) out leaves out[1] as it was):
        # gpuscan refuses any out of another shape than the result's, with numpy's ValueError.
        bad_axis = axis is not None and not -max(values.ndim, 1) <= axis < max(values.ndim, 1)
        return expect(case, gp, None, None, refuse=argument_problems((True, ValueError), (bad_axis, np.AxisError)))
    if dtype_arg is not None and dtype_arg == np.float16:
        bad_axis = axis is not None and not -max(values.ndim, 1) <= axis < max(values.ndim, 1)
        return expect(case, gp, None, None, refuse=argument_problems((True, TypeError), (bad_axis, np.AxisError)))
    expect(case, gp, reference, compare)


def loop_dtype(dt, dtype_arg, out_dtype):
    """numpy's loop dtype for cumsum/cumprod: dtype= where given; else with out= np.result_type(a, out)
    (int16 into a uint64 out multiplies in float64); else a's own (the accumulate dtype for integers,
    not a float either way)."""
    if dtype_arg is not None:
        return np.dtype(dtype_arg)
    if out_dtype is not None:
        return np.result_type(dt, out_dtype)
    return np.dtype(dt)


def check_cast_interval(case, got, ref, tol, loose, out_dtype):
    """A float loop's result cast into an integer or bool out=: every value the loop may legitimately
    produce lies in [ref - tol, ref + tol], and the cast (truncation toward zero, != 0 for bool) is
    monotone, so got must lie between the casts of the interval's ends. Not compared where the interval
    holds a NaN or an infinity, leaves the out dtype's range (numpy's cast is undefined there) or is loose."""
    if not isinstance(got, np.ndarray) or got.shape != ref.shape:
        return check_array(case, "result", got, ref.astype(out_dtype))
    check_dtype(case, "result", got.dtype, out_dtype)
    ref, tol = np.asarray(ref, np.longdouble), np.asarray(tol, np.longdouble)
    with np.errstate(invalid="ignore", over="ignore"):
        lo, hi = np.trunc(ref - tol), np.trunc(ref + tol)
        g = native(got).astype(np.longdouble)
        if out_dtype == np.bool_:
            skip = ~np.isfinite(ref) | ((lo <= 0) & (hi >= 0))
            bad = g != (ref != 0)
        else:
            info = np.iinfo(out_dtype)
            skip = ~np.isfinite(lo) | ~np.isfinite(hi) | (lo < int(info.min)) | (hi > int(info.max))
            bad = (g < lo) | (g > hi)
        bad &= ~skip
        if loose is not None:
            bad &= ~loose
    if bad.any():
        case.fail("value", "result: " + first_mismatches(bad, native(got), ref.astype(np.longdouble), tol))


def draw_starts(rng, n):
    """Segment starts: one segment, many short ones, or anything between; element 0 always starts one."""
    mean = float(rng.choice([1.5, 4, 40, 1000, n + 1]))
    starts = rng.random(n) < 1.0 / mean
    starts[:1] = True
    return starts


def py_segmented_scan(case, rng, fn):
    op = str(rng.choice(OPS))
    inclusive = bool(rng.random() < 0.5)
    dt_choice = np.dtype(rng.choice(NUMERIC))
    pattern = float_mul_pattern(rng) if is_float(dt_choice) and op == "mul" else None
    d = draw_array(case, rng, [dt_choice], pattern=pattern)
    n = d.values.size
    starts = draw_starts(rng, n)
    how = str(rng.choice(["flags"] * 4 + ["keys"] * 4 + ["both", "neither", "short"]))
    heads_dt = np.dtype(rng.choice(["bool", "uint8", "int32", "uint32", "int64", "uint64"] if how != "keys"
                                   else ["int32", "uint32", "int64", "uint64"] * 6 + ["int16", "float32"]))
    if heads_dt.kind == "b" or how != "keys":
        heads = starts.astype(heads_dt) * (1 if heads_dt.kind == "b" else rng.integers(1, 100, n).astype(heads_dt))
        heads[~starts] = 0
        if n and rng.random() < 0.5:
            heads[0] = 0  # element 0 starts a segment whatever its flag says
    else:
        seg = np.cumsum(starts) - 1
        ids = rng.permutation(np.arange(max(1, seg.size + 1)))  # distinct keys for neighbouring segments
        heads = (ids[seg] * 7 + 3).astype(heads_dt) if n else np.zeros(0, heads_dt)
    if how == "short":
        heads = heads[:-1] if n else np.zeros(1, heads.dtype)
    heads_arg = heads.tolist() if rng.random() < 0.1 else lay_out(rng, heads, str(rng.choice(LAYOUTS[:-1])))
    kwargs = {"op": op, "inclusive": inclusive}
    if how in ("flags", "short", "both"):
        kwargs["flags"] = heads_arg
    if how in ("keys", "both"):
        kwargs["keys"] = heads_arg
    if how == "short" and rng.random() < 0.5:
        kwargs["keys"] = kwargs.pop("flags")
    case.call = f"{case.target}({args_text(d.arg, **kwargs)}) heads dtype {heads.dtype} ({how})"

    def gp():
        return fn(d.arg, **kwargs)
    keys_dt = np.asarray(kwargs["keys"]).dtype if "keys" in kwargs else None  # a list reads as int64
    if isinstance(kwargs.get("keys"), list) and not kwargs["keys"]:
        keys_dt = np.dtype("int64")  # [] reads as float64, but as keys it is empty int64 keys (a[[]] is empty)
    problems = argument_problems(
        (d.refused, TypeError), (how in ("both", "neither", "short"), ValueError),
        (keys_dt is not None and keys_dt.name not in ("int32", "uint32", "int64", "uint64"), TypeError),
        (is_float(d.dtype) and op in BITWISE, ValueError))
    if problems:
        return expect(case, gp, None, None, refuse=problems)
    res = scan_result_dtype(d.dtype, op)
    want, mode, tol, loose = expect_scan(d.values.astype(res), op, inclusive, starts, is_exact_data(d, op))
    expect(case, gp, lambda: want, lambda got, w: check_array(case, "result", got, w, mode, tol, loose, dtype=res))


def py_segmented_reduce(case, rng, fn):
    op = str(rng.choice(OPS))
    dt_choice = np.dtype(rng.choice(NUMERIC))
    pattern = float_mul_pattern(rng) if is_float(dt_choice) and op == "mul" else None
    d = draw_array(case, rng, [dt_choice], pattern=pattern)
    n = d.values.size
    segments = int(rng.choice([0, 1, 2, int(rng.integers(1, 50)), int(rng.integers(1, 2000))]))
    offsets = np.sort(rng.integers(0, n + 1, segments + 1))
    if rng.random() < 0.5 and offsets.size:
        offsets[0], offsets[-1] = 0, n  # the whole array, else a part of it
    bad = str(rng.choice(["none"] * 12 + ["empty", "decreasing", "beyond", "negative"]))
    if bad == "empty":
        offsets = offsets[:0]
    elif bad == "decreasing" and offsets.size > 2 and offsets[-1] > offsets[0]:
        i = int(np.flatnonzero(np.diff(offsets) > 0)[0])
        offsets[i], offsets[i + 1] = offsets[i + 1], offsets[i]
    elif bad == "beyond":
        offsets = np.append(offsets, n + 1 + int(rng.integers(0, 5)))
    elif bad == "negative":
        offsets = np.concatenate(([-1], offsets))
    else:
        bad = "none"
    off_dt = np.dtype(rng.choice(["int32", "uint32", "int64", "uint64", "int16"]))
    if bad == "negative":
        off_dt = np.dtype("int64")
    if offsets.size and offsets.max() > np.iinfo(off_dt).max:
        off_dt = np.dtype("int32")  # int16 cannot hold offsets past 32767: the cast would wrap them
    off_arg = offsets.tolist() if rng.random() < 0.3 else offsets.astype(off_dt)
    case.call = f"{case.target}({args_text(d.arg, off_arg, op=op)}) offsets {bad}"

    def gp():
        return fn(d.arg, off_arg, op=op)
    problems = argument_problems((d.refused, TypeError), (is_float(d.dtype) and op in BITWISE, ValueError),
                                 (bad != "none", ValueError))  # malformed offsets: an argument error
    if problems:
        return expect(case, gp, None, None, refuse=problems)
    res = scan_result_dtype(d.dtype, op)
    x = d.values.astype(res)
    exact = is_exact_data(d, op)
    pieces = [expect_reduce(x[offsets[s]:offsets[s + 1]], op, exact) for s in range(segments)]
    if is_float(res) and op in ("add", "mul"):
        want = np.array([p[0] for p in pieces], np.longdouble)
        tol = np.array([0.0 if p[1] is None else p[1] for p in pieces], np.longdouble)
        return expect(case, gp, lambda: want,
                      lambda got, w: check_array(case, "result", got, w, "tol", tol, dtype=res))
    want = np.array([p[0] for p in pieces], res)
    expect(case, gp, lambda: want, lambda got, w: check_array(case, "result", got, w))


# Predicates: (form, numpy's mask of x for the constant(s)). Constants are drawn in x's dtype.
def pred_constant(rng, dt, values):
    """A constant for a predicate: mostly one of the data's values or near it, as text the CLI and module
    parse (integers in decimal or hex, floats in shortest form, inf, nan), and its value; or one out of the
    dtype's range (the value None)."""
    if is_float(dt):
        r = rng.random()
        if r < 0.05:
            return ("1e39" if dt == np.float32 else "1e309"), None
        if r < 0.1:
            return ("1e-50" if dt == np.float32 else "1e-330"), None
        pool = np.concatenate((values[:50], float_specials(dt)[3:], [dt.type(0.1), dt.type(1.5e3)])).astype(dt)
        c = pool[int(rng.integers(0, pool.size))]
        if np.isnan(c):
            return "nan", c
        return str(c), c
    info = np.iinfo(dt)
    width = np.iinfo(dt).bits
    if rng.random() < 0.05 and width >= 32:
        c = int(info.max) + 1 if rng.random() < 0.5 else int(info.min) - 1
        return str(c), None
    c = int(values[int(rng.integers(0, values.size))]) if values.size and rng.random() < 0.7 else \
        int(rng.integers(info.min, info.max, endpoint=True, dtype=dt.type))
    text = (f"-{-c:#x}" if c < 0 else f"{c:#x}") if rng.random() < 0.3 else str(c)
    return text, c


def bits_of(x):
    """The 32- or 64-bit pattern a bit predicate tests: floats' bits, narrow integers widened to 32."""
    if x.dtype.itemsize >= 4:
        return x.view(uint_of(x.dtype))
    return x.astype(np.int32).view(np.uint32)


def draw_predicate(rng, x):
    """(text, numpy mask or None where the predicate must be refused as out of range)."""
    dt = x.dtype
    form = str(rng.choice(["nonzero", "eq", "ne", "lt", "le", "gt", "ge", "bit", "range", "run-start"]))
    if dt == BOOL and form not in ("nonzero", "run-start"):
        form = "nonzero"
    if form == "nonzero":
        return "nonzero", x != 0
    if form == "run-start":
        return "run-start", run_starts(x)
    if form == "bit":
        width = 64 if dt.itemsize == 8 else 32
        mask = int(rng.integers(1, 1 << 62)) & ((1 << width) - 1) if rng.random() < 0.5 else 1 << int(rng.integers(0, width))
        return f"bit:{mask:#x}", (bits_of(x) & bits_of(x).dtype.type(mask)) != 0
    text, c = pred_constant(rng, dt, x)
    if form == "range":
        text2, c2 = pred_constant(rng, dt, x)
        if c is not None and c2 is not None and not (c2 < c) and rng.random() < 0.9:
            pass
        elif c is not None and c2 is not None:
            text, c, text2, c2 = text2, c2, text, c
        if c is None or c2 is None:
            return f"range:{text}:{text2}", None
        lo, hi = np.asarray(c, dt), np.asarray(c2, dt)
        return f"range:{text}:{text2}", (x >= lo) & (x <= hi)
    if c is None:
        return f"{form}:{text}", None
    cmp = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal, "gt": np.greater,
           "ge": np.greater_equal}[form]
    return f"{form}:{text}", cmp(x, np.asarray(c, dt))


COMPACT_DTYPES = NUMERIC


def draw_selection(case, rng, d):
    """A predicate string or a mask for compact/partition: (pred argument, numpy mask or None when the
    argument must be refused, the class of that refusal)."""
    x = d.values
    if rng.random() < 0.5 and not d.refused:
        text, mask = draw_predicate(rng, x)
        return text, mask, ValueError
    mask = rng.random(x.size) < rng.choice([0.0, 0.01, 0.5, 0.99, 1.0])
    kind = str(rng.choice(["bool", "int8", "uint8", "int32", "uint32", "int64", "uint64", "list", "short", "2d"]))
    if kind == "list":
        return mask.tolist(), mask, None
    if kind == "short":
        return mask[:-1] if mask.size else np.ones(1, bool), None, ValueError
    if kind == "2d":
        return mask.reshape(1, -1), None, ValueError
    arr = mask.astype(kind)
    if kind != "bool":
        arr *= rng.integers(1, 100, x.size).astype(kind)  # kept where non-zero, any non-zero value
        if kind.startswith("int"):
            arr[mask & (rng.random(x.size) < 0.3)] *= -1
    return arr, mask, None


def py_compact(case, rng, fn, partition):
    d = draw_array(case, rng, COMPACT_DTYPES)
    pred, mask, refusal = draw_selection(case, rng, d)
    path = str(rng.choice(["auto", "ballot", "shared-memory"]))
    algorithm = str(rng.choice(["auto", "three-pass", "single-pass"]))
    case.call = f"{case.target}({args_text(d.arg, pred, path=path, algorithm=algorithm)})"

    def gp():
        return fn(d.arg, pred, path=path, algorithm=algorithm)
    if d.refused:
        return expect(case, gp, None, None, refuse=TypeError)
    if mask is None:
        return expect(case, gp, None, None, refuse=refusal)
    if algorithm == "single-pass" and (partition or path == "shared-memory"):
        # Documented: partitions run three-pass, and single-pass needs the ballot path.
        got, exc = outcome(gp)
        if not (isinstance(exc, gpuscan.Error) and exc.code == "unsupported"):
            case.fail("refusal", f"{'returned a result' if exc is None else describe_exc(exc)}; "
                                 "documented: gpuscan.Error 'unsupported'")
        return
    x = d.values
    if partition:
        def compare(got, want):
            if not (isinstance(got, tuple) and len(got) == 2):
                return case.fail("type", f"returned {type(got).__name__}, expected (values, kept)")
            check_array(case, "values", got[0], want[0], "bits")
            if not isinstance(got[1], (int, np.integer)) or int(got[1]) != want[1]:
                case.fail("value", f"kept: got {got[1]!r}, expected {want[1]}")
        return expect(case, gp, lambda: (np.concatenate((x[mask], x[~mask])), int(np.count_nonzero(mask))),
                      compare)
    expect(case, gp, lambda: x[mask], lambda got, want: check_array(case, "result", got, want, "bits"))


def py_unique(case, rng, fn):
    d = draw_array(case, rng, COMPACT_DTYPES)
    return_counts = bool(rng.random() < 0.4)
    sort = bool(rng.random() < 0.5)
    algorithm = str(rng.choice(["auto", "three-pass", "single-pass"]))
    equal_nan = bool(rng.random() < 0.7)  # numpy's default, True, most of the time
    flags = {}  # return_index and return_inverse, each passed a third of the time
    for name in ("return_index", "return_inverse"):
        if rng.random() < 1 / 3:
            flags[name] = bool(rng.random() < 0.8)
    text = args_text(d.arg, return_counts=return_counts, algorithm=algorithm, sort=sort, equal_nan=equal_nan, **flags)
    case.call = f"{case.target}({text})"
    names = ["values"] + [n[len("return_"):] for n in ("return_index", "return_inverse") if flags.get(n)]
    names += ["counts"] if return_counts else []

    def gp():
        return fn(d.arg, return_counts=return_counts, algorithm=algorithm, sort=sort, equal_nan=equal_nan, **flags)
    if d.refused:
        return expect(case, gp, None, None, refuse=TypeError)
    x = d.values
    if sort:
        # numpy.unique: one NaN however many there are; which of equal -0.0 and +0.0 numpy keeps depends
        # on its unstable sort, so values compare as numbers here.
        # numpy sorts stably only with return_index, and unstably the inverse of unequal NaNs (equal_nan=False)
        # may differ; so the reference always asks for the index (gpuscan's sort is stable) and drops it.
        def ref():
            r = np.unique(x, return_counts=return_counts, equal_nan=equal_nan, return_index=True,
                          return_inverse=bool(flags.get("return_inverse")))
            return r if flags.get("return_index") else (r[0],) + r[2:] if len(r) > 2 else r[0]
        mode = "exact"
    else:
        # Without sort=: the first of every run of equal neighbours (the documented std::unique_copy; no
        # numpy function); consecutive NaNs one run where equal_nan, each NaN a run of its own where
        # not; the first element of a run, bit for bit.
        def ref():
            m = run_starts(x)
            if equal_nan and is_float(x.dtype) and x.size > 1:
                m[1:] &= ~(np.isnan(x[1:]) & np.isnan(x[:-1]))
            # With return_index and return_inverse: where each run starts, and each element's run.
            starts = np.flatnonzero(m)
            arrays = {"values": x[m], "index": starts.astype(np.intp), "inverse": (np.cumsum(m) - 1).astype(np.intp),
                      "counts": np.diff(np.append(starts, x.size)).astype(np.intp)}
            got = tuple(arrays[n] for n in names)
            return got if len(got) > 1 else got[0]
        mode = "bits"

    if len(names) > 1:
        return expect(case, gp, ref, pair_check(case, names, (mode,) + ("exact",) * (len(names) - 1)))
    expect(case, gp, ref, lambda got, want: check_array(case, "result", got, want, mode))


def py_runs(case, rng, fn, non_trivial):
    d = draw_array(case, rng, COMPACT_DTYPES)
    algorithm = str(rng.choice(["auto", "three-pass", "single-pass"]))
    case.call = f"{case.target}({args_text(d.arg, algorithm=algorithm)})"

    def gp():
        return fn(d.arg, algorithm=algorithm)
    if d.refused:
        return expect(case, gp, None, None, refuse=TypeError)
    x = d.values
    m = run_starts(x)
    first = np.flatnonzero(m)
    lengths = np.diff(np.append(first, x.size)).astype(np.intp)  # numpy's index and count dtype: intp
    if non_trivial:
        long_runs = lengths >= 2
        want = (first[long_runs].astype(np.intp), lengths[long_runs])
        names = ("offsets", "lengths")
    else:
        want = (x[m], lengths)
        names = ("values", "lengths")

    expect(case, gp, lambda: want, pair_check(case, names, ("bits", "exact")))


def py_unique_by_key(case, rng, fn):
    d = draw_array(case, rng, [BOOL] + INTS + FLOATS[:1], label="keys")
    n = d.values.size
    v = draw_array(case, rng, COMPACT_DTYPES, n=n if rng.random() < 0.95 else n + 1, label="values",
                   refuse_rate=0.0)
    algorithm = str(rng.choice(["auto", "three-pass", "single-pass"]))
    case.call = f"{case.target}({args_text(d.arg, v.arg, algorithm=algorithm)})"

    def gp():
        return fn(d.arg, v.arg, algorithm=algorithm)
    # keys: integers or bool, compared exactly; values as many as keys
    # An empty list carries no dtype: the module reads it as empty integer keys, as numpy's a[[]] reads it.
    empty_list = isinstance(d.arg, (list, tuple)) and len(d.arg) == 0
    problems = argument_problems(((d.refused or is_float(d.dtype)) and not empty_list, TypeError),
                                 (v.values.size != n, ValueError))
    if problems:
        return expect(case, gp, None, None, refuse=problems)
    keys = np.zeros(0, np.int64) if empty_list else d.values
    m = run_starts(keys)

    expect(case, gp, lambda: (keys[m], v.values[m]), pair_check(case, ("keys", "values"), ("bits", "bits")))


SORT_KEYS = SCAN_NATIVE


def py_sort(case, rng, fn, kind):
    """sort, argsort or sort_pairs: numpy's stable sort order; keys and values moved bit for bit."""
    d = draw_array(case, rng, NUMERIC, label="keys")
    descending = bool(rng.random() < 0.3)
    algorithm = str(rng.choice(["auto", "multipass", "onesweep"]))
    case.unsupported_ok = algorithm == "onesweep"
    args = [d.arg]
    v = None
    if kind == "sort_pairs":
        n = d.values.size
        v = draw_array(case, rng, NUMERIC, n=n if rng.random() < 0.95 else n + 1, label="values", refuse_rate=0.0)
        args.append(v.arg)
    case.call = f"{case.target}({args_text(*args, descending=descending, algorithm=algorithm)})"

    def gp():
        return fn(*args, descending=descending, algorithm=algorithm)
    if d.refused:
        return expect(case, gp, None, None, refuse=TypeError)
    documented = d.dtype in SORT_KEYS
    # Keys of another dtype (TypeError), values of other than 4 or 8 bytes (TypeError: they move as bits)
    # and values of another length (ValueError): whichever gpuscan checks first.
    problems = ((() if documented else (TypeError,)) +
                ((TypeError,) if v is not None and v.dtype.itemsize not in (4, 8) else ()) +
                ((ValueError,) if v is not None and v.values.size != d.values.size else ()))
    if v is not None and len(problems) > (0 if documented else 1) or (v is not None and not documented and problems[1:]):
        return expect(case, gp, None, None, refuse=tuple(problems))
    order = sort_order(d.values, descending)
    may = () if documented else (TypeError,)  # other key dtypes: refused with TypeError, or sorted right
    if kind == "sort":
        return expect(case, gp, lambda: d.values[order],
                      lambda got, w: check_array(case, "keys", got, w, "bits"), may_refuse=may)
    if kind == "argsort":
        return expect(case, gp, lambda: order, lambda got, w: check_array(case, "order", got, w), may_refuse=may)

    expect(case, gp, lambda: (d.values[order], v.values[order]), pair_check(case, ("keys", "values"), ("bits", "bits")),
           may_refuse=may)


def draw_bins_range(rng, x):
    """bins= and range= for histogram: counts or edge arrays; ranges fractional, integer, negative,
    huge, equal, reversed or holding NaN/inf."""
    finite = x[np.isfinite(x)] if is_float(x.dtype) else x
    # (clipped so that spans stay finite doubles)
    lo_data = float(np.clip(float(finite.min()), -1e300, 1e300)) if finite.size else 0.0
    hi_data = float(np.clip(float(finite.max()), -1e300, 1e300)) if finite.size else 1.0
    r = rng.random()
    if r < 0.5:
        bins = int(rng.choice([1, 2, 3, 10, int(rng.integers(1, 300)), 4096, 4097, 5000]))
    elif r < 0.85:
        k = int(rng.integers(2, 40))
        span = max(hi_data - lo_data, 1.0)
        edges = np.sort(rng.uniform(lo_data - 0.2 * span, hi_data + 0.2 * span, k))
        if rng.random() < 0.3:
            edges = np.round(edges)  # integer edges, some repeated
        if rng.random() < 0.2:
            edges[int(rng.integers(0, k))] = edges[0]
            edges = np.sort(edges)
        bins = edges.tolist() if rng.random() < 0.3 else edges
    elif r < 0.92:
        bins = str(rng.choice(["auto", "sturges", "fd"]))
    else:
        bins = rng.choice([0, -3]) if rng.random() < 0.5 else np.array([2.0, 1.0, 3.0])
    if isinstance(bins, np.ndarray) and bins.size > 2 and finite.size and rng.random() < 0.3:
        bins[-1] = float(rng.choice(finite)) + float(rng.choice([0.25, 0.5, 0.75]))  # a fractional last edge
        bins = np.sort(bins)                                                        # among the samples
    r = rng.random()
    if r < 0.3:
        rng_arg = None
    elif r < 0.4:
        rng_arg = tuple(sorted(rng.uniform(lo_data - 1, hi_data + 1, 2).tolist()))  # fractional
    elif r < 0.55 and finite.size:
        # a fractional upper edge between samples: integer samples just above it are outside
        hi = float(rng.choice(finite)) + float(rng.choice([0.25, 0.5, 0.75]))
        rng_arg = (float(min(lo_data, hi - 1)), hi)
    elif r < 0.7:
        low = int(np.floor(lo_data))
        rng_arg = (low, low + int(rng.uniform(0, hi_data - lo_data + 3)))  # integer bounds
    elif r < 0.78:
        rng_arg = (float(rng.uniform(-1e6, 0)), float(rng.uniform(0, 2.5)))  # negative to small fractional
    elif r < 0.84:
        rng_arg = (-1e30, 1e30) if rng.random() < 0.5 else (0.0, 2.0 ** 64)
    elif r < 0.9:
        v = float(rng.choice([lo_data, hi_data, 0.5]))
        rng_arg = (v, v)  # equal: numpy widens it by 0.5 each way
    elif r < 0.95:
        rng_arg = (hi_data + 1, lo_data)  # reversed: numpy's ValueError
    else:
        rng_arg = (float(rng.choice([np.nan, -np.inf])), float(rng.choice([1.0, np.inf])))
    return bins, rng_arg


def py_histogram(case, rng, fn):
    # small integers half the time: samples on and next to the edges
    d = draw_array(case, rng, NUMERIC, refuse_rate=0.03, pattern="small" if rng.random() < 0.5 else None)
    # float16, refused elsewhere, is a histogram's sample dtype (widened to float32 losslessly, documented)
    refused = d.refused and d.values.dtype != np.float16
    bins, rng_arg = draw_bins_range(rng, d.values if not refused else np.zeros(0))
    case.call = f"{case.target}({args_text(d.arg, bins=bins, range=rng_arg)})"

    def gp():
        return fn(d.arg, bins=bins, range=rng_arg)
    if refused:
        return expect(case, gp, None, None, refuse=TypeError)

    def kept_by_range(x):
        """The samples numpy's even-bin path counts: those within range=, compared with its values as
        given (exactly for Python ints and 64-bit samples), widened by 0.5 each way where equal."""
        if np.ndim(bins) != 0 or rng_arg is None:
            return x
        first, last = rng_arg
        if first == last:
            first, last = first - 0.5, last + 0.5
        return x[(x >= first) & (x <= last)]

    def reference():
        x = d.values
        try:
            counts, edges = np.histogram(x, bins=bins, range=rng_arg)
        except IndexError:
            # numpy's even-bin path on bins of no width in float64 (uint64 samples past 2^53 whose range
            # widened by 0.5 stays one float): its index is NaN, cast to -2^63, out of bounds.
            edges = np.histogram_bin_edges(x, bins=bins, range=rng_arg)
            counts = None
        # Where numpy's even-bin path misplaces samples its own edges place elsewhere, the reference is
        # its edge-array path (gpuscan's: every sample in the bin of numpy's edges that holds it), on the
        # samples the even path keeps. Equal even edges (a range of a few float32 ulps, denormals say):
        # the even path puts a sample on them into an empty bin [e, e) by its one-step index
        # correction. float16 samples: the even path computes the index in float16, off by more than
        # the one step it corrects with thousands of bins.
        if counts is None or np.any(np.diff(edges) == 0) or (x.dtype == np.float16 and np.ndim(bins) == 0):
            counts, _ = np.histogram(kept_by_range(x), bins=edges)
        return counts, edges
    expect(case, gp, reference, pair_check(case, ("counts", "edges"), ("exact", "bits")))


# Custom operators: (GLSL, numpy's combine(earlier, later) on the two uint32 columns, identity).
CUSTOM_OPS = {
    "affine": ("struct A { uint a; uint b; };\n#define T A\nT identity() { return A(1u, 0u); }\n"
               "T combine(T f, T g) { return A(g.a * f.a, g.a * f.b + g.b); }\n",
               lambda f, g: [g[0] * f[0], g[0] * f[1] + g[1]], (1, 0)),
    "sum_max": ("struct S { uint s; uint m; };\n#define T S\nT identity() { return S(0u, 0u); }\n"
                "T combine(T a, T b) { return S(a.s + b.s, max(a.m, b.m)); }\n",
                lambda a, b: [a[0] + b[0], np.maximum(a[1], b[1])], (0, 0)),
}


def expect_custom(name, pairs, inclusive):
    """The custom operator's scan of an (n, 2) uint32 array, by recursive doubling."""
    _, combine, ident = CUSTOM_OPS[name]
    starts = np.zeros(pairs.shape[0], bool)
    starts[:1] = True
    cols = scan_doubling([pairs[:, 0].copy(), pairs[:, 1].copy()], combine, starts)
    want = np.stack(cols, axis=1) if pairs.shape[0] else pairs.copy()
    if not inclusive and pairs.shape[0]:
        want = np.concatenate((np.array([ident], np.uint32), want[:-1]))
    return want


def py_custom_scan(case, rng, fn):
    name = str(rng.choice(list(CUSTOM_OPS)))
    n = draw_size(rng, cap=70_000)
    pairs = make_values(rng, np.dtype(np.uint32), 2 * n, str(rng.choice(PATTERNS))).reshape(n, 2)
    inclusive = bool(rng.random() < 0.5)
    structured = bool(rng.random() < 0.4)
    arg = pairs.view([("a", "<u4"), ("b", "<u4")]).reshape(n) if structured else pairs
    case.data += f" a: {'structured' if structured else '(n, 2) uint32'} n={n};"
    case.call = f"{case.target}({args_text(arg, glsl=name, inclusive=inclusive)})"
    want = expect_custom(name, pairs, inclusive)
    if structured:
        want = want.view(arg.dtype).reshape(n)
    expect(case, lambda: fn(arg, CUSTOM_OPS[name][0], inclusive=inclusive), lambda: want,
           lambda got, w: check_array(case, "result", got, w, "bits"))


PY_TARGETS = {
    "inclusive_scan": lambda c, r, f: py_scan(c, r, f, True),
    "exclusive_scan": lambda c, r, f: py_scan(c, r, f, False),
    "reduce": py_reduce,
    "cumsum": lambda c, r, f: py_cumulative(c, r, f, "add"),
    "cumprod": lambda c, r, f: py_cumulative(c, r, f, "mul"),
    "segmented_scan": py_segmented_scan,
    "segmented_reduce": py_segmented_reduce,
    "custom_scan": py_custom_scan,
    "compact": lambda c, r, f: py_compact(c, r, f, False),
    "partition": lambda c, r, f: py_compact(c, r, f, True),
    "unique": py_unique,
    "unique_by_key": py_unique_by_key,
    "run_length_encode": lambda c, r, f: py_runs(c, r, f, False),
    "non_trivial_runs": lambda c, r, f: py_runs(c, r, f, True),
    "sort": lambda c, r, f: py_sort(c, r, f, "sort"),
    "argsort": lambda c, r, f: py_sort(c, r, f, "argsort"),
    "sort_pairs": lambda c, r, f: py_sort(c, r, f, "sort_pairs"),
    "histogram": py_histogram,
}


# --- the CLI ----------------------------------------------------------------------------------------------

# The command lines, in one place: cli_argv turns keyword options into flags (True: a bare flag; None or
# False: left out), and RESULTS_ON_STDOUT names the commands that print their results instead of writing
# a file.
FLAG_NAMES = {"input": "--in", "output": "--out"}
RESULTS_ON_STDOUT = {"histogram"}  # its counts, one per line


def cli_argv(command, **options):
    argv = [command]
    for name, value in options.items():
        if value is None or value is False:
            continue
        flag = FLAG_NAMES.get(name, "--" + name.replace("_", "-"))
        argv += [flag] if value is True else [flag, str(value)]
    return argv + ["--validate"]


class CliDriver:
    """Runs the gpuscan executable on files in a temporary directory."""

    def __init__(self, path):
        self.path = os.path.abspath(path)
        if not os.access(self.path, os.X_OK):
            sys.exit(f"--cli {path}: not an executable")
        self.dir = tempfile.mkdtemp(prefix="gpuscan-fuzz-")

    def close(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def file(self, name):
        path = os.path.join(self.dir, name)
        with contextlib.suppress(FileNotFoundError):
            os.remove(path)
        return path

    @staticmethod
    def write(path, values, fmt):
        """Values to a file: raw little-endian, or text one a line (floats exact: repr of the double)."""
        values = np.asarray(values)
        if fmt == "binary":
            values.astype(values.dtype.newbyteorder("<")).tofile(path)
        else:
            with open(path, "w") as f:
                f.write("".join(f"{v}\n" for v in values.tolist()))

    @staticmethod
    def parse(text_or_bytes, dtype, fmt):
        dtype = np.dtype(dtype)
        if fmt == "binary":
            return np.frombuffer(text_or_bytes, dtype.newbyteorder("<")).astype(dtype)
        tokens = text_or_bytes.split()
        if is_float(dtype):
            return np.array([float(t) for t in tokens], dtype)
        return np.array([int(t) for t in tokens], dtype=object).astype(dtype) if tokens else np.zeros(0, dtype)

    def read(self, path, dtype, fmt):
        with open(path, "rb") as f:
            data = f.read()
        return self.parse(data if fmt == "binary" else data.decode(), dtype, fmt)

    def run(self, case, argv, tuned=False):
        """Runs the command; returns the process, or None after recording a failure (an exit other than
        0: 3 is the validation layer's). `tuned`: the command line sets tile shapes or a memory budget,
        which a device may not fit: a clean error (exit 1 or 2 without a failed verification) skips."""
        full = [self.path] + argv
        case.call = " ".join(full)
        proc = subprocess.run(full, capture_output=True, timeout=600, cwd=self.dir)
        stderr = proc.stderr.decode(errors="replace")
        if tuned and proc.returncode in (1, 2) and "verification FAILED" not in stderr:
            raise Skip(f"{case.call}: {stderr.strip().splitlines()[-1:]}")
        if proc.returncode != 0:
            tail = stderr.strip().splitlines()[-3:]
            kind = "validation" if proc.returncode == 3 else "exit"
            case.fail(kind, f"exit code {proc.returncode}: " + " | ".join(tail))
            return None
        return proc

    def refuses(self, case, argv, codes):
        """The command must fail cleanly with one of `codes` (2: a usage error)."""
        full = [self.path] + argv
        case.call = " ".join(full)
        proc = subprocess.run(full, capture_output=True, timeout=600, cwd=self.dir)
        if proc.returncode not in codes:
            tail = proc.stderr.decode(errors="replace").strip().splitlines()[-2:]
            case.fail("refusal", f"exit code {proc.returncode}, expected {' or '.join(map(str, codes))}: "
                                 + " | ".join(tail))


def cli_data(case, rng, cli_type, op=None, n=None, label="in", pattern=None):
    """Values of a CLI type (float products: power_walk) and whether every order combines them exactly."""
    dt = np.dtype(CLI_TYPES[cli_type])
    n = draw_size(rng) if n is None else n
    if is_float(dt) and op == "mul":
        walk = float_mul_pattern(rng)
        values, pattern = walk(dt, n), walk.__name__
    else:
        pattern = pattern or str(rng.choice(FLOAT_PATTERNS if is_float(dt) else PATTERNS))
        values = make_values(rng, dt, n, pattern)
    case.data += f" {label}: {cli_type} n={n} pattern={pattern};"
    return values, pattern == "small" or pattern.startswith("power_walk(exact=True")


def draw_format(rng):
    return "text" if rng.random() < 0.3 else "binary"


def draw_api(rng, options):
    """OpenGL (llvmpipe: no subgroups, so multipass scans, shared-memory compaction, multipass sorts) for
    a fifth of the commands that take it, else Vulkan; returns whether GL was drawn."""
    if rng.random() < 0.2:
        options["api"] = "gl"
    return options.get("api") == "gl"


def draw_tuning(rng, options):
    """Now and then a tile shape or a memory budget small enough to stream the input in many chunks;
    returns whether any was set."""
    if rng.random() < 0.2:
        options["workgroup_size"] = int(rng.choice([32, 64, 128, 512, 1024]))
        options["vectors_per_lane"] = int(rng.choice([1, 2, 4, 8]))
    if rng.random() < 0.15:
        options["device_memory_budget"] = str(rng.choice(["256K", "1M"]))
    return "workgroup_size" in options or "device_memory_budget" in options


def cli_scan(case, rng, cli):
    cli_type = str(rng.choice(list(CLI_TYPES)))
    op = str(rng.choice(OPS))
    mode = str(rng.choice(["plain"] * 7 + ["segments", "segments", "keys", "op-file"]))
    fmt = draw_format(rng)
    inclusive = bool(rng.random() < 0.5)
    inp, out = cli.file("in"), cli.file("out")
    options = dict(type=cli_type, input=inp, output=out, format=fmt, inclusive=inclusive)
    gl = draw_api(rng, options)
    if mode == "op-file":
        name = str(rng.choice(list(CUSTOM_OPS)))
        n = draw_size(rng, cap=70_000)
        pairs = make_values(rng, np.dtype(np.uint32), 2 * n, str(rng.choice(PATTERNS))).reshape(n, 2)
        case.data += f" in: {n} pairs of u32, operator {name};"
        cli.write(inp, pairs.reshape(-1), fmt)
        op_file = cli.file("op.glsl")
        with open(op_file, "w") as f:
            f.write(CUSTOM_OPS[name][0])
        options.update(type="u32", op_file=op_file, algorithm=str(rng.choice(["auto", "multipass", "blelloch"])))
        if cli.run(case, cli_argv("scan", **options)):
            got = cli.read(out, np.uint32, fmt)
            check_array(case, "output", got.reshape(-1, 2) if got.size % 2 == 0 else got,
                        expect_custom(name, pairs, inclusive), "bits")
        return
    values, exact = cli_data(case, rng, cli_type, op)
    dt = values.dtype
    n = values.size
    options.update(op=op, verify=True)
    starts = np.zeros(n, bool)
    starts[:1] = True
    tuned = False
    if mode == "plain":
        options["algorithm"] = str(rng.choice(["auto", "multipass", "blelloch"] if gl else
                                              ["auto", "single-pass", "reduce-then-scan", "multipass", "blelloch",
                                               "look-ahead"]))
        tuned = draw_tuning(rng, options)
    else:
        starts = draw_starts(rng, n)
        heads_file = cli.file("heads")
        if mode == "segments":
            flags = np.where(starts, rng.integers(1, 1000, n), 0).astype(np.uint32)
            if n and rng.random() < 0.5:
                flags[0] = 0  # element 0 starts a segment whatever its flag says
            cli.write(heads_file, flags, fmt)
            options["segments"] = heads_file
        else:
            key_type = str(rng.choice(["u32", "u64"]))
            seg = np.cumsum(starts) - 1
            ids = rng.permutation(np.arange(max(1, n + 1)))
            keys = (ids[seg] * 7 + 3).astype(CLI_TYPES[key_type]) if n else np.zeros(0, CLI_TYPES[key_type])
            cli.write(heads_file, keys, fmt)
            options.update(keys=heads_file, key_type=key_type)
        if rng.random() < 0.5 and not gl:
            options["algorithm"] = str(rng.choice(["auto", "reduce-then-scan"]))
    cli.write(inp, values, fmt)
    argv = cli_argv("scan", **options)
    if is_float(dt) and op in ("and", "or", "xor"):
        return cli.refuses(case, argv, (2,))  # documented: a usage error
    if cli.run(case, argv, tuned):
        want, cmp_mode, tol, loose = expect_scan(values, op, inclusive, starts, exact)
        check_array(case, "output", cli.read(out, dt, fmt), want, cmp_mode, tol, loose, dtype=dt)


def cli_reduce(case, rng, cli):
    cli_type = str(rng.choice(list(CLI_TYPES)))
    op = str(rng.choice(OPS))
    fmt = draw_format(rng)
    values, exact = cli_data(case, rng, cli_type, op)
    dt = values.dtype
    inp = cli.file("in")
    cli.write(inp, values, fmt)
    to_file = rng.random() < 0.5
    out = cli.file("out") if to_file else None
    options = dict(type=cli_type, op=op, input=inp, format=fmt, output=out, verify=True)
    segmented = rng.random() < 0.35
    gl = draw_api(rng, options)  # segmented reductions (--offsets) run on OpenGL too
    tuned = not segmented and draw_tuning(rng, options)
    if gl:
        options.pop("device_memory_budget", None)  # a usage error: reduce --api gl reads the whole input
    if segmented:
        n = values.size
        segments = int(rng.choice([0, 1, 2, int(rng.integers(1, 50)), int(rng.integers(1, 2000))]))
        offsets = np.sort(rng.integers(0, n + 1, segments + 1)).astype(np.uint32)
        if rng.random() < 0.5 and offsets.size:
            offsets[0], offsets[-1] = 0, n
        off_file = cli.file("offsets")
        cli.write(off_file, offsets, fmt)
        options["offsets"] = off_file
    argv = cli_argv("reduce", **options)
    if is_float(dt) and op in ("and", "or", "xor"):
        return cli.refuses(case, argv, (2,))
    proc = cli.run(case, argv, tuned)
    if not proc:
        return
    got = cli.read(out, dt, fmt) if to_file else cli.parse(proc.stdout.decode(), dt, "text")
    if segmented:
        pieces = [expect_reduce(values[offsets[s]:offsets[s + 1]], op, exact) for s in range(offsets.size - 1)]
    else:
        pieces = [expect_reduce(values, op, exact)]
    if is_float(dt) and op in ("add", "mul"):
        want = np.array([p[0] for p in pieces], np.longdouble)
        tol = np.array([0.0 if p[1] is None else p[1] for p in pieces], np.longdouble)
        return check_array(case, "output", got, want, "tol", tol, dtype=dt)
    check_array(case, "output", got, np.array([p[0] for p in pieces], dt))


def cli_compact(case, rng, cli, unique):
    cli_type = str(rng.choice(list(CLI_TYPES)))
    fmt = draw_format(rng)
    values, _ = cli_data(case, rng, cli_type)
    inp, out = cli.file("in"), cli.file("out")
    cli.write(inp, values, fmt)
    partition = bool(rng.random() < 0.3)
    options = dict(type=cli_type, input=inp, output=out, format=fmt, partition=partition)
    gl = draw_api(rng, options)
    options.update(path=str(rng.choice(["auto", "shared-memory"] if gl else ["auto", "ballot", "shared-memory"])),
                   algorithm=str(rng.choice(["auto", "three-pass"] if gl else ["auto", "three-pass", "single-pass"])))
    if unique:
        mask = run_starts(values)
    elif rng.random() < 0.6:
        options["pred"], mask = draw_predicate(rng, values)
    else:
        mask = rng.random(values.size) < rng.choice([0.0, 0.01, 0.5, 1.0])
        flags_file = cli.file("flags")
        cli.write(flags_file, np.where(mask, rng.integers(1, 2 ** 32, values.size), 0).astype(np.uint32), fmt)
        options["flags"] = flags_file
    argv = cli_argv("unique" if unique else "compact", **options)
    single_pass_conflict = options["algorithm"] == "single-pass" and (partition or options["path"] == "shared-memory")
    if single_pass_conflict:
        return cli.refuses(case, argv, (2,))  # documented usage errors
    if mask is None:
        return cli.refuses(case, argv, (1, 2))  # a constant out of the type's range
    if cli.run(case, argv):
        want = np.concatenate((values[mask], values[~mask])) if partition else values[mask]
        check_array(case, "output", cli.read(out, values.dtype, fmt), want, "bits" if fmt == "binary" else "exact")


def cli_rle(case, rng, cli):
    cli_type = str(rng.choice(list(CLI_TYPES)))
    fmt = draw_format(rng)
    values, _ = cli_data(case, rng, cli_type)
    inp = cli.file("in")
    cli.write(inp, values, fmt)
    first = np.flatnonzero(run_starts(values))
    lengths = np.diff(np.append(first, values.size))
    non_trivial = bool(rng.random() < 0.4)
    lengths_file = cli.file("lengths")
    api = {}
    draw_api(rng, api)  # every type encodes on OpenGL too
    if non_trivial:
        offsets_file = cli.file("offsets")
        argv = cli_argv("rle", type=cli_type, input=inp, format=fmt, non_trivial=True, offsets=offsets_file,
                        lengths=lengths_file, **api)
        if cli.run(case, argv):
            keep = lengths >= 2
            check_array(case, "offsets", cli.read(offsets_file, np.uint32, fmt), first[keep].astype(np.uint32))
            check_array(case, "lengths", cli.read(lengths_file, np.uint32, fmt), lengths[keep].astype(np.uint32))
        return
    values_file = cli.file("values")
    argv = cli_argv("rle", type=cli_type, input=inp, format=fmt, values=values_file, lengths=lengths_file, **api)
    if cli.run(case, argv):
        check_array(case, "values", cli.read(values_file, values.dtype, fmt), values[first],
                    "bits" if fmt == "binary" else "exact")
        check_array(case, "lengths", cli.read(lengths_file, np.uint32, fmt), lengths.astype(np.uint32))


def cli_sort(case, rng, cli):
    cli_type = str(rng.choice(list(CLI_TYPES)))
    fmt = draw_format(rng)
    keys, _ = cli_data(case, rng, cli_type, label="keys")
    n = keys.size
    inp, out = cli.file("keys"), cli.file("sorted")
    cli.write(inp, keys, fmt)
    descending = bool(rng.random() < 0.3)
    options = dict(type=cli_type, input=inp, output=out, format=fmt, descending=descending, verify=True)
    gl = draw_api(rng, options)
    options["algorithm"] = str(rng.choice(["auto", "multipass"] if gl else ["auto", "multipass", "onesweep"]))
    width = 8 * keys.dtype.itemsize
    if rng.random() < 0.3:
        # the range's edges on purpose: empty, one bit, up to the top, or anywhere
        begin = int(rng.integers(0, width)) if rng.random() < 0.5 else 0
        end = min(width, int(rng.choice([begin, begin + 1, width, int(rng.integers(begin, width + 1))])))
        options["bits"] = f"{begin}:{end}" if begin or rng.random() < 0.5 else str(end)
        u = uint_of(keys.dtype)
        digit = (ordered_key_bits(keys) >> u.type(begin)) & u.type((1 << (end - begin)) - 1) if end > begin \
            else np.zeros(n, u)
        # equal digits are equal keys, in input order; descending reverses the digits' order only
        order = np.argsort(~digit if descending else digit, kind="stable")
    else:
        order = sort_order(keys, descending)
    r = rng.random()
    values = None
    if r < 0.35:
        values_type = str(rng.choice(list(CLI_TYPES)))
        values, _ = cli_data(case, rng, values_type, n=n, label="values")
        values_in, values_out = cli.file("values"), cli.file("values_out")
        cli.write(values_in, values, fmt)
        options.update(values=values_in, values_type=values_type, values_out=values_out)
    elif r < 0.65:
        options["indices_out"] = cli.file("indices")
    if not cli.run(case, cli_argv("sort", **options)):
        return
    bits_mode = "bits" if fmt == "binary" else "exact"
    check_array(case, "keys", cli.read(out, keys.dtype, fmt), keys[order], bits_mode)
    if values is not None:
        check_array(case, "values", cli.read(options["values_out"], values.dtype, fmt), values[order], bits_mode)
    elif "indices_out" in options:
        check_array(case, "indices", cli.read(options["indices_out"], np.uint32, fmt), order.astype(np.uint32))


def cli_histogram(case, rng, cli):
    cli_type = str(rng.choice(["u32", "i32", "f32"]))
    fmt = draw_format(rng)
    values, _ = cli_data(case, rng, cli_type, pattern="small" if rng.random() < 0.5 else None)
    inp = cli.file("in")
    cli.write(inp, values, fmt)
    closed = bool(rng.random() < 0.5)
    options = dict(type=cli_type, input=inp, format=fmt, closed=closed, counts=str(rng.choice(["u32", "u64"])),
                   verify=True)
    bins, rng_arg = draw_bins_range(rng, values)
    if isinstance(bins, (list, np.ndarray)) and np.size(bins) >= 2:
        edges = np.asarray(bins, np.float64)
        edges_file = cli.file("edges.txt")
        cli.write(edges_file, edges, "text")
        options["edges"] = edges_file
        good = bool(np.all(np.diff(edges) >= 0))
    else:
        count = bins if isinstance(bins, int) and bins > 0 else int(rng.integers(1, 100))
        lo, hi = rng_arg if rng_arg is not None else (float(np.nanmin(values)) if values.size else 0.0,
                                                      float(np.nanmax(values)) + 1 if values.size else 1.0)
        options.update(bins=count, lower=repr(float(lo)), upper=repr(float(hi)))
        lo, hi = float(lo), float(hi)
        good = bool(np.isfinite(lo) and np.isfinite(hi) and lo < hi)  # CLI even bins: a finite, non-empty range
        # The CLI's even edges (docs/histogram.md): lower + (upper - lower) * i / n in double, the last one
        # upper; numpy's linspace rounds some of them differently, and for float32 samples numpy compares in
        # float32 against edges rounded to float32, where the CLI compares each sample with the double edge.
        edges = np.array([lo + (hi - lo) * i / count for i in range(count)] + [hi]) if good else None
    argv = cli_argv("histogram", **options)
    if not good:
        return cli.refuses(case, argv, (1, 2))
    proc = cli.run(case, argv)
    if not proc:
        return
    # numpy.histogram with the CLI's edges, on the samples as doubles (exact for u32, i32 and f32)
    want, _ = np.histogram(values.astype(np.float64), bins=edges)
    if not closed:  # the last bin without its upper edge
        want[-1] -= np.count_nonzero(values.astype(np.float64) == edges[-1])
    check_array(case, "counts", cli.parse(proc.stdout.decode(), np.int64, "text"), want.astype(np.int64))


CLI_TARGETS = {
    "cli-scan": cli_scan,
    "cli-reduce": cli_reduce,
    "cli-compact": lambda c, r, d: cli_compact(c, r, d, False),
    "cli-unique": lambda c, r, d: cli_compact(c, r, d, True),
    "cli-rle": cli_rle,
    "cli-sort": cli_sort,
    "cli-histogram": cli_histogram,
}


# --- the run ----------------------------------------------------------------------------------------------

class Runner:
    def __init__(self, options):
        self.options = options
        # Context methods run on the default Context (validated under GPUSCAN_VALIDATE=1), the same object
        # the module-level functions use: one set of pipelines to build instead of two.
        self.ctx = gpuscan.default_context()
        self.timings = {}
        self.cli = CliDriver(options.cli) if options.cli else None
        names = list(PY_TARGETS) + (list(CLI_TARGETS) if self.cli else [])
        if options.only:
            wanted = options.only.split(",")
            unknown = [w for w in wanted if w not in PY_TARGETS and w not in CLI_TARGETS]
            if unknown:
                sys.exit(f"--only: unknown target(s) {unknown}; targets: {', '.join(list(PY_TARGETS) + list(CLI_TARGETS))}")
            names = [n for n in names if n in wanted]
        self.py_names = [n for n in names if n in PY_TARGETS]
        self.cli_names = [n for n in names if n in CLI_TARGETS]
        if not self.py_names and not self.cli_names:
            sys.exit("no targets to run (CLI targets need --cli)")
        self.passed = self.failed = self.skipped = 0
        self.classes = {}

    def pick(self, rng):
        if self.cli_names and (not self.py_names or rng.random() < self.options.cli_rate):
            return str(rng.choice(self.cli_names))
        return str(rng.choice(self.py_names))

    def replay_command(self, token):
        env = [f"PYTHONPATH={os.environ['PYTHONPATH']}"] if os.environ.get("PYTHONPATH") else []
        env += ["GPUSCAN_VALIDATE=1"] if os.environ.get("GPUSCAN_VALIDATE") == "1" else []
        parts = env + [sys.executable, sys.argv[0], "--replay", token]
        if self.options.cli:
            parts += ["--cli", self.options.cli]
        if self.options.only:
            parts += ["--only", self.options.only]
        if self.options.cli_rate != DEFAULT_CLI_RATE:
            parts += ["--cli-rate", str(self.options.cli_rate)]
        return " ".join(parts)

    def run_case(self, seed, index):
        rng = np.random.default_rng([seed, index])
        target = self.pick(rng)
        start = time.monotonic()
        try:
            self.run_target(seed, index, rng, target)
        finally:
            count, seconds = self.timings.get(target, (0, 0.0))
            self.timings[target] = (count + 1, seconds + time.monotonic() - start)

    def run_target(self, seed, index, rng, target):
        case = Case(seed, index, target)
        if self.options.trace:
            print(f"case {case.token} {target}", flush=True)
        try:
            if target in CLI_TARGETS:
                CLI_TARGETS[target](case, rng, self.cli)
            else:
                via_context = rng.random() < 0.5
                fn = getattr(self.ctx if via_context else gpuscan, target)
                case.target = ("Context." if via_context else "gpuscan.") + target
                PY_TARGETS[target](case, rng, fn)
                messages = self.ctx.take_validation_messages()
                if messages:
                    case.fail("validation", f"{len(messages)} validation message(s): {messages[0][:300]}")
                for arg, snapshot in case.inputs:
                    if arg.tobytes() != snapshot:
                        case.fail("mutated-input", "the input array changed")
        except Skip as why:
            self.skipped += 1
            if self.options.verbose:
                print(f"skip {case.token} {case.target}: {why}")
            return
        except Exception as e:  # noqa: BLE001 -- the fuzzer's own failure, reported as such
            import traceback
            case.fail("fuzzer-error", "".join(traceback.format_exception(e))[-1500:])
        if not case.failures:
            self.passed += 1
            return
        self.failed += 1
        for kind, _ in case.failures:
            key = (target, kind)
            self.classes.setdefault(key, []).append(case.token)
        kinds = ", ".join(sorted({k for k, _ in case.failures}))
        print(f"FAIL [{kinds}] {case.target} (case {case.token})")
        print(f"  call: {case.call}")
        print(f"  data:{case.data}")
        for kind, text in case.failures:
            print(f"  {kind}: {text}")
        print(f"  replay: {self.replay_command(case.token)}", flush=True)


def main():
    global DEFAULT_CLI_RATE
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cli", help="the gpuscan executable (CLI cases are left out without it)")
    parser.add_argument("--seed", type=lambda s: int(s, 0), help="the run's seed (default: GPUSCAN_SEED, else fresh)")
    parser.add_argument("--cases", type=int, default=DEFAULT_CASES, help=f"cases to run (default {DEFAULT_CASES})")
    parser.add_argument("--long", action="store_true", help=f"run {LONG_CASES} cases")
    parser.add_argument("--only", help="comma-separated targets to draw from (Python names or 'cli-...')")
    parser.add_argument("--replay", metavar="S:I", help="run case I of seed S alone")
    parser.add_argument("--shard", metavar="K/N", help="run only the cases whose index is K modulo N (0 <= K < N), "
                        "so that N processes with the same seed share one run's cases")
    parser.add_argument("--cli-rate", type=float, default=DEFAULT_CLI_RATE,
                        help=f"the share of cases that run the CLI (default {DEFAULT_CLI_RATE})")
    parser.add_argument("--trace", action="store_true", help="print each case's token before it runs")
    parser.add_argument("--verbose", action="store_true", help="also print skipped cases")
    parser.add_argument("--keep-files", action="store_true", help="keep the CLI cases' files (with --replay)")
    options = parser.parse_args()
    np.seterr(all="ignore")  # numpy's references overflow and meet NaN by design
    warnings.simplefilter("ignore", RuntimeWarning)
    if os.environ.get("GPUSCAN_VALIDATE") != "1":
        print("note: GPUSCAN_VALIDATE is not 1, so the module-level functions run without the validation layer")
    if options.replay:
        seed, index = (int(t, 0) for t in options.replay.split(":"))
        indices = [index]
    else:
        env_seed = os.environ.get("GPUSCAN_SEED")
        seed = options.seed if options.seed is not None else \
            int(env_seed, 0) if env_seed else int.from_bytes(os.urandom(4), "little")
        indices = range(LONG_CASES if options.long else options.cases)
        if options.shard:
            k, n = (int(t) for t in options.shard.split("/"))
            if not 0 <= k < n:
                parser.error(f"--shard {options.shard}: K/N needs 0 <= K < N")
            indices = indices[k::n]
    print(f"seed {seed} (GPUSCAN_SEED={seed} or --seed {seed} replays this run)", flush=True)
    runner = Runner(options)
    start = time.monotonic()
    try:
        for i in indices:
            runner.run_case(seed, i)
    finally:
        if runner.cli and not options.keep_files:
            runner.cli.close()
        elif runner.cli:
            print(f"CLI files kept in {runner.cli.dir}")
    elapsed = time.monotonic() - start
    runner.ctx.close()  # the layer's messages at shutdown count too
    shutdown = runner.ctx.take_validation_messages()
    if shutdown:
        runner.failed += 1
        runner.classes.setdefault(("shutdown", "validation"), []).append("-")
        print(f"FAIL [validation] closing the Context: {len(shutdown)} message(s): {shutdown[0][:300]}")
    if runner.classes:
        print("failure classes (target, kind: cases):")
        for (target, kind), tokens in sorted(runner.classes.items()):
            print(f"  {target}, {kind}: {len(tokens)} (first {tokens[0]})")
    total = runner.passed + runner.failed + runner.skipped
    if options.verbose:
        for target, (count, seconds) in sorted(runner.timings.items(), key=lambda t: -t[1][1]):
            print(f"  {target}: {count} cases, {seconds:.1f} s")
    print(f"{total} cases in {elapsed:.1f} s ({total / max(elapsed, 1e-9):.1f} cases/s)")
    print(f"{runner.passed} passed, {runner.failed} failed, {runner.skipped} skipped", flush=True)
    return 1 if runner.failed else 0


if __name__ == "__main__":
    sys.exit(main())
