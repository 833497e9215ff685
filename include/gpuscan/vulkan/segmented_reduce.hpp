// Segmented reductions by offsets on Vulkan: S segments given by S + 1 non-decreasing u32 offsets (CSR:
// segment s is values[offsets[s] .. offsets[s+1])), one result per segment, for every type and operator
// of ScanConfig. An empty segment (offsets[s] == offsets[s+1]) gives the operator's identity; values
// before offsets[0] and from offsets[S] on are ignored.
//
//   std::vector<uint32_t> v       = {3, 1, 7, 0, 4, 1, 6, 3};
//   std::vector<uint32_t> offsets = {0, 3, 3, 5, 8};                  // [3 1 7] [] [0 4] [1 6 3]
//   auto sums = gpuscan::segmented_reduce(ctx, std::span<const uint32_t>(v), std::span<const uint32_t>(offsets));
//   // sums == {11, 0, 4, 10}
//   auto tops = gpuscan::segmented_reduce(ctx, std::span<const uint32_t>(v), std::span<const uint32_t>(offsets),
//                                         gpuscan::Op::max);
//   // tops == {7, 0, 4, 6}                                           (max's identity on u32 is 0)
//
// How it runs (docs/segmented_reduce.md): balanced over elements, not over segments, so a few huge
// segments and millions of tiny ones run alike, and the values are read once. (0) One invocation per
// tile finds the offsets that fall in it. (1) Each workgroup scans
// a tile as (head, value) pairs, the heads marked from the offsets that fall in the tile, and writes the
// result of every segment that starts and ends there; a segment that ends in the tile but started
// before leaves its piece in temp, as every tile its total. (2) gpuscan's segmented scan, inclusive, of
// the tiles' totals. (3) One invocation per tile with a piece writes scan-before-the-tile (+) piece.
// The combination order depends only on the count, the offsets, the tile shape and the subgroup size,
// never on scheduling, so float results are bitwise reproducible on one device. It needs what segmented
// scans need (subgroup shuffles). Limits: u32 offsets; the values are bound once, so count is at most
// what one storage-buffer binding holds (maxStorageBufferRange; Errc::too_large past it). On OpenGL:
// gpuscan::gl::segmented_reduce and record_segmented_reduce (gl.hpp), the same plan without subgroups.
// Segmented scans with segments by offsets are in gpuscan/vulkan/segmented.hpp (segmented_scan_by_offsets).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include <vulkan/vulkan_core.h>

#include "gpuscan/reduce.hpp"
#include "gpuscan/types.hpp"
#include "gpuscan/vulkan/context.hpp"

namespace gpuscan {

// Temporary storage record_segmented_reduce needs for `count` values of config.type (any S): a few
// values and words per tile of the values and the scan of the tiles' totals. size is 0 when count is 0.
TempRequirements segmented_reduce_temp_requirements(const Context& ctx, uint64_t count, const ReduceConfig& config);

struct SegmentedReduceArgs {
  ReduceConfig config;    // type and op; workgroup_size and vectors_per_lane shape the tiles (K 0 = 1 here)
  uint64_t count = 0;     // values in `input` (from input.offset); offsets index them
  uint64_t segments = 0;  // S: segments and results; 0 records nothing
  BufferView input;       // count elements of config.type (may be empty when count is 0)
  BufferView offsets;     // S + 1 u32, non-decreasing, offsets[S] <= count; must not overlap output
  BufferView output;      // S elements of config.type; must not overlap input or offsets
  BufferView temp;        // segmented_reduce_temp_requirements(ctx, count, config).size bytes
};

// Records the segmented reduction into `cmd`. Barrier contract as record_scan's
// (gpuscan/vulkan/scan.hpp): writes to input and offsets visible to COMPUTE_SHADER / SHADER_READ before;
// earlier uses of output and temp complete before compute shaders; afterwards output is written by
// VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT / VK_ACCESS_SHADER_WRITE_BIT.
//   // in = [3, 1, 7, 0, 4, 1, 6, 3], offsets = [0, 3, 3, 5, 8]
//   gpuscan::record_segmented_reduce(ctx, cmd, {.config = {}, .count = 8, .segments = 4, .input = in,
//                                               .offsets = offsets, .output = out, .temp = tmp});
//   // out <-- [11, 0, 4, 10]
// Precondition, not checked here (the offsets are in GPU memory): offsets non-decreasing and offsets[S]
// <= count. Broken, the results are unspecified, but every read and write stays inside the bound ranges.
// Errors (before anything is recorded): Errc::null_handle, missing_usage, misaligned and buffer_too_small
// for the views (offsets too short for S + 1 is buffer_too_small), Errc::invalid_argument for overlaps,
// Errc::too_large for a count past one binding or 2^32 - 1, S past 2^32 - 2, and what the config asks that
// the device cannot do (Errc::unsupported).
void record_segmented_reduce(const Context& ctx, VkCommandBuffer cmd, const SegmentedReduceArgs& args);

// Builds up front every pipeline record_segmented_reduce needs for `config` and counts up to `max_count`.
//   gpuscan::prepare_segmented_reduce(ctx, 1u << 24, {.type = gpuscan::DataType::f32});
void prepare_segmented_reduce(const Context& ctx, uint64_t max_count, const ReduceConfig& config);

// Convenience: upload, reduce, download; blocks until done. Checks the offsets on the host:
// Errc::invalid_argument when they are empty (S + 1 >= 1 entries), decrease, or offsets[S] > values.size().
// The config's type is T's.
template <Element T>
std::vector<T> segmented_reduce(const Context& ctx, std::span<const T> values, std::span<const uint32_t> offsets,
                                ReduceConfig config = {});
template <Element T>
std::vector<T> segmented_reduce(const Context& ctx, std::span<const T> values, std::span<const uint32_t> offsets,
                                Op op) {
  return segmented_reduce(ctx, values, offsets, ReduceConfig{.op = op});
}

// Untyped form (the CLI, the Python module): `values` holds elements of config.type; returns S results' bytes.
std::vector<std::byte> segmented_reduce_bytes(const Context& ctx, std::span<const std::byte> values,
                                              std::span<const uint32_t> offsets, const ReduceConfig& config);

extern template std::vector<uint32_t> segmented_reduce(const Context&, std::span<const uint32_t>,
                                                       std::span<const uint32_t>, ReduceConfig);
extern template std::vector<int32_t> segmented_reduce(const Context&, std::span<const int32_t>,
                                                      std::span<const uint32_t>, ReduceConfig);
extern template std::vector<float> segmented_reduce(const Context&, std::span<const float>, std::span<const uint32_t>,
                                                    ReduceConfig);
extern template std::vector<uint64_t> segmented_reduce(const Context&, std::span<const uint64_t>,
                                                       std::span<const uint32_t>, ReduceConfig);
extern template std::vector<int64_t> segmented_reduce(const Context&, std::span<const int64_t>,
                                                      std::span<const uint32_t>, ReduceConfig);
extern template std::vector<double> segmented_reduce(const Context&, std::span<const double>,
                                                     std::span<const uint32_t>, ReduceConfig);

}  // namespace gpuscan
