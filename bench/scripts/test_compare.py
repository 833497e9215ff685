#!/usr/bin/env python3
"""Tests for compare.py and the non-plotting part of plot.py (standard library only).

    python3 bench/scripts/test_compare.py
"""

import contextlib
import io
import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import compare  # noqa: E402
import plot  # noqa: E402  (does not import matplotlib at module level)

DATA = os.path.join(HERE, "testdata")
VULKAN = os.path.join(DATA, "sample_vulkan.csv")
CUB = os.path.join(DATA, "sample_cub.csv")
COMPACT = os.path.join(DATA, "sample_compact.csv")
H = ",".join(compare.HEADER)


def write_tmp(text):
    fd, path = tempfile.mkstemp(suffix=".csv")
    with os.fdopen(fd, "w") as fh:
        fh.write(text)
    return path


def table_row(md, section, n_label):
    """Cells of the row for n_label in the table under '## section'."""
    lines = md.splitlines()
    start = lines.index(f"## {section}")
    for line in lines[start + 1:]:
        if line.startswith("## "):
            break
        if line.startswith(f"| {n_label} |"):
            return [c.strip() for c in line.strip("|").split("|")]
    raise AssertionError(f"no row {n_label} in {section}")


class CompareTest(unittest.TestCase):
    def setUp(self):
        self.ds = compare.read_csvs([VULKAN, CUB])

    def test_reads_rows_and_metadata(self):
        self.assertEqual(self.ds.warnings, [])
        self.assertEqual(len(self.ds.metadata), 2)
        self.assertIn("# device: NVIDIA H200", self.ds.metadata[0][1])
        self.assertEqual(self.ds.metadata_values("device"), ["NVIDIA H200"])
        self.assertEqual(len(self.ds.select(impl="cub")), 24)
        self.assertEqual(len(self.ds.select(impl="glsl-copy")), 4)

    def test_u32_ratios(self):
        md = compare.render(self.ds)
        cells = table_row(md, "u32 exclusive scan", "2^20")
        # n, sp ms, sp GB/s, rts ms, rts GB/s, bl ms, bl GB/s, glsl-copy, cuda-memcpy, cub ms, cub GB/s, ratios
        self.assertEqual(cells[1], "**0.0140**")  # single-pass is best at 2^20
        self.assertEqual(cells[7], "883.0")
        self.assertEqual(cells[9], "0.0130")
        self.assertEqual(cells[11], f"{599.186 / 883.011:.2f}")  # best GB/s / copy GB/s
        self.assertEqual(cells[12], f"{0.0130 / 0.0140:.2f}")  # cub ms / best ms
        cells = table_row(md, "u32 exclusive scan", "2^10")
        self.assertEqual(cells[3], "**0.00810**")  # reduce-then-scan is best at 2^10
        self.assertEqual(cells[12], f"{0.0100 / 0.0081:.2f}")

    def test_u64_matches_copy_by_bytes(self):
        row = compare.copy_for_bytes(self.ds, compare.GLSL_COPY, (1 << 24) * 8, "u64")
        self.assertEqual((row.type, row.n), ("u32", 1 << 25))
        self.assertIsNone(compare.copy_for_bytes(self.ds, compare.GLSL_COPY, (1 << 20) * 8, "u64"))
        md = compare.render(self.ds)
        self.assertEqual(table_row(md, "u64 exclusive scan", "2^24")[7], "4473.9")
        self.assertEqual(table_row(md, "u64 exclusive scan", "2^20")[7], compare.DASH)
        self.assertIn("2·n u32 elements", md)

    def test_missing_series_and_filters(self):
        md = compare.render(self.ds, types=["f32"], kinds=["inclusive"])
        self.assertIn("## f32 inclusive scan", md)
        self.assertNotIn("## u32 exclusive scan", md)
        self.assertNotIn("blelloch", table_row(md, "f32 inclusive scan", "2^20"))

    def test_warnings_duplicate_and_gbps(self):
        path = write_tmp(f"{H}\n"
                         "cub,DeviceScan,u32,exclusive,1024,0.01,0.01,0.01,30,0.819\n"
                         "cub,DeviceScan,u32,exclusive,1024,0.02,0.02,0.02,30,99.0\n")
        try:
            ds = compare.read_csvs([path])
        finally:
            os.unlink(path)
        self.assertEqual(len(ds.rows), 1)
        self.assertEqual(ds.rows[0].median_ms, 0.02)  # later row wins
        self.assertTrue(any("duplicate" in w for w in ds.warnings))
        self.assertTrue(any("gbps" in w for w in ds.warnings))

    def test_errors(self):
        for text in ("cub,DeviceScan,u32,exclusive,1024,0.01,0.01,0.01,30,0.8\n",  # no header
                     f"{H}\ncub,DeviceScan,u32,exclusive,1024,0.01\n",  # short row
                     f"{H}\ncub,DeviceScan,u32,exclusive,x,0.01,0.01,0.01,30,0.8\n"):  # bad number
            path = write_tmp(text)
            try:
                with self.assertRaises(compare.CsvError):
                    compare.read_csvs([path])
            finally:
                os.unlink(path)

    def test_cli_md_output(self):
        fd, md_path = tempfile.mkstemp(suffix=".md")
        os.close(fd)
        try:
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                rc = compare.main([VULKAN, CUB, "--md", md_path])
            self.assertEqual(rc, 0)
            with open(md_path, encoding="utf-8") as fh:
                self.assertEqual(fh.read(), out.getvalue())
        finally:
            os.unlink(md_path)

    def test_plot_series(self):
        scans, roofs = plot.build_series(self.ds, "u64", "exclusive")
        self.assertEqual(list(scans), ["single-pass", "reduce-then-scan", "blelloch", "cub"])
        self.assertIn(((1 << 24), 4473.924), roofs["glsl-copy (copy roofline)"])
        self.assertEqual(plot.title_for(self.ds, "u64", "exclusive"),
                         "u64 exclusive scan throughput — NVIDIA H200")


