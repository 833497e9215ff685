// Segmented reductions by offsets (include/gpuscan/vulkan/segmented_reduce.hpp) against the CPU
// reference (cpu::segmented_reduce): every type x add, min, max, sizes around the tile (E - 1, E, E + 1,
// several tiles, ~10^5 and 10^6), segment lengths of 1, random with mean 16, a few huge ones spanning
// many tiles, many empty segments (10^4 at one position, at tile boundaries, at both ends), segments
// aligned to tiles, offsets[0] > 0 and offsets[S] < n (values outside ignored); S = 0 and n = 0; output
// poisoned and guarded, fresh random data (GPUSCAN_SEED replays a run); bitwise-identical repeated float
// runs; offsets that break the precondition on the record path; misuse.
//
// Float sums are compared with a tolerance (cpu::segmented_reduce_tolerance): the GPU combines in the
// segmented scan's tree order (by tile, row and subgroup), not the reference's left-to-right order, so the
// bits may differ from it; they may not differ between runs (RepeatedFloatRunsAreBitwiseEqual).
#include <algorithm>
#include <cmath>
#include <cstring>

#include "gpu_test_support.hpp"
#include "scan_check.hpp"
#include "segmented_offsets_check.hpp"
#include "vulkan/submit.hpp"

namespace gpuscan::test {
namespace {

constexpr uint32_t kSmallTile = 128;  // W = 32, K = 1

ReduceConfig small_tiles(DataType type, Op op) {
  ReduceConfig c;
  c.type = type;
  c.op = op;
  c.workgroup_size = 32;
  c.vectors_per_lane = 1;
  return c;
}

template <class T>
struct Recorded {
  std::vector<T> output;
  bool guards_intact = true;
};

// Records a segmented reduction on a poisoned, guarded output and poisoned temp.
template <class T>
Recorded<T> record_reduction(const Context& ctx, const std::vector<T>& values, const std::vector<uint32_t>& offsets,
                             ReduceConfig config) {
  config.type = data_type_of<T>::value;
  const size_t n = values.size(), segments = offsets.size() - 1, guard = 5;
  HostBuffer<T> in(ctx, (n + 1) * sizeof(T));
  HostBuffer<uint32_t> offs(ctx, offsets.size() * 4);
  HostBuffer<T> out(ctx, (segments + 2 * guard) * sizeof(T));
  const TempRequirements req = segmented_reduce_temp_requirements(ctx, n, config);
  HostBuffer<std::byte> temp(ctx, req.size + 64, req.usage);
  if (n) std::memcpy(in.data(), values.data(), n * sizeof(T));
  std::memcpy(offs.data(), offsets.data(), offsets.size() * 4);
  poison(out.data(), (segments + 2 * guard) * sizeof(T));
  poison(temp.data(), req.size + 64);
  const std::vector<T> before(out.data(), out.data() + segments + 2 * guard);
  vk::submit_and_wait(ctx, [&](VkCommandBuffer cmd) {
    vk::memory_barrier(ctx, cmd, VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_WRITE_BIT,
                       VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
    record_segmented_reduce(ctx, cmd, {config, n, segments, in.view(), offs.view(), out.view(guard * sizeof(T)),
                                       temp.view()});
    vk::memory_barrier(ctx, cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                       VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
  });
  Recorded<T> r;
  r.output.assign(out.data() + guard, out.data() + guard + segments);
  for (size_t i = 0; i < guard; ++i) {
    const size_t j = guard + segments + i;
    if (std::memcmp(&out.data()[i], &before[i], sizeof(T)) || std::memcmp(&out.data()[j], &before[j], sizeof(T)))
      r.guards_intact = false;
  }
  return r;
}

template <class T>
void check_case(const ReduceConfig& c, size_t n, Lengths lengths, bool margins, std::mt19937_64& rng, uint64_t seed,
                const Context& ctx = shared_context()) {
  const uint32_t tile = c.workgroup_size ? c.workgroup_size * c.vectors_per_lane * 4 : 0;
  const auto values = random_op_values<T>(n, c.op, rng);
  const uint32_t first = margins && n > 2 ? static_cast<uint32_t>(1 + rng() % (n / 2)) : 0;
  const uint32_t last = margins && n > 2 ? static_cast<uint32_t>(n - rng() % (n - first)) : static_cast<uint32_t>(n);
  const auto offsets = make_offsets(first, last, lengths, tile ? tile : 1024, rng);
  SCOPED_TRACE(std::string(to_string(c.type)) + " " + std::string(to_string(c.op)) + ", " + name(lengths) +
               ", n = " + std::to_string(n) + ", S = " + std::to_string(offsets.size() - 1) + ", values [" +
               std::to_string(first) + ", " + std::to_string(last) + "), tile " + std::to_string(tile) + ", seed " +
               std::to_string(seed));
  const auto r = record_reduction(ctx, values, offsets, c);
  EXPECT_TRUE(r.guards_intact) << "the reduction wrote outside its output range";
  EXPECT_TRUE(matches(values, offsets, r.output, c.op));
}

class SegmentedOffsetsTest : public GpuTest {};

TEST_F(SegmentedOffsetsTest, EveryTypeAddMinMax) {
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  const uint32_t e = kSmallTile;
  int pair = 0;
  for (DataType type : {DataType::u32, DataType::i32, DataType::f32, DataType::u64, DataType::i64, DataType::f64})
    for (Op op : {Op::add, Op::min, Op::max}) {
      ++pair;
      visit_type(type, [&](auto tag) {
        using T = decltype(tag);
        const std::vector<size_t> sizes = {e - 1, e, e + 1, 5 * e + 3, 40 * e + rng() % e};
        for (size_t i = 0; i < sizes.size(); ++i) {
          const Lengths lengths = static_cast<Lengths>((i + pair) % 5);
          check_case<T>(small_tiles(type, op), sizes[i], lengths, (i + pair) % 3 == 0, rng, seed);
        }
      });
    }
}

// Every segment-length distribution at the boundaries, with and without margins, on u32 add and f32 max.
TEST_F(SegmentedOffsetsTest, BoundarySweep) {
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  const uint32_t e = kSmallTile;
  for (size_t n : {size_t{1}, size_t{e - 1}, size_t{e}, size_t{e + 1}, size_t{2 * e}, size_t{7 * e + 5}})
    for (int l = 0; l < 5; ++l)
      for (bool margins : {false, true}) {
        check_case<uint32_t>(small_tiles(DataType::u32, Op::add), n, static_cast<Lengths>(l), margins, rng, seed);
        check_case<float>(small_tiles(DataType::f32, Op::max), n, static_cast<Lengths>(l), margins, rng, seed);
      }
}

// Grids capped at 3 workgroups per row, so that the tiles run as two-dimensional grids, with every
// segment layout.
TEST_F(SegmentedOffsetsTest, TwoDimensionalGrids) {
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  TestHooks hooks;
  hooks.max_workgroup_count_x = 3;
  const Context capped = make_validated_context({}, hooks);
  const uint32_t e = kSmallTile;
  for (size_t n : {size_t{3 * e}, size_t{3 * e + 1}, size_t{20 * e + 7}})
    for (int l = 0; l < 5; ++l) {
      check_case<uint32_t>(small_tiles(DataType::u32, Op::add), n, static_cast<Lengths>(l), l % 2 == 0, rng, seed, capped);
      check_case<float>(small_tiles(DataType::f32, Op::min), n, static_cast<Lengths>(l), l % 2 == 1, rng, seed, capped);
    }
}

// ~10^5 and 10^6 values at the default tile shape: tiny segments in the millions-of-segments regime and
// huge ones spanning many tiles.
TEST_F(SegmentedOffsetsTest, LargeDefaultTiles) {
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  ReduceConfig c;
  check_case<uint32_t>(c, 1000000, Lengths::mean16, false, rng, seed);
  check_case<uint32_t>(c, 1000003, Lengths::huge, true, rng, seed);
  c.type = DataType::f32;
  check_case<float>(c, 100000 + rng() % 1000, Lengths::mean16, true, rng, seed);
  c.type = DataType::i64;
  c.op = Op::min;
  check_case<int64_t>(c, 100000 + rng() % 1000, Lengths::empties, false, rng, seed);
}

TEST_F(SegmentedOffsetsTest, TenThousandEmptiesAtOnePosition) {
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  const size_t n = 3 * kSmallTile + 17;
  for (uint32_t at : {0u, kSmallTile, static_cast<uint32_t>(kSmallTile + 5), static_cast<uint32_t>(n)}) {
    SCOPED_TRACE("10^4 empty segments at " + std::to_string(at) + ", seed " + std::to_string(seed));
    std::vector<uint32_t> offsets = {0};
    if (at > 0) offsets.push_back(at / 2);
    offsets.insert(offsets.end(), 10000, at);
    offsets.push_back(static_cast<uint32_t>(n));
    const auto values = random_op_values<uint32_t>(n, Op::add, rng);
    const auto r = record_reduction(shared_context(), values, offsets, small_tiles(DataType::u32, Op::add));
    EXPECT_TRUE(r.guards_intact);
    EXPECT_TRUE(matches(values, offsets, r.output, Op::add));
  }
}

TEST_F(SegmentedOffsetsTest, NoValuesOrNoSegments) {
  const Context& ctx = shared_context();
  // n = 0, S > 0: every segment empty, the identity.
  const std::vector<uint32_t> none;
  const std::vector<uint32_t> zeros(5, 0);
  EXPECT_EQ(segmented_reduce(ctx, std::span<const uint32_t>(none), std::span<const uint32_t>(zeros)),
            std::vector<uint32_t>(4, 0));
  const std::vector<float> nof;
  const auto mins = segmented_reduce(ctx, std::span<const float>(nof), std::span<const uint32_t>(zeros), Op::min);
  EXPECT_EQ(mins, std::vector<float>(4, std::numeric_limits<float>::infinity()));
  // Values but all segments empty, and S = 0.
  const std::vector<int32_t> v = {5, -3, 2};
  const std::vector<uint32_t> twos = {2, 2, 2};
  EXPECT_EQ(segmented_reduce(ctx, std::span<const int32_t>(v), std::span<const uint32_t>(twos), Op::max),
            (std::vector<int32_t>{INT32_MIN, INT32_MIN}));
  const std::vector<uint32_t> one = {1};
  EXPECT_TRUE(segmented_reduce(ctx, std::span<const int32_t>(v), std::span<const uint32_t>(one)).empty());
}

// The headers' worked examples.
TEST_F(SegmentedOffsetsTest, WorkedExample) {
  const Context& ctx = shared_context();
  const std::vector<uint32_t> v = {3, 1, 7, 0, 4, 1, 6, 3};
  const std::vector<uint32_t> offsets = {0, 3, 3, 5, 8};
  EXPECT_EQ(segmented_reduce(ctx, std::span<const uint32_t>(v), std::span<const uint32_t>(offsets)),
            (std::vector<uint32_t>{11, 0, 4, 10}));
  EXPECT_EQ(segmented_reduce(ctx, std::span<const uint32_t>(v), std::span<const uint32_t>(offsets), Op::max),
            (std::vector<uint32_t>{7, 0, 4, 6}));
  EXPECT_EQ(segmented_reduce(ctx, std::span<const uint32_t>(v), std::span<const uint32_t>(offsets),
                             {.type = DataType::f32, .op = Op::min, .workgroup_size = 32, .vectors_per_lane = 1}),
            (std::vector<uint32_t>{1, UINT32_MAX, 0, 1}));
  EXPECT_EQ(segmented_scan_by_offsets(ctx, std::span<const uint32_t>(v), std::span<const uint32_t>(offsets)),
            (std::vector<uint32_t>{0, 3, 4, 0, 0, 0, 1, 7}));
}

TEST_F(SegmentedOffsetsTest, RepeatedFloatRunsAreBitwiseEqual) {
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  const auto values = random_values<float>(50000, rng);
  const auto offsets = make_offsets(0, 50000, Lengths::huge, 1024, rng);
  const auto a = segmented_reduce(shared_context(), std::span<const float>(values), std::span<const uint32_t>(offsets));
  const auto b = segmented_reduce(shared_context(), std::span<const float>(values), std::span<const uint32_t>(offsets));
  ASSERT_EQ(a.size(), b.size());
  EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)), 0);
}

// The record path does not check the offsets (they are in GPU memory): decreasing offsets and offsets
// past count give unspecified results but no access outside the bound ranges -- the output's guards
// hold and the validation layer stays quiet. The segments in front of the broken ones, into which no
// broken offset points, still come out right.
TEST_F(SegmentedOffsetsTest, BrokenOffsetsStayInBounds) {
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  const size_t n = 3 * kSmallTile + 7;
  const auto values = random_op_values<uint32_t>(n, Op::add, rng);
  std::vector<uint32_t> offsets = {0, 10, 20, 300, 4000000000u, 50, 25, static_cast<uint32_t>(n) + 100, 0xFFFFFFFFu};
  const auto r = record_reduction(shared_context(), values, offsets, small_tiles(DataType::u32, Op::add));
  EXPECT_TRUE(r.guards_intact) << "the reduction wrote outside its output range";
  ASSERT_EQ(r.output.size(), offsets.size() - 1);
  const std::vector<uint32_t> good(offsets.begin(), offsets.begin() + 3);  // [0, 10) and [10, 20)
  const auto expected = cpu::segmented_reduce<uint32_t>(values, good, Op::add);
  EXPECT_EQ(r.output[0], expected[0]);
  EXPECT_EQ(r.output[1], expected[1]);
}

// Segmented scans by offsets (gpuscan/vulkan/segmented.hpp): against cpu::segmented_scan with a start at
// element 0 and at every offset within the values, every type x add / max, exclusive and inclusive.
TEST_F(SegmentedOffsetsTest, ScanByOffsets) {
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  int round = 0;
  for (DataType type : {DataType::u32, DataType::i32, DataType::f32, DataType::u64, DataType::i64, DataType::f64})
    for (Op op : {Op::add, Op::max})
      for (ScanKind kind : {ScanKind::exclusive, ScanKind::inclusive})
        visit_type(type, [&](auto tag) {
          using T = decltype(tag);
          const size_t n = std::array<size_t, 4>{kSmallTile - 1, kSmallTile + 1, 9 * kSmallTile + 5, 1}[round % 4];
          const Lengths lengths = static_cast<Lengths>(round++ % 5);
          const auto values = random_op_values<T>(n, op, rng);
          const uint32_t first = n > 2 && round % 2 ? static_cast<uint32_t>(1 + rng() % (n / 2)) : 0;
          const auto offsets = make_offsets(first, static_cast<uint32_t>(n), lengths, kSmallTile, rng);
          SCOPED_TRACE(std::string(to_string(type)) + " " + std::string(to_string(op)) + " " +
                       std::string(to_string(kind)) + ", " + name(lengths) + ", n = " + std::to_string(n) + ", seed " +
                       std::to_string(seed));
          ScanConfig c;
          c.op = op;
          c.kind = kind;
          c.workgroup_size = 32;
          c.vectors_per_lane = 1;
          const auto got = segmented_scan_by_offsets(shared_context(), std::span<const T>(values),
                                                     std::span<const uint32_t>(offsets), c);
          std::vector<uint8_t> starts(n, 0);
          for (uint32_t o : offsets)
            if (o < n) starts[o] = 1;
          const auto expected = cpu::segmented_scan<T>(values, starts, kind, op);
          ASSERT_EQ(got.size(), n);
          const bool float_sum = std::is_floating_point_v<T> && op == Op::add;
          const auto tol = cpu::segmented_float_tolerance<T>(values, starts, kind);
          for (size_t i = 0; i < n; ++i) {
            const bool ok = float_sum ? std::fabs(double(got[i]) - double(expected[i])) <= tol[i]
                                      : std::memcmp(&got[i], &expected[i], sizeof(T)) == 0;
            ASSERT_TRUE(ok) << "index " << i << ": got " << +got[i] << ", expected " << +expected[i];
          }
        });
}

TEST_F(SegmentedOffsetsTest, ConvenienceChecksOffsets) {
  const Context& ctx = shared_context();
  const std::vector<uint32_t> v = {1, 2, 3, 4};
  auto expect_error = [&](std::vector<uint32_t> offsets, const std::string& fragment) {
    try {
      segmented_reduce(ctx, std::span<const uint32_t>(v), std::span<const uint32_t>(offsets));
      ADD_FAILURE() << "no error for " << fragment;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), Errc::invalid_argument);
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
  };
  expect_error({}, "offsets is empty");
  expect_error({0, 3, 2, 4}, "offsets decrease at index 2");
  expect_error({0, 2, 5}, "past the end of the 4 values");
}

