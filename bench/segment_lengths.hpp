// segment_lengths.hpp - segment lengths and key runs for the segmented-reduce, run-length-encode and
// unique benchmarks. Plain C++17, no GPU API, so that the CUB benchmark (bench/cub/cub_family_bench.cu)
// and the Vulkan one generate the same inputs from the same seed; sizes (n) of the 1e6-segment case
// depend on the seed, so both must use the same one to be compared row by row.
//
// Every generator draws from one SplitMix64 stream started at the seed it is given:
//   state = seed;
//   next(): state += 0x9E3779B97F4A7C15; z = state;
//           z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9; z = (z ^ (z >> 27)) * 0x94D049BB133111EB;
//           return z ^ (z >> 31);
// The benchmarks pass their --seed unchanged (default_seed unless given).
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <vector>

namespace bench_inputs {

// The seed both benchmarks use when none is given.
inline constexpr std::uint64_t default_seed = 1;

struct SplitMix64 {
  std::uint64_t state;
  explicit SplitMix64(std::uint64_t seed) : state(seed) {}
  std::uint64_t next() {
    state += 0x9E3779B97F4A7C15ull;
    std::uint64_t z = state;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
};

// `count` segment lengths, each next() % (max_length + 1): uniform in [0, max_length], in order.
// max_length 32 gives mean 16 (1 in 33 segments empty). n = the sum of the lengths.
inline std::vector<std::uint64_t> random_segment_lengths(std::uint64_t seed, std::size_t count,
                                                         std::uint64_t max_length = 32) {
  SplitMix64 rng(seed);
  std::vector<std::uint64_t> lengths(count);
  for (auto& len : lengths) len = rng.next() % (max_length + 1);
  return lengths;
}

// `count` segment lengths that sum to exactly n, each about n / count:
//   base = n / count;
//   draw length_i = base / 2 + next() % (base + 1) for i = 0 .. count-1, in order
//     (uniform in [base/2, base/2 + base], mean about base);
//   diff = n - sum of the draws; every segment gets |diff| / count added (diff > 0) or taken away
//     (diff < 0), and the first |diff| % count segments one more.
// The sum of the draws strays from n by about 0.29 * base * sqrt(count) (some 9 * base for 1000
// segments), so the last segment alone cannot take the remainder; spread evenly, the correction is a
// few per cent of base per segment and never makes a length negative.
inline std::vector<std::uint64_t> segment_lengths_with_total(std::uint64_t seed, std::uint64_t n,
                                                             std::size_t count = 1000) {
  if (count == 0) throw std::invalid_argument("segment_lengths_with_total: count must be > 0");
  SplitMix64 rng(seed);
  const std::uint64_t base = n / count;
  std::vector<std::uint64_t> lengths(count);
  std::uint64_t sum = 0;
  for (auto& len : lengths) {
    len = base / 2 + rng.next() % (base + 1);
    sum += len;
  }
  const bool add = n >= sum;
  const std::uint64_t diff = add ? n - sum : sum - n;
  const std::uint64_t each = diff / count, extra = diff % count;
  for (std::size_t i = 0; i < count; ++i) {
    const std::uint64_t adj = each + (i < extra ? 1 : 0);
    lengths[i] = add ? lengths[i] + adj : lengths[i] - adj;  // adj <= base/2 <= lengths[i] when taking away
  }
  return lengths;
}

// Offsets of contiguous segments: count + 1 entries, offsets[0] = 0, offsets[i + 1] = offsets[i] +
// lengths[i]; segment i is [offsets[i], offsets[i + 1]). OffsetT must hold the total.
template <typename OffsetT>
std::vector<OffsetT> segment_offsets(const std::vector<std::uint64_t>& lengths) {
  std::vector<OffsetT> offsets(lengths.size() + 1);
  std::uint64_t at = 0;
  offsets[0] = 0;
  for (std::size_t i = 0; i < lengths.size(); ++i) {
    at += lengths[i];
    offsets[i + 1] = static_cast<OffsetT>(at);
  }
  return offsets;
}

// n u32 keys in runs of equal values, for run-length encoding and unique. Per run, in order:
//   length = 1 + next() % (2 * mean_run - 1)            (uniform in [1, 2*mean_run - 1], mean mean_run)
//   value  = previous + 1 + next() % 0xFFFFFFFF (mod 2^32; previous = 0 before the first run)
// so a run's value always differs from the one before it and the runs are exactly the runs of equal
// keys. The last run is cut short at n. Returns the number of runs.
inline std::uint64_t fill_runs(std::vector<std::uint32_t>& keys, std::uint64_t n, std::uint64_t seed,
                               std::uint64_t mean_run = 16) {
  if (mean_run == 0) throw std::invalid_argument("fill_runs: mean_run must be >= 1");
  SplitMix64 rng(seed);
  keys.resize(n);
  std::uint32_t value = 0;
  std::uint64_t runs = 0;
  for (std::uint64_t i = 0; i < n;) {
    const std::uint64_t length = 1 + rng.next() % (2 * mean_run - 1);
    value = static_cast<std::uint32_t>(value + 1u + static_cast<std::uint32_t>(rng.next() % 0xFFFFFFFFull));
    const std::uint64_t end = (n - i < length) ? n : i + length;
    for (; i < end; ++i) keys[i] = value;
    ++runs;
  }
  return runs;
}

}  // namespace bench_inputs
