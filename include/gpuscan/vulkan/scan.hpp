// Scans on Vulkan: the recording API that appends a scan to the caller's command buffer, and convenience
// calls on host data (upload, scan, download).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include <vulkan/vulkan_core.h>

#include "gpuscan/error.hpp"
#include "gpuscan/types.hpp"
#include "gpuscan/vulkan/context.hpp"

namespace gpuscan {

// Temporary storage record_scan needs for `count` elements, in place (output == input) or not;
// `indirect` says whether it will take its count from GPU memory (ScanArgs::count_from; `count` is then the upper bound), which adds a few words and
// VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT. Past one binding it is sized from the first window's plan (every
// window reuses that scratch), so it costs the same for any count; a count whose elements exceed the
// device's largest memory heap is Errc::too_large at once (DeviceInfo::largest_memory_heap_bytes).
//   auto req = gpuscan::scan_temp_requirements(ctx, n, config);   // allocate req.size bytes, req.usage
TempRequirements scan_temp_requirements(const Context& ctx, uint64_t count, const ScanConfig& config,
                                        bool indirect = false);

// The passes a scan of `count` elements would record, one line each (for `gpuscan info --n`). Past two
// windows it lists the first two and ends with "  ... N more window(s), planned as the ones above".
std::string describe_scan_plan(const Context& ctx, uint64_t count, const ScanConfig& config);

// Builds, up front, every pipeline that record_scan needs for `config` and any count from 1 to
// `max_count` (and any buffers the Context's Addressing may reach by address or by binding), so that
// those records build nothing in the caller's frame and take the pipeline lock only shared (Context;
// records of a custom operator still take it exclusively for a brief lookup). Pipelines already built
// are reused, so preparing twice costs little. Throws what record_scan would throw for such a scan
// (Errc::unsupported, invalid_argument, too_large, ...); a custom operator is compiled here too.
//   gpuscan::prepare_scan(ctx, 1u << 20, config);   // at load time
//   gpuscan::record_scan(ctx, cmd, {.config = config, .count = n, ...});   // n <= 2^20: nothing built
void prepare_scan(const Context& ctx, uint64_t max_count, const ScanConfig& config,
                  const PrepareOptions& options = {});

struct ScanArgs {
  ScanConfig config;
  // Elements to scan; 0 records nothing. With count_from: the upper bound of the count in GPU memory,
  // which sizes temp (scan_temp_requirements(..., indirect = true)) and the buffers' checks.
  uint64_t count = 0;
  BufferView input;     // count elements from input.offset
  BufferView output;    // count elements from output.offset; may be exactly the input (in place)
  BufferView temp;      // scan_temp_requirements(ctx, count, config).size bytes from temp.offset
  // Single-pass only: the caller promises that the temp range holds zeros, so gpuscan records no
  // clearing pass (a fill and a barrier, ~5 us on an H200). A single-pass scan leaves its temp range
  // zeroed, so a temp buffer zeroed once and used only by single-pass scans keeps the promise true:
  //   vkCmdFillBuffer(cmd, temp, 0, VK_WHOLE_SIZE, 0);   // once, then a transfer->compute barrier
  //   record_scan(ctx, cmd, {..., .temp_zeroed = true}); // every time after
  // A false promise gives wrong results. Ignored by the other algorithms.
  bool temp_zeroed = false;
  // Optional carry-in: an element combined in front of the first one, as if the input began with it,
  // given as its bit pattern (element_bits). Exclusive: output[0] = initial, output[i] = initial ⊕ x0
  // ⊕ ... ⊕ x(i-1); inclusive: output[i] = initial ⊕ x0 ⊕ ... ⊕ xi. Applied inside the scan's top-level
  // pass, not as an extra pass; scans of consecutive pieces chain through it (gpuscan::mpi does).
  //   record_scan(ctx, cmd, {..., .initial_bits = gpuscan::element_bits(100u)});
  //   // in = [3, 1, 7] -> exclusive [100, 103, 104]
  std::optional<uint64_t> initial_bits;
  // Optional: take the count from GPU memory (see IndirectCount). Every dispatch is then issued with
  // vkCmdDispatchIndirect sized for the real count. Barrier contract: the count's writes must be made
  // available to VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT / VK_ACCESS_SHADER_READ_BIT; temp needs
  // VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT; the upper bound must fit one binding (no windows).
  //   // count_buf holds 5 (written by a compaction); in = [3, 1, 7, 0, 4, 1, 6, 3]
  //   record_scan(ctx, cmd, {.count = 8, .input = in, .output = out, .temp = tmp,
  //                          .count_from = gpuscan::IndirectCount{.buffer = count_buf}});
  //   // out <-- [0, 3, 4, 11, 11], out[5..7] untouched
  std::optional<IndirectCount> count_from;
};

// Records the scan into `cmd` (in the recording state, from a pool of ctx's queue family). Binds its own
// compute pipelines and push descriptors: the caller's compute bindings are disturbed afterwards.
//
// Barrier contract. Before: writes to `input` must be made available to
// VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT / VK_ACCESS_SHADER_READ_BIT, and earlier uses of `output` and
// `temp` must be complete before VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT and, for `temp`, also before
// VK_PIPELINE_STAGE_TRANSFER_BIT, because the single-pass scan clears its look-back state with
// vkCmdFillBuffer (an execution dependency after reads; a memory dependency to SHADER_WRITE and
// TRANSFER_WRITE after writes). Two scans that share one temp buffer need such a barrier between them. After: the results in `output` are written by
// VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT / VK_ACCESS_SHADER_WRITE_BIT; the caller places the barrier from
// there to its consumer. Between its own passes gpuscan places compute-to-compute barriers itself.
//
//   // in = [3, 1, 7, 0, 4, 1, 6, 3]
//   gpuscan::record_scan(ctx, cmd, {.config = {}, .count = 8, .input = in, .output = out, .temp = tmp});
//   // out <-- [0, 3, 4, 11, 11, 15, 16, 22]
void record_scan(const Context& ctx, VkCommandBuffer cmd, const ScanArgs& args);

// Convenience: upload, scan, download. Blocks until the GPU is done.
//   std::vector<uint32_t> in = {3, 1, 7, 0, 4, 1, 6, 3};
//   auto out = gpuscan::exclusive_scan(ctx, std::span<const uint32_t>(in));
//   // out == {0, 3, 4, 11, 11, 15, 16, 22}
//   auto inc = gpuscan::inclusive_scan(ctx, std::span<const uint32_t>(in));
//   // inc == {3, 4, 11, 11, 15, 16, 22, 25}
template <Element T>
std::vector<T> scan(const Context& ctx, std::span<const T> input, ScanConfig config = {});
// With a carry-in (ScanArgs::initial_bits):
//   gpuscan::scan<uint32_t>(ctx, in, {}, 100u)   // in = {3, 1, 7} -> {100, 103, 104}
template <Element T>
std::vector<T> scan(const Context& ctx, std::span<const T> input, ScanConfig config, T initial);
template <Element T>
std::vector<T> exclusive_scan(const Context& ctx, std::span<const T> input, ScanConfig config = {}) {
  config.kind = ScanKind::exclusive;
  return scan(ctx, input, config);
}
template <Element T>
std::vector<T> inclusive_scan(const Context& ctx, std::span<const T> input, ScanConfig config = {}) {
  config.kind = ScanKind::inclusive;
  return scan(ctx, input, config);
}

// Untyped form, for callers that hold raw bytes (the CLI): input.size() must be a multiple of the
// element size of config.type (of config.custom_op's T when it is set). `gpu_ns`, if given, receives the GPU time of the scan passes alone.
std::vector<std::byte> scan_bytes(const Context& ctx, std::span<const std::byte> input,
                                  const ScanConfig& config, double* gpu_ns = nullptr,
                                  std::optional<uint64_t> initial_bits = std::nullopt);

// Custom operators (CustomOp in types.hpp). compile_custom_op compiles `op` for ctx's device, or finds it
// compiled, and returns its element size in bytes (the std430 array stride of its T); the scans do the
// same on first use. Throws Errc::compile_error with the compiler's message, Errc::invalid_argument when
// op.element_size is neither 0 nor that size, Errc::unsupported where gpuscan was built without shaderc,
// libshaderc.so.1 is missing, or the snippet needs a device feature that ctx lacks.
//   uint32_t bytes = gpuscan::compile_custom_op(ctx, {"#define T vec2\n..."});   // 8
uint32_t compile_custom_op(const Context& ctx, const CustomOp& op);

// Scans elements of a trivially copyable T with config.custom_op (required), whose element size must
// be sizeof(T) (0 there is taken as sizeof(T), then checked against the shader's). Byte-level form:
// scan_bytes with config.custom_op set.
//   struct Affine { uint32_t a, b; };  // x -> a*x + b; combine(f, g) = g after f
//   ScanConfig config;
//   config.kind = ScanKind::inclusive;
//   config.custom_op = CustomOp{R"(
//     struct Affine { uint a; uint b; };
//     #define T Affine
//     T identity() { return Affine(1u, 0u); }
//     T combine(T f, T g) { return Affine(g.a * f.a, g.a * f.b + g.b); }
//   )"};
//   auto maps = gpuscan::custom_scan(ctx, std::span<const Affine>(steps), config);
//   // maps[i] is steps[0], then steps[1], ..., then steps[i] applied in turn
template <class T>
  requires std::is_trivially_copyable_v<T>
std::vector<T> custom_scan(const Context& ctx, std::span<const T> input, ScanConfig config) {
  if (!config.custom_op) throw Error(Errc::invalid_argument, "custom_scan needs ScanConfig::custom_op");
  if (config.custom_op->element_size == 0) config.custom_op->element_size = sizeof(T);
  if (config.custom_op->element_size != sizeof(T))
    throw Error(Errc::invalid_argument, "custom_scan of " + std::to_string(sizeof(T)) +
                                            "-byte elements with CustomOp::element_size " +
                                            std::to_string(config.custom_op->element_size));
  const std::vector<std::byte> bytes = scan_bytes(ctx, std::as_bytes(input), config);
  std::vector<T> out(input.size());
  if (!bytes.empty()) std::memcpy(out.data(), bytes.data(), bytes.size());
  return out;
}

extern template std::vector<uint32_t> scan(const Context&, std::span<const uint32_t>, ScanConfig);
extern template std::vector<uint32_t> scan(const Context&, std::span<const uint32_t>, ScanConfig, uint32_t);
extern template std::vector<int32_t> scan(const Context&, std::span<const int32_t>, ScanConfig);
extern template std::vector<int32_t> scan(const Context&, std::span<const int32_t>, ScanConfig, int32_t);
extern template std::vector<float> scan(const Context&, std::span<const float>, ScanConfig);
extern template std::vector<float> scan(const Context&, std::span<const float>, ScanConfig, float);
extern template std::vector<uint64_t> scan(const Context&, std::span<const uint64_t>, ScanConfig);
extern template std::vector<uint64_t> scan(const Context&, std::span<const uint64_t>, ScanConfig, uint64_t);
extern template std::vector<int64_t> scan(const Context&, std::span<const int64_t>, ScanConfig);
extern template std::vector<int64_t> scan(const Context&, std::span<const int64_t>, ScanConfig, int64_t);
extern template std::vector<double> scan(const Context&, std::span<const double>, ScanConfig);
extern template std::vector<double> scan(const Context&, std::span<const double>, ScanConfig, double);

}  // namespace gpuscan
