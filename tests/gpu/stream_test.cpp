// Chunked streams (include/gpuscan/stream.hpp) against the CPU reference: budgets that force one, two
// and many chunks, chunk sizes that are not multiples of the tile (so chunk boundaries fall inside
// tiles), every type with a couple of operators, exclusive and inclusive, with and without a caller's
// carry-in, one and two chunks in flight, sizes 0, 1, chunk - 1, chunk, chunk + 1 and many chunks;
// readers that deliver a few bytes at a time; reductions; and misuse (a budget below one tile, a stream
// ending inside an element, a lying reader, a failing writer).
//
// Small tiles (W = 32, K = 1: 128 elements; multipass 64) keep the chunks small. Float sums are compared
// within cpu::float_tolerance (a carry adds one rounding per chunk: the test sizes stay at a few chunks
// for them); every other result bit for bit.
#include <numeric>

#include "scan_check.hpp"

namespace gpuscan::test {
namespace {

class StreamTest : public GpuTest, public ::testing::WithParamInterface<bool /*double_buffer*/> {
 protected:
  // A budget whose chunks hold about `elements` elements of `type` (temp comes out of it too).
  StreamOptions options_for(DataType type, uint64_t elements) const {
    StreamOptions o;
    o.double_buffer = GetParam();
    o.device_memory_budget = (o.double_buffer ? 2 : 1) * (3 * element_size(type) * elements + 2048);
    return o;
  }
};

ScanConfig small_tiles(DataType type, Op op, ScanKind kind, Algorithm algorithm = Algorithm::automatic) {
  ScanConfig c;
  c.type = type;
  c.op = op;
  c.kind = kind;
  c.algorithm = algorithm;
  c.workgroup_size = 32;
  c.vectors_per_lane = 1;
  return c;
}

uint64_t chunks_for(uint64_t n, uint64_t chunk) { return (n + chunk - 1) / chunk; }

// reduce_chunked with a whole ReduceConfig (small tiles): reduce_stream reading from `input`.
template <class T>
T reduce_in_chunks(const Context& ctx, const std::vector<T>& input, const ReduceConfig& config,
                   const StreamOptions& options) {
  const auto bytes = std::as_bytes(std::span<const T>(input));
  size_t at = 0;
  const auto result = reduce_stream(ctx, config, [&](std::span<std::byte> buf) {
    const size_t k = std::min(buf.size(), bytes.size() - at);
    std::copy_n(bytes.begin() + at, k, buf.begin());
    at += k;
    return k;
  }, options);
  T value;
  std::memcpy(&value, result.data(), sizeof value);
  return value;
}

// Every type, add and one more operator, both kinds, on budgets of ~300 and ~1000 elements per chunk,
// at the sizes around one chunk and over several.
TEST_P(StreamTest, EveryTypeAroundChunkBoundaries) {
  const Context& ctx = shared_context();
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  for (DataType type : {DataType::u32, DataType::i32, DataType::f32, DataType::u64, DataType::i64, DataType::f64})
    for (Op op : {Op::add, is_float(type) ? Op::max : Op::bit_xor, Op::mul})
      for (ScanKind kind : {ScanKind::exclusive, ScanKind::inclusive})
        for (uint64_t target : {300u, 1000u}) {
          const ScanConfig config = small_tiles(type, op, kind);
          const StreamOptions options = options_for(type, target);
          const StreamPlan plan = plan_scan_stream(ctx, config, options);
          ASSERT_GE(plan.chunk_elements, 128u);
          ASSERT_NE(plan.chunk_elements % 128, 0u) << "chunk boundaries must fall inside tiles";
          ASSERT_LE(plan.memory_bytes, options.device_memory_budget);
          const uint64_t c = plan.chunk_elements;
          visit_type(type, [&](auto tag) {
            using T = decltype(tag);
            for (uint64_t n : {uint64_t{0}, uint64_t{1}, c - 1, c, c + 1, 3 * c + 17}) {
              SCOPED_TRACE(std::string(to_string(type)) + " " + std::string(to_string(op)) + " " +
                           std::string(to_string(kind)) + ", chunk " + std::to_string(c) + ", n = " +
                           std::to_string(n) + ", seed " + std::to_string(seed));
              const auto input = random_op_values<T>(n, op, rng);
              const auto out = scan_chunked(ctx, std::span<const T>(input), config, options);
              EXPECT_TRUE(matches_reference(input, out, kind, op));
            }
          });
        }
}

// Many chunks, the caller's carry-in, and the algorithms by name (chunks of the pinned algorithm).
TEST_P(StreamTest, ManyChunksWithACarryIn) {
  const Context& ctx = shared_context();
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  for (Algorithm algorithm : {Algorithm::automatic, Algorithm::multipass, Algorithm::reduce_then_scan,
                              Algorithm::single_pass}) {
    if (algorithm == Algorithm::single_pass && !ctx.single_pass_available()) continue;
    for (ScanKind kind : {ScanKind::exclusive, ScanKind::inclusive}) {
      ScanConfig config = small_tiles(DataType::i64, Op::add, kind, algorithm);
      const StreamOptions options = options_for(DataType::i64, 200);
      const StreamPlan plan = plan_scan_stream(ctx, config, options);
      if (algorithm != Algorithm::automatic) EXPECT_EQ(plan.algorithm, algorithm);
      const uint64_t n = 25 * plan.chunk_elements + 3;
      SCOPED_TRACE(std::string(to_string(algorithm)) + " " + std::string(to_string(kind)) + ", chunk " +
                   std::to_string(plan.chunk_elements) + ", seed " + std::to_string(seed));
      const auto input = random_values<int64_t>(n, rng);
      const int64_t initial = static_cast<int64_t>(rng());
      EXPECT_TRUE(matches_reference(input, scan_chunked(ctx, std::span<const int64_t>(input), config, options, initial),
                                    kind, Op::add, std::optional<int64_t>(initial)));
      // Without a carry-in, and a float operator with one.
      EXPECT_TRUE(matches_reference(input, scan_chunked(ctx, std::span<const int64_t>(input), config, options), kind));
      config.type = DataType::f32;
      config.op = Op::min;
      config.deterministic = false;  // allows single-pass on f32 (exact for min)
      const auto floats = random_values<float>(n, rng);
      EXPECT_TRUE(matches_reference(floats, scan_chunked(ctx, std::span<const float>(floats), config, options, 0.5f),
                                    kind, Op::min, std::optional<float>(0.5f)));
    }
  }
}

// The stream's statistics, and a reader that delivers 1 to 7 bytes at a time (splitting elements)
// with a writer that checks it gets whole elements.
TEST_P(StreamTest, ShortReadsAndStatistics) {
  const Context& ctx = shared_context();
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  const ScanConfig config = small_tiles(DataType::u32, Op::add, ScanKind::inclusive);
  const StreamOptions options = options_for(DataType::u32, 500);
  const StreamPlan plan = plan_scan_stream(ctx, config, options);
  for (uint64_t n : {uint64_t{0}, uint64_t{7}, 4 * plan.chunk_elements + 1}) {
    const auto input = random_values<uint32_t>(n, rng);
    const auto bytes = std::as_bytes(std::span<const uint32_t>(input));
    size_t at = 0;
    std::vector<uint32_t> out;
    const StreamStats stats = scan_stream(
        ctx, config,
        [&](std::span<std::byte> buf) {
          const size_t k = std::min({buf.size(), bytes.size() - at, size_t{1} + rng() % 7});
          std::copy_n(bytes.begin() + at, k, buf.begin());
          at += k;
          return k;
        },
        [&](std::span<const std::byte> res) {
          EXPECT_EQ(res.size() % 4, 0u);
          EXPECT_LE(res.size(), plan.chunk_elements * 4);
          const size_t old = out.size();
          out.resize(old + res.size() / 4);
          std::memcpy(out.data() + old, res.data(), res.size());
        },
        options);
    EXPECT_TRUE(matches_reference(input, out, ScanKind::inclusive));
    EXPECT_EQ(stats.count, n);
    EXPECT_EQ(stats.chunks, chunks_for(n, plan.chunk_elements));
    EXPECT_EQ(stats.chunk_elements, plan.chunk_elements);
    EXPECT_EQ(stats.chunks_in_flight, GetParam() ? 2u : 1u);
  }
}

// Chunked reductions: every type x operator over several chunks; the chunk totals combine on the host.
TEST_P(StreamTest, Reductions) {
  const Context& ctx = shared_context();
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  for (DataType type : {DataType::u32, DataType::i32, DataType::f32, DataType::u64, DataType::i64, DataType::f64})
    for (Op op : {Op::add, Op::min, Op::max, Op::mul, Op::bit_and, Op::bit_or, Op::bit_xor}) {
      if (!op_supports(op, type)) continue;
      const ReduceConfig config{type, op, 32, 1};
      StreamOptions options;
      options.double_buffer = GetParam();
      options.device_memory_budget = (GetParam() ? 2 : 1) * (2 * element_size(type) * 700 + 2048);
      const StreamPlan plan = plan_reduce_stream(ctx, config, options);
      ASSERT_LE(plan.memory_bytes, options.device_memory_budget);
      visit_type(type, [&](auto tag) {
        using T = decltype(tag);
        for (uint64_t n : {uint64_t{0}, uint64_t{1}, plan.chunk_elements, plan.chunk_elements + 1,
                           5 * plan.chunk_elements + 9}) {
          SCOPED_TRACE(std::string(to_string(type)) + " " + std::string(to_string(op)) + ", chunk " +
                       std::to_string(plan.chunk_elements) + ", n = " + std::to_string(n) + ", seed " +
                       std::to_string(seed));
          const auto input = random_op_values<T>(n, op, rng);
          const T got = reduce_in_chunks(ctx, input, config, options);
          const T want = cpu::reduce<T>(input, op);
          if (std::is_floating_point_v<T> && op == Op::add) {
            const double tol = n ? cpu::float_tolerance<T>(input, ScanKind::inclusive).back() : 0;
            EXPECT_NEAR(static_cast<double>(got), static_cast<double>(want), tol);
          } else {
            EXPECT_EQ(std::memcmp(&got, &want, sizeof(T)), 0) << +got << " != " << +want;
          }
        }
      });
    }
}

// A fixed budget gives bitwise the same float sums on every run (the order depends on the chunk size
// only), and one chunk gives exactly what the unchunked convenience call gives.
TEST_P(StreamTest, FloatSumsAreDeterministicForAFixedBudget) {
  const Context& ctx = shared_context();
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  const auto input = random_values<float>(20'011, rng);
  const ScanConfig config = small_tiles(DataType::f32, Op::add, ScanKind::exclusive);
  const StreamOptions options = options_for(DataType::f32, 3000);
  const auto first = scan_chunked(ctx, std::span<const float>(input), config, options);
  EXPECT_EQ(first, scan_chunked(ctx, std::span<const float>(input), config, options));
  EXPECT_TRUE(matches_reference(input, first, ScanKind::exclusive));
  StreamOptions whole;
  whole.double_buffer = GetParam();
  EXPECT_EQ(scan(ctx, std::span<const float>(input), config), scan_chunked(ctx, std::span<const float>(input), config, whole));
  EXPECT_EQ(reduce(ctx, std::span<const float>(input)), reduce_chunked(ctx, std::span<const float>(input), Op::add, whole));
}

INSTANTIATE_TEST_SUITE_P(InFlight, StreamTest, ::testing::Values(true, false),
                         [](const auto& info) { return info.param ? "two_chunks" : "one_chunk"; });

class StreamMisuseTest : public GpuTest {};

template <class F>
void expect_error(F&& f, Errc code, const std::string& fragment) {
  try {
    f();
    ADD_FAILURE() << "no error; expected " << fragment;
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

TEST_F(StreamMisuseTest, BudgetBelowOneTile) {
  const Context& ctx = shared_context();
  ScanConfig config;  // W = 256, K = 4: tiles of 4096 elements
  StreamOptions options;
  options.device_memory_budget = 64 << 10;  // 2 x 32 KiB: 4096 x 12 bytes do not fit
  expect_error([&] { plan_scan_stream(ctx, config, options); }, Errc::invalid_argument, "cannot hold one tile");
  const std::vector<uint32_t> data(10, 1);
  expect_error([&] { scan_chunked(ctx, std::span<const uint32_t>(data), config, options); }, Errc::invalid_argument,
               "4096 elements");
  expect_error([&] { reduce_chunked(ctx, std::span<const uint32_t>(data), Op::add, options); }, Errc::invalid_argument,
               "cannot hold one tile of a u32 reduction");
  options.double_buffer = false;  // 64 KiB for one chunk: enough
  EXPECT_EQ(scan_chunked(ctx, std::span<const uint32_t>(data), config, options)[9], 9u);
  config.op = Op::bit_or;
  config.type = DataType::f32;  // the config is checked as the scan would check it
  expect_error([&] { plan_scan_stream(ctx, config, options); }, Errc::invalid_argument, "integer types only");
}

TEST_F(StreamMisuseTest, ReaderAndWriterFailures) {
  const Context& ctx = shared_context();
  ScanConfig config = small_tiles(DataType::u64, Op::add, ScanKind::exclusive);
  StreamOptions options;
  options.device_memory_budget = 64 << 10;
  std::vector<std::byte> bytes(8 * 5000 + 3);  // ends inside an element
  std::iota(reinterpret_cast<unsigned char*>(bytes.data()), reinterpret_cast<unsigned char*>(bytes.data()) + bytes.size(), 0);
  size_t at = 0;
  const StreamReader reader = [&](std::span<std::byte> buf) {
    const size_t k = std::min(buf.size(), bytes.size() - at);
    std::copy_n(bytes.begin() + at, k, buf.begin());
    at += k;
    return k;
  };
  expect_error([&] { scan_stream(ctx, config, reader, [](std::span<const std::byte>) {}, options); },
               Errc::invalid_argument, "not a whole number of u64 elements");
  at = 0;
  expect_error([&] { reduce_stream(ctx, {DataType::u64, Op::add, 32, 1}, reader, options); }, Errc::invalid_argument,
               "not a whole number of u64 elements");
  expect_error([&] { scan_stream(ctx, config, [](std::span<std::byte> b) { return b.size() + 1; },
                                 [](std::span<const std::byte>) {}, options); },
               Errc::io_error, "returned");
  // A writer that throws on the second chunk: the error comes out after the GPU work in flight
  // finished (validation would report buffers destroyed in use), and the Context goes on working.
  bytes.resize(8 * 5000);
  at = 0;
  int calls = 0;
  expect_error([&] {
    scan_stream(ctx, config, reader, [&](std::span<const std::byte>) {
      if (++calls == 2) throw Error(Errc::io_error, "disk full");
    }, options);
  }, Errc::io_error, "disk full");
  EXPECT_EQ(calls, 2);
  const std::vector<uint32_t> small = {3, 1, 7};
  EXPECT_EQ(scan_chunked(ctx, std::span<const uint32_t>(small), {}, {}), (std::vector<uint32_t>{0, 3, 4}));
}

}  // namespace
}  // namespace gpuscan::test
