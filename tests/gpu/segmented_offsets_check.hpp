// Segmented reductions by offsets, shared by the Vulkan and OpenGL tests (gpu/segmented_offsets_test.cpp,
// gl/gl_segment_offsets_test.cpp): the shapes of offsets drawn over a range of values, and the comparison
// with the CPU reference (cpu::segmented_reduce; float sums within cpu::segmented_reduce_tolerance, as
// the GPU combines in the segmented scan's tree order, everything else bit for bit).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "gpuscan/reference.hpp"
#include "gpuscan/types.hpp"

namespace gpuscan::test {

enum class Lengths { ones, mean16, huge, empties, aligned };
inline const char* name(Lengths l) {
  switch (l) {
    case Lengths::ones: return "length 1";
    case Lengths::mean16: return "lengths in [0, 32]";
    case Lengths::huge: return "a few huge segments";
    case Lengths::empties: return "many empty segments";
    case Lengths::aligned: return "segments aligned to tiles";
  }
  return "?";
}

// Offsets over [first, last) of n values (first > 0 and last < n leave values outside every segment).
inline std::vector<uint32_t> make_offsets(uint32_t first, uint32_t last, Lengths lengths, uint32_t tile, std::mt19937_64& rng) {
  std::vector<uint32_t> o = {first};
  auto push_empties = [&](size_t count) { o.insert(o.end(), count, o.back()); };
  if (lengths == Lengths::empties) push_empties(1 + rng() % 3);  // empties at the very start
  while (o.back() < last) {
    uint64_t len = 1;
    switch (lengths) {
      case Lengths::ones: break;
      case Lengths::mean16: len = rng() % 33; break;
      case Lengths::huge: len = 1 + rng() % (4 * uint64_t{tile} + (last - first) / 2); break;
      case Lengths::empties:
        len = rng() % 3 == 0 ? 0 : 1 + rng() % (2 * tile);
        if (rng() % 8 == 0) push_empties(1 + rng() % 50);
        if (o.back() % tile == 0) push_empties(2);  // empties at a tile boundary
        break;
      case Lengths::aligned: {
        // End at the next tile boundary or one after it, empties in between.
        const uint32_t next = (o.back() / tile + 1 + rng() % 2) * tile;
        len = next - o.back();
        if (rng() % 2) push_empties(1);
        break;
      }
    }
    o.push_back(static_cast<uint32_t>(std::min<uint64_t>(last, o.back() + len)));
  }
  if (lengths == Lengths::empties) push_empties(1 + rng() % 3);  // and at the very end
  return o;
}

template <class T>
::testing::AssertionResult matches(const std::vector<T>& values, const std::vector<uint32_t>& offsets,
                                   const std::vector<T>& got, Op op) {
  const auto expected = cpu::segmented_reduce<T>(values, offsets, op);
  if (got.size() != expected.size()) return ::testing::AssertionFailure() << "size " << got.size();
  std::vector<double> tol;
  if constexpr (std::is_floating_point_v<T>)
    if (op == Op::add) tol = cpu::segmented_reduce_tolerance<T>(values, offsets);
  for (size_t s = 0; s < got.size(); ++s) {
    const bool ok = tol.empty() ? std::memcmp(&got[s], &expected[s], sizeof(T)) == 0
                                : std::fabs(static_cast<double>(got[s]) - static_cast<double>(expected[s])) <= tol[s];
    if (!ok)
      return ::testing::AssertionFailure() << "segment " << s << " of " << got.size() << " [" << offsets[s] << ", "
                                           << offsets[s + 1] << "): got " << +got[s] << ", expected " << +expected[s];
  }
  return ::testing::AssertionSuccess();
}

}  // namespace gpuscan::test
