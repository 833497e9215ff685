// Unit tests for the stream-compaction plan (core::plan_compact): structure, temp layout, and its program
// run by the tests' CPU executor -- count, the tile counts' scan (reduce-then-scan or multipass), scatter;
// or the single-pass dispatch -- compared with std::copy_if, failing on any read of unwritten temp, any
// range out of bounds and any race.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <variant>
#include <vector>

#include "core/plan.hpp"
#include "core/plan_program.hpp"
#include "core/scan_shape.hpp"
#include "gpuscan/error.hpp"
#include "program_interpreter.hpp"

namespace {

using gpuscan::core::Barrier;
using gpuscan::core::CompactRequest;
using gpuscan::core::Dispatch;
using gpuscan::core::Fill;
using gpuscan::core::Kernel;
using gpuscan::core::Plan;
using gpuscan::core::Range;
using gpuscan::core::Slot;
using gpuscan::core::Step;

struct Memory {
  std::vector<uint32_t> input, output, temp;
  std::vector<bool> flags;                  // the predicate, precomputed
  std::vector<bool> temp_written;
  std::vector<bool> output_written;
  uint32_t count = 0xdeadbeef;
};

CompactRequest request(uint64_t n, uint32_t tile, bool multipass, uint32_t counts_block, bool single_pass = false) {
  CompactRequest r;
  r.n = n;
  r.tile_size = tile;
  r.counts_multipass = multipass;
  r.counts_block_size = counts_block;
  r.single_pass = single_pass;
  return r;
}

// Runs `plan`'s program (core::lower_compact_plan, what both backends execute, select_flagged's) on req.n
// random inputs, about a third of them flagged, with the tests' CPU executor (program_interpreter.hpp),
// which fails on reads of unwritten temp, ranges out of bounds and races.
Memory simulate(const Plan& plan, const CompactRequest& req, std::mt19937_64& rng) {
  Memory m;
  std::vector<uint32_t> flag_words;
  for (uint64_t i = 0; i < req.n; ++i) {
    m.input.push_back(static_cast<uint32_t>(rng()));
    m.flags.push_back(rng() % 3 == 0);
    flag_words.push_back(m.flags.back() ? 1 + static_cast<uint32_t>(rng() % 7) : 0);  // any non-zero keeps
  }
  auto bytes = [](const std::vector<uint32_t>& v) {
    std::vector<std::byte> b(v.size() * 4);
    if (!v.empty()) std::memcpy(b.data(), v.data(), b.size());
    return b;
  };
  const std::vector<uint32_t> poison_out(req.n, 0xdeadbeef), poison_temp(plan.temp_elements, 0xdeadbeef);
  using Buffer = gpuscan::test::ProgramInterpreter::Buffer;
  // core::PlanBuffer's order: input, output, temp, a count in GPU memory and its status (none), flags,
  // the count of kept elements, indices (none).
  gpuscan::test::ProgramInterpreter sim({Buffer{bytes(m.input), true}, Buffer{bytes(poison_out)}, Buffer{bytes(poison_temp)},
                                         Buffer{}, Buffer{}, Buffer{bytes(flag_words), true},
                                         Buffer{bytes({0xdeadbeef})}, Buffer{}},
                                        req.counts_block_size);
  sim.set_block_size("compact_", req.tile_size);
  gpuscan::core::CompactLowering how;
  how.scan.element_size = 4;
  how.scan.key_of = [](const Dispatch& d) {
    gpuscan::PipelineKey key;
    key.variant = gpuscan::core::kernel_name(d.kernel);
    key.inclusive = d.inclusive;
    key.use_aux = d.write_block_sums || d.read_offsets;
    return key;
  };
  how.count = req.n;
  how.flagged = true;
  sim.run(gpuscan::core::lower_compact_plan(plan, how));
  EXPECT_EQ(sim.errors(), 0u) << "first: " << sim.first_error();
  const std::vector<std::byte>& out = sim.bytes(gpuscan::core::plan_output);
  m.output.resize(req.n);
  if (req.n) std::memcpy(m.output.data(), out.data(), out.size());
  for (uint64_t i = 0; i < req.n; ++i) m.output_written.push_back(sim.written(gpuscan::core::plan_output, 4 * i, 4));
  EXPECT_TRUE(sim.written(gpuscan::core::plan_count_out, 0, 4)) << "the count was never written";
  std::memcpy(&m.count, sim.bytes(gpuscan::core::plan_count_out).data(), 4);
  return m;
}

// What a plan run on `m` must write: the flagged inputs in order (`kept` of them), then with
// `partition` the others in order.
std::vector<uint32_t> expected(const Memory& m, bool partition, size_t& kept) {
  std::vector<uint32_t> want, rejected;
  for (size_t i = 0; i < m.input.size(); ++i) (m.flags[i] ? want : rejected).push_back(m.input[i]);
  kept = want.size();
  if (partition) want.insert(want.end(), rejected.begin(), rejected.end());
  return want;
}

TEST(CompactPlan, EmptyInputOnlyWritesTheCount) {
  const Plan plan = gpuscan::core::plan_compact(request(0, 8, false, 8));
  ASSERT_EQ(plan.steps.size(), 1u);
  const auto& d = std::get<Dispatch>(plan.steps[0]);
  EXPECT_EQ(d.kernel, Kernel::compact_scatter);
  EXPECT_EQ(d.groups_x * d.groups_y, 1u);
  EXPECT_EQ(plan.temp_elements, 0u);
}

TEST(CompactPlan, OneTileByHand) {
  const Plan plan = gpuscan::core::plan_compact(request(5, 8, false, 8));
  ASSERT_EQ(plan.steps.size(), 5u) << gpuscan::core::describe(plan);
  EXPECT_EQ(std::get<Dispatch>(plan.steps[0]).kernel, Kernel::compact_count);
  EXPECT_TRUE(std::holds_alternative<Barrier>(plan.steps[1]));
  EXPECT_EQ(std::get<Dispatch>(plan.steps[2]).kernel, Kernel::scan_tiles);
  EXPECT_TRUE(std::holds_alternative<Barrier>(plan.steps[3]));
  EXPECT_EQ(std::get<Dispatch>(plan.steps[4]).kernel, Kernel::compact_scatter);
  EXPECT_EQ(plan.temp_elements, 1u);
  const std::string text = gpuscan::core::describe(plan);
  EXPECT_NE(text.find("compact_count n=5"), std::string::npos) << text;
  EXPECT_NE(text.find("compact_scatter n=5 grid=1x1 input[0, 5) -> output[0, 5) offsets temp[0, 1)"),
            std::string::npos)
      << text;
}

TEST(CompactPlan, InvalidTileSizeThrows) {
  EXPECT_THROW(gpuscan::core::plan_compact(request(5, 6, false, 8)), gpuscan::Error);
}

// The plans run on the interpreter against std::copy_if (selections) or std::stable_partition, one instance
// per way of planning: the tile counts scanned by reduce-then-scan or by multipass, or the single-pass plan
// (selections only).
struct CompactCase {
  const char* name;
  bool partition;
  bool counts_multipass;
  bool single_pass;
  uint64_t start;  // the random generator's
};

// gtest prints the parameter of a failed instance: its name, not its bytes.
void PrintTo(const CompactCase& c, std::ostream* os) { *os << c.name; }

class SimulatedCompactPlan : public ::testing::TestWithParam<CompactCase> {};

INSTANTIATE_TEST_SUITE_P(, SimulatedCompactPlan,
                         ::testing::Values(CompactCase{"select_counts_by_reduce_then_scan", false, false, false, 12345},
                                           CompactCase{"select_counts_by_multipass", false, true, false, 12346},
                                           CompactCase{"select_single_pass", false, false, true, 12347},
                                           CompactCase{"partition_counts_by_reduce_then_scan", true, false, false, 54321},
                                           CompactCase{"partition_counts_by_multipass", true, true, false, 54322}),
                         [](const ::testing::TestParamInfo<CompactCase>& info) { return std::string(info.param.name); });

TEST_P(SimulatedCompactPlan, MatchesCopyIfOrStablePartition) {
  const CompactCase& c = GetParam();
  std::mt19937_64 rng(c.start);
  for (uint32_t tile : {2u, 4u, 8u})
    for (uint64_t n : {1ull, 2ull, 3ull, 7ull, 8ull, 9ull, 31ull, 64ull, 65ull, 100ull, 513ull, 1000ull, 4097ull}) {
      CompactRequest req =
          request(n, tile, c.counts_multipass, c.counts_multipass ? std::max(2u, tile / 2) : tile, c.single_pass);
      req.partition = c.partition;
      const Plan plan = gpuscan::core::plan_compact(req);
      SCOPED_TRACE(gpuscan::core::describe(plan));
      const Memory m = simulate(plan, req, rng);
      size_t kept = 0;
      const std::vector<uint32_t> want = expected(m, c.partition, kept);
      ASSERT_EQ(m.count, kept);
      ASSERT_TRUE(std::equal(want.begin(), want.end(), m.output.begin()));
      // A selection writes the kept elements and leaves the rest of the output alone; a partition writes it all.
      for (uint64_t i = 0; i < n; ++i) ASSERT_EQ(static_cast<bool>(m.output_written[i]), i < want.size()) << i;
      if (HasFailure()) return;
    }
}

// Windows of whole tiles: counts per window, one scan, scatters per (input, output) window pair with
// clipped stores, every range within one window; selections and partitions against the CPU.
TEST(CompactPlan, SimulatedWindowsMatchCopyIfAndStablePartition) {
  std::mt19937_64 rng(777);
  for (bool partition : {false, true})
    for (bool multipass : {false, true})
      for (uint64_t window : {8ull, 24ull})
        for (uint64_t n : {9ull, 16ull, 24ull, 25ull, 47ull, 48ull, 49ull, 100ull, 1000ull}) {
          CompactRequest req = request(n, 8, multipass, multipass ? 4 : 8);
          req.partition = partition;
          req.window = window;
          const Plan plan = gpuscan::core::plan_compact(req);
          SCOPED_TRACE(gpuscan::core::describe(plan));
          const uint64_t windows = (n + window - 1) / window;
          size_t scatters = 0;
          for (const Step& s : plan.steps)
            if (const auto* d = std::get_if<Dispatch>(&s); d && d->output_window) ++scatters;
          if (n <= window) EXPECT_EQ(scatters, 0u);  // one binding holds it all: the plain plan
          else EXPECT_EQ(scatters, partition ? windows * windows : windows * (windows + 1) / 2);
          const Memory m = simulate(plan, req, rng);
          size_t kept = 0;
          const std::vector<uint32_t> want = expected(m, partition, kept);
          ASSERT_EQ(m.count, kept);
          ASSERT_TRUE(std::equal(want.begin(), want.end(), m.output.begin()));
          for (uint64_t i = want.size(); i < n; ++i) ASSERT_FALSE(m.output_written[i]) << i;
          if (::testing::Test::HasFailure()) return;
        }
  CompactRequest bad = request(100, 8, false, 8);
  bad.window = 12;  // not whole tiles
  EXPECT_THROW(gpuscan::core::plan_compact(bad), gpuscan::Error);
  bad.window = 16;
  bad.single_pass = true;
  EXPECT_THROW(gpuscan::core::plan_compact(bad), gpuscan::Error);
}

// The outline of a windowed compaction (PlanExtent::outline) lists the count and scatter dispatches of
// windows 0 and 1 only -- a partition's full plan has a scatter per pair of windows, so its length grows
// with the square of the count -- and has the whole plan's temp and levels.
TEST(CompactPlan, OutlinesOfWindowedPlans) {
  for (bool partition : {false, true})
    for (uint64_t n : {24ull, 25ull, 47ull, 100ull, 1000ull}) {
      CompactRequest req = request(n, 8, false, 8);
      req.partition = partition;
      req.window = 24;
      const Plan full = gpuscan::core::plan_compact(req);
      req.extent = gpuscan::core::PlanExtent::outline;
      const Plan outline = gpuscan::core::plan_compact(req);
      SCOPED_TRACE(gpuscan::core::describe(outline));
      const uint64_t windows = (n + 23) / 24;
      EXPECT_EQ(outline.temp_elements, full.temp_elements);
      EXPECT_EQ(outline.levels, full.levels);
      EXPECT_EQ(outline.windows_left_out, windows - std::min<uint64_t>(windows, 2));
      size_t scatters = 0;
      for (const Step& s : outline.steps)
        if (const auto* d = std::get_if<Dispatch>(&s); d && d->output_window) ++scatters;
      EXPECT_EQ(scatters, n <= 24 ? 0u : partition ? 4u : 3u);
    }
  // 2^32 - 2^20 elements (a compaction's most, about) in windows of 4096: a partition's full plan would hold
  // about 2^40 scatters.
  CompactRequest huge = request((uint64_t{1} << 32) - (uint64_t{1} << 20), 4096, false, 4096);
  huge.partition = true;
  huge.window = 4096;
  huge.extent = gpuscan::core::PlanExtent::outline;
  const Plan outline = gpuscan::core::plan_compact(huge);
  EXPECT_LT(outline.steps.size(), 40u);
  EXPECT_EQ(outline.windows_left_out, huge.n / 4096 - 2);
}

TEST(CompactPlan, PartitionScansInclusivelyAndEndsWithCompactPartition) {
  CompactRequest req = request(5, 8, false, 8);
  req.partition = true;
  const Plan plan = gpuscan::core::plan_compact(req);
  ASSERT_EQ(plan.steps.size(), 5u) << gpuscan::core::describe(plan);
  EXPECT_TRUE(std::get<Dispatch>(plan.steps[2]).inclusive);
  EXPECT_EQ(std::get<Dispatch>(plan.steps[4]).kernel, Kernel::compact_partition);
  const std::string text = gpuscan::core::describe(plan);
  EXPECT_NE(text.find("compact_partition n=5 grid=1x1 input[0, 5) -> output[0, 5) inclusive offsets temp[0, 1)"),
            std::string::npos)
      << text;
  EXPECT_STREQ(gpuscan::core::kernel_name(Kernel::compact_partition), "compact_partition");
}

TEST(CompactPlan, SinglePassIsOneDispatchAfterClearingItsState) {
  const Plan plan = gpuscan::core::plan_compact(request(20, 8, false, 8, true));
  ASSERT_EQ(plan.steps.size(), 3u) << gpuscan::core::describe(plan);
  const Range state{Slot::temp, 0, (8 + 8 * 3) / 4};  // counter, done count, one 64-bit word per tile
  EXPECT_EQ(std::get<Fill>(plan.steps[0]).range, state);
  EXPECT_TRUE(std::holds_alternative<Barrier>(plan.steps[1]));
  const auto& d = std::get<Dispatch>(plan.steps[2]);
  EXPECT_EQ(d.kernel, Kernel::compact_single_pass);
  EXPECT_EQ(d.blocks, 3u);
  EXPECT_EQ(d.aux, state);
  EXPECT_EQ(plan.temp_elements, state.count);
  EXPECT_EQ(plan.levels, 1u);
  const std::string text = gpuscan::core::describe(plan);
  EXPECT_NE(text.find("compact_single_pass n=20 grid=3x1 input[0, 20) -> output[0, 20) state temp[0, 8)"),
            std::string::npos)
      << text;

  CompactRequest zeroed = request(20, 8, false, 8, true);
  zeroed.temp_zeroed = true;
  const Plan direct = gpuscan::core::plan_compact(zeroed);
  ASSERT_EQ(direct.steps.size(), 1u);
  EXPECT_EQ(std::get<Dispatch>(direct.steps[0]).kernel, Kernel::compact_single_pass);
}

TEST(CompactPlan, SinglePassGridEmptyInputAndNoPartition) {
  CompactRequest req = request(1000, 4, false, 4, true);  // 250 tiles on a grid of at most 100 per row
  req.limits.max_groups_x = 100;
  const Plan plan = gpuscan::core::plan_compact(req);
  const auto& d = std::get<Dispatch>(plan.steps.back());
  EXPECT_EQ(d.groups_y, 3u);
  EXPECT_GE(uint64_t{d.groups_x} * d.groups_y, 250u);
  const Plan empty = gpuscan::core::plan_compact(request(0, 8, false, 8, true));
  ASSERT_EQ(empty.steps.size(), 1u);
  EXPECT_EQ(std::get<Dispatch>(empty.steps[0]).kernel, Kernel::compact_scatter);  // writes the count 0
  req.partition = true;
  try {
    gpuscan::core::plan_compact(req);
    ADD_FAILURE() << "a single-pass partition was planned";
  } catch (const gpuscan::Error& e) {
    EXPECT_EQ(e.code(), gpuscan::Errc::invalid_argument);
  }
}

}  // namespace

namespace {

// The single-pass kernel's shared memory (compact_stage.glsl stages a whole tile): the default tile
// fits lavapipe's 32 KiB, the larger default for big selections (K = 8) fits the 48 KiB of NVIDIA's
// Vulkan driver but not lavapipe -- the two facts the defaults in compact.hpp rest on.
TEST(CompactPlan, SinglePassStageSizes) {
  using gpuscan::core::compact_single_pass_shared_bytes;
  using gpuscan::core::TileShape;
  const uint64_t w256k4 = compact_single_pass_shared_bytes(TileShape{256, 4});
  const uint64_t w256k8 = compact_single_pass_shared_bytes(TileShape{256, 8});
  EXPECT_GE(w256k4, uint64_t{256} * 4 * 16);  // at least the stage itself
  EXPECT_LE(w256k4, 32768u);
  EXPECT_GT(w256k8, 32768u);
  EXPECT_LE(w256k8, 49152u);
  EXPECT_GT(compact_single_pass_shared_bytes(TileShape{1024, 16}), 49152u);
}

}  // namespace
