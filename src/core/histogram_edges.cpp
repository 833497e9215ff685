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
// 2^digits: one past the largest value of the integer type T.
template <class T>
double past_max() {
  return std::ldexp(1.0, std::numeric_limits<T>::digits);
}

// The smallest sample value >= e, or nothing when e is above every sample value.
template <class T>
bool smallest_at_or_above(double e, T& out) {
  if constexpr (std::is_same_v<T, double>) {
    out = e;
  } else if constexpr (std::is_same_v<T, float>) {
    float f = static_cast<float>(e);  // rounds to nearest (to +-inf past the float range)
    if (static_cast<double>(f) < e) f = std::nextafter(f, INFINITY);
    out = f;
  } else {
    const double c = std::ceil(e);
    if (c >= past_max<T>()) return false;
    out = c < static_cast<double>(std::numeric_limits<T>::min()) ? std::numeric_limits<T>::min()
                                                                  : static_cast<T>(c);
  }
  return true;
}

// The largest sample value <= e, or nothing when e is below every sample value. `above_all` is set when
// every sample value is <= e (integers: e at or past the type's maximum).
template <class T>
bool largest_at_or_below(double e, T& out, bool& above_all) {
  above_all = false;
  if constexpr (std::is_same_v<T, double>) {
    out = e;
  } else if constexpr (std::is_same_v<T, float>) {
    float f = static_cast<float>(e);
    if (static_cast<double>(f) > e) f = std::nextafter(f, -INFINITY);
    out = f;
  } else {
    const double f = std::floor(e);
    if (f < static_cast<double>(std::numeric_limits<T>::min())) return false;
    above_all = f >= past_max<T>() - 1;  // every value <= max <= f (max itself may round up in double)
    out = above_all ? std::numeric_limits<T>::max() : static_cast<T>(f);
  }
  return true;
}

template <class T>
void push(EdgeTable& t, T v) {
  if constexpr (sizeof(T) == 4) {
    t.words.push_back(std::bit_cast<uint32_t>(v));
  } else {
    const uint64_t bits = std::bit_cast<uint64_t>(v);
    t.words.push_back(static_cast<uint32_t>(bits));
    t.words.push_back(static_cast<uint32_t>(bits >> 32));
  }
}

template <class T>
EdgeTable table_of(const HistogramBins& bins, bool closed) {
  EdgeTable t;
  t.element_bytes = sizeof(T);
  const uint32_t n = bins.num_bins();
  uint32_t kept = 0;
  for (; kept < n; ++kept) {  // the lower edges
    T v{};
    if (!smallest_at_or_above<T>(bins.edges[kept], v)) break;
    push(t, v);
  }
  t.searchable = kept;
  t.check_upper = false;
  if (kept < n) return t;  // edge_kept is above every sample value, so is edge_n: no upper test
  T top{};
  bool above_all = false;
  const bool reachable = closed ? largest_at_or_below<T>(bins.edges[n], top, above_all)
                                : smallest_at_or_above<T>(bins.edges[n], top);
  if (!reachable) {
    if (closed) {  // edge_n lies below every sample value: nothing is at or below it
      t.words.clear();
      t.searchable = 0;
    }
    return t;  // open: edge_n is above every sample value, every sample lies below it
  }
  if (!above_all) {
    push(t, top);
    t.check_upper = true;
  }
  return t;
}
}  // namespace

EdgeTable to_edge_table(const HistogramBins& bins, DataType type, bool last_bin_closed) {
  check_bins(bins);
  switch (type) {
    case DataType::u32: return table_of<uint32_t>(bins, last_bin_closed);
    case DataType::i32: return table_of<int32_t>(bins, last_bin_closed);
    case DataType::f32: return table_of<float>(bins, last_bin_closed);
    case DataType::u64: return table_of<uint64_t>(bins, last_bin_closed);
    case DataType::i64: return table_of<int64_t>(bins, last_bin_closed);
    case DataType::f64: return table_of<double>(bins, last_bin_closed);
  }
  throw Error(Errc::invalid_argument, "unknown histogram sample type");
}

}  // namespace core
}  // namespace gpuscan
