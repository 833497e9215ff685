#!/usr/bin/env python3
"""Compare gpuscan Vulkan scan and compaction timings with NVIDIA CUB and copy rooflines.

Reads one or more benchmark CSVs with the header

    impl,algorithm,type,kind,n,median_ms,min_ms,max_ms,runs,gbps

(lines starting with '#' are metadata: they are kept and shown per file) and
prints one markdown table per (type, kind) scan or compaction, plus a table of
the copy rooflines.

Compaction rows have kind "select-if-<d>%" or "select-flagged-<d>%" (d = percent
of elements kept; cub rows are DeviceSelect::If / Flagged) and count as GB/s the
bytes moved at least: n*4 read + kept*4 written, + n*4 flags read for
select-flagged (the CSV's gbps is checked against that with kept = n*d/100).  With --md PATH the same markdown is also written to PATH.

Row roles, by impl:
  glsl-copy     Vulkan copy kernel (kind "copy"): the roofline for our scans
  cuda-memcpy   cudaMemcpyAsync device-to-device (kind "copy"): CUDA roofline
  cub           cub::DeviceScan, cub::DeviceSelect
  anything else a gpuscan implementation ("gpuscan-vulkan", ...); one column
                pair per algorithm

Ratios (both > 1 mean gpuscan is faster):
  best/copy = best gpuscan GB/s / glsl-copy GB/s  (fraction of copy bandwidth;
              equal to copy_ms / ours_ms because the bytes are matched)
  best/cub  = cub_ms / best gpuscan ms

The copy roofline is matched by bytes: a scan of n elements of type T is set
against the copy row that moves n*sizeof(T) bytes, preferring a u32 copy row
(so a u64 scan of n elements uses the u32 copy of 2n elements).

Standard library only.  Usage:
    compare.py vulkan.csv cub.csv [--md results.md] [--types u32,f32] [--kinds exclusive]
"""

from __future__ import annotations

import argparse
import csv
import math
import re
import sys
from dataclasses import dataclass
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

HEADER = ["impl", "algorithm", "type", "kind", "n", "median_ms", "min_ms", "max_ms", "runs", "gbps"]
TYPE_BYTES = {"u8": 1, "i8": 1, "u16": 2, "i16": 2, "f16": 2,
              "u32": 4, "i32": 4, "f32": 4, "u64": 8, "i64": 8, "f64": 8}
GLSL_COPY = "glsl-copy"
CUDA_COPY = "cuda-memcpy"
CUB = "cub"
REFERENCE_IMPLS = (GLSL_COPY, CUDA_COPY, CUB)
COPY_KIND = "copy"
TYPE_ORDER = ["u32", "i32", "f32", "u64", "i64", "f64"]
KIND_ORDER = ["exclusive", "inclusive"]  # then compaction kinds by op and density
GBPS_TOLERANCE = 0.01  # warn when the CSV's gbps differs from the bytes moved / median by more
COMPACT_KIND = re.compile(r"^select-(if|flagged)-(\d+)%$")


def compaction_kind(kind: str) -> Optional[Tuple[str, int]]:
    """("if" or "flagged", percent kept) for a compaction kind, else None."""
    m = COMPACT_KIND.match(kind)
    return (m.group(1), int(m.group(2))) if m else None


