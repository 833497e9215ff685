#include "core/histogram_edges.hpp"

#include <bit>
#include <cmath>
#include <limits>
#include <type_traits>
#include <string>

#include "gpuscan/error.hpp"

namespace gpuscan {

HistogramBins HistogramBins::even(uint32_t num_bins, double lower, double upper) {
  if (num_bins == 0) throw Error(Errc::invalid_argument, "a histogram needs at least one bin (num_bins is 0)");
  if (!std::isfinite(lower) || !std::isfinite(upper) || !(lower < upper))
    throw Error(Errc::invalid_argument, "even bins need finite bounds with lower < upper (got [" +
                                            std::to_string(lower) + ", " + std::to_string(upper) + "))");
  HistogramBins bins;
  bins.edges.resize(size_t{num_bins} + 1);
  for (uint32_t i = 0; i < num_bins; ++i) bins.edges[i] = lower + (upper - lower) * i / num_bins;
  bins.edges[num_bins] = upper;
  return bins;
}

namespace core {

void check_bins(const HistogramBins& bins) {
  if (bins.edges.size() < 2)
    throw Error(Errc::invalid_argument, "a histogram needs at least one bin: give num_bins + 1 >= 2 edges (got " +
                                            std::to_string(bins.edges.size()) + ")");
  if (bins.edges.size() - 1 > UINT32_MAX) throw Error(Errc::too_large, "more than 2^32 - 1 histogram bins");
  for (size_t i = 0; i < bins.edges.size(); ++i) {
    if (std::isnan(bins.edges[i]))
      throw Error(Errc::invalid_argument, "histogram edge " + std::to_string(i) + " is NaN");
    if (i > 0 && bins.edges[i] < bins.edges[i - 1])
      throw Error(Errc::invalid_argument, "histogram edges must not decrease: edge " + std::to_string(i) + " (" +
                                              std::to_string(bins.edges[i]) + ") < edge " + std::to_string(i - 1));
  }
}

namespace {
// The smallest sample value >= e, or nothing when e is above every sample value.
template <class T>
bool smallest_at_or_above(double e, T& out) {
  if constexpr (std::is_floating_point_v<T>) {
    float f = static_cast<float>(e);  // rounds to nearest (to +-inf past the float range)
    if (static_cast<double>(f) < e) f = std::nextafter(f, INFINITY);
    out = f;
    return true;
  } else {
    const double c = std::ceil(e);
    if (c > static_cast<double>(std::numeric_limits<T>::max())) return false;
    out = c < static_cast<double>(std::numeric_limits<T>::min()) ? std::numeric_limits<T>::min()
                                                                  : static_cast<T>(c);
    return true;
  }
}

template <class T>
EdgeTable table_of(const HistogramBins& bins) {
  EdgeTable t;
  const uint32_t n = bins.num_bins();
  for (uint32_t i = 0; i <= n; ++i) {
    T v{};
    if (!smallest_at_or_above<T>(bins.edges[i], v)) break;
    t.words.push_back(std::bit_cast<uint32_t>(v));
  }
  const uint32_t kept = static_cast<uint32_t>(t.words.size());
  t.check_upper = kept == n + 1;
  t.searchable = t.check_upper ? n : kept;
  return t;
}
}  // namespace

EdgeTable to_edge_table(const HistogramBins& bins, DataType type) {
  check_bins(bins);
  switch (type) {
    case DataType::u32: return table_of<uint32_t>(bins);
    case DataType::i32: return table_of<int32_t>(bins);
    case DataType::f32: return table_of<float>(bins);
    default:
      throw Error(Errc::unsupported, "histograms take u32, i32 or f32 samples; " + std::string(to_string(type)) +
                                         " samples are not supported yet");
  }
}

}  // namespace core
}  // namespace gpuscan
