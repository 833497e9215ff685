// Stream compaction on Vulkan (gpuscan/compact.hpp says what it does and how it runs): the recording
// calls, which append a selection or a partition to the caller's command buffer, and convenience calls
// on host data.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <vulkan/vulkan_core.h>

#include "gpuscan/compact.hpp"
#include "gpuscan/segmented.hpp"
#include "gpuscan/types.hpp"
#include "gpuscan/vulkan/context.hpp"

namespace gpuscan {

// Temporary storage record_select_if / record_select_flagged / record_partition_if /
// record_partition_flagged need for `count` elements (tile counts and their scan's scratch, or the
// single-pass look-back state). size is never 0 for count > 0. Where the single-pass plan may run, usage
// includes TRANSFER_DST (the state is cleared with a fill) and alignment is the device's storage-buffer
// offset alignment (the state is bound from its first byte).
// With `indirect` (SelectArgs::count_from), `count` is the upper bound, size covers the dispatch
// parameters written on the GPU too, and usage includes INDIRECT_BUFFER.
TempRequirements compact_temp_requirements(const Context& ctx, uint64_t count, const CompactConfig& config,
                                           bool indirect = false);

// The passes a selection of `count` elements would record (for `gpuscan info`-like listings).
std::string describe_compact_plan(const Context& ctx, uint64_t count, const CompactConfig& config);

struct SelectArgs {
  CompactConfig config;
  uint64_t count = 0;     // elements of input; 0 records a pass that writes 0 to count_out
  BufferView input;       // count elements
  BufferView flags;       // record_select_flagged: count u32 flags (kept where non-zero); ignored by select_if
  Predicate predicate;    // record_select_if; ignored by select_flagged
  BufferView output;      // room for the worst case: count elements, whatever the data
  BufferView count_out;   // one u32: the number of elements kept
  BufferView temp;        // compact_temp_requirements(ctx, count, config).size bytes
  // single_pass: temp's look-back state is known to be zero -- zeroed by the caller once, or left so by
  // the previous single-pass compaction or scan on this temp (each clears it when it ends) -- so no fill
  // and no transfer -> compute barrier are recorded. A three-pass compaction or a partition on the same
  // temp leaves it dirty. Ignored by the three-pass plan.
  bool temp_zeroed = false;
  // Optional: take the count from GPU memory (IndirectCount, as ScanArgs::count_from): `count` is then
  // its upper bound, which sizes temp (compact_temp_requirements(..., indirect = true)) and the buffers'
  // checks. A count above the bound compacts the first `count` elements and sets the status word to 1
  // (else 0); nothing is read or written past the bound. Every dispatch is issued with
  // vkCmdDispatchIndirect sized for the real count, so compaction -> compaction and scan -> compaction
  // chains (and compaction -> scan) need no readback. Barrier contract as for scans: the count's writes
  // visible to COMPUTE_SHADER / SHADER_READ; temp needs VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT; the bound
  // must fit one binding (no windows). count_out receives the number kept of the real count.
  //   // count_buf holds 5 (written by an earlier pass); in = [3, 0, 7, 0, 4, 1, 6, 0]
  //   record_select_if(ctx, cmd, {.count = 8, .input = in, .predicate = Predicate::nonzero(), .output = out,
  //                               .count_out = kept, .temp = tmp, .count_from = IndirectCount{.buffer = count_buf}});
  //   // out <-- [3, 7, 4], kept <-- 3, out[3..7] untouched
  std::optional<IndirectCount> count_from;
  // What `flags` holds: SegmentHeads::flags (the default), or keys_u32 / keys_u64, count keys, an element
  // kept where its key differs from the one before (element 0 always): the values of unique_by_key, and
  // with record_partition_flagged the first of each run of keys, then the rest. Keys must fit one
  // storage-buffer binding, as run_start's input (Errc::too_large).
  //   // keys = [5, 5, 9, 9, 9, 2], in = [10, 11, 12, 13, 14, 15]
  //   record_select_flagged(ctx, cmd, {.count = 6, .input = in, .flags = keys, .output = out, .count_out = kept,
  //                                    .temp = tmp, .flags_kind = SegmentHeads::keys_u32});
  //   // out <-- [10, 12, 15], kept <-- 3
  SegmentHeads flags_kind = SegmentHeads::flags;
};

// Record the compaction into `cmd`. Barrier contract as record_scan's: writes to input (and flags)
// must be visible to COMPUTE_SHADER / SHADER_READ, earlier uses of output, count_out and temp complete
// before COMPUTE_SHADER. Afterwards output[0, kept) and count_out are written by COMPUTE_SHADER /
// SHADER_WRITE; output past `kept` is left as it was. Input and output must not overlap.
void record_select_if(const Context& ctx, VkCommandBuffer cmd, const SelectArgs& args);
void record_select_flagged(const Context& ctx, VkCommandBuffer cmd, const SelectArgs& args);

// Record a stable partition into `cmd` (same arguments and barrier contract as record_select_*): output
// must hold `count` elements (else Errc::buffer_too_small) and all of output[0, count) is written, kept
// elements first, rejected after them, both in input order; count_out receives the number kept.
void record_partition_if(const Context& ctx, VkCommandBuffer cmd, const SelectArgs& args);
void record_partition_flagged(const Context& ctx, VkCommandBuffer cmd, const SelectArgs& args);

// Which of the four record calls prepare_compact readies the pipelines for: each predicate kind has
// pipelines of its own (its constants do not: any a, b of that kind is prepared), flags theirs.
struct CompactCall {
  bool flagged = false;                               // record_*_flagged; else record_*_if with ...
  PredicateKind predicate = PredicateKind::nonzero;   // ... a predicate of this kind
  bool partition = false;                             // record_partition_*; else record_select_*
};

// Builds up front every pipeline the record call `call` needs for `config` and any count from 1 to
// `max_count`, as prepare_scan (gpuscan/vulkan/scan.hpp) does for scans; PrepareOptions::in_place does
// not apply. Throws what the record call would throw for such a compaction.
//   gpuscan::prepare_compact(ctx, max_particles, {}, {.predicate = gpuscan::PredicateKind::greater});
//   // later, every frame: record_select_if(ctx, cmd, {... .predicate = Predicate::greater(0.5f) ...})
void prepare_compact(const Context& ctx, uint64_t max_count, const CompactConfig& config, const CompactCall& call,
                     const PrepareOptions& options = {});

// Convenience: upload, compact, download. The result's size is the number kept (read back from the
// GPU's count buffer). select_flagged throws Errc::invalid_argument when flags is shorter than values.
template <Element T>
std::vector<T> select_if(const Context& ctx, std::span<const T> values, Predicate predicate, CompactConfig config = {});
template <Element T>
std::vector<T> select_flagged(const Context& ctx, std::span<const T> values, std::span<const uint32_t> flags,
                              CompactConfig config = {});

// Convenience: upload, partition, download. partition_flagged throws Errc::invalid_argument when flags
// is shorter than values.
template <Element T>
PartitionResult<T> partition(const Context& ctx, std::span<const T> values, Predicate predicate, CompactConfig config = {});
template <Element T>
PartitionResult<T> partition_flagged(const Context& ctx, std::span<const T> values, std::span<const uint32_t> flags,
                                     CompactConfig config = {});

// Convenience: the first of every run of equal consecutive keys and the value beside it (CUB's
// DeviceSelect::UniqueByKey, thrust::unique_by_key_copy): .first the keys (unique), .second the values
// (select_flagged with the keys as SegmentHeads::keys_u32 or keys_u64). Key is uint32_t or uint64_t;
// Errc::invalid_argument when there are fewer values than keys.
//   std::vector<uint32_t> keys = {5, 5, 9, 9, 9, 2};
//   std::vector<float> v = {1, 2, 3, 4, 5, 6};
//   auto [k, first] = gpuscan::unique_by_key(ctx, std::span<const uint32_t>(keys), std::span<const float>(v));
//   // k == {5, 9, 2}, first == {1, 3, 6}
template <class Key, Element T>
std::pair<std::vector<Key>, std::vector<T>> unique_by_key(const Context& ctx, std::span<const Key> keys,
                                                          std::span<const T> values, CompactConfig config = {});

// Convenience: the first element of every run of equal consecutive elements, which is select_if with
// Predicate::run_start() (std::unique_copy; on sorted data, the distinct values in order). The input
// must fit one storage-buffer binding (Errc::too_large).
//   std::vector<uint32_t> v = {3, 3, 1, 1, 1, 3, 7, 7};
//   gpuscan::unique(ctx, std::span<const uint32_t>(v));   // {3, 1, 3, 7}
template <Element T>
std::vector<T> unique(const Context& ctx, std::span<const T> values, CompactConfig config = {}) {
  return select_if(ctx, values, Predicate::run_start(), config);
}

// u32, i32 and f32; u64 and i64 need shaderInt64, f64 shaderFloat64 (Errc::unsupported without).
#define GPUSCAN_COMPACT_EXTERN(T)                                                                            \
  extern template std::vector<T> select_if(const Context&, std::span<const T>, Predicate, CompactConfig);   \
  extern template std::vector<T> select_flagged(const Context&, std::span<const T>, std::span<const uint32_t>, \
                                                CompactConfig);                                             \
  extern template PartitionResult<T> partition(const Context&, std::span<const T>, Predicate, CompactConfig); \
  extern template PartitionResult<T> partition_flagged(const Context&, std::span<const T>,                   \
                                                       std::span<const uint32_t>, CompactConfig);           \
  extern template std::pair<std::vector<uint32_t>, std::vector<T>> unique_by_key(                           \
      const Context&, std::span<const uint32_t>, std::span<const T>, CompactConfig);                        \
  extern template std::pair<std::vector<uint64_t>, std::vector<T>> unique_by_key(                           \
      const Context&, std::span<const uint64_t>, std::span<const T>, CompactConfig);
GPUSCAN_COMPACT_EXTERN(uint32_t)
GPUSCAN_COMPACT_EXTERN(int32_t)
GPUSCAN_COMPACT_EXTERN(float)
GPUSCAN_COMPACT_EXTERN(uint64_t)
GPUSCAN_COMPACT_EXTERN(int64_t)
GPUSCAN_COMPACT_EXTERN(double)
#undef GPUSCAN_COMPACT_EXTERN

}  // namespace gpuscan
