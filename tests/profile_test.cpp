// Unit tests for the tuning profiles and the policies (core/profile.hpp, core/scan_policy.hpp,
// core/compact_policy.hpp, core/sort_policy.hpp): which
// profile a device gets by its IDs and names, that the H200's and lavapipe's profiles give exactly the
// shapes, limits and tile counts those devices took before profiles existed (the expected values below
// restate those rules with their numbers, independently of the profiles), that the conservative profile
// gives the plain ones, and that choose_scan's W fits any device.
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <random>
#include <string>
#include <utility>

#include "core/compact_policy.hpp"
#include "core/profile.hpp"
#include "core/scan_policy.hpp"
#include "core/sort_policy.hpp"
#include "gpuscan/error.hpp"

namespace {

using gpuscan::Algorithm;
using gpuscan::CompactAlgorithm;
using gpuscan::CompactConfig;
using gpuscan::CompactPath;
using gpuscan::DataType;
using gpuscan::Errc;
using gpuscan::Error;
using gpuscan::ScanKind;
using gpuscan::SortAlgorithm;
namespace core = gpuscan::core;

constexpr DataType all_types[] = {DataType::u32, DataType::i32, DataType::f32,
                                  DataType::u64, DataType::i64, DataType::f64};
constexpr uint64_t counts[] = {1,
                               4096,
                               (uint64_t{1} << 18) - 1,
                               uint64_t{1} << 18,
                               (uint64_t{1} << 18) + 1,
                               uint64_t{1} << 20,
                               uint64_t{1} << 23,
                               (uint64_t{1} << 23) + 1,
                               uint64_t{1} << 26,
                               uint64_t{1} << 28};

std::string name(uint32_t vendor, uint32_t device, const std::string& device_name) {
  return std::string(core::select_profile(vendor, device, device_name).name);
}

TEST(TuningProfile, SelectedByVendorAndDeviceId) {
  EXPECT_EQ(name(0x10DE, 0x2335, "NVIDIA H200"), "nvidia-h200");
  EXPECT_EQ(name(0x10DE, 0x2335, ""), "nvidia-h200");               // the ID alone suffices
  EXPECT_EQ(name(0x10DE, 0x233B, "NVIDIA H200 NVL"), "nvidia-h200");  // another variant, by name
  EXPECT_EQ(name(0x10DE, 0x2330, "NVIDIA H100 80GB HBM3"), "nvidia-h100");
  EXPECT_EQ(name(0x10DE, 0x2330, ""), "nvidia-h100");
  EXPECT_EQ(name(0x10DE, 0x2331, "NVIDIA H100 PCIe"), "nvidia-h100");
  EXPECT_EQ(name(0x10005, 0, "llvmpipe (LLVM 15.0.6, 256 bits)"), "lavapipe");
  // NVIDIA devices other than the H200 and H100, a GH200 among them, and every other vendor: conservative.
  EXPECT_EQ(name(0x10DE, 0x2342, "NVIDIA GH200 480GB"), "conservative");
  EXPECT_EQ(name(0x10DE, 0x2684, "NVIDIA GeForce RTX 4090"), "conservative");
  EXPECT_EQ(name(0x1002, 0x744C, "AMD Radeon RX 7900 XTX (RADV NAVI31)"), "conservative");
  EXPECT_EQ(name(0x8086, 0x56A0, "Intel(R) Arc(tm) A770 Graphics (DG2)"), "conservative");
  // A name alone is not enough: lavapipe needs Mesa's vendor ID, the H200 NVIDIA's.
  EXPECT_EQ(name(0x1002, 0, "llvmpipe"), "conservative");
  EXPECT_EQ(name(0x10005, 0, "softpipe"), "conservative");
  EXPECT_EQ(name(0x1002, 0x2335, "H200"), "conservative");
  EXPECT_EQ(name(0x1002, 0x2330, "H100"), "conservative");
}

TEST(TuningProfile, SelectedOnOpenGlByVendorAndRenderer) {
  EXPECT_EQ(core::select_gl_profile("Mesa", "llvmpipe (LLVM 15.0.6, 256 bits)").name, "lavapipe");
  EXPECT_EQ(core::select_gl_profile("NVIDIA Corporation", "NVIDIA H200/PCIe/SSE2").name, "nvidia-h200");
  EXPECT_EQ(core::select_gl_profile("NVIDIA Corporation", "NVIDIA H100 80GB HBM3/PCIe/SSE2").name, "nvidia-h100");
  EXPECT_EQ(core::select_gl_profile("NVIDIA Corporation", "NVIDIA GeForce RTX 4090/PCIe/SSE2").name, "conservative");
  EXPECT_EQ(core::select_gl_profile("AMD", "AMD Radeon RX 7900 XTX (radeonsi, navi31)").name, "conservative");
}

TEST(TuningProfile, EverySourceSaysWhereItsNumbersCameFrom) {
  for (const core::TuningProfile* p : {&core::h200_profile(), &core::h100_profile(), &core::lavapipe_profile(),
                                      &core::conservative_profile()})
    EXPECT_FALSE(p->source.empty()) << p->name;
  EXPECT_NE(core::h200_profile().source.find("H200"), std::string::npos);
  EXPECT_NE(core::h100_profile().source.find("H100"), std::string::npos);
}

using Shape = std::pair<uint32_t, uint32_t>;

bool four_byte_integer(DataType t) { return t == DataType::u32 || t == DataType::i32; }
uint32_t plain_k(DataType t) { return gpuscan::element_size(t) == 8 ? 2 : 4; }

// The H200's single-pass rules as they stood: above 2^23 exclusive 4-byte scans K = 8, inclusive u32/i32
// W = 128, K = 8; exclusive u32/i32 of at most 2^18 K = 2; else W = 256 and K = 4 (2 for 8-byte types).
Shape h200_single_pass(DataType t, ScanKind kind, uint64_t n) {
  const bool exclusive = kind == ScanKind::exclusive;
  if (n > (uint64_t{1} << 23) && gpuscan::element_size(t) == 4) {
    if (exclusive) return {256, 8};
    if (four_byte_integer(t)) return {128, 8};
  }
  if (exclusive && four_byte_integer(t) && n <= (uint64_t{1} << 18)) return {256, 2};
  return {256, plain_k(t)};
}
// Its reduce-then-scan rule: 8-byte types above 2^23 W = 64.
Shape h200_reduce_then_scan(DataType t, uint64_t n) {
  return {gpuscan::element_size(t) == 8 && n > (uint64_t{1} << 23) ? 64 : 256, plain_k(t)};
}
// Its automatic limits: ordered f64 2^20, other ordered 2^21; exclusive 4-byte none, inclusive u32/i32
// 2^27, the rest 2^25.
uint64_t h200_limit(DataType t, ScanKind kind, bool ordered) {
  if (ordered) return uint64_t{1} << (gpuscan::element_size(t) == 8 ? 20 : 21);
  if (gpuscan::element_size(t) == 4 && kind == ScanKind::exclusive) return UINT64_MAX;
  return uint64_t{1} << (four_byte_integer(t) ? 27 : 25);
}
// The H100's: the H200's ordered limits, and none for the unordered look-back.
uint64_t h100_limit(DataType t, ScanKind kind, bool ordered) {
  return ordered ? h200_limit(t, kind, true) : UINT64_MAX;
}

struct Expected {
  Shape single_pass, reduce_then_scan;
  uint64_t limit, ordered_limit;  // automatic's, for the unordered and the ordered look-back
};

Expected h200_expected(DataType t, ScanKind kind, uint64_t n) {
  return {h200_single_pass(t, kind, n), h200_reduce_then_scan(t, n), h200_limit(t, kind, false), h200_limit(t, kind, true)};
}
Expected h100_expected(DataType t, ScanKind kind, uint64_t n) {
  return {h200_single_pass(t, kind, n), h200_reduce_then_scan(t, n), h100_limit(t, kind, false), h100_limit(t, kind, true)};
}
// lavapipe's and the conservative profile's: W = 256, the plain K, 2^21 for every automatic limit.
Expected plain_expected(DataType t, ScanKind, uint64_t) {
  return {{256, plain_k(t)}, {256, plain_k(t)}, uint64_t{1} << 21, uint64_t{1} << 21};
}

// The profile's default shapes and automatic limits against `expected` over every type, kind and count.
void expect_sweep(const core::TuningProfile& p, Expected (*expected)(DataType, ScanKind, uint64_t)) {
  for (const DataType t : all_types)
    for (const ScanKind kind : {ScanKind::exclusive, ScanKind::inclusive})
      for (const uint64_t n : counts) {
        const std::string where = std::string(p.name) + " " + std::string(to_string(t)) + " " +
                                  std::string(to_string(kind)) + " " + std::to_string(n);
        const Expected e = expected(t, kind, n);
        const core::TileShape sp = core::scan_tile_shape(Algorithm::single_pass, 0, 0, t, kind, n, p);
        const core::TileShape rts = core::scan_tile_shape(Algorithm::reduce_then_scan, 0, 0, t, kind, n, p);
        EXPECT_EQ(Shape(sp.workgroup_size, sp.vectors_per_lane), e.single_pass) << where;
        EXPECT_EQ(Shape(rts.workgroup_size, rts.vectors_per_lane), e.reduce_then_scan) << where;
        EXPECT_EQ(core::single_pass_auto_limit(t, kind, p, false), e.limit) << where;
        EXPECT_EQ(core::single_pass_auto_limit(t, kind, p, true), e.ordered_limit) << where;
      }
}

// The look-back's limits and the compaction's K a profile gives: the spin limit for no request and for
// 5000 polls, tiles per workgroup for no request over 513 tiles and for a request of 32, and the
// selection's K above 2^23 elements.
struct ExpectedLimits {
  uint32_t spin, spin_5000, tiles_513, tiles_32, compact_k;
};

void expect_limits(const core::TuningProfile& p, ExpectedLimits e) {
  EXPECT_EQ(core::spin_limit(p, 0), e.spin) << p.name;
  EXPECT_EQ(core::spin_limit(p, 100), 100u) << p.name;
  EXPECT_EQ(core::spin_limit(p, 5000), e.spin_5000) << p.name;
  EXPECT_EQ(core::tiles_per_workgroup(p, 0, 512), 1u) << p.name;
  EXPECT_EQ(core::tiles_per_workgroup(p, 0, 513), e.tiles_513) << p.name;
  EXPECT_EQ(core::tiles_per_workgroup(p, 2, 10), 2u) << p.name;
  EXPECT_EQ(core::tiles_per_workgroup(p, 32, 10), e.tiles_32) << p.name;
  EXPECT_EQ(core::compact_large_vectors_per_lane(p, uint64_t{1} << 23), 0u) << p.name;
  EXPECT_EQ(core::compact_large_vectors_per_lane(p, (uint64_t{1} << 23) + 1), e.compact_k) << p.name;
}

// Spin limit 1024 by default, any request kept; 4 tiles per workgroup above 512 tiles, else 1; single-pass
// selections above 2^23 K = 8.
TEST(TuningProfile, H200ReproducesItsMeasuredShapesAndLimits) {
  expect_sweep(core::h200_profile(), h200_expected);
  expect_limits(core::h200_profile(), {1024, 5000, 4, 32, 8});
}

// The H100 takes the H200's shapes: the same SM, and its single-pass shapes measured there as well. Its
// rules of its own: no automatic limit for the unordered look-back, and
// ChooseScan.AutomaticLookAheadForDeterministicF32.
TEST(TuningProfile, H100TakesTheH200Shapes) {
  expect_sweep(core::h100_profile(), h100_expected);
  expect_limits(core::h100_profile(), {1024, 5000, 4, 32, 8});
}

// Spin limit 1024 capped at 256 and tiles per workgroup 1 by default, requests capped at 4 (its
// 65535-iteration loop limit); the large compaction tiles applied on lavapipe as well.
TEST(TuningProfile, LavapipeKeepsThePlainShapesAndItsCaps) {
  expect_sweep(core::lavapipe_profile(), plain_expected);
  expect_limits(core::lavapipe_profile(), {256, 256, 1, 4, 8});
}

TEST(TuningProfile, ConservativeGivesThePlainDefaults) {
  expect_sweep(core::conservative_profile(), plain_expected);
  expect_limits(core::conservative_profile(), {1024, 5000, 1, 32, 0});
}

// Whatever the device's subgroups (4 to 128 wide) and workgroup limit (128 to 1024 invocations), every
// algorithm's default W under every profile is a power of two, whole subgroups wide and within the limit.
TEST(ChooseScan, WorkgroupFitsEveryDevice) {
  for (const core::TuningProfile* p : {&core::h200_profile(), &core::h100_profile(), &core::lavapipe_profile(),
                                      &core::conservative_profile()})
    for (uint32_t sg = 4; sg <= 128; sg *= 2)
      for (uint32_t max_invocations = 128; max_invocations <= 1024; max_invocations *= 2)
        for (const bool single_pass_ok : {false, true})
          for (const Algorithm algorithm : {Algorithm::automatic, Algorithm::single_pass, Algorithm::reduce_then_scan,
                                            Algorithm::multipass})
            for (const DataType t : all_types)
              for (const ScanKind kind : {ScanKind::exclusive, ScanKind::inclusive})
                for (const uint64_t n : counts) {
                  gpuscan::ScanConfig config;
                  config.type = t;
                  config.kind = kind;
                  config.algorithm = algorithm;
                  const core::DeviceCaps caps{{max_invocations, sg}, true, single_pass_ok};
                  const core::ScanChoice c = core::choose_scan(caps, *p, config, n);
                  const uint32_t w = c.shape.workgroup_size;
                  const std::string where = std::string(p->name) + " subgroup " + std::to_string(sg) + " max " +
                                            std::to_string(max_invocations) + " " +
                                            std::string(to_string(c.algorithm)) + " " + std::string(to_string(t)) +
                                            " n " + std::to_string(n);
                  EXPECT_TRUE(std::has_single_bit(w)) << where;
                  EXPECT_GE(w, sg) << where;
                  EXPECT_LE(w, max_invocations) << where;
                  if (algorithm == Algorithm::automatic && !single_pass_ok)
                    EXPECT_EQ(c.algorithm, Algorithm::reduce_then_scan) << where;
                }
}

// automatic: single-pass from one plain tile up to the profile's limit where the device runs it and the
// offsets are vector-aligned; else reduce-then-scan with subgroup arithmetic, multipass without.
TEST(ChooseScan, AutomaticRule) {
  const core::TuningProfile& p = core::h200_profile();
  const core::DeviceCaps full{{1024, 32}, true, true};
  gpuscan::ScanConfig config;  // u32 exclusive: tiles of 4096, no limit
  EXPECT_EQ(core::choose_scan(full, p, config, 4096).algorithm, Algorithm::reduce_then_scan);
  EXPECT_EQ(core::choose_scan(full, p, config, 4097).algorithm, Algorithm::single_pass);
  EXPECT_EQ(core::choose_scan(full, p, config, uint64_t{1} << 28).algorithm, Algorithm::single_pass);
  EXPECT_EQ(core::choose_scan(full, p, config, uint64_t{1} << 40).algorithm, Algorithm::single_pass);
  config.kind = gpuscan::ScanKind::inclusive;  // limit 2^27
  EXPECT_EQ(core::choose_scan(full, p, config, uint64_t{1} << 27).algorithm, Algorithm::single_pass);
  EXPECT_EQ(core::choose_scan(full, p, config, (uint64_t{1} << 27) + 1).algorithm, Algorithm::reduce_then_scan);
  // The H100's profile: single-pass at every count for the unordered look-back.
  EXPECT_EQ(core::choose_scan(full, core::h100_profile(), config, uint64_t{1} << 40).algorithm, Algorithm::single_pass);
  config.type = DataType::u64;
  EXPECT_EQ(core::choose_scan(full, p, config, (uint64_t{1} << 25) + 1).algorithm, Algorithm::reduce_then_scan);
  EXPECT_EQ(core::choose_scan(full, core::h100_profile(), config, uint64_t{1} << 30).algorithm, Algorithm::single_pass);
  config = {};
  EXPECT_EQ(core::choose_scan(full, p, config, 1u << 20, false).algorithm, Algorithm::reduce_then_scan);
  EXPECT_EQ(core::choose_scan(full, core::conservative_profile(), config, (1u << 21) + 1).algorithm,
            Algorithm::reduce_then_scan);
  EXPECT_EQ(core::choose_scan({{1024, 32}, false, false}, p, config, 1u << 20).algorithm, Algorithm::multipass);
}

// Deterministic exclusive f32 past the ordered limit (2^21): the look-ahead up to 2^28 with the H100's
// profile only, where the single-pass scan could run; never for other types, kinds or profiles.
TEST(ChooseScan, AutomaticLookAheadForDeterministicF32) {
  const core::DeviceCaps full{{1024, 32}, true, true};
  gpuscan::ScanConfig f32;
  f32.type = DataType::f32;
  f32.deterministic = true;
  const uint64_t above = (uint64_t{1} << 21) + 1, most = uint64_t{1} << 28;
  const core::TuningProfile& h100 = core::h100_profile();
  EXPECT_EQ(core::choose_scan(full, h100, f32, uint64_t{1} << 21).algorithm, Algorithm::single_pass);
  EXPECT_EQ(core::choose_scan(full, h100, f32, above).algorithm, Algorithm::look_ahead);
  EXPECT_EQ(core::choose_scan(full, h100, f32, most).algorithm, Algorithm::look_ahead);
  EXPECT_EQ(core::choose_scan(full, h100, f32, most + 1).algorithm, Algorithm::reduce_then_scan);
  EXPECT_EQ(core::choose_scan(full, h100, f32, above, /*vector_aligned=*/false).algorithm, Algorithm::reduce_then_scan);
  EXPECT_EQ(core::choose_scan({{1024, 32}, true, false}, h100, f32, above).algorithm, Algorithm::reduce_then_scan);
  gpuscan::ScanConfig other = f32;
  other.kind = ScanKind::inclusive;
  EXPECT_EQ(core::choose_scan(full, h100, other, above).algorithm, Algorithm::reduce_then_scan);
  other = f32;
  other.deterministic = false;  // the unordered look-back, at every count
  EXPECT_EQ(core::choose_scan(full, h100, other, above).algorithm, Algorithm::single_pass);
  EXPECT_EQ(core::choose_scan(full, h100, other, most + 1).algorithm, Algorithm::single_pass);
  other = f32;
  other.type = DataType::f64;
  EXPECT_EQ(core::choose_scan(full, h100, other, above).algorithm, Algorithm::reduce_then_scan);
  for (const core::TuningProfile* p : {&core::h200_profile(), &core::lavapipe_profile(), &core::conservative_profile()})
    EXPECT_EQ(core::choose_scan(full, *p, f32, above).algorithm, Algorithm::reduce_then_scan) << p->name;
}

// The compaction's path and how its counts are scanned: one rule for both backends.
TEST(ChooseCompactPath, AutomaticTakesBallotsWhereTheDeviceHasThem) {
  using core::choose_compact_path;
  EXPECT_EQ(choose_compact_path(CompactPath::automatic, true, "x"), CompactPath::ballot);
  EXPECT_EQ(choose_compact_path(CompactPath::automatic, false, "x"), CompactPath::shared_memory);
  EXPECT_EQ(choose_compact_path(CompactPath::shared_memory, true, "x"), CompactPath::shared_memory);
  EXPECT_EQ(choose_compact_path(CompactPath::ballot, true, "x"), CompactPath::ballot);
  try {
    choose_compact_path(CompactPath::ballot, false, "the device has no ballots");
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), make_error_code(Errc::unsupported));
    EXPECT_NE(std::string(e.what()).find("the device has no ballots; use CompactPath::shared_memory"),
              std::string::npos)
        << e.what();
  }
  for (const bool arithmetic : {false, true}) {
    EXPECT_TRUE(core::compact_counts_multipass(CompactPath::shared_memory, arithmetic));
    EXPECT_EQ(core::compact_counts_multipass(CompactPath::ballot, arithmetic), !arithmetic);
  }
}

