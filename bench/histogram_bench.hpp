// The benchmark's histogram cases, beside CUB's DeviceHistogram::HistogramEven: 256 even bins over the
// full u32 range (u32 samples uniform over [0, 2^32), lower 0, upper 2^32: CUB takes the levels in a
// wider type, e.g. uint64_t or double, as 2^32 is no u32) and over [0, 1) for f32 samples uniform in [0, 1).
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "bench_support.hpp"

namespace gpuscan::bench {

// The temp bytes the histogram cases need (the edge table).
uint64_t histogram_temp_bytes(const Context& ctx);

// The tile shapes and grids to sweep (HistogramConfig's workgroup_size, vectors_per_lane, max_workgroups;
// 0 = gpuscan's choice).
struct HistogramSweep {
  std::vector<uint32_t> workgroup_sizes{0}, vectors{0}, groups{0};
};

// Runs both cases at `n` samples, for each shape of `sweep`: each checked once against cpu::histogram (when
// `verify`) on poisoned counts, then timed; one row each to `sink`: impl gpuscan-vulkan, algorithm
// "histogram-even" (with a shape other than the defaults "histogram-even-w<W>v<V>g<G>"), type u32 or f32,
// kind "histogram-256" (as the CUB benchmark names it), bytes = n·4 read. `b` needs in, out (the counts)
// and temp of the largest size. Returns the number of cases that failed their check (those are not timed).
int run_histogram_cases(const Context& ctx, const Buffers& b, uint64_t n, const HistogramSweep& sweep, int warmup,
                        int runs, bool verify, Sink& sink, std::mt19937_64& rng);

}  // namespace gpuscan::bench