def bytes_moved_at_least(kind: str, n: int, size: int) -> float:
    """What the gbps column counts: 2*n*size for a scan or copy; for a compaction
    n*size read + kept*size written (+ n*4 u32 flags read), kept = n*d/100."""
    c = compaction_kind(kind)
    if c is None:
        return 2 * n * size
    op, density = c
    return n * size + (n * density // 100) * size + (n * 4 if op == "flagged" else 0)


class CsvError(Exception):
    pass


@dataclass(frozen=True)
class Row:
    impl: str
    algorithm: str
    type: str
    kind: str
    n: int
    median_ms: float
    min_ms: float
    max_ms: float
    runs: int
    gbps: float
    source: str  # "path:line"

    @property
    def key(self) -> Tuple[str, str, str, str, int]:
        return (self.impl, self.algorithm, self.type, self.kind, self.n)

    @property
    def bytes_moved(self) -> Optional[int]:
        """Bytes of one element array (n * sizeof(type)); None for unknown types."""
        size = TYPE_BYTES.get(self.type)
        return None if size is None else self.n * size


@dataclass
class Dataset:
    rows: List[Row]
    metadata: List[Tuple[str, List[str]]]  # (path, ['# ...', ...]) per file
    warnings: List[str]

    def select(self, impl: Optional[str] = None, type_: Optional[str] = None,
               kind: Optional[str] = None) -> List[Row]:
        return [r for r in self.rows
                if (impl is None or r.impl == impl)
                and (type_ is None or r.type == type_)
                and (kind is None or r.kind == kind)]

    def metadata_values(self, *keys: str) -> List[str]:
        """Values of '# key: value' / '# key=value' metadata lines, all files, unique, in order."""
        wanted = {k.lower() for k in keys}
        out: List[str] = []
        for _, lines in self.metadata:
            for line in lines:
                body = line.lstrip("#").strip()
                for sep in (":", "="):
                    if sep in body:
                        k, v = body.split(sep, 1)
                        if k.strip().lower() in wanted and v.strip() and v.strip() not in out:
                            out.append(v.strip())
                        break
        return out


def _parse_row(fields: List[str], where: str) -> Row:
    if len(fields) != len(HEADER):
        raise CsvError(f"{where}: expected {len(HEADER)} fields, got {len(fields)}: {fields!r}")
    f = [x.strip() for x in fields]
    try:
        n = int(f[4])
        med, lo, hi = float(f[5]), float(f[6]), float(f[7])
        runs = int(f[8])
        gbps = float(f[9])
    except ValueError as e:
        raise CsvError(f"{where}: bad number ({e}): {fields!r}") from None
    if n <= 0 or runs <= 0 or not (med > 0) or not math.isfinite(med):
        raise CsvError(f"{where}: n, runs and median_ms must be positive: {fields!r}")
    return Row(f[0], f[1], f[2], f[3], n, med, lo, hi, runs, gbps, where)


def read_csvs(paths: Iterable[str]) -> Dataset:
    """Parse CSV files.  A row repeated (same impl, algorithm, type, kind, n) in a
    later file or line replaces the earlier one, with a warning."""
    by_key: Dict[Tuple, Row] = {}
    metadata: List[Tuple[str, List[str]]] = []
    warnings: List[str] = []
    for path in paths:
        meta: List[str] = []
        seen_header = False
        try:
            with open(path, newline="", encoding="utf-8") as fh:
                lines = fh.read().splitlines()
        except OSError as e:
            raise CsvError(f"{path}: {e.strerror}") from None
        for lineno, line in enumerate(lines, 1):
            where = f"{path}:{lineno}"
            stripped = line.strip()
            if not stripped:
                continue
            if stripped.startswith("#"):
                meta.append(stripped)
                continue
            fields = next(csv.reader([line]))
            if [x.strip() for x in fields] == HEADER:
                seen_header = True
                continue
            if not seen_header:
                raise CsvError(f"{where}: expected the header line\n  {','.join(HEADER)}\n"
                               f"before data, got: {line!r}")
            row = _parse_row(fields, where)
            size = TYPE_BYTES.get(row.type)
            if size is None:
                warnings.append(f"{where}: unknown type {row.type!r}: no byte matching for it")
            else:
                expect = bytes_moved_at_least(row.kind, row.n, size) / (row.median_ms * 1e6)
                if abs(row.gbps - expect) > GBPS_TOLERANCE * expect:
                    warnings.append(f"{where}: gbps {row.gbps:g} != bytes moved/median = {expect:.3f} "
                                    "(the CSV value is shown)")
            if row.key in by_key:
                warnings.append(f"{where}: duplicate of {by_key[row.key].source}; using the later row")
            by_key[row.key] = row
        if not seen_header:
            warnings.append(f"{path}: no header line, no data")
        metadata.append((path, meta))
    return Dataset(list(by_key.values()), metadata, warnings)


# ---------------------------------------------------------------------------
# Matching helpers (shared with plot.py)
# ---------------------------------------------------------------------------

def ours_series(ds: Dataset, type_: str, kind: str) -> Dict[Tuple[str, str], Dict[int, Row]]:
    """gpuscan rows for one (type, kind): {(impl, algorithm): {n: row}}, in first-seen order."""
    out: Dict[Tuple[str, str], Dict[int, Row]] = {}
    for r in ds.select(type_=type_, kind=kind):
        if r.impl in REFERENCE_IMPLS:
            continue
        out.setdefault((r.impl, r.algorithm), {})[r.n] = r
    return out


def series_labels(keys: Sequence[Tuple[str, str]]) -> Dict[Tuple[str, str], str]:
    """Column label per (impl, algorithm): just the algorithm if there is one impl."""
    impls = {k[0] for k in keys}
    return {k: (k[1] if len(impls) == 1 else f"{k[0]} {k[1]}") for k in keys}


def copy_for_bytes(ds: Dataset, impl: str, nbytes: int, prefer_type: str) -> Optional[Row]:
    """The copy row of `impl` moving nbytes per array: u32 first, then prefer_type, then any."""
    candidates = [r for r in ds.select(impl=impl, kind=COPY_KIND) if r.bytes_moved == nbytes]
    if not candidates:
        return None
    rank = {"u32": 0, prefer_type: 1}
    return min(candidates, key=lambda r: (rank.get(r.type, 2), r.type, r.algorithm))


def best_row(rows: Iterable[Optional[Row]]) -> Optional[Row]:
    present = [r for r in rows if r is not None]
    return min(present, key=lambda r: r.median_ms) if present else None


def sort_types(types: Iterable[str]) -> List[str]:
    return sorted(set(types), key=lambda t: (TYPE_ORDER.index(t) if t in TYPE_ORDER else 99, t))


def sort_kinds(kinds: Iterable[str]) -> List[str]:
    def key(k: str):
        c = compaction_kind(k)
        if c is not None:
            return (100, c[0], c[1], k)
        return (KIND_ORDER.index(k) if k in KIND_ORDER else 99, "", 0, k)
    return sorted(set(kinds), key=key)


# ---------------------------------------------------------------------------
# Formatting
# ---------------------------------------------------------------------------

DASH = "–"


def fmt_n(n: int) -> str:
    if n > 0 and n & (n - 1) == 0:
        return f"2^{n.bit_length() - 1}"
    return str(n)


def fmt_bytes(b: int) -> str:
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= scale:
            v = b / scale
            return f"{v:.0f} {unit}" if v == int(v) else f"{v:.1f} {unit}"
    return f"{b} B"


def fmt_ms(ms: Optional[float]) -> str:
    if ms is None:
        return DASH
    if ms >= 100:
        return f"{ms:.1f}"
    if ms >= 1:
        return f"{ms:.3f}"
    if ms >= 0.01:
        return f"{ms:.4f}"
    return f"{ms:.5f}"


def fmt_gbps(g: Optional[float]) -> str:
    return DASH if g is None else f"{g:.1f}"


def fmt_ratio(x: Optional[float]) -> str:
    return DASH if x is None else f"{x:.2f}"


def md_table(header: List[str], rows: List[List[str]], right_from: int = 0) -> List[str]:
    align = [":---" if i < right_from else "---:" for i in range(len(header))]
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(align) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return lines


# ---------------------------------------------------------------------------
# Report
# ---------------------------------------------------------------------------

def scan_table(ds: Dataset, type_: str, kind: str) -> List[str]:
    series = ours_series(ds, type_, kind)
    keys = list(series)
    labels = series_labels(keys)
    cub = {r.n: r for r in ds.select(impl=CUB, type_=type_, kind=kind)}
    have_cuda_copy = bool(ds.select(impl=CUDA_COPY, kind=COPY_KIND))
    size = TYPE_BYTES.get(type_)
    ns = sorted({n for s in series.values() for n in s} | set(cub))

    header = ["n"]
    for k in keys:
        header += [f"{labels[k]} ms", f"{labels[k]} GB/s"]
    header.append(f"{GLSL_COPY} GB/s")
    if have_cuda_copy:
        header.append(f"{CUDA_COPY} GB/s")
    header += ["cub ms", "cub GB/s", "best/copy", "best/cub"]

    body: List[List[str]] = []
    for n in ns:
        ours = [series[k].get(n) for k in keys]
        best = best_row(ours)
        cells = [fmt_n(n)]
        for r in ours:
            ms = fmt_ms(r.median_ms if r else None)
            if r is not None and r is best and len(keys) > 1:
                ms = f"**{ms}**"
            cells += [ms, fmt_gbps(r.gbps if r else None)]
        nbytes = n * size if size is not None else None
        gcopy = copy_for_bytes(ds, GLSL_COPY, nbytes, type_) if nbytes is not None else None
        cells.append(fmt_gbps(gcopy.gbps if gcopy else None))
        if have_cuda_copy:
            ccopy = copy_for_bytes(ds, CUDA_COPY, nbytes, type_) if nbytes is not None else None
            cells.append(fmt_gbps(ccopy.gbps if ccopy else None))
        c = cub.get(n)
        cells += [fmt_ms(c.median_ms if c else None), fmt_gbps(c.gbps if c else None)]
        cells.append(fmt_ratio(best.gbps / gcopy.gbps if best and gcopy and gcopy.gbps > 0 else None))
        cells.append(fmt_ratio(c.median_ms / best.median_ms if best and c else None))
        body.append(cells)

    compaction = compaction_kind(kind)
    lines = [f"## {type_} {kind} {'compaction' if compaction else 'scan'}", ""]
    lines += md_table(header, body, right_from=1)
    lines.append("")
    if size is None:
        copy_note = f"unknown type {type_!r}, so no copy row could be matched by bytes."
    elif size == 4:
        copy_note = (f"the u32 {GLSL_COPY} row of the same n (same bytes: n·{size} B read + written).")
    else:
        copy_note = (f"the u32 {GLSL_COPY} row that moves the same bytes, i.e. n·{size}/4 = "
                     f"{size // 4 if size % 4 == 0 else size / 4}·n u32 elements (n·{size} B read + written).")
    lines.append(f"Copy roofline (`{GLSL_COPY} GB/s`"
                 + (f", `{CUDA_COPY} GB/s`" if have_cuda_copy else "")
                 + f") matched by bytes: {copy_note} A dash means no copy row moves that many bytes.")
    lines.append("")
    if compaction:
        gb = ("GB/s = bytes moved at least / median: n·sizeof(T) read + kept·sizeof(T) written"
              + (" + n·4 flags read" if compaction[0] == "flagged" else "") + "; the copy roofline moves 2·n·sizeof(T)")
    else:
        gb = "GB/s = 2·n·sizeof(T) / median (input read + output written)"
    lines.append(f"ms = median; {gb}"
                 + ("; **bold** = fastest gpuscan algorithm (\"best\")" if len(keys) > 1 else "")
                 + ". best/copy = best GB/s ÷ copy GB/s (fraction of the copy roofline); "
                 "best/cub = cub ms ÷ best ms (> 1: gpuscan faster).")
    lines.append("")
    return lines


def copy_table(ds: Dataset) -> List[str]:
    rows = ds.select(kind=COPY_KIND)
    if not rows:
        return []
    keys: List[Tuple[str, str, str]] = []
    for r in rows:
        k = (r.impl, r.algorithm, r.type)
        if k not in keys:
            keys.append(k)
    keys.sort(key=lambda k: (0 if k[0] == GLSL_COPY else 1 if k[0] == CUDA_COPY else 2, k))
    table: Dict[Tuple[str, str, str], Dict[int, Row]] = {k: {} for k in keys}
    for r in rows:
        if r.bytes_moved is not None:
            table[(r.impl, r.algorithm, r.type)][r.bytes_moved] = r
    all_bytes = sorted({b for d in table.values() for b in d})
    label = {k: (k[0] if sum(1 for j in keys if j[0] == k[0]) == 1 else f"{k[0]} {k[1]} {k[2]}")
             for k in keys}
    header = ["bytes per array"] + [h for k in keys for h in (f"{label[k]} ms", f"{label[k]} GB/s")]
    glsl_key = next((k for k in keys if k[0] == GLSL_COPY and k[2] == "u32"), None)
    cuda_key = next((k for k in keys if k[0] == CUDA_COPY and k[2] == "u32"), None)
    if glsl_key and cuda_key:
        header.append(f"{GLSL_COPY}/{CUDA_COPY}")
    body = []
    for b in all_bytes:
        cells = [fmt_bytes(b)]
        for k in keys:
            r = table[k].get(b)
            cells += [fmt_ms(r.median_ms if r else None), fmt_gbps(r.gbps if r else None)]
        if glsl_key and cuda_key:
            g, c = table[glsl_key].get(b), table[cuda_key].get(b)
            cells.append(fmt_ratio(g.gbps / c.gbps if g and c and c.gbps > 0 else None))
        body.append(cells)
    lines = ["## Copy rooflines", ""]
    lines += md_table(header, body, right_from=1)
    lines.append("")
    lines.append("GB/s = 2·bytes / median (read + write). "
                 + (f"{GLSL_COPY}/{CUDA_COPY} = ratio of their GB/s (> 1: the Vulkan copy is faster)."
                    if glsl_key and cuda_key else ""))
    lines.append("")
    return lines


def render(ds: Dataset, types: Optional[List[str]] = None, kinds: Optional[List[str]] = None) -> str:
    lines = ["# Prefix-scan benchmark comparison", ""]
    lines.append("## Sources")
    lines.append("")
    for path, meta in ds.metadata:
        lines.append(f"`{path}`" + ("" if meta else " (no metadata)"))
        lines.append("")
        if meta:
            lines.append("```")
            lines += meta
            lines.append("```")
            lines.append("")
    scan_rows = [r for r in ds.rows if r.kind != COPY_KIND]
    all_types = sort_types(r.type for r in scan_rows)
    all_kinds = sort_kinds(r.kind for r in scan_rows)
    for t in all_types:
        if types and t not in types:
            continue
        for k in all_kinds:
            if kinds and k not in kinds:
                continue
            if any(r.type == t and r.kind == k for r in scan_rows):
                lines += scan_table(ds, t, k)
    lines += copy_table(ds)
    if ds.warnings:
        lines.append("## Warnings")
        lines.append("")
        lines += [f"- {w}" for w in ds.warnings]
        lines.append("")
    return "\n".join(lines).rstrip("\n") + "\n"


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("csv", nargs="+", help="benchmark CSV files (Vulkan and/or CUB)")
    ap.add_argument("--md", metavar="PATH", help="also write the markdown report here")
    ap.add_argument("--types", help="comma-separated types to show (default: all present)")
    ap.add_argument("--kinds", help="comma-separated scan kinds to show (default: all present)")
    args = ap.parse_args(argv)
    try:
        ds = read_csvs(args.csv)
    except CsvError as e:
        print(f"compare.py: error: {e}", file=sys.stderr)
        return 2
    for w in ds.warnings:
        print(f"compare.py: warning: {w}", file=sys.stderr)
    if not ds.rows:
        print("compare.py: error: no data rows", file=sys.stderr)
        return 2
    text = render(ds,
                  types=args.types.split(",") if args.types else None,
                  kinds=args.kinds.split(",") if args.kinds else None)
    sys.stdout.write(text)
    if args.md:
        try:
            with open(args.md, "w", encoding="utf-8") as fh:
                fh.write(text)
        except OSError as e:
            print(f"compare.py: error: cannot write {args.md}: {e.strerror}", file=sys.stderr)
            return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
