// Plan objects on Vulkan: the shared check set (plan_check.hpp) on the validated context.
#include "plan_check.hpp"

#include "gpuscan/vulkan/plan.hpp"

namespace gpuscan::test {
namespace {

struct VulkanPlans {
  template <class P>
  using Plan = gpuscan::Plan<P>;
  static const Context& context() { return shared_context(); }
  static void check_clean() {
    for (const std::string& m : message_log().take()) ADD_FAILURE() << "validation: " << m;
  }
  // Records the plan into host-visible buffers of the test's own (the output poisoned first).
  static std::vector<uint32_t> scan_by_record(const Plan<primitive::Scan>& plan, const std::vector<uint32_t>& in) {
    const Context& ctx = context();
    const size_t bytes = std::max<size_t>(in.size() * 4, 4);
    HostBuffer<uint32_t> input(ctx, bytes), output(ctx, bytes);
    const TempRequirements req = plan.temp_requirements();
    HostBuffer<uint32_t> temp(ctx, std::max<VkDeviceSize>(req.size, 4), req.usage | VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
    if (!in.empty()) std::memcpy(input.data(), in.data(), in.size() * 4);
    poison(output.data(), bytes);
    vk::submit_and_wait(ctx, [&](VkCommandBuffer cmd) {
      plan.record(cmd, {.count = in.size(), .input = input.view(), .output = output.view(), .temp = temp.view()});
      vk::memory_barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                         VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
    });
    return {output.data(), output.data() + in.size()};
  }
};

INSTANTIATE_TYPED_TEST_SUITE_P(Vulkan, PlanTest, VulkanPlans);

// The by-offsets segmented scan, Vulkan only.
class PlanByOffsetsTest : public GpuTest {};

TEST_F(PlanByOffsetsTest, SegmentedScanByOffsetsRunMatchesReference) {
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  for (const size_t n : {size_t{0}, size_t{1}, size_t{4097}, static_cast<size_t>(rng() % 100000)}) {
    SCOPED_TRACE("seed " + std::to_string(seed) + ", n " + std::to_string(n));
    const auto values = random_values<uint32_t>(n, rng);
    std::vector<uint32_t> offsets = {static_cast<uint32_t>(n ? rng() % n : 0)};
    while (offsets.back() < n) offsets.push_back(std::min<uint32_t>(n, offsets.back() + rng() % 2000));
    gpuscan::Plan plan(shared_context(), primitive::SegmentedScanByOffsets{.config = {.kind = ScanKind::inclusive}},
                       {.max_count = n});
    const auto out = plan.run({.values = std::as_bytes(std::span<const uint32_t>(values)), .offsets = offsets});
    std::vector<uint32_t> got(n);
    if (n) std::memcpy(got.data(), out.data(), n * 4);
    // The elements before offsets[0] and from offsets[S] on are segments of their own.
    std::vector<uint32_t> bounds = offsets;
    bounds.insert(bounds.begin(), 0u);
    bounds.push_back(static_cast<uint32_t>(n));
    std::vector<uint32_t> want(n);
    for (size_t s = 0; s + 1 < bounds.size(); ++s) {
      uint32_t running = 0;
      for (uint32_t i = bounds[s]; i < bounds[s + 1]; ++i) want[i] = running += values[i];
    }
    EXPECT_EQ(got, want);
  }
}

}  // namespace
}  // namespace gpuscan::test
