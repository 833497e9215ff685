// Segmented scans on Vulkan (gpuscan/segmented.hpp says what they do and how they run): the recording
// call, which appends a segmented scan to the caller's command buffer, and convenience calls on host data.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <vulkan/vulkan_core.h>

#include "gpuscan/segmented.hpp"
#include "gpuscan/types.hpp"
#include "gpuscan/vulkan/context.hpp"

namespace gpuscan {

// Temporary storage record_segmented_scan needs for `count` elements (each level's tile totals and tile
// heads; with more than one window, also the running value carried between them), for any kind of heads.
// size is 0 when one tile holds everything: leave SegmentedScanArgs::temp empty then. `indirect`: the
// scan will take its count from GPU memory (SegmentedScanArgs::count_from; `count` is then the upper
// bound), which adds a few words and VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT.
TempRequirements segmented_scan_temp_requirements(const Context& ctx, uint64_t count, const ScanConfig& config,
                                                  bool indirect = false);

// The passes a segmented scan of `count` elements would record, one line each (for `gpuscan info`-like use).
std::string describe_segmented_scan_plan(const Context& ctx, uint64_t count, const ScanConfig& config,
                                         SegmentHeads heads = SegmentHeads::flags);

struct SegmentedScanArgs {
  ScanConfig config;
  SegmentHeads heads_kind = SegmentHeads::flags;
  // Elements to scan; 0 records nothing. With count_from: the upper bound of the count in GPU memory.
  uint64_t count = 0;
  BufferView input;     // count elements of config.type
  BufferView heads;     // count u32 flags or count keys (u32 or u64, per heads_kind); must not overlap output
  BufferView output;    // count elements; may be exactly the input (in place)
  BufferView temp;      // segmented_scan_temp_requirements(ctx, count, config).size bytes
  // Optional: take the count from GPU memory, as ScanArgs::count_from does (gpuscan/vulkan/scan.hpp): the
  // count is clamped to `count` (the status word, if given, says whether it was), every dispatch is issued
  // with vkCmdDispatchIndirect sized for the real count, and output past it is left untouched. temp
  // needs segmented_scan_temp_requirements(ctx, count, config, true) (VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT);
  // the upper bound must fit one binding (one window: Errc::too_large otherwise).
  //   // count_buf holds 5; in = [3, 1, 7, 0, 4, 1, 6, 3], flags [1, 0, 0, 1, 0, 1, 0, 0]
  //   gpuscan::record_segmented_scan(ctx, cmd, {.count = 8, .input = in, .heads = flags, .output = out,
  //                                             .temp = tmp, .count_from = gpuscan::IndirectCount{.buffer = count_buf}});
  //   // out <-- [0, 3, 4, 0, 0], out[5..7] untouched
  std::optional<IndirectCount> count_from;
};

// Records the segmented scan into `cmd`, with record_scan's barrier contract: writes to input and heads
// visible to COMPUTE_SHADER / SHADER_READ before; results in output written by COMPUTE_SHADER /
// SHADER_WRITE after. Exclusive: output[i] = identity where element i starts a segment, else the
// combination of the segment's elements before i. Inclusive: the combination of the segment's
// elements up to and including i.
//   // in = [3, 1, 7, 0, 4, 1, 6, 3], heads = u32 flags [1, 0, 0, 1, 0, 1, 0, 0]
//   gpuscan::record_segmented_scan(ctx, cmd, {.config = {}, .count = 8, .input = in, .heads = heads,
//                                             .output = out, .temp = tmp});
//   // out <-- [0, 3, 4, 0, 0, 0, 1, 7]
// Errors (before anything is recorded): Errc::null_handle, missing_usage, misaligned and buffer_too_small
// for the views (heads too short for `count` is buffer_too_small), Errc::invalid_argument for overlaps
// (the count or its status word with the output or temp too) and an unknown heads_kind, Errc::too_large
// for a count_from bound past one window, and what the config asks that the device cannot do.
void record_segmented_scan(const Context& ctx, VkCommandBuffer cmd, const SegmentedScanArgs& args);

// Builds up front every pipeline record_segmented_scan needs for `config`, heads of kind `heads` and any
// count from 1 to `max_count`, as prepare_scan (gpuscan/vulkan/scan.hpp) does for scans (in place or
// not: the same pipelines).
//   gpuscan::prepare_segmented_scan(ctx, 1u << 20, config, gpuscan::SegmentHeads::keys_u32);
void prepare_segmented_scan(const Context& ctx, uint64_t max_count, const ScanConfig& config,
                            SegmentHeads heads = SegmentHeads::flags, const PrepareOptions& options = {});

// Convenience: upload, scan, download; blocks until done. Errc::invalid_argument when there are fewer
// flags (or keys) than values.
template <Element T>
std::vector<T> segmented_scan(const Context& ctx, std::span<const T> values, std::span<const uint32_t> flags,
                              ScanConfig config = {});
// Key is uint32_t or uint64_t.
template <Element T, class Key>
std::vector<T> segmented_scan_by_key(const Context& ctx, std::span<const Key> keys, std::span<const T> values,
                                     ScanConfig config = {});

// Untyped form (the CLI, the Python module): `values` holds elements of config.type, `heads` at least as
// many flags or keys as `heads_kind` says.
std::vector<std::byte> segmented_scan_bytes(const Context& ctx, std::span<const std::byte> values,
                                            std::span<const std::byte> heads, SegmentHeads heads_kind,
                                            const ScanConfig& config);

// Segmented scans with segments given by offsets (CSR, as segmented_reduce takes them,
// gpuscan/vulkan/segmented_reduce.hpp): a segment starts at every offsets[s], s = 0 ... S, and at element 0.
// The elements before offsets[0] and from offsets[S] on are scanned as segments of their own; empty
// segments start nothing. It runs as a pass that writes head flags into temp (a binary search of the
// offsets per element) and then record_segmented_scan on them, so it moves N flags more than a scan by
// flags. Same limits as segmented_reduce: u32 offsets, count within one binding (Errc::too_large).
//   // in = [3, 1, 7, 0, 4, 1, 6, 3], offsets = [0, 3, 3, 5, 8]: segments [3 1 7] [] [0 4] [1 6 3]
//   gpuscan::record_segmented_scan_by_offsets(ctx, cmd, {.config = {}, .count = 8, .segments = 4, .input = in,
//                                                        .offsets = offsets, .output = out, .temp = tmp});
//   // out <-- [0, 3, 4, 0, 0, 0, 1, 7]
TempRequirements segmented_scan_by_offsets_temp_requirements(const Context& ctx, uint64_t count,
                                                             const ScanConfig& config);
struct SegmentedScanByOffsetsArgs {
  ScanConfig config;
  uint64_t count = 0;     // elements to scan; 0 records nothing
  uint64_t segments = 0;  // S
  BufferView input;       // count elements
  BufferView offsets;     // S + 1 u32, non-decreasing (a precondition, as for record_segmented_reduce)
  BufferView output;      // count elements; may be exactly the input; must not overlap offsets
  BufferView temp;        // segmented_scan_by_offsets_temp_requirements(ctx, count, config).size bytes
};
// Barrier contract and errors as record_segmented_scan's, plus offsets too short for S + 1
// (buffer_too_small) and offsets overlapping output or temp (invalid_argument).
void record_segmented_scan_by_offsets(const Context& ctx, VkCommandBuffer cmd, const SegmentedScanByOffsetsArgs& args);

// Convenience: checks the offsets on the host as segmented_reduce does (Errc::invalid_argument).
template <Element T>
std::vector<T> segmented_scan_by_offsets(const Context& ctx, std::span<const T> values,
                                         std::span<const uint32_t> offsets, ScanConfig config = {});

#define GPUSCAN_SEGMENTED_DECLARE(T)                                                                              \
  extern template std::vector<T> segmented_scan(const Context&, std::span<const T>, std::span<const uint32_t>,    \
                                                ScanConfig);                                                      \
  extern template std::vector<T> segmented_scan_by_key(const Context&, std::span<const uint32_t>,                 \
                                                       std::span<const T>, ScanConfig);                           \
  extern template std::vector<T> segmented_scan_by_key(const Context&, std::span<const uint64_t>,                 \
                                                       std::span<const T>, ScanConfig);                           \
  extern template std::vector<T> segmented_scan_by_offsets(const Context&, std::span<const T>,                    \
                                                           std::span<const uint32_t>, ScanConfig);
GPUSCAN_SEGMENTED_DECLARE(uint32_t)
GPUSCAN_SEGMENTED_DECLARE(int32_t)
GPUSCAN_SEGMENTED_DECLARE(float)
GPUSCAN_SEGMENTED_DECLARE(uint64_t)
GPUSCAN_SEGMENTED_DECLARE(int64_t)
GPUSCAN_SEGMENTED_DECLARE(double)
#undef GPUSCAN_SEGMENTED_DECLARE

}  // namespace gpuscan
