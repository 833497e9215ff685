// Device-wide reduction on Vulkan (gpuscan/reduce.hpp says how it runs): the recording call, which
// appends a reduction to the caller's command buffer, and convenience calls on host data.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <vulkan/vulkan_core.h>

#include "gpuscan/reduce.hpp"
#include "gpuscan/types.hpp"
#include "gpuscan/vulkan/context.hpp"

namespace gpuscan {

// Temporary storage record_reduce needs for `count` elements: one total per tile at every level above
// the input; size 0 when one tile holds everything (then ReduceArgs::temp may stay empty).
// `indirect`: the count will come from GPU memory (ReduceArgs::count_from; `count` is its upper bound).
TempRequirements reduce_temp_requirements(const Context& ctx, uint64_t count, const ReduceConfig& config,
                                          bool indirect = false);

// The passes a reduction of `count` elements would record, one line each (for `gpuscan info`).
std::string describe_reduce_plan(const Context& ctx, uint64_t count, const ReduceConfig& config);

struct ReduceArgs {
  ReduceConfig config;
  uint64_t count = 0;  // elements to reduce; 0 writes the identity (input may then be empty)
  BufferView input;    // count elements from input.offset
  BufferView output;   // one element at output.offset receives the result; must not overlap input
  BufferView temp;     // reduce_temp_requirements(ctx, count, config).size bytes from temp.offset
  // Optional: the count from GPU memory, as ScanArgs::count_from (gpuscan/vulkan/scan.hpp); `count` is then its upper
  // bound. A count of 0 writes the identity; one above the bound reduces the bound's elements and sets
  // the status word to 1.
  std::optional<IndirectCount> count_from;
};

// Records the reduction into `cmd`. Barrier contract as record_scan's (gpuscan/vulkan/scan.hpp): writes to `input`
// visible to compute-shader reads before; earlier uses of `output` and `temp` complete before compute
// shaders; afterwards output[0] is written by VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT /
// VK_ACCESS_SHADER_WRITE_BIT.
//
//   // in = [3, 1, 7, 0, 4, 1, 6, 3]
//   gpuscan::record_reduce(ctx, cmd, {.config = {.op = gpuscan::Op::max}, .count = 8, .input = in,
//                                     .output = out, .temp = tmp});
//   // out[0] <-- 7
void record_reduce(const Context& ctx, VkCommandBuffer cmd, const ReduceArgs& args);

// Builds up front every pipeline record_reduce needs for `config` and any count from 1 to `max_count`,
// as prepare_scan (gpuscan/vulkan/scan.hpp) does for scans; PrepareOptions::in_place does not apply.
//   gpuscan::prepare_reduce(ctx, 1u << 24, {.op = gpuscan::Op::max});
void prepare_reduce(const Context& ctx, uint64_t max_count, const ReduceConfig& config,
                    const PrepareOptions& options = {});

// Convenience: upload, reduce, download. Blocks until the GPU is done. An empty input gives the
// operator's identity (0 for add, 1 for mul, the type's largest value or +inf for min, ...). The
// config's type is T's.
//   std::vector<int64_t> in = {5, -3, 2, 7, -1};
//   gpuscan::reduce(ctx, std::span<const int64_t>(in));                  // 10
//   gpuscan::reduce(ctx, std::span<const int64_t>(in), gpuscan::Op::min);  // -3
//   gpuscan::reduce(ctx, std::span<const int64_t>(in), {.op = gpuscan::Op::max, .workgroup_size = 512});  // 7
template <Element T>
T reduce(const Context& ctx, std::span<const T> input, ReduceConfig config = {});
template <Element T>
T reduce(const Context& ctx, std::span<const T> input, Op op) {
  return reduce(ctx, input, ReduceConfig{.op = op});
}

// Untyped form (the CLI): input.size() must be a multiple of the element size of config.type; returns
// the one result element's bytes.
std::vector<std::byte> reduce_bytes(const Context& ctx, std::span<const std::byte> input, const ReduceConfig& config);

extern template uint32_t reduce(const Context&, std::span<const uint32_t>, ReduceConfig);
extern template int32_t reduce(const Context&, std::span<const int32_t>, ReduceConfig);
extern template float reduce(const Context&, std::span<const float>, ReduceConfig);
extern template uint64_t reduce(const Context&, std::span<const uint64_t>, ReduceConfig);
extern template int64_t reduce(const Context&, std::span<const int64_t>, ReduceConfig);
extern template double reduce(const Context&, std::span<const double>, ReduceConfig);

}  // namespace gpuscan
