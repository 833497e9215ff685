// Unit tests for the tile scans' shape policy (core::single_pass_shape, reduce_then_scan_shape,
// scan_tile_shape, single_pass_auto_limit, scan_temp_elements): which W and K a scan of each algorithm,
// type, kind and count takes by default, that a caller's W or K always wins, that lavapipe (untuned)
// keeps the plain defaults, and that temp for a count serves every smaller one.
// Device-free: the policy is what the H200 measurements chose (bench/RESULTS.md), and
// lavapipe, where the GPU tests run, never takes the tuned shapes.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>

#include "core/scan_shape.hpp"
#include "core/tuning.hpp"
#include "core/windows.hpp"
#include "gpuscan/error.hpp"

namespace {

using gpuscan::DataType;
using gpuscan::ScanKind;
namespace core = gpuscan::core;

// The measured profile (the H200's tuned shapes) or lavapipe's plain ones.
const core::TuningProfile& profile(bool tuned) { return tuned ? core::h200_profile() : core::lavapipe_profile(); }

std::pair<uint32_t, uint32_t> shape(DataType type, ScanKind kind, uint64_t count, bool tuned = true,
                                    uint32_t w = 0, uint32_t k = 0) {
  const core::TileShape s = core::single_pass_shape(w, k, type, kind, count, profile(tuned));
  return {s.workgroup_size, s.vectors_per_lane};
}

constexpr auto excl = ScanKind::exclusive;
constexpr auto incl = ScanKind::inclusive;
constexpr uint32_t W = core::default_workgroup_size;
constexpr uint64_t large = core::large_tile_min_elements;
constexpr uint64_t small = core::small_tile_max_elements;

TEST(SinglePassShape, ExclusiveFourByteTypesGrowTheirTilesWithTheCount) {
  for (const DataType t : {DataType::u32, DataType::i32}) {
    EXPECT_EQ(shape(t, excl, 4097), std::pair(W, 2u));
    EXPECT_EQ(shape(t, excl, small), std::pair(W, 2u));
    EXPECT_EQ(shape(t, excl, small + 1), std::pair(W, 4u));
    EXPECT_EQ(shape(t, excl, large), std::pair(W, 4u));
    EXPECT_EQ(shape(t, excl, large + 1), std::pair(W, 8u));
    EXPECT_EQ(shape(t, excl, uint64_t{1} << 28), std::pair(W, 8u));
  }
  // f32 takes the large tiles but not the small ones (measured for u32 only).
  EXPECT_EQ(shape(DataType::f32, excl, small), std::pair(W, 4u));
  EXPECT_EQ(shape(DataType::f32, excl, large + 1), std::pair(W, 8u));
}

TEST(SinglePassShape, LargeInclusiveIntegerScansTakeHalfTheWorkgroupAndTwiceTheVectors) {
  for (const DataType t : {DataType::u32, DataType::i32}) {
    EXPECT_EQ(shape(t, incl, small), std::pair(W, 4u));
    EXPECT_EQ(shape(t, incl, large), std::pair(W, 4u));
    EXPECT_EQ(shape(t, incl, large + 1), std::pair(core::inclusive_large_tile_workgroup_size, 8u));
    // The same tile size as the default shape: automatic's one-tile threshold does not move.
    EXPECT_EQ(uint64_t{core::inclusive_large_tile_workgroup_size} * core::large_tile_vectors_per_lane,
              uint64_t{W} * core::default_vectors_per_lane);
  }
  EXPECT_EQ(shape(DataType::f32, incl, large + 1), std::pair(W, 4u));
}

TEST(SinglePassShape, EightByteTypesKeepTheirDefault) {
  for (const DataType t : {DataType::u64, DataType::i64, DataType::f64})
    for (const ScanKind kind : {excl, incl})
      for (const uint64_t n : {uint64_t{5000}, large + 1}) EXPECT_EQ(shape(t, kind, n), std::pair(W, 2u));
}

TEST(SinglePassShape, TheCallersWorkgroupSizeOrVectorsWin) {
  EXPECT_EQ(shape(DataType::u32, excl, large + 1, true, 512, 0), std::pair(512u, 8u));
  EXPECT_EQ(shape(DataType::u32, excl, small, true, 0, 8), std::pair(W, 8u));
  EXPECT_EQ(shape(DataType::u32, excl, large + 1, true, 64, 1), std::pair(64u, 1u));
  // Inclusive: a caller's K keeps the default W; a caller's W keeps K = 8 only where it is at most 128
  // (at W = 256 the kernel needs 114 registers at K = 8 on the H200).
  EXPECT_EQ(shape(DataType::u32, incl, large + 1, true, 0, 4), std::pair(W, 4u));
  EXPECT_EQ(shape(DataType::u32, incl, large + 1, true, 64, 0), std::pair(64u, 8u));
  EXPECT_EQ(shape(DataType::u32, incl, large + 1, true, 256, 0), std::pair(256u, 4u));
}

TEST(SinglePassShape, UntunedDevicesKeepThePlainDefaults) {
  for (const DataType t : {DataType::u32, DataType::i32, DataType::f32})
    for (const ScanKind kind : {excl, incl})
      for (const uint64_t n : {uint64_t{5000}, small, large + 1, uint64_t{1} << 28})
        EXPECT_EQ(shape(t, kind, n, false), std::pair(W, 4u));
  EXPECT_EQ(shape(DataType::u32, excl, 5000, false, 128, 2), std::pair(128u, 2u));
}

TEST(ReduceThenScanShape, LargeEightByteScansTakeW64) {
  for (const DataType t : {DataType::u64, DataType::i64, DataType::f64}) {
    EXPECT_EQ(core::scan_tile_shape(gpuscan::Algorithm::reduce_then_scan, 0, 0, t, incl, large + 1, profile(true)).workgroup_size,
              core::large_eight_byte_rts_workgroup_size);
    EXPECT_EQ(core::scan_tile_shape(gpuscan::Algorithm::reduce_then_scan, 0, 0, t, excl, large + 1, profile(true)).vectors_per_lane,
              2u);
    EXPECT_EQ(core::reduce_then_scan_shape(0, 0, t, large, profile(true)).workgroup_size, W);
    EXPECT_EQ(core::reduce_then_scan_shape(0, 0, t, large + 1, profile(false)).workgroup_size, W);
    EXPECT_EQ(core::reduce_then_scan_shape(512, 0, t, large + 1, profile(true)).workgroup_size, 512u);
  }
  for (const DataType t : {DataType::u32, DataType::i32, DataType::f32}) {
    const core::TileShape s = core::reduce_then_scan_shape(0, 0, t, large + 1, profile(true));
    EXPECT_EQ(s.workgroup_size, W);
    EXPECT_EQ(s.vectors_per_lane, core::default_vectors_per_lane_for(gpuscan::element_size(t)));
  }
  // Multipass takes the requested W or the default; K plays no part there.
  EXPECT_EQ(core::scan_tile_shape(gpuscan::Algorithm::multipass, 0, 0, DataType::u64, excl, large + 1, profile(true)).workgroup_size, W);
}

TEST(SinglePassShape, AutomaticLimits) {
  using core::single_pass_auto_limit;
  EXPECT_EQ(single_pass_auto_limit(DataType::u32, excl, profile(true)), UINT64_MAX);
  EXPECT_EQ(single_pass_auto_limit(DataType::f32, excl, profile(true)), UINT64_MAX);
  EXPECT_EQ(single_pass_auto_limit(DataType::u32, incl, profile(true)), uint64_t{1} << 27);
  EXPECT_EQ(single_pass_auto_limit(DataType::i32, incl, profile(true)), uint64_t{1} << 27);
  EXPECT_EQ(single_pass_auto_limit(DataType::f32, incl, profile(true)), uint64_t{1} << 25);
  EXPECT_EQ(single_pass_auto_limit(DataType::u64, excl, profile(true)), uint64_t{1} << 25);
  for (const DataType t : {DataType::u32, DataType::f32, DataType::u64})
    for (const ScanKind kind : {excl, incl}) EXPECT_EQ(single_pass_auto_limit(t, kind, profile(false)), uint64_t{1} << 21);
  // Deterministic floats take the ordered look-back, which pays off at small sizes only.
  // (f64 up to 2^20 where tuned, f32 and untuned devices 2^21).
  for (const DataType t : {DataType::f32, DataType::f64})
    for (const ScanKind kind : {excl, incl})
      for (const bool tuned : {true, false})
        EXPECT_EQ(single_pass_auto_limit(t, kind, profile(tuned), true),
                  uint64_t{1} << (tuned && t == DataType::f64 ? 20 : 21));
}

// Temp sizes, one instance per algorithm (<suite>.<test>/<algorithm>): the tile scans, or every scan.
class TileScanTemp : public ::testing::TestWithParam<gpuscan::Algorithm> {};
class ScanTemp : public ::testing::TestWithParam<gpuscan::Algorithm> {};

std::string algorithm_name(const ::testing::TestParamInfo<gpuscan::Algorithm>& info) {
  std::string name(to_string(info.param));
  for (char& c : name)
    if (c == '-') c = '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(, TileScanTemp,
                         ::testing::Values(gpuscan::Algorithm::single_pass, gpuscan::Algorithm::reduce_then_scan),
                         algorithm_name);
INSTANTIATE_TEST_SUITE_P(, ScanTemp,
                         ::testing::Values(gpuscan::Algorithm::multipass, gpuscan::Algorithm::reduce_then_scan,
                                           gpuscan::Algorithm::single_pass),
                         algorithm_name);

// Temp asked for n elements must serve any smaller count, though smaller counts may take smaller tiles
// (more tiles, more look-back state): at every count up to each bound, for both kinds and a few types.
TEST_P(TileScanTemp, ForACountServesEverySmallerCount) {
  const core::PlanLimits limits{};
  const gpuscan::Algorithm algorithm = GetParam();
  for (const DataType t : {DataType::u32, DataType::f32, DataType::u64, DataType::i64})
    for (const ScanKind kind : {excl, incl})
      for (const bool tuned : {true, false}) {
        gpuscan::ScanConfig config;
        config.type = t;
        config.kind = kind;
        const auto own = [&](uint64_t n) {
          const core::TileShape s = core::scan_tile_shape(algorithm, 0, 0, t, kind, n, profile(tuned));
          return core::plan_scan(algorithm, n, config, s, limits).temp_elements;
        };
        for (const uint64_t bound : {small + 1, small + 4096, large + 1, large + 65536, uint64_t{1} << 26}) {
          const uint64_t temp = core::scan_temp_elements(algorithm, bound, config, profile(tuned), limits);
          for (const uint64_t n : {uint64_t{4097}, small - 1, small, small + 1, large - 1, large, large + 1, bound})
            if (n <= bound)
              EXPECT_GE(temp, own(n)) << to_string(algorithm) << " " << to_string(t) << " n " << n << " bound " << bound;
        }
      }
}

// Past one binding a scan runs in windows that all reuse the first window's scratch (core/windows.hpp), so
// the temp for any count is that scratch and the two carry words after it, at a multiple of 16 elements.
// Sizing it must cost no more at 2^50 elements (tens of millions of windows) than at one window's worth:
// a sizing that planned every window ran out of memory here.
TEST_P(ScanTemp, OfManyWindowsCostsOneWindow) {
  const core::PlanLimits limits{};
  gpuscan::ScanConfig config;  // u32, exclusive
  const gpuscan::Algorithm algorithm = GetParam();
  for (const uint64_t window : {core::window_elements(128u << 20, 16, 4), core::window_elements(20000, 16, 4)}) {
    const core::TileShape s = core::scan_tile_shape(algorithm, 0, 0, DataType::u32, excl, window, profile(false));
    const uint64_t first = core::plan_scan(algorithm, window, config, s, limits).temp_elements;
    for (const uint64_t count : {uint64_t{1} << 40, uint64_t{1} << 50})
      EXPECT_EQ(core::scan_temp_elements(algorithm, count, config, profile(false), limits, false, window),
                (first + 15) / 16 * 16 + 2)
          << "window " << window << " count " << count;
  }
}

}  // namespace

