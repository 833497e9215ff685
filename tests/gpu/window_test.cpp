// Scans and reductions longer than one storage-buffer binding (issue 6): they run as consecutive
// windows chained on the GPU (src/core/windows.hpp). A context that binds at most a few KiB
// (ContextCreateInfo::debug_max_binding_bytes) makes small inputs span many windows, with window
// boundaries inside tiles; one test crosses lavapipe's real 128 MiB maxStorageBufferRange. Every windowed
// test runs twice: with bindings and with device addresses (Addressing), whose windows the same option
// caps (tests/gpu/device_address_test.cpp has the rest of the device-address path).
#include <algorithm>
#include <map>

#include "cpu/reference.hpp"
#include "scan_check.hpp"
#include "vulkan/context_impl.hpp"

namespace gpuscan::test {
namespace {

// Binds (or with device addresses, addresses) at most `bytes` per window.
const Context& windowed_context(uint64_t bytes, Addressing addressing = Addressing::bindings) {
  static std::map<std::pair<uint64_t, Addressing>, Context> contexts;
  static std::mutex mutex;
  std::lock_guard lock(mutex);
  auto it = contexts.find({bytes, addressing});
  if (it == contexts.end()) {
    ContextCreateInfo info;
    info.debug_max_binding_bytes = bytes;
    info.addressing = addressing;
    it = contexts.emplace(std::pair{bytes, addressing}, make_validated_context(info)).first;
  }
  return it->second;
}

// The usage the caller's buffers need for `addressing`.
VkBufferUsageFlags usage_for(Addressing addressing) {
  return VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
         (addressing == Addressing::device_address ? VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT : 0u);
}

// 20000 bytes: windows of 4992 4-byte elements (2496 8-byte ones), not a multiple of any tile size, so
// window boundaries fall inside the tiles a one-window scan would use.
constexpr uint64_t small_binding = 20000;

uint64_t window_of(const Context& ctx, DataType type) {
  return ctx.impl().window_elements(element_size(type), ctx.addressing() == Addressing::device_address);
}

class WindowTest : public GpuTest, public ::testing::WithParamInterface<std::tuple<AlgorithmKind, Addressing>> {
 protected:
  ScanConfig param_config() const {
    ScanConfig c;
    c.algorithm = std::get<0>(GetParam()).algorithm;
    c.kind = std::get<0>(GetParam()).kind;
    c.deterministic = false;  // f32 on the single-pass scan too
    return c;
  }
  Addressing addressing() const { return std::get<1>(GetParam()); }
  const Context& context() const { return windowed_context(small_binding, addressing()); }
};

// Sizes around the window boundaries, up to several windows.
std::vector<size_t> window_sizes(size_t w, std::mt19937_64& rng) {
  std::vector<size_t> s = {w - 1, w, w + 1, 2 * w, 3 * w + 5};
  s.push_back(std::uniform_int_distribution<size_t>(w + 2, 6 * w)(rng));
  return s;
}

template <class T>
void check_windowed(const Context& ctx, ScanConfig c, size_t n, std::mt19937_64& rng, uint64_t seed, bool carry) {
  const VkBufferUsageFlags usage = usage_for(ctx.addressing());
  c.type = data_type_of<T>::value;
  if (c.algorithm == Algorithm::single_pass && !ctx.single_pass_available()) return;
  const auto input = random_op_values<T>(n, c.op, rng);
  std::optional<T> initial;
  if (carry) initial = random_op_values<T>(1, c.op, rng)[0];
  SCOPED_TRACE(std::string(to_string(c.type)) + " " + std::string(to_string(c.op)) + " " +
               std::string(to_string(c.kind)) + " " + std::string(to_string(c.algorithm)) + ", n = " +
               std::to_string(n) + (carry ? ", carry-in" : "") + ", seed " + std::to_string(seed));
  const auto r = record_and_run<T>(ctx, input, c, 0, nullptr, initial, usage);
  EXPECT_TRUE(r.guards_intact);
  EXPECT_TRUE(matches_reference<T>(input, r.output, c.kind, c.op, initial));
}

TEST_P(WindowTest, ScansSpanningManyWindows) {
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  const Context& ctx = context();
  ScanConfig c = param_config();
  struct TypeOp { DataType type; Op op; bool carry; };
  const TypeOp cases[] = {{DataType::u32, Op::add, false}, {DataType::u32, Op::add, true},
                          {DataType::i32, Op::max, true},  {DataType::f32, Op::min, false},
                          {DataType::u64, Op::add, true},  {DataType::i64, Op::mul, false},
                          {DataType::f64, Op::mul, true}};
  for (const TypeOp& t : cases) {
    c.op = t.op;
    c.type = t.type;
    visit_type(t.type, [&](auto tag) {
      using T = decltype(tag);
      for (size_t n : window_sizes(window_of(ctx, t.type), rng)) check_windowed<T>(ctx, c, n, rng, seed, t.carry);
    });
  }
}

// In place (output == input) across windows: an exclusive scan must save each window's last input
// before the window overwrites it.
TEST_P(WindowTest, InPlace) {
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  const Context& ctx = context();
  const ScanConfig c = param_config();
  if (c.algorithm == Algorithm::single_pass) GTEST_SKIP() << "the single-pass scan does not run in place";
  const size_t w = window_of(ctx, DataType::u32);
  for (size_t n : window_sizes(w, rng)) {
    const auto input = random_values<uint32_t>(n, rng);
    HostBuffer<uint32_t> buf(ctx, n * 4, usage_for(addressing()));
    std::memcpy(buf.data(), input.data(), n * 4);
    const TempRequirements req = scan_temp_requirements(ctx, n, c, true);
    HostBuffer<uint32_t> temp(ctx, req.size, req.usage);
    poison(temp.data(), req.size);
    vk::submit_and_wait(ctx, [&](VkCommandBuffer cmd) {
      vk::memory_barrier(cmd, VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                         VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
      record_scan(ctx, cmd, {c, n, buf.view(), buf.view(), temp.view()});
      vk::memory_barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                         VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
    });
    const std::vector<uint32_t> got(buf.data(), buf.data() + n);
    EXPECT_TRUE(matches_reference<uint32_t>(input, got, c.kind)) << "n = " << n << ", seed " << seed;
  }
}

std::string window_case_name(const ::testing::TestParamInfo<std::tuple<AlgorithmKind, Addressing>>& info) {
  return algorithm_kind_name({std::get<0>(info.param), info.index}) + "_" + std::string(to_string(std::get<1>(info.param)));
}

INSTANTIATE_TEST_SUITE_P(, WindowTest,
                         ::testing::Combine(every_algorithm_and_kind(),
                                            ::testing::Values(Addressing::bindings, Addressing::device_address)),
                         window_case_name);

class WindowReduceTest : public GpuTest {};

// Reductions over many windows: each window's total, then the totals' reduction (the convenience call's
// buffers can be reached through device addresses whenever the context can).
TEST_F(WindowReduceTest, EveryWindowCounts) {
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  for (Addressing addressing : {Addressing::bindings, Addressing::device_address}) {
    const Context& ctx = windowed_context(small_binding, addressing);
    const size_t w = window_of(ctx, DataType::u32);
    for (size_t n : window_sizes(w, rng)) {
      const auto u = random_values<uint32_t>(n, rng);
      EXPECT_EQ(reduce<uint32_t>(ctx, u), cpu::reduce<uint32_t>(u, Op::add))
          << to_string(addressing) << ", n = " << n << ", seed " << seed;
      const auto i = random_values<int64_t>(n, rng);
      EXPECT_EQ(reduce<int64_t>(ctx, i, Op::max), *std::max_element(i.begin(), i.end()))
          << to_string(addressing) << ", n = " << n;
    }
  }
}

// Past lavapipe's real maxStorageBufferRange (128 MiB): 40 M u32 (160 MB) through the convenience call,
// which picks reduce-then-scan for this size, and the recording API with the multipass scan.
TEST_F(WindowReduceTest, BeyondTheDevicesBindingLimit) {
  const Context& ctx = shared_context();
  const size_t n = 40'000'000;
  if (ctx.device_info().max_storage_buffer_range >= n * 4) GTEST_SKIP() << "one binding holds 160 MB here";
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  const auto input = random_values<uint32_t>(n, rng);
  const auto got = scan<uint32_t>(ctx, input);
  EXPECT_TRUE(matches_reference<uint32_t>(input, got, ScanKind::exclusive)) << "seed " << seed;
  ScanConfig c;
  c.algorithm = Algorithm::multipass;
  c.kind = ScanKind::inclusive;
  const auto r = record_and_run<uint32_t>(ctx, input, c);
  EXPECT_TRUE(r.guards_intact);
  EXPECT_TRUE(matches_reference<uint32_t>(input, r.output, ScanKind::inclusive)) << "seed " << seed;
  EXPECT_EQ(reduce<uint32_t>(ctx, input), cpu::reduce<uint32_t>(input, Op::add));
}

}  // namespace
}  // namespace gpuscan::test
