// The benchmark's compaction cases: select_if with a `>` threshold and select_flagged with
// 0/1 flags, at chosen densities (percent of elements kept), on random data of each chosen type.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "bench_support.hpp"

namespace gpuscan::bench {

struct CompactOptions {
  std::vector<std::string> ops;         // "select-if", "select-flagged", "unique", "rle" (u32 key runs, mean 16)
  std::vector<DataType> types{DataType::u32};
  std::vector<uint32_t> densities;      // percent kept, 0..100
  std::vector<std::string> algorithms;  // "three-pass", "single-pass", "single-pass-fill"
  std::vector<uint32_t> workgroup_sizes, vectors;
  std::vector<uint32_t> tiles_per_workgroup{0};  // single-pass only (0 = default)
  std::vector<uint32_t> spins{0};                // single-pass only: spin limits (0 = default)
  uint32_t warmup = 5, runs = 30;
  bool verify = true;
};

// Throws gpuscan::Error(invalid_argument) for an unknown op or algorithm or a density above 100.
void check_compact_options(const CompactOptions& options);

// The temp bytes every compaction case of up to `max_n` elements needs.
uint64_t compact_temp_bytes(const Context& ctx, uint64_t max_n, const CompactOptions& options);

// Runs every compaction case of `n` elements: each is checked once against std::copy_if on a poisoned
// output (when options.verify), then timed; one row per case goes to `sink`:
//   impl gpuscan-vulkan, algorithm as asked (with -wW-kK when several shapes are swept), the type,
//   kind "<op>-<density>%" (e.g. "select-if-50%"),
//   bytes = n·sizeof(T) read + kept·sizeof(T) written (+ n·4 read for the u32 flags of select-flagged).
// `b` needs in, out, temp, staging, flags and count buffers of the largest size. Returns the number
// of cases that failed their check (those are not timed).
int run_compaction_cases(const Context& ctx, const Buffers& b, uint64_t n, const CompactOptions& options, Sink& sink,
                         std::mt19937_64& rng);

}  // namespace gpuscan::bench
