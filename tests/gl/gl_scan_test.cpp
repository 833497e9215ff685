// The OpenGL backend's scans against the CPU reference, as tests/gpu/scan_test.cpp does for Vulkan:
// every algorithm GL offers (those the context cannot run are skipped, saying why), exclusive and
// inclusive, u32/i32/f32, sizes around tile and recursion boundaries, unaligned offsets, output and
// temp poisoned and guarded; every operator of those types, with and without a carry-in.
#include "gl_test_support.hpp"
#include "scan_check.hpp"

namespace gpuscan::test {
namespace {

constexpr size_t guard = 37;  // puts the output off 16-byte alignment: the scalar load/store paths

// Scans `input` from element `in_offset` of a fresh buffer into a poisoned output buffer after `guard`
// elements, through the record-level API (with `initial` as the carry-in); checks the guards.
template <class T>
RecordedScan<T> gl_record_and_run(const std::vector<T>& input, ScanConfig config, size_t in_offset = 3,
                                  std::optional<T> initial = std::nullopt) {
  config.type = data_type_of<T>::value;
  const size_t n = input.size();
  std::vector<T> staged(in_offset + n + 1);  // + 1: never a zero-sized buffer
  std::copy(input.begin(), input.end(), staged.begin() + in_offset);
  GlBuffer in(staged.size() * sizeof(T), staged.data());
  const auto poisoned = poison_bytes((n + 2 * guard) * sizeof(T));
  GlBuffer out(poisoned.size(), poisoned.data());
  const gl::TempRequirements req = gl::scan_temp_requirements(gl_context(), n, config);
  const auto poisoned_temp = poison_bytes(req.size + 64);
  GlBuffer temp(poisoned_temp.size(), poisoned_temp.data());
  std::optional<uint64_t> initial_bits;
  if (initial) initial_bits = element_bits(*initial);
  gl::record_scan(gl_context(), {config, n, in.view(in_offset * sizeof(T)), out.view(guard * sizeof(T)), temp.view(),
                                 initial_bits});
  buffer_update_barrier();
  const auto all = out.read<T>(0, n + 2 * guard);
  RecordedScan<T> r;
  r.output.assign(all.begin() + guard, all.begin() + guard + n);
  r.guards_intact = std::memcmp(all.data(), poisoned.data(), guard * sizeof(T)) == 0 &&
                    std::memcmp(all.data() + guard + n, poisoned.data(), guard * sizeof(T)) == 0;
  return r;
}

class GlScanTest : public GlTest, public ScanCaseParams {
 protected:
  void SetUp() override {
    try {
      gl_context().resolve(config(32, 1), 1);
      if (GetParam().algorithm == Algorithm::multipass) gl_context().resolve(GetParam().workgroup);
    } catch (const Error& e) {
      GTEST_SKIP() << e.what();
    }
  }
  template <class T>
  void run_sizes(ScanConfig c, const std::vector<size_t>& sizes, uint64_t seed, size_t in_offset = 3) {
    SCOPED_TRACE("input offset " + std::to_string(in_offset));
    check_sizes<T>(c, sizes, seed, [&](const std::vector<T>& input, const ScanConfig& config) {
      return gl_record_and_run(input, config, in_offset);
    });
  }
};

// Small tiles, so that B^3 + 1 stays small and every recursion depth is reached.
TEST_P(GlScanTest, BoundarySizesSmallTiles) {
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  const auto sizes = boundary_sizes(tile(32, 1), rng);
  run_sizes<uint32_t>(config(32, 1), sizes, seed);
  run_sizes<int32_t>(config(32, 1), sizes, seed + 1);
  run_sizes<float>(config(32, 1), sizes, seed + 2);
}

// Other tile shapes around their own tile, with vector-aligned (0) and unaligned (1) input offsets.
TEST_P(GlScanTest, TileShapesAndOffsets) {
  const uint64_t seed = fresh_seed();
  for (uint32_t w : {64u, 256u, 1024u}) {
    const uint32_t k = w == 64 ? 2 : 4;
    const size_t b = tile(w, k);
    run_sizes<uint32_t>(config(w, k), {b - 1, b, b + 1, 3 * b + 5}, seed + w, w == 256 ? 0 : 1);
  }
}

TEST_P(GlScanTest, InPlace) {
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  const ScanConfig c = config(32, 1);
  const size_t n = tile(32, 1) * tile(32, 1) + 3;
  const auto input = random_values<uint32_t>(n, rng);
  GlBuffer data((n + 1) * 4);
  gl_functions().NamedBufferSubData(data.name(), 4, n * 4, input.data());
  const gl::TempRequirements req = gl::scan_temp_requirements(gl_context(), n, c);
  GlBuffer temp(req.size + 4);
  gl::record_scan(gl_context(), {c, n, data.view(4), data.view(4), temp.view()});
  buffer_update_barrier();
  EXPECT_TRUE(matches_reference(input, data.read<uint32_t>(1, n), c.kind)) << "seed " << seed;
}

// Every operator of each 32-bit type, with and without a carry-in (not for float add: no exact
// reference), at sizes of one tile, two levels and three levels (the carry-in enters at the plan's root
// dispatch, whatever the depth).
TEST_P(GlScanTest, OperatorsAndCarryIn) {
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  const size_t b = tile(32, 1);
  for (const DataType type : {DataType::u32, DataType::i32, DataType::f32})
    for (const Op op : {Op::add, Op::min, Op::max, Op::mul, Op::bit_and, Op::bit_or, Op::bit_xor}) {
      if (!op_supports(op, type)) continue;
      ScanConfig c = config(32, 1);
      c.op = op;
      visit_type(type, [&](auto tag) {
        using T = decltype(tag);
        for (size_t n : {size_t{1}, b + 1, b * b + 3})
          for (const bool carry : {false, true}) {
            if (carry && is_float(type) && op == Op::add) continue;  // no exact reference (ops_test.cpp)
            SCOPED_TRACE(std::string(to_string(type)) + " " + std::string(to_string(op)) + ", n = " +
                         std::to_string(n) + (carry ? ", carry-in" : "") + ", seed " + std::to_string(seed));
            const auto input = random_op_values<T>(n, op, rng);
            const std::optional<T> initial = carry ? std::optional<T>(random_op_values<T>(1, op, rng)[0]) : std::nullopt;
            const auto r = gl_record_and_run(input, c, 3, initial);
            EXPECT_TRUE(r.guards_intact) << "the scan wrote outside its output range";
            EXPECT_TRUE(matches_reference(input, r.output, c.kind, op, initial));
          }
        if constexpr (std::is_floating_point_v<T>)
          if (op == Op::min || op == Op::max) {  // NaN propagates (include/gpuscan/types.hpp)
            SCOPED_TRACE(std::string(to_string(op)) + " with NaNs, seed " + std::to_string(seed));
            const auto input = with_nans(random_op_values<T>(b * b + 3, op, rng), rng);
            EXPECT_TRUE(matches_reference(input, gl_record_and_run(input, c, 3).output, c.kind, op));
          }
      });
    }
}

// Scans longer than one SSBO binding run as windows chained on the GPU (src/core/windows.hpp). The
// context binds at most 20000 bytes for this test (TestHooks::max_binding_bytes, set on the
// shared context here), so a few thousand elements span several windows, with a carry-in and in place.
TEST_P(GlScanTest, WindowsBeyondOneBinding) {
  const BindingCap cap;
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  const ScanConfig c = config(64, 2);
  const size_t w = 4992;  // about one window: (20000 - alignment slack) / 4, rounded down to 16 elements
  for (size_t n : {w - 1, w + 1, 3 * w + 5}) {
    SCOPED_TRACE("n = " + std::to_string(n) + ", seed " + std::to_string(seed));
    const auto input = random_values<uint32_t>(n, rng);
    const uint32_t initial = static_cast<uint32_t>(rng());
    const auto r = gl_record_and_run<uint32_t>(input, c, 3, initial);
    EXPECT_TRUE(r.guards_intact);
    EXPECT_TRUE(matches_reference<uint32_t>(input, r.output, c.kind, Op::add, initial));
    GlBuffer data(n * 4, input.data());
    const gl::TempRequirements req = gl::scan_temp_requirements(gl_context(), n, c);
    GlBuffer temp(req.size + 4);
    gl::record_scan(gl_context(), {c, n, data.view(), data.view(), temp.view()});
    buffer_update_barrier();
    EXPECT_TRUE(matches_reference(input, data.read<uint32_t>(0, n), c.kind)) << "in place";
  }
}

// The count from GPU memory (ScanArgs::count_from): glDispatchComputeIndirect sized for it, nothing
// written past it, a count above the bound clamped and reported in the status word.
TEST_P(GlScanTest, CountFromGpuMemory) {
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  const ScanConfig c = config(32, 1);
  const size_t b = tile(32, 1);
  const size_t bound = b * b + 3;
  for (const uint64_t count : {uint64_t{0}, uint64_t{1}, uint64_t{b}, uint64_t{b + 1}, uint64_t{bound - 2},
                               uint64_t{bound}, uint64_t{bound + 9}}) {
    SCOPED_TRACE("count " + std::to_string(count) + ", seed " + std::to_string(seed));
    const auto input = random_values<uint32_t>(bound, rng);
    GlBuffer in(bound * 4, input.data());
    const auto poisoned = poison_bytes(bound * 4);
    GlBuffer out(bound * 4, poisoned.data());
    const GlCount gpu_count(count);
    const gl::TempRequirements req = gl::scan_temp_requirements(gl_context(), bound, c, true);
    GlBuffer temp(req.size);
    gl::ScanArgs a{c, bound, in.view(), out.view(), temp.view()};
    a.count_from = gpu_count.indirect();
    gl::record_scan(gl_context(), a);
    buffer_update_barrier();
    const size_t n = static_cast<size_t>(std::min<uint64_t>(count, bound));
    const auto got = out.read<uint32_t>(0, bound);
    EXPECT_TRUE(matches_reference(std::vector<uint32_t>(input.begin(), input.begin() + n),
                                  std::vector<uint32_t>(got.begin(), got.begin() + n), c.kind));
    EXPECT_EQ(std::memcmp(got.data() + n, poisoned.data(), (bound - n) * 4), 0) << "written past the count";
    EXPECT_EQ(gpu_count.status(), count > bound ? 1u : 0u) << "status word";
  }
}

INSTANTIATE_TEST_SUITE_P(
    Gl, GlScanTest,
    ::testing::Values(Case{Algorithm::multipass, WorkgroupAlgorithm::blelloch, ScanKind::exclusive},
                      Case{Algorithm::multipass, WorkgroupAlgorithm::blelloch, ScanKind::inclusive},
                      Case{Algorithm::multipass, WorkgroupAlgorithm::subgroup, ScanKind::exclusive},
                      Case{Algorithm::multipass, WorkgroupAlgorithm::subgroup, ScanKind::inclusive},
                      Case{Algorithm::reduce_then_scan, WorkgroupAlgorithm::automatic, ScanKind::exclusive},
                      Case{Algorithm::reduce_then_scan, WorkgroupAlgorithm::automatic, ScanKind::inclusive}),
    case_name);

// The convenience calls on host spans, default configuration (what `automatic` picks here).
TEST_F(GlTest, ConvenienceScans) {
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  const std::vector<uint32_t> example = {3, 1, 7, 0, 4, 1, 6, 3};
  EXPECT_EQ(gl::exclusive_scan(gl_context(), std::span<const uint32_t>(example)),
            (std::vector<uint32_t>{0, 3, 4, 11, 11, 15, 16, 22}));
  EXPECT_EQ(gl::inclusive_scan(gl_context(), std::span<const uint32_t>(example)),
            (std::vector<uint32_t>{3, 4, 11, 11, 15, 16, 22, 25}));
  const auto big = random_values<float>((size_t{1} << 20) + 3, rng);
  EXPECT_TRUE(matches_reference(big, gl::inclusive_scan(gl_context(), std::span<const float>(big)),
                                ScanKind::inclusive)) << "seed " << seed;
  EXPECT_TRUE(gl::exclusive_scan(gl_context(), std::span<const int32_t>()).empty());
  double ns = -1;
  const auto bytes = gl::scan_bytes(gl_context(), std::as_bytes(std::span<const uint32_t>(example)), {}, &ns);
  EXPECT_EQ(bytes.size(), example.size() * 4);
  EXPECT_GE(ns, 0.0);
  EXPECT_EQ(gl::scan<uint32_t>(gl_context(), std::span<const uint32_t>(example).first(3), {}, 100u),
            (std::vector<uint32_t>{100, 103, 104}));
  ScanConfig max_config;
  max_config.op = Op::max;
  max_config.kind = ScanKind::inclusive;
  EXPECT_EQ(gl::scan<int32_t>(gl_context(), std::span<const int32_t>(std::vector<int32_t>{-5, 2, -1, 9}), max_config),
            (std::vector<int32_t>{-5, 2, 2, 9}));
}

// The 64-bit types (GL_ARB_gpu_shader_int64 for u64/i64, fp64 core): multipass with Blelloch workgroup
// scans, what `automatic` picks for them; every operator, both kinds, sizes around the tile and
// recursion boundaries (W = 32: B = 64), with and without a carry-in; the subgroup paths refused.
TEST_F(GlTest, WideTypesEveryOperator) {
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  const gl::GlInfo& info = gl_context().info();
  constexpr size_t b = 64;
  for (const DataType type : {DataType::u64, DataType::i64, DataType::f64}) {
    ScanConfig c;
    c.type = type;
    c.workgroup_size = 32;
    if ((type != DataType::f64 && !info.gpu_shader_int64) || (type == DataType::f64 && !info.gpu_shader_fp64)) {
      EXPECT_THROW(gl::scan_temp_requirements(gl_context(), 10, c), Error) << to_string(type);
      continue;
    }
    EXPECT_EQ(gl_context().resolve(c, 1000), Algorithm::multipass);
    EXPECT_EQ(gl_context().resolve(WorkgroupAlgorithm::automatic, type), WorkgroupAlgorithm::blelloch);
    for (const Op op : {Op::add, Op::min, Op::max, Op::mul, Op::bit_and, Op::bit_or, Op::bit_xor}) {
      if (!op_supports(op, type)) continue;
      c.op = op;
      visit_type(type, [&](auto tag) {
        using T = decltype(tag);
        for (const ScanKind kind : {ScanKind::exclusive, ScanKind::inclusive})
          for (size_t n : {size_t{0}, size_t{1}, b - 1, b, b + 1, b * b - 1, b * b + 1, b * b * b + 1})
            for (const bool carry : {false, true}) {
              if (carry && (n != b * b + 1 || (is_float(type) && op == Op::add))) continue;
              c.kind = kind;
              SCOPED_TRACE(std::string(to_string(type)) + " " + std::string(to_string(op)) + " " +
                           std::string(to_string(kind)) + ", n = " + std::to_string(n) + (carry ? ", carry-in" : "") +
                           ", seed " + std::to_string(seed));
              const auto input = random_op_values<T>(n, op, rng);
              const std::optional<T> initial =
                  carry ? std::optional<T>(random_op_values<T>(1, op, rng)[0]) : std::nullopt;
              const auto r = gl_record_and_run(input, c, 1, initial);
              EXPECT_TRUE(r.guards_intact) << "the scan wrote outside its output range";
              EXPECT_TRUE(matches_reference(input, r.output, kind, op, initial));
            }
        if constexpr (std::is_floating_point_v<T>)
          if (op == Op::min || op == Op::max) {  // NaN propagates (include/gpuscan/types.hpp)
            c.kind = ScanKind::exclusive;
            SCOPED_TRACE(std::string(to_string(op)) + " with NaNs, seed " + std::to_string(seed));
            const auto input = with_nans(random_op_values<T>(b * b + 1, op, rng), rng);
            EXPECT_TRUE(matches_reference(input, gl_record_and_run(input, c, 1).output, ScanKind::exclusive, op));
          }
      });
    }
    c.op = Op::add;
    c.algorithm = Algorithm::reduce_then_scan;
    EXPECT_THROW(gl::scan_temp_requirements(gl_context(), 10, c), Error) << to_string(type);
    c.algorithm = Algorithm::multipass;
    c.workgroup = WorkgroupAlgorithm::subgroup;
    EXPECT_THROW(gl::scan_temp_requirements(gl_context(), 10, c), Error) << to_string(type);
  }
  if (info.gpu_shader_int64) {
    const std::vector<int64_t> v = {int64_t{1} << 40, -7, 3};
    EXPECT_EQ(gl::inclusive_scan(gl_context(), std::span<const int64_t>(v)),
              (std::vector<int64_t>{int64_t{1} << 40, (int64_t{1} << 40) - 7, (int64_t{1} << 40) - 4}));
  }
  const std::vector<double> d = {0.5, -2.0, 8.0};
  EXPECT_EQ(gl::exclusive_scan(gl_context(), std::span<const double>(d)), (std::vector<double>{0.0, 0.5, -1.5}));
}

// gl::scan_stream: chunks of a budget that is not a multiple of the tile, with and without the
// caller's carry-in, sizes around one chunk and over many, both kinds; and a budget below one tile.
TEST_F(GlTest, ChunkedStreams) {
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  for (const DataType type : {DataType::u32, DataType::f32})
    for (const ScanKind kind : {ScanKind::exclusive, ScanKind::inclusive}) {
      ScanConfig config;
      config.type = type;
      config.kind = kind;
      config.op = type == DataType::f32 ? Op::max : Op::add;
      config.workgroup_size = 32;
      config.vectors_per_lane = 1;
      StreamOptions options;
      options.device_memory_budget = 2 * 4 * 300 + 1024;  // input and output of ~300 elements, and temp
      const StreamPlan plan = gl::plan_scan_stream(gl_context(), config, options);
      ASSERT_LE(plan.memory_bytes, options.device_memory_budget);
      ASSERT_NE(plan.chunk_elements % 128, 0u);
      const uint64_t c = plan.chunk_elements;
      visit_type(type, [&](auto tag) {
        using T = decltype(tag);
        for (const uint64_t n : {uint64_t{0}, uint64_t{1}, c - 1, c, c + 1, 9 * c + 5})
          for (const bool carry : {false, true}) {
            SCOPED_TRACE(std::string(to_string(type)) + " " + std::string(to_string(kind)) + ", chunk " +
                         std::to_string(c) + ", n = " + std::to_string(n) + (carry ? ", carry-in" : "") +
                         ", seed " + std::to_string(seed));
            const auto input = random_values<T>(n, rng);
            const std::optional<T> initial = carry ? std::optional<T>(static_cast<T>(rng() % 1000)) : std::nullopt;
            const auto bytes = std::as_bytes(std::span<const T>(input));
            size_t at = 0;
            std::vector<T> out;
            const StreamStats stats = gl::scan_stream(
                gl_context(), config,
                [&](std::span<std::byte> buf) {
                  const size_t k = std::min(buf.size(), bytes.size() - at);
                  std::copy_n(bytes.begin() + at, k, buf.begin());
                  at += k;
                  return k;
                },
                [&](std::span<const std::byte> res) {
                  const size_t old = out.size();
                  out.resize(old + res.size() / sizeof(T));
                  std::memcpy(out.data() + old, res.data(), res.size());
                },
                options, initial ? std::optional<uint64_t>(element_bits(*initial)) : std::nullopt);
            EXPECT_EQ(stats.chunks, (n + c - 1) / c);
            EXPECT_TRUE(matches_reference(input, out, kind, config.op, initial));
          }
      });
    }
  StreamOptions tiny;
  tiny.device_memory_budget = 1024;
  try {
    gl::plan_scan_stream(gl_context(), {}, tiny);
    ADD_FAILURE() << "a 1 KiB budget holds no tile";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("cannot hold one tile"), std::string::npos) << e.what();
  }
}


}  // namespace
}  // namespace gpuscan::test
