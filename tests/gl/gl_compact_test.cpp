// Stream compaction on OpenGL: the checks of tests/gpu/compact_check.hpp (the Vulkan suite's) through
// gpuscan::gl, plus the record-level calls with unaligned offsets, a count at an offset and an output
// tail that must stay untouched.
#include "compact_check.hpp"
#include "gl_test_support.hpp"

namespace gpuscan::test {
namespace {

class GlCompactTest : public CompactChecks<gl::Context, GlTest> {
 protected:
  GlCompactTest() : CompactChecks(gl_context()) {}
  void SetUp() override {
    if (GetParam().path == CompactPath::ballot && !ctx.info().subgroup_ballot)
      GTEST_SKIP() << "no GL_KHR_shader_subgroup ballot";
    if ((GetParam().type == DataType::u64 || GetParam().type == DataType::i64) && !ctx.info().gpu_shader_int64)
      GTEST_SKIP() << "no GL_ARB_gpu_shader_int64";
  }
};

COMPACT_TESTS(GlCompactTest)

INSTANTIATE_TEST_SUITE_P(Gl, GlCompactTest, every_compact_param(), param_name);
// The 8-byte elements (GL_ARB_gpu_shader_int64 for u64 and i64: gl_compact64_test.cpp checks the refusal).
INSTANTIATE_TEST_SUITE_P(Gl64, GlCompactTest,
                         ::testing::Values(Param{DataType::u64, CompactPath::ballot},
                                           Param{DataType::u64, CompactPath::shared_memory},
                                           Param{DataType::i64, CompactPath::ballot},
                                           Param{DataType::i64, CompactPath::shared_memory},
                                           Param{DataType::f64, CompactPath::ballot},
                                           Param{DataType::f64, CompactPath::shared_memory}),
                         param_name);

TEST_F(GlTest, CompactRecordOffsetsCountAndTail) {
  const gl::Context& ctx = gl_context();
  for (bool partition : {false, true}) {
    SCOPED_TRACE(partition ? "partition_if" : "select_if");
    const size_t n = 1000;
    const uint64_t seed = fresh_seed();
    std::mt19937_64 rng(seed);
    const std::vector<int32_t> values = random_values<int32_t>(n, rng);
    std::vector<int32_t> staged(n + 3);
    std::copy(values.begin(), values.end(), staged.begin() + 3);
    const auto poisoned = poison_bytes((n + 7) * 4);
    GlBuffer in(staged.size() * 4, staged.data()), out(poisoned.size(), poisoned.data()), count(16, poisoned.data());
    const CompactConfig cfg{DataType::i32, CompactPath::automatic, 32, 2};
    GlBuffer temp(gl::compact_temp_requirements(ctx, n, cfg).size + 4, nullptr);
    const gl::SelectArgs a{cfg, n, in.view(12), {}, Predicate::less<int32_t>(0), out.view(20), count.view(8), temp.view(4)};
    (partition ? gl::record_partition_if : gl::record_select_if)(ctx, a);
    buffer_update_barrier();
    std::vector<int32_t> want = values;
    const size_t kept = std::stable_partition(want.begin(), want.end(), [](int32_t v) { return v < 0; }) - want.begin();
    if (!partition) want.resize(kept);
    const auto counts = count.read<uint32_t>(0, 4);
    ASSERT_EQ(counts[2], kept) << "seed " << seed;
    EXPECT_EQ(counts[1], 0xA5A5A5A5u);
    EXPECT_EQ(counts[3], 0xA5A5A5A5u);
    const auto got = out.read<int32_t>(0, n + 7);
    EXPECT_TRUE(std::equal(want.begin(), want.end(), got.begin() + 5)) << "seed " << seed;
    for (size_t i = 0; i < n + 7; ++i)
      if (i < 5 || i >= 5 + want.size()) ASSERT_EQ(static_cast<uint32_t>(got[i]), 0xA5A5A5A5u) << i;
  }
}

}  // namespace
}  // namespace gpuscan::test
