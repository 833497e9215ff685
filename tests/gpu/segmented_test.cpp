// Segmented scans (include/gpuscan/segmented.hpp) against the CPU reference (cpu::segmented_scan):
// every type x operator, exclusive and inclusive, heads from flags, u32 keys and u64 keys, segments of
// length 1, of random lengths and one segment, sizes around the tile and recursion boundaries, outputs
// poisoned and guarded, fresh random data (GPUSCAN_SEED replays a run); bitwise-identical repeated float
// runs; the convenience calls; and misuse.
//
// Sampling, as ops_test.cpp does, to keep lavapipe's pipeline compiles affordable: every (type, operator)
// pair runs exclusive with flags and inclusive with keys (u32 and u64 alternating over the pairs) at
// sizes 1, B-1, B+1 and one random size up to B^2 + B with small tiles (B = 128: W = 32, K = 1), the
// segment pattern rotating over the sizes; the full boundary sweep (0 ... B^2+1, B^3+1) runs on u32 add,
// f32 add and i64 max with every head source, kind and pattern.
#include <numeric>

#include "busy_device.hpp"
#include "scan_check.hpp"
#include "segmented_check.hpp"
#include "segmented_record.hpp"

namespace gpuscan::test {
namespace {

constexpr size_t kSmallTile = 128;

template <class T>
void check_case(const ScanConfig& c, SegmentHeads kind, size_t n, Pattern pattern, std::mt19937_64& rng,
                uint64_t seed, Placement at = {}) {
  SCOPED_TRACE(std::string(to_string(c.type)) + " " + std::string(to_string(c.op)) + " " +
               std::string(to_string(c.kind)) + ", heads from " + std::string(to_string(kind)) + ", " + name(pattern) +
               ", n = " + std::to_string(n) + ", W = " + std::to_string(c.workgroup_size) + ", K = " +
               std::to_string(c.vectors_per_lane) + (at.in_place ? ", in place" : "") + ", seed " + std::to_string(seed));
  const auto input = random_op_values<T>(n, c.op, rng);
  const auto starts = make_starts(n, pattern, rng);
  const auto heads = make_heads(starts, kind, rng);
  const auto r = record_segmented(shared_context(), input, heads, kind, c, at);
  EXPECT_TRUE(r.guards_intact) << "the scan wrote outside its output range";
  EXPECT_TRUE(matches_segmented(input, starts, r.output, c.kind, c.op));
}

class SegmentedTest : public GpuTest {};

TEST_F(SegmentedTest, EveryTypeAndOperator) {
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  const size_t b = kSmallTile;
  int pair = 0;
  for (DataType type : {DataType::u32, DataType::i32, DataType::f32, DataType::u64, DataType::i64, DataType::f64})
    for (Op op : {Op::add, Op::min, Op::max, Op::mul, Op::bit_and, Op::bit_or, Op::bit_xor}) {
      if (!op_supports(op, type)) continue;
      const SegmentHeads keys = pair++ % 2 ? SegmentHeads::keys_u64 : SegmentHeads::keys_u32;
      const std::vector<size_t> sizes = {1, b - 1, b + 1, std::uniform_int_distribution<size_t>(2, b * b + b)(rng)};
      visit_type(type, [&](auto tag) {
        using T = decltype(tag);
        for (size_t i = 0; i < sizes.size(); ++i) {
          const Pattern pattern = std::array{Pattern::random, Pattern::singletons, Pattern::one_segment,
                                             Pattern::random}[(i + pair) % 4];
          check_case<T>(small_tiles(type, op, ScanKind::exclusive), SegmentHeads::flags, sizes[i], pattern, rng, seed);
          check_case<T>(small_tiles(type, op, ScanKind::inclusive), keys, sizes[i], pattern, rng, seed);
        }
      });
    }
}

TEST_F(SegmentedTest, BoundarySizes) {
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  const size_t b = kSmallTile;
  std::vector<size_t> sizes = {0, 1, 2, 3, 5, b - 1, b, b + 1, 2 * b + 3, b * b - 1, b * b, b * b + 1};
  sizes.push_back(std::uniform_int_distribution<size_t>(b * b + 2, 3 * b * b)(rng));
  for (ScanKind kind : {ScanKind::exclusive, ScanKind::inclusive})
    for (SegmentHeads heads : {SegmentHeads::flags, SegmentHeads::keys_u32, SegmentHeads::keys_u64})
      for (Pattern pattern : {Pattern::singletons, Pattern::random, Pattern::one_segment})
        for (size_t n : sizes) {
          check_case<uint32_t>(small_tiles(DataType::u32, Op::add, kind), heads, n, pattern, rng, seed);
          check_case<float>(small_tiles(DataType::f32, Op::add, kind), heads, n, pattern, rng, seed);
          check_case<int64_t>(small_tiles(DataType::i64, Op::max, kind), heads, n, pattern, rng, seed);
        }
  // B^3 + 1: four levels.
  for (ScanKind kind : {ScanKind::exclusive, ScanKind::inclusive})
    check_case<uint32_t>(small_tiles(DataType::u32, Op::add, kind), SegmentHeads::flags, b * b * b + 1,
                         Pattern::random, rng, seed);
}

TEST_F(SegmentedTest, DefaultAndOtherTileShapes) {
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  // (Not K = 16: lavapipe compiles a pipeline at its first dispatch, and the pair kernels unrolled 16
  // times took it over the 60 s fence timeout on a loaded machine.)
  for (auto [w, k] : {std::pair<uint32_t, uint32_t>{0, 0}, {64, 2}}) {
    const size_t b = size_t{w ? w : 256} * (k ? k : 4) * 4;
    for (size_t n : {b - 1, b + 1, 3 * b + 17}) {
      ScanConfig c;
      c.type = DataType::i32;
      c.kind = n % 2 ? ScanKind::inclusive : ScanKind::exclusive;
      c.workgroup_size = w;
      c.vectors_per_lane = k;
      check_case<int32_t>(c, SegmentHeads::flags, n, Pattern::random, rng, seed);
      c.type = DataType::f64;
      c.op = Op::min;
      check_case<double>(c, SegmentHeads::keys_u64, n, Pattern::random, rng, seed);
    }
  }
}

TEST_F(SegmentedTest, UnalignedOffsetsAndInPlace) {
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  const size_t b = kSmallTile;
  for (size_t n : {size_t{7}, b + 1, b * b + 3}) {
    const Placement unaligned{3, 1, 37, false};
    const Placement in_place{0, 2, 37, true};
    for (ScanKind kind : {ScanKind::exclusive, ScanKind::inclusive}) {
      check_case<uint32_t>(small_tiles(DataType::u32, Op::add, kind), SegmentHeads::flags, n, Pattern::random, rng,
                           seed, unaligned);
      check_case<double>(small_tiles(DataType::f64, Op::add, kind), SegmentHeads::keys_u64, n, Pattern::random, rng,
                         seed, unaligned);
      check_case<int32_t>(small_tiles(DataType::i32, Op::bit_xor, kind), SegmentHeads::keys_u32, n, Pattern::random,
                          rng, seed, in_place);
      check_case<uint64_t>(small_tiles(DataType::u64, Op::mul, kind), SegmentHeads::flags, n, Pattern::random, rng,
                           seed, in_place);
    }
  }
}

// The combining order depends only on n and the tile shape, so float results repeat bit for bit, also
// while another Context keeps the device busy.
TEST_F(SegmentedTest, FloatResultsAreBitwiseIdenticalRunToRun) {
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  BusyDevice busy;
  const size_t n = 300'007;
  const auto values = random_values<float>(n, rng);
  const auto starts = make_starts(n, Pattern::random, rng);
  const auto flags_bytes = make_heads(starts, SegmentHeads::flags, rng);
  std::vector<uint32_t> flags(n);
  std::memcpy(flags.data(), flags_bytes.data(), flags_bytes.size());
  for (ScanKind kind : {ScanKind::inclusive, ScanKind::exclusive}) {
    ScanConfig c;
    c.kind = kind;
    const auto first = segmented_scan(shared_context(), std::span<const float>(values), std::span<const uint32_t>(flags), c);
    ASSERT_TRUE(matches_segmented(values, starts, first, kind, Op::add));
    for (int run = 1; run < 20; ++run) {
      const auto again =
          segmented_scan(shared_context(), std::span<const float>(values), std::span<const uint32_t>(flags), c);
      ASSERT_EQ(std::memcmp(again.data(), first.data(), n * sizeof(float)), 0)
          << "run " << run << " differs from run 0 (" << to_string(kind) << ")";
    }
  }
}

TEST_F(SegmentedTest, ConvenienceCallsMatchTheDocumentedExamples) {
  const Context& ctx = shared_context();
  const std::vector<uint32_t> v = {3, 1, 7, 0, 4, 1, 6, 3};
  const std::vector<uint32_t> flags = {1, 0, 0, 1, 0, 1, 0, 0};
  ScanConfig c;
  EXPECT_EQ(segmented_scan(ctx, std::span<const uint32_t>(v), std::span<const uint32_t>(flags), c),
            (std::vector<uint32_t>{0, 3, 4, 0, 0, 0, 1, 7}));
  c.kind = ScanKind::inclusive;
  const std::vector<uint32_t> keys = {9, 9, 9, 4, 4, 9, 9, 9};
  EXPECT_EQ(segmented_scan_by_key(ctx, std::span<const uint32_t>(keys), std::span<const uint32_t>(v), c),
            (std::vector<uint32_t>{3, 4, 11, 0, 4, 1, 7, 10}));
  // u64 keys that differ only in the high word still separate segments.
  const std::vector<uint64_t> wide = {1, 1, 1, 1ull << 32 | 1, 1ull << 32 | 1, 1, 1, 1};
  EXPECT_EQ(segmented_scan_by_key(ctx, std::span<const uint64_t>(wide), std::span<const uint32_t>(v), c),
            (std::vector<uint32_t>{3, 4, 11, 0, 4, 1, 7, 10}));
  c.op = Op::max;
  const std::vector<int64_t> temps = {-40, 12, 7, -3, 25, 0};
  const std::vector<uint32_t> days = {1, 1, 1, 2, 2, 2};
  EXPECT_EQ(segmented_scan_by_key(ctx, std::span<const uint32_t>(days), std::span<const int64_t>(temps), c),
            (std::vector<int64_t>{-40, 12, 12, -3, 25, 25}));
  EXPECT_TRUE(segmented_scan(ctx, std::span<const float>(), std::span<const uint32_t>(), c).empty());
}

class SegmentedMisuseTest : public GpuTest {
 protected:
  const Context& ctx = shared_context();
  HostBuffer<uint32_t> in{ctx, 4096};
  HostBuffer<uint32_t> heads{ctx, 4096};
  HostBuffer<uint32_t> out{ctx, 4096};
  HostBuffer<uint32_t> temp{ctx, 4096};
  SegmentedScanArgs args() const {
    SegmentedScanArgs a;
    a.config.workgroup_size = 32;
    a.config.vectors_per_lane = 1;
    a.count = 1000;
    a.input = in.view();
    a.heads = heads.view();
    a.output = out.view();
    a.temp = temp.view();
    return a;
  }
  void expect_error(const SegmentedScanArgs& a, Errc code, const std::string& fragment, bool null_cmd = false) {
    expect_segmented_error(ctx, a, code, fragment, null_cmd);
  }
};

TEST_F(SegmentedMisuseTest, TheArgumentsUsedHereAreValid) {
  // The baseline the other cases break one thing of: it records without error or validation message.
  vk::submit_and_wait(ctx, [&](VkCommandBuffer cmd) { record_segmented_scan(ctx, cmd, args()); });
}

TEST_F(SegmentedMisuseTest, HeadsShorterThanValues) {
  auto a = args();
  a.heads.buffer_size = 3996;  // 999 flags
  expect_error(a, Errc::buffer_too_small, "heads buffer holds 999 elements");
  a = args();
  a.heads_kind = SegmentHeads::keys_u64;  // 4096 bytes hold 512 u64 keys
  expect_error(a, Errc::buffer_too_small, "heads buffer holds 512 elements");
}

TEST_F(SegmentedMisuseTest, MissingUsageFlags) {
  auto a = args();
  a.heads.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT;
  expect_error(a, Errc::missing_usage, "heads buffer lacks VK_BUFFER_USAGE_STORAGE_BUFFER_BIT");
  a = args();
  a.output.usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  expect_error(a, Errc::missing_usage, "output buffer lacks VK_BUFFER_USAGE_STORAGE_BUFFER_BIT");
  a = args();
  a.temp.usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  expect_error(a, Errc::missing_usage, "temp buffer lacks VK_BUFFER_USAGE_STORAGE_BUFFER_BIT");
}

TEST_F(SegmentedMisuseTest, NullHandles) {
  auto a = args();
  a.heads.buffer = VK_NULL_HANDLE;
  expect_error(a, Errc::null_handle, "heads buffer is VK_NULL_HANDLE");
  a = args();
  a.input.buffer = VK_NULL_HANDLE;
  expect_error(a, Errc::null_handle, "input buffer is VK_NULL_HANDLE");
  a = args();
  a.temp.buffer = VK_NULL_HANDLE;
  expect_error(a, Errc::null_handle, "temp buffer is VK_NULL_HANDLE");
  expect_error(args(), Errc::null_handle, "command buffer is VK_NULL_HANDLE", true);
}

TEST_F(SegmentedMisuseTest, OverlapsAndAlignment) {
  auto a = args();
  a.heads = a.output;
  expect_error(a, Errc::invalid_argument, "heads and output ranges overlap");
  a = args();
  a.temp = a.heads;
  expect_error(a, Errc::invalid_argument, "temp storage overlaps");
  a = args();
  a.output.offset = 4;
  a.input = out.view();
  a.count = 100;
  expect_error(a, Errc::invalid_argument, "input and output ranges overlap");
  a = args();
  a.heads_kind = SegmentHeads::keys_u64;
  a.count = 100;
  a.heads.offset = 4;
  expect_error(a, Errc::misaligned, "heads offset 4 is not a multiple of the element size (8 bytes)");
  a = args();
  a.temp.buffer_size = 16;
  expect_error(a, Errc::buffer_too_small, "temp buffer holds 4 elements");
}

TEST_F(SegmentedMisuseTest, ConfigurationsItCannotRun) {
  auto a = args();
  a.config.algorithm = Algorithm::single_pass;
  expect_error(a, Errc::unsupported, "segmented scans run as reduce-then-scan");
  a.config.algorithm = Algorithm::multipass;
  expect_error(a, Errc::unsupported, "segmented scans run as reduce-then-scan");
  a = args();
  a.config.type = DataType::f32;
  a.config.op = Op::bit_and;
  expect_error(a, Errc::invalid_argument, "defined on integer types only");
  a = args();
  a.heads_kind = static_cast<SegmentHeads>(7);
  expect_error(a, Errc::invalid_argument, "unknown SegmentHeads value 7");
  a = args();
  a.config.workgroup_size = 48;
  expect_error(a, Errc::invalid_argument, "workgroup size 48 is not a power of two");
}

TEST_F(SegmentedMisuseTest, ConvenienceCallsCheckTheHeadsLength) {
  const std::vector<uint32_t> v(10, 1), short_flags(9, 0);
  try {
    segmented_scan(ctx, std::span<const uint32_t>(v), std::span<const uint32_t>(short_flags));
    ADD_FAILURE() << "no error for 9 flags and 10 values";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("flags hold 9 elements, fewer than the 10 values"), std::string::npos)
        << e.what();
  }
  const std::vector<uint64_t> short_keys(3, 0);
  EXPECT_THROW(segmented_scan_by_key(ctx, std::span<const uint64_t>(short_keys), std::span<const uint32_t>(v)), Error);
}

}  // namespace
}  // namespace gpuscan::test