TEST_F(SegmentedOffsetsTest, Misuse) {
  const Context& ctx = shared_context();
  const size_t n = 300, segments = 10;
  HostBuffer<uint32_t> in(ctx, n * 4), offs(ctx, (segments + 1) * 4), out(ctx, segments * 4);
  const ReduceConfig config;
  const TempRequirements req = segmented_reduce_temp_requirements(ctx, n, config);
  HostBuffer<std::byte> temp(ctx, req.size, req.usage);
  const SegmentedReduceArgs good{config, n, segments, in.view(), offs.view(), out.view(), temp.view()};
  auto expect = [&](SegmentedReduceArgs a, Errc code, const std::string& fragment) {
    expect_recording_error(ctx, [&](VkCommandBuffer cmd) { record_segmented_reduce(ctx, cmd, a); }, code, fragment);
  };
  SegmentedReduceArgs a = good;
  a.segments = segments + 1;  // offsets hold S + 1 = 11 entries, 12 needed; output too small as well
  expect(a, Errc::buffer_too_small, "offsets");
  a = good;
  a.output = out.view(8);
  expect(a, Errc::buffer_too_small, "output");
  a = good;
  a.output = in.view(16);
  expect(a, Errc::invalid_argument, "input and output ranges overlap");
  a = good;
  a.output = offs.view();
  expect(a, Errc::invalid_argument, "offsets and output ranges overlap");
  HostBuffer<std::byte> both(ctx, n * 4 + req.size, req.usage);  // input, then temp starting inside it
  a = good;
  a.input = both.view();
  a.temp = both.view(n * 4 - 64);
  expect(a, Errc::invalid_argument, "temp storage overlaps");
  a = good;
  a.temp = temp.view(64);
  expect(a, Errc::buffer_too_small, "temp");
  a = good;
  a.input = in.view(4);
  expect(a, Errc::buffer_too_small, "input");
  expect_recording_error(
      ctx, [&](VkCommandBuffer) { record_segmented_reduce(ctx, VK_NULL_HANDLE, good); }, Errc::null_handle,
      "VK_NULL_HANDLE");
  a = good;
  a.config.op = Op::bit_and;
  a.config.type = DataType::f32;
  expect(a, Errc::invalid_argument, "integer types only");
}

}  // namespace
}  // namespace gpuscan::test