class CompactionTest(unittest.TestCase):
    def setUp(self):
        self.ds = compare.read_csvs([COMPACT])

    def test_bytes_convention_and_no_warnings(self):
        self.assertEqual(self.ds.warnings, [])
        self.assertEqual(compare.compaction_kind("select-flagged-1%"), ("flagged", 1))
        self.assertIsNone(compare.compaction_kind("exclusive"))
        n = 1 << 20
        self.assertEqual(compare.bytes_moved_at_least("select-if-50%", n, 4), 6 * n)
        self.assertEqual(compare.bytes_moved_at_least("select-flagged-1%", n, 4), 8 * n + (n // 100) * 4)
        self.assertEqual(compare.bytes_moved_at_least("exclusive", n, 4), 8 * n)

    def test_tables(self):
        md = compare.render(self.ds)
        self.assertLess(md.index("## u32 select-flagged-1% compaction"), md.index("## u32 select-if-50% compaction"))
        # n, three-pass ms, GB/s, single-pass ms, GB/s, glsl-copy GB/s, cub ms, cub GB/s, best/copy, best/cub
        cells = table_row(md, "u32 select-if-50% compaction", "2^20")
        self.assertEqual(cells[3], "**0.00800**")
        self.assertEqual(cells[6], "0.0120")
        self.assertEqual(cells[8], f"{786.432 / 1677.722:.2f}")
        self.assertEqual(cells[9], f"{0.012 / 0.008:.2f}")
        self.assertIn("n·4 flags read", md)

    def test_plot_series(self):
        scans, _ = plot.build_series(self.ds, "u32", "select-if-50%")
        self.assertEqual(list(scans), ["three-pass", "single-pass", "cub"])
        self.assertTrue(plot.title_for(self.ds, "u32", "select-if-50%").startswith(
            "u32 select-if-50% compaction throughput — NVIDIA H200"))


if __name__ == "__main__":
    unittest.main()
