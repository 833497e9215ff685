// record_indirect_args' cases and rule, shared by the Vulkan and OpenGL tests (tests/gpu/indirect_test.cpp,
// tests/gl/gl_indirect_args_test.cpp): a random case, and the words its command must hold.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <iterator>
#include <random>
#include <string>

namespace gpuscan::test {

struct IndirectArgsCase {
  uint32_t per = 1;
  uint64_t bound = 0;
  bool wide = false, status = false;
  uint64_t count = 0;
  uint32_t at = 4;  // the command's first word in the test's 16-word buffer (words 0-1 the count, 12 the status)

  // The command {x, y, 1} for a grid at most `width` workgroups wide.
  std::array<uint32_t, 3> command(uint32_t width) const {
    const uint64_t n = std::min(count, bound);
    const uint64_t groups = (n + per - 1) / per;
    const uint64_t rows = groups <= width ? 1 : (groups + width - 1) / width;
    const uint64_t x = rows == 1 ? groups : (groups + rows - 1) / rows;
    return {static_cast<uint32_t>(x), static_cast<uint32_t>(groups == 0 ? 0 : rows), 1u};
  }
  std::string describe() const {
    return "count " + std::to_string(count) + (wide ? " (u64)" : "") + ", bound " + std::to_string(bound) +
           ", per " + std::to_string(per) + (status ? ", status word" : "");
  }
};

// Trial `trial`'s case: workgroups of 1 or up to 300 elements, the largest bound or a random one, a u32
// or u64 count at an edge (0, one element, a multiple of the workgroup and one past it, the bound and one
// past it, past 2^32) or random, the command at word 4 to 9.
inline IndirectArgsCase indirect_args_case(int trial, std::mt19937_64& rng) {
  IndirectArgsCase c;
  c.per = trial % 5 == 0 ? 1u : 1u + static_cast<uint32_t>(rng() % 300);
  c.bound = trial % 7 == 0 ? 0xFFFFFFFFu : rng() % 5000;
  c.wide = rng() % 2;
  c.status = rng() % 2;
  const uint64_t picks[] = {0, 1, c.per, uint64_t{c.per} * 3 + 1, c.bound, c.bound + 1, (uint64_t{1} << 32) + 5,
                            rng() % 100000};
  c.count = picks[rng() % std::size(picks)];
  if (!c.wide) c.count &= 0xFFFFFFFFu;
  c.at = 4 + static_cast<uint32_t>(rng() % 6);
  return c;
}

}  // namespace gpuscan::test
