// The edge table the histogram kernel compares samples with (shaders/histogram.comp): the bins' double
// edges turned into sample-type values that keep every comparison exact.
#pragma once

#include <cstdint>
#include <vector>

#include "gpuscan/histogram.hpp"

namespace gpuscan::core {

struct EdgeTable {
  std::vector<uint32_t> words;  // bit patterns of the sample-type edges 0..searchable (at most num_bins + 1)
  uint32_t searchable = 0;      // bins whose lower edge some sample can reach; 0: nothing can be counted
  bool check_upper = true;      // edge_n is a sample value; false: it lies above every sample value
};

// Throws Errc::invalid_argument unless `bins` has at least one bin, no NaN edge, and non-decreasing edges.
void check_bins(const HistogramBins& bins);

// Each edge e becomes the smallest sample value v >= e, so that x >= e <=> x >= v for every sample x (and
// x < e <=> x < v): ceil for integers, rounding up to the next float for f32. Integer edges below the
// type's range become its minimum; those above it cannot be reached and are dropped, which `searchable`
// and `check_upper` record.
//   to_edge_table(HistogramBins::even(2, 0, 4294967296.0), DataType::u32)
//     == {{0, 2147483648}, 2, false}
EdgeTable to_edge_table(const HistogramBins& bins, DataType type);

}  // namespace gpuscan::core
