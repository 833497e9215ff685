#!/usr/bin/env python3
"""Set two builds' gpuscan_bench CSVs side by side: the same cases timed by build A and build B.

    ab_table.py A1.csv[,A2.csv...] B1.csv[,B2.csv...] [--md out.md]

Each side may have several CSVs (rounds run alternately, A B A B, so that clock and thermal drift hit
both); a case's time on a side is the lowest of its rounds' medians. Prints one markdown row per case
(algorithm, type, kind, n) with both times and B/A (below 1: B is faster), then the median and the
extremes of B/A. Standard library only.
"""
from __future__ import annotations

import argparse
import csv
import statistics


def load(paths: str) -> dict[tuple, float]:
    best: dict[tuple, float] = {}
    for path in paths.split(","):
        with open(path, newline="") as f:
            rows = csv.reader(line for line in f if not line.startswith("#"))
            header = next(rows)
            col = {name: i for i, name in enumerate(header)}
            for r in rows:
                key = (r[col["algorithm"]], r[col["type"]], r[col["kind"]], int(r[col["n"]]))
                ms = float(r[col["median_ms"]])
                best[key] = min(ms, best.get(key, ms))
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("a")
    parser.add_argument("b")
    parser.add_argument("--md")
    args = parser.parse_args()
    a, b = load(args.a), load(args.b)
    lines = ["| algorithm | type | kind | n | A ms | B ms | B/A |", "|---|---|---|---|---|---|---|"]
    ratios = []
    for key in sorted(set(a) & set(b), key=lambda k: (k[0], k[1], k[2], k[3])):
        ratio = b[key] / a[key]
        ratios.append(ratio)
        n = key[3]
        size = f"2^{n.bit_length() - 1}" if n & (n - 1) == 0 else str(n)
        lines.append(f"| {key[0]} | {key[1]} | {key[2]} | {size} | {a[key]:.4f} | {b[key]:.4f} | {ratio:.3f} |")
    if ratios:
        lines.append("")
        lines.append(f"B/A over {len(ratios)} cases: median {statistics.median(ratios):.3f}, "
                     f"min {min(ratios):.3f}, max {max(ratios):.3f}")
    only = sorted(set(a) ^ set(b))
    if only:
        lines.append(f"{len(only)} cases timed by one build only (left out)")
    text = "\n".join(lines)
    print(text)
    if args.md:
        with open(args.md, "w") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()
