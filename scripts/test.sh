#!/usr/bin/env bash
# Quick start, part 2: install, build everything, and run the whole test suite (CI runs exactly this).
#   bash scripts/test.sh          every suite; at lavapipe subgroup sizes 4 and 16 only the GPU suites the
#                                 subgroup size can change (tests/CMakeLists.txt says which)
#   bash scripts/test.sh --full   every GPU suite at every size (GPUSCAN_FULL_TESTS)
# Phases: install, build, ctest, consumers, sanitizers; each one's time is printed as it ends and all of
# them at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
full=OFF
for arg in "$@"; do
  case "$arg" in
    --full) full=ON ;;
    *) echo "usage: bash scripts/test.sh [--full]" >&2; exit 2 ;;
  esac
done
phase_start=$SECONDS
phase_times=""
phase_end() {  # phase_end NAME: records and prints the time since the last phase ended
  local took=$((SECONDS - phase_start))
  phase_times+="$1 ${took} s; "
  echo "=== phase $1: ${took} s"
  phase_start=$SECONDS
}
bash scripts/install-deps.sh
phase_end install
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGPUSCAN_FULL_TESTS=$full
cmake --build build
phase_end build
# The stress test with 100 scans (the tests' default 200; the sanitizer phase runs 20).
GPUSCAN_STRESS_COUNT=100 ctest --test-dir build --output-on-failure --timeout 1800 -j 2
phase_end ctest

# Consumers (tests/consumer) of the INSTALLED tree: a CMake project through find_package(gpuscan CONFIG) and a
# program built with pkg-config; and of the source tree: a project that pulls gpuscan in with FetchContent.
# Each scans on the default device and checks the result.
prefix="$PWD/build/install"
rm -rf "$prefix" build/consumer build/consumer-fetch
cmake --install build --prefix "$prefix"
passed=0
failed=0
consumer_check() {  # consumer_check NAME COMMAND...: runs the command, counts it
  echo "--- consumer: $1"
  if "${@:2}"; then
    passed=$((passed + 1))
  else
    echo "--- consumer: $1 FAILED"
    failed=$((failed + 1))
  fi
}
cmake_consumer() {
  cmake -S tests/consumer -B build/consumer -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DCMAKE_PREFIX_PATH="$prefix" &&
    cmake --build build/consumer &&
    build/consumer/gpuscan_consumer
}
pkgconfig_consumer() {
  local pc
  pc="$(find "$prefix" -name gpuscan.pc -path '*/pkgconfig/*' | head -n 1)"
  [ -n "$pc" ] || { echo "no gpuscan.pc under $prefix"; return 1; }
  local flags version libdir
  local -x PKG_CONFIG_PATH="$(dirname "$pc")${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
  flags="$(pkg-config --cflags --libs gpuscan)" &&
    version="$(pkg-config --modversion gpuscan)" &&
    libdir="$(pkg-config --variable=libdir gpuscan)" || return 1
  mkdir -p build/consumer &&
    # shellcheck disable=SC2086  # flags is a list of words; the rpath matters only for a shared libgpuscan
    c++ -std=c++20 -O1 -DGPUSCAN_PACKAGE_VERSION="\"$version\"" tests/consumer/pkgconfig_main.cpp $flags \
        -Wl,-rpath,"$libdir" -o build/consumer/gpuscan_pkgconfig_consumer &&
    build/consumer/gpuscan_pkgconfig_consumer
}
fetchcontent_consumer() {  # gpuscan built inside the consumer's own build (FetchContent -> add_subdirectory)
  cmake -S tests/consumer/fetchcontent -B build/consumer-fetch -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DGPUSCAN_SOURCE_DIR="$PWD" &&
    cmake --build build/consumer-fetch &&
    build/consumer-fetch/gpuscan_consumer
}
consumer_check "find_package(gpuscan CONFIG)" cmake_consumer
consumer_check "pkg-config gpuscan" pkgconfig_consumer
consumer_check "FetchContent / add_subdirectory" fetchcontent_consumer
echo "consumer: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
phase_end consumers

