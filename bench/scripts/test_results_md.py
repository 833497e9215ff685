#!/usr/bin/env python3
"""Tests for results_md.py on a results directory made of the hand-made test data (standard library only).

    python3 bench/scripts/test_results_md.py
"""

import os
import shutil
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import results_md  # noqa: E402

DATA = os.path.join(HERE, "testdata")

HUGE = """# device: NVIDIA H200, maxStorageBufferRange 4294967295 bytes, addressing bindings
n,algorithm,median_ms,gbps,copy_ms,ratio_to_copy,windows,mismatches
# check on the unscanned (poisoned) output of n = 2147483648: 2147483647 mismatches
2147483648,auto,6.0,2863.3,4.5,0.75,3,0
2147483648,multipass,18.0,954.4,4.5,0.25,3,2
"""

MPI = """# rank 0: local rank 0 of {np}, runs on GPU {np}
ranks,n_per_rank,median_ms,min_ms,local_median_ms,local_min_ms,runs,mismatches
{np},268435456,{ms},1.0,0.8,0.79,100,0
"""


def row(md, heading, n_label):
    """Cells of the row for n_label in the table under the heading line `heading`."""
    lines = md.splitlines()
    for line in lines[lines.index(heading) + 1:]:
        if line.startswith("#"):
            break
        if line.startswith(f"| {n_label} |"):
            return [c.strip() for c in line.strip("|").split("|")]
    raise AssertionError(f"no row {n_label} under {heading}")


class ResultsMdTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        shutil.copy(os.path.join(DATA, "sample_vulkan.csv"), os.path.join(self.dir, "scan_all.csv"))
        shutil.copy(os.path.join(DATA, "sample_cub.csv"), os.path.join(self.dir, "cub_scan.csv"))
        shutil.copy(os.path.join(DATA, "sample_compact.csv"), os.path.join(self.dir, "compact.csv"))
        with open(os.path.join(self.dir, "huge_bindings.csv"), "w") as f:
            f.write(HUGE)
        os.mkdir(os.path.join(self.dir, "mpi"))
        for np, ms in ((1, "1.10"), (2, "1.25")):
            with open(os.path.join(self.dir, "mpi", f"r1_np{np}.txt"), "w") as f:
                f.write(MPI.format(np=np, ms=ms))
        with open(os.path.join(self.dir, "mpi", "run.txt"), "w") as f:
            f.write("date: 2025-01-02\ncommand: mpirun -np N gpuscan_mpi_bench\n")
        self.write_run("2025-01-01")

    def tearDown(self):
        shutil.rmtree(self.dir)

    def write_run(self, date):
        with open(os.path.join(self.dir, "run.txt"), "w") as f:
            f.write(f"# test\ndate: {date}\ncommand: run_all.sh build out\ndriver: 1.2.3\n"
                    "command scan_all.csv: gpuscan_bench --types u32\nrc compact.csv: 1\n"
                    "note compact.csv: a note\n")

    def render(self):
        return results_md.render(self.dir, "img", os.path.join(self.dir, "mpi"))

    def test_scan_table_with_cub_of_the_same_day(self):
        md = self.render()
        self.assertIn("| n | single-pass | reduce-then-scan | blelloch | copy | CUB | best GB/s | best / copy | "
                      "best vs CUB |", md)
        # single-pass 0.014 ms is best; copy 0.0095 ms; CUB 0.013 ms
        self.assertEqual(row(md, "#### u32 exclusive", "2^20"),
                         ["2^20", "**0.0140**", "0.0189", "0.0252", "0.00950", "0.0130", "599", "0.68", "0.93×"])
        self.assertIn("`scan_all.csv`, 2025-01-01, NVIDIA H200: gpuscan_bench, driver 1.2.3; "
                      "`gpuscan_bench --types u32`", md)
        self.assertIn("One run of `run_all.sh build out` on 2025-01-01, driver 1.2.3.", md)

    def test_cub_of_another_day_is_labelled(self):
        self.write_run("2025-02-01")
        md = self.render()
        self.assertIn("| CUB (2025-01-01) |", md)

    def test_trails_list_failures_and_notes(self):
        md = self.render()
        self.assertIn("- u32 exclusive scan: 2^20 0.93×", md)
        self.assertIn("— **returned 1** (a note)", md)
        self.assertIn("- Did not return 0: `compact.csv` returned 1", md)

    def test_family_and_sort_beside_cub_join_the_trails_list(self):
        head = "impl,algorithm,type,kind,n,median_ms,min_ms,max_ms,runs,gbps\n"
        with open(os.path.join(self.dir, "family.csv"), "w") as f:
            f.write("# device: NVIDIA H100 80GB HBM3\n" + head
                    + "gpuscan-vulkan,histogram-even,f32,histogram-256,1048576,0.0200,0.0190,0.0210,30,419.430\n"
                    + "gpuscan-vulkan,single-pass,u32,unique-mean16,1048576,0.0100,0.0090,0.0110,30,838.861\n"
                    + "gpuscan-vulkan,three-pass,u32,unique-mean16,1048576,0.0150,0.0140,0.0160,30,559.241\n")
        with open(os.path.join(self.dir, "sort.csv"), "w") as f:
            f.write("# device: NVIDIA H100 80GB HBM3\n" + head
                    + "gpuscan-vulkan,radix-multipass,u32,keys,1048576,0.1600,0.1500,0.1700,20,52.429\n"
                    + "gpuscan-vulkan,radix-multipass,u32,keys/pass1,1048576,0.0400,0.0390,0.0410,20,209.715\n")
        with open(os.path.join(self.dir, "cub_family.csv"), "w") as f:
            f.write("# tool: cub_family_bench\n# date_utc: 2025-01-01T00:00:00Z\n# device: NVIDIA H100 80GB HBM3\n"
                    + head + "cub,DeviceHistogram::HistogramEven,f32,histogram-256,1048576,0.0100,0.0090,0.0110,30,838.861\n"
                    + "cub,DeviceSelect::Unique,u32,unique-mean16,1048576,0.0120,0.0110,0.0130,30,699.051\n"
                    + "cub,DeviceRadixSort::SortKeys,u32,keys,1048576,0.0800,0.0790,0.0810,20,104.858\n")
        with open(os.path.join(self.dir, "run.txt"), "a") as f:
            f.write("gpu: NVIDIA H200\n")
        md = self.render()
        self.assertIn("### Histogram, run-length encoding, unique, segmented reduction", md)
        self.assertEqual(row(md, "#### u32 unique-mean16", "2^20")[1:3], ["**0.0100**", "0.0150"])
        self.assertIn("- f32 histogram-256 (NVIDIA H100 80GB HBM3): 2^20 0.50×", md)
        self.assertIn("- u32 keys sort (NVIDIA H100 80GB HBM3): 2^20 0.50×", md)
        self.assertNotIn("unique-mean16 (NVIDIA", md)  # 1.2x CUB: not trailing
        self.assertNotIn("#### u32 keys/pass1", md)      # stage rows stay in the CSV

    def test_huge_and_mpi(self):
        md = self.render()
        self.assertEqual(row(md, "### Scans past one binding", "2^31"),
                         ["2^31", "8", "bindings", "3", "4.500", "6.000 (0.75)", "18.000 (0.25)", "2"])
        self.assertEqual(row(md, "### MPI weak scaling", "1"), ["1", "1.100 (0.800)", "1.250 (0.800)", "0.88", "0"])

    def test_markers_replaced_and_required(self):
        doc = os.path.join(self.dir, "doc.md")
        with open(doc, "w") as f:
            f.write(f"intro\n{results_md.BEGIN}\nold\n{results_md.END}\nafter\n")
        results_md.replace_between_markers(doc, "new\n")
        with open(doc) as f:
            self.assertEqual(f.read(), f"intro\n{results_md.BEGIN}\nnew\n{results_md.END}\nafter\n")
        with open(doc, "w") as f:
            f.write("no markers\n")
        with self.assertRaises(results_md.ResultsError):
            results_md.replace_between_markers(doc, "new\n")

    def test_readme_form(self):
        md = results_md.render_readme(self.dir, "img", os.path.join(self.dir, "mpi"))
        self.assertIn("| 2^20 | 0.0140 ms | single-pass | 0.00950 ms | 0.0130 ms | 0.93× |", md)
        self.assertIn("MPI weak scaling over two GPUs (2025-01-02): efficiency 0.88–0.88.", md)
        self.assertIn("2^31 u32 (8 GiB per buffer, 3 windows, bindings) in 6.000 ms, 0.75× the copy's speed, "
                      "2 mismatches", md)

    def test_empty_directory_is_an_error(self):
        empty = tempfile.mkdtemp()
        try:
            self.assertEqual(results_md.main([empty]), 2)
        finally:
            shutil.rmtree(empty)


if __name__ == "__main__":
    unittest.main()
