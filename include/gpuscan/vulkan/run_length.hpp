// Run-length encoding on Vulkan: the runs of equal consecutive elements of an array, as CUB's
// DeviceRunLengthEncode. Encode gives the first element of every run and its length (on sorted data the
// distinct values and how often each occurs: np.unique(a, return_counts=True)); non-trivial runs give
// where every run of two or more elements starts and how long it is. The number of runs is written to
// a GPU buffer, so a caller can chain further passes without reading it back.
//
//   std::vector<uint32_t> v = {7, 7, 7, 2, 5, 5, 7};
//   auto rle = gpuscan::run_length_encode(ctx, std::span<const uint32_t>(v));
//   // rle.values == {7, 2, 5, 7}, rle.lengths == {3, 1, 2, 1}
//   auto runs = gpuscan::non_trivial_runs(ctx, std::span<const uint32_t>(v));
//   // runs.offsets == {0, 4}, runs.lengths == {3, 2}
//
// Elements are equal as numbers (Predicate::run_start's rule: -0 == 0, and every NaN is a run of its
// own), of every element type (u64 and i64 need shaderInt64, f64 shaderFloat64). Two passes: a
// compaction (select_if's plans, CompactConfig; single-pass where it can) writes the first element of
// every run and its input index -- for non-trivial runs the first and the last index of each -- and a
// small pass turns the indices into lengths. The input is read once; it must fit one storage-buffer
// binding and have fewer than 2^32 elements (Errc::too_large). Lengths and offsets are u32. OpenGL has the
// same calls in gpuscan/gl.hpp.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include <vulkan/vulkan_core.h>

#include "gpuscan/compact.hpp"
#include "gpuscan/run_length.hpp"  // RunLengthResult, NonTrivialRuns
#include "gpuscan/types.hpp"
#include "gpuscan/vulkan/context.hpp"

namespace gpuscan {

// Temporary storage either record call needs for `count` elements: the compaction's
// (compact_temp_requirements, with its usage and alignment) and room for count u32 indices and a word.
TempRequirements run_length_temp_requirements(const Context& ctx, uint64_t count, const CompactConfig& config);

struct RunLengthArgs {
  CompactConfig config;  // type and the compaction's shape; path, algorithm, W and K as for select_if
  uint64_t count = 0;    // elements of input; 0 writes 0 runs
  BufferView input;      // count elements
  BufferView values;     // encode: room for count elements, the first of each run; non-trivial: unused
  BufferView lengths;    // room for count u32 (encode) or count / 2 (non-trivial): each run's length
  // Each run's first index (u32): optional for encode (room for count), required for non-trivial runs
  // (count / 2).
  BufferView offsets;
  BufferView count_out;  // one u32: the number of runs
  BufferView temp;       // run_length_temp_requirements(ctx, count, config).size bytes
  bool temp_zeroed = false;  // as SelectArgs::temp_zeroed (the compaction's look-back state is temp's start)
};

// Record the encoding into `cmd`: values[0, runs) the first element of each run, lengths[0, runs) its
// length, offsets (if given) its first index, count_out the number of runs. Barrier contract as
// record_select_if's: input writes visible to COMPUTE_SHADER / SHADER_READ beforehand; afterwards the
// outputs are written by COMPUTE_SHADER / SHADER_WRITE, past `runs` left as they were. No output may
// overlap the input, another output or temp (Errc::invalid_argument).
//   // in = [4, 4, 1, 1, 1, 9]
//   record_run_length_encode(ctx, cmd, {.count = 6, .input = in, .values = uniq, .lengths = len,
//                                       .count_out = runs, .temp = tmp});
//   // uniq <-- [4, 1, 9], len <-- [2, 3, 1], runs <-- 3
void record_run_length_encode(const Context& ctx, VkCommandBuffer cmd, const RunLengthArgs& args);

// Record the non-trivial runs (CUB's DeviceRunLengthEncode::NonTrivialRuns): offsets[0, runs) where each
// run of two or more equal elements starts, lengths[0, runs) its length, count_out their number. Same
// contract; `values` is not used.
//   // in = [4, 4, 1, 2, 2, 2]  -->  offsets <-- [0, 3], lengths <-- [2, 3], runs <-- 2
void record_non_trivial_runs(const Context& ctx, VkCommandBuffer cmd, const RunLengthArgs& args);

// Builds the pipelines of both record calls for `config` and counts up to max_count (prepare_compact).
void prepare_run_length(const Context& ctx, uint64_t max_count, const CompactConfig& config);

// Convenience: upload, encode, download (the number of runs read back from the GPU).
template <Element T>
RunLengthResult<T> run_length_encode(const Context& ctx, std::span<const T> values, CompactConfig config = {});
template <Element T>
NonTrivialRuns non_trivial_runs(const Context& ctx, std::span<const T> values, CompactConfig config = {});

#define GPUSCAN_RLE_EXTERN(T)                                                                                \
  extern template RunLengthResult<T> run_length_encode(const Context&, std::span<const T>, CompactConfig);  \
  extern template NonTrivialRuns non_trivial_runs(const Context&, std::span<const T>, CompactConfig);
GPUSCAN_RLE_EXTERN(uint32_t)
GPUSCAN_RLE_EXTERN(int32_t)
GPUSCAN_RLE_EXTERN(float)
GPUSCAN_RLE_EXTERN(uint64_t)
GPUSCAN_RLE_EXTERN(int64_t)
GPUSCAN_RLE_EXTERN(double)
#undef GPUSCAN_RLE_EXTERN

}  // namespace gpuscan
