# Sourced by the device run scripts (bench/results/*/run*.sh): prints a gpuscan_bench CSV on one line per
# file, "algorithm,type,kind,log2 n,median ms" per case, short enough to read in a call's printed output.
show() {
  grep -v "^#" "$1" | grep -v "^impl" | awk -F, '{ n = log($5) / log(2); printf "%s,%s,%s,%d,%s ", $2, $3, substr($4, 1, 4), n + 0.5, $6 }'
  echo
}
