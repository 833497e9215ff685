// Device-wide histogram: how many samples of a buffer fall into each of num_bins bins. docs/histogram.md is
// the guide. This header holds what every backend shares (the bins and the configuration) and names no
// graphics API; the calls are in gpuscan/vulkan/histogram.hpp (included by gpuscan/vulkan.hpp) and, for
// OpenGL, in gpuscan/gl.hpp (gpuscan::gl::histogram, record_histogram).
//
// Bin membership is exact and the same on the GPU and in the CPU reference: bin i holds the samples x with
// edge_i <= x < edge_{i+1}, compared as real numbers (exactly, also for the 64-bit integers that a double
// cannot hold). Samples below edge_0, at or above edge_n, and NaN are not counted; with
// HistogramConfig::last_bin_closed the last bin is [edge_{n-1}, edge_n] (numpy's np.histogram). Even bins
// over [lower, upper) have the edges edge_i = lower + (upper - lower) * i / n computed in double on the
// host (edge_n = upper exactly), so they are custom edges that gpuscan computes for you.
#pragma once

#include <cstdint>
#include <vector>

#include "gpuscan/types.hpp"

namespace gpuscan {

// The most bins that the kernel counts in shared memory; more are counted with global atomics (slower
// where many samples fall in few bins, as correct).
inline constexpr uint32_t kHistogramSharedBins = 4096;

// The bins: n + 1 non-decreasing edges (an empty bin where two are equal). Edges are doubles; every
// u32, i32, f32 and f64 sample is one exactly, and u64/i64 samples are compared with them exactly too.
struct HistogramBins {
  std::vector<double> edges;

  uint32_t num_bins() const noexcept { return edges.empty() ? 0 : static_cast<uint32_t>(edges.size() - 1); }

  // `num_bins` bins of equal width over [lower, upper) (CUB's HistogramEven), edges as above.
  //   HistogramBins::even(4, 0.0, 1.0).edges  // {0, 0.25, 0.5, 0.75, 1}
  // Throws Errc::invalid_argument for num_bins 0, lower >= upper or a bound that is not finite.
  static HistogramBins even(uint32_t num_bins, double lower, double upper);
  // Custom bins (CUB's HistogramRange): checked as record_histogram checks them.
  //   HistogramBins::custom({0, 1, 10, 100})  // bins [0, 1), [1, 10), [10, 100)
  static HistogramBins custom(std::vector<double> edges) { return {std::move(edges)}; }
};

struct HistogramConfig {
  DataType type = DataType::u32;    // of the samples: any DataType (64-bit ones need shaderInt64 / shaderFloat64)
  DataType counts = DataType::u32;  // of the counts: u32 or u64 (on Vulkan u64 needs shaderBufferInt64Atomics)
  bool last_bin_closed = false;     // the last bin holds samples equal to its upper edge (np.histogram)
  bool accumulate = false;          // add to the counts already in the buffer instead of zeroing them first
  // Tuning (0 = gpuscan's choice, docs/histogram.md): W, a power of two (512 for 4-byte samples, 256 for
  // 8-byte ones); the samples each invocation loads per step, 1, 2, 4 or 8 (8 for 4-byte samples, 1 for
  // 8-byte ones); the most workgroups the grid takes (each strides over the rest; by default about one per
  // 32768 samples, 256 to 4096).
  uint32_t workgroup_size = 0;
  uint32_t vectors_per_lane = 0;
  uint32_t max_workgroups = 0;
};

}  // namespace gpuscan
