// Unit tests for the rule that every workgroup is made of whole subgroups (core::min_workgroup_size,
// tile_shape, scan_tile_shape, scan_temp_elements): for every subgroup size Vulkan allows (4 to 128), a
// default W is raised to the widest subgroup, a requested narrower W is refused with a message that says
// why, and no algorithm, type, kind, count or tuning yields a W narrower than the subgroup.
// Device-free: lavapipe (4 to 16) and the H200 (32) never reach the wide cases; these tests do.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "core/scan_shape.hpp"
#include "core/tuning.hpp"
#include "gpuscan/error.hpp"

namespace {

using gpuscan::Algorithm;
using gpuscan::DataType;
using gpuscan::ScanKind;
namespace core = gpuscan::core;

// The measured profile (the H200's tuned shapes) or lavapipe's plain ones.
const core::TuningProfile& profile(bool tuned) { return tuned ? core::h200_profile() : core::lavapipe_profile(); }

constexpr uint32_t subgroup_sizes[] = {4, 8, 16, 32, 64, 128};
constexpr uint32_t max_invocations = 1024;

// The error tile_shape throws for (w, limits), or "" when it accepts w.
std::string refusal(uint32_t w, const core::WorkgroupLimits& limits) {
  try {
    core::tile_shape(w, 0, limits);
  } catch (const gpuscan::Error& e) {
    EXPECT_EQ(e.code(), gpuscan::Errc::invalid_argument);
    return e.what();
  }
  return "";
}

TEST(WorkgroupFit, TheNarrowestWorkgroupIs32OrTheWidestSubgroup) {
  for (const uint32_t sg : subgroup_sizes)
    EXPECT_EQ(core::min_workgroup_size({max_invocations, sg}), sg > 32 ? sg : 32u) << "subgroup " << sg;
  EXPECT_EQ(core::min_workgroup_size({max_invocations, 0}), 32u);  // no subgroups (OpenGL without them)
}

TEST(WorkgroupFit, RequestedWorkgroupsNarrowerThanTheSubgroupAreRefused) {
  for (const uint32_t sg : subgroup_sizes) {
    const core::WorkgroupLimits limits{max_invocations, sg};
    for (uint32_t w = 32; w <= max_invocations; w *= 2) {
      const std::string why = refusal(w, limits);
      if (w >= sg) {
        EXPECT_EQ(why, "") << "W " << w << " subgroup " << sg;
        EXPECT_EQ(core::tile_shape(w, 0, limits).workgroup_size % sg, 0u);
      } else {
        EXPECT_EQ(why, "workgroup size " + std::to_string(w) + " is narrower than the device's subgroups of up to " +
                           std::to_string(sg) + " invocations; gpuscan's kernels need whole subgroups, so it must "
                           "be a power of two from " + std::to_string(sg) + " to 1024")
            << "W " << w << " subgroup " << sg;
      }
    }
    // The general rule still holds: powers of two from 32 to the device's maximum.
    for (const uint32_t w : {16u, 48u, 2048u})
      EXPECT_NE(refusal(w, limits).find("is not a power of two from"), std::string::npos) << "W " << w;
  }
}

TEST(WorkgroupFit, DefaultWorkgroupsAreRaisedToTheWidestSubgroup) {
  for (const uint32_t sg : subgroup_sizes) {
    const core::WorkgroupLimits limits{max_invocations, sg};
    const uint32_t w = core::tile_shape(0, 0, limits).workgroup_size;
    EXPECT_EQ(w, core::workgroup_size_or_default(0, limits));
    EXPECT_GE(w, sg);
    EXPECT_EQ(core::workgroup_size_or_default(64, limits), 64u);  // a request is tile_shape's to check
  }
  // A device whose widest workgroup is its subgroup (not seen in practice, but allowed) takes that width.
  EXPECT_EQ(core::tile_shape(0, 0, {128, 128}).workgroup_size, 128u);
}

// Every shape the scans pick by default -- the tuned ones were measured on 32-wide subgroups and include
// W = 64 (8-byte reduce-then-scan) and W = 128 (large inclusive 4-byte scans) -- is whole subgroups wide,
// and temp sized with the same rule serves the shape the scan then takes.
TEST(WorkgroupFit, NoDefaultScanShapeIsNarrowerThanTheSubgroup) {
  const core::PlanLimits plan_limits{};
  for (const uint32_t sg : subgroup_sizes) {
    const uint32_t narrowest = core::min_workgroup_size({max_invocations, sg});
    for (const Algorithm algorithm : {Algorithm::multipass, Algorithm::reduce_then_scan, Algorithm::single_pass})
      for (const DataType t : {DataType::u32, DataType::i32, DataType::f32, DataType::u64, DataType::i64, DataType::f64})
        for (const ScanKind kind : {ScanKind::exclusive, ScanKind::inclusive})
          for (const bool tuned : {true, false})
            for (const uint64_t n : {uint64_t{1000}, core::small_tile_max_elements + 1,
                                     core::large_tile_min_elements + 1, uint64_t{1} << 28}) {
              const core::TileShape s = core::scan_tile_shape(algorithm, 0, 0, t, kind, n, profile(tuned), {max_invocations, sg});
              const std::string where = std::string(to_string(algorithm)) + " " + std::string(to_string(t)) +
                                        " n " + std::to_string(n) + " subgroup " + std::to_string(sg);
              EXPECT_GE(s.workgroup_size, narrowest) << where;
              EXPECT_EQ(s.workgroup_size % sg, 0u) << where;
              // Where the subgroup is no wider than 32 the tuned shapes are unchanged.
              if (sg <= 32)
                EXPECT_EQ(s.workgroup_size, core::scan_tile_shape(algorithm, 0, 0, t, kind, n, profile(tuned)).workgroup_size)
                    << where;
              if (algorithm == Algorithm::multipass || n > (uint64_t{1} << 26)) continue;
              gpuscan::ScanConfig config;
              config.type = t;
              config.kind = kind;
              EXPECT_GE(core::scan_temp_elements(algorithm, n, config, profile(tuned), plan_limits, false, 0, {max_invocations, sg}),
                        core::plan_scan(algorithm, n, config, s, plan_limits).temp_elements)
                  << where;
            }
  }
  // The case that motivated the rule: the tuned 8-byte reduce-then-scan takes W = 64, which a 128-wide
  // subgroup would overfill; there it runs at W = 128 with the same K.
  const core::TileShape tuned_u64 = core::scan_tile_shape(Algorithm::reduce_then_scan, 0, 0, DataType::u64,
                                                          ScanKind::inclusive, core::large_tile_min_elements + 1,
                                                          profile(true), {1024, 128});
  EXPECT_EQ(tuned_u64.workgroup_size, 128u);
  EXPECT_EQ(tuned_u64.vectors_per_lane,
            core::scan_tile_shape(Algorithm::reduce_then_scan, 0, 0, DataType::u64, ScanKind::inclusive,
                                  core::large_tile_min_elements + 1, profile(true)).vectors_per_lane);
}

// Both backends' device descriptions give their limits: Vulkan's widest subgroup, OpenGL's one size.
TEST(WorkgroupFit, LimitsComeFromEitherBackendsDescription) {
  struct VulkanLike {
    uint32_t max_workgroup_invocations = 1024, subgroup_size = 64, max_subgroup_size = 128;
  };
  struct GlLike {
    uint32_t max_workgroup_invocations = 512, subgroup_size = 16;
  };
  const core::WorkgroupLimits vk = core::workgroup_limits(VulkanLike{});
  const core::WorkgroupLimits gl = core::workgroup_limits(GlLike{});
  EXPECT_EQ(vk.max_invocations, 1024u);
  EXPECT_EQ(vk.max_subgroup_size, 128u);
  EXPECT_EQ(gl.max_invocations, 512u);
  EXPECT_EQ(gl.max_subgroup_size, 16u);
}

}  // namespace
