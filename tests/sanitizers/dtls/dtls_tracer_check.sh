#!/usr/bin/env bash
# dtls_tracer_check.sh CXX WORKDIR: checks that the sanitizer run's ASAN_OPTIONS (scripts/test.sh) keep
# LeakSanitizer's exit check from crashing on dynamic TLS.
#
# GCC 12's sanitizer runtime (Debian 12's libasan 8) intercepts __tls_get_addr and, for a dynamic TLS
# block whose address is 16 bytes past a 4 KiB boundary, takes the two words before it for a glibc 2.19
# header {start, size} and records that range as the thread's TLS. glibc has written no such header
# since 2.25: the words are AddressSanitizer's own chunk header (the runtime prints "glibc >=2.19
# suspected; tls={0x300000018 0x2800001102}" at verbosity 2), and when LeakSanitizer scans that range at
# exit its stop-the-world tracer faults ("Tracer caught signal 11: addr=0x100000018") and the process
# fails after a correct run. Mesa's dlopen'd drivers give llvmpipe's threads such blocks, so gpuscan
# processes that ran OpenGL failed so now and then. ASAN_OPTIONS=intercept_tls_get_addr=0 turns the
# interception off; LeakSanitizer still reaches dynamic TLS blocks as heap blocks through glibc's dtv.
#
# The check: the program above crashes with the interception on (else this runtime is not affected and
# the check says so), and exits 0, with no leak reported, under the inherited ASAN_OPTIONS.
set -u
cxx=$1; work=$2; here=$(dirname "$0")
mkdir -p "$work" || exit 1
"$cxx" -O1 -g -fsanitize=address -fPIC -shared -o "$work/libtls_module.so" "$here/tls_module.cpp" || exit 1
"$cxx" -O1 -g -fsanitize=address -o "$work/threads_at_exit" "$here/threads_at_exit.cpp" -ldl -lpthread || exit 1
run() { ASAN_OPTIONS="$1" "$work/threads_at_exit" "$work/libtls_module.so" 64 >"$work/out.log" 2>"$work/err.log"; }
run "${ASAN_OPTIONS:-}:detect_leaks=1:intercept_tls_get_addr=1"
if grep -q 'Tracer caught signal' "$work/err.log"; then
  echo "control: with __tls_get_addr intercepted, LeakSanitizer's tracer crashes (this runtime is affected)"
else
  echo "control: no tracer crash with __tls_get_addr intercepted (this runtime is not affected)"
fi
if ! run "${ASAN_OPTIONS:-}:detect_leaks=1" || grep -q 'Tracer caught signal\|LeakSanitizer' "$work/err.log"; then
  echo "FAIL: under ASAN_OPTIONS='${ASAN_OPTIONS:-}' the exit check crashed or reported:"
  cat "$work/err.log"
  exit 1
fi
echo "ok: ASAN_OPTIONS='${ASAN_OPTIONS:-}' keeps LeakSanitizer's exit check working with dynamic TLS"
