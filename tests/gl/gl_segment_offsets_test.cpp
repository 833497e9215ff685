// Segmented reductions by offsets on OpenGL (gl::record_segmented_reduce, gl::segmented_reduce*) against
// the CPU reference (gpu/segmented_offsets_check.hpp, shared with the Vulkan suite): random draws of
// type, operator, tile shape, size (0, 1, around tile boundaries, several tiles) and offsets (segments
// of length 1, empty ones -- many at one position, at tile boundaries, at both ends --, one segment,
// huge ones, segments ending on tile boundaries, values before offsets[0] and after offsets[S]), the
// input at unaligned element offsets, output and temp poisoned and the output guarded; the worked
// example; S = 0 and n = 0; the refusals.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "gl_test_support.hpp"
#include "segmented_offsets_check.hpp"

namespace gpuscan::test {
namespace {

constexpr size_t guard = 5;

struct Draw {
  ReduceConfig config;
  size_t n = 0;
  size_t in_at = 0;  // element offset of the input in its buffer
  std::vector<uint32_t> offsets;
  std::string what;
};

// Runs `d` through the record call on poisoned, guarded buffers; checks the guards and returns the S results.
template <class T>
std::vector<T> record(const Draw& d, const std::vector<T>& values) {
  const gl::Context& ctx = gl_context();
  const size_t segments = d.offsets.size() - 1;
  std::vector<T> staged(d.in_at + d.n + 1);
  std::copy(values.begin(), values.end(), staged.begin() + d.in_at);
  const auto poisoned = poison_bytes((segments + 2 * guard) * sizeof(T));
  const gl::TempRequirements req = gl::segmented_reduce_temp_requirements(ctx, d.n, d.config);
  const auto poisoned_temp = poison_bytes(req.size + req.alignment);
  GlBuffer in(staged.size() * sizeof(T), staged.data()), offs(d.offsets.size() * 4, d.offsets.data()),
      out(poisoned.size(), poisoned.data()), temp(poisoned_temp.size(), poisoned_temp.data());
  gl::record_segmented_reduce(ctx, {d.config, d.n, segments, in.view(d.in_at * sizeof(T)), offs.view(),
                                    out.view(guard * sizeof(T)), temp.view(req.alignment)});
  buffer_update_barrier();
  const auto all = out.read<T>(0, segments + 2 * guard);
  EXPECT_EQ(std::memcmp(all.data(), poisoned.data(), guard * sizeof(T)), 0) << "written before the output, " << d.what;
  EXPECT_EQ(std::memcmp(all.data() + guard + segments, poisoned.data(), guard * sizeof(T)), 0)
      << "written after the output, " << d.what;
  return std::vector<T>(all.begin() + guard, all.begin() + guard + segments);
}

template <class T>
void check_draw(std::mt19937_64& rng, uint64_t start) {
  Draw d;
  d.config.type = data_type_of<T>::value;
  const Op ops[] = {Op::add, Op::min, Op::max, Op::mul, Op::bit_xor, Op::bit_and};
  do d.config.op = ops[rng() % std::size(ops)];
  while (!op_supports(d.config.op, d.config.type));
  const uint32_t shapes[][2] = {{32, 1}, {64, 2}, {0, 0}};  // the last: W = 256, K = 1 (the default here)
  const auto& shape = shapes[rng() % std::size(shapes)];
  d.config.workgroup_size = shape[0];
  d.config.vectors_per_lane = shape[1];
  const size_t tile = shape[0] ? size_t{shape[0]} * shape[1] * 4 : 1024;
  const size_t sizes[] = {0, 1, 2, tile - 1, tile, tile + 1, 3 * tile, 5 * tile + 7, 1 + rng() % 30000};
  d.n = sizes[rng() % std::size(sizes)];
  d.in_at = rng() % 4;
  const auto values = random_op_values<T>(d.n, d.config.op, rng);
  const uint32_t n32 = static_cast<uint32_t>(d.n);
  const bool margins = d.n > 2 && rng() % 3 == 0;
  const uint32_t first = margins ? static_cast<uint32_t>(1 + rng() % (d.n / 2)) : 0;
  const uint32_t last = margins ? static_cast<uint32_t>(d.n - rng() % (d.n - first)) : n32;
  const Lengths kinds[] = {Lengths::ones, Lengths::mean16, Lengths::huge, Lengths::empties, Lengths::aligned};
  const uint32_t shape_pick = rng() % 7;
  if (shape_pick < 5) d.offsets = make_offsets(first, last, kinds[shape_pick], static_cast<uint32_t>(tile), rng);
  else if (shape_pick == 5) d.offsets = {first, last};  // one segment
  else d.offsets = {first};                            // no segment
  d.what = std::string(to_string(d.config.type)) + " " + std::string(to_string(d.config.op)) + ", n = " +
           std::to_string(d.n) + ", S = " + std::to_string(d.offsets.size() - 1) + ", values [" +
           std::to_string(first) + ", " + std::to_string(last) + "), tile " + std::to_string(tile) +
           ", input at element " + std::to_string(d.in_at) + ", start value " + std::to_string(start);
  SCOPED_TRACE(d.what);
  EXPECT_TRUE(matches(values, d.offsets, record<T>(d, values), d.config.op));
}

class GlSegmentOffsetsTest : public GlTest {
 protected:
  void SetUp() override {
    if (!gl_context().info().gpu_shader_int64) GTEST_SKIP() << "no GL_ARB_gpu_shader_int64 (u64, i64)";
  }
};

TEST_F(GlSegmentOffsetsTest, RandomDrawsMatchTheReference) {
  const uint64_t start = fresh_seed();  // drawn fresh each run; GPUSCAN_SEED replays one
  std::mt19937_64 rng(start);
  for (int draw = 0; draw < 30; ++draw) {
    switch (draw % 6) {
      case 0: check_draw<uint32_t>(rng, start); break;
      case 1: check_draw<int32_t>(rng, start); break;
      case 2: check_draw<float>(rng, start); break;
      case 3: check_draw<uint64_t>(rng, start); break;
      case 4: check_draw<int64_t>(rng, start); break;
      default: check_draw<double>(rng, start); break;
    }
  }
}

// The example of gl.hpp, through the convenience call; NaN in min and max as on the host.
TEST_F(GlSegmentOffsetsTest, WorkedExampleAndConvenience) {
  const std::vector<uint32_t> v = {3, 1, 7, 0, 4, 1, 6, 3}, offsets = {0, 3, 3, 5, 8};
  EXPECT_EQ(gl::segmented_reduce(gl_context(), std::span<const uint32_t>(v), std::span<const uint32_t>(offsets)),
            (std::vector<uint32_t>{11, 0, 4, 10}));
  EXPECT_EQ(gl::segmented_reduce(gl_context(), std::span<const uint32_t>(v), std::span<const uint32_t>(offsets),
                                 {.op = Op::min, .workgroup_size = 32, .vectors_per_lane = 1}),
            (std::vector<uint32_t>{1, UINT32_MAX, 0, 1}));
  EXPECT_EQ(gl::segmented_reduce(gl_context(), std::span<const uint32_t>(v), std::span<const uint32_t>(offsets), Op::max),
            (std::vector<uint32_t>{7, 0, 4, 6}));
  const std::vector<double> d = {1.0, std::numeric_limits<double>::quiet_NaN(), -0.0, 2.0};
  const std::vector<uint32_t> halves = {0, 2, 4};
  const auto mins = gl::segmented_reduce(gl_context(), std::span<const double>(d), std::span<const uint32_t>(halves), Op::min);
  ASSERT_EQ(mins.size(), 2u);
  EXPECT_TRUE(std::isnan(mins[0]));
  EXPECT_EQ(mins[1], -0.0);
  EXPECT_TRUE(std::signbit(mins[1]));
}

// No values (every segment gets the identity) and no segments (nothing dispatched, nothing returned).
TEST_F(GlSegmentOffsetsTest, NoValuesOrNoSegments) {
  const std::vector<int64_t> none;
  const std::vector<uint32_t> empties = {0, 0, 0};
  EXPECT_EQ(gl::segmented_reduce(gl_context(), std::span<const int64_t>(none), std::span<const uint32_t>(empties), Op::min),
            (std::vector<int64_t>{std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::max()}));
  const std::vector<int64_t> some = {1, 2, 3};
  const std::vector<uint32_t> zero = {2};
  EXPECT_TRUE(gl::segmented_reduce(gl_context(), std::span<const int64_t>(some), std::span<const uint32_t>(zero)).empty());
  EXPECT_EQ(gl::segmented_reduce_temp_requirements(gl_context(), 0, {DataType::i64}).size, 0u);
}

// What the GL backend refuses, with the Vulkan backend's errors: host offsets that decrease or pass the
// values, short buffers, overlaps, and u64 / i64 without GL_ARB_gpu_shader_int64, naming it.
TEST_F(GlTest, SegmentedReduceMisuse) {
  const gl::Context& ctx = gl_context();
  const std::vector<uint32_t> v = {3, 1, 7, 0}, decreasing = {0, 3, 2}, past = {0, 5}, empty;
  auto reduce_with = [&](const std::vector<uint32_t>& o) {
    return error_of([&] { gl::segmented_reduce(ctx, std::span<const uint32_t>(v), std::span<const uint32_t>(o)); });
  };
  EXPECT_EQ(reduce_with(decreasing), Errc::invalid_argument);
  EXPECT_EQ(reduce_with(past), Errc::invalid_argument);
  EXPECT_EQ(reduce_with(empty), Errc::invalid_argument);
  GlBuffer in{4096}, offs{64}, out{4096}, temp{65536};
  const ReduceConfig c{DataType::u32};
  const gl::SegmentedReduceArgs ok{c, 100, 4, in.view(), offs.view(), out.view(), temp.view()};
  gl::SegmentedReduceArgs a = ok;
  a.segments = 16;  // 17 offsets do not fit 64 bytes
  EXPECT_EQ(error_of([&] { gl::record_segmented_reduce(ctx, a); }), Errc::buffer_too_small);
  a = ok;
  a.output = in.view(396);  // overlaps the input's last element
  EXPECT_EQ(error_of([&] { gl::record_segmented_reduce(ctx, a); }), Errc::invalid_argument);
  a = ok;
  a.temp = offs.view();
  EXPECT_EQ(error_of([&] { gl::record_segmented_reduce(ctx, a); }), Errc::buffer_too_small);
  EXPECT_TRUE(refused_without_int64([&] { gl::segmented_reduce_temp_requirements(ctx, 10, {DataType::u64}); }));
}

}  // namespace
}  // namespace gpuscan::test