// Counts no device could hold are too_large, naming the count and the limit: past the largest memory heap
// (0: not known) and past what 64-bit byte offsets express.
TEST(CheckCountFits, CountsPastTheHeapOr64BitsAreTooLarge) {
  const uint64_t heap = uint64_t{24} << 30;
  EXPECT_NO_THROW(core::check_count_fits(heap / 4, 4, heap, "scan"));
  EXPECT_NO_THROW(core::check_count_fits(uint64_t{1} << 50, 4, 0, "scan"));
  EXPECT_NO_THROW(core::check_count_fits(UINT64_MAX / 8, 8, 0, "reduction"));
  const auto message = [](uint64_t count, uint32_t bytes, uint64_t limit) {
    try {
      core::check_count_fits(count, bytes, limit, "segmented scan");
    } catch (const gpuscan::Error& e) {
      EXPECT_EQ(e.code(), gpuscan::Errc::too_large);
      return std::string(e.what());
    }
    return std::string("nothing thrown");
  };
  EXPECT_EQ(message(heap / 4 + 1, 4, heap),
            "a segmented scan of 6442450945 elements of 4 bytes needs 25769803780 bytes, more than the device's "
            "largest memory heap of 25769803776 bytes");
  EXPECT_EQ(message(UINT64_MAX / 8 + 1, 8, 0),
            "a segmented scan of 2305843009213693952 elements of 8 bytes needs more than 2^64 - 1 bytes, more than "
            "64-bit byte offsets express");
  EXPECT_EQ(message(UINT64_MAX, 4, heap).find("a segmented scan of 18446744073709551615 elements"), 0u);
}
