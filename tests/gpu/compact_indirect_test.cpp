// Compactions whose element count sits in GPU memory (SelectArgs::count_from): the count is
// read on the GPU, clamped to the upper bound SelectArgs::count (status word 1), and every dispatch is
// issued with vkCmdDispatchIndirect. Every function (select_if / select_flagged / partition_if /
// partition_flagged) on every plan (three-pass on either path, single-pass); outputs are poisoned, so
// elements past what the real count writes must stay untouched. Plus chains with no readback:
// compaction -> compaction and reduction -> compaction.
#include <algorithm>

#include "compact_check.hpp"
#include "gpuscan/reference.hpp"

namespace gpuscan::test {
namespace {

constexpr uint32_t poison_word = 0xA5A5A5A5u;

struct IndirectParam {
  CompactPath path;
  CompactAlgorithm algorithm;
};

class CompactIndirectTest : public GpuTest, public ::testing::WithParamInterface<IndirectParam> {
 protected:
  const Context& ctx = shared_context();
  void SetUp() override {
    if (GetParam().path == CompactPath::ballot && !ctx.device_info().has_subgroup_ballot())
      GTEST_SKIP() << "no subgroup ballots";
    if (GetParam().algorithm == CompactAlgorithm::single_pass && !ctx.single_pass_available())
      GTEST_SKIP() << "no single-pass look-back";
  }
  bool single_pass() const { return GetParam().algorithm == CompactAlgorithm::single_pass; }
  // W = 32, K = 1: tiles of 128 elements, so small bounds make several levels of tile counts.
  CompactConfig config(DataType type = DataType::u32) const {
    return {type, GetParam().path, 32, 1, GetParam().algorithm};
  }

