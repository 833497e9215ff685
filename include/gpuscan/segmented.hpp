// Segmented scans: scans that restart at the start of every segment, for every type and
// operator of ScanConfig. Segments are given either by head flags (one u32 per element, non-zero where a
// segment starts) or by keys (a segment is a run of equal consecutive keys, u32 or u64). Element 0
// always starts a segment.
//
//   std::vector<uint32_t> v     = {3, 1, 7, 0, 4, 1, 6, 3};
//   std::vector<uint32_t> flags = {1, 0, 0, 1, 0, 1, 0, 0};          // segments [3 1 7] [0 4] [1 6 3]
//   gpuscan::ScanConfig c;                                          // u32 add, exclusive
//   auto ex = gpuscan::segmented_scan(ctx, std::span<const uint32_t>(v), std::span<const uint32_t>(flags), c);
//   // ex == {0, 3, 4,  0, 0,  0, 1, 7}    the first element of every segment gets the identity
//   c.kind = gpuscan::ScanKind::inclusive;
//   std::vector<uint32_t> keys = {9, 9, 9, 4, 4, 9, 9, 9};          // the same segments, by key
//   auto in = gpuscan::segmented_scan_by_key(ctx, std::span<const uint32_t>(keys), std::span<const uint32_t>(v), c);
//   // in == {3, 4, 11,  0, 4,  1, 7, 10}
//
// How it runs: reduce-then-scan over (head, value) pairs, whose operator
//   (ha, a) (+) (hb, b) = (ha | hb, hb ? b : a (+) b)
// is associative for every associative (+) (docs/scan.md#segmented-scans). Heads are read straight from
// the flags or keys in every pass (no pass writes flags for the data). It moves about 3N values and 2N
// heads (N more heads for keys); the order of combination depends only on n, the tile shape and the
// subgroup size, never on scheduling, so float results are bitwise reproducible. Ranges longer than one
// storage-buffer binding (maxStorageBufferRange; heads count too: u64 keys halve the window) run as
// consecutive windows of whole tiles, the value of the segment open at a window's end carried into the
// next on the GPU (a key is compared with the previous window's last key), so any count runs whose
// buffers fit in memory (docs/scan.md#segmented-scans). It needs subgroup
// shuffles (shuffle and shuffle_relative) in compute shaders, and for u64/i64 shaderSubgroupExtendedTypes;
// Errc::unsupported says what is missing. gpuscan::gl has the same calls (gl.hpp), run without subgroups.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gpuscan/types.hpp"
#include "gpuscan/vulkan.hpp"

namespace gpuscan {

// What SegmentedScanArgs::heads holds.
enum class SegmentHeads : uint8_t {
  flags,     // one u32 per element: non-zero = the element starts a segment
  keys_u32,  // one u32 key per element: a segment starts where the key differs from the previous one
  keys_u64,  // one u64 key per element, likewise
};
std::string_view to_string(SegmentHeads heads) noexcept;  // "flags", "u32 keys", "u64 keys"

// Which fields of ScanConfig a segmented scan uses: type, op, kind, workgroup_size and vectors_per_lane
// (tiles of W · K · 4 elements). algorithm must be automatic or reduce_then_scan (the only segmented plan;
// anything else is Errc::unsupported); workgroup, spin_limit and deterministic do not apply (it is always
// deterministic).

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
  // Optional: take the count from GPU memory, as ScanArgs::count_from does (gpuscan/vulkan.hpp): the
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
// count from 1 to `max_count`, as prepare_scan (gpuscan/vulkan.hpp) does for scans (in place or not:
// the same pipelines).
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

#define GPUSCAN_SEGMENTED_DECLARE(T)                                                                              \
  extern template std::vector<T> segmented_scan(const Context&, std::span<const T>, std::span<const uint32_t>,    \
                                                ScanConfig);                                                      \
  extern template std::vector<T> segmented_scan_by_key(const Context&, std::span<const uint32_t>,                 \
                                                       std::span<const T>, ScanConfig);                           \
  extern template std::vector<T> segmented_scan_by_key(const Context&, std::span<const uint64_t>,                 \
                                                       std::span<const T>, ScanConfig);
GPUSCAN_SEGMENTED_DECLARE(uint32_t)
GPUSCAN_SEGMENTED_DECLARE(int32_t)
GPUSCAN_SEGMENTED_DECLARE(float)
GPUSCAN_SEGMENTED_DECLARE(uint64_t)
GPUSCAN_SEGMENTED_DECLARE(int64_t)
GPUSCAN_SEGMENTED_DECLARE(double)
#undef GPUSCAN_SEGMENTED_DECLARE

}  // namespace gpuscan
