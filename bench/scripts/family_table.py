#!/usr/bin/env python3
"""Markdown table of gpuscan_bench rows beside cub_family_bench / cub_scan_bench rows of the same
(type, kind, n): each gpuscan algorithm's median, CUB's, and CUB's time over the fastest gpuscan one.

    python3 bench/scripts/family_table.py ours.csv cub.csv [more pairs ...]
"""
import csv
import sys


def rows(path):
    with open(path) as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def table(ours_path, cub_path):
    ours, cub, algorithms = {}, {}, []
    for r in rows(ours_path):
        if r["impl"] != "gpuscan-vulkan":
            continue
        ours.setdefault((r["type"], r["kind"], int(r["n"])), {})[r["algorithm"]] = float(r["median_ms"])
        if r["algorithm"] not in algorithms:
            algorithms.append(r["algorithm"])
    for r in rows(cub_path):
        if r["impl"] == "cub":
            cub[(r["type"], r["kind"], int(r["n"]))] = float(r["median_ms"])
    fmt = lambda x: "–" if x is None else f"{x:.4f}"
    lines = ["| type | case | n | " + " | ".join(algorithms) + " | CUB | best vs CUB |",
             "|:---|:---|:---|" + "---:|" * (len(algorithms) + 2)]
    for key in sorted(ours):
        times = ours[key]
        best = min(times.values())
        cells = [("**" + fmt(times[a]) + "**") if times.get(a) == best else fmt(times.get(a)) for a in algorithms]
        c = cub.get(key)
        n = key[2]
        size = f"2^{n.bit_length() - 1}" if n & (n - 1) == 0 else str(n)
        ratio = "–" if c is None else f"{c / best:.2f}×"
        lines.append(f"| {key[0]} | {key[1]} | {size} | " + " | ".join(cells) + f" | {fmt(c)} | {ratio} |")
    return "\n".join(lines)


if __name__ == "__main__":
    args = sys.argv[1:]
    if not args or len(args) % 2:
        sys.exit(__doc__)
    print("\n\n".join(table(args[i], args[i + 1]) for i in range(0, len(args), 2)))
