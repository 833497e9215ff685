// What the benchmark's scan and compaction cases share: GPU timing with timestamp queries, the copy
// roofline, host <-> device transfers through one staging buffer, poisoning, and the result sink that
// writes every measured row as CSV and, with --json, as JSON too.
#pragma once

#include <cstdint>
#include <fstream>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "bench_common.hpp"
#include "gpuscan/gpuscan.hpp"
#include "gpuscan/vulkan/testing.hpp"
#include "gpuscan_env.hpp"

namespace gpuscan::bench {

// Stats and summarize() come from bench_common.hpp, shared with gpuscan_gl_bench.

// Device buffers sized for the largest run, reused for all. flags and count are created only when a
// compaction case runs.
struct Buffers {
  testkit::Buffer in, out, temp, staging, flags, count;
};

// GPU clocks drop while the host verifies results between cases, and a few runs do not bring them
// back (seen on the H200: the first cases after an idle second ran 2-4x slower). So time_runs keeps
// the GPU busy for at least this long before the timed runs, in the same submission.
extern double g_warmup_ms;
// Sets g_warmup_ms: `requested` if >= 0, else default_warmup_ms for the device (bench_common.hpp). A
// batch that follows another within 100 ms gets at most 200 ms of it (BatchWarmup).
void set_warmup_ms(const Context& ctx, double requested);

// Records `warmup` + `runs` repetitions of `record` in one submission, each timed run between two
// timestamps and every repetition followed by a barrier, and returns the timed runs' GPU times (ms).
std::vector<double> time_runs_once(const Context& ctx, uint32_t warmup, uint32_t runs,
                                   const std::function<void(VkCommandBuffer)>& record);
// time_runs_once after at least g_warmup_ms of warm-up work (warmed_up_runs, bench_common.hpp).
std::vector<double> time_runs(const Context& ctx, uint32_t warmup, uint32_t runs,
                              const std::function<void(VkCommandBuffer)>& record);

// The GLSL copy roofline: shaders/copy.comp with the tile kernels' layout, b.in -> b.out.
// The copy roofline: n elements of 4 bytes (copy.u32) or 8 (copy.u64: the 8-byte scans' layout,
// shaders/copy.comp).
void record_copy(const Context& ctx, VkCommandBuffer cmd, const Buffers& b, uint64_t n, uint32_t w, uint32_t k,
                 uint32_t element_bytes = 4);

// Gives `ctx` the benchmarks' own kernels ("copy.u32", "bench_pattern"), which are not in the library
// (GPUSCAN_BENCH_SHADER_VARIANTS, compiled into generated/bench_kernels.hpp).
void add_bench_modules(const Context& ctx);

// Copies `bytes` from device buffer `src` to the staging buffer and returns a pointer to them.
const void* read_back(const Context& ctx, const Buffers& b, VkBuffer src, uint64_t bytes);
void upload(const Context& ctx, const Buffers& b, VkBuffer dst, const void* data, uint64_t bytes);
// Fills `bytes` of `buffer` with 0xA5 bytes, so a result that was not written cannot pass the check.
void poison(const Context& ctx, VkBuffer buffer, uint64_t bytes);
// Zeroes a whole buffer (the single-pass look-back state before its first use).
void zero(const Context& ctx, VkBuffer buffer);

// One measured case. `bytes` is what the case must move at least (see docs/bench.md): 2·n·4 for a scan
// or a copy, n·4 read + kept·4 written (+ n·4 flags read) for a compaction.
struct Row {
  std::string impl, algorithm, type, kind;
  uint64_t n = 0;
  Stats stats{};
  uint32_t runs = 0;
  double bytes = 0;
  double gbps() const { return bytes / (stats.median_ms * 1e-3) / 1e9; }
};

// Writes rows as CSV (the header and '#' metadata lines first) to `csv` and, when `json_path` is not
// empty, collects them for a JSON document written by finish():
//   {"metadata": {"device": ..., ...}, "rows": [{"impl": ..., "n": ..., "gbps": ...}, ...]}
// with the CSV's fields under the same names.
class Sink {
 public:
  Sink(std::ostream& csv, std::string json_path);
  void metadata(const std::string& key, const std::string& value);  // before the first row
  void row(const Row& r);
  void note(const std::string& line);  // a '#' line in the CSV (mismatches), "notes" in JSON
  void finish();                       // writes the JSON file; throws gpuscan::Error if it cannot

 private:
  std::ostream& csv_;
  std::string json_path_;
  std::vector<std::pair<std::string, std::string>> metadata_;
  std::vector<std::string> json_rows_, notes_;
  bool header_written_ = false;
};

}  // namespace gpuscan::bench
