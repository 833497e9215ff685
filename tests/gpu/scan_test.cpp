// Differential tests of the multi-pass scan against the CPU reference: both workgroup algorithms,
// exclusive and inclusive, u32/i32/f32, sizes around every tile and recursion boundary.
#include "core/tuning.hpp"
#include "scan_check.hpp"

namespace gpuscan::test {
namespace {

class ScanTest : public GpuTest, public ScanCaseParams {
 protected:
  template <class T>
  void run_sizes(ScanConfig c, const std::vector<size_t>& sizes, uint64_t seed) {
    check_sizes<T>(c, sizes, seed, [](const std::vector<T>& input, const ScanConfig& config) {
      return record_and_run(shared_context(), input, config);
    });
  }
};

// Small tiles so that B^3 + 1 stays small: multipass W = 32 gives B = 64 (262145 elements, four
// levels); the tile kernels with W = 32 and one vector per lane give B = 128 (2097153 elements).
TEST_P(ScanTest, BoundarySizesSmallTiles) {
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  const auto sizes = boundary_sizes(tile(32, 1), rng);
  run_sizes<uint32_t>(config(32, 1), sizes, seed);
  run_sizes<int32_t>(config(32, 1), sizes, seed + 1);
  run_sizes<float>(config(32, 1), sizes, seed + 2);
}

// Every valid workgroup size (and for tile kernels every vector count), around its own tile.
TEST_P(ScanTest, EveryTileShape) {
  const uint64_t seed = fresh_seed();
  const bool tiles = GetParam().algorithm != Algorithm::multipass;
  for (uint32_t w = 32; w <= shared_context().device_info().max_workgroup_invocations; w *= 2) {
    const size_t b = tile(w, 4);
    run_sizes<uint32_t>(config(w, 4), {1, b - 1, b, b + 1, 5 * b + 7, (tiles ? 40 : b * 3 / 2) * b + 11}, seed + w);
  }
  if (tiles)
    for (uint32_t k : {1u, 2u, 8u, 16u}) run_sizes<int32_t>(config(64, k), {tile(64, k) * 9 + 3}, seed + k);
  run_sizes<float>(config(1024, 4), {tile(1024, 4) - 1, tile(1024, 4) + 1, 300001}, seed);
}

// The default configuration on a few million elements, as users will call it.
TEST_P(ScanTest, DefaultConfigurationLarge) {
  const uint64_t seed = fresh_seed();
  run_sizes<uint32_t>(config(0, 0), {3'000'017}, seed);
  run_sizes<float>(config(0, 0), {1'000'003}, seed + 1);
}

INSTANTIATE_TEST_SUITE_P(
    , ScanTest,
    ::testing::Values(Case{Algorithm::multipass, WorkgroupAlgorithm::blelloch, ScanKind::exclusive},
                      Case{Algorithm::multipass, WorkgroupAlgorithm::blelloch, ScanKind::inclusive},
                      Case{Algorithm::multipass, WorkgroupAlgorithm::subgroup, ScanKind::exclusive},
                      Case{Algorithm::multipass, WorkgroupAlgorithm::subgroup, ScanKind::inclusive},
                      Case{Algorithm::reduce_then_scan, WorkgroupAlgorithm::automatic, ScanKind::exclusive},
                      Case{Algorithm::reduce_then_scan, WorkgroupAlgorithm::automatic, ScanKind::inclusive},
                      Case{Algorithm::single_pass, WorkgroupAlgorithm::automatic, ScanKind::exclusive},
                      Case{Algorithm::single_pass, WorkgroupAlgorithm::automatic, ScanKind::inclusive},
                      Case{Algorithm::single_pass, WorkgroupAlgorithm::automatic, ScanKind::exclusive, 1},
                      Case{Algorithm::single_pass, WorkgroupAlgorithm::automatic, ScanKind::inclusive, 1}),
    case_name);

class ScanLayoutTest : public GpuTest {};

// Offsets that are multiples of the element size but not of minStorageBufferOffsetAlignment.
TEST_F(ScanLayoutTest, UnalignedOffsets) {
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (size_t offset : {1u, 3u, 5u, 17u}) {
    const auto input = random_values<uint32_t>(10'000, rng);
    ScanConfig config;
    config.workgroup_size = 32;
    const auto r = record_and_run(shared_context(), input, config, offset);
    EXPECT_TRUE(r.guards_intact);
    EXPECT_TRUE(matches_reference(input, r.output, config.kind)) << "input offset " << offset;
  }
}

// In place: output is exactly the input range.
TEST_F(ScanLayoutTest, InPlace) {
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  const Context& ctx = shared_context();
  for (size_t n : {1u, 64u, 65u, 262145u}) {
    const auto input = random_values<int32_t>(n, rng);
    ScanConfig config;
    config.type = DataType::i32;
    config.kind = ScanKind::inclusive;
    config.workgroup_size = 32;
    EXPECT_TRUE(matches_reference(input, scanned_in_place(ctx, config, input), config.kind))
        << "n = " << n << ", seed " << seed;
  }
}

// Runs `body(ctx, rng, late)` on the shared context and on one with TestHooks::late_fallback
// (late = true), where every look-back recomputes its already-published nearest predecessor from its input.
template <class Body>
void on_both_single_pass_contexts(Body&& body) {
  if (!shared_context().single_pass_available()) GTEST_SKIP() << "no single-pass scan here";
  TestHooks hooks;
  hooks.late_fallback = true;
  const Context late = make_validated_context({}, hooks);
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  body(shared_context(), rng, false);
  body(late, rng, true);
}

// The single-pass scan in place: a waiting workgroup's fallback reads a predecessor's input, which the
// predecessor overwrites once it has published; the fallback must notice and use the published state.
// Small tiles (W = 32, K = 1) give many tiles and, with a spin limit of 1, fallbacks at nearly every
// wait; 32- and 64-bit states (the latter published in two words). Also with
// TestHooks::late_fallback, where every tile computes its nearest predecessor's total
// from its input after that predecessor has published (and so has most likely overwritten it).
TEST_F(ScanLayoutTest, SinglePassInPlace) {
  on_both_single_pass_contexts([](const Context& ctx, std::mt19937_64& rng, bool late) {
    auto run = [&](auto tag, Op op, size_t n, uint32_t spin_limit, ScanKind kind) {
      using T = decltype(tag);
      ScanConfig config;
      config.algorithm = Algorithm::single_pass;
      config.type = data_type_of<T>::value;
      config.op = op;
      config.kind = kind;
      config.workgroup_size = 32;
      config.vectors_per_lane = 1;
      config.spin_limit = spin_limit;
      const auto input = random_op_values<T>(n, op, rng);
      EXPECT_TRUE(matches_reference(input, scanned_in_place(ctx, config, input), kind, op))
          << to_string(config.type) << " " << to_string(op) << " n = " << n << " spin limit " << spin_limit
          << (late ? " (late fallbacks)" : "");
    };
    constexpr size_t tile = 32 * 4;
    std::vector<size_t> sizes = {tile + 1, 2 * tile, 2 * tile + 1, 100 * tile - 1, tile * tile + 3};
    for (int i = 0; i < 4; ++i) sizes.push_back(tile + 1 + rng() % 400'000);
    for (size_t n : sizes) {
      for (uint32_t spin : {1u, 64u}) {
        const ScanKind kind = rng() % 2 ? ScanKind::inclusive : ScanKind::exclusive;
        run(uint32_t{}, Op::add, n, spin, kind);
        run(int32_t{}, Op::max, n, spin, kind);
        if (ctx.device_info().shader_int64) run(uint64_t{}, Op::add, n, spin, kind);
      }
    }
  });
}

// Several tiles per workgroup (ScanConfig::tiles_per_workgroup): a workgroup holds one scanned tile while it
// scans the next, so both tiles' values live at once and the held one is stored after the next one's total
// is published. 1 (the one-tile path), 2, 3 and the default, around multiples of the tile and of the tiles a
// workgroup takes (the default is 1 on lavapipe); 5 and 9 are capped to 4 there. W = 32 and 64 (one
// and two subgroups on 32-wide devices), in place and out of place, spin limits 1 (fallbacks at nearly
// every wait) and 64, also with late fallbacks, 32- and 64-bit states.
TEST_F(ScanLayoutTest, SinglePassTilesPerWorkgroup) {
  on_both_single_pass_contexts([](const Context& ctx, std::mt19937_64& rng, bool late) {
    auto run = [&](auto tag, Op op, size_t n, uint32_t w, uint32_t tiles, uint32_t spin_limit, bool in_place,
                   uint32_t k = 1) {
      using T = decltype(tag);
      ScanConfig config;
      config.algorithm = Algorithm::single_pass;
      config.type = data_type_of<T>::value;
      config.op = op;
      config.kind = rng() % 2 ? ScanKind::inclusive : ScanKind::exclusive;
      config.workgroup_size = w;
      config.vectors_per_lane = k;
      config.deterministic = false;  // f32 on the single-pass scan
      config.spin_limit = spin_limit;
      config.tiles_per_workgroup = tiles;
      const auto input = random_op_values<T>(n, op, rng);
      std::vector<T> got;
      if (in_place) {
        got = scanned_in_place(ctx, config, input);
      } else {
        const auto r = record_and_run(ctx, input, config);
        EXPECT_TRUE(r.guards_intact);
        got = r.output;
      }
      EXPECT_TRUE(matches_reference(input, got, config.kind, op))
          << to_string(config.type) << " " << to_string(op) << " " << to_string(config.kind) << " n = " << n
          << ", W = " << w << ", K = " << k << ", " << tiles << " tiles per workgroup, spin limit " << spin_limit
          << (in_place ? ", in place" : "") << (late ? " (late fallbacks)" : "");
    };
    for (uint32_t w : {32u, 64u}) {  // one subgroup per workgroup on NVIDIA and AMD, and two
      const size_t tile = w * 4;
      for (uint32_t tiles : {1u, 2u, 3u, 0u, 5u, 9u}) {
        std::vector<size_t> sizes = {1, tile - 1, tile, tile + 1, 2 * tile + 1, 3 * tile, 4 * tile - 1, 4 * tile + 1,
                                     9 * tile + 5, 100 * tile + 3};
        sizes.push_back(1 + rng() % 100'000);
        for (size_t n : sizes) {
          const uint32_t spin = rng() % 2 ? 1u : 64u;
          const bool in_place = rng() % 2;
          run(uint32_t{}, Op::add, n, w, tiles, spin, in_place);
          run(int32_t{}, Op::max, n, w, tiles, spin, !in_place);
          if (ctx.device_info().shader_int64 && n % 3 == 0) run(uint64_t{}, Op::add, n, w, tiles, spin, in_place);
        }
      }
    }
    // Large tiles (K = 8, the default of large exclusive scans of 4-byte types), whose fallback reduces
    // a predecessor row by row (tile_total) while two scanned tiles are held.
    const size_t tile = 64 * 8 * 4;
    for (uint32_t tiles : {1u, 4u}) {
      for (size_t n : {tile + 1, 9 * tile + 5, 60 * tile + 3, 1 + rng() % 200'000}) {
        const uint32_t spin = rng() % 2 ? 1u : 64u;
        run(uint32_t{}, Op::add, n, 64, tiles, spin, rng() % 2 != 0, 8);
        run(float{}, Op::add, n, 64, tiles, spin, false, 8);
      }
    }
  });
}

// A spin limit far beyond the default, with tile 0 withheld so that every look-back polls it the full
// limit before computing it: lavapipe stops every loop of an invocation after 65535 iterations in all,
// so the library caps the limit there (lavapipe_max_spin_limit); uncapped, the look-backs were cut short
// and tiles got wrong prefixes on lavapipe. On other devices the polls just take longer.
TEST_F(ScanLayoutTest, SinglePassWithAHugeSpinLimit) {
  TestHooks hooks;
  hooks.withhold_first_tile = true;
  const Context ctx = make_validated_context({}, hooks);
  if (!ctx.single_pass_available()) GTEST_SKIP() << "no single-pass scan here";
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  for (ScanKind kind : {ScanKind::exclusive, ScanKind::inclusive}) {
    ScanConfig config;
    config.algorithm = Algorithm::single_pass;
    config.kind = kind;
    config.workgroup_size = 256;
    config.vectors_per_lane = 1;
    config.spin_limit = 1u << 20;
    const auto input = random_values<uint32_t>(50 * 1024 + 5, rng);
    const auto r = record_and_run(ctx, input, config);
    EXPECT_TRUE(r.guards_intact);
    EXPECT_TRUE(matches_reference(input, r.output, kind)) << "seed " << seed;
  }
}

// More blocks than maxComputeWorkGroupCount[0]: the plan folds the grid into two dimensions. First
// with the grid width capped at 7 (cheap), then for real past the device's own limit.
TEST_F(ScanLayoutTest, GridsWiderThanTheDeviceLimit) {
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  TestHooks hooks;
  hooks.max_workgroup_count_x = 7;
  const Context capped = make_validated_context({}, hooks);
  for (auto algorithm : {Algorithm::multipass, Algorithm::reduce_then_scan, Algorithm::single_pass}) {
    for (size_t n : {64u * 7 + 1, 64u * 50 + 3, 64u * 64 * 9 + 5}) {
      const auto input = random_values<uint32_t>(n, rng);
      ScanConfig config;
      config.algorithm = algorithm;
      config.workgroup_size = 32;
      config.vectors_per_lane = 1;
      const auto r = record_and_run(capped, input, config);
      EXPECT_TRUE(r.guards_intact);
      EXPECT_TRUE(matches_reference(input, r.output, config.kind)) << "n = " << n << " " << to_string(algorithm);
    }
  }
  const uint64_t limit = shared_context().device_info().max_workgroup_count[0];
  // Past the device's own limit only where that is affordable (lavapipe: 65535; NVIDIA: 2^31 - 1).
  if (limit > (1u << 20)) GTEST_SKIP() << "maxComputeWorkGroupCount[0] = " << limit << ": the capped grids above cover it";
  const size_t n = static_cast<size_t>(64 * (limit + 100) + 3);
  const auto input = random_values<uint32_t>(n, rng);
  ScanConfig config;
  config.kind = ScanKind::inclusive;
  config.algorithm = Algorithm::multipass;
  config.workgroup_size = 32;
  const auto r = record_and_run(shared_context(), input, config);
  EXPECT_TRUE(r.guards_intact);
  EXPECT_TRUE(matches_reference(input, r.output, config.kind)) << "n = " << n;
}

// A single-pass scan leaves its look-back state zeroed, so a temp buffer zeroed once can be reused
// with temp_zeroed = true (no clearing pass): scans of random sizes up to the buffer's capacity, with
// forced fallbacks in some, each checked, and the temp all zero at the end.
TEST_F(ScanLayoutTest, SinglePassLeavesItsStateZeroed) {
  const Context& ctx = shared_context();
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  constexpr size_t max_n = 300'000;
  ScanConfig config;
  config.algorithm = Algorithm::single_pass;
  config.workgroup_size = 32;
  config.vectors_per_lane = 1;
  const TempRequirements req = scan_temp_requirements(ctx, max_n, config);
  HostBuffer<uint32_t> in(ctx, max_n * 4), out(ctx, max_n * 4), temp(ctx, req.size, req.usage);
  std::memset(temp.data(), 0, req.size);  // zeroed once, by the host
  for (int i = 0; i < 12; ++i) {
    const size_t n = 1 + rng() % max_n;
    config.kind = rng() % 2 ? ScanKind::inclusive : ScanKind::exclusive;
    config.spin_limit = rng() % 2 ? 1 : 64;
    const auto input = random_values<uint32_t>(n, rng);
    std::memcpy(in.data(), input.data(), n * 4);
    poison(out.data(), max_n * 4);
    ScanArgs args{config, n, in.view(), out.view(), temp.view()};
    args.temp_zeroed = true;
    vk::submit_and_wait(ctx, [&](VkCommandBuffer cmd) {
      vk::memory_barrier(ctx, cmd, VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_WRITE_BIT,
                         VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
      record_scan(ctx, cmd, args);
      vk::memory_barrier(ctx, cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                         VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
    });
    std::vector<uint32_t> got(out.data(), out.data() + n);
    EXPECT_TRUE(matches_reference(input, got, config.kind)) << "scan " << i << ", n = " << n;
  }
  const auto* words = temp.data();
  size_t nonzero = 0;
  for (size_t i = 0; i < req.size / 4; ++i) nonzero += words[i] != 0;
  EXPECT_EQ(nonzero, 0u) << "the look-back state was not left zeroed";
}

// The convenience calls, typed.
TEST_F(ScanLayoutTest, ConvenienceCalls) {
  const Context& ctx = shared_context();
  const std::vector<uint32_t> in = {3, 1, 7, 0, 4, 1, 6, 3};
  EXPECT_EQ(exclusive_scan(ctx, std::span<const uint32_t>(in)), (std::vector<uint32_t>{0, 3, 4, 11, 11, 15, 16, 22}));
  EXPECT_EQ(inclusive_scan(ctx, std::span<const uint32_t>(in)), (std::vector<uint32_t>{3, 4, 11, 11, 15, 16, 22, 25}));
  EXPECT_TRUE(exclusive_scan(ctx, std::span<const float>()).empty());
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  const auto big = random_values<float>(1'000'003, rng);
  EXPECT_TRUE(matches_reference(big, inclusive_scan(ctx, std::span<const float>(big)), ScanKind::inclusive))
      << "seed " << seed;
}

}  // namespace
// Around the counts where the single-pass scan's default shape changes (core::single_pass_shape): at
// and below small_tile_max_elements exclusive u32/i32 scans take K = 2, above large_tile_min_elements
// exclusive 4-byte ones K = 8 and inclusive u32/i32 ones W = 128, K = 8 (on lavapipe all keep the
// default shape; the policy itself is tested without a device in tests/scan_shape_test.cpp).
TEST_F(ScanLayoutTest, SinglePassDefaultsAboveLargeTileSize) {
  const uint64_t seed = fresh_seed();
  for (ScanKind kind : {ScanKind::exclusive, ScanKind::inclusive}) {
    ScanConfig c;
    c.algorithm = Algorithm::single_pass;
    c.kind = kind;
    c.deterministic = false;
    const auto run = [](const auto& input, const ScanConfig& config) {
      return record_and_run(shared_context(), input, config);
    };
    check_sizes<uint32_t>(c, {core::small_tile_max_elements - 3, core::small_tile_max_elements, core::small_tile_max_elements + 1,
                              core::large_tile_min_elements + 8192 + 5},
                          seed, run);
    c.type = DataType::i32;
    check_sizes<int32_t>(c, {core::small_tile_max_elements, core::large_tile_min_elements + 1}, seed + 2, run);
    c.type = DataType::f32;
    check_sizes<float>(c, {core::large_tile_min_elements + 1}, seed + 1, run);
  }
}

}  // namespace gpuscan::test
