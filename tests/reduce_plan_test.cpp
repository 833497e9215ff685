// Unit tests for the reduction plan (core::plan_reduce): structure by hand, and its program run by the
// tests' CPU executor on wrapping 64-bit sums -- each workgroup reading only its tile of src, a barrier
// required before any level reads what the previous one wrote -- compared with the sum of the input,
// failing on reads of unwritten temp and ranges out of bounds.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <variant>
#include <vector>

#include "core/indirect.hpp"
#include "core/plan.hpp"
#include "core/plan_program.hpp"
#include "core/windows.hpp"
#include "gpuscan/error.hpp"
#include "program_interpreter.hpp"

namespace {

using gpuscan::core::Barrier;
using gpuscan::core::Dispatch;
using gpuscan::core::Kernel;
using gpuscan::core::Plan;
using gpuscan::core::PlanLimits;
using gpuscan::core::Range;
using gpuscan::core::ScanRequest;
using gpuscan::core::Slot;

ScanRequest request(uint64_t n, uint32_t block, PlanLimits limits = {}) {
  ScanRequest r;
  r.n = n;
  r.block_size = block;
  r.limits = limits;
  return r;
}

uint64_t ceil_div(uint64_t a, uint64_t b) { return a / b + (a % b != 0); }

// The plan's structure -- reduce_tiles only, whole grids, each level's totals apart from every other's --
// then its program (core::lower_scan_plan, what both backends execute) on the tests' CPU executor
// (program_interpreter.hpp), which fails on reads of unwritten temp, ranges out of bounds and levels read
// with no barrier after their write. Returns output[0].
uint64_t simulate(const Plan& plan, const ScanRequest& req, const std::vector<uint64_t>& input) {
  std::vector<Range> levels;
  for (const auto& step : plan.steps) {
    if (std::holds_alternative<Barrier>(step)) continue;
    const auto* d = std::get_if<Dispatch>(&step);
    if (!d) {
      ADD_FAILURE() << "a reduction plan has only dispatches and barriers";
      continue;
    }
    EXPECT_EQ(d->kernel, Kernel::reduce_tiles);
    EXPECT_EQ(d->blocks, std::max<uint64_t>(1, ceil_div(d->n, req.block_size)));
    EXPECT_GE(uint64_t{d->groups_x} * d->groups_y, d->blocks);
    EXPECT_LE(d->groups_x, req.limits.max_groups_x);
    EXPECT_LE(d->groups_y, req.limits.max_groups_y);
    EXPECT_EQ(d->src.count, d->n);
    if (d->aux.slot != Slot::temp) continue;
    for (const Range& r : levels)
      EXPECT_TRUE(d->aux.offset >= r.offset + r.count || r.offset >= d->aux.offset + d->aux.count)
          << "temp levels overlap";
    levels.push_back(d->aux);
  }
  gpuscan::core::ScanLowering how;
  how.element_size = 8;
  how.key_of = [](const Dispatch& d) {
    gpuscan::PipelineKey key;
    key.variant = gpuscan::core::kernel_name(d.kernel);
    return key;
  };
  auto bytes = [](const std::vector<uint64_t>& v) {
    std::vector<std::byte> b(v.size() * 8);
    if (!v.empty()) std::memcpy(b.data(), v.data(), b.size());
    return b;
  };
  using Buffer = gpuscan::test::ProgramInterpreter::Buffer;
  gpuscan::test::ProgramInterpreter sim({Buffer{bytes(input), true}, Buffer{bytes({0xdead})},
                                         Buffer{bytes(std::vector<uint64_t>(plan.temp_elements, 0xdead))}},
                                        req.block_size);
  sim.run(gpuscan::core::lower_scan_plan(plan, how));
  EXPECT_EQ(sim.errors(), 0u) << "first: " << sim.first_error();
  EXPECT_TRUE(sim.written(gpuscan::core::plan_output, 0, 8)) << "output[0] was never written";
  uint64_t out = 0;
  std::memcpy(&out, sim.bytes(gpuscan::core::plan_output).data(), 8);
  return out;
}

// Levels: one reduce_tiles per level, ceil(n / B) totals at level 1, ... until one tile is left.
uint32_t expected_levels(uint64_t n, uint64_t b) {
  uint32_t levels = 1;
  for (uint64_t m = n; m > b; m = ceil_div(m, b)) ++levels;
  return levels;
}

TEST(Reduce, EmptyInputWritesTheIdentityWithoutReadingInput) {
  const Plan plan = gpuscan::core::plan_reduce(request(0, 128));
  ASSERT_EQ(plan.steps.size(), 1u);
  const auto& d = std::get<Dispatch>(plan.steps[0]);
  EXPECT_EQ(d.kernel, Kernel::reduce_tiles);
  EXPECT_EQ(d.n, 0u);
  EXPECT_EQ(d.blocks, 1u);
  EXPECT_EQ(d.src, (Range{Slot::output, 0, 0})) << "n = 0 must not need an input buffer";
  EXPECT_EQ(d.aux, (Range{Slot::output, 0, 1}));
  EXPECT_EQ(plan.temp_elements, 0u);
}

TEST(Reduce, ThreeLevelsByHand) {
  // 1000 elements, B = 8: 125 totals, then 16, then 2, then the result.
  const Plan plan = gpuscan::core::plan_reduce(request(1000, 8));
  ASSERT_EQ(plan.dispatch_count(), 4u);
  ASSERT_EQ(plan.steps.size(), 7u);
  const auto& l0 = std::get<Dispatch>(plan.steps[0]);
  const auto& l1 = std::get<Dispatch>(plan.steps[2]);
  const auto& l2 = std::get<Dispatch>(plan.steps[4]);
  const auto& l3 = std::get<Dispatch>(plan.steps[6]);
  EXPECT_EQ(l0.src, (Range{Slot::input, 0, 1000}));
  EXPECT_EQ(l0.aux, (Range{Slot::temp, 0, 125}));
  EXPECT_EQ(l1.src, l0.aux);
  EXPECT_EQ(l1.aux, (Range{Slot::temp, 128, 16}));  // levels start at multiples of 16 elements
  EXPECT_EQ(l2.src, l1.aux);
  EXPECT_EQ(l2.aux, (Range{Slot::temp, 144, 2}));
  EXPECT_EQ(l3.src, l2.aux);
  EXPECT_EQ(l3.aux, (Range{Slot::output, 0, 1}));
  EXPECT_EQ(plan.levels, 4u);
  EXPECT_EQ(plan.temp_elements, 160u);
  const std::string text = gpuscan::core::describe(plan);
  EXPECT_NE(text.find("L3 reduce_tiles n=2 grid=1x1 temp[144, 146) sums output[0, 1)"), std::string::npos) << text;
}

TEST(Reduce, SimulatedAcrossSizes) {
  std::mt19937_64 rng(std::random_device{}());
  for (uint32_t b : {2u, 4u, 128u, 4096u}) {
    for (uint64_t n : {uint64_t{1}, uint64_t{2}, uint64_t{b} - 1, uint64_t{b}, uint64_t{b} + 1, uint64_t{b} * b - 1,
                       uint64_t{b} * b, uint64_t{b} * b + 1, uint64_t{b} * 3 + 7}) {
      if (n == 0 || n > 3'000'000) continue;
      for (PlanLimits limits : {PlanLimits{}, PlanLimits{3, 65535}}) {
        SCOPED_TRACE("B = " + std::to_string(b) + ", n = " + std::to_string(n) + ", grid width " +
                     std::to_string(limits.max_groups_x));
        const ScanRequest req = request(n, b, limits);
        const Plan plan = gpuscan::core::plan_reduce(req);
        EXPECT_EQ(plan.levels, expected_levels(n, b));
        std::vector<uint64_t> input(n);
        for (auto& v : input) v = rng();
        EXPECT_EQ(simulate(plan, req, input), std::accumulate(input.begin(), input.end(), uint64_t{0}));
      }
    }
  }
}

TEST(Reduce, InvalidRequestsThrow) {
  EXPECT_THROW(gpuscan::core::plan_reduce(request(10, 3)), gpuscan::Error);
  try {
    gpuscan::core::plan_reduce(request(uint64_t{1} << 40, 2, PlanLimits{16, 16}));
    ADD_FAILURE() << "a grid past the limits was planned";
  } catch (const gpuscan::Error& e) {
    EXPECT_EQ(e.code(), gpuscan::Errc::too_large);
  }
}


// Past one binding a reduction runs in windows, each into a partial, then the partials are reduced. Its
// outline (PlanExtent::outline) plans windows 0 and 1 and that final reduction only, with the whole plan's
// temp: so sizing it costs the same at 2^50 elements as at a few windows.
TEST(Reduce, OutlinesOfWindowedReductions) {
  using gpuscan::core::PlanExtent;
  const auto planner = [](int* planned) {
    return [planned](uint64_t n) {
      ++*planned;
      return gpuscan::core::plan_reduce(request(n, 64));
    };
  };
  for (const uint64_t window : {uint64_t{1024}, uint64_t{4992}})
    for (const uint64_t n : {uint64_t{1000}, 2 * window, 2 * window + 1, 7 * window + 5}) {
      SCOPED_TRACE("n = " + std::to_string(n) + ", window " + std::to_string(window));
      int planned = 0;
      const Plan full = gpuscan::core::plan_windowed_reduce(n, window, planner(&planned));
      const Plan outline = gpuscan::core::plan_windowed_reduce(n, window, planner(&planned), PlanExtent::outline);
      const uint64_t windows = ceil_div(n, window);
      EXPECT_EQ(outline.temp_elements, full.temp_elements);
      EXPECT_EQ(outline.levels, full.levels);
      EXPECT_EQ(outline.windows_left_out, windows - std::min<uint64_t>(windows, 2));
      // The listed windows are the full plan's first ones; the final reduction is its last steps.
      const std::string all = gpuscan::core::describe(full), listed = gpuscan::core::describe(outline);
      const std::string head = listed.substr(listed.find('\n') + 1);
      const std::string first_windows = head.substr(0, head.find("  L0 reduce_tiles n=" + std::to_string(windows)));
      EXPECT_NE(all.find(first_windows), std::string::npos) << listed << "\nfull:\n" << all;
      ASSERT_LE(outline.steps.size(), full.steps.size());
      const auto final_steps = [](const Plan& p, size_t count) {
        std::string text;
        for (size_t i = p.steps.size() - count; i < p.steps.size(); ++i)
          if (const auto* d = std::get_if<Dispatch>(&p.steps[i]))
            text += std::to_string(d->n) + " " + std::to_string(d->src.offset) + " " + std::to_string(d->aux.offset) + ";";
        return text;
      };
      const size_t final_count = gpuscan::core::plan_reduce(request(windows, 64)).steps.size();
      EXPECT_EQ(final_steps(outline, final_count), final_steps(full, final_count));
    }
  for (const uint64_t n : {uint64_t{1} << 40, uint64_t{1} << 50}) {
    int planned = 0;
    const Plan outline = gpuscan::core::plan_windowed_reduce(n, 33554416, planner(&planned), PlanExtent::outline);
    EXPECT_LE(planned, 4) << "the first window for the scratch, windows 0 and 1, the partials";
    EXPECT_EQ(outline.windows_left_out, ceil_div(n, 33554416) - 2);
    EXPECT_LT(outline.steps.size(), 30u);
  }
}

// A count in GPU memory drives every dispatch of the plan, so a reduction in windows, whose windows have
// counts of their own, is refused like a scan in windows; one window is not.
TEST(Reduce, CountsFromGpuMemoryRefuseWindows) {
  const auto planner = [](uint64_t n) { return gpuscan::core::plan_reduce(request(n, 64)); };
  EXPECT_NO_THROW(gpuscan::core::plan_indirect(planner(5000), 4));
  try {
    gpuscan::core::plan_indirect(gpuscan::core::plan_windowed_reduce(5000, 1024, planner), 4);
    ADD_FAILURE() << "a windowed reduction took its count from GPU memory";
  } catch (const gpuscan::Error& e) {
    EXPECT_EQ(e.code(), gpuscan::Errc::too_large) << e.what();
  }
}

}  // namespace
