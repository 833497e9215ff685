// LSD radix sort on Vulkan (gpuscan/sort.hpp holds the configuration and the order of each key type): the
// recording calls, which append a sort to the caller's command buffer, and convenience calls on host data.
//
// Every pass sorts the keys stably by one 8-bit digit, least significant first, in three dispatches: the
// digit counts of every tile of W·K keys (sort_upsweep), an exclusive scan of those counts in digit-major
// order with gpuscan's own record_scan (reduce-then-scan, or multipass where the device has no subgroup
// arithmetic), and the scatter (sort_downsweep), where each tile ranks its keys stably with subgroup
// ballots and writes them, staged in shared memory in digit order, to their scanned positions. No
// workgroup ever waits for another, so the sort needs no forward-progress guarantee, and it is correct
// for any subgroup size from 4 to 128. The device needs subgroup ballots in compute shaders
// (DeviceInfo::has_subgroup_ballot; Errc::unsupported otherwise). SortAlgorithm::onesweep replaces the
// three dispatches of every pass by one, after one read of the keys for every pass's digit counts
// (gpuscan/sort.hpp; docs/sort.md, "Onesweep").
//
// Double buffering: a sort of b bits runs P = max(1, ceil(b / 8)) passes (4 for 32-bit keys, 8 for 64-bit
// keys, fewer with a bit range). Pass 1 reads keys_in; the passes then alternate between keys_out and a key
// array in temp, starting with the one that makes pass P write keys_out (keys_out first when P is odd, temp
// first when it is even); values likewise between values_out and temp. keys_in and values_in are only
// read, so they must not overlap any output or temp; the result is always in keys_out / values_out.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <vulkan/vulkan_core.h>

#include "gpuscan/sort.hpp"
#include "gpuscan/sort_unique.hpp"
#include "gpuscan/vulkan/context.hpp"
#include "gpuscan/vulkan/run_length.hpp"

