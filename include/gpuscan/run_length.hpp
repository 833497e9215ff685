// Run-length encoding's results on host data, shared by both APIs (no graphics API here): the calls are in
// gpuscan/vulkan/run_length.hpp (included by gpuscan/vulkan.hpp) and, for OpenGL, in gpuscan/gl.hpp.
// docs/run_length.md is the guide.
#pragma once

#include <cstdint>
#include <vector>

#include "gpuscan/types.hpp"

namespace gpuscan {

template <Element T>
struct RunLengthResult {
  std::vector<T> values;          // the first element of each run
  std::vector<uint32_t> lengths;  // the length of each run
};

struct NonTrivialRuns {
  std::vector<uint32_t> offsets;  // where each run of two or more starts
  std::vector<uint32_t> lengths;  // and its length
};

}  // namespace gpuscan
