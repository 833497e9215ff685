// The benchmark's segmented reductions by offsets (gpuscan_bench --ops segmented-reduce), on the data
// the CUB comparison (cub::DeviceSegmentedReduce::Sum) generates the same way:
//   kind "segments-1e6-mean16": 10^6 segments, lengths uniform in [0, 32] (mean 16); n = their sum.
//   kind "segments-1e3":         10^3 segments over n = 2^24 and 2^28 elements (those within --max-log2),
//                                lengths about n / 10^3 (offsets_with_total).
// The lengths come from bench/segment_lengths.hpp started at --segment-rng (default 1, the CUB
// benchmark's default seed), so both programs reduce the same segments. Values are random (u32 over the whole
// range, f32 uniform in [-1, 1)), add. gbps counts n values read, S + 1 offsets read and S results written.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "bench_support.hpp"

namespace gpuscan::bench {

// Offsets of `segments` segments of bench_inputs::random_segment_lengths(state, segments, 32)
// (bench/segment_lengths.hpp; 10^6 of them: about 1.6 · 10^7 elements).
std::vector<uint32_t> offsets_len0_32(uint64_t segments, uint64_t state);

// Offsets of `segments` segments covering exactly n elements: bench_inputs::segment_lengths_with_total,
// as the CUB benchmark draws them, so both reduce the same segments.
std::vector<uint32_t> offsets_with_total(uint64_t segments, uint64_t n, uint64_t state);

struct SegmentedReduceOptions {
  std::vector<std::string> types;  // u32, f32 (any type the library takes)
  int max_log2 = 28;               // the 2^24 / 2^28 cases up to this size
  uint64_t rng_state = 1;          // --segment-rng
  uint32_t warmup = 5, runs = 30;
  bool verify = true;
  std::vector<uint32_t> workgroup_sizes{0}, vectors{0};  // tile shapes to sweep (0 = the default)
};

// Runs every case; rows go to `sink` (impl gpuscan-vulkan, algorithm segmented-reduce). A case the
// device cannot hold (one binding) is noted and skipped. Returns the number of cases that failed their
// check against cpu::segmented_reduce (u32 exactly, f32 within the rounding bound of the tests).
int run_segmented_reduce_cases(const Context& ctx, const SegmentedReduceOptions& options, Sink& sink,
                               std::mt19937_64& rng);

}  // namespace gpuscan::bench
