// The kernels at every subgroup size the device lets a pipeline require (VK_EXT_subgroup_size_control,
// TestHooks::required_subgroup_size), not only the one its driver picks: the single-pass scan (both
// look-backs, tile 0 withheld so every tile takes the fallback), reduce-then-scan, multipass, the
// reduction and both compactions, at sizes around their tiles, against the CPU reference. On a device
// with one size (lavapipe, the H200) this is that size, required.
#include <algorithm>
#include <bit>

#include "scan_check.hpp"

namespace gpuscan::test {
namespace {

class SubgroupSizeTest : public GpuTest {
 protected:
  // The sizes a pipeline may require here, or none where sizes cannot be required.
  static std::vector<uint32_t> sizes() {
    const DeviceInfo& d = shared_context().device_info();
    std::vector<uint32_t> out;
    if (!d.subgroup_size_control) return out;
    for (uint32_t s = std::bit_ceil(std::max(d.min_subgroup_size, 1u)); s <= d.max_subgroup_size; s *= 2) out.push_back(s);
    return out;
  }
  static const Context& context_requiring(uint32_t size, bool withhold_first_tile = false) {
    return cached_context("subgroup-" + std::to_string(size) + (withhold_first_tile ? "-withheld" : ""), [=] {
      TestHooks hooks;
      hooks.required_subgroup_size = size;
      hooks.withhold_first_tile = withhold_first_tile;
      return make_validated_context({}, hooks);
    });
  }
};

TEST_F(SubgroupSizeTest, ScansAtEveryRequiredSize) {
  const auto all = sizes();
  if (all.empty()) GTEST_SKIP() << "this device cannot require subgroup sizes";
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  for (uint32_t size : all) {
    for (bool withheld : {false, true}) {
      const Context& ctx = context_requiring(size, withheld);
      for (Algorithm a : {Algorithm::single_pass, Algorithm::reduce_then_scan, Algorithm::multipass}) {
        if (withheld && a != Algorithm::single_pass) continue;  // the hook only concerns the look-back
        if (a == Algorithm::single_pass && !ctx.single_pass_available()) continue;
        ScanConfig c;
        c.algorithm = a;
        c.vectors_per_lane = 1;
        const uint32_t w = std::max(32u, ctx.device_info().max_subgroup_size);
        c.workgroup_size = w;
        const size_t tile = a == Algorithm::multipass ? 2 * size_t{w} : size_t{w} * 4;
        for (size_t n : {size_t{1}, tile - 1, tile + 1, 7 * tile + 3}) {
          const std::string what = "subgroup " + std::to_string(size) + (withheld ? " (tile 0 withheld) " : " ") +
                                   std::string(to_string(a)) + ", n = " + std::to_string(n) + ", seed " +
                                   std::to_string(seed);
          c.kind = rng() % 2 ? ScanKind::inclusive : ScanKind::exclusive;
          const auto u = random_values<uint32_t>(n, rng);
          const auto ru = record_and_run(ctx, u, c);
          EXPECT_TRUE(ru.guards_intact) << what;
          EXPECT_TRUE(matches_reference(u, ru.output, c.kind)) << "u32 " << what;
          ScanConfig cf = c;
          cf.deterministic = true;  // single-pass: the ordered look-back
          cf.op = Op::max;
          const auto f = random_values<float>(n, rng);
          const auto rf = record_and_run(ctx, f, cf);
          EXPECT_TRUE(matches_reference(f, rf.output, cf.kind, cf.op)) << "f32 max " << what;
          if (ctx.device_info().shader_int64) {
            const auto l = random_values<uint64_t>(n, rng);
            const auto rl = record_and_run(ctx, l, c);
            EXPECT_TRUE(matches_reference(l, rl.output, c.kind)) << "u64 " << what;
          }
        }
      }
    }
  }
}

TEST_F(SubgroupSizeTest, CompactionsAtEveryRequiredSize) {
  const auto all = sizes();
  if (all.empty()) GTEST_SKIP() << "this device cannot require subgroup sizes";
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  for (uint32_t size : all)
    for (bool withheld : {false, true}) {
      const Context& ctx = context_requiring(size, withheld);
      for (CompactAlgorithm a : {CompactAlgorithm::single_pass, CompactAlgorithm::three_pass}) {
        if (withheld && a != CompactAlgorithm::single_pass) continue;
        if (a == CompactAlgorithm::single_pass &&
            !(ctx.device_info().single_pass_capable && ctx.device_info().has_subgroup_ballot()))
          continue;
        CompactConfig c;
        c.algorithm = a;
        for (size_t n : {size_t{1}, size_t{1023}, size_t{4097}, size_t{70001}}) {
          const auto input = random_values<uint32_t>(n, rng);
          const uint32_t threshold = static_cast<uint32_t>(rng());
          std::vector<uint32_t> want;
          std::copy_if(input.begin(), input.end(), std::back_inserter(want), [&](uint32_t v) { return v > threshold; });
          EXPECT_EQ(select_if(ctx, std::span<const uint32_t>(input), Predicate::greater<uint32_t>(threshold), c), want)
              << "subgroup " << size << (withheld ? " (tile 0 withheld) " : " ") << to_string(a) << ", n = " << n
              << ", seed " << seed;
        }
      }
    }
}

TEST_F(SubgroupSizeTest, ReductionsAtEveryRequiredSize) {
  const auto all = sizes();
  if (all.empty()) GTEST_SKIP() << "this device cannot require subgroup sizes";
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  for (uint32_t size : all) {
    const Context& ctx = context_requiring(size);
    for (size_t n : {size_t{1}, size_t{4095}, size_t{100003}}) {
      const auto input = random_values<uint32_t>(n, rng);
      uint32_t want = 0;
      for (uint32_t v : input) want ^= v;
      EXPECT_EQ(reduce(ctx, std::span<const uint32_t>(input), Op::bit_xor), want)
          << "subgroup " << size << ", n = " << n << ", seed " << seed;
    }
  }
}

// Sizes the device does not offer, and a size that is no power of two, are refused when the Context is made.
TEST_F(SubgroupSizeTest, SizesTheDeviceDoesNotOfferAreRefused) {
  const DeviceInfo& d = shared_context().device_info();
  for (uint32_t size : {3u, d.max_subgroup_size * 2, std::max(1u, d.min_subgroup_size / 2)}) {
    if (size >= d.min_subgroup_size && size <= d.max_subgroup_size && std::has_single_bit(size)) continue;
    TestHooks hooks;
    hooks.required_subgroup_size = size;
    try {
      (void)create_context_for_tests({}, hooks);
      ADD_FAILURE() << "subgroup size " << size << " was accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), Errc::unsupported) << e.what();
    }
  }
}

}  // namespace
}  // namespace gpuscan::test
