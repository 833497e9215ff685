// The OpenGL radix sort (gpuscan/gl.hpp) against std::stable_sort (tests/gpu/sort_cases.hpp, shared with
// the Vulkan suite): every key type, keys only, pairs with 4- and 8-byte values and argsort (whose values,
// the input positions, check stability exactly), ascending and descending, bit ranges, sizes around
// tiles, adversarial distributions, float specials, counts in GPU memory and refusals. Outputs, guards
// around them and temp are poisoned before every sort. On llvmpipe this is the ranking by 1-bit splits.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "gl_test_support.hpp"
#include "sort_cases.hpp"

namespace gpuscan::test {
namespace {

class GlSortTest : public GlTest {};

constexpr size_t kGuard = 16;  // poisoned bytes before and after each output
constexpr SortConfig kSmallTiles{.workgroup_size = 64, .keys_per_lane = 4};  // tiles of 256 keys
constexpr uint64_t kSmallTile = 256;

// A GL buffer holding `bytes` from byte kGuard on, all of it poisoned (or `data` in the range).
struct GlGuarded {
  size_t bytes;
  GlBuffer buf;
  GlGuarded(size_t n, const void* data = nullptr) : bytes(n), buf(n + 2 * kGuard, filled(n, data).data()) {}
  static std::vector<unsigned char> filled(size_t n, const void* data) {
    std::vector<unsigned char> b = poison_bytes(n + 2 * kGuard);
    if (data && n) std::memcpy(b.data() + kGuard, data, n);
    return b;
  }
  gl::BufferView view() const { return buf.view(kGuard); }
  std::vector<std::byte> all() const { return buf.read<std::byte>(0, bytes + 2 * kGuard); }
  std::vector<std::byte> range() const { return buf.read<std::byte>(kGuard, bytes); }
  void expect_guards() const {
    const std::vector<std::byte> b = all();
    for (size_t i = 0; i < kGuard; ++i) {
      EXPECT_EQ(b[i], std::byte{0xA5}) << "guard byte before the range overwritten";
      EXPECT_EQ(b[kGuard + bytes + i], std::byte{0xA5}) << "guard byte after the range overwritten";
    }
  }
};

// Sorts through gl::record_sort / record_sort_pairs; values empty: keys only, unless `indices`. With `gpu`,
// the count comes from GPU memory (the keys given are its bound).
Sorted run(std::span<const std::byte> keys, std::span<const std::byte> values, SortConfig config, bool indices,
           std::optional<GpuCount> gpu) {
  const gl::Context& ctx = gl_context();
  const uint32_t kbytes = element_size(config.key_type);
  const uint64_t bound = keys.size() / kbytes;
  const uint64_t n = gpu ? std::min(gpu->count, bound) : bound;
  const bool pairs = indices || !values.empty();
  if (pairs && config.value_bytes == 0) config.value_bytes = indices ? 4 : static_cast<uint32_t>(values.size() / bound);
  const gl::TempRequirements req = gl::sort_temp_requirements(ctx, bound, config, gpu.has_value());
  GlGuarded keys_in(keys.size(), keys.data()), keys_out(keys.size());
  GlGuarded values_in(std::max<size_t>(values.size(), 4), values.data()), values_out(bound * config.value_bytes);
  GlGuarded temp(std::max<size_t>(req.size, 4));
  uint32_t words[4] = {static_cast<uint32_t>(gpu ? gpu->count : 0), 0, 0xA5A5A5A5u, 0xA5A5A5A5u};
  if (gpu && gpu->is_64bit) words[1] = static_cast<uint32_t>(gpu->count >> 32);
  GlBuffer count_buffer(sizeof words, words);
  std::optional<gl::IndirectCount> count_from;
  if (gpu) count_from = gl::IndirectCount{count_buffer.view(), gpu->is_64bit, count_buffer.view(8)};
  if (pairs)
    gl::record_sort_pairs(ctx, {config, bound, keys_in.view(), keys_out.view(), values_in.view(), values_out.view(),
                                temp.view(), indices, count_from});
  else
    gl::record_sort(ctx, {config, bound, keys_in.view(), keys_out.view(), temp.view(), count_from});
  buffer_update_barrier();
  keys_out.expect_guards();
  values_out.expect_guards();
  temp.expect_guards();
  keys_in.expect_guards();
  const std::vector<std::byte> keys_got = keys_out.range(), values_got = values_out.range();
  EXPECT_TRUE(std::equal(keys.begin(), keys.end(), keys_in.range().begin())) << "keys_in was written";
  if (gpu) {
    EXPECT_EQ(count_buffer.read<uint32_t>(2, 1)[0], gpu->count > bound ? 1u : 0u) << "status word";
    expect_poisoned(keys_got.data(), n * kbytes, keys_got.size(), "keys_out");
    expect_poisoned(values_got.data(), n * config.value_bytes, values_got.size(), "values_out");
  }
  Sorted out;
  out.keys.assign(keys_got.begin(), keys_got.begin() + n * kbytes);
  out.values.assign(values_got.begin(), values_got.begin() + n * config.value_bytes);
  return out;
}

template <class K>
void check_sort(const std::vector<K>& keys, SortConfig config, bool keys_only = true, bool argsort = true,
                bool pairs64 = false, std::optional<GpuCount> gpu = std::nullopt) {
  check_sort_with(run, keys, config, keys_only, argsort, pairs64, gpu);
}

// 4-byte values (a bit pattern per key) move with their keys.
template <class K>
void check_pairs32(const std::vector<K>& keys, SortConfig config) {
  config.key_type = data_type_of<K>::value;
  config.value_bytes = 4;
  std::vector<uint32_t> values(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) values[i] = static_cast<uint32_t>(i * 2654435761u);
  const std::vector<uint32_t> order = cpu::stable_sort_order<K>(keys, config.descending, config.begin_bit, config.end_bit);
  std::vector<uint32_t> want(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) want[i] = values[order[i]];
  const Sorted got = run(std::as_bytes(std::span(keys)), std::as_bytes(std::span(values)), config, false, std::nullopt);
  EXPECT_TRUE(got.values == bytes_of(want)) << "4-byte values differ from std::stable_sort's";
}

template <class K>
void around_tiles(std::mt19937_64& rng) {
  SCOPED_TRACE(std::string(to_string(data_type_of<K>::value)));
  for (size_t n : {size_t{0}, size_t{1}, kSmallTile - 1, kSmallTile, kSmallTile + 1, 3 * kSmallTile + 5}) {
    check_sort(random_values<K>(n, rng), kSmallTiles, true, true, n > kSmallTile);
    check_sort(few_distinct<K>(n, 5, rng), kSmallTiles, false, true);
  }
  check_pairs32(random_values<K>(2 * kSmallTile + 7, rng), kSmallTiles);
  // The default shape (W and K from the context), a few tiles of it.
  check_sort(random_values<K>(9000, rng), {}, true, true);
  check_sort(few_distinct<K>(7000, 40, rng), {.descending = true}, false, true);
}

TEST_F(GlSortTest, EveryKeyTypeAroundTiles) {
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("random values from " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  around_tiles<uint32_t>(rng);
  around_tiles<int32_t>(rng);
  around_tiles<float>(rng);
  around_tiles<uint64_t>(rng);
  around_tiles<int64_t>(rng);
  around_tiles<double>(rng);
}

// sort_unique: numpy.unique of any input, every key type, on GL.
TEST_F(GlSortTest, SortUniqueIsNumpyUnique) {
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("random values from " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  auto every_type = [&]<class... K>() {
    (sort_unique_cases<K>([&](std::span<const K> a) { return gl::sort_unique(gl_context(), a, kSmallTiles); }, kSmallTile, rng),
     ...);
  };
  every_type.template operator()<uint32_t, int32_t, float, uint64_t, int64_t, double>();
}

TEST_F(GlSortTest, LargerInputs) {
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("random values from " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  check_sort(random_values<uint32_t>(200003, rng), {}, true, true);
  check_sort(random_values<double>(100001, rng), {}, false, false, true);
}

TEST_F(GlSortTest, Distributions) {
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("random values from " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const size_t n = 6000;
  for (const std::vector<uint32_t>& keys : adversarial_keys(n, rng)) {
    check_sort(keys, {}, false);
    check_sort(keys, {.descending = true}, false);
  }
  check_sort(signed_extremes(n, rng), {}, false, true, true);
}

TEST_F(GlSortTest, FloatSpecials) {
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("random values from " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (bool descending : {false, true}) {
    check_sort(float_specials<float>(3000, rng), {.descending = descending});
    check_sort(float_specials<double>(3000, rng), {.descending = descending}, true, true, true);
  }
  // numpy's order: -inf, -1, -0.0 and +0.0 in input order, 1, +inf, then the NaNs in input order.
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  const std::vector<float> keys = {nan, 1.0f, 0.0f, -nan, -0.0f, inf, -1.0f, -inf};
  EXPECT_EQ(gl::argsort(gl_context(), std::span<const float>(keys)), (std::vector<uint32_t>{7, 6, 2, 4, 1, 5, 0, 3}));
}

TEST_F(GlSortTest, BitRanges) {
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("random values from " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const std::vector<uint32_t> u32 = random_values<uint32_t>(3000, rng);
  for (auto [begin, end] : {std::pair{0u, 20u}, {4u, 12u}, {8u, 8u}, {31u, 32u}, {3u, 32u}})
    check_sort(u32, {.begin_bit = begin, .end_bit = end}, false);
  check_sort(random_values<int32_t>(3000, rng), {.descending = true, .begin_bit = 16, .end_bit = 32}, false);
  const std::vector<uint64_t> u64 = random_values<uint64_t>(3000, rng);
  for (auto [begin, end] : {std::pair{28u, 44u}, {0u, 40u}, {60u, 64u}})
    check_sort(u64, {.begin_bit = begin, .end_bit = end}, false);
}

// The count from GPU memory: below, at and above the bound (64-bit too), and a bound of 0.
TEST_F(GlSortTest, CountFromGpuMemory) {
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("random values from " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const std::vector<uint32_t> keys = few_distinct<uint32_t>(5 * kSmallTile + 3, 300, rng);
  for (uint64_t count : {uint64_t{0}, uint64_t{1}, 2 * kSmallTile + 1, uint64_t{keys.size()}, uint64_t{keys.size() + 9}})
    check_sort(keys, kSmallTiles, true, true, false, GpuCount{count});
  check_sort(random_values<double>(3000, rng), {}, true, false, true, GpuCount{1234, true});
  check_sort(std::vector<uint32_t>{}, {}, true, true, false, GpuCount{7});
}

TEST_F(GlSortTest, ConvenienceCalls) {
  const gl::Context& ctx = gl_context();
  const std::vector<uint32_t> in = {3, 1, 7, 0, 4, 1, 6, 3};
  EXPECT_EQ(gl::sort(ctx, std::span<const uint32_t>(in)), (std::vector<uint32_t>{0, 1, 1, 3, 3, 4, 6, 7}));
  EXPECT_EQ(gl::argsort(ctx, std::span<const uint32_t>(in)), (std::vector<uint32_t>{3, 1, 5, 0, 7, 4, 6, 2}));
  EXPECT_EQ(gl::sort(ctx, std::span<const uint32_t>(in), {.descending = true}),
            (std::vector<uint32_t>{7, 6, 4, 3, 3, 1, 1, 0}));
  const std::vector<uint32_t> k = {2, 1, 2};
  const std::vector<double> v = {0.5, 1.5, 2.5};
  const auto [keys, values] = gl::sort_pairs(ctx, std::span<const uint32_t>(k), std::span<const double>(v));
  EXPECT_EQ(keys, (std::vector<uint32_t>{1, 2, 2}));
  EXPECT_EQ(values, (std::vector<double>{1.5, 0.5, 2.5}));
  EXPECT_TRUE(gl::sort(ctx, std::span<const int64_t>()).empty());
  // The ranking the context gets: ballots only with GL_KHR_shader_subgroup's ballots.
  const std::string plan = gl::describe_sort_plan(ctx, 1000, {});
  EXPECT_NE(plan.find(ctx.info().subgroup_ballot ? "subgroup ballots" : "1-bit splits"), std::string::npos) << plan;
}

TEST_F(GlSortTest, Misuse) {
  const gl::Context& ctx = gl_context();
  const uint64_t n = 1000;
  GlBuffer in(n * 8), out(n * 8), values(n * 8);
  const gl::TempRequirements req = gl::sort_temp_requirements(ctx, n, {});
  // Room for pairs of 8-byte values and an offset: only the refusal under test can be met.
  GlBuffer temp(gl::sort_temp_requirements(ctx, n, {.value_bytes = 8}).size + 64), small(req.size - 64);
  auto sort = [&](SortConfig config, gl::BufferView keys_out, gl::BufferView t) {
    gl::record_sort(ctx, {config, n, in.view(), keys_out, t});
  };
  EXPECT_EQ(error_of([&] { sort({.algorithm = SortAlgorithm::onesweep}, out.view(), temp.view()); }), Errc::unsupported);
  EXPECT_EQ(error_of([&] { sort({}, out.view(), small.view()); }), Errc::buffer_too_small);
  EXPECT_EQ(error_of([&] { sort({}, out.view(), temp.view(4)); }), Errc::misaligned);
  EXPECT_EQ(error_of([&] { sort({}, out.view(), {}); }), Errc::null_handle);
  EXPECT_EQ(error_of([&] { sort({}, in.view(64), temp.view()); }), Errc::invalid_argument);  // overlaps keys_in
  EXPECT_EQ(error_of([&] { sort({.value_bytes = 4}, out.view(), temp.view()); }), Errc::invalid_argument);
  EXPECT_EQ(error_of([&] { sort({.begin_bit = 9, .end_bit = 8}, out.view(), temp.view()); }), Errc::invalid_argument);
  EXPECT_EQ(error_of([&] { sort({.end_bit = 33}, out.view(), temp.view()); }), Errc::invalid_argument);
  EXPECT_EQ(error_of([&] { sort({.workgroup_size = 48}, out.view(), temp.view()); }), Errc::invalid_argument);
  EXPECT_EQ(error_of([&] { sort({.keys_per_lane = 3}, out.view(), temp.view()); }), Errc::invalid_argument);
  EXPECT_EQ(error_of([&] { sort({.keys_per_lane = 64}, out.view(), temp.view()); }), Errc::invalid_argument);
  EXPECT_EQ(error_of([&] { gl::record_sort(ctx, {{}, n, in.view(), out.view(n * 8 - 16), temp.view()}); }),
            Errc::buffer_too_small);
  EXPECT_EQ(error_of([&] { gl::record_sort(ctx, {{}, uint64_t{1} << 32, in.view(), out.view(), temp.view()}); }),
            Errc::too_large);
  auto pairs = [&](SortConfig config, bool indices) {
    gl::record_sort_pairs(ctx, {config, n, in.view(), out.view(), values.view(), values.view(), temp.view(), indices});
  };
  EXPECT_EQ(error_of([&] { pairs({.value_bytes = 0}, false); }), Errc::invalid_argument);
  EXPECT_EQ(error_of([&] { pairs({.value_bytes = 3}, false); }), Errc::invalid_argument);
  EXPECT_EQ(error_of([&] { pairs({.value_bytes = 8}, true); }), Errc::invalid_argument);
  EXPECT_EQ(error_of([&] { pairs({.value_bytes = 4}, false); }), Errc::invalid_argument);  // values_in == values_out
  const std::vector<std::byte> seven(7);
  EXPECT_EQ(error_of([&] { gl::sort_bytes(ctx, seven, {}, {}); }), Errc::invalid_argument);
  EXPECT_EQ(error_of([&] { gl::sort_bytes(ctx, std::span(seven).first(4), seven, {.value_bytes = 4}); }),
            Errc::invalid_argument);
  // Nothing was issued by the refused calls: a valid sort still runs after them.
  const std::vector<int32_t> keys = {5, -1, 4};
  EXPECT_EQ(gl::sort(ctx, std::span<const int32_t>(keys)), (std::vector<int32_t>{-1, 4, 5}));
}

}  // namespace
}  // namespace gpuscan::test
