// The OpenGL backend's reductions (gl::record_reduce, gl::reduce) against the CPU reference, as
// tests/gpu/reduce_test.cpp does for Vulkan: every type x operator GL has (the 64-bit ones where the
// driver has GL_ARB_gpu_shader_int64 / fp64), small tiles (W = 32, K = 1: B = 128, so B^2 + 1 runs three
// levels) around the level boundaries, aligned and unaligned inputs, the result between poisoned guards,
// temp poisoned; other tile shapes; windows past one binding; counts from GPU memory; the convenience
// calls; misuse. On llvmpipe (no GL_KHR_shader_subgroup) every reduction runs the .no_subgroups kernels.
#include "gl_test_support.hpp"
#include "scan_check.hpp"

namespace gpuscan::test {
namespace {

constexpr size_t guard = 3;

// Reduces `input` from element `in_offset` of a fresh buffer into one element between poisoned guards.
template <class T>
T gl_reduce_and_run(const std::vector<T>& input, const ReduceConfig& config, size_t in_offset = 0) {
  const size_t n = input.size();
  std::vector<T> staged(in_offset + n + 1);
  std::copy(input.begin(), input.end(), staged.begin() + in_offset);
  GlBuffer in(staged.size() * sizeof(T), staged.data());
  const auto poisoned = poison_bytes((2 * guard + 1) * sizeof(T));
  GlBuffer out(poisoned.size(), poisoned.data());
  const gl::TempRequirements req = gl::reduce_temp_requirements(gl_context(), n, config);
  const auto poisoned_temp = poison_bytes(req.size + 64);
  GlBuffer temp(poisoned_temp.size(), poisoned_temp.data());
  // n == 0: no input buffer at all.
  gl::record_reduce(gl_context(), {config, n, n ? in.view(in_offset * sizeof(T)) : gl::BufferView{},
                                   out.view(guard * sizeof(T)), temp.view()});
  buffer_update_barrier();
  const auto all = out.read<T>(0, 2 * guard + 1);
  for (size_t i = 0; i < 2 * guard + 1; ++i)
    if (i != guard)
      EXPECT_EQ(std::memcmp(&all[i], poisoned.data() + i * sizeof(T), sizeof(T)), 0) << "guard " << i << " overwritten";
  return all[guard];
}

bool has_type(DataType type) {
  const gl::GlInfo& info = gl_context().info();
  return (type != DataType::u64 && type != DataType::i64) || info.gpu_shader_int64;
}

// Odd sizes read their input from an unaligned offset (the scalar loads), even ones from an aligned one.
TEST_F(GlTest, ReduceEveryTypeAndOperatorAroundLevelBoundaries) {
  check_every_reduction([](const auto& input, const ReduceConfig& config) {
    return gl_reduce_and_run(input, config, input.size() % 2);
  }, has_type);
  for (DataType type : {DataType::u64, DataType::i64})
    if (!has_type(type)) EXPECT_THROW(gl::reduce_temp_requirements(gl_context(), 10, {type}), Error) << to_string(type);
}

// Other tile shapes, each around its own tile, and the float tree: the same input twice gives the
// same bits.
TEST_F(GlTest, ReduceTileShapesAndDeterminism) {
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (uint32_t w : {32u, 128u, 1024u})
    for (uint32_t k : {1u, 4u, 16u}) {
      if (w == 1024 && k == 16) continue;  // 64 Ki-element tiles: long on llvmpipe, nothing new
      const size_t tile = size_t{w} * k * 4;
      for (size_t n : {tile - 1, tile + 1, 3 * tile + 5}) {
        const auto input = random_values<int32_t>(n, rng);
        EXPECT_TRUE(reduces_to(input, gl_reduce_and_run(input, {DataType::i32, Op::max, w, k}, 1), Op::max))
            << "W = " << w << ", K = " << k << ", n = " << n;
      }
    }
  const auto f = random_values<float>(100'003, rng);
  const float first = gl::reduce(gl_context(), std::span<const float>(f));
  const float second = gl::reduce(gl_context(), std::span<const float>(f));
  EXPECT_EQ(std::memcmp(&first, &second, sizeof(float)), 0) << first << " then " << second;
  EXPECT_TRUE(reduces_to(f, first, Op::add));
}

// Longer than one SSBO binding: windows reduced one after another, then their partials. The shared
// context binds at most 20000 bytes for this test.
TEST_F(GlTest, ReduceWindowsBeyondOneBinding) {
  const BindingCap cap;
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  for (size_t n : {size_t{4991}, size_t{4993}, size_t{3 * 4992 + 5}, size_t{40'000}}) {
    SCOPED_TRACE("n = " + std::to_string(n) + ", seed " + std::to_string(seed));
    const auto u = random_values<uint32_t>(n, rng);
    EXPECT_TRUE(reduces_to(u, gl_reduce_and_run(u, {DataType::u32, Op::add, 64, 2}, 3), Op::add));
    EXPECT_TRUE(reduces_to(u, gl_reduce_and_run(u, {DataType::u32, Op::bit_xor, 32, 1}), Op::bit_xor));
    const auto d = random_values<double>(n, rng);
    EXPECT_TRUE(reduces_to(d, gl_reduce_and_run(d, {DataType::f64, Op::min, 32, 1}, 1), Op::min));
  }
  EXPECT_NE(gl::describe_reduce_plan(gl_context(), 40'000, {DataType::u32, Op::add, 64, 2}).find("reduce_tiles"),
            std::string::npos);
}

// The count from GPU memory: glDispatchComputeIndirect sized for it; 0 gives the identity; a count
// above the bound is clamped and reported in the status word.
TEST_F(GlTest, ReduceCountFromGpuMemory) {
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  constexpr size_t b = 128;
  const size_t bound = b * b + 3;
  const ReduceConfig config{DataType::u32, Op::add, 32, 1};
  for (const uint64_t count : {uint64_t{0}, uint64_t{1}, uint64_t{b}, uint64_t{b + 1}, uint64_t{bound - 2},
                               uint64_t{bound}, uint64_t{bound + 9}}) {
    SCOPED_TRACE("count " + std::to_string(count) + ", seed " + std::to_string(seed));
    const auto input = random_values<uint32_t>(bound, rng);
    GlBuffer in(bound * 4, input.data());
    const auto poisoned = poison_bytes(16);
    GlBuffer out(16, poisoned.data());
    const GlCount gpu_count(count);
    const gl::TempRequirements req = gl::reduce_temp_requirements(gl_context(), bound, config, true);
    GlBuffer temp(req.size);
    gl::ReduceArgs a{config, bound, in.view(), out.view(), temp.view()};
    a.count_from = gpu_count.indirect();
    gl::record_reduce(gl_context(), a);
    buffer_update_barrier();
    const size_t n = static_cast<size_t>(std::min<uint64_t>(count, bound));
    EXPECT_TRUE(reduces_to(std::vector<uint32_t>(input.begin(), input.begin() + n), out.read<uint32_t>(0, 1)[0],
                           Op::add));
    EXPECT_EQ(gpu_count.status(), count > bound ? 1u : 0u) << "status word";
  }
}

TEST_F(GlTest, ReduceConvenienceCalls) {
  const gl::Context& ctx = gl_context();
  const std::vector<int32_t> small = {5, -3, 2, 7, -1};
  EXPECT_EQ(gl::reduce(ctx, std::span<const int32_t>(small)), 10);
  EXPECT_EQ(gl::reduce(ctx, std::span<const int32_t>(small), Op::min), -3);
  EXPECT_EQ(gl::reduce(ctx, std::span<const float>(), Op::min), std::numeric_limits<float>::infinity());
  EXPECT_EQ(gl::reduce(ctx, std::span<const uint32_t>(), Op::mul), 1u);
  if (ctx.info().gpu_shader_int64) {
    const std::vector<int64_t> wide = {int64_t{1} << 40, -3, 2};
    EXPECT_EQ(gl::reduce(ctx, std::span<const int64_t>(wide)), (int64_t{1} << 40) - 1);
    EXPECT_EQ(gl::reduce(ctx, std::span<const uint64_t>(), Op::bit_and), ~uint64_t{0});
  }
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  const auto u = random_values<uint32_t>(1'000'017, rng);
  EXPECT_TRUE(reduces_to(u, gl::reduce(ctx, std::span<const uint32_t>(u)), Op::add));
  const auto d = random_values<double>(300'007, rng);
  EXPECT_TRUE(reduces_to(d, gl::reduce(ctx, std::span<const double>(d)), Op::add));
  const auto i = random_values<int32_t>(std::uniform_int_distribution<size_t>(1, 100'000)(rng), rng);
  EXPECT_TRUE(reduces_to(i, gl::reduce(ctx, std::span<const int32_t>(i), {.type = DataType::f64, .op = Op::min,
                                                                         .workgroup_size = 64, .vectors_per_lane = 1}),
                         Op::min));
  double ns = -1;
  const auto bytes = gl::reduce_bytes(ctx, std::as_bytes(std::span<const int32_t>(small)), {DataType::i32, Op::max}, &ns);
  ASSERT_EQ(bytes.size(), 4u);
  int32_t max = 0;
  std::memcpy(&max, bytes.data(), 4);
  EXPECT_EQ(max, 7);
  EXPECT_GE(ns, 0.0);
}

TEST_F(GlTest, ReduceMisuse) {
  const gl::Context& ctx = gl_context();
  GlBuffer in(4096), out(4096), temp(4096);
  const ReduceConfig config{DataType::u32, Op::add, 32, 1};
  auto args = [&](uint64_t n) { return gl::ReduceArgs{config, n, in.view(), out.view(), temp.view()}; };
  auto a = args(100);
  a.output = {};
  EXPECT_EQ(error_of([&] { gl::record_reduce(ctx, a); }), Errc::null_handle);
  a = args(100);
  a.input = {};
  EXPECT_EQ(error_of([&] { gl::record_reduce(ctx, a); }), Errc::null_handle);
  a = args(100);
  a.output = in.view(40);  // inside the input
  EXPECT_EQ(error_of([&] { gl::record_reduce(ctx, a); }), Errc::invalid_argument);
  a = args(100);
  a.input.offset = 2;
  EXPECT_EQ(error_of([&] { gl::record_reduce(ctx, a); }), Errc::misaligned);
  a = args(1025);
  EXPECT_EQ(error_of([&] { gl::record_reduce(ctx, a); }), Errc::buffer_too_small);
  a = args(1000);  // 8 tiles of 128: temp holds their totals
  a.temp.offset = 4088;
  EXPECT_EQ(error_of([&] { gl::record_reduce(ctx, a); }), Errc::buffer_too_small);
  a = args(1000);
  a.temp = in.view(0);
  EXPECT_EQ(error_of([&] { gl::record_reduce(ctx, a); }), Errc::invalid_argument);
  a = args(100);
  a.config.op = Op::bit_or;
  a.config.type = DataType::f32;
  EXPECT_EQ(error_of([&] { gl::record_reduce(ctx, a); }), Errc::invalid_argument);
  a = args(100);
  a.config.workgroup_size = 48;
  EXPECT_EQ(error_of([&] { gl::record_reduce(ctx, a); }), Errc::invalid_argument);
  const std::vector<std::byte> odd(6);
  EXPECT_EQ(error_of([&] { gl::reduce_bytes(ctx, odd, config); }), Errc::invalid_argument);
  if (!ctx.info().gpu_shader_int64)
    EXPECT_EQ(error_of([&] { gl::reduce_temp_requirements(ctx, 10, {DataType::u64}); }), Errc::unsupported);
}

}  // namespace
}  // namespace gpuscan::test
