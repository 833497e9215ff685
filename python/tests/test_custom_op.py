"""Custom operators from Python (gpuscan.custom_scan): GLSL snippets against a numpy reference."""

import os
import zlib

import numpy as np
import pytest

import gpuscan

SEED = int(os.environ.get("GPUSCAN_SEED", "0"), 0) or int.from_bytes(os.urandom(4), "little")

AFFINE = """struct Affine { uint a; uint b; };
#define T Affine
T identity() { return Affine(1u, 0u); }
T combine(T f, T g) { return Affine(g.a * f.a, g.a * f.b + g.b); }
"""


def affine_reference(maps, inclusive):
    """x -> a*x + b composed left to right (modulo 2^32), exclusive or inclusive."""
    out = np.empty_like(maps)
    a, b = np.uint64(1), np.uint64(0)
    mask = np.uint64(0xFFFFFFFF)
    for i, (ga, gb) in enumerate(maps.astype(np.uint64)):
        if not inclusive:
            out[i] = (a, b)
        a, b = (ga * a) & mask, (ga * b + gb) & mask
        if inclusive:
            out[i] = (a, b)
    return out


def test_documented_example():
    got = gpuscan.custom_scan(np.array([[2, 1], [3, 0], [1, 5]], np.uint32), AFFINE, inclusive=True)
    assert got.dtype == np.uint32 and got.tolist() == [[2, 1], [6, 3], [6, 8]]


@pytest.mark.parametrize("inclusive", [False, True])
@pytest.mark.parametrize("n", [0, 1, 511, 512, 513, 262_145])
def test_affine_rows_and_structured_dtype(n, inclusive):
    rng = np.random.default_rng([SEED, zlib.crc32(repr((n, inclusive)).encode())])
    maps = rng.integers(0, 2**32, (n, 2), dtype=np.uint32)
    expected = affine_reference(maps, inclusive)
    got = gpuscan.custom_scan(maps, AFFINE, inclusive=inclusive)
    assert got.shape == maps.shape and np.array_equal(got, expected), f"GPUSCAN_SEED={SEED}"
    structured = maps.view([("a", "<u4"), ("b", "<u4")]).reshape(n)
    got = gpuscan.custom_scan(structured, AFFINE, inclusive=inclusive)
    assert got.dtype == structured.dtype
    assert np.array_equal(got.view(np.uint32).reshape(n, 2), expected), f"GPUSCAN_SEED={SEED}"


def test_errors():
    with pytest.raises(gpuscan.Error) as e:
        gpuscan.custom_scan(np.zeros(3, np.uint32), "#define T uint\nT identity() { return 0u; }\n"
                            "T combine(T a, T b) { return a + oops; }\n")
    assert e.value.code == "compile_error" and "custom_op.glsl:3" in e.value.message
    with pytest.raises(gpuscan.Error) as e:  # 4-byte rows for an 8-byte T
        gpuscan.custom_scan(np.zeros(3, np.uint32), AFFINE)
    assert e.value.code == "invalid_argument" and "8 bytes" in e.value.message
