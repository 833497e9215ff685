// Plan objects on Vulkan: the shared check set (plan_check.hpp) on the validated context.
#include "plan_check.hpp"

#include "core/plan_checks.hpp"
#include "gpuscan/signature.hpp"
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
      vk::memory_barrier(ctx, cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
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

// A plan made with prepare builds every pipeline when it is made: runs of any count up to max_count build
// none (Context::pipeline_count stays put), for every primitive.
class PlanPreparedTest : public GpuTest {};

// `run(plan, n)` runs the plan on n elements of its own.
template <class P, class Run>
void expect_nothing_built(const P& description, uint64_t max_count, std::mt19937_64& rng, Run&& run) {
  const Context& ctx = shared_context();
  const gpuscan::Plan<P> plan(ctx, description, {.max_count = max_count});
  const size_t built = ctx.pipeline_count();
  for (const size_t n : {size_t{1}, size_t{2}, size_t{1023}, size_t{1024}, size_t{1025}, static_cast<size_t>(max_count),
                         static_cast<size_t>(1 + rng() % max_count)}) {
    run(plan, n);
    EXPECT_EQ(ctx.pipeline_count(), built) << core::primitive_name(description) << ", n " << n;
  }
}

TEST_F(PlanPreparedTest, RunsBuildNothingAfterCreation) {
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  constexpr uint64_t max_count = 5000;  // two tile levels on lavapipe
  auto u32 = [&](size_t n) { return random_values<uint32_t>(n, rng); };
  auto bytes = [](const std::vector<uint32_t>& v) { return std::as_bytes(std::span<const uint32_t>(v)); };
  const ScanKind kind = rng() % 2 ? ScanKind::inclusive : ScanKind::exclusive;

  expect_nothing_built(primitive::Scan{.config = {.kind = kind}}, max_count, rng,
                       [&](const auto& plan, size_t n) { (void)plan.run({.values = bytes(u32(n))}); });
  expect_nothing_built(primitive::Reduce{.config = {.op = Op::max}}, max_count, rng,
                       [&](const auto& plan, size_t n) { (void)plan.run({.values = bytes(u32(n))}); });
  expect_nothing_built(primitive::SegmentedScan{.config = {.kind = kind}}, max_count, rng,
                       [&](const auto& plan, size_t n) {
                         std::vector<uint32_t> flags = u32(n);
                         for (auto& f : flags) f %= 2;
                         (void)plan.run({.values = bytes(u32(n)), .heads = bytes(flags)});
                       });
  expect_nothing_built(primitive::SegmentedReduce{}, max_count, rng, [&](const auto& plan, size_t n) {
    const std::vector<uint32_t> offsets = {0, static_cast<uint32_t>(n / 3), static_cast<uint32_t>(n)};
    (void)plan.run({.values = bytes(u32(n)), .offsets = offsets});
  });
  const bool flagged = rng() % 2;
  expect_nothing_built(
      primitive::Select{.flagged = flagged,
                        .predicate = flagged ? PredicateKind::nonzero : PredicateKind::less,
                        .partition = rng() % 2 == 0},
      max_count, rng, [&](const auto& plan, size_t n) {
        std::vector<uint32_t> flags = u32(n);
        for (auto& f : flags) f %= 2;
        (void)plan.run({.values = bytes(u32(n)), .flags = bytes(flags),
                        .predicate = Predicate::less(static_cast<uint32_t>(rng()))});
      });
  expect_nothing_built(primitive::RunLength{.non_trivial = rng() % 2 == 0}, max_count, rng,
                       [&](const auto& plan, size_t n) {
                         std::vector<uint32_t> v = u32(n);
                         for (auto& x : v) x %= 3;
                         (void)plan.run({.values = bytes(v)});
                       });
  expect_nothing_built(primitive::Sort{.config = {.value_bytes = rng() % 2 ? 4u : 0u}}, max_count, rng,
                       [&](const auto& plan, size_t n) {
                         (void)plan.run({.keys = bytes(u32(n)),
                                         .values = plan.description().config.value_bytes ? bytes(u32(n))
                                                                                          : std::span<const std::byte>()});
                       });
  expect_nothing_built(primitive::SegmentedScanByOffsets{}, max_count, rng, [&](const auto& plan, size_t n) {
    const std::vector<uint32_t> offsets = {static_cast<uint32_t>(n / 4), static_cast<uint32_t>(n / 2)};
    (void)plan.run({.values = bytes(u32(n)), .offsets = offsets});
  });
  expect_nothing_built(primitive::Histogram{.bins = HistogramBins::even(100, 0.0, 4e9)}, max_count, rng,
                       [&](const auto& plan, size_t n) { (void)plan.run({.samples = bytes(u32(n))}); });
}

// docs/plans.md's signature example, as written there; and a run through the signature matching the
// reference on random runs.
TEST(SignatureRun, DocsExampleAndRandomRuns) {
  const Context& ctx = shared_context();
  using S = gpuscan::Signature<gpuscan::primitive::RunLength>;
  gpuscan::primitive::RunLength rle;
  for (const gpuscan::Setting& s : S::settings(rle))
    if (s.name == "type") s.choose("f64");
    else if (s.flag && s.name == "non-trivial") *s.flag = true;
  std::string names;
  for (const gpuscan::ArraySpec& a : S::outputs(rle)) names += std::string(a.name) + ' ';
  EXPECT_EQ(names, "offsets lengths ");
  std::vector<double> v = {7, 7, 2, 5, 5, 5};
  const std::span<const std::byte> in[] = {std::as_bytes(std::span(v))};
  auto out = gpuscan::Plan(ctx, rle, {.max_count = v.size(), .prepare = false}).run(S::input(rle, in));
  EXPECT_EQ(S::result(rle, out), "2 non-trivial runs");
  EXPECT_EQ(out.offsets, (std::vector<uint32_t>{0, 3}));
  EXPECT_EQ(out.lengths, (std::vector<uint32_t>{2, 3}));

  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  std::vector<uint32_t> runs(std::uniform_int_distribution<size_t>(0, 20'000)(rng));
  for (auto& x : runs) x = static_cast<uint32_t>(rng() % 3);
  gpuscan::primitive::RunLength encode;
  const std::span<const std::byte> arrays[] = {std::as_bytes(std::span(runs))};
  auto encoded = gpuscan::Plan(ctx, encode, {.max_count = runs.size(), .prepare = false}).run(S::input(encode, arrays));
  const auto want = cpu::runs(std::span<const uint32_t>(runs));
  const std::vector<std::vector<std::byte>> got = S::output(encode, std::move(encoded));
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0], std::vector<std::byte>(std::as_bytes(std::span(want.values)).begin(),
                                           std::as_bytes(std::span(want.values)).end()));
  EXPECT_EQ(got[1], std::vector<std::byte>(std::as_bytes(std::span(want.lengths)).begin(),
                                           std::as_bytes(std::span(want.lengths)).end()));
  EXPECT_TRUE(message_log().take().empty());
}

}  // namespace
}  // namespace gpuscan::test
