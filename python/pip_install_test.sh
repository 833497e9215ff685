#!/usr/bin/env bash
# `pip install .` as a user runs it, offline: a fresh venv that sees the system's packages (numpy,
# setuptools), `pip install --no-build-isolation --no-index <checkout>`, then `import gpuscan` from another
# directory with no PYTHONPATH, checked against numpy on fresh random data.
#   pip_install_test.sh <checkout> <python> <work dir> [<CMake build dir to reuse>]
# With a build dir, setup.py builds its gpuscan_python target instead of configuring a build of its own
# (the ctest passes the tree it runs in, built for the same interpreter); without, the build is the one a
# user's `pip install .` makes.
set -euo pipefail
src=$1 python=$2 work=$3 reuse=${4:-}
rm -rf "$work"
mkdir -p "$work"
"$python" -m venv --system-site-packages "$work/venv"
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1
if [ -n "$reuse" ]; then export GPUSCAN_CMAKE_BUILD_DIR=$reuse; fi
if ! "$work/venv/bin/pip" install --no-build-isolation --no-index "$src" > "$work/pip.log" 2>&1; then
  cat "$work/pip.log"
  exit 1
fi
cd "$work"
env -u PYTHONPATH "$work/venv/bin/python" - <<'PY'
import os, sys
import numpy as np
import gpuscan

where = os.path.realpath(gpuscan.__file__)
venv = os.path.realpath(sys.prefix)
assert where.startswith(venv + os.sep), f"gpuscan came from {where}, not the venv {venv}"
seed = int(os.environ.get("GPUSCAN_SEED", np.random.SeedSequence().entropy % 2**32))
print(f"seed {seed} (GPUSCAN_SEED={seed} replays it); module {where}")
rng = np.random.default_rng(seed)
# Whole numbers of magnitude below 1000, at most 5000 of them: every partial sum is exact in float32
# too (below 2^24), so the GPU's summation order cannot change a bit and the comparison is exact.
for dtype in (np.int32, np.uint32, np.float32):
    n = int(rng.integers(0, 5000))
    a = rng.integers(0 if dtype == np.uint32 else -1000, 1000, n).astype(dtype)
    want = np.cumsum(np.sort(a, kind="stable"))
    got = gpuscan.cumsum(gpuscan.sort(a))
    assert got.dtype == want.dtype, (dtype, got.dtype, want.dtype)
    assert np.array_equal(got, want), (dtype, n)
    on_device = gpuscan.cumsum(gpuscan.sort(gpuscan.asarray(a)))  # the same chain on device arrays
    assert isinstance(on_device, gpuscan.DeviceArray), type(on_device)
    assert on_device.dtype == want.dtype and np.array_equal(on_device.get(), want), (dtype, n)
print("pip install . works: import gpuscan from the venv, sort and cumsum equal numpy's, on numpy and device arrays")
PY
