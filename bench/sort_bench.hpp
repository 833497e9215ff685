// The benchmark's radix sort cases (--ops sort), beside CUB's DeviceRadixSort::SortKeys / SortPairs:
// u32 keys uniform over [0, 2^32), alone and with u32 values, and u64 keys where the buffers hold 8-byte
// elements (--types with a 64-bit type); each with SortAlgorithm::multipass and, where the device has
// 64-bit buffer atomics, onesweep. Each case is also timed as its first pass alone,
// cut after each stage (kinds "<kind>/pass1-counts", "/pass1-counts+scan", "/pass1"). --workgroup-sizes
// and --vectors sweep the tile (W, keys per lane K; 0 = the default, named "-w<W>k<K>" otherwise).
#pragma once

#include <cstdint>
#include <random>

#include "bench_support.hpp"

namespace gpuscan::bench {

// Runs the cases at `n` keys: each checked once against std::stable_sort (when `verify`) on a poisoned
// output, then timed; one row each to `sink`: impl gpuscan-vulkan, algorithm "radix-multipass" or
// "radix-onesweep", type u32 or u64, kind "keys" or "pairs-u32", bytes = 2·n·(key + value bytes) (every
// key and value read and written once: the least a sort moves). `b.in` and `b.out` hold the keys (n
// elements of `element_bytes`, 4 or 8); temp and the values are allocated here. Returns the number of
// cases that failed their check (those are not timed).
int run_sort_cases(const Context& ctx, const Buffers& b, uint64_t n, uint32_t element_bytes,
                   const std::vector<uint32_t>& workgroup_sizes, const std::vector<uint32_t>& keys_per_lane, int warmup,
                   int runs, bool verify, Sink& sink, std::mt19937_64& rng);

}  // namespace gpuscan::bench
