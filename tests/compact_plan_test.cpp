// Unit tests for the stream-compaction plan (core::plan_compact): structure, temp layout, and a CPU
// interpreter that runs the plan -- count, the tile counts' scan (reduce-then-scan or multipass), scatter;
// or the single-pass dispatch -- and compares with std::copy_if, failing on any read of unwritten temp
// or any range out of bounds.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <variant>
#include <vector>

#include "core/plan.hpp"
#include "core/scan_shape.hpp"
#include "gpuscan/error.hpp"

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

class Interpreter {
 public:
  Interpreter(const Plan& plan, const CompactRequest& req, Memory& m) : plan_(plan), req_(req), m_(m) {
    m_.temp.assign(plan.temp_elements, 0xdeadbeef);
    m_.temp_written.assign(plan.temp_elements, false);
    m_.output.assign(req.n, 0xdeadbeef);
    m_.output_written.assign(req.n, false);
  }

  uint32_t read(const Range& r, uint64_t i) {
    EXPECT_LT(i, r.count);
    const uint64_t at = r.offset + i;
    switch (r.slot) {
      case Slot::input: EXPECT_LT(at, m_.input.size()); return m_.input.at(at);
      case Slot::output: ADD_FAILURE() << "plan reads the output"; return 0;
      case Slot::temp:
        EXPECT_LT(at, m_.temp.size());
        EXPECT_TRUE(m_.temp_written.at(at)) << "read of unwritten temp element " << at;
        return m_.temp.at(at);
    }
    return 0;
  }
  void write(const Range& r, uint64_t i, uint32_t v) {
    EXPECT_LT(i, r.count);
    const uint64_t at = r.offset + i;
    switch (r.slot) {
      case Slot::input: ADD_FAILURE() << "plan writes the input"; break;
      case Slot::output: m_.output.at(at) = v; m_.output_written.at(at) = true; break;
      case Slot::temp: m_.temp.at(at) = v; m_.temp_written.at(at) = true; break;
    }
  }

  void run() {
    for (const Step& s : plan_.steps)
      if (const auto* d = std::get_if<Dispatch>(&s)) dispatch(*d);
  }