  // Compacts with `bound` as SelectArgs::count and `gpu_count` (u32, or u64 with as_64) in GPU memory;
  // checks the output, the untouched tail, count_out and the status word.
  void check(size_t bound, uint64_t gpu_count, bool flagged, bool partition, std::mt19937_64& rng, uint64_t seed,
             bool as_64 = false) {
    check_on(ctx, bound, gpu_count, flagged, partition, rng, seed, as_64);
  }
  // Elements of type T (u32 unless a test says otherwise): the values and the output hold T, flags and
  // words stay u32.
  template <class T = uint32_t>
  void check_on(const Context& ctx, size_t bound, uint64_t gpu_count, bool flagged, bool partition,
                std::mt19937_64& rng, uint64_t seed, bool as_64 = false) {
    SCOPED_TRACE("bound " + std::to_string(bound) + ", count " + std::to_string(gpu_count) + (as_64 ? " (u64)" : "") +
                 (flagged ? ", flagged" : ", if") + (partition ? " partition" : " select") + ", " +
                 std::string(to_string(data_type_of<T>::value)) + ", seed " + std::to_string(seed));
    const CompactConfig c = config(data_type_of<T>::value);
    const size_t room = std::max<size_t>(bound, 1);
    std::vector<T> values = random_values<T>(bound, rng);
    std::vector<uint32_t> flags(bound);
    for (auto& f : flags) f = rng() % 2 ? static_cast<uint32_t>(rng() | 1) : 0u;
    // About half kept: below the middle of an unsigned type's range, negative for the others.
    const Predicate pred = [] {
      if constexpr (std::is_unsigned_v<T>) return Predicate::less<T>(T(1) << (sizeof(T) * 8 - 1));
      else return Predicate::less<T>(T(0));
    }();
    T poisoned;
    poison(&poisoned, sizeof poisoned);
    HostBuffer<T> in(ctx, room * sizeof(T)), out(ctx, room * sizeof(T));
    HostBuffer<uint32_t> fl(ctx, room * 4), words(ctx, 32);
    const TempRequirements req = compact_temp_requirements(ctx, bound, c, true);
    HostBuffer<uint32_t> temp(ctx, std::max<VkDeviceSize>(req.size, 4), req.usage);
    std::copy(values.begin(), values.end(), in.data());
    std::copy(flags.begin(), flags.end(), fl.data());
    poison(out.data(), room * sizeof(T));
    poison(temp.data(), std::max<VkDeviceSize>(req.size, 4));
    poison(words.data(), 32);
    words.data()[0] = static_cast<uint32_t>(gpu_count);  // the count, then (u64) its high word
    words.data()[1] = static_cast<uint32_t>(gpu_count >> 32);
    // words[2]: the status word; words[4]: count_out -- both poisoned
    SelectArgs args{c, bound, in.view(), {}, pred, out.view(), words.view(16), temp.view()};
    if (flagged) args.flags = fl.view();
    args.count_from = IndirectCount{words.view(), as_64, words.view(8)};
    vk::submit_and_wait(ctx, [&](VkCommandBuffer cmd) {
      vk::memory_barrier(ctx, cmd, VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                         VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
      if (partition) flagged ? record_partition_flagged(ctx, cmd, args) : record_partition_if(ctx, cmd, args);
      else flagged ? record_select_flagged(ctx, cmd, args) : record_select_if(ctx, cmd, args);
      vk::memory_barrier(ctx, cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                         VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
    });
    const size_t n = static_cast<size_t>(std::min<uint64_t>(gpu_count, bound));
    std::vector<size_t> order(n);
    for (size_t i = 0; i < n; ++i) order[i] = i;
    auto keep = [&](size_t i) { return flagged ? flags[i] != 0 : pred.holds(values[i]); };
    const size_t kept = std::stable_partition(order.begin(), order.end(), keep) - order.begin();
    std::vector<T> want(partition ? n : kept);
    for (size_t i = 0; i < want.size(); ++i) want[i] = values[order[i]];
    EXPECT_EQ(words.data()[2], gpu_count > bound ? 1u : 0u) << "status word";
    EXPECT_EQ(words.data()[4], kept) << "count_out";
    EXPECT_EQ(words.data()[3], poison_word);
    EXPECT_EQ(words.data()[5], poison_word);
    expect_same(std::vector<T>(out.data(), out.data() + want.size()), want, "output");
    size_t touched = 0;
    for (size_t i = want.size(); i < room; ++i) touched += Predicate::bits(out.data()[i]) != Predicate::bits(poisoned);
    EXPECT_EQ(touched, 0u) << "elements past what the count writes were written";
  }

  // Every function, every count of interest, for one bound.
  void sweep(size_t bound, std::vector<uint64_t> counts, std::mt19937_64& rng, uint64_t seed, bool as_64 = false) {
    for (bool partition : {false, true}) {
      if (partition && single_pass()) continue;  // partitions run three-pass only
      for (bool flagged : {false, true})
        for (uint64_t count : counts) check(bound, count, flagged, partition, rng, seed, as_64);
    }
  }
};

TEST_P(CompactIndirectTest, CountsUpToTheBound) {
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  const size_t t = 128;
  // 130 tiles + 1 element: 131 tile counts, a second level in both count scans.
  for (size_t bound : {size_t{0}, size_t{1}, t - 1, t + 1, 130 * t + 1}) {
    const size_t any = std::uniform_int_distribution<size_t>(0, bound)(rng);
    sweep(bound, {0, 1, std::min(t, bound), std::min(t + 1, bound), any, bound}, rng, seed);
  }
}

// A count above the bound compacts the bound's elements and sets the status word, also when only the
// high word of a u64 count says so.
TEST_P(CompactIndirectTest, CountAboveTheBoundIsClamped) {
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  const size_t bound = 3 * 128 + 5;
  sweep(bound, {bound + 1, 0xFFFFFFFFu}, rng, seed);
  sweep(bound, {(uint64_t{1} << 32) + 3, 17, bound}, rng, seed, true);
  sweep(0, {5}, rng, seed);
}

// A grid capped at 3 workgroups per row: the grids computed on the GPU are two-dimensional too (131
// tiles at the bound: 44 x 3), with workgroups past the end of the last row.
TEST_P(CompactIndirectTest, TwoDimensionalGrids) {
  TestHooks hooks;
  hooks.max_workgroup_count_x = 3;
  const Context capped = make_validated_context({}, hooks);
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  const size_t bound = 130 * 128 + 1;
  for (bool partition : {false, true}) {
    if (partition && single_pass()) continue;
    for (uint64_t count : {uint64_t{0}, uint64_t{5 * 128 + 3}, uint64_t{bound}, uint64_t{bound + 2}})
      check_on(capped, bound, count, partition, partition, rng, seed);
  }
}

// 8-byte elements: counts around tile boundaries, above the bound, and a u64 count.
TEST_P(CompactIndirectTest, EightByteElements) {
  if (!ctx.device_info().shader_int64 || !ctx.device_info().shader_float64)
    GTEST_SKIP() << "no shaderInt64 / shaderFloat64";
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  const size_t bound = 130 * 128 + 1;
  const size_t any = std::uniform_int_distribution<size_t>(0, bound)(rng);
  for (bool partition : {false, true}) {
    if (partition && single_pass()) continue;
    for (bool flagged : {false, true})
      for (uint64_t count : {uint64_t{0}, uint64_t{1}, uint64_t{129}, uint64_t{any}, uint64_t{bound + 3}}) {
        check_on<uint64_t>(ctx, bound, count, flagged, partition, rng, seed);
        check_on<double>(ctx, bound, count, flagged, partition, rng, seed, count == bound + 3);
      }
  }
}

INSTANTIATE_TEST_SUITE_P(All, CompactIndirectTest,
                         ::testing::Values(IndirectParam{CompactPath::ballot, CompactAlgorithm::three_pass},
                                           IndirectParam{CompactPath::shared_memory, CompactAlgorithm::three_pass},
                                           IndirectParam{CompactPath::ballot, CompactAlgorithm::single_pass}),
                         [](const ::testing::TestParamInfo<IndirectParam>& info) {
                           return std::string(info.param.path == CompactPath::ballot ? "ballot" : "shared") + "_" +
                                  (info.param.algorithm == CompactAlgorithm::single_pass ? "single_pass"
                                                                                         : "three_pass");
                         });

class CompactChainTest : public GpuTest {
 protected:
  const Context& ctx = shared_context();
};

// select_if, then a partition of what it kept, then a reduction-fed selection: each takes its count
// from the GPU buffer the one before it wrote, in one command buffer, with no readback between.
TEST_F(CompactChainTest, CompactionFeedsCompactionAndReductionFeedsCompaction) {
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  const size_t n = 5000;
  const std::vector<uint32_t> values = random_values<uint32_t>(n, rng);
  std::vector<uint32_t> ones(n);
  const size_t prefix = std::uniform_int_distribution<size_t>(0, n)(rng);
  for (size_t i = 0; i < n; ++i) ones[i] = i < prefix ? 1 : 0;  // their sum: the third step's count
  const CompactConfig c{DataType::u32, CompactPath::automatic, 32, 1};
  HostBuffer<uint32_t> in(ctx, n * 4), mid(ctx, n * 4), out(ctx, n * 4), ones_buf(ctx, n * 4), out3(ctx, n * 4);
  HostBuffer<uint32_t> counts(ctx, 16);  // [0] first kept, [1] second kept, [2] sum of ones, [3] third kept
  const TempRequirements req = compact_temp_requirements(ctx, n, c, true);
  HostBuffer<uint32_t> t1(ctx, req.size, req.usage), t2(ctx, req.size, req.usage), t3(ctx, req.size, req.usage);
  ReduceConfig rc;
  const TempRequirements rreq = reduce_temp_requirements(ctx, n, rc);
  HostBuffer<uint32_t> rtemp(ctx, std::max<VkDeviceSize>(rreq.size, 4), rreq.usage | VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
  std::copy(values.begin(), values.end(), in.data());
  std::copy(ones.begin(), ones.end(), ones_buf.data());
  poison(mid.data(), n * 4);
  poison(out.data(), n * 4);
  poison(out3.data(), n * 4);
  poison(counts.data(), 16);
  const Predicate big = Predicate::greater<uint32_t>(0x40000000u), odd = Predicate::bits_set(1);
  vk::submit_and_wait(ctx, [&](VkCommandBuffer cmd) {
    vk::memory_barrier(ctx, cmd, VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                       VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
    record_select_if(ctx, cmd, {c, n, in.view(), {}, big, mid.view(), counts.view(0), t1.view()});
    record_reduce(ctx, cmd, {rc, n, ones_buf.view(), counts.view(8), rtemp.view()});
    vk::memory_barrier(ctx, cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                       VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT);
    SelectArgs second{c, n, mid.view(), {}, odd, out.view(), counts.view(4), t2.view()};
    second.count_from = IndirectCount{counts.view(0)};
    record_partition_if(ctx, cmd, second);
    // The third step's count and count_out share a buffer with the second's count_out.
    vk::memory_barrier(ctx, cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                       VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
    SelectArgs third{c, n, in.view(), {}, odd, out3.view(), counts.view(12), t3.view()};
    third.count_from = IndirectCount{counts.view(8)};
    record_select_if(ctx, cmd, third);
    vk::memory_barrier(ctx, cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
                       VK_ACCESS_HOST_READ_BIT);
  });
  std::vector<uint32_t> first, second, third;
  std::copy_if(values.begin(), values.end(), std::back_inserter(first), big);
  second = first;
  const size_t second_kept = std::stable_partition(second.begin(), second.end(), odd) - second.begin();
  std::copy_if(values.begin(), values.begin() + prefix, std::back_inserter(third), odd);
  EXPECT_EQ(counts.data()[0], first.size()) << "seed " << seed;
  EXPECT_EQ(counts.data()[1], second_kept) << "seed " << seed;
  EXPECT_EQ(counts.data()[2], prefix) << "seed " << seed;
  EXPECT_EQ(counts.data()[3], third.size()) << "seed " << seed;
  expect_same(std::vector<uint32_t>(out.data(), out.data() + second.size()), second, "partition of the selection");
  expect_same(std::vector<uint32_t>(out3.data(), out3.data() + third.size()), third, "selection of the reduced count");
  for (size_t i = second.size(); i < n; ++i) ASSERT_EQ(out.data()[i], poison_word) << "partition tail " << i;
  for (size_t i = third.size(); i < n; ++i) ASSERT_EQ(out3.data()[i], poison_word) << "selection tail " << i;
}

// Misuse: the count buffer overlapping what the compaction writes, temp without INDIRECT_BUFFER usage.
TEST_F(CompactChainTest, IndirectMisuse) {
  const size_t n = 100;
  const CompactConfig c{DataType::u32, CompactPath::automatic, 32, 1, CompactAlgorithm::three_pass};
  HostBuffer<uint32_t> in(ctx, n * 4), out(ctx, n * 4), counts(ctx, 16);
  const TempRequirements req = compact_temp_requirements(ctx, n, c, true);
  HostBuffer<uint32_t> temp(ctx, req.size, req.usage), plain(ctx, req.size);
  auto expect = [&](SelectArgs a, Errc code, const char* text) {
    try {
      vk::submit_and_wait(ctx, [&](VkCommandBuffer cmd) { record_select_if(ctx, cmd, a); });
      ADD_FAILURE() << "no error; expected " << text;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), code) << e.what();
      EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
    }
  };
  SelectArgs a{c, n, in.view(), {}, Predicate::nonzero(), out.view(), counts.view(0), temp.view()};
  a.count_from = IndirectCount{counts.view(0)};
  expect(a, Errc::invalid_argument, "the count overlaps");
  a.count_from = IndirectCount{counts.view(4), false, counts.view(0)};
  expect(a, Errc::invalid_argument, "the status word overlaps");
  a.count_from = IndirectCount{out.view(8)};
  expect(a, Errc::invalid_argument, "the count overlaps");
  a.count_from = IndirectCount{counts.view(4)};
  a.temp = plain.view();
  expect(a, Errc::missing_usage, "INDIRECT_BUFFER");
}

}  // namespace
}  // namespace gpuscan::test
