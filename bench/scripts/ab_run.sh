#!/usr/bin/env bash
# Times the headline cases with two builds of gpuscan_bench in one process each, alternately (A B A B), and
# prints ab_table.py's table: scans (u32, f32, u64; add, and u32 with min and max) and compaction (select-if,
# select-flagged at 50 %) at 2^20, 2^24 and 2^28, with the copy roofline. The first round checks every
# result on the CPU; the second does not. Runs on any Vulkan device; the H200 figures in bench/RESULTS.md
# came from it.
#   bench/scripts/ab_run.sh A/gpuscan_bench B/gpuscan_bench OUT_DIR [gpuscan_bench options]
# The options replace the sizes and runs (default: --min-log2 20 --max-log2 28 --step 4 --runs 30).
set -uo pipefail
a=$1 b=$2 out=$3
shift 3
here=$(dirname "$0")
mkdir -p "$out"
sizes=(--min-log2 20 --max-log2 28 --step 4 --runs 30)
[ $# -gt 0 ] && sizes=("$@")
common=(--copy-workgroup-sizes 256 --copy-vectors 4 "${sizes[@]}")
for round in 1 2; do
  verify=()
  [ "$round" -gt 1 ] && verify=(--no-verify)
  for side in a b; do
    bench=$a
    [ "$side" = b ] && bench=$b
    "$bench" "${common[@]}" "${verify[@]}" --types u32,f32,u64 --kinds exclusive,inclusive \
      --algorithms single-pass,single-pass-ordered,reduce-then-scan --csv "$out/$side-scan-$round.csv" \
      2>> "$out/$side-log.txt" || echo "$side scan round $round: rc=$?"
    "$bench" "${common[@]}" "${verify[@]}" --types u32 --operators min,max --kinds exclusive \
      --algorithms single-pass,reduce-then-scan --csv "$out/$side-ops-$round.csv" 2>> "$out/$side-log.txt" \
      || echo "$side ops round $round: rc=$?"
    "$bench" "${common[@]}" "${verify[@]}" --ops select-if,select-flagged --densities 50 \
      --compact-algorithms three-pass,single-pass --csv "$out/$side-compact-$round.csv" 2>> "$out/$side-log.txt" \
      || echo "$side compact round $round: rc=$?"
    echo "round $round $side done ($SECONDS s)"
  done
done
grep -il "mismatch" "$out"/*-log.txt && echo "MISMATCHES: see the logs above"
for kind in scan ops compact; do
  python3 "$here/ab_table.py" "$out/a-$kind-1.csv,$out/a-$kind-2.csv" "$out/b-$kind-1.csv,$out/b-$kind-2.csv" \
    --md "$out/ab-$kind.md"
done
