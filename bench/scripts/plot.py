#!/usr/bin/env python3
"""Plot GB/s against n for one scan or compaction (type, kind) from benchmark CSVs.

Every impl/algorithm with rows for that type and kind becomes a line (gpuscan
algorithms solid, cub dashed); the copy rooflines (glsl-copy, and cuda-memcpy
if present) are drawn as thicker lines, matched by bytes exactly as in
compare.py (a u64 scan of n elements is set against the u32 copy of 2n
elements).  The x axis is log2(n); the title carries the device name(s) from
the '# device: ...' metadata lines.

Needs matplotlib (not needed for --dry-run, which prints the series instead).

Usage:
    plot.py vulkan.csv cub.csv --type u32 --kind exclusive --out u32_exclusive.png
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Dict, List, Optional, Tuple

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare  # noqa: E402  (same directory; standard library only)

Point = Tuple[int, float]  # (n of the scan's element type, GB/s)


def build_series(ds: compare.Dataset, type_: str, kind: str
                 ) -> Tuple[Dict[str, List[Point]], Dict[str, List[Point]]]:
    """Returns (scan series, roofline series), each {label: [(n, gbps), ...]} sorted by n."""
    scans: Dict[str, List[Point]] = {}
    ours = compare.ours_series(ds, type_, kind)
    labels = compare.series_labels(list(ours))
    for key, by_n in ours.items():
        scans[labels[key]] = sorted((n, r.gbps) for n, r in by_n.items())
    cub = ds.select(impl=compare.CUB, type_=type_, kind=kind)
    if cub:
        algs = sorted({r.algorithm for r in cub})
        for alg in algs:
            label = compare.CUB if len(algs) == 1 else f"{compare.CUB} {alg}"
            scans[label] = sorted((r.n, r.gbps) for r in cub if r.algorithm == alg)

    # The rooflines at the scans' own sizes: a file with 8-byte types also has copies of 2n u32, which
    # would put points between (and past) the scans' sizes.
    sizes = {n for pts in scans.values() for n, _ in pts}
    roofs: Dict[str, List[Point]] = {}
    size = compare.TYPE_BYTES.get(type_)
    if size is not None:
        for impl in (compare.GLSL_COPY, compare.CUDA_COPY):
            pts: Dict[int, float] = {}
            for r in ds.select(impl=impl, kind=compare.COPY_KIND):
                b = r.bytes_moved
                if b is None or b % size:
                    continue
                n = b // size
                if n not in sizes:
                    continue
                best = compare.copy_for_bytes(ds, impl, b, type_)  # same preference as compare.py
                if best is not None:
                    pts[n] = best.gbps
            if pts:
                roofs[f"{impl} (copy roofline)"] = sorted(pts.items())
    return scans, roofs


def title_for(ds: compare.Dataset, type_: str, kind: str) -> str:
    devices = ds.metadata_values("device", "device_name", "gpu")
    what = "compaction" if compare.compaction_kind(kind) else "scan"
    t = f"{type_} {kind} {what} throughput"
    return t + (f" — {' / '.join(devices)}" if devices else "")


def plot(scans: Dict[str, List[Point]], roofs: Dict[str, List[Point]], title: str, out: str,
         ylabel: str = "GB/s  (2·n·sizeof(T) / median time)") -> None:
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.ticker import FuncFormatter, NullLocator
    except ImportError:
        sys.exit("plot.py: matplotlib is not installed (pip install matplotlib, or use the "
                 "machine that has it); --dry-run prints the series without it.")

    fig, ax = plt.subplots(figsize=(10, 6), dpi=120)
    for label, pts in roofs.items():
        xs, ys = zip(*pts)
        ax.plot(xs, ys, color="black" if label.startswith(compare.GLSL_COPY) else "grey",
                linewidth=2.5, alpha=0.6, marker="D", markersize=4, label=label, zorder=1)
    for label, pts in scans.items():
        xs, ys = zip(*pts)
        is_cub = label.split(" ")[0] == compare.CUB
        ax.plot(xs, ys, marker="s" if is_cub else "o", markersize=4,
                linestyle="--" if is_cub else "-", linewidth=1.6, label=label, zorder=2)
    ax.set_xscale("log", base=2)
    all_n = [n for pts in list(scans.values()) + list(roofs.values()) for n, _ in pts]
    lo, hi = min(all_n).bit_length() - 1, max(all_n).bit_length() - 1
    step = 1 if hi - lo <= 12 else 2
    ax.set_xticks([2 ** k for k in range(lo - lo % step, hi + 1, step)])
    ax.xaxis.set_minor_locator(NullLocator())
    ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _: compare.fmt_n(int(round(x)))))
    ax.set_xlabel("n (elements)")
    ax.set_ylabel(ylabel)
    ax.set_ylim(bottom=0)
    ax.grid(True, which="major", alpha=0.3)
    ax.set_title(title)
    ax.legend(loc="upper left", fontsize=9)
    fig.tight_layout()
    fig.savefig(out)
    plt.close(fig)


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("csv", nargs="+", help="benchmark CSV files")
    ap.add_argument("--type", default="u32", help="element type (default u32)")
    ap.add_argument("--kind", default="exclusive",
                    help="exclusive, inclusive or a compaction kind such as select-if-50%% (default exclusive)")
    ap.add_argument("--out", help="PNG path (default scan_<type>_<kind>.png)")
    ap.add_argument("--dry-run", action="store_true",
                    help="print the title and series instead of plotting (no matplotlib needed)")
    args = ap.parse_args(argv)
    try:
        ds = compare.read_csvs(args.csv)
    except compare.CsvError as e:
        print(f"plot.py: error: {e}", file=sys.stderr)
        return 2
    for w in ds.warnings:
        print(f"plot.py: warning: {w}", file=sys.stderr)
    scans, roofs = build_series(ds, args.type, args.kind)
    if not scans:
        print(f"plot.py: error: no {args.type} {args.kind} rows", file=sys.stderr)
        return 2
    title = title_for(ds, args.type, args.kind)
    out = args.out or f"scan_{args.type}_{args.kind}.png"
    if args.dry_run:
        print(f"title: {title}")
        print(f"out: {out}")
        for label, pts in list(roofs.items()) + list(scans.items()):
            print(f"{label}: " + ", ".join(f"{compare.fmt_n(n)}={g:.1f}" for n, g in pts))
        return 0
    if compare.compaction_kind(args.kind):
        plot(scans, roofs, title, out, "GB/s  (bytes moved at least / median time)")
    else:
        plot(scans, roofs, title, out)
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
