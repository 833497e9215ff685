// The radix sort (include/gpuscan/vulkan/sort.hpp) against std::stable_sort (cpu/sort_reference.hpp):
// every key type, keys only, pairs and argsort (whose values, the input positions, check stability
// exactly), ascending and descending, bit ranges, sizes around tiles (tiles of 64 x 4 = 256 keys where a
// test sets the shape) and the default shape, adversarial distributions, float specials, counts in GPU
// memory (SortArgs::count_from) below, at and above their bound, and refusals.
// SortRankTest holds what the subgroup size can change (the ballot ranking) and runs at lavapipe's
// subgroup sizes 4, 8 and 16; SortTest runs at 8 only (tests/CMakeLists.txt).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>

#include "gpuscan/sort_reference.hpp"
#include "gpu_test_support.hpp"
#include "gpuscan/testing.hpp"
#include "gpuscan/vulkan.hpp"
#include "sort_cases.hpp"
#include "vulkan/submit.hpp"

namespace gpuscan::test {
namespace {

class SortRankTest : public GpuTest {};
class SortTest : public GpuTest {};

constexpr size_t kGuard = 16;  // poisoned bytes before and after each output
constexpr SortConfig kSmallTiles{.workgroup_size = 64, .keys_per_lane = 4};  // tiles of 256 keys
constexpr uint64_t kSmallTile = 256;

// A device buffer holding `bytes` between poisoned guards, from a non-zero offset.
struct Guarded {
  HostBuffer<std::byte> buf;
  size_t bytes;
  Guarded(const Context& ctx, size_t n, VkBufferUsageFlags usage)
      : buf(ctx, n + 2 * kGuard, usage), bytes(n) {
    poison(buf.data(), n + 2 * kGuard);
  }
  BufferView view() const { return buf.view(kGuard); }
  std::byte* data() const { return buf.data() + kGuard; }
  void expect_guards() const {
    for (size_t i = 0; i < kGuard; ++i) {
      EXPECT_EQ(buf.data()[i], std::byte{0xA5}) << "guard byte before the range overwritten";
      EXPECT_EQ(buf.data()[kGuard + bytes + i], std::byte{0xA5}) << "guard byte after the range overwritten";
    }
  }
};

// Sorts through the recording API, outputs and temp poisoned; values empty: keys only, unless `indices`.
// With `gpu`, the count comes from GPU memory: the keys given are its bound, the result holds the
// min(count, bound) sorted ones, and the outputs past them and the status word are checked. `usage`: of
// the keys' and values' buffers (temp's is sort_temp_requirements').
Sorted run(const Context& ctx, std::span<const std::byte> keys, std::span<const std::byte> values, SortConfig config,
           bool indices = false, std::optional<GpuCount> gpu = std::nullopt,
           VkBufferUsageFlags usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT) {
  const uint32_t kbytes = element_size(config.key_type);
  const uint64_t bound = keys.size() / kbytes;
  const uint64_t n = gpu ? std::min(gpu->count, bound) : bound;
  const bool pairs = indices || !values.empty();
  if (pairs && config.value_bytes == 0) config.value_bytes = indices ? 4 : static_cast<uint32_t>(values.size() / bound);
  const TempRequirements req = sort_temp_requirements(ctx, bound, config, gpu.has_value());
  Guarded keys_in(ctx, keys.size(), usage), keys_out(ctx, keys.size(), usage);
  Guarded values_in(ctx, std::max<size_t>(values.size(), 4), usage), values_out(ctx, bound * config.value_bytes, usage);
  HostBuffer<std::byte> temp(ctx, std::max<VkDeviceSize>(req.size, 4), req.usage);
  poison(temp.data(), std::max<VkDeviceSize>(req.size, 4));
  HostBuffer<uint32_t> words(ctx, 16);  // the count (low word, high word), then the status word, poisoned
  poison(words.data(), 16);
  std::optional<IndirectCount> count_from;
  if (gpu) {
    words.data()[0] = static_cast<uint32_t>(gpu->count);
    if (gpu->is_64bit) words.data()[1] = static_cast<uint32_t>(gpu->count >> 32);
    count_from = IndirectCount{words.view(), gpu->is_64bit, words.view(8)};
  }
  if (!keys.empty()) std::memcpy(keys_in.data(), keys.data(), keys.size());
  if (!values.empty()) std::memcpy(values_in.data(), values.data(), values.size());
  vk::submit_and_wait(ctx, [&](VkCommandBuffer cmd) {
    vk::memory_barrier(ctx, cmd, VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                       VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
    if (pairs)
      record_sort_pairs(ctx, cmd, {config, bound, keys_in.view(), keys_out.view(), values_in.view(),
                                   values_out.view(), temp.view(), indices, count_from});
    else
      record_sort(ctx, cmd, {config, bound, keys_in.view(), keys_out.view(), temp.view(), count_from});
    vk::memory_barrier(ctx, cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
                       VK_ACCESS_HOST_READ_BIT);
  });
  keys_out.expect_guards();
  values_out.expect_guards();
  if (gpu) {
    EXPECT_EQ(words.data()[2], gpu->count > bound ? 1u : 0u) << "status word";
    expect_poisoned(keys_out.data(), n * kbytes, keys.size(), "keys_out");
    expect_poisoned(values_out.data(), n * config.value_bytes, bound * config.value_bytes, "values_out");
  }
  Sorted out;
  out.keys.assign(keys_out.data(), keys_out.data() + n * kbytes);
  out.values.assign(values_out.data(), values_out.data() + n * config.value_bytes);
  return out;
}

// Checks keys, argsort and (8-byte) pairs of `keys` against the reference (sort_cases.hpp).
template <class K>
void check_sort(const Context& ctx, const std::vector<K>& keys, SortConfig config, bool keys_only = true,
                bool argsort = true, bool pairs64 = false, std::optional<GpuCount> gpu = std::nullopt,
                VkBufferUsageFlags usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT) {
  auto sort_on = [&](std::span<const std::byte> k, std::span<const std::byte> v, SortConfig c, bool indices,
                     std::optional<GpuCount> g) { return run(ctx, k, v, c, indices, g, usage); };
  check_sort_with(sort_on, keys, config, keys_only, argsort, pairs64, gpu);
}

// --- SortRankTest: the ranking at every subgroup size -------------------------------------------------

void rank_cases(const Context& ctx) {
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (size_t n : {size_t{1}, size_t{2}, kSmallTile - 1, kSmallTile, kSmallTile + 1, 3 * kSmallTile + 5}) {
    check_sort(ctx, few_distinct<uint32_t>(n, 5, rng), kSmallTiles);
    check_sort(ctx, random_values<uint32_t>(n, rng), kSmallTiles, false);
  }
  // The default shape: W and K from the device.
  check_sort(ctx, few_distinct<uint32_t>(5000, 300, rng), {});
  check_sort(ctx, random_values<uint64_t>(3000, rng), {}, false, true, true);
}

TEST_F(SortRankTest, TileBoundariesAndStability) { rank_cases(shared_context()); }

// --- SortTest -----------------------------------------------------------------------------------------

template <class K>
void every_size(const Context& ctx, std::mt19937_64& rng) {
  for (size_t n : {size_t{0}, size_t{7}, kSmallTile * 2 - 1, kSmallTile * 2 + 1, size_t{4099}}) {
    check_sort(ctx, random_values<K>(n, rng), kSmallTiles, true, n > 1000);
  }
  check_sort(ctx, random_values<K>(70001, rng), {}, true, true);
  check_sort(ctx, few_distinct<K>(20000, 40, rng), {.descending = true}, false, true);
}

TEST_F(SortTest, EveryKeyType) {
  const Context& ctx = shared_context();
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  every_size<uint32_t>(ctx, rng);
  every_size<int32_t>(ctx, rng);
  every_size<float>(ctx, rng);
  every_size<uint64_t>(ctx, rng);
  every_size<int64_t>(ctx, rng);
  every_size<double>(ctx, rng);
}

// sort_unique: numpy.unique of any input, every key type (small tiles, then the default shape).
TEST_F(SortTest, SortUniqueIsNumpyUnique) {
  const Context& ctx = shared_context();
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("random values from " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (const SortConfig config : {kSmallTiles, SortConfig{}}) {
    auto every_type = [&]<class... K>() {
      (sort_unique_cases<K>([&](std::span<const K> a) { return sort_unique(ctx, a, config); },
                            config.workgroup_size ? kSmallTile : 4096, rng), ...);
    };
    every_type.template operator()<uint32_t, int32_t, float, uint64_t, int64_t, double>();
  }
}

TEST_F(SortTest, Distributions) {
  const Context& ctx = shared_context();
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const size_t n = 30000;
  for (const std::vector<uint32_t>& keys : adversarial_keys(n, rng)) {
    check_sort(ctx, keys, {}, false);
    check_sort(ctx, keys, {.descending = true}, false);
  }
  check_sort(ctx, signed_extremes(n, rng), {}, false, true, true);
}

TEST_F(SortTest, FloatSpecials) {
  const Context& ctx = shared_context();
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (bool descending : {false, true}) {
    check_sort(ctx, float_specials<float>(3000, rng), {.descending = descending});
    check_sort(ctx, float_specials<double>(3000, rng), {.descending = descending}, true, true, true);
  }
  // numpy's order, spelled out: -inf, -1, -0.0 and +0.0 in input order, 1, +inf, then the NaNs in input order.
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  const std::vector<float> keys = {nan, 1.0f, 0.0f, -nan, -0.0f, inf, -1.0f, -inf};
  EXPECT_EQ(argsort(ctx, std::span<const float>(keys)), (std::vector<uint32_t>{7, 6, 2, 4, 1, 5, 0, 3}));
}

TEST_F(SortTest, BitRanges) {
  const Context& ctx = shared_context();
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const std::vector<uint32_t> u32 = random_values<uint32_t>(9000, rng);
  for (auto [begin, end] : {std::pair{0u, 20u}, {4u, 12u}, {8u, 8u}, {31u, 32u}, {3u, 32u}})
    check_sort(ctx, u32, {.begin_bit = begin, .end_bit = end}, false);
  check_sort(ctx, random_values<int32_t>(5000, rng), {.descending = true, .begin_bit = 16, .end_bit = 32}, false);
  const std::vector<uint64_t> u64 = random_values<uint64_t>(5000, rng);
  for (auto [begin, end] : {std::pair{28u, 44u}, {0u, 40u}, {60u, 64u}})
    check_sort(ctx, u64, {.begin_bit = begin, .end_bit = end}, false);
  EXPECT_EQ(sort_passes({.key_type = DataType::u64, .end_bit = 40}), 5u);
  EXPECT_EQ(sort_passes({.begin_bit = 8, .end_bit = 8}), 1u);
}

// A grid capped at 3 workgroups per row: 11 tiles run as a 4 x 3 grid whose last workgroup lies past the
// end, and the digit counts' scan runs on two-dimensional grids too; with a count in GPU memory, rows of
// empty tiles follow the count's.
TEST_F(SortTest, TwoDimensionalGrids) {
  TestHooks hooks;
  hooks.max_workgroup_count_x = 3;
  const Context capped = make_validated_context({}, hooks);
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  check_sort(capped, few_distinct<uint32_t>(10 * kSmallTile + 1, 500, rng), kSmallTiles);
  check_sort(capped, random_values<double>(10 * kSmallTile + 1, rng), kSmallTiles, false, false, true);
  check_sort(capped, few_distinct<uint32_t>(10 * kSmallTile + 1, 500, rng), kSmallTiles, true, true, false,
             GpuCount{4 * kSmallTile + 3});
}

// Past a few hundred tiles (the counts' scan then spans several of its own tiles), with the pipelines
// built up front: the sorts build none.
TEST_F(SortTest, LargerInputsAfterPrepare) {
  const Context& ctx = shared_context();
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const size_t n = (size_t{1} << 18) + 3;
  prepare_sort(ctx, n, {});
  prepare_sort(ctx, n, {.value_bytes = 4});
  const size_t built = ctx.pipeline_count();
  check_sort(ctx, random_values<uint32_t>(n, rng), {}, true, true);
  EXPECT_EQ(ctx.pipeline_count(), built) << "a prepared sort built pipelines";
}

// SortAlgorithm::onesweep: the same checks over every key type, pairs, argsort, descending and bit
// ranges, and with tile 0 withholding its states, so that look-backs reaching it take the fallback.
class SortOnesweepTest : public GpuTest {};

TEST_F(SortOnesweepTest, MatchesStableSort) {
  const Context& ctx = shared_context();
  if (!ctx.single_pass_available()) GTEST_SKIP() << "no 64-bit buffer atomics: Onesweep is refused";
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  SortConfig small = kSmallTiles;
  small.algorithm = SortAlgorithm::onesweep;
  const SortConfig large{.algorithm = SortAlgorithm::onesweep};
  for (size_t n : {size_t{1}, kSmallTile, 5 * kSmallTile + 3}) check_sort(ctx, few_distinct<uint32_t>(n, 7, rng), small);
  check_sort(ctx, random_values<uint32_t>(70001, rng), large);
  check_sort(ctx, random_values<int32_t>(9000, rng), {.descending = true, .algorithm = SortAlgorithm::onesweep}, false);
  check_sort(ctx, float_specials<float>(9000, rng), large, false);
  check_sort(ctx, float_specials<double>(9000, rng), large, false, true, true);
  check_sort(ctx, random_values<int64_t>(9000, rng), large, false, true);
  check_sort(ctx, random_values<uint64_t>(9000, rng), {.begin_bit = 28, .end_bit = 44, .algorithm = SortAlgorithm::onesweep},
             false);
  check_sort(ctx, random_values<uint32_t>(3000, rng), {.begin_bit = 5, .end_bit = 5, .algorithm = SortAlgorithm::onesweep},
             false);
  // Every key equal (a tile's whole count in one digit, which each tile counts before it ranks), and keys
  // already in order and in reverse order.
  check_sort(ctx, std::vector<uint32_t>(3 * kSmallTile + 1, static_cast<uint32_t>(rng())), small);
  std::vector<uint32_t> ascending = random_values<uint32_t>(4 * kSmallTile + 3, rng);
  std::sort(ascending.begin(), ascending.end());
  check_sort(ctx, ascending, small);
  check_sort(ctx, std::vector<uint32_t>(ascending.rbegin(), ascending.rend()), small);
}

TEST_F(SortOnesweepTest, FallbackWhenTileZeroWithholdsItsState) {
  TestHooks hooks;
  hooks.withhold_first_tile = true;
  const Context withheld = make_validated_context({}, hooks);
  if (!withheld.single_pass_available()) GTEST_SKIP() << "no 64-bit buffer atomics: Onesweep is refused";
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  SortConfig small = kSmallTiles;
  small.algorithm = SortAlgorithm::onesweep;
  check_sort(withheld, few_distinct<uint32_t>(7 * kSmallTile + 1, 300, rng), small);
  check_sort(withheld, random_values<double>(3 * kSmallTile, rng), small, false, false, true);
}

TEST_F(SortTest, ConvenienceCalls) {
  const Context& ctx = shared_context();
  const std::vector<uint32_t> k = {2, 1, 2};
  const std::vector<double> v = {0.5, 1.5, 2.5};
  const auto [keys, values] = sort_pairs(ctx, std::span<const uint32_t>(k), std::span<const double>(v));
  EXPECT_EQ(keys, (std::vector<uint32_t>{1, 2, 2}));
  EXPECT_EQ(values, (std::vector<double>{1.5, 0.5, 2.5}));
  const std::vector<float> f = {2.5f, -1.0f, 2.5f};
  EXPECT_EQ(sort(ctx, std::span<const float>(f)), (std::vector<float>{-1.0f, 2.5f, 2.5f}));
  EXPECT_EQ(sort(ctx, std::span<const float>(f), {.descending = true}), (std::vector<float>{2.5f, 2.5f, -1.0f}));
  EXPECT_EQ(argsort(ctx, std::span<const float>(f)), (std::vector<uint32_t>{1, 0, 2}));
  EXPECT_TRUE(sort(ctx, std::span<const int64_t>()).empty());
}

// --- SortIndirectTest: the count from GPU memory (SortArgs::count_from) -------------------------------
//
// Keys past the count are random too: were any read, the digit counts and so the result would differ.
class SortIndirectTest : public GpuTest {};

// Runs `body(config, rng)` under a fresh seed with tiles of 256 keys and each algorithm (Onesweep where
// the device has 64-bit buffer atomics).
template <class F>
void each_algorithm(const Context& ctx, F body) {
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (SortAlgorithm algorithm : {SortAlgorithm::multipass, SortAlgorithm::onesweep}) {
    if (algorithm == SortAlgorithm::onesweep && !ctx.single_pass_available()) continue;
    SortConfig small = kSmallTiles;
    small.algorithm = algorithm;
    body(small, rng);
  }
}

// Counts around the tiles under bounds a little and much larger.
TEST_F(SortIndirectTest, CountsBelowTheBound) {
  const Context& ctx = shared_context();
  each_algorithm(ctx, [&](const SortConfig& small, std::mt19937_64& rng) {
    const size_t near = 4 * kSmallTile + 9, far = 60 * kSmallTile + 3;
    for (size_t count : {size_t{0}, size_t{1}, kSmallTile - 1, kSmallTile, kSmallTile + 1}) {
      check_sort(ctx, few_distinct<uint32_t>(near, 7, rng), small, true, true, false, GpuCount{count});
      check_sort(ctx, random_values<double>(far, rng), small, false, count > 1, true, GpuCount{count});
    }
    check_sort(ctx, random_values<uint32_t>(far, rng), small, true, true, false, GpuCount{3001});
    check_sort(ctx, random_values<int64_t>(far, rng), small, false, false, true, GpuCount{2999, true});
    SortConfig down = small;
    down.descending = true;
    check_sort(ctx, float_specials<float>(near, rng), down, false, true, false, GpuCount{near - 1});
    check_sort(ctx, random_values<uint32_t>(far, rng), {.end_bit = 20, .algorithm = small.algorithm}, true, true,
               false, GpuCount{5000});
  });
}

// A count above the bound sorts the bound's keys and sets the status word, also when only the high word
// of a u64 count says so; a bound of 0 only sets the status word.
TEST_F(SortIndirectTest, CountAboveTheBoundIsClamped) {
  const Context& ctx = shared_context();
  each_algorithm(ctx, [&](const SortConfig& small, std::mt19937_64& rng) {
    const size_t bound = 3 * kSmallTile + 5;
    check_sort(ctx, random_values<uint32_t>(bound, rng), small, true, true, false, GpuCount{bound + 1});
    check_sort(ctx, random_values<float>(bound, rng), small, false, true, false, GpuCount{0xFFFFFFFFu});
    check_sort(ctx, random_values<uint64_t>(bound, rng), small, false, false, true,
               GpuCount{(uint64_t{1} << 32) + 3, true});
    check_sort(ctx, random_values<uint32_t>(bound, rng), small, true, false, false, GpuCount{bound});
    check_sort(ctx, std::vector<uint32_t>{}, small, true, true, false, GpuCount{5});
    check_sort(ctx, std::vector<uint32_t>{}, small, true, false, false, GpuCount{0});
  });
}

// The default shape, the pipelines built up front for counts in GPU memory; and Onesweep with tile 0
// withholding its states, so that the look-backs of the tiles before the count take the fallback.
TEST_F(SortIndirectTest, PreparedAndFallback) {
  const Context& ctx = shared_context();
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const size_t bound = 70001;
  prepare_sort(ctx, bound, {}, true);
  prepare_sort(ctx, bound, {.value_bytes = 4}, true);
  const size_t built = ctx.pipeline_count();
  check_sort(ctx, random_values<uint32_t>(bound, rng), {}, true, true, false, GpuCount{40000});
  EXPECT_EQ(ctx.pipeline_count(), built) << "a prepared sort built pipelines";

  TestHooks hooks;
  hooks.withhold_first_tile = true;
  const Context withheld = make_validated_context({}, hooks);
  if (!withheld.single_pass_available()) GTEST_SKIP() << "no 64-bit buffer atomics: Onesweep is refused";
  SortConfig small = kSmallTiles;
  small.algorithm = SortAlgorithm::onesweep;
  check_sort(withheld, few_distinct<uint32_t>(12 * kSmallTile, 300, rng), small, true, true, false,
             GpuCount{5 * kSmallTile + 7});
}

// Misuse: the count or its status word overlapping what the sort writes, a count the checks of a view
// refuse, temp sized without `indirect`. Temp needs no INDIRECT_BUFFER usage.
TEST_F(SortIndirectTest, Misuse) {
  const Context& ctx = shared_context();
  const uint64_t n = 512;
  const SortConfig config{};
  HostBuffer<uint32_t> keys(ctx, 4096), words(ctx, 16), bare(ctx, 16, VK_BUFFER_USAGE_TRANSFER_DST_BIT);
  const TempRequirements req = sort_temp_requirements(ctx, n, config, true), direct = sort_temp_requirements(ctx, n, config);
  EXPECT_FALSE(req.usage & VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT);
  EXPECT_GT(req.size, direct.size);
  HostBuffer<uint32_t> temp(ctx, req.size, req.usage), short_temp(ctx, direct.size, direct.usage);
  auto expect = [&](std::optional<IndirectCount> from, Errc code, const char* text, const BufferView& t) {
    expect_recording_error(ctx, [&](VkCommandBuffer cmd) {
      record_sort(ctx, cmd, {config, n, keys.view(), keys.view(2048), t, from});
    }, code, text);
  };
  expect(IndirectCount{keys.view(2048 + 4)}, Errc::invalid_argument, "the count overlaps", temp.view());
  expect(IndirectCount{words.view(), false, temp.view(8)}, Errc::invalid_argument, "the status word overlaps",
         temp.view());
  expect(IndirectCount{words.view(), false, words.view()}, Errc::invalid_argument, "the status word overlaps",
         temp.view());
  expect(IndirectCount{words.view(2)}, Errc::misaligned, "count", temp.view());
  expect(IndirectCount{bare.view()}, Errc::missing_usage, "STORAGE_BUFFER", temp.view());
  expect(IndirectCount{words.view()}, Errc::buffer_too_small, "temp", short_temp.view());
}

TEST_F(SortTest, Refusals) {
  const Context& ctx = shared_context();
  EXPECT_THROW(sort_temp_requirements(ctx, 10, {.begin_bit = 9, .end_bit = 8}), Error);
  EXPECT_THROW(sort_temp_requirements(ctx, 10, {.end_bit = 33}), Error);
  EXPECT_THROW(sort_temp_requirements(ctx, 10, {.value_bytes = 2}), Error);
  EXPECT_THROW(sort_temp_requirements(ctx, 10, {.workgroup_size = 48}), Error);
  EXPECT_THROW(sort_temp_requirements(ctx, 10, {.keys_per_lane = 3}), Error);
  EXPECT_THROW(sort_temp_requirements(ctx, uint64_t{1} << 32, {}), Error);
  HostBuffer<uint32_t> keys(ctx, 4096), temp(ctx, 1 << 16);
  const SortConfig config{};
  const TempRequirements req = sort_temp_requirements(ctx, 512, config);
  ASSERT_LE(req.size, VkDeviceSize{1} << 16);
  // keys_out over keys_in
  expect_recording_error(ctx, [&](VkCommandBuffer cmd) {
    record_sort(ctx, cmd, {config, 512, keys.view(), keys.view(1024), temp.view()});
  }, Errc::invalid_argument, "overlap");
  // keys-only record with values
  expect_recording_error(ctx, [&](VkCommandBuffer cmd) {
    record_sort(ctx, cmd, {{.value_bytes = 4}, 512, keys.view(), keys.view(2048), temp.view()});
  }, Errc::invalid_argument, "value_bytes");
  // argsort with 8-byte values
  expect_recording_error(ctx, [&](VkCommandBuffer cmd) {
    record_sort_pairs(ctx, cmd, {{.value_bytes = 8}, 256, keys.view(), keys.view(1024), {}, keys.view(2048),
                                 temp.view(), true});
  }, Errc::invalid_argument, "value_bytes must be 4");
  // Onesweep clears its states with a fill: temp needs TRANSFER_DST
  if (ctx.single_pass_available())
    expect_recording_error(ctx, [&](VkCommandBuffer cmd) {
      record_sort(ctx, cmd, {{.algorithm = SortAlgorithm::onesweep}, 512, keys.view(), keys.view(2048), temp.view()});
    }, Errc::missing_usage, "TRANSFER_DST");
  // output too small
  expect_recording_error(ctx, [&](VkCommandBuffer cmd) {
    record_sort(ctx, cmd, {config, 512, keys.view(), keys.view(3072), temp.view()});
  }, Errc::buffer_too_small, "keys_out");
}

// --- SortAddressTest: keys and values through device addresses (the ".bda" kernels) ---------------------

class SortAddressTest : public GpuTest {
 protected:
  void SetUp() override {
    if (!shared_context().device_address_available()) GTEST_SKIP() << "no bufferDeviceAddress on this device";
  }
};

constexpr uint64_t kCapBytes = 8192;

// A validated Context with `addressing` whose bindings hold at most kCapBytes (TestHooks::max_binding_bytes).
const Context& capped_context(Addressing addressing) {
  return cached_context("sort, bindings of 8 KiB, " + std::string(to_string(addressing)), [addressing] {
    ContextCreateInfo info;
    info.addressing = addressing;
    TestHooks hooks;
    hooks.max_binding_bytes = kCapBytes;
    return make_validated_context(info, hooks);
  });
}

// `call` throws gpuscan::Error `code` with `fragment` in its message.
void expect_error(const std::function<void()>& call, Errc code, const std::string& fragment) {
  try {
    call();
    ADD_FAILURE() << "no error; expected one mentioning \"" << fragment << "\"";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), make_error_code(code)) << e.what();
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

// Addressing::device_address at any size: around the tile boundaries, keys, argsort and 8-byte pairs,
// signed keys descending, floats with their count from GPU memory.
TEST_F(SortAddressTest, TileBoundaries) {
  const Context& ctx = context_with(Addressing::device_address);
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  SortConfig descending = kSmallTiles;
  descending.descending = true;
  for (size_t n : {size_t{1}, kSmallTile - 1, kSmallTile, kSmallTile + 1, 5 * kSmallTile + 3}) {
    check_sort(ctx, few_distinct<uint32_t>(n, 7, rng), kSmallTiles, true, true, true, std::nullopt, addressable);
    check_sort(ctx, random_values<int64_t>(n, rng), descending, true, false, true, std::nullopt, addressable);
  }
  check_sort(ctx, random_values<float>(3000, rng), {}, false, true, false, GpuCount{1234}, addressable);
  if (ctx.single_pass_available())
    expect_error([&] { sort_temp_requirements(ctx, 100, {.algorithm = SortAlgorithm::onesweep}); },
                 Errc::unsupported, "bindings only");
}

// Keys and values longer than one binding (bindings capped at 8 KiB): the sort reaches them through device
// addresses by itself, needs that usage on every buffer, and refuses clearly what it cannot do.
TEST_F(SortAddressTest, PastOneBinding) {
  const Context& ctx = capped_context(Addressing::automatic);
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const size_t n = 5000;  // 20 KB of u32 keys, 40 KB of 8-byte values; 5 tiles' digit counts, 5 KB, fit
  const SortConfig config{.workgroup_size = 64, .keys_per_lane = 16};  // tiles of 1024 at any subgroup size
  SortConfig descending = config;
  descending.descending = true;
  constexpr VkBufferUsageFlags address_bit = VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT;
  EXPECT_NE(sort_temp_requirements(ctx, n, config).usage & address_bit, 0u);
  EXPECT_EQ(sort_temp_requirements(ctx, 1000, config).usage & address_bit, 0u) << "1000 keys fit one binding";
  check_sort(ctx, random_values<uint32_t>(n, rng), config, true, true, true, std::nullopt, addressable);
  check_sort(ctx, random_values<double>(n / 2 + 7, rng), descending, true, false, true, GpuCount{2222}, addressable);
  const std::vector<int32_t> few = few_distinct<int32_t>(n, 3, rng);
  std::vector<int32_t> want = few;
  std::stable_sort(want.begin(), want.end());
  EXPECT_EQ(sort(ctx, std::span<const int32_t>(few), config), want) << "the convenience call's own buffers";

  // Buffers without device addresses.
  SortConfig pairs = config;
  pairs.value_bytes = 4;
  const TempRequirements req = sort_temp_requirements(ctx, n, pairs);  // covers keys only too
  HostBuffer<uint32_t> keys(ctx, 2 * n * 4), reachable(ctx, 2 * n * 4, addressable), temp(ctx, req.size, req.usage);
  expect_recording_error(ctx, [&](VkCommandBuffer cmd) {
    record_sort(ctx, cmd, {config, n, keys.view(), keys.view(n * 4), temp.view()});
  }, Errc::missing_usage, "keys do not fit one binding");
  expect_recording_error(ctx, [&](VkCommandBuffer cmd) {
    record_sort_pairs(ctx, cmd, {pairs, n, reachable.view(), reachable.view(n * 4), keys.view(),
                                 keys.view(n * 4), temp.view()});
  }, Errc::missing_usage, "values_out buffer lacks VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT");

  // What cannot go past one binding.
  expect_error([&] { sort_temp_requirements(capped_context(Addressing::bindings), n, config); }, Errc::too_large,
               "Addressing::bindings");
  SortConfig onesweep = config;
  onesweep.algorithm = SortAlgorithm::onesweep;
  if (ctx.single_pass_available())
    expect_error([&] { sort_temp_requirements(ctx, n, onesweep); }, Errc::too_large, "Onesweep");
  expect_error([&] { sort_temp_requirements(ctx, n, kSmallTiles); }, Errc::too_large, "digit counts");
}

// Past lavapipe's own binding limit (maxStorageBufferRange, 128 MiB): 2^25 + 2^20 u32 keys, 138 MB, on
// their low 16 bits: two passes, through temp's copy and into the output.
TEST_F(SortAddressTest, BeyondTheDevicesBindingLimit) {
  const Context& ctx = shared_context();
  const size_t n = (size_t{1} << 25) + (size_t{1} << 20);
  if (ctx.device_info().max_storage_buffer_range >= n * 4) GTEST_SKIP() << "one binding holds 138 MB here";
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  check_sort(ctx, random_values<uint32_t>(n, rng), {.end_bit = 16}, true, false, false, std::nullopt, addressable);
}

}  // namespace
}  // namespace gpuscan::test
