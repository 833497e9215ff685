// gpuscan::testkit::dispatch_kernel (gpuscan/testing.hpp), through which gpuscan_gl_bench issues its copy
// roofline. That kernel needs GL_KHR_shader_subgroup, which llvmpipe lacks, so this drives the benchmarks'
// other kernel, bench_pattern (shaders/bench_pattern.comp, no subgroup operations): it fills a buffer with
// a hash of each element's 64-bit index, then checks an exclusive sum of it, a right one and a broken one.
// Bindings at an offset, element offsets in the parameter words, the aux constant (its CHECK) and a grid
// narrower than the elements (its grid-stride loop) all reach the kernel.
#include "gl_test_support.hpp"
#include "gpuscan/testing.hpp"

namespace gpuscan::test {
namespace {

// bench_pattern.comp's hash of the global index (hi:lo).
uint32_t pattern_hash(uint32_t lo, uint32_t hi) {
  uint32_t h = (lo * 0x9E3779B1u) ^ (hi * 0x85EBCA77u);
  h ^= h >> 16;
  h *= 0x7FEB352Du;
  h ^= h >> 15;
  h *= 0x846CA68Bu;
  return h ^ (h >> 16);
}

class GlTestkit : public GlTest {};

TEST_F(GlTestkit, DispatchKernelFillsAndChecksWithBenchPattern) {
  const gl::Context& ctx = gl_context();
  constexpr uint32_t n = 1000, lead = 3;              // elements, and where they start inside binding 1
  constexpr uint32_t base_lo = 0xFFFFFF00u, base_hi = 5;  // the index carries into hi after 256 elements
  const uint64_t align = std::max<uint64_t>(ctx.info().shader_storage_offset_alignment, 16);
  const auto poisoned = poison_bytes(align + (n + lead + 1) * 4);
  GlBuffer x(poisoned.size(), poisoned.data());
  GlBuffer counters(4 * 4, std::vector<uint32_t>(4, 0).data());
  const testkit::GlBinding x_binding{x.name(), align, (n + lead) * 4};
  const testkit::GlBinding counters_binding{counters.name(), 0, 4 * 4};

  // Fill: x[lead + i] = hash(base + i), two workgroups of 256 striding over the 1000 elements.
  const uint32_t fill[8] = {n, 0, lead, 0, 1, base_lo, base_hi, 0};
  const testkit::GlBinding fill_bindings[3] = {x_binding, x_binding, counters_binding};
  testkit::dispatch_kernel(ctx, "bench_pattern", {}, fill_bindings, fill, 2);
  buffer_update_barrier();
  const std::vector<uint32_t> all = x.read<uint32_t>(0, align / 4 + n + lead + 1);
  std::vector<uint32_t> values(all.begin() + align / 4 + lead, all.begin() + align / 4 + lead + n);
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t lo = base_lo + i;
    ASSERT_EQ(values[i], pattern_hash(lo, base_hi + (lo < base_lo ? 1u : 0u))) << "element " << i;
  }
  EXPECT_EQ(all[align / 4 + lead - 1], 0xA5A5A5A5u) << "written before the range";
  EXPECT_EQ(all[align / 4 + lead + n], 0xA5A5A5A5u) << "written past the range";

  // Check: an exclusive sum of x (binding 0 at the same offset) in `out`, mismatches counted into slot `slot`.
  std::vector<uint32_t> scanned(n);
  for (uint32_t i = 0, sum = 0; i < n; ++i) scanned[i] = std::exchange(sum, sum + values[i]);
  GlBuffer out(n * 4, scanned.data());
  auto check = [&](uint32_t slot) {
    const uint32_t params[8] = {n, lead, 0, 0, 1, 0, 0, slot};
    const testkit::GlBinding bindings[3] = {x_binding, {out.name(), 0, n * 4}, counters_binding};
    testkit::dispatch_kernel(ctx, "bench_pattern", {.aux = true}, bindings, params, 1);
    buffer_update_barrier();
    return counters.read<uint32_t>(slot, 1)[0];
  };
  EXPECT_EQ(check(2), 0u) << "a right scan";
  const uint32_t broken = scanned[500] + 1;
  gl_functions().NamedBufferSubData(out.name(), 500 * 4, 4, &broken);
  EXPECT_EQ(check(1), 2u) << "element 500 off by one: its two neighbours' checks fail";
  EXPECT_EQ(counters.read<uint32_t>(0, 1)[0], 0u) << "slot 0 untouched";
}

TEST_F(GlTestkit, DispatchKernelWantsParameters) {
  EXPECT_EQ(error_of([] { testkit::dispatch_kernel(gl_context(), "bench_pattern", {}, {}, {}, 1); }),
            Errc::invalid_argument);
}

}  // namespace
}  // namespace gpuscan::test
