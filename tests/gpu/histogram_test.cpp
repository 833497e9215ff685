// Histograms (include/gpuscan/vulkan/histogram.hpp) against the CPU reference (cpu::histogram): every
// sample type and count width, bin counts around the kernel's limits (1, 2, 255-257, past shared memory),
// sizes around a workgroup and a few ×10^5, samples on the edges, outside them and (floats) NaN, ±inf and
// -0.0; windows, contention, accumulation, numpy's closed last bin, and refusals.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "gpuscan/reference.hpp"
#include "gpu_test_support.hpp"
#include "histogram_samples.hpp"
#include "gpuscan/vulkan.hpp"
#include "vulkan/submit.hpp"

namespace gpuscan::test {
namespace {

class HistogramTest : public GpuTest {};

constexpr VkBufferUsageFlags kCountsUsage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
constexpr size_t kGuard = 3;

bool has_u64_counts(const Context& ctx) { return ctx.single_pass_available(); }

// Whether the device runs histograms of T (64-bit samples need shaderInt64 / shaderFloat64).
template <class T>
bool has_samples(const Context& ctx) {
  if constexpr (sizeof(T) == 4) return true;
  else if constexpr (std::is_floating_point_v<T>) return ctx.device_info().shader_float64;
  else return ctx.device_info().shader_int64;
}

// Runs record_histogram on `input` (from element `in_offset`) into counts between poisoned guards, with
// temp poisoned; `start` fills the counts first (used with config.accumulate, else poisoned).
template <class T>
std::vector<uint64_t> run(const Context& ctx, const std::vector<T>& input, const HistogramBins& bins,
                          const HistogramConfig& config, size_t in_offset = 0,
                          const std::vector<uint64_t>* start = nullptr) {
  const size_t n = input.size();
  const uint32_t bins_n = bins.num_bins();
  const size_t cbytes = element_size(config.counts);
  HostBuffer<T> in(ctx, std::max<size_t>(1, in_offset + n) * sizeof(T));
  HostBuffer<std::byte> counts(ctx, (bins_n + 2 * kGuard) * cbytes, kCountsUsage);
  HistogramConfig c = config;
  c.type = data_type_of<T>::value;
  const TempRequirements req = histogram_temp_requirements(ctx, bins, c);
  HostBuffer<std::byte> temp(ctx, req.size, req.usage);
  if (n) std::memcpy(in.data() + in_offset, input.data(), n * sizeof(T));
  poison(counts.data(), (bins_n + 2 * kGuard) * cbytes);
  poison(temp.data(), req.size);
  if (start)
    for (uint32_t i = 0; i < bins_n; ++i) {
      const uint64_t v = (*start)[i];
      std::memcpy(counts.data() + (kGuard + i) * cbytes, &v, cbytes);  // little-endian: low bytes first
    }
  vk::submit_and_wait(ctx, [&](VkCommandBuffer cmd) {
    vk::memory_barrier(ctx, cmd, VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_WRITE_BIT,
                       VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                       VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT);
    record_histogram(ctx, cmd, {c, bins, n, n ? in.view(in_offset * sizeof(T)) : BufferView{},
                                counts.view(kGuard * cbytes), temp.view()});
    vk::memory_barrier(ctx, cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                       VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
  });
  for (size_t i = 0; i < kGuard * cbytes; ++i) {
    EXPECT_EQ(counts.data()[i], std::byte{0xA5}) << "guard byte " << i << " before the counts overwritten";
    EXPECT_EQ(counts.data()[(kGuard + bins_n) * cbytes + i], std::byte{0xA5}) << "guard after the counts overwritten";
  }
  std::vector<uint64_t> out(bins_n, 0);
  for (uint32_t i = 0; i < bins_n; ++i) std::memcpy(&out[i], counts.data() + (kGuard + i) * cbytes, cbytes);
  return out;
}

template <class T>
std::vector<uint64_t> expected(const std::vector<T>& input, const HistogramBins& bins, bool closed = false) {
  return cpu::histogram<T>(input, bins.edges, closed);
}

template <class T>
void check_sizes_and_bins(const Context& ctx, DataType counts, double lo, double hi) {
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  SCOPED_TRACE("seed " + std::to_string(seed) + ", " + std::string(to_string(data_type_of<T>::value)) +
               " samples, " + std::string(to_string(counts)) + " counts");
  const size_t w = 256;
  for (uint32_t nb : {1u, 2u, 255u, 256u, 257u, kHistogramSharedBins + 905})
    for (size_t n : {size_t{0}, size_t{1}, w - 1, w, w + 1, 5 * w + 3, size_t{2048} * w + 17}) {
      const HistogramBins bins = HistogramBins::even(nb, lo, hi);
      const auto input = samples<T>(n, bins, rng);
      EXPECT_EQ(run(ctx, input, bins, {.counts = counts}), expected(input, bins)) << nb << " bins, n = " << n;
    }
}

TEST_F(HistogramTest, EvenBinsEveryTypeSizesAndBinCounts) {
  const Context& ctx = shared_context();
  for (DataType counts : {DataType::u32, DataType::u64}) {
    if (counts == DataType::u64 && !has_u64_counts(ctx)) continue;
    check_sizes_and_bins<uint32_t>(ctx, counts, 1000, 70000);
    check_sizes_and_bins<int32_t>(ctx, counts, -5000, 3000);
    check_sizes_and_bins<float>(ctx, counts, -1.5, 2.25);
    if (has_samples<uint64_t>(ctx)) {
      check_sizes_and_bins<uint64_t>(ctx, counts, 1e15, 1e18);
      check_sizes_and_bins<int64_t>(ctx, counts, -3e18, 5e3);
    }
    if (has_samples<double>(ctx)) check_sizes_and_bins<double>(ctx, counts, -1.5e-3, 2.25e300);
  }
}

// A closed last bin holds the samples at or below its edge, not the next sample value above it: fractional
// upper edges for integer samples, float samples just above a double edge, 64-bit integers past 2^53 that
// a double cannot hold. Open and closed, every sample type, random edges and samples beside them.
template <class T>
void check_upper_edges(const Context& ctx, std::mt19937_64& rng) {
  SCOPED_TRACE(std::string(to_string(data_type_of<T>::value)) + " samples");
  for (int round = 0; round < 12; ++round) {
    // Widths from 2^-8 to 2^23 (32-bit types) or 2^20 to 2^51 (64-bit: edges past 2^53), inside the type.
    const double scale = std::ldexp(1.0, static_cast<int>(rng() % 32) + (sizeof(T) == 8 ? 28 : 0) - 8);
    const double first = static_cast<double>(rng() % 100) - (std::is_signed_v<T> ? 50 : 0);
    const double lo = std::floor(first * scale / 8) + static_cast<double>(rng() % 4) * 0.25;
    std::vector<double> edges = {lo};
    for (int i = 0; i < 1 + static_cast<int>(rng() % 4); ++i)
      edges.push_back(edges.back() + (1 + static_cast<double>(rng() % 8)) * scale / 4 + (rng() % 4) * 0.25);
    const HistogramBins bins = HistogramBins::custom(edges);
    std::vector<T> in = samples<T>(3000, bins, rng);
    for (double e : edges)  // the sample values on and beside each edge
      for (int d = -2; d <= 2; ++d) {
        if constexpr (std::is_floating_point_v<T>) {
          T v = static_cast<T>(e);
          for (int k = 0; k < std::abs(d); ++k) v = std::nextafter(v, d < 0 ? T(-INFINITY) : T(INFINITY));
          in.push_back(v);
        } else {
          const double v = std::floor(e) + d;
          if (v >= 0 || std::is_signed_v<T>) in.push_back(static_cast<T>(v));
        }
      }
    for (bool closed : {false, true})
      EXPECT_EQ(run(ctx, in, bins, {.last_bin_closed = closed}), expected(in, bins, closed))
          << (closed ? "closed" : "open") << ", edges " << edges.front() << " .. " << edges.back();
  }
}

TEST_F(HistogramTest, UpperEdgesBetweenSampleValues) {
  const Context& ctx = shared_context();
  // The shapes a user met: u32 samples {0, 0, 1, 5} in [0, 0.5] count 2; i32 {0, 1, 2, 3} in [0, 1.25),
  // [1.25, 2.5] count {2, 1}; f32 {0.1f, 0.05f} in [0, 0.1] count 1 (0.1f lies above the double 0.1).
  EXPECT_EQ(run(ctx, std::vector<uint32_t>{0, 0, 1, 5}, HistogramBins::custom({0, 0.5}), {.last_bin_closed = true}),
            (std::vector<uint64_t>{2}));
  EXPECT_EQ(run(ctx, std::vector<int32_t>{0, 1, 2, 3}, HistogramBins::even(2, 0, 2.5), {.last_bin_closed = true}),
            (std::vector<uint64_t>{2, 1}));
  EXPECT_EQ(run(ctx, std::vector<uint32_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, HistogramBins::custom({0, 2.5, 4.5}),
                {.last_bin_closed = true}),
            (std::vector<uint64_t>{3, 2}));
  EXPECT_EQ(run(ctx, std::vector<float>{0.1f, 0.05f}, HistogramBins::custom({0, 0.1}), {.last_bin_closed = true}),
            (std::vector<uint64_t>{1}));
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  check_upper_edges<uint32_t>(ctx, rng);
  check_upper_edges<int32_t>(ctx, rng);
  check_upper_edges<float>(ctx, rng);
  if (has_samples<uint64_t>(ctx)) {
    check_upper_edges<uint64_t>(ctx, rng);
    check_upper_edges<int64_t>(ctx, rng);
  }
  if (has_samples<double>(ctx)) check_upper_edges<double>(ctx, rng);
}

// Edges that are not exact in the sample type: the table rounds them up without moving any sample's bin.
TEST_F(HistogramTest, EdgesBetweenSampleValues) {
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  const HistogramBins f = HistogramBins::even(7, -0.1, 0.3);  // 0.1-ish edges are not floats
  const auto fin = samples<float>(100000, f, rng);
  EXPECT_EQ(run(shared_context(), fin, f, {}), expected(fin, f));
  const HistogramBins i = HistogramBins::even(3, -10.5, 10);  // edges -10.5, -3.66.., 3.16.., 10
  const auto iin = samples<int32_t>(5000, i, rng);
  EXPECT_EQ(run(shared_context(), iin, i, {}), expected(iin, i));
  // Near 2^24, where adjacent floats are 2 apart.
  const HistogramBins big = HistogramBins::custom({16777215.0, 16777216.5, 16777217.0, 16777219.0});
  const std::vector<float> bin = {16777215.f, 16777216.f, 16777218.f, 16777220.f, 16777214.f};
  EXPECT_EQ(run(shared_context(), bin, big, {}), expected(bin, big));
}

// Even f32 bins take the kernel's fast accept away from the edges and the edge search beside them: random
// ranges (widths from 2^-16 to 2^16, 1 to 4200 bins, open and closed), samples on and up to 3 floats
// beside every edge, uniform ones, NaN and infinities; and a few hundred thousand samples with small
// workgroups, which take the kernel's steps of four samples.
TEST_F(HistogramTest, EvenFloatBinsBesideEveryEdge) {
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::uniform_real_distribution<double> unit(0, 1);
  for (int round = 0; round < 12; ++round) {
    const double size = std::ldexp(1.0, static_cast<int>(rng() % 33) - 16);
    const double lower = (unit(rng) - 0.5) * 4 * size;
    const uint32_t nb = round == 0 ? 256 : 1 + static_cast<uint32_t>(rng() % 4200);
    const HistogramBins bins = HistogramBins::even(nb, lower, lower + (0.05 + unit(rng)) * size);
    const bool closed = rng() % 2;
    std::vector<float> input = samples<float>(20000 + rng() % 20000, bins, rng);
    for (double e : bins.edges) {
      float v = static_cast<float>(e);
      for (int k = 0; k < 3; ++k) v = std::nextafter(v, -INFINITY);
      for (int k = 0; k < 7; ++k, v = std::nextafter(v, INFINITY)) input.push_back(v);
    }
    std::shuffle(input.begin(), input.end(), rng);
    EXPECT_EQ(run(shared_context(), input, bins, {.last_bin_closed = closed}), expected(input, bins, closed))
        << nb << " bins over [" << bins.edges.front() << ", " << bins.edges.back() << (closed ? "]" : ")");
    // W = 32, four samples a step, 512 workgroups: a step of the grid covers 65536 samples, so the
    // kernel's steps of four samples and the single steps after them both run.
    const size_t n = (4 + rng() % 6) * 65536 + rng() % 65536;
    const std::vector<float> many = samples<float>(n, bins, rng);
    EXPECT_EQ(run(shared_context(), many, bins,
                  {.last_bin_closed = closed, .workgroup_size = 32, .vectors_per_lane = 4, .max_workgroups = 512}),
              expected(many, bins, closed))
        << nb << " bins, n = " << n << ", W = 32";
  }
}

// The full 32-bit ranges, whose upper edge no sample reaches (the benchmark's u32 case).
TEST_F(HistogramTest, FullIntegerRanges) {
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  const HistogramBins u = HistogramBins::even(256, 0, 4294967296.0);
  std::vector<uint32_t> uin = random_values<uint32_t>(300000, rng);
  uin.insert(uin.end(), {0u, UINT32_MAX, 1u << 24, (1u << 24) - 1});
  const auto got = run(shared_context(), uin, u, {});
  EXPECT_EQ(got, expected(uin, u));
  uint64_t total = 0;
  for (uint64_t c : got) total += c;
  EXPECT_EQ(total, uin.size());  // every u32 is in [0, 2^32)
  const HistogramBins s = HistogramBins::even(255, -2147483648.0, 2147483648.0);
  const auto sin = random_values<int32_t>(100000, rng);
  EXPECT_EQ(run(shared_context(), sin, s, {}), expected(sin, s));
  // Bins wholly above the type: empty, and those below its minimum start at it.
  const HistogramBins above = HistogramBins::custom({-1e12, 0, 4e9, 5e9, 6e9});
  EXPECT_EQ(run(shared_context(), uin, above, {}), expected(uin, above));
}

TEST_F(HistogramTest, CustomEdgesWithEmptyBins) {
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  const HistogramBins bins = HistogramBins::custom({-3, -3, -1, 0, 0, 0, 2.5, 7, 7, 100});
  for (size_t n : {1, 999, 77777}) {
    const auto f = samples<float>(n, bins, rng);
    EXPECT_EQ(run(shared_context(), f, bins, {}), expected(f, bins)) << "n = " << n;
    const auto i = samples<int32_t>(n, bins, rng);
    EXPECT_EQ(run(shared_context(), i, bins, {}), expected(i, bins)) << "n = " << n;
  }
  // Many custom bins: global atomics and the binary search.
  std::vector<double> edges(kHistogramSharedBins * 5);  // an 80 KiB table: two vkCmdUpdateBuffer calls
  for (size_t k = 0; k < edges.size(); ++k) edges[k] = static_cast<double>(k * k) / 7.0;
  const HistogramBins many = HistogramBins::custom(edges);
  const auto u = samples<uint32_t>(200000, many, rng);
  EXPECT_EQ(run(shared_context(), u, many, {}), expected(u, many));
}

TEST_F(HistogramTest, SpecialFloats) {
  const HistogramBins bins = HistogramBins::even(4, -1, 1);
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  const std::vector<float> in = {-0.0f, 0.0f, nan, -nan, inf, -inf, -1.0f, 1.0f, 0.5f, -0.5f,
                                 std::nextafter(1.0f, 0.0f), std::nextafter(-1.0f, -2.0f)};
  EXPECT_EQ(run(shared_context(), in, bins, {}), (std::vector<uint64_t>{1, 1, 2, 2}));
  const HistogramBins infinite = HistogramBins::custom({-INFINITY, 0, INFINITY});
  EXPECT_EQ(run(shared_context(), in, infinite, {}), expected(in, infinite));  // +inf is not below +inf
  EXPECT_EQ(run(shared_context(), in, infinite, {.last_bin_closed = true}), expected(in, infinite, true));
}

TEST_F(HistogramTest, ClosedLastBinAsNumpy) {
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  const HistogramBins bins = HistogramBins::even(10, 0, 1);
  auto in = samples<float>(50000, bins, rng);
  in.insert(in.end(), 37, 1.0f);
  const auto got = run(shared_context(), in, bins, {.last_bin_closed = true});
  EXPECT_EQ(got, expected(in, bins, true));
  EXPECT_NE(got, expected(in, bins, false));
  const HistogramBins dup = HistogramBins::custom({0, 5, 5});  // the closed last bin is [5, 5]
  EXPECT_EQ(run(shared_context(), std::vector<int32_t>{5, 5, 4, 6}, dup, {.last_bin_closed = true}),
            (std::vector<uint64_t>{1, 2}));
}

TEST_F(HistogramTest, AllSamplesInOneBin) {
  const std::vector<uint32_t> in(300001, 42);
  for (uint32_t nb : {256u, kHistogramSharedBins * 2}) {
    const HistogramBins bins = HistogramBins::even(nb, 0, nb);
    std::vector<uint64_t> want(nb, 0);
    want[42] = in.size();
    EXPECT_EQ(run(shared_context(), in, bins, {}), want) << nb << " bins";
  }
}

TEST_F(HistogramTest, AccumulatesWhenAsked) {
  const HistogramBins bins = HistogramBins::even(3, 0, 3);
  const std::vector<int32_t> in = {0, 1, 1, 2, 2, 2, 3};
  const std::vector<uint64_t> start = {10, 20, 4000000000u};
  EXPECT_EQ(run(shared_context(), in, bins, {.accumulate = true}, 0, &start),
            (std::vector<uint64_t>{11, 22, 4000000003u}));
  EXPECT_EQ(run(shared_context(), in, bins, {}, 0, &start), (std::vector<uint64_t>{1, 2, 3}));
}

TEST_F(HistogramTest, OffsetsAndWindows) {
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  const HistogramBins bins = HistogramBins::even(300, -2, 2);
  const auto in = samples<float>(20000, bins, rng);
  EXPECT_EQ(run(shared_context(), in, bins, {}, 3), expected(in, bins));
  // 4 KiB bindings: 20000 samples in 20 windows.
  const Context& windowed = cached_context("histogram window 4096", [] {
    TestHooks hooks;
    hooks.max_binding_bytes = 4096;
    return make_validated_context({}, hooks);
  });
  EXPECT_EQ(run(windowed, in, bins, {}, 5), expected(in, bins));
  EXPECT_EQ(run(windowed, in, HistogramBins::even(900, -2, 2), {}), expected(in, HistogramBins::even(900, -2, 2)));
  // Counts (1100 u32) or an edge table (1000 f64 edges) past one binding: refused before anything is allocated.
  const std::span<const float> f(in);
  const std::vector<double> d(in.begin(), in.end());
  EXPECT_THROW(histogram(windowed, f, HistogramBins::even(1100, -2, 2)), Error);
  EXPECT_THROW(histogram(windowed, std::span<const double>(d), HistogramBins::even(999, -2, 2)), Error);
  try {
    histogram_temp_requirements(windowed, HistogramBins::even(1100, -2, 2), {.type = DataType::f32});
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), make_error_code(Errc::too_large)) << e.what();
    EXPECT_NE(std::string(e.what()).find("maxStorageBufferRange"), std::string::npos) << e.what();
  }
}

// The tuning knobs: samples per step (1, 2, 4, 8) and the grid's cap, drawn at random with W, the sample
// type and the bins, at sizes around one step of the whole grid (W * V * G) and a few steps past it, so
// that the stepped loop, its tail and the grid's stride each meet their boundaries.
template <class T>
void check_tuning(const Context& ctx, std::mt19937_64& rng) {
  for (int round = 0; round < 6; ++round) {
    HistogramConfig config;
    config.workgroup_size = rng() % 2 ? 32 : 256;  // two W only: each shape is a pipeline to compile
    config.vectors_per_lane = 1u << (rng() % 4);
    config.max_workgroups = 1 + static_cast<uint32_t>(rng() % 12);
    const uint64_t step = uint64_t{config.workgroup_size} * config.vectors_per_lane * config.max_workgroups;
    const int64_t jitter = static_cast<int64_t>(rng() % 3) - 1;
    const size_t n = static_cast<size_t>(std::max<int64_t>(0, static_cast<int64_t>(step * (1 + rng() % 3)) + jitter));
    // Even bins whose float guess is far off for 8-byte samples too: a range past float's (f64), or one
    // float cannot resolve (2^40 + [0, 4096) for u64): the kernel must not walk from the guess bin by bin.
    const int kind = static_cast<int>(rng() % 3);
    const bool even = kind != 2;
    const bool wide = kind == 1 && sizeof(T) == 8;
    const double far_lo = std::is_floating_point_v<T> ? -1.5e-3 : std::ldexp(1.0, 40);
    const double far_hi = std::is_floating_point_v<T> ? 2.25e300 : std::ldexp(1.0, 40) + 4096;
    const HistogramBins bins = wide   ? HistogramBins::even(4096, far_lo, far_hi)
                               : even ? HistogramBins::even(1 + static_cast<uint32_t>(rng() % 300), -100, 900)
                                      : HistogramBins::custom({-50, -3, 0, 7, 100, 640});
    if (wide) {  // 128 samples an invocation: thousands of steps each would overrun lavapipe's loop limit
      config.workgroup_size = 32;
      config.max_workgroups = 1;
    }
    const auto input = samples<T>(wide ? 4096 : n, bins, rng);
    EXPECT_EQ(run(ctx, input, bins, config), expected(input, bins))
        << to_string(data_type_of<T>::value) << ", W " << config.workgroup_size << ", vectors "
        << config.vectors_per_lane << ", at most " << config.max_workgroups << " workgroups, n " << input.size() << ", "
        << bins.num_bins() << (even ? " even bins" : " custom bins");
  }
}

TEST_F(HistogramTest, SamplesPerStepAndGridCap) {
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  const Context& ctx = shared_context();
  check_tuning<uint32_t>(ctx, rng);
  check_tuning<int32_t>(ctx, rng);
  check_tuning<float>(ctx, rng);
  if (has_samples<double>(ctx)) check_tuning<double>(ctx, rng);
  if (has_samples<uint64_t>(ctx)) check_tuning<uint64_t>(ctx, rng);
}

TEST_F(HistogramTest, ConvenienceCall) {
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  const std::vector<uint32_t> doc = {1, 5, 9, 12, 5, 0};
  EXPECT_EQ(histogram(shared_context(), std::span<const uint32_t>(doc), HistogramBins::even(3, 0, 12)),
            (std::vector<uint64_t>{2, 2, 1}));
  const HistogramBins bins = HistogramBins::even(64, 0, 1);
  const auto in = samples<float>(123457, bins, rng);
  EXPECT_EQ(histogram(shared_context(), std::span<const float>(in), bins), expected(in, bins));
  EXPECT_EQ(histogram(shared_context(), std::span<const float>(), bins), std::vector<uint64_t>(64, 0));
}

// The count from GPU memory (HistogramArgs::count_from): below, at and above the bound (the status word),
// as u32 and u64, across windows.
TEST_F(HistogramTest, CountFromGpuMemory) {
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  const HistogramBins bins = HistogramBins::even(50, -1, 1);
  const std::vector<float> all = samples<float>(20000, bins, rng);
  const Context& windowed = cached_context("histogram window 4096", [] {
    TestHooks hooks;
    hooks.max_binding_bytes = 4096;
    return make_validated_context({}, hooks);
  });
  for (const Context* ctx : std::initializer_list<const Context*>{&shared_context(), &windowed})
    for (bool wide : {false, true})
      for (uint64_t count : {uint64_t{0}, uint64_t{1}, uint64_t{7777}, uint64_t{20000}, uint64_t{20001},
                             (uint64_t{1} << 32) + 5}) {
        const uint64_t bound = all.size();
        HostBuffer<float> in(*ctx, bound * 4);
        std::memcpy(in.data(), all.data(), bound * 4);
        HostBuffer<uint32_t> counts(*ctx, 50 * 4, kCountsUsage);
        HostBuffer<uint32_t> words(*ctx, 16, kCountsUsage);  // count at word 1, status at word 3
        const TempRequirements req = histogram_temp_requirements(*ctx, bins, {.type = DataType::f32});
        HostBuffer<uint32_t> temp(*ctx, req.size, req.usage);
        poison(counts.data(), 50 * 4);
        words.data()[1] = static_cast<uint32_t>(count);
        words.data()[2] = static_cast<uint32_t>(count >> 32);
        words.data()[3] = 0xA5A5A5A5u;
        if (!wide && count >> 32) continue;
        HistogramArgs args{{.type = DataType::f32}, bins, bound, in.view(), counts.view(), temp.view()};
        args.count_from = IndirectCount{words.view(4), wide, words.view(12)};
        vk::submit_and_wait(*ctx, [&](VkCommandBuffer cmd) {
          vk::memory_barrier(*ctx, cmd, VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_WRITE_BIT,
                             VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                             VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT);
          record_histogram(*ctx, cmd, args);
          vk::memory_barrier(*ctx, cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                             VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
        });
        const std::vector<float> used(all.begin(), all.begin() + static_cast<ptrdiff_t>(std::min(count, bound)));
        const std::vector<uint64_t> want = expected(used, bins);
        const std::vector<uint64_t> got(counts.data(), counts.data() + 50);
        EXPECT_EQ(got, want) << "count " << count << (wide ? " (u64)" : " (u32)");
        EXPECT_EQ(words.data()[3], count > bound ? 1u : 0u) << "status, count " << count;
      }
}

TEST_F(HistogramTest, PrepareBuildsOrRefuses) {
  const Context& ctx = shared_context();
  EXPECT_NO_THROW(prepare_histogram(ctx, {.type = DataType::f32}));
  if (has_u64_counts(ctx)) EXPECT_NO_THROW(prepare_histogram(ctx, {.type = DataType::i32, .counts = DataType::u64}));
  if (has_samples<double>(ctx)) EXPECT_NO_THROW(prepare_histogram(ctx, {.type = DataType::f64}));
  EXPECT_THROW(prepare_histogram(ctx, {.workgroup_size = 48}), Error);
  for (uint32_t v : {3u, 16u}) {
    try {
      prepare_histogram(ctx, {.vectors_per_lane = v});
      ADD_FAILURE() << "vectors_per_lane " << v << " accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), make_error_code(Errc::invalid_argument)) << e.what();
      EXPECT_NE(std::string(e.what()).find("vectors_per_lane " + std::to_string(v)), std::string::npos) << e.what();
    }
  }
}

TEST_F(HistogramTest, Refusals) {
  const Context& ctx = shared_context();
  EXPECT_THROW(HistogramBins::even(0, 0, 1), Error);
  EXPECT_THROW(HistogramBins::even(4, 1, 1), Error);
  EXPECT_THROW(HistogramBins::even(4, 0, INFINITY), Error);
  HostBuffer<uint32_t> in(ctx, 64 * 4, kCountsUsage);
  HostBuffer<uint32_t> counts(ctx, 16 * 4, kCountsUsage);
  HostBuffer<uint32_t> temp(ctx, 64 * 4, kCountsUsage);
  HostBuffer<uint32_t> storage_only(ctx, 64 * 4);
  const HistogramBins four = HistogramBins::even(4, 0, 4);
  auto expect = [&](HistogramArgs args, Errc code, const std::string& fragment) {
    expect_recording_error(ctx, [&](VkCommandBuffer cmd) { record_histogram(ctx, cmd, args); }, code, fragment);
  };
  const HistogramArgs good{{}, four, 64, in.view(), counts.view(), temp.view()};
  expect_common_refusals(good, in.view(32 * 4), counts.view(8), expect);
  HistogramArgs a = good;
  a.counts = storage_only.view();
  expect(a, Errc::missing_usage, "TRANSFER_DST");
  a = good;
  a.temp = storage_only.view();
  expect(a, Errc::missing_usage, "TRANSFER_DST");
  a = good;
  a.config.type = DataType::u64;  // 8-byte samples: the 256-byte input holds 32 of the 64
  if (has_samples<uint64_t>(ctx)) expect(a, Errc::buffer_too_small, "input buffer holds 32 elements");
  if (!has_u64_counts(ctx)) {
    a = good;
    a.config.counts = DataType::u64;
    expect(a, Errc::unsupported, "shaderBufferInt64Atomics");
  }
}

}  // namespace
}  // namespace gpuscan::test