# Reliability: the library, the CLI and the tests built with AddressSanitizer + UndefinedBehaviorSanitizer
# (GPUSCAN_SANITIZE) in build-asan, and the unit, CLI, GPU, thread and soak tests run there on lavapipe.
# Any ASan/UBSan/LSan report fails its test. LeakSanitizer ignores only the validation layer's own leaks
# (tests/sanitizers/lsan.supp says why); keep_vulkan_modules.so keeps the driver and the layer mapped until
# LeakSanitizer runs at exit, so that their stacks can be named (its comment says why; being preloaded,
# ASan must not insist on coming first). To keep CI time down, the GPU tests run at one subgroup size
# (8: LP_NATIVE_VECTOR_WIDTH=256; every *_subgroup_4 and *_subgroup_16 entry is left out), without the
# long scan-layout and determinism sweeps, the 8-byte compaction instances (tests/CMakeLists.txt), the
# CLI's sweeps over every type and its comparisons of the two APIs (the same commands the other CLI tests
# run, twice: 87 s of the phase's CLI tests), and the examples, and the stress test with 20 scans: all
# of these repeat host code that the remaining tests run; nor the checks whose verdict
# is another tool's (spirv-val, glslang, a CMake configure, a header compile). The plain build above runs
# them all, and fills Mesa's shader cache with the same pipelines first: in this build the cache was read
# but, cold, helped nothing (gpu_subgroup_8: 1363 s cold, 301 s after the plain build's tests, 2 cores).
# gpuscan::mpi is left out of this build: its tests run under mpirun, and Open MPI's runtime under
# LeakSanitizer has not been tried; the plain build above runs them.
# -O1 -g1 (the flags AddressSanitizer's documentation suggests, and line tables enough for its stacks): a
# test file compiled in 30 s instead of 51 s at -O2 -g. The GPU-driving test programs compile at -Og there
# (tests/CMakeLists.txt says why).
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
      -DGPUSCAN_SANITIZE=ON -DGPUSCAN_BUILD_BENCH=OFF -DGPUSCAN_BUILD_PYTHON=OFF -DGPUSCAN_BUILD_MPI=OFF -DGPUSCAN_BUILD_EXAMPLES=OFF
cmake --build build-asan
c++ -std=c++20 -O1 -shared -fPIC -o build-asan/keep_vulkan_modules.so tests/sanitizers/keep_vulkan_modules.cpp -ldl
(
  export LD_PRELOAD="$PWD/build-asan/keep_vulkan_modules.so"
  # intercept_tls_get_addr=0: GCC 12's runtime took some of llvmpipe's dynamic TLS blocks for glibc 2.19
  # ones and recorded AddressSanitizer's chunk headers as TLS ranges, whose scan at exit crashed
  # LeakSanitizer's stop-the-world ("Tracer caught signal 11") after correct runs of processes that ran
  # OpenGL. tests/sanitizers/dtls/dtls_tracer_check.sh reproduces it and checks these options
  # (ctest sanitizer_dtls_tracer).
  export ASAN_OPTIONS="detect_leaks=1:halt_on_error=1:verify_asan_link_order=0:intercept_tls_get_addr=0"
  export LSAN_OPTIONS="suppressions=$PWD/tests/sanitizers/lsan.supp:print_suppressions=0"
  export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
  export GPUSCAN_STRESS_COUNT=20
  left_out='_subgroup_(4|16)|^gpu_long_(scanlayout|determinism)_subgroup_8|^Reconvergence\.SpirvVal.*'
  left_out+='|^configure_optional_parts|^gl_sources_glslang|^neutral_headers'
  left_out+='|^cli\.CliTest\.(EachTypeAndOperatorVerifies|CompactSixtyFourBitTypes)|^cli\.(Api|Gl)ParityTest\..*'
  # With Mesa's on-disk shader cache: each test's Context builds its pipelines anew, and without the cache
  # lavapipe compiled them anew too (gpu_subgroup_8: 1300 s, 301 s with it warm).
  ctest --test-dir build-asan --output-on-failure --timeout 1800 -j 2 -E "(${left_out})\$"
)
phase_end sanitizers
echo "phases: $phase_times"
