// Scans whose element count sits in GPU memory (ScanArgs::count_from): the count is read on the
// GPU, clamped to the upper bound ScanArgs::count (status word 1), and every dispatch is issued with
// vkCmdDispatchIndirect. Outputs are poisoned: elements past the count must stay untouched.
#include <algorithm>
#include <cstring>
#include <iterator>
#include <random>

#include "core/plan.hpp"
#include "gpuscan/reference.hpp"
#include "indirect_args_cases.hpp"
#include "scan_check.hpp"

namespace gpuscan::test {
namespace {

class IndirectTest : public GpuTest, public ::testing::WithParamInterface<AlgorithmKind> {
 protected:
  ScanConfig config(DataType type) const {
    ScanConfig c;
    c.type = type;
    c.algorithm = GetParam().algorithm;
    c.kind = GetParam().kind;
    c.deterministic = false;
    c.workgroup_size = 32;  // small tiles: several levels at small sizes
    c.vectors_per_lane = 1;
    return c;
  }
  size_t tile() const { return GetParam().algorithm == Algorithm::multipass ? 64 : 128; }
  // The context and the usage of the input and output buffers (device addresses need their own).
  const Context* ctx_ = &shared_context();
  VkBufferUsageFlags usage_ = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;

  // Scans with `bound` as ScanArgs::count and `gpu_count` (u32, or u64 `high` << 32 | gpu_count) in GPU
  // memory; checks the scanned prefix, the untouched tail and the status word.
  // With `ran`, also hands back the input's first min(count, bound) elements and their scan.
  template <class T>
  void check(const ScanConfig& c, size_t bound, uint64_t gpu_count, std::mt19937_64& rng, uint64_t seed,
             bool as_64 = false, std::optional<T> initial = std::nullopt,
             std::pair<std::vector<T>, std::vector<T>>* ran = nullptr) {
    const Context& ctx = *ctx_;
    // Marks the whole test skipped (not passed): the device cannot run what it asks for.
    if ((c.algorithm == Algorithm::single_pass || c.algorithm == Algorithm::look_ahead) && !ctx.single_pass_available())
      GTEST_SKIP() << "this context cannot run " << to_string(c.algorithm) << " scans on " << ctx.device_info().name;
    SCOPED_TRACE("bound " + std::to_string(bound) + ", count " + std::to_string(gpu_count) +
                 (as_64 ? " (u64)" : "") + ", " + std::string(to_string(c.type)) + ", seed " + std::to_string(seed));
    const auto input = random_op_values<T>(bound, c.op, rng);
    HostBuffer<T> in(ctx, std::max<size_t>(bound, 1) * sizeof(T), usage_);
    HostBuffer<T> out(ctx, std::max<size_t>(bound, 1) * sizeof(T), usage_);
    HostBuffer<uint32_t> count(ctx, 16);
    const TempRequirements req = scan_temp_requirements(ctx, bound, c, true);
    HostBuffer<uint32_t> temp(ctx, std::max<VkDeviceSize>(req.size, 4), req.usage);
    std::copy(input.begin(), input.end(), in.data());
    poison(out.data(), std::max<size_t>(bound, 1) * sizeof(T));
    poison(temp.data(), std::max<VkDeviceSize>(req.size, 4));
    count.data()[0] = static_cast<uint32_t>(gpu_count);  // the count, then (u64) its high word
    count.data()[1] = static_cast<uint32_t>(gpu_count >> 32);
    count.data()[2] = 0xA5A5A5A5u;                        // the status word, poisoned
    IndirectCount from{count.view(), as_64, count.view(8)};
    vk::submit_and_wait(ctx, [&](VkCommandBuffer cmd) {
      vk::memory_barrier(ctx, cmd, VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_WRITE_BIT,
                         VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
      ScanArgs args{c, bound, in.view(), out.view(), temp.view()};
      args.count_from = from;
      if (initial) args.initial_bits = element_bits(*initial);
      record_scan(ctx, cmd, args);
      vk::memory_barrier(ctx, cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                         VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
    });
    const size_t n = static_cast<size_t>(std::min<uint64_t>(gpu_count, bound));
    EXPECT_EQ(count.data()[2], gpu_count > bound ? 1u : 0u) << "status word";
    const std::vector<T> prefix(input.begin(), input.begin() + n);
    EXPECT_TRUE(matches_reference<T>(prefix, std::vector<T>(out.data(), out.data() + n), c.kind, c.op, initial));
    std::vector<T> poisoned(1);
    poison(poisoned.data(), sizeof(T));
    size_t touched = 0;
    for (size_t i = n; i < bound; ++i) touched += std::memcmp(&out.data()[i], poisoned.data(), sizeof(T)) != 0;
    EXPECT_EQ(touched, 0u) << "elements past the count were written";
    if (ran) *ran = {prefix, std::vector<T>(out.data(), out.data() + n)};
  }
};

// The same through device addresses (Addressing::device_address), 32- and 64-bit, with a carry-in.
TEST_P(IndirectTest, CountsThroughDeviceAddresses) {
  if (!shared_context().device_address_available()) GTEST_SKIP() << "no bufferDeviceAddress on this device";
  ctx_ = &context_with(Addressing::device_address);
  usage_ = addressable;
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  const size_t b = tile();
  for (size_t bound : {b + 1, b * b + 3}) {
    const size_t any = std::uniform_int_distribution<size_t>(0, bound)(rng);
    for (uint64_t count : {size_t{0}, size_t{1}, b, any, bound, bound + 5}) {
      check<uint32_t>(config(DataType::u32), bound, count, rng, seed, false, static_cast<uint32_t>(rng()));
      check<uint64_t>(config(DataType::u64), bound, count, rng, seed, true);
    }
  }
}

TEST_P(IndirectTest, CountsUpToTheBound) {
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  const size_t b = tile();
  for (size_t bound : {b - 1, b + 1, b * b + 3, 3 * b * b + 7}) {
    const size_t any = std::uniform_int_distribution<size_t>(0, bound)(rng);
    for (uint64_t count : {size_t{0}, size_t{1}, std::min(b, bound), std::min(b + 1, bound), any, bound})
      check<uint32_t>(config(DataType::u32), bound, count, rng, seed);
  }
}

// A count above the bound scans the bound's elements and sets the status word, also when only the
// high word of a u64 count says so.
TEST_P(IndirectTest, CountAboveTheBoundIsClamped) {
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  const size_t bound = tile() * tile() + 5;
  check<uint32_t>(config(DataType::u32), bound, bound + 1, rng, seed);
  check<uint32_t>(config(DataType::u32), bound, 0xFFFFFFFFu, rng, seed);
  check<uint32_t>(config(DataType::u32), bound, (uint64_t{1} << 32) + 3, rng, seed, true);
  check<uint32_t>(config(DataType::u32), bound, 17, rng, seed, true);
}

// Other types and operators, with a carry-in.
TEST_P(IndirectTest, TypesOperatorsAndCarryIn) {
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  const size_t bound = tile() * tile() + 9;
  ScanConfig c = config(DataType::u64);
  check<uint64_t>(c, bound, bound / 2 + 1, rng, seed, false, uint64_t{rng()});
  c = config(DataType::i32);
  c.op = Op::max;
  check<int32_t>(c, bound, tile() + 2, rng, seed, false, int32_t{-5});
  c = config(DataType::f32);
  c.op = Op::min;
  check<float>(c, bound, bound - 1, rng, seed);
}

INSTANTIATE_TEST_SUITE_P(, IndirectTest, every_algorithm_and_kind(), algorithm_kind_name);
// The look-ahead scan's float results depend on its grid G (shaders/lookahead.comp): from a count in GPU
// memory, the grid must be the one a count on the host gives, min(tiles, G) -- the same bits, not just
// close ones -- for counts below one round of G tiles, around it and past it.
using IndirectLookAheadTest = IndirectTest;
TEST_P(IndirectLookAheadTest, FloatBitsAsWithTheCountOnTheHost) {
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  const size_t round = size_t{core::look_ahead_default_grid(shared_context().device_info().shader_cores)} * tile();
  const size_t bound = 3 * round + 11;
  for (size_t count : {tile() + 3, round - 5, round + 1, 2 * round + 7, bound}) {
    std::pair<std::vector<float>, std::vector<float>> ran;
    check<float>(config(DataType::f32), bound, count, rng, seed, false, std::nullopt, &ran);
    if (HasFatalFailure() || IsSkipped()) return;
    const auto direct = record_and_run(shared_context(), ran.first, config(DataType::f32));
    ASSERT_EQ(direct.output.size(), ran.second.size());
    EXPECT_EQ(std::memcmp(direct.output.data(), ran.second.data(), ran.second.size() * sizeof(float)), 0)
        << "count " << count << ": other bits than the same scan with the count on the host";
  }
}
INSTANTIATE_TEST_SUITE_P(, IndirectLookAheadTest,
                         ::testing::Values(AlgorithmKind{Algorithm::look_ahead, ScanKind::exclusive},
                                           AlgorithmKind{Algorithm::look_ahead, ScanKind::inclusive}),
                         algorithm_kind_name);

// The look-ahead scan: G workgroups (lavapipe's default G is 64) stride over up to 385 tiles here; the
// grid follows the count in GPU memory (min(tiles, G)), so counts below G tiles run fewer workgroups.
INSTANTIATE_TEST_SUITE_P(LookAhead, IndirectTest,
                         ::testing::Values(AlgorithmKind{Algorithm::look_ahead, ScanKind::exclusive},
                                           AlgorithmKind{Algorithm::look_ahead, ScanKind::inclusive}),
                         algorithm_kind_name);

}  // namespace
}  // namespace gpuscan::test

namespace gpuscan::test {
namespace {

class IndirectReduceTest : public GpuTest {};

// Reductions with their count in GPU memory: 0 gives the identity, above the bound the bound's
// elements (status 1), several plan levels with a count that needs fewer.
TEST_F(IndirectReduceTest, CountsUpToAndPastTheBound) {
  const Context& ctx = shared_context();
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  ReduceConfig config;
  config.workgroup_size = 32;
  config.vectors_per_lane = 1;
  const size_t b = 128;
  for (const Op op : {Op::add, Op::max}) {
    config.op = op;
    config.type = DataType::i64;
    const size_t bound = b * b + 7;
    const auto input = random_values<int64_t>(bound, rng);
    HostBuffer<int64_t> in(ctx, bound * sizeof(int64_t));
    std::copy(input.begin(), input.end(), in.data());
    const TempRequirements req = reduce_temp_requirements(ctx, bound, config, true);
    HostBuffer<uint32_t> temp(ctx, req.size, req.usage);
    for (const uint64_t count : {uint64_t{0}, uint64_t{1}, uint64_t{b + 1}, uint64_t{bound}, uint64_t{bound + 3}}) {
      SCOPED_TRACE(std::string(to_string(op)) + ", count " + std::to_string(count) + ", seed " + std::to_string(seed));
      HostBuffer<int64_t> out(ctx, sizeof(int64_t));
      HostBuffer<uint32_t> words(ctx, 16);
      poison(out.data(), sizeof(int64_t));
      words.data()[0] = static_cast<uint32_t>(count);
      words.data()[2] = 0xA5A5A5A5u;
      vk::submit_and_wait(ctx, [&](VkCommandBuffer cmd) {
        vk::memory_barrier(ctx, cmd, VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                           VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
        ReduceArgs args{config, bound, in.view(), out.view(), temp.view()};
        args.count_from = IndirectCount{words.view(), false, words.view(8)};
        record_reduce(ctx, cmd, args);
        vk::memory_barrier(ctx, cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                           VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
      });
      const size_t n = static_cast<size_t>(std::min<uint64_t>(count, bound));
      const std::vector<int64_t> prefix(input.begin(), input.begin() + n);
      EXPECT_EQ(out.data()[0], cpu::reduce<int64_t>(prefix, op));
      EXPECT_EQ(words.data()[2], count > bound ? 1u : 0u) << "status word";
    }
  }
}

// record_indirect_args: the dispatch command for the application's own kernel, from a count in GPU
// memory, checked word for word against the rule (ceil(min(count, bound) / per) workgroups in rows of at
// most the grid width) over random counts, bounds and workgroup sizes, u32 and u64 counts, with and
// without a status word, on a grid capped at 7 workgroups wide so that the rows show; the words around
// the command stay poisoned.
class IndirectArgsTest : public GpuTest {};

TEST_F(IndirectArgsTest, WritesTheDispatchCommandOfACountInGpuMemory) {
  const Context& ctx = cached_context("grid 7 wide", [] {
    TestHooks hooks;
    hooks.max_workgroup_count_x = 7;
    return make_validated_context({}, hooks);
  });
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  HostBuffer<uint32_t> words(ctx, 64, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT);
  for (int trial = 0; trial < 40; ++trial) {
    const IndirectArgsCase c = indirect_args_case(trial, rng);
    SCOPED_TRACE(c.describe());
    std::fill(words.data(), words.data() + 16, 0xA5A5A5A5u);
    words.data()[0] = static_cast<uint32_t>(c.count);
    words.data()[1] = static_cast<uint32_t>(c.count >> 32);
    IndirectArgs args{.count = {.buffer = words.view(0), .is_64bit = c.wide}, .bound = c.bound,
                      .elements_per_workgroup = c.per, .command = words.view(4 * c.at)};
    if (c.status) args.count.status = words.view(4 * 12);
    vk::submit_and_wait(ctx, [&](VkCommandBuffer cmd) {
      vk::memory_barrier(ctx, cmd, VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_WRITE_BIT,
                         VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT);
      record_indirect_args(ctx, cmd, args);
      vk::memory_barrier(ctx, cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                         VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
    });
    const std::array<uint32_t, 3> want = c.command(7);
    for (uint32_t w = 0; w < 3; ++w) EXPECT_EQ(words.data()[c.at + w], want[w]) << "command word " << w;
    for (uint32_t w = 2; w < 12; ++w)
      if (w < c.at || w >= c.at + 3) EXPECT_EQ(words.data()[w], 0xA5A5A5A5u) << "word " << w << " was written";
    EXPECT_EQ(words.data()[12], c.status ? (c.count > c.bound ? 1u : 0u) : 0xA5A5A5A5u) << "status word";
  }
  // Refusals: no workgroup size, a command overlapping the count, a bound past 2^32 - 1.
  const auto refused = [&](IndirectArgs a, Errc code) {
    try {
      vk::submit_and_wait(ctx, [&](VkCommandBuffer cmd) { record_indirect_args(ctx, cmd, a); });
      ADD_FAILURE() << "recorded";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), code) << e.what();
    }
  };
  const IndirectArgs good{.count = {.buffer = words.view(0)}, .command = words.view(16)};
  IndirectArgs a = good;
  a.elements_per_workgroup = 0;
  refused(a, Errc::invalid_argument);
  a = good;
  a.command = words.view(0);
  refused(a, Errc::invalid_argument);
  a = good;
  a.bound = uint64_t{1} << 32;
  refused(a, Errc::too_large);
}

}  // namespace
}  // namespace gpuscan::test