// The compaction's algorithm and shape: one policy for both backends (OpenGL passes single_pass = false).
TEST(ChooseCompaction, AutomaticRunsSinglePassWhereItCanAndThreePassElsewhere) {
  const uint64_t seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const core::CompactCaps full{.workgroup = {1024, 32},
                               .max_shared_memory_bytes = 48 * 1024,
                               .ballots = true,
                               .no_ballots = "no ballots here",
                               .subgroup_arithmetic = true,
                               .single_pass = true,
                               .no_single_pass = "no look-back here"};
  const core::TuningProfile& plain = core::conservative_profile();
  const uint64_t n = std::uniform_int_distribution<uint64_t>(1, uint64_t{1} << 22)(rng);
  CompactConfig u32;
  core::CompactChoice c = core::choose_compaction(full, plain, u32, n, false, false);
  EXPECT_EQ(c.path, CompactPath::ballot);
  EXPECT_EQ(c.algorithm, CompactAlgorithm::single_pass);
  EXPECT_FALSE(c.counts_multipass);
  EXPECT_EQ(core::choose_compaction(full, plain, u32, n, true, false).algorithm, CompactAlgorithm::three_pass)
      << "partitions run three-pass";
  core::CompactCaps gl = full;
  gl.single_pass = false;
  EXPECT_EQ(core::choose_compaction(gl, plain, u32, n, false, false).algorithm, CompactAlgorithm::three_pass);
  core::CompactCaps no_ballots = full;
  no_ballots.ballots = false;
  c = core::choose_compaction(no_ballots, plain, u32, n, false, false);
  EXPECT_EQ(c.path, CompactPath::shared_memory);
  EXPECT_EQ(c.algorithm, CompactAlgorithm::three_pass);
  EXPECT_TRUE(c.counts_multipass);
  // Past one binding: three passes in windows, and no count from GPU memory.
  core::CompactCaps small_window = full;
  small_window.window = std::uniform_int_distribution<uint64_t>(1024, n + 1024)(rng);
  const uint64_t past = small_window.window + std::uniform_int_distribution<uint64_t>(1, 1u << 20)(rng);
  EXPECT_EQ(core::choose_compaction(small_window, plain, u32, past, false, false).algorithm,
            CompactAlgorithm::three_pass);
  EXPECT_THROW(core::choose_compaction(small_window, plain, u32, past, false, true), Error);
  // 8-byte elements halve the default K until the stage fits (32 KiB of shared memory: lavapipe's).
  core::CompactCaps lavapipe_like = full;
  lavapipe_like.max_shared_memory_bytes = 32 * 1024;
  CompactConfig f64;
  f64.type = DataType::f64;
  c = core::choose_compaction(lavapipe_like, plain, f64, n, false, false);
  EXPECT_EQ(c.algorithm, CompactAlgorithm::single_pass);
  EXPECT_LE(core::compact_single_pass_shared_bytes(c.shape, 8), 32u * 1024);
  EXPECT_LT(c.shape.vectors_per_lane, 4u);
  // Large selections take the profile's larger K where it fits.
  const uint64_t large = (uint64_t{1} << 23) + std::uniform_int_distribution<uint64_t>(1, 1u << 24)(rng);
  EXPECT_EQ(core::choose_compaction(full, core::h200_profile(), u32, large, false, false).shape.vectors_per_lane, 8u);
  EXPECT_EQ(core::choose_compaction(full, plain, u32, large, false, false).shape.vectors_per_lane, 4u);
}