namespace gpuscan {

// Temporary storage a sort of `count` keys with `config` needs: the other half of the double buffer for
// keys (and values, with config.value_bytes), the tiles' digit counts and record_scan's own temp.
// `indirect`: the count will come from GPU memory (SortArgs::count_from; `count` is then its upper bound),
// which adds 64 bytes for the words the count is read into (no INDIRECT_BUFFER usage: the sort's
// dispatches are all sized for the bound).
//   auto req = gpuscan::sort_temp_requirements(ctx, n, {.key_type = gpuscan::DataType::f32});
TempRequirements sort_temp_requirements(const Context& ctx, uint64_t count, const SortConfig& config,
                                        bool indirect = false);

// The sort's shape for `count` keys, one line each: the algorithm, P, the tile (W, K), how keys are ranked,
// and the plan of the digit counts' scan.
//   gpuscan::describe_sort_plan(ctx, 1u << 20, {})   // "multipass, 4 passes, W = 256, K = 8, ..."
std::string describe_sort_plan(const Context& ctx, uint64_t count, const SortConfig& config);

// The passes a sort of `count` keys with `config` runs (P above): for planning and tests.
//   gpuscan::sort_passes({.key_type = gpuscan::DataType::u64, .end_bit = 40})   // 5
uint32_t sort_passes(const SortConfig& config);

struct SortArgs {
  SortConfig config;     // value_bytes must be 0
  // Keys; 0 records nothing. At most 2^32 - 1. Past one binding (maxStorageBufferRange), the multipass
  // sort reaches keys, values and temp through device addresses: a Context with bufferDeviceAddress
  // (ContextCreateInfo::addressing not `bindings`) and every buffer created with
  // VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT (sort_temp_requirements' usage then asks for it on temp).
  // Addressing::device_address takes that path at every count. With count_from: the upper bound of the
  // count in GPU memory, which sizes temp and the buffers' checks.
  uint64_t count = 0;
  BufferView keys_in;    // count keys of config.key_type from keys_in.offset; only read
  BufferView keys_out;   // count keys: the sorted keys; must not overlap keys_in or temp
  BufferView temp;       // sort_temp_requirements(ctx, count, config).size bytes at its alignment
  // Optional: take the count from GPU memory (IndirectCount, as ScanArgs::count_from, gpuscan/vulkan/scan.hpp):
  // `count` is then its upper bound, and temp sort_temp_requirements(ctx, count, config, true). Every
  // dispatch is sized for the bound and the kernels read the real count when they run; tiles past it
  // count and write nothing, so no key or value is read or written past the real count, and the outputs
  // past it are left untouched. A count above the bound sorts the first `count` keys and sets the status
  // word to 1 (else 0); a bound of 0 only sets the status word. Barrier contract as for scans: the count's
  // writes visible to COMPUTE_SHADER / SHADER_READ; the status word is written like the outputs.
  //   // count_buf holds 5 (written by a compaction, say); in = [5, 1, 4, 1, 3, 9, 9, 9]
  //   gpuscan::record_sort(ctx, cmd, {.config = {}, .count = 8, .keys_in = in, .keys_out = out, .temp = tmp,
  //                                   .count_from = gpuscan::IndirectCount{.buffer = count_buf}});
  //   // out <-- [1, 1, 3, 4, 5], out[5..7] untouched
  std::optional<IndirectCount> count_from;
};

// Records the sort into `cmd`. Barrier contract as record_scan's (gpuscan/vulkan/scan.hpp): writes to
// keys_in visible to compute-shader reads before; earlier uses of keys_out and temp complete before compute
// shaders; afterwards keys_out is written by VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT /
// VK_ACCESS_SHADER_WRITE_BIT. gpuscan places the barriers between its own dispatches. With
// SortAlgorithm::onesweep, earlier uses of temp must also be complete before VK_PIPELINE_STAGE_TRANSFER_BIT:
// its digit counts and tile states are cleared with vkCmdFillBuffer (hence TRANSFER_DST usage, which
// sort_temp_requirements then asks for; Errc::missing_usage without it). Throws
// Errc::invalid_argument for a bad bit range, value_bytes, or overlapping ranges; Errc::too_large past
// 2^32 - 1 keys, or past one binding without device addresses or with Onesweep; Errc::missing_usage for a
// buffer without device addresses where the sort needs them; Errc::unsupported without subgroup ballots,
// or for Onesweep with Addressing::device_address; check_view's errors.
//
//   // in = [5, 1, 4, 1, 3]
//   gpuscan::record_sort(ctx, cmd, {.config = {}, .count = 5, .keys_in = in, .keys_out = out, .temp = tmp});
//   // out <-- [1, 1, 3, 4, 5]
void record_sort(const Context& ctx, VkCommandBuffer cmd, const SortArgs& args);

struct SortPairsArgs {
  SortConfig config;      // value_bytes 4 or 8
  uint64_t count = 0;
  BufferView keys_in;     // as SortArgs
  BufferView keys_out;
  BufferView values_in;   // count values of config.value_bytes; only read; unused with values_are_indices
  BufferView values_out;  // count values: each key's value, moved with it
  BufferView temp;        // sort_temp_requirements(ctx, count, config).size bytes
  // argsort: the values are the keys' input positions 0, 1, ..., count - 1 as u32 (value_bytes 4), made in
  // the first pass; values_in is not read.
  bool values_are_indices = false;
  // Optional: the count from GPU memory, as SortArgs::count_from; the values past it are neither read nor
  // written either.
  std::optional<IndirectCount> count_from;
};

// Records a sort of keys with values that move with them (a stable sort by key; equal keys keep their
// values in input order). Barrier contract and errors as record_sort, with the values alongside the keys.
//
//   // keys = [3.5f, -1.0f, 3.5f, NaN, -0.0f], values = [10, 11, 12, 13, 14]
//   gpuscan::record_sort_pairs(ctx, cmd, {.config = {.key_type = gpuscan::DataType::f32, .value_bytes = 4},
//                                         .count = 5, .keys_in = keys, .keys_out = keys_sorted,
//                                         .values_in = values, .values_out = values_sorted, .temp = tmp});
//   // keys_sorted <-- [-1.0f, -0.0f, 3.5f, 3.5f, NaN], values_sorted <-- [11, 14, 10, 12, 13]
//   // with .values_are_indices = true: values_sorted <-- [1, 4, 0, 2, 3] (np.argsort(kind="stable"))
void record_sort_pairs(const Context& ctx, VkCommandBuffer cmd, const SortPairsArgs& args);

// Builds up front the pipelines a sort with `config` needs (and those of its scan of up to `max_count`
// keys' digit counts), as prepare_scan does; `indirect`: for records with count_from too.
//   gpuscan::prepare_sort(ctx, 1u << 20, {.key_type = gpuscan::DataType::f32});
void prepare_sort(const Context& ctx, uint64_t max_count, const SortConfig& config, bool indirect = false);

// Untyped form (the CLI, Python): keys.size() a multiple of the key size; with config.value_bytes,
// values.size() == keys * value_bytes, or empty with `indices` (argsort: the values are u32 positions,
// value_bytes 4).
SortedBytes sort_bytes(const Context& ctx, std::span<const std::byte> keys, std::span<const std::byte> values,
                       const SortConfig& config, bool indices = false);

// Convenience: upload, sort, download. Blocks until the GPU is done. `config.key_type` and value_bytes
// are taken from the types.
//   std::vector<float> k = {2.5f, -1.0f, 2.5f};
//   gpuscan::sort(ctx, std::span<const float>(k));                        // {-1.0f, 2.5f, 2.5f}
//   gpuscan::argsort(ctx, std::span<const float>(k));                     // {1, 0, 2}
//   gpuscan::sort(ctx, std::span<const float>(k), {.descending = true});  // {2.5f, 2.5f, -1.0f}
template <Element K>
std::vector<K> sort(const Context& ctx, std::span<const K> keys, SortConfig config = {}) {
  return gpuscan::detail::sort_via([&ctx](auto... a) { return sort_bytes(ctx, a...); }, keys, config);
}

template <Element K>
std::vector<uint32_t> argsort(const Context& ctx, std::span<const K> keys, SortConfig config = {}) {
  return gpuscan::detail::argsort_via([&ctx](auto... a) { return sort_bytes(ctx, a...); }, keys, config);
}

// numpy.unique of any input (gpuscan/sort_unique.hpp): the distinct values in ascending order, where each
// first occurs, each element's value and each value's count; config gives the sort's algorithm and shape.
//   const std::vector<int32_t> a{5, 2, 5, 9};
//   auto u = gpuscan::sort_unique(ctx, std::span<const int32_t>(a));
//   // u.values {2, 5, 9}, u.index {1, 0, 3}, u.inverse {1, 0, 1, 2}, u.counts {1, 2, 1}
template <Element T>
UniqueResult<T> sort_unique(const Context& ctx, std::span<const T> values, SortConfig config = {}) {
  return gpuscan::detail::sort_unique_via([&ctx](auto... a) { return sort_bytes(ctx, a...); },
                                          [&ctx](std::span<const T> s) { return run_length_encode(ctx, s); },
                                          values, config);
}

//   std::vector<uint32_t> k = {2, 1, 2};  std::vector<double> v = {0.5, 1.5, 2.5};
//   gpuscan::sort_pairs(ctx, std::span<const uint32_t>(k), std::span<const double>(v));
//   // {{1, 2, 2}, {1.5, 0.5, 2.5}}
template <Element K, class V>
  requires(std::is_trivially_copyable_v<V> && (sizeof(V) == 4 || sizeof(V) == 8))
std::pair<std::vector<K>, std::vector<V>> sort_pairs(const Context& ctx, std::span<const K> keys,
                                                     std::span<const V> values, SortConfig config = {}) {
  return gpuscan::detail::sort_pairs_via([&ctx](auto... a) { return sort_bytes(ctx, a...); }, keys, values, config);
}

}  // namespace gpuscan
