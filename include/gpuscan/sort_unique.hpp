// numpy.unique of any input, on either backend: the stable radix sort of the elements with their positions,
// then run-length encoding of the sorted elements (gpuscan::sort_unique, gpuscan::gl::sort_unique). The sort
// and the runs run on the GPU; the index and the inverse are taken from them on the host (one pass over
// the positions the sort returned).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "gpuscan/run_length.hpp"
#include "gpuscan/sort.hpp"

namespace gpuscan {

// numpy.unique(a, return_index=True, return_inverse=True, return_counts=True) with numpy's float order
// (NaNs last, each its own value, as numpy.unique(equal_nan=False); -0.0 equals +0.0) and a stable sort:
// of equal elements, the first in input order gives the value and the index.
template <Element T>
struct UniqueResult {
  std::vector<T> values;          // the distinct elements in ascending order
  std::vector<uint32_t> index;    // where each value first occurs in the input
  std::vector<uint32_t> inverse;  // for each input element, its value's position in `values`
  std::vector<uint32_t> counts;   // how often each value occurs
};

namespace detail {
// The backends' sort_unique over their sort_bytes (`sort(keys, values, config, indices)`) and
// run_length_encode (`runs(span<const T>)`). `config` gives the sort's algorithm and shape; its key type,
// values, direction and bit range are set here.
template <Element T, class Sort, class Runs>
UniqueResult<T> sort_unique_via(const Sort& sort, const Runs& runs, std::span<const T> input, SortConfig config) {
  config.key_type = data_type_of<T>::value;
  config.value_bytes = 4;
  config.descending = false;
  config.begin_bit = 0;
  config.end_bit = 0;
  const SortedBytes sorted = sort(std::as_bytes(input), std::span<const std::byte>(), config, true);
  const std::vector<T> keys = from_bytes<T>(sorted.keys);
  const std::vector<uint32_t> order = from_bytes<uint32_t>(sorted.values);
  RunLengthResult<T> r = runs(std::span<const T>(keys));
  UniqueResult<T> u{std::move(r.values), {}, std::vector<uint32_t>(input.size()), std::move(r.lengths)};
  u.index.reserve(u.counts.size());
  size_t at = 0;
  for (uint32_t run = 0; run < u.counts.size(); ++run) {
    u.index.push_back(order[at]);
    for (const size_t end = at + u.counts[run]; at < end; ++at) u.inverse[order[at]] = run;
  }
  return u;
}
}  // namespace detail

}  // namespace gpuscan