TEST(ChooseCompaction, RefusalsSayWhy) {
  const core::CompactCaps caps{.workgroup = {1024, 32},
                               .max_shared_memory_bytes = 48 * 1024,
                               .ballots = true,
                               .subgroup_arithmetic = true,
                               .single_pass = false,
                               .no_single_pass = "no look-back here"};
  const auto message = [&](CompactConfig config, bool partition) {
    try {
      core::choose_compaction(caps, core::conservative_profile(), config, 1000, partition, false);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const CompactConfig single{.algorithm = CompactAlgorithm::single_pass};
  EXPECT_EQ(message(single, false), "no look-back here");
  EXPECT_NE(message(single, true).find("partitions run three-pass only"), std::string::npos);
}

TEST(ChooseSort, AutomaticIsTheProfilesChoice) {
  for (const core::TuningProfile* p : {&core::h200_profile(), &core::h100_profile(), &core::lavapipe_profile(),
                                       &core::conservative_profile()}) {
    EXPECT_EQ(core::choose_sort(*p, SortAlgorithm::automatic), SortAlgorithm::multipass) << p->name;
    EXPECT_EQ(core::choose_sort(*p, SortAlgorithm::onesweep), SortAlgorithm::onesweep) << p->name;
    EXPECT_EQ(core::choose_sort(*p, SortAlgorithm::multipass), SortAlgorithm::multipass) << p->name;
  }
  core::TuningProfile onesweep_first = core::conservative_profile();
  onesweep_first.sort.automatic = SortAlgorithm::onesweep;
  EXPECT_EQ(core::choose_sort(onesweep_first, SortAlgorithm::automatic), SortAlgorithm::onesweep);
}

}  // namespace
