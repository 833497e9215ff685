// The benchmark's segmented reductions by offsets (gpuscan_bench --ops segmented-reduce), on the data
// the CUB comparison (cub::DeviceSegmentedReduce::Sum) generates the same way:
//   kind "segments-1e6-len0-32": 10^6 segments, lengths uniform in [0, 32] (mean 16); n = their sum.
//   kind "segments-1e3":         10^3 segments over n = 2^24 and 2^28 elements (those within --max-log2),
//                                lengths about n / 10^3 (offsets_with_total).
// The lengths come from splitmix64 (segment_lengths_*) started at --segment-rng, so another program
// that implements the same two functions gets the same offsets. Values are random (u32 over the whole
// range, f32 uniform in [-1, 1)), add. gbps counts n values read, S + 1 offsets read and S results written.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "bench_support.hpp"

namespace gpuscan::bench {

// splitmix64 (Steele, Lea, Flood 2014): state += 0x9E3779B97F4A7C15, then the usual finalizer.
uint64_t splitmix64_next(uint64_t& state);

// Offsets of `segments` segments whose lengths are splitmix64_next(state) % 33, in order (10^6 of them:
// about 1.6 · 10^7 elements).
std::vector<uint32_t> offsets_len0_32(uint64_t segments, uint64_t state);

// Offsets of `segments` segments covering exactly n elements, each about base = n / segments long:
// lengths base / 2 + splitmix64_next(state) % (base + 1) drawn in order, then the difference between
// their sum and n spread evenly (each segment |diff| / segments more or less, the first |diff| % segments
// one more) -- the CUB benchmark's segment_lengths_with_total, so both reduce the same segments.
std::vector<uint32_t> offsets_with_total(uint64_t segments, uint64_t n, uint64_t state);

struct SegmentedReduceOptions {
  std::vector<std::string> types;  // u32, f32 (any type the library takes)
  int max_log2 = 28;               // the 2^24 / 2^28 cases up to this size
  uint64_t rng_state = 1;          // --segment-rng
  uint32_t warmup = 5, runs = 30;
  bool verify = true;
};

// Runs every case; rows go to `sink` (impl gpuscan-vulkan, algorithm segmented-reduce). A case the
// device cannot hold (one binding) is noted and skipped. Returns the number of cases that failed their
// check against cpu::segmented_reduce (u32 exactly, f32 within the rounding bound of the tests).
int run_segmented_reduce_cases(const Context& ctx, const SegmentedReduceOptions& options, Sink& sink,
                               std::mt19937_64& rng);

}  // namespace gpuscan::bench
