// Plan objects on OpenGL: the shared check set (gpu/plan_check.hpp) on the debug context, and what GL
// refuses when a plan is created.
#include "plan_check.hpp"

#include "gl_test_support.hpp"
#include "core/plan_checks.hpp"
#include "gpuscan/gl/plan.hpp"

namespace gpuscan::test {
namespace {

struct GlPlans {
  template <class P>
  using Plan = gl::Plan<P>;
  static const gl::Context& context() { return gl_context(); }
  static void check_clean() {
    for (const std::string& m : take_gl_errors()) ADD_FAILURE() << "KHR_debug: " << m;
    EXPECT_EQ(gl_functions().GetError(), static_cast<GLenum>(GL_NO_ERROR)) << "a GL error was left pending";
  }
  // Issues the plan on GL buffers of the test's own (the output poisoned first).
  static std::vector<uint32_t> scan_by_record(const Plan<primitive::Scan>& plan, const std::vector<uint32_t>& in) {
    const size_t bytes = std::max<size_t>(in.size() * 4, 4);
    std::vector<uint32_t> poisoned(bytes / 4);
    poison(poisoned.data(), bytes);
    const GlBuffer input(bytes, in.empty() ? poisoned.data() : in.data()), output(bytes, poisoned.data());
    const GlBuffer temp(std::max<size_t>(plan.temp_requirements().size, 4));
    plan.record({.count = in.size(), .input = input.view(), .output = output.view(), .temp = temp.view()});
    gl_functions().MemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
    return output.read<uint32_t>(0, in.size());
  }
};

INSTANTIATE_TYPED_TEST_SUITE_P(Gl, PlanTest, GlPlans);

TEST_F(GlTest, PlanRefusesWhatOpenGlCannotDo) {
  const Error by_offsets = thrown_by([] { gl::Plan(gl_context(), primitive::SegmentedScanByOffsets{}, {.max_count = 10}); });
  EXPECT_EQ(by_offsets.code(), Errc::unsupported);
  const Error indirect = thrown_by(
      [] { gl::Plan(gl_context(), primitive::SegmentedScan{}, {.max_count = 10, .count_from_gpu = true}); });
  EXPECT_EQ(indirect.code(), Errc::unsupported);
  EXPECT_NE(std::string(indirect.what()).find("count from GPU memory"), std::string::npos) << indirect.what();
  const Error keys = thrown_by([] {
    gl::Plan(gl_context(), primitive::Select{.flagged = true, .flags_kind = SegmentHeads::keys_u32}, {.max_count = 10});
  });
  EXPECT_EQ(keys.code(), Errc::unsupported);
  const Error single_pass = thrown_by([] {
    gl::Plan(gl_context(), primitive::Scan{.config = {.algorithm = Algorithm::single_pass}}, {.max_count = 1u << 20});
  });
  EXPECT_EQ(single_pass.code(), Errc::unsupported);
}

// A plan made with prepare compiles every GL program when it is made: runs of any count up to max_count
// compile none (the context's program table stays put).
TEST_F(GlTest, PreparedPlansCompileNothingAfterCreation) {
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const gl::Context& ctx = gl_context();
  const auto& programs = impl_of(ctx).programs;
  constexpr uint64_t max_count = 5000;
  auto bytes = [](const std::vector<uint32_t>& v) { return std::as_bytes(std::span<const uint32_t>(v)); };
  auto check = [&](const auto& plan, auto&& run) {
    const size_t compiled = programs.size();
    for (const size_t n : {size_t{1}, size_t{1023}, size_t{1024}, size_t{1025}, size_t{max_count},
                           static_cast<size_t>(1 + rng() % max_count)}) {
      run(plan, n);
      EXPECT_EQ(programs.size(), compiled) << core::primitive_name(plan.description()) << ", n " << n;
    }
  };
  auto u32 = [&](size_t n) { return random_values<uint32_t>(n, rng); };
  check(gl::Plan(ctx, primitive::Scan{.config = {.kind = ScanKind::inclusive}}, {.max_count = max_count}),
        [&](const auto& plan, size_t n) { (void)plan.run({.values = bytes(u32(n))}); });
  check(gl::Plan(ctx, primitive::Reduce{}, {.max_count = max_count}),
        [&](const auto& plan, size_t n) { (void)plan.run({.values = bytes(u32(n))}); });
  check(gl::Plan(ctx, primitive::SegmentedScan{}, {.max_count = max_count}), [&](const auto& plan, size_t n) {
    (void)plan.run({.values = bytes(u32(n)), .heads = bytes(std::vector<uint32_t>(n, 0))});
  });
  check(gl::Plan(ctx, primitive::SegmentedReduce{}, {.max_count = max_count}), [&](const auto& plan, size_t n) {
    (void)plan.run({.values = bytes(u32(n)), .offsets = std::vector<uint32_t>{0, static_cast<uint32_t>(n)}});
  });
  check(gl::Plan(ctx, primitive::Select{.partition = true}, {.max_count = max_count}),
        [&](const auto& plan, size_t n) { (void)plan.run({.values = bytes(u32(n))}); });
  check(gl::Plan(ctx, primitive::RunLength{}, {.max_count = max_count}),
        [&](const auto& plan, size_t n) { (void)plan.run({.values = bytes(u32(n))}); });
  check(gl::Plan(ctx, primitive::Sort{.config = {.value_bytes = 4}}, {.max_count = max_count}),
        [&](const auto& plan, size_t n) { (void)plan.run({.keys = bytes(u32(n)), .indices = true}); });
  check(gl::Plan(ctx, primitive::Histogram{.bins = HistogramBins::even(7, 0, 4e9)}, {.max_count = max_count}),
        [&](const auto& plan, size_t n) { (void)plan.run({.samples = bytes(u32(n))}); });
}

}  // namespace
}  // namespace gpuscan::test
