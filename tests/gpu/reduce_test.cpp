// Device-wide reduction (include/gpuscan/reduce.hpp) against the CPU reference: every type x operator
// through the recording API with small tiles (W = 32, K = 1: B = 128, so sizes up to B^2 + 1 run
// three levels), around the level boundaries, with the result element between poisoned guards; the
// identity for n = 0; refusals; and the convenience call with the defaults on large inputs.
//
// Results are compared with reduces_to (scan_check.hpp).
#include "scan_check.hpp"

namespace gpuscan::test {
namespace {

class ReduceTest : public GpuTest {};

// Reduces `input` (from element `in_offset` of its buffer) through record_reduce into one element
// between guards; temp and output poisoned first.
template <class T>
T record_reduce_and_run(const Context& ctx, const std::vector<T>& input, const ReduceConfig& config,
                        size_t in_offset = 0) {
  const size_t n = input.size();
  constexpr size_t guard = 3;
  HostBuffer<T> in(ctx, std::max<size_t>(1, in_offset + n) * sizeof(T));
  HostBuffer<T> out(ctx, (2 * guard + 1) * sizeof(T));
  const TempRequirements req = reduce_temp_requirements(ctx, n, config);
  HostBuffer<T> temp(ctx, req.size + 64, req.usage);
  if (n) std::memcpy(in.data() + in_offset, input.data(), n * sizeof(T));
  poison(out.data(), (2 * guard + 1) * sizeof(T));
  poison(temp.data(), req.size + 64);
  const std::vector<T> before(out.data(), out.data() + 2 * guard + 1);
  vk::submit_and_wait(ctx, [&](VkCommandBuffer cmd) {
    vk::memory_barrier(ctx, cmd, VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_WRITE_BIT,
                       VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
    // n == 0: no input buffer at all.
    record_reduce(ctx, cmd, {config, n, n ? in.view(in_offset * sizeof(T)) : BufferView{}, out.view(guard * sizeof(T)),
                             temp.view()});
    vk::memory_barrier(ctx, cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                       VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
  });
  for (size_t i = 0; i < 2 * guard + 1; ++i)
    if (i != guard) EXPECT_EQ(std::memcmp(&out.data()[i], &before[i], sizeof(T)), 0) << "guard " << i << " overwritten";
  return out.data()[guard];
}

TEST_F(ReduceTest, EveryTypeAndOperatorAroundLevelBoundaries) {
  check_every_reduction([](const auto& input, const ReduceConfig& config) {
    return record_reduce_and_run(shared_context(), input, config);
  }, [](DataType) { return true; });
}

// Every tile shape the library accepts, and input offsets off vector alignment (the scalar path).
TEST_F(ReduceTest, TileShapesAndOffsets) {
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (uint32_t w = 32; w <= shared_context().device_info().max_workgroup_invocations; w *= 4)
    for (uint32_t k : {1u, 4u, 16u}) {
      const auto input = random_values<int32_t>(size_t{w} * k * 4 * 3 + 5, rng);
      EXPECT_TRUE(reduces_to(input, record_reduce_and_run(shared_context(), input, {DataType::i32, Op::max, w, k}),
                             Op::max))
          << "W = " << w << ", K = " << k;
    }
  for (size_t offset : {1u, 2u, 3u}) {
    const auto input = random_values<uint64_t>(70'001, rng);
    EXPECT_TRUE(reduces_to(input, record_reduce_and_run(shared_context(), input, {DataType::u64, Op::add}, offset),
                           Op::add))
        << "offset " << offset;
  }
}

TEST_F(ReduceTest, ConvenienceCalls) {
  const Context& ctx = shared_context();
  const std::vector<int64_t> small = {5, -3, 2, 7, -1};
  EXPECT_EQ(reduce(ctx, std::span<const int64_t>(small)), 10);
  EXPECT_EQ(reduce(ctx, std::span<const int64_t>(small), Op::min), -3);
  EXPECT_EQ(reduce(ctx, std::span<const int64_t>(small), Op::bit_or), 5 | -3 | 2 | 7 | -1);
  EXPECT_EQ(reduce(ctx, std::span<const float>(), Op::min), std::numeric_limits<float>::infinity());
  EXPECT_EQ(reduce(ctx, std::span<const uint32_t>(), Op::mul), 1u);
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  const auto u = random_values<uint32_t>(3'000'017, rng);
  EXPECT_TRUE(reduces_to(u, reduce(ctx, std::span<const uint32_t>(u)), Op::add));
  const auto d = random_values<double>(1'000'003, rng);
  EXPECT_TRUE(reduces_to(d, reduce(ctx, std::span<const double>(d)), Op::add));
  EXPECT_TRUE(reduces_to(d, reduce(ctx, std::span<const double>(d), Op::max), Op::max));
  // A whole ReduceConfig: its tile shape is taken, its type is T's whatever it says.
  const auto i = random_values<int32_t>(std::uniform_int_distribution<size_t>(1, 200'000)(rng), rng);
  EXPECT_TRUE(reduces_to(i, reduce(ctx, std::span<const int32_t>(i), {.type = DataType::f64, .op = Op::min,
                                                                     .workgroup_size = 64, .vectors_per_lane = 1}),
                         Op::min));
  EXPECT_THROW(reduce(ctx, std::span<const int32_t>(i), {.op = Op::add, .workgroup_size = 100}), Error);
}

TEST_F(ReduceTest, MisuseIsRefused) {
  const Context& ctx = shared_context();
  HostBuffer<uint32_t> data(ctx, 4096);
  const ReduceConfig config;
  auto expect = [&](const ReduceArgs& args, Errc code, const char* fragment) {
    try {
      vk::submit_and_wait(ctx, [&](VkCommandBuffer cmd) { record_reduce(ctx, cmd, args); });
      ADD_FAILURE() << "accepted; expected " << fragment;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), code) << e.what();
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
  };
  expect({config, 100, data.view(), data.view(40), {}}, Errc::invalid_argument, "overlaps the input");
  expect({config, 100, data.view(), {}, {}}, Errc::null_handle, "output buffer is VK_NULL_HANDLE");
  expect({config, 1000, data.view(400), data.view(0), {}}, Errc::buffer_too_small, "input buffer holds 924 elements");
  expect({{DataType::f32, Op::bit_xor}, 10, data.view(), data.view(64), {}}, Errc::invalid_argument,
         "integer types only");
  expect({config, 100'000, data.view(), data.view(64), {}}, Errc::buffer_too_small, "input buffer holds");
}

}  // namespace
}  // namespace gpuscan::test