 private:
  void dispatch(const Dispatch& d) {
    EXPECT_GE(uint64_t{d.groups_x} * d.groups_y, d.blocks);
    if (d.kernel == Kernel::compact_single_pass) {  // tiles in order: what the look-back makes of it
      EXPECT_EQ(d.aux.slot, Slot::temp);
      EXPECT_EQ(d.aux.offset, 0u);
      EXPECT_GE(d.aux.count * 4, gpuscan::core::single_pass_state_bytes(d.blocks));
      EXPECT_EQ(d.blocks, (d.n + req_.tile_size - 1) / req_.tile_size);
      uint32_t before = 0;
      for (uint64_t i = 0; i < d.n; ++i) {
        const uint32_t v = read(d.src, i);
        if (m_.flags[i]) write(d.dst, before++, v);
      }
      m_.count = before;
      return;
    }
    if (d.output_window) {  // one input window's tiles, stores clipped to one output window
      const uint64_t tile = req_.tile_size;
      const bool partition = d.kernel == Kernel::compact_partition;
      EXPECT_TRUE(partition || d.kernel == Kernel::compact_scatter);
      EXPECT_EQ(d.src.offset, d.first_tile * tile);
      EXPECT_LE(d.src.count, req_.window);
      EXPECT_LE(d.dst.count, req_.window);
      const uint32_t all_kept = partition ? read(d.aux, d.all_tiles - 1) : 0;
      for (uint64_t t = 0; t < d.blocks; ++t) {
        const uint64_t g = d.first_tile + t;
        uint32_t at = partition ? (g == 0 ? 0 : read(d.aux, g - 1)) : read(d.aux, g);
        for (uint64_t i = t * tile; i < std::min<uint64_t>(d.n, (t + 1) * tile); ++i) {
          const uint32_t v = read(d.src, i);
          const uint64_t whole = d.src.offset + i;
          uint64_t to = 0;
          if (m_.flags[whole]) to = at++;
          else if (partition) to = all_kept + (whole - at);
          else continue;
          if (to >= d.dst.offset && to < d.dst.offset + d.dst.count) write(d.dst, to - d.dst.offset, v);
        }
        if (g + 1 == d.all_tiles) m_.count = at;
      }
      return;
    }
    if (d.kernel == Kernel::compact_partition) {  // inclusive tile offsets; rejected after all kept, stable
      const uint64_t tile = req_.tile_size;
      const uint32_t all_kept = read(d.aux, d.blocks - 1);
      for (uint64_t t = 0; t < d.blocks; ++t) {
        uint32_t at = t == 0 ? 0 : read(d.aux, t - 1);
        for (uint64_t i = t * tile; i < std::min<uint64_t>(d.n, (t + 1) * tile); ++i) {
          const uint32_t v = read(d.src, i);
          if (m_.flags[i]) write(d.dst, at++, v);
          else write(d.dst, all_kept + (i - at), v);
        }
      }
      m_.count = all_kept;
      return;
    }
    if (d.kernel == Kernel::compact_count || d.kernel == Kernel::compact_scatter) {
      const uint64_t tile = req_.tile_size;
      if (d.n == 0) {
        EXPECT_EQ(d.kernel, Kernel::compact_scatter);
        m_.count = 0;
        return;
      }
      EXPECT_EQ(d.blocks, (d.n + tile - 1) / tile);
      uint32_t last_total = 0;
      for (uint64_t t = 0; t < d.blocks; ++t) {
        uint32_t at = d.kernel == Kernel::compact_scatter ? read(d.aux, t) : 0;
        const uint32_t first = at;
        for (uint64_t i = t * tile; i < std::min<uint64_t>(d.n, (t + 1) * tile); ++i) {
          const uint32_t v = read(d.src, i);
          if (!m_.flags[d.src.offset + i]) continue;
          if (d.kernel == Kernel::compact_scatter) write(d.dst, at, v);
          ++at;
        }
        if (d.kernel == Kernel::compact_count) write(d.aux, t, at);
        last_total = at;
        (void)first;
      }
      if (d.kernel == Kernel::compact_scatter) m_.count = last_total;
      return;
    }
    const uint64_t block = req_.counts_block_size;
    for (uint64_t b = 0; b < d.blocks; ++b) {
      const uint64_t end = std::min<uint64_t>(d.n, (b + 1) * block);
      switch (d.kernel) {
        case Kernel::reduce_tiles: {
          uint32_t sum = 0;
          for (uint64_t i = b * block; i < end; ++i) sum += read(d.src, i);
          write(d.aux, b, sum);
          break;
        }
        case Kernel::scan_tiles:
        case Kernel::scan_local: {
          uint32_t sum = d.read_offsets ? read(d.aux, b) : 0;
          std::vector<uint32_t> in;
          for (uint64_t i = b * block; i < end; ++i) in.push_back(read(d.src, i));
          uint32_t total = 0;
          for (uint64_t i = b * block; i < end; ++i) {
            if (!d.inclusive) write(d.dst, i, sum);
            sum += in[i - b * block];
            if (d.inclusive) write(d.dst, i, sum);
            total += in[i - b * block];
          }
          if (d.write_block_sums) write(d.aux, b, total);
          break;
        }
        case Kernel::uniform_add: {
          const uint32_t offset = read(d.aux, b);
          for (uint64_t i = b * block; i < end; ++i) write(d.dst, i, read(d.dst, i) + offset);
          break;
        }
        default: ADD_FAILURE() << "unexpected kernel " << gpuscan::core::kernel_name(d.kernel);
      }
    }
  }

  const Plan& plan_;
  const CompactRequest& req_;
  Memory& m_;
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

// Runs `plan` on req.n random inputs, about a third of them flagged.
Memory simulate(const Plan& plan, const CompactRequest& req, std::mt19937_64& rng) {
  Memory m;
  for (uint64_t i = 0; i < req.n; ++i) {
    m.input.push_back(static_cast<uint32_t>(rng()));
    m.flags.push_back(rng() % 3 == 0);
  }
  Interpreter(plan, req, m).run();
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
