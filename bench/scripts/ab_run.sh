#!/usr/bin/env bash
# Times the headline cases with two builds of gpuscan_bench, alternately (A B A B) so that clock and thermal
# drift hit both, and prints ab_table.py's tables: scans (u32, u64: single-pass and reduce-then-scan; f32
# with both look-backs; u32 min and max) and compaction (select-if, select-flagged at 50 %) at 2^20, 2^24
# and 2^28, each with the copy roofline of its own process. Results are not checked here (--no-verify):
# run the tests, or gpuscan_bench without it, for that. Runs on any Vulkan device.
#   bench/scripts/ab_run.sh A/gpuscan_bench B/gpuscan_bench OUT_DIR [gpuscan_bench options]
# The options replace the sizes and runs (default: --min-log2 20 --max-log2 28 --step 4 --runs 30).
set -uo pipefail
a=$1 b=$2 out=$3
shift 3
here=$(dirname "$0")
mkdir -p "$out"
sizes=(--min-log2 20 --max-log2 28 --step 4 --runs 30)
[ $# -gt 0 ] && sizes=("$@")
common=(--copy-workgroup-sizes 256 --copy-vectors 4 --no-verify "${sizes[@]}")
cases=(
  "scan|--types u32,u64 --kinds exclusive,inclusive --algorithms single-pass,reduce-then-scan"
  "float|--types f32 --kinds exclusive,inclusive --algorithms single-pass,single-pass-ordered,reduce-then-scan"
  "ops|--types u32 --operators min,max --kinds exclusive --algorithms single-pass,reduce-then-scan"
  "compact|--ops select-if,select-flagged --densities 50 --compact-algorithms three-pass,single-pass"
)
for round in 1 2; do
  for side in a b; do
    bench=$a
    [ "$side" = b ] && bench=$b
    for c in "${cases[@]}"; do
      name=${c%%|*}
      # shellcheck disable=SC2086  # the case's options are words
      "$bench" "${common[@]}" ${c#*|} --csv "$out/$side-$name-$round.csv" 2>> "$out/$side-log.txt" \
        || echo "$side $name round $round: rc=$?"
    done
    echo "round $round $side done ($SECONDS s)"
  done
done
for c in "${cases[@]}"; do
  name=${c%%|*}
  python3 "$here/ab_table.py" "$out/a-$name-1.csv,$out/a-$name-2.csv" "$out/b-$name-1.csv,$out/b-$name-2.csv" \
    --md "$out/ab-$name.md"
done
