// Scans, reductions and three-pass compactions longer than one storage-buffer binding: they
// run as consecutive windows chained on the GPU (src/core/windows.hpp, core::CompactRequest::window). A context that binds at most a few KiB
// (TestHooks::max_binding_bytes) makes small inputs span many windows, with window
// boundaries inside tiles; one test crosses lavapipe's real 128 MiB maxStorageBufferRange. Every windowed
// test runs twice: with bindings and with device addresses (Addressing), whose windows the same option
// caps (tests/gpu/device_address_test.cpp has the rest of the device-address path).
#include <algorithm>
#include <map>

#include "compact_check.hpp"
#include "gpuscan/reference.hpp"
#include "scan_check.hpp"
#include "vulkan/context_impl.hpp"

namespace gpuscan::test {
namespace {

// Binds (or with device addresses, addresses) at most `bytes` per window.
const Context& windowed_context(uint64_t bytes, Addressing addressing = Addressing::bindings) {
  return cached_context("window " + std::to_string(bytes) + " " + std::string(to_string(addressing)), [&] {
    ContextCreateInfo info;
    info.addressing = addressing;
    TestHooks hooks;
    hooks.max_binding_bytes = bytes;
    return make_validated_context(info, hooks);
  });
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
  return impl_of(ctx).window_elements(element_size(type), ctx.addressing() == Addressing::device_address);
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
  // Marks the whole test skipped (not passed): the device cannot run what it asks for.
  if (c.algorithm == Algorithm::single_pass && !ctx.single_pass_available())
    GTEST_SKIP() << "this context cannot run single-pass scans on " << ctx.device_info().name;
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
  if (c.algorithm == Algorithm::single_pass && !ctx.single_pass_available()) GTEST_SKIP() << "no single-pass scan here";
  const size_t w = window_of(ctx, DataType::u32);
  for (size_t n : window_sizes(w, rng)) {
    const auto input = random_values<uint32_t>(n, rng);
    HostBuffer<uint32_t> buf(ctx, n * 4, usage_for(addressing()));
    std::memcpy(buf.data(), input.data(), n * 4);
    const TempRequirements req = scan_temp_requirements(ctx, n, c);
    HostBuffer<uint32_t> temp(ctx, req.size, req.usage);
    poison(temp.data(), req.size);
    vk::submit_and_wait(ctx, [&](VkCommandBuffer cmd) {
      vk::memory_barrier(ctx, cmd, VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                         VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
      record_scan(ctx, cmd, {c, n, buf.view(), buf.view(), temp.view()});
      vk::memory_barrier(ctx, cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
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

// Sizing temp and describing a plan take its outline (core::PlanExtent): 2^28 u32 in windows of 4992
// elements (53778 windows) cost what two windows do. Each description lists two windows and says how
// many more follow; a scan's or reduction's temp is the first window's scratch and what chains the
// windows, the same as for three windows.
TEST_F(WindowReduceTest, SizingAndDescribingCostTwoWindows) {
  const Context& ctx = windowed_context(small_binding);
  const uint64_t n = uint64_t{1} << 28;
  const uint64_t w = window_of(ctx, DataType::u32);
  const uint64_t windows = (n + w - 1) / w;
  const std::string more = "  ... " + std::to_string(windows - 2) + " more window(s)";
  for (const Algorithm algorithm : {Algorithm::multipass, Algorithm::reduce_then_scan, Algorithm::single_pass}) {
    if (algorithm == Algorithm::single_pass && !ctx.single_pass_available()) continue;
    ScanConfig c;
    c.algorithm = algorithm;
    const std::string plan = describe_scan_plan(ctx, n, c);
    EXPECT_NE(plan.find(more), std::string::npos) << plan;
    EXPECT_EQ(scan_temp_requirements(ctx, n, c).size, scan_temp_requirements(ctx, 3 * w, c).size)
        << to_string(algorithm);
  }
  EXPECT_NE(describe_reduce_plan(ctx, n, ReduceConfig{}).find(more), std::string::npos);
  CompactConfig compact;
  compact.workgroup_size = 32;
  compact.vectors_per_lane = 1;  // tiles of 128: windows of 4992, as the scans'
  EXPECT_NE(describe_compact_plan(ctx, n, compact).find(more), std::string::npos);
  EXPECT_GT(compact_temp_requirements(ctx, n, compact).size, n / 128 * 4) << "a count per tile";
  const uint64_t segmented_windows = (n + 4095) / 4096;  // one tile of 4096 per window
  const std::string segmented = describe_segmented_scan_plan(ctx, n, ScanConfig{});
  EXPECT_NE(segmented.find("  ... " + std::to_string(segmented_windows - 2) + " more window(s)"), std::string::npos)
      << segmented.substr(0, 2000);
  EXPECT_EQ(segmented_scan_temp_requirements(ctx, n, ScanConfig{}).size,
            segmented_scan_temp_requirements(ctx, 3 * 4096, ScanConfig{}).size);
}

// Compaction past one binding: windows of whole tiles. With 20000-byte bindings, W = 32, K = 1 (tiles
// of 128) gives windows of 4992 elements (39 tiles), the default W = 256, K = 4 (tiles of 4096) windows
// of one tile; the kept elements of a window land across output-window boundaries anywhere inside a
// tile's output range. Every function, both paths, densities from none to all kept.
class CompactWindowTest : public CompactChecks<Context, GpuTest> {
 protected:
  CompactWindowTest() : CompactChecks(windowed_context(small_binding)) {}
  void SetUp() override {
    if (GetParam().path == CompactPath::ballot && !ctx.device_info().has_subgroup_ballot())
      GTEST_SKIP() << "no subgroup ballots";
  }
  template <class T>
  void sweep(const CompactConfig& cfg, size_t w) {
    for (size_t n : window_sizes(w, rng))
      for (double d : densities) {
        check_select_if<T>(Predicate::greater<T>(T(0)), n, d, cfg);
        check_select_flagged<T>(n, d, cfg);
        check_partition_if<T>(Predicate::bits_set(2), n, d, cfg);
        check_partition_flagged<T>(n, d, cfg);
      }
  }
};

TEST_P(CompactWindowTest, EveryFunctionAcrossWindows) {
  sweep<uint32_t>(config(), 4992);
  sweep<float>(config(0, 0), 4096);
}

// 8-byte elements: a 20000-byte binding holds 2500, windows of 19 tiles of 128 (2432 elements); the
// flags' windows (u32) hold the same elements in half the bytes.
TEST_P(CompactWindowTest, EightByteElementsAcrossWindows) {
  const DeviceInfo& info = ctx.device_info();
  if (!info.shader_int64 || !info.shader_float64) GTEST_SKIP() << "no shaderInt64 / shaderFloat64";
  sweep<int64_t>(config(), 2432);
  sweep<double>(config(), 2432);
}

// The single-pass plan fits one binding: automatic falls back to three-pass past it; asking for it is
// Errc::too_large; so is a count in GPU memory whose bound spans windows.
TEST_P(CompactWindowTest, SinglePassAndIndirectCountsRefused) {
  const size_t n = 3 * 4992 + 7;
  std::vector<uint32_t> v(n, 1);
  CompactConfig c = config();
  c.algorithm = CompactAlgorithm::automatic;
  const std::string plan = describe_compact_plan(ctx, n, c);
  EXPECT_NE(plan.find("three-pass"), std::string::npos);
  size_t scatters = 0;
  for (size_t at = plan.find("compact_scatter"); at != std::string::npos; at = plan.find("compact_scatter", at + 1))
    ++scatters;
  // 4 input windows, of which the description lists the first two: (k, j) pairs with j <= k < 2.
  EXPECT_EQ(scatters, 3u) << plan;
  EXPECT_NE(plan.find("  ... 2 more window(s)"), std::string::npos) << plan;
  EXPECT_EQ(select_if(ctx, std::span<const uint32_t>(v), Predicate::nonzero(), c).size(), n);
  c.algorithm = CompactAlgorithm::single_pass;
  if (c.path == CompactPath::ballot && ctx.single_pass_available()) {
    try {
      select_if(ctx, std::span<const uint32_t>(v), Predicate::nonzero(), c);
      ADD_FAILURE() << "a windowed single-pass compaction did not throw";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), Errc::too_large) << e.what();
    }
  }
  c.algorithm = CompactAlgorithm::three_pass;
  try {
    compact_temp_requirements(ctx, n, c, true);
    ADD_FAILURE() << "a windowed indirect compaction did not throw";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::too_large) << e.what();
    EXPECT_NE(std::string(e.what()).find("one binding"), std::string::npos) << e.what();
  }
}

// The recording API across windows: output past the kept elements untouched, count at its offset.
// run_start compares each element with the one before, which a window's binding does not hold: inputs
// that fit one binding run, longer ones are Errc::too_large.
TEST_P(CompactWindowTest, RunStartsFitOneBinding) {
  check_run_starts<uint32_t>(4992, 7, config());
  const std::vector<uint32_t> v = random_values<uint32_t>(3 * 4992 + 7, rng);
  try {
    unique(ctx, std::span<const uint32_t>(v), config());
    ADD_FAILURE() << "a windowed run_start selection did not throw";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::too_large) << e.what();
    EXPECT_NE(std::string(e.what()).find("one storage-buffer binding"), std::string::npos) << e.what();
  }
}

TEST_P(CompactWindowTest, RecordedSelectionLeavesTheTailAlone) {
  for (size_t n : {size_t{4992 * 2 + 3}, size_t{4992 * 5}}) {
    const CompactConfig cfg = config();
    const std::vector<uint32_t> values = random_values<uint32_t>(n, rng);
    HostBuffer<uint32_t> in(ctx, n * 4), out(ctx, (n + 4) * 4), count(ctx, 16);
    const TempRequirements req = compact_temp_requirements(ctx, n, cfg);
    HostBuffer<uint32_t> temp(ctx, req.size, req.usage);
    std::copy(values.begin(), values.end(), in.data());
    poison(out.data(), (n + 4) * 4);
    poison(count.data(), 16);
    const Predicate odd = Predicate::bits_set(1);
    vk::submit_and_wait(ctx, [&](VkCommandBuffer cmd) {
      record_select_if(ctx, cmd, {cfg, n, in.view(), {}, odd, out.view(16), count.view(4), temp.view()});
      vk::memory_barrier(ctx, cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                         VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
    });
    std::vector<uint32_t> want;
    std::copy_if(values.begin(), values.end(), std::back_inserter(want), odd);
    EXPECT_EQ(count.data()[1], want.size()) << "n = " << n << ", seed " << seed;
    EXPECT_EQ(count.data()[0], 0xA5A5A5A5u);
    EXPECT_EQ(count.data()[2], 0xA5A5A5A5u);
    expect_same(std::vector<uint32_t>(out.data() + 4, out.data() + 4 + want.size()), want, "recorded selection");
    size_t touched = 0;
    for (size_t i = 0; i < n + 4; ++i) touched += (i < 4 || i >= 4 + want.size()) && out.data()[i] != 0xA5A5A5A5u;
    EXPECT_EQ(touched, 0u) << "n = " << n;
  }
}

// Past lavapipe's real maxStorageBufferRange (128 MiB): 40 M u32 (160 MB), a selection and a partition
// by flags through the convenience calls, which run the three-pass plan in two windows.
TEST_P(CompactWindowTest, BeyondTheDevicesBindingLimit) {
  const Context& real = shared_context();
  const size_t n = 40'000'000;
  if (real.device_info().max_storage_buffer_range >= n * 4) GTEST_SKIP() << "one binding holds 160 MB here";
  const std::vector<uint32_t> values = random_values<uint32_t>(n, rng);
  CompactConfig cfg = config(0, 0);
  cfg.algorithm = CompactAlgorithm::automatic;
  const Predicate p = Predicate::less<uint32_t>(0x60000000u);
  std::vector<uint32_t> want;
  std::copy_if(values.begin(), values.end(), std::back_inserter(want), p);
  expect_same(select_if(real, std::span<const uint32_t>(values), p, cfg), want, "select_if of 40 M, seed " +
                                                                                  std::to_string(seed));
  if (GetParam().path == CompactPath::shared_memory) return;  // one partition is enough for the time it takes
  std::vector<uint32_t> flags(n);
  for (auto& f : flags) f = static_cast<uint32_t>(rng() % 3 == 0);
  std::vector<uint32_t> parted, rejected;
  for (size_t i = 0; i < n; ++i) (flags[i] ? parted : rejected).push_back(values[i]);
  const size_t kept = parted.size();
  parted.insert(parted.end(), rejected.begin(), rejected.end());
  const PartitionResult<uint32_t> got =
      partition_flagged(real, std::span<const uint32_t>(values), std::span<const uint32_t>(flags), cfg);
  EXPECT_EQ(got.kept, kept);
  expect_same(got.values, parted, "partition_flagged of 40 M, seed " + std::to_string(seed));
}

INSTANTIATE_TEST_SUITE_P(All, CompactWindowTest,
                         ::testing::Values(Param{DataType::u32, CompactPath::ballot},
                                           Param{DataType::u32, CompactPath::shared_memory}),
                         param_name);

}  // namespace
}  // namespace gpuscan::test
