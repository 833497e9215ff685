// Scans and reductions through buffer device addresses (Addressing::device_address): the kernels
// that touch the caller's arrays read and write them through 64-bit addresses instead of bindings, so a
// window is no longer limited by maxStorageBufferRange. tests/gpu/window_test.cpp runs its windowed
// tests through both paths; here: one real scan past lavapipe's 128 MiB binding limit through both paths
// and without windows on this one, the tile boundaries with unaligned addresses, and misuse.
#include <algorithm>

#include "gpuscan/reference.hpp"
#include "scan_check.hpp"
#include "vulkan/context_impl.hpp"

namespace gpuscan::test {
namespace {

class DeviceAddressTest : public GpuTest {
 protected:
  void SetUp() override {
    if (!shared_context().device_address_available()) GTEST_SKIP() << "no bufferDeviceAddress on this device";
  }
};

// Past lavapipe's maxStorageBufferRange (128 MiB): 40 M u32 (160 MB), the same input through bindings
// (two windows) and through device addresses (one window: no carry between windows in the plan), for
// every algorithm, and reduced.
TEST_F(DeviceAddressTest, BeyondTheBindingLimitThroughBothPaths) {
  const size_t n = 40'000'000;
  const Context& bound = context_with(Addressing::bindings);
  const Context& addressed = context_with(Addressing::device_address);
  if (bound.device_info().max_storage_buffer_range >= n * 4) GTEST_SKIP() << "one binding holds 160 MB here";
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  const auto input = random_values<uint32_t>(n, rng);
  for (Algorithm a : {Algorithm::multipass, Algorithm::reduce_then_scan, Algorithm::single_pass}) {
    if (a == Algorithm::single_pass && !addressed.single_pass_available()) continue;
    ScanConfig c;
    c.algorithm = a;
    c.kind = a == Algorithm::reduce_then_scan ? ScanKind::inclusive : ScanKind::exclusive;
    SCOPED_TRACE(std::string(to_string(a)) + ", seed " + std::to_string(seed));
    const std::string plan = describe_scan_plan(addressed, n, c);
    EXPECT_NE(plan.find("device addresses"), std::string::npos) << plan;
    EXPECT_EQ(plan.find("carry_update"), std::string::npos) << "one window expected:\n" << plan;
    const auto r = record_and_run<uint32_t>(addressed, input, c, 0, nullptr, std::nullopt, addressable);
    EXPECT_TRUE(r.guards_intact);
    EXPECT_TRUE(matches_reference<uint32_t>(input, r.output, c.kind));
  }
  ScanConfig c;
  c.algorithm = Algorithm::multipass;
  EXPECT_NE(describe_scan_plan(bound, n, c).find("carry_update"), std::string::npos) << "windows expected";
  const auto r = record_and_run<uint32_t>(bound, input, c);
  EXPECT_TRUE(r.guards_intact);
  EXPECT_TRUE(matches_reference<uint32_t>(input, r.output, c.kind)) << "bindings, seed " << seed;
  EXPECT_EQ(reduce<uint32_t>(addressed, input), cpu::reduce<uint32_t>(input, Op::add));
}

// Sizes around the tile and recursion boundaries in one window, 32- and 64-bit, with a carry-in, from an
// input address one element past a vector boundary (the scalar loads) and from an aligned one.
TEST_F(DeviceAddressTest, TileBoundaries) {
  const Context& ctx = context_with(Addressing::device_address);
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  for (Algorithm a : {Algorithm::multipass, Algorithm::reduce_then_scan, Algorithm::single_pass})
    for (ScanKind kind : {ScanKind::exclusive, ScanKind::inclusive}) {
      if (a == Algorithm::single_pass && !ctx.single_pass_available()) continue;
      ScanConfig c;
      c.algorithm = a;
      c.kind = kind;
      c.workgroup_size = 32;
      c.vectors_per_lane = 1;
      const size_t b = a == Algorithm::multipass ? 64 : 128;
      const size_t offset = 1;  // off vector alignment: the scalar loads
      for (size_t n : boundary_sizes(b, rng)) {
        SCOPED_TRACE(std::string(to_string(a)) + " " + std::string(to_string(kind)) + ", n = " + std::to_string(n) +
                     ", seed " + std::to_string(seed));
        const auto u = random_values<uint32_t>(n, rng);
        const uint32_t u0 = static_cast<uint32_t>(rng());
        const auto ru = record_and_run<uint32_t>(ctx, u, c, offset, nullptr, u0, addressable);
        EXPECT_TRUE(ru.guards_intact);
        EXPECT_TRUE(matches_reference<uint32_t>(u, ru.output, kind, Op::add, u0));
        c.op = Op::max;
        const auto i = random_values<int64_t>(n, rng);
        const auto ri = record_and_run<int64_t>(ctx, i, c, offset, nullptr, std::nullopt, addressable);
        EXPECT_TRUE(ri.guards_intact);
        EXPECT_TRUE(matches_reference<int64_t>(i, ri.output, kind, Op::max));
        c.op = Op::add;
      }
    }
}

// `automatic` takes device addresses only where the buffers allow them and bindings would need windows.
TEST_F(DeviceAddressTest, AutomaticFallsBackToBindings) {
  TestHooks hooks;
  hooks.max_binding_bytes = 20000;  // windows of 4992 u32 through bindings; the same cap with addresses
  const Context ctx = make_validated_context({}, hooks);
  EXPECT_EQ(ctx.addressing(), Addressing::automatic);
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  const auto input = random_values<uint32_t>(3 * 4992 + 5, rng);
  ScanConfig c;
  for (VkBufferUsageFlags usage : {VkBufferUsageFlags{VK_BUFFER_USAGE_STORAGE_BUFFER_BIT}, addressable}) {
    const auto r = record_and_run<uint32_t>(ctx, input, c, 0, nullptr, std::nullopt, usage);
    EXPECT_TRUE(r.guards_intact);
    EXPECT_TRUE(matches_reference<uint32_t>(input, r.output, c.kind)) << "usage " << usage << ", seed " << seed;
  }
  EXPECT_NE(describe_scan_plan(ctx, input.size(), c).find("device addresses"), std::string::npos);
  EXPECT_EQ(describe_scan_plan(ctx, 4992, c).find("device addresses"), std::string::npos);
}

// Whether `f` throws a gpuscan::Error with `code`.
template <class F>
::testing::AssertionResult throws(Errc code, F&& f) {
  try {
    f();
  } catch (const Error& e) {
    if (e.code() == code) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "threw another error: " << e.what();
  }
  return ::testing::AssertionFailure() << "did not throw";
}

TEST_F(DeviceAddressTest, Misuse) {
  const Context& ctx = context_with(Addressing::device_address);
  ScanConfig c;
  const size_t n = 1000;
  HostBuffer<uint32_t> plain(ctx, n * 4), in(ctx, n * 4, addressable), out(ctx, n * 4, addressable);
  const TempRequirements req = scan_temp_requirements(ctx, n, c);
  HostBuffer<uint32_t> temp(ctx, req.size, req.usage);
  auto record = [&](Errc code, const BufferView& input, const BufferView& output, const ScanConfig& config) {
    return throws(code, [&] {
      vk::submit_and_wait(ctx, [&](VkCommandBuffer cmd) { record_scan(ctx, cmd, {config, n, input, output, temp.view()}); });
    });
  };
  // Forced device addresses, a buffer without SHADER_DEVICE_ADDRESS usage.
  EXPECT_TRUE(record(Errc::missing_usage, plain.view(), out.view(), c));
  EXPECT_TRUE(record(Errc::missing_usage, in.view(), plain.view(), c));
  EXPECT_TRUE(throws(Errc::missing_usage, [&] {
    ReduceArgs args{{}, n, plain.view(), out.view(), temp.view()};
    vk::submit_and_wait(ctx, [&](VkCommandBuffer cmd) { record_reduce(ctx, cmd, args); });
  }));
  // Custom operators have bindings only.
  ScanConfig custom = c;
  custom.custom_op = CustomOp{"#define T uint\nT identity() { return 0u; }\nT combine(T a, T b) { return a + b; }\n"};
  EXPECT_TRUE(record(Errc::unsupported, in.view(), out.view(), custom));
  // A device without the feature enabled: an adopted one whose application did not say it enabled it.
  AdoptInfo adopt{ctx.instance(), ctx.physical_device(), ctx.device(), ctx.queue(), ctx.queue_family_index()};
  adopt.addressing = Addressing::device_address;
  EXPECT_TRUE(throws(Errc::unsupported, [&] { Context::adopt(adopt); }));
  adopt.addressing = Addressing::automatic;
  EXPECT_FALSE(Context::adopt(adopt).device_address_available());
  adopt.buffer_device_address_enabled = true;
  EXPECT_TRUE(Context::adopt(adopt).device_address_available());
}

}  // namespace
}  // namespace gpuscan::test
