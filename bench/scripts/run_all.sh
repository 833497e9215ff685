#!/usr/bin/env bash
# Runs every benchmark of gpuscan on one machine and writes the CSVs, the tables and the plots that
# bench/RESULTS.md shows (docs/bench.md, "One run of everything").
#
#   bench/scripts/run_all.sh [options] BUILD_DIR OUT_DIR [CUB_BINARY]
#
# BUILD_DIR holds gpuscan_bench, gpuscan_huge_bench and, where built, gpuscan_gl_bench (directly or
# under bench/). CUB_BINARY is bench/cub/cub_scan_bench.cu built by bench/cub/build.sh; without it the
# tables have no CUB column. Runs anywhere a Vulkan device is present; set up loaders and drivers first
# (on the H200 machine: `. bench/scripts/h200_env.sh`).
#
# What runs, each binary's return code and time going to OUT_DIR/run.txt:
#   1. CPU-checked passes (few runs, short warm-up): every scan case at 2^12..2^24 step 4, every
#      compaction case at the same sizes (verify_scan.csv, verify_compact.csv).
#   2. Timed scans without CPU checks, exclusive and inclusive, every algorithm, 2^MIN..2^MAX step 2:
#      the integer types in one process (scan_int.csv), the float types in another, with
#      single-pass-ordered, the deterministic look-back, too (scan_float.csv); each file has the GLSL
#      copy roofline of its own process.
#   3. Timed compaction: select-if and select-flagged at --densities percent kept, three-pass and
#      single-pass, 2^(MAX-16)..2^MAX step 4 (compact.csv).
#   4. CUB, if given: DeviceScan u32/f32/u64 both kinds with cudaMemcpy at the scans' sizes
#      (cub_scan.csv), DeviceSelect If/Flagged at the compaction's (cub_compact.csv); CUB checks every
#      case itself.
#   5. Scans past one binding (gpuscan_huge_bench, checked on the GPU): sizes whose two buffers fit in
#      the device's memory (nvidia-smi), through bindings, and the largest through device addresses
#      (huge_bindings.csv, huge_device_address.csv).
#   6. OpenGL, if gpuscan_gl_bench was built: a CPU-checked pass and a timed one of u32 (verify_gl.csv,
#      gl.csv).
#   7. compare.py's tables (tables.md), results_md.py's RESULTS.md section (results.md), plot.py's plots.
#
# Options:
#   --types LIST      scan types, comma-separated (default u32,f32,u64,f64; also i32, i64)
#   --min-log2 N      smallest timed size (default 10)
#   --max-log2 N      largest timed size (default 28)
#   --runs N          timed runs per case (default 30)
#   --densities LIST  compaction: percent kept (default 1,50; 99 adds about a minute on an H200)
#   --huge-log2 LIST  sizes for gpuscan_huge_bench (default: 31 and 33 as memory allows)
#   --skip LIST       leave out steps: verify, scan, compact, cub, huge, gl, plots
# Environment: PYTHON (default python3), GPUSCAN_COMMIT (recorded in run.txt; else git's HEAD if any).
# Exit status 0 only if every binary returned 0 and no log names a mismatch or an error.
set -uo pipefail

usage() { sed -n '2,/^set -uo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; }

here=$(cd "$(dirname "$0")" && pwd)
invocation="bench/scripts/run_all.sh $*"
types=u32,f32,u64,f64
min_log2=10 max_log2=28 runs=30 densities=1,50 huge_log2="" skip=""
while [ $# -gt 0 ]; do
  case $1 in
    --types) types=$2; shift 2 ;;
    --min-log2) min_log2=$2; shift 2 ;;
    --max-log2) max_log2=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --densities) densities=$2; shift 2 ;;
    --huge-log2) huge_log2=$2; shift 2 ;;
    --skip) skip=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    --*) echo "run_all.sh: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
