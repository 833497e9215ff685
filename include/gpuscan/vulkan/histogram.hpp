// Device-wide histogram on Vulkan (gpuscan/histogram.hpp defines the bins): the recording call, which
// appends a histogram to the caller's command buffer, and convenience calls on host data.
//
// One kernel (shaders/histogram.comp): workgroups stride over the samples, count into shared-memory
// counters with shared atomics, then add each non-zero counter to the global count with one atomic. Bins
// beyond what shared memory holds (kHistogramSharedBins, gpuscan/histogram.hpp) are counted with global atomics directly. Inputs
// longer than one storage-buffer binding run as one dispatch per window, all adding into the same counts.
// The counts are exact and do not depend on the order in which samples are counted.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include <vulkan/vulkan_core.h>

#include "gpuscan/histogram.hpp"
#include "gpuscan/vulkan/context.hpp"

namespace gpuscan {

// Temporary storage record_histogram needs: the edge table, one sample-type value per edge, which
// record_histogram writes with vkCmdUpdateBuffer (hence TRANSFER_DST usage).
//   histogram_temp_requirements(ctx, HistogramBins::even(256, 0, 1), {.type = DataType::f32}).size  // 1028
//   ... {.type = DataType::f64}).size                                                               // 2056
TempRequirements histogram_temp_requirements(const Context& ctx, const HistogramBins& bins,
                                             const HistogramConfig& config);

struct HistogramArgs {
  HistogramConfig config;
  HistogramBins bins;
  uint64_t count = 0;  // samples; 0 only zeroes the counts (input may then be empty)
  BufferView input;    // count samples of config.type from input.offset
  BufferView counts;   // num_bins counts of config.counts from counts.offset; TRANSFER_DST usage unless
                       // config.accumulate; must not overlap input or temp
  BufferView temp;     // histogram_temp_requirements(...).size bytes from temp.offset
  // Optional: the count from GPU memory, as ScanArgs::count_from (gpuscan/vulkan/scan.hpp); `count` is then its
  // upper bound. A count above the bound counts the bound's samples and sets the status word to 1.
  std::optional<IndirectCount> count_from;
};

// Records the histogram into `cmd`. Barrier contract as record_scan's (gpuscan/vulkan/scan.hpp), with transfers
// added: writes to `input` visible to compute-shader reads before; earlier uses of `counts` and `temp`
// complete before transfers and compute shaders (the counts are zeroed with vkCmdFillBuffer and the edge
// table written with vkCmdUpdateBuffer); afterwards counts[0, num_bins) (and a count_from status word) are
// written by VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT / VK_ACCESS_SHADER_WRITE_BIT. A count_from count must be
// visible to compute-shader reads. With config.accumulate the counts are
// not zeroed but added to, and earlier writes to them must be visible to compute-shader reads and writes.
// Throws Errc::invalid_argument for no bins, edges that are NaN or decrease, or counts overlapping input
// or temp; the errors of check_view for buffers too small, misaligned or without STORAGE_BUFFER usage.
//
//   // in = [0.1f, 0.5f, 0.7f, 1.0f, -2.0f, 0.25f]
//   gpuscan::record_histogram(ctx, cmd, {.config = {.type = gpuscan::DataType::f32},
//                                        .bins = gpuscan::HistogramBins::even(4, 0.0, 1.0), .count = 6,
//                                        .input = in, .counts = counts, .temp = tmp});
//   // counts <-- [1, 1, 2, 0]   (1.0 and -2.0 lie outside [0, 1))
void record_histogram(const Context& ctx, VkCommandBuffer cmd, const HistogramArgs& args);

// Builds up front the pipeline record_histogram needs for `config`, as prepare_reduce does.
//   gpuscan::prepare_histogram(ctx, {.type = gpuscan::DataType::f32});
void prepare_histogram(const Context& ctx, const HistogramConfig& config);

// Convenience: upload, count, download. Blocks until the GPU is done. Returns num_bins counts.
//   std::vector<uint32_t> in = {1, 5, 9, 12, 5, 0};
//   gpuscan::histogram(ctx, std::span<const uint32_t>(in), gpuscan::HistogramBins::even(3, 0, 12));
//   // {2, 2, 1}: [0, 4) holds 1 and 0, [4, 8) 5 and 5, [8, 12) 9; 12 is outside
template <Element T>
std::vector<uint64_t> histogram(const Context& ctx, std::span<const T> input, const HistogramBins& bins,
                                const HistogramConfig& options = {});

// Untyped form (the CLI): input.size() must be a multiple of the sample size of config.type.
std::vector<uint64_t> histogram_bytes(const Context& ctx, std::span<const std::byte> input, const HistogramBins& bins,
                                      const HistogramConfig& config);

extern template std::vector<uint64_t> histogram(const Context&, std::span<const uint32_t>, const HistogramBins&,
                                                const HistogramConfig&);
extern template std::vector<uint64_t> histogram(const Context&, std::span<const int32_t>, const HistogramBins&,
                                                const HistogramConfig&);
extern template std::vector<uint64_t> histogram(const Context&, std::span<const float>, const HistogramBins&,
                                                const HistogramConfig&);
extern template std::vector<uint64_t> histogram(const Context&, std::span<const uint64_t>, const HistogramBins&,
                                                const HistogramConfig&);
extern template std::vector<uint64_t> histogram(const Context&, std::span<const int64_t>, const HistogramBins&,
                                                const HistogramConfig&);
extern template std::vector<uint64_t> histogram(const Context&, std::span<const double>, const HistogramBins&,
                                                const HistogramConfig&);

}  // namespace gpuscan
