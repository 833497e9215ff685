// gl::record_indirect_args: the dispatch command for the application's own kernel from a count in GPU
// memory, as on Vulkan (tests/gpu/indirect_test.cpp): word for word against the rule over random counts,
// bounds and workgroup sizes, u32 and u64 counts, with and without a status word, on a grid capped at 7
// workgroups wide; the words around the command stay poisoned. Then the refusals.
#include <algorithm>
#include <iterator>
#include <random>
#include <utility>

#include "gl_test_support.hpp"
#include "indirect_args_cases.hpp"

namespace gpuscan::test {
namespace {

class GlIndirectArgsTest : public GlTest {};

TEST_F(GlIndirectArgsTest, WritesTheDispatchCommandOfACountInGpuMemory) {
  const gl::Context& ctx = gl_context();
  uint32_t& width = impl_of(ctx).max_groups_x;
  const uint32_t saved = std::exchange(width, 7u);  // as TestHooks::max_workgroup_count_x = 7
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (int trial = 0; trial < 40; ++trial) {
    const IndirectArgsCase c = indirect_args_case(trial, rng);
    SCOPED_TRACE(c.describe());
    uint32_t init[16];
    std::fill(std::begin(init), std::end(init), 0xA5A5A5A5u);
    init[0] = static_cast<uint32_t>(c.count);
    init[1] = static_cast<uint32_t>(c.count >> 32);
    GlBuffer words(sizeof init, init);
    gl::IndirectArgs args{.count = {.buffer = words.view(0), .is_64bit = c.wide}, .bound = c.bound,
                          .elements_per_workgroup = c.per, .command = words.view(4 * c.at)};
    if (c.status) args.count.status = words.view(4 * 12);
    gl::record_indirect_args(ctx, args);
    buffer_update_barrier();
    const std::vector<uint32_t> got = words.read<uint32_t>(0, 16);
    const std::array<uint32_t, 3> want = c.command(7);
    for (uint32_t w = 0; w < 3; ++w) EXPECT_EQ(got[c.at + w], want[w]) << "command word " << w;
    for (uint32_t w = 2; w < 12; ++w)
      if (w < c.at || w >= c.at + 3) EXPECT_EQ(got[w], 0xA5A5A5A5u) << "word " << w << " was written";
    EXPECT_EQ(got[12], c.status ? (c.count > c.bound ? 1u : 0u) : 0xA5A5A5A5u) << "status word";
  }
  width = saved;
  GlBuffer words(64);
  const gl::IndirectArgs good{.count = {.buffer = words.view(0)}, .command = words.view(16)};
  gl::IndirectArgs a = good;
  a.elements_per_workgroup = 0;
  EXPECT_EQ(error_of([&] { gl::record_indirect_args(ctx, a); }), Errc::invalid_argument);
  a = good;
  a.command = words.view(0);
  EXPECT_EQ(error_of([&] { gl::record_indirect_args(ctx, a); }), Errc::invalid_argument);
  a = good;
  a.bound = uint64_t{1} << 32;
  EXPECT_EQ(error_of([&] { gl::record_indirect_args(ctx, a); }), Errc::too_large);
}

}  // namespace
}  // namespace gpuscan::test