if [ $# -lt 2 ] || [ $# -gt 3 ]; then usage >&2; exit 2; fi
build=$1 out=$2 cub=${3:-}
py=${PYTHON:-python3}
skipped() { [[ ",$skip," == *",$1,"* ]]; }

find_bin() {  # the path of binary $1 in the build directory, or nothing
  local f
  for f in "$build/bench/$1" "$build/$1"; do
    [ -x "$f" ] && { echo "$f"; return; }
  done
}
bench=$(find_bin gpuscan_bench)
huge=$(find_bin gpuscan_huge_bench)
gl=$(find_bin gpuscan_gl_bench)
if [ -z "$bench" ]; then echo "run_all.sh: no gpuscan_bench in $build or $build/bench" >&2; exit 2; fi
if [ -n "$cub" ] && [ ! -x "$cub" ]; then echo "run_all.sh: $cub is not an executable" >&2; exit 2; fi
mkdir -p "$out" || exit 2
rm -f "$out"/*.log  # the logs are appended to, and searched for problems below

# run.txt: what the generator (results_md.py) reads besides the CSVs' own metadata.
meta="$out/run.txt"
commit=${GPUSCAN_COMMIT:-$(git -C "$here" describe --always --dirty 2>/dev/null || echo unknown)}
gpu="" driver=""
if command -v nvidia-smi > /dev/null; then
  IFS=, read -r gpu driver < <(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader -i 0 2>/dev/null)
  driver=${driver# }
fi
if [ -z "$driver" ] && command -v vulkaninfo > /dev/null; then
  driver=$(vulkaninfo --summary 2>/dev/null | sed -n 's/^ *driverInfo *= *//p' | head -n 1)
fi
{
  echo "# run_all.sh: one run of every benchmark (docs/bench.md)"
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "command: $invocation"
  echo "gpuscan commit: $commit"
  echo "host: $(uname -n) ($(nproc) cores)"
  [ -n "$gpu" ] && echo "gpu: $gpu"
  echo "driver: ${driver:-unknown}"
} > "$meta"

failures=0
# step FILE LOG [--stdout] COMMAND...: runs COMMAND with its output to LOG (with --stdout, its standard
# output to FILE: gpuscan_huge_bench writes its CSV there), records its command line, return code and
# seconds in run.txt under FILE's name, and prints one line.
step() {
  local file=$1 log=$out/$2 t0=$SECONDS rc shown
  shift 2
  if [ "$1" = --stdout ]; then
    shift
    "$@" > "$out/$file" 2>> "$log"
  else
    "$@" >> "$log" 2>&1
  fi
  rc=$?
  shown="$(basename "$1") ${*:2}"
  {
    echo "command $file: ${shown//"$out/"/}"
    echo "rc $file: $rc"
    echo "seconds $file: $((SECONDS - t0))"
  } >> "$meta"
  printf '%-26s rc=%-3s %4d s  (total %d s)\n' "$file" "$rc" $((SECONDS - t0)) "$SECONDS"
  [ "$rc" -eq 0 ] || failures=$((failures + 1))
}

algorithms=single-pass,reduce-then-scan,multipass-subgroup,multipass-blelloch
all_algorithms=single-pass,single-pass-ordered,reduce-then-scan,multipass-subgroup,multipass-blelloch
pick() { echo "$types" | tr , '\n' | grep -xE "$1" | paste -sd,; }  # the --types that match $1
int_types=$(pick 'u32|i32|u64|i64')
float_types=$(pick 'f32|f64')
# shellcheck disable=SC2054  # the commas belong to the options' values
compact=(--ops select-if,select-flagged --densities "$densities" --compact-algorithms three-pass,single-pass)
# shellcheck disable=SC2054
copy=(--copy-workgroup-sizes 512 --copy-vectors 4)
sizes=(--min-log2 "$min_log2" --max-log2 "$max_log2" --step 2)
compact_min=$((max_log2 - 16 > min_log2 ? max_log2 - 16 : min_log2))
compact_sizes=(--min-log2 "$compact_min" --max-log2 "$max_log2" --step 4)
check=(--min-log2 12 --max-log2 $((max_log2 < 24 ? max_log2 : 24)) --step 4 --runs 3 --warmup 1 --warmup-ms 20)

echo "run_all.sh: $bench${cub:+, $cub}${huge:+, $huge}${gl:+, $gl} -> $out"
if ! skipped verify; then
  step verify_scan.csv verify_scan.log "$bench" "${check[@]}" --types "$types" --kinds exclusive,inclusive \
    --algorithms "$all_algorithms" --csv "$out/verify_scan.csv"
  step verify_compact.csv verify_compact.log "$bench" "${check[@]}" "${compact[@]}" --csv "$out/verify_compact.csv"
fi
if ! skipped scan; then
  [ -n "$int_types" ] && step scan_int.csv scan_int.log "$bench" "${sizes[@]}" --runs "$runs" --no-verify \
    --types "$int_types" --kinds exclusive,inclusive --algorithms "$algorithms" "${copy[@]}" --csv "$out/scan_int.csv"
  [ -n "$float_types" ] && step scan_float.csv scan_float.log "$bench" "${sizes[@]}" --runs "$runs" --no-verify \
    --types "$float_types" --kinds exclusive,inclusive --algorithms "$all_algorithms" "${copy[@]}" \
    --csv "$out/scan_float.csv"
fi
if ! skipped compact; then
  step compact.csv compact.log "$bench" "${compact_sizes[@]}" --runs "$runs" --no-verify "${compact[@]}" \
    "${copy[@]}" --csv "$out/compact.csv"
fi
if [ -n "$cub" ] && ! skipped cub; then
  cub_types=$(pick 'u32|f32|u64')  # what cub_scan_bench offers
  [ -n "$cub_types" ] && step cub_scan.csv cub.log "$cub" --sizes "$(seq -s, -f '2^%g' "$min_log2" 2 "$max_log2")" \
    --types "$cub_types" --kinds exclusive,inclusive --runs "$runs" --warmup 3000 --csv "$out/cub_scan.csv"
  step cub_compact.csv cub.log "$cub" --sizes "$(seq -s, -f '2^%g' "$compact_min" 4 "$max_log2")" --selects if,flagged \
    --densities "$densities" --select-only --runs "$runs" --warmup 3000 --csv "$out/cub_compact.csv"
fi
if [ -n "$huge" ] && ! skipped huge; then
  if [ -z "$huge_log2" ]; then
    # Two buffers of 2^k u32 and a margin must fit: 2^31 needs 16 GiB, 2^33 64 GiB.
    mib=$(nvidia-smi --query-gpu=memory.total --format=csv,noheader,nounits -i 0 2>/dev/null | tr -dc 0-9)
    huge_log2=31
    [ -n "$mib" ] && [ "$mib" -lt 18000 ] && huge_log2=""
    [ -n "$mib" ] && [ "$mib" -ge 72000 ] && huge_log2=31,33
  fi
  if [ -n "$huge_log2" ]; then
    step huge_bindings.csv huge.log --stdout "$huge" --log2 "$huge_log2" --runs 10
    step huge_device_address.csv huge.log --stdout "$huge" --log2 "${huge_log2##*,}" --runs 10 \
      --addressing device_address --algorithms auto,reduce-then-scan,multipass
  else
    echo "huge: the device has too little memory for 2^31 u32 twice (${mib:-?} MiB); left out" | tee -a "$meta"
  fi
fi
if [ -n "$gl" ] && ! skipped gl; then
  gl_max=$((max_log2 < 28 ? max_log2 : 28))
  skipped verify || step verify_gl.csv verify_gl.log "$gl" --min-log2 12 --max-log2 $((gl_max < 24 ? gl_max : 24)) \
    --step 4 --runs 3 --warmup 1 --warmup-ms 20 --types u32 --kinds exclusive,inclusive --csv "$out/verify_gl.csv"
  step gl.csv gl.log "$gl" --min-log2 "$min_log2" --max-log2 "$gl_max" --step 2 --runs "$runs" --no-verify \
    --types u32 --kinds exclusive,inclusive --csv "$out/gl.csv"
fi

# Honesty: every log line that names a mismatch or an error, and every huge row with mismatches.
problems=$(cd "$out" && grep -HiE "mismatch|error|fail" ./*.log 2>/dev/null | grep -v "0 mismatches" | head -n 40)
for f in "$out"/huge_*.csv; do
  [ -f "$f" ] && problems+=$(awk -F, -v f="$(basename "$f")" '$1 ~ /^[0-9]+$/ && $8 != 0 { printf "\n%s: %s", f, $0 }' "$f")
done
if [ -n "$problems" ]; then
  failures=$((failures + 1))
  echo "PROBLEMS:"
  echo "$problems"
  echo "problems: $(echo "$problems" | grep -c .) lines (see the logs)" >> "$meta"
fi
echo "seconds: $SECONDS" >> "$meta"
echo "failures: $failures" >> "$meta"

# Tables and plots from what was written.
# compare.py's full tables: each gpuscan file with its own copy roofline, CUB beside it, limited to the
# file's types and kinds (CUB's other rows would make tables of their own).
sel() { awk -F, -v c="$2" '$1 == "gpuscan-vulkan" { print $c }' "$1" | sort -u | paste -sd,; }
cubs=()
for c in "$out"/cub_*.csv; do [ -f "$c" ] && cubs+=("$c"); done
: > "$out/tables.md"
for f in "$out"/scan_*.csv "$out"/compact.csv; do
  [ -n "$(sel "$f" 3 2>/dev/null)" ] || continue
  "$py" "$here/compare.py" "$f" "${cubs[@]}" --types "$(sel "$f" 3)" --kinds "$(sel "$f" 4)" \
    >> "$out/tables.md" 2>> "$out/compare.txt" || echo "compare.py $(basename "$f") failed (compare.txt)"
done
"$py" "$here/results_md.py" "$out" --md "$out/results.md" > /dev/null || echo "results_md.py failed"
if ! skipped plots; then
  plot() {  # plot TYPE KIND FILE...
    local t=$1 k=$2
    shift 2
    local files=()
    for f in "$@"; do [ -f "$out/$f" ] && files+=("$out/$f"); done
    [ -f "${files[0]:-}" ] || return 0
    "$py" "$here/plot.py" "${files[@]}" --type "$t" --kind "$k" --out "$out/${t}_${k%\%}.png" > /dev/null \
      2>> "$out/plot.txt" || echo "plot $t $k failed (plot.txt)"
  }
  for t in u32 u64; do
    for k in exclusive inclusive; do plot "$t" "$k" scan_int.csv cub_scan.csv; done
  done
  for k in exclusive inclusive; do plot f32 "$k" scan_float.csv cub_scan.csv; done
  for k in select-if-50% select-flagged-50%; do plot u32 "$k" compact.csv cub_compact.csv; done
fi
echo "run_all.sh: $failures failure(s), $SECONDS s; $out/results.md, $out/run.txt"
[ "$failures" -eq 0 ]
