// The edge table the histogram kernel compares samples with (shaders/histogram.comp): the bins' double
// edges turned into sample-type values that keep every comparison exact.
#pragma once

#include <cstdint>
#include <vector>

#include "gpuscan/histogram.hpp"

namespace gpuscan::core {

struct EdgeTable {
  std::vector<uint32_t> words;  // the sample-type edges 0..searchable (at most num_bins + 1), little-endian
                                // words, element_bytes / 4 of them per edge
  uint32_t element_bytes = 4;   // the sample type's size: 4 or 8
  uint32_t searchable = 0;      // bins whose lower edge some sample can reach; 0: nothing can be counted
  bool check_upper = true;      // the kernel tests the last entry as the upper bound (below); false: every
                                // sample at or above edge 0 lies below (open) or at (closed) edge_n
  size_t edges() const { return words.size() * 4 / element_bytes; }
};

// Throws Errc::invalid_argument unless `bins` has at least one bin, no NaN edge, and non-decreasing edges.
void check_bins(const HistogramBins& bins);

// Each lower edge e becomes the smallest sample value v >= e, so that x >= e <=> x >= v for every sample x
// (and x < e <=> x < v): ceil for integers, rounding up to the next float for f32, e itself for f64.
// The upper edge e_n follows the same rule for an open last bin (x < e_n <=> x < v); for a closed one
// (`last_bin_closed`) it becomes the LARGEST sample value v <= e_n, so that x <= e_n <=> x <= v (floor,
// rounding down). Integer edges below the type's range become its minimum; those above it cannot be
// reached and are dropped, which `searchable` and `check_upper` record; a closed upper edge below every
// sample value leaves nothing to count (searchable 0).
//   to_edge_table(HistogramBins::even(2, 0, 4294967296.0), DataType::u32)
//     == {{0, 2147483648}, 4, 2, false}
//   to_edge_table(HistogramBins::custom({0, 2.5}), DataType::u32, true)  // x <= 2.5 <=> x <= 2
//     == {{0, 2}, 4, 1, true}
EdgeTable to_edge_table(const HistogramBins& bins, DataType type, bool last_bin_closed = false);

}  // namespace gpuscan::core
