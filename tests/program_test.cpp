// The one step format (src/core/program.hpp) and the programs the planners make of it, without a GPU:
// barriers and their scopes, parameter words resolved from bound offsets and addresses, programs placed
// inside others, and the shapes of the scan, histogram, run-length and sort programs.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <random>
#include <string>
#include <variant>
#include <vector>

#include "core/histogram_plan.hpp"
#include "core/plan_program.hpp"
#include "core/run_length_plan.hpp"
#include "core/sort_plan.hpp"
#include "gpuscan/error.hpp"

namespace gpuscan::core {
namespace {

// GPUSCAN_TEST_SEED replays a run; otherwise a fresh seed, printed with every failure.
uint64_t seed() {
  static const uint64_t s = [] {
    if (const char* e = std::getenv("GPUSCAN_TEST_SEED")) return uint64_t{std::strtoull(e, nullptr, 0)};
    return static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  }();
  return s;
}
std::string seed_note() { return "GPUSCAN_TEST_SEED=" + std::to_string(seed()); }

std::vector<std::string> kinds(const Program& p) {
  std::vector<std::string> k;
  for (const Command& c : p.commands)
    k.push_back(std::holds_alternative<cmd::Dispatch>(c)  ? std::get<cmd::Dispatch>(c).key.variant
                : std::holds_alternative<cmd::Barrier>(c) ? "barrier"
                : std::holds_alternative<cmd::Fill>(c)    ? "fill"
                                                          : "update");
  return k;
}

cmd::Dispatch named(const std::string& variant, std::vector<Bind> bindings = {Bind{}}) {
  cmd::Dispatch d;
  d.key.variant = variant;
  d.bindings = std::move(bindings);
  return d;
}

TEST(Program, BarriersAreNeverLeadingOrDoubled) {
  Program p;
  p.barrier();
  p.fill(0, 0, 0);                 // nothing to fill: no command
  p.update(1, 8, {});              // nothing to write: no command
  p.barrier();
  EXPECT_TRUE(p.commands.empty());
  p.fill(0, 4, 8, 7);
  p.barrier();
  p.barrier();
  p.dispatch(named("a"));
  EXPECT_EQ(kinds(p), (std::vector<std::string>{"fill", "barrier", "a"}));
  EXPECT_THROW(p.fill(0, 2, 4), Error);    // whole words only
  EXPECT_THROW(p.fill(0, 4, 6), Error);
  EXPECT_THROW(p.update(0, 3, {1}), Error);
  EXPECT_EQ(p.dispatch_count(), 1u);
}

TEST(Program, BarrierScopesSeeWritersBeforeAndEveryReaderAfter) {
  Program p;
  p.fill(0, 0, 4);
  p.barrier();                                        // 1: transfer -> dispatch, indirect, transfer
  p.dispatch(named("a"));
  p.barrier();                                        // 3: dispatch -> dispatch, indirect, transfer
  cmd::Dispatch b = named("b");
  b.indirect = cmd::Dispatch::Indirect{2, 16};
  p.dispatch(std::move(b));
  p.barrier();                                        // 5: dispatch -> transfer
  p.update(1, 0, {1, 2});
  ASSERT_EQ(p.commands.size(), 7u);
  const BarrierScope first = barrier_scope(p, 1);
  EXPECT_TRUE(first.after_transfer && !first.after_dispatch);
  EXPECT_TRUE(first.before_dispatch && first.before_indirect && first.before_transfer);
  const BarrierScope second = barrier_scope(p, 3);
  EXPECT_TRUE(second.after_dispatch && !second.after_transfer);
  EXPECT_TRUE(second.before_dispatch && second.before_indirect && second.before_transfer);
  const BarrierScope last = barrier_scope(p, 5);
  EXPECT_TRUE(last.after_dispatch && !last.before_dispatch && !last.before_indirect && last.before_transfer);
  // A program that continues earlier work orders what was recorded before it.
  Program after;
  after.commands.emplace_back(cmd::Barrier{.after_earlier = true});
  after.dispatch(named("c"));
  EXPECT_TRUE(barrier_scope(after, 0).after_dispatch);
}

TEST(Program, ParametersResolveFromBoundOffsetsAndAddresses) {
  std::mt19937_64 rng(seed());
  for (int round = 0; round < 200; ++round) {
    SCOPED_TRACE(seed_note() + " round " + std::to_string(round));
    const uint32_t offsets[3] = {static_cast<uint32_t>(rng() % 64), static_cast<uint32_t>(rng() % 64),
                                 static_cast<uint32_t>(rng() % 64)};
    const uint32_t plus = static_cast<uint32_t>(rng() % 1000);
    const uint8_t scale = static_cast<uint8_t>(1 + rng() % 3);
    const uint64_t base = rng() & ~uint64_t{0xF};  // a device address
    const Bind at{1, rng() % 100000, 1, 8};
    cmd::Dispatch d = named("k", {Bind{0}, Bind{1}, Bind{2}});
    d.params = {Param::word(77), Param::offset(0), Param::offset(1, scale, plus), Param::address(at, false),
                Param::address(at, true), Param::offset(2)};
    d.vector_aligned_if = {{1, 1, 4}, {5, 1, 4}};
    const ResolvedDispatch r = resolve_dispatch(d, offsets, [&](const Bind& b) {
      EXPECT_EQ(b, at);
      return base + b.first * b.unit;
    });
    const uint64_t address = base + at.first * 8;
    ASSERT_EQ(r.params.size(), 6u);
    EXPECT_EQ(r.params[0], 77u);
    EXPECT_EQ(r.params[1], offsets[0]);
    EXPECT_EQ(r.params[2], plus + scale * offsets[1]);
    EXPECT_EQ(r.params[3], static_cast<uint32_t>(address));
    EXPECT_EQ(r.params[4], static_cast<uint32_t>(address >> 32));
    EXPECT_EQ(r.key.vector_aligned, offsets[0] % 4 == 0 && offsets[2] % 4 == 0);
  }
  // A backend without device addresses refuses a program that needs them.
  cmd::Dispatch d = named("k");
  d.params = {Param::address(Bind{}, false)};
  EXPECT_THROW(resolve_dispatch(d, std::vector<uint32_t>{0}, nullptr), Error);
  // An offset of a binding the dispatch lacks is a gpuscan bug, reported.
  d.params = {Param::offset(3)};
  EXPECT_THROW(resolve_dispatch(d, std::vector<uint32_t>{0}, nullptr), Error);
  // A look-back state bound anywhere but at its first element is refused as misaligned.
  d.params.clear();
  d.state_binding = 0;
  d.state_name = "test";
  EXPECT_NO_THROW(resolve_dispatch(d, std::vector<uint32_t>{0}, nullptr));
  try {
    resolve_dispatch(d, std::vector<uint32_t>{4}, nullptr);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::misaligned);
  }
}

TEST(Program, PlacedPartsMoveToTheirBuffersAndOffsets) {
  std::mt19937_64 rng(seed() ^ 1);
  for (int round = 0; round < 100; ++round) {
    SCOPED_TRACE(seed_note() + " round " + std::to_string(round));
    const uint64_t where = 64 * (rng() % 1000);  // a multiple of every unit
    Program part;
    part.fill(0, 8, 16);
    part.barrier();
    cmd::Dispatch d = named("p", {Bind{0, 5, 10, 8}, Bind{1, 3, 1, 4}});
    d.params = {Param::address(Bind{0, 2, 1, 8}, false)};
    d.indirect = cmd::Dispatch::Indirect{0, 12};
    part.dispatch(std::move(d));
    part.update(1, 4, {9});
    Program whole;
    whole.dispatch(named("w"));
    whole.barrier();
    const Place at[] = {{7, where}, {6, 0}};
    append_placed(whole, part, at);
    ASSERT_EQ(kinds(whole), (std::vector<std::string>{"w", "barrier", "fill", "barrier", "p", "update"}));
    const auto& fill = std::get<cmd::Fill>(whole.commands[2]);
    EXPECT_EQ(fill.buffer, 7);
    EXPECT_EQ(fill.offset, where + 8);
    const auto& p = std::get<cmd::Dispatch>(whole.commands[4]);
    EXPECT_EQ(p.bindings[0], (Bind{7, 5 + where / 8, 10, 8}));
    EXPECT_EQ(p.bindings[1], (Bind{6, 3, 1, 4}));
    EXPECT_EQ(p.params[0].at, (Bind{7, 2 + where / 8, 1, 8}));
    EXPECT_EQ(p.indirect->buffer, 7);
    EXPECT_EQ(p.indirect->offset, where + 12);
    EXPECT_EQ(std::get<cmd::Update>(whole.commands[5]).buffer, 6);
  }
  // A place inside an element of the part's range, and a buffer the places do not name, are refused.
  Program part;
  part.dispatch(named("p", {Bind{0, 0, 1, 8}}));
  Program whole;
  const Place inside[] = {{0, 4}};
  EXPECT_THROW(append_placed(whole, part, inside), Error);
  EXPECT_THROW(append_placed(whole, part, std::span<const Place>{}), Error);
}

// A reduce-then-scan plan's program: every binding inside its slot's range, the carry-in on the root
// dispatch only, the words PassParams says.
TEST(Program, ScanProgramsCarryThePlansRangesAndWords) {
  std::mt19937_64 rng(seed() ^ 2);
  for (int round = 0; round < 50; ++round) {
    const uint64_t n = 1 + rng() % 100000;
    const uint64_t initial = rng();
    SCOPED_TRACE(seed_note() + " n " + std::to_string(n));
    ScanRequest req;
    req.n = n;
    req.block_size = 64;
    req.inclusive = rng() % 2;
    const Plan plan = plan_reduce_then_scan(req);
    ScanLowering how;
    how.element_size = 8;
    how.initial = initial;
    how.key_of = [](const Dispatch& d) {
      PipelineKey k;
      k.variant = kernel_name(d.kernel);
      return k;
    };
    const Program program = lower_scan_plan(plan, how);
    ASSERT_EQ(program.dispatch_count(), plan.dispatch_count());
    size_t roots = 0;
    size_t step = 0;
    for (const Command& c : program.commands) {
      while (!std::holds_alternative<Dispatch>(plan.steps[step])) ++step;
      if (!std::holds_alternative<cmd::Dispatch>(c)) continue;
      const auto& d = std::get<cmd::Dispatch>(c);
      const auto& from = std::get<Dispatch>(plan.steps[step++]);
      EXPECT_EQ(d.key.variant, kernel_name(from.kernel));
      EXPECT_EQ(d.bindings[0], (Bind{static_cast<uint8_t>(from.src.slot), from.src.offset, from.src.count, 8}));
      EXPECT_EQ(d.bindings[1], (Bind{static_cast<uint8_t>(from.dst.slot), from.dst.offset, from.dst.count, 8}));
      EXPECT_EQ(d.params[0], Param::word(static_cast<uint32_t>(from.n)));
      EXPECT_EQ(d.params[1], Param::offset(0));
      EXPECT_EQ(d.params[4], Param::word(from.groups_x));
      EXPECT_EQ(d.params[5], Param::word(static_cast<uint32_t>(from.blocks)));
      if (from.root) {
        ++roots;
        EXPECT_EQ(d.params[6], Param::word(1));  // the carry-in from words 7..8
        EXPECT_EQ(d.params[7], Param::word(static_cast<uint32_t>(initial)));
        EXPECT_EQ(d.params[8], Param::word(static_cast<uint32_t>(initial >> 32)));
      } else {
        EXPECT_EQ(d.params[6], Param::word(0));
      }
    }
    EXPECT_EQ(roots, 1u);
  }
}

TEST(Program, HistogramProgramsZeroTheCountsWriteTheTableAndDispatchPerWindow) {
  HistogramBins bins = HistogramBins::even(10, 0.0, 100.0);
  HistogramConfig config;
  config.type = DataType::f32;
  std::mt19937_64 rng(seed() ^ 3);
  for (int round = 0; round < 40; ++round) {
    const uint64_t count = rng() % 5000;
    const uint64_t window = 16 + rng() % 2000;
    const bool accumulate = rng() % 2;
    SCOPED_TRACE(seed_note() + " count " + std::to_string(count) + " window " + std::to_string(window));
    const HistogramPlan plan = plan_histogram(bins, config, count, false, false, false, uint64_t{1} << 30, "limit");
    PipelineKey key;
    key.variant = "histogram";
    key.workgroup_size = 64;
    const Program p = histogram_program(plan, key, accumulate, count, 0, window, 65535);
    const uint64_t windows = (count + window - 1) / window;
    EXPECT_EQ(p.dispatch_count(), windows);
    size_t fills = 0, covered = 0;
    for (const Command& c : p.commands) {
      if (const auto* f = std::get_if<cmd::Fill>(&c)) {
        ++fills;
        EXPECT_EQ(f->buffer, histogram_counts);
        EXPECT_EQ(f->bytes, plan.counts_bytes());
      }
      if (const auto* d = std::get_if<cmd::Dispatch>(&c)) {
        EXPECT_EQ(d->bindings[0].first, covered);  // the windows tile the samples in order
        covered += d->bindings[0].count;
      }
    }
    EXPECT_EQ(fills, accumulate ? 0u : 1u);
    if (windows > 0) EXPECT_EQ(covered, count);
  }
}

TEST(Program, HistogramGridsAndSamplesPerStep) {
  EXPECT_EQ(histogram_key({.type = DataType::f32}, 1024).vectors_per_lane, histogram_default_vectors(DataType::f32));
  EXPECT_EQ(histogram_key({.type = DataType::u64}, 1024).vectors_per_lane, histogram_default_vectors(DataType::u64));
  EXPECT_EQ(histogram_key({.workgroup_size = 64, .vectors_per_lane = 8}, 1024).vectors_per_lane, 8u);
  EXPECT_EQ(histogram_key({.workgroup_size = 64, .vectors_per_lane = 8}, 1024).workgroup_size, 64u);
  for (uint32_t bad : {3u, 5u, 16u}) EXPECT_THROW(histogram_key({.vectors_per_lane = bad}, 1024), Error) << bad;
  std::mt19937_64 rng(seed() ^ 5);
  for (int round = 0; round < 2000; ++round) {
    PipelineKey key;
    key.workgroup_size = 32u << (rng() % 6);
    key.vectors_per_lane = 1u << (rng() % 4);
    const uint64_t len = rng() % 3 == 0 ? rng() % 100000 : rng() % (uint64_t{1} << 31);
    const uint32_t most = rng() % 2 ? 0 : 1 + static_cast<uint32_t>(rng() % (rng() % 2 ? 5000 : 1u << 24));
    const uint32_t max_x = 1 + static_cast<uint32_t>(rng() % (rng() % 2 ? 70000 : 0x7fffffffu));
    SCOPED_TRACE(seed_note() + " len " + std::to_string(len) + " W " + std::to_string(key.workgroup_size) + " V " +
                 std::to_string(key.vectors_per_lane) + " most " + std::to_string(most) + " max_x " +
                 std::to_string(max_x));
    const uint32_t g = histogram_groups(len, key, most, max_x);
    // A cap on the samples of an invocation raises the grid just enough (within max_x and the 2^30 step).
    const uint32_t max_samples = 1 + static_cast<uint32_t>(rng() % 4096);
    const uint32_t raised = histogram_groups(len, key, most, max_x, max_samples);
    const auto per_invocation = [&](uint64_t groups) {
      return (len + groups * key.workgroup_size - 1) / (groups * key.workgroup_size);
    };
    EXPECT_GE(raised, g);
    if (raised > g) EXPECT_GT(per_invocation(raised - 1), max_samples);
    const bool bound = raised == max_x || uint64_t{raised + 1} * key.workgroup_size * key.vectors_per_lane > (uint64_t{1} << 30);
    if (!bound) EXPECT_LE(per_invocation(raised), max_samples);
    const uint64_t step = uint64_t{key.workgroup_size} * key.vectors_per_lane;
    const uint64_t user_cap = most ? most : histogram_default_groups(len);
    const uint64_t wanted = std::max<uint64_t>(1, (len + step - 1) / step);  // one step each
    EXPECT_GE(g, 1u);
    EXPECT_LE(g, wanted);
    EXPECT_LE(g, std::max<uint64_t>(1, user_cap));
    EXPECT_LE(g, max_x);
    if (g > 1) EXPECT_LE(uint64_t{g} * step, uint64_t{1} << 30);
    // Fewer than one step each only where a cap binds.
    if (g < wanted) EXPECT_TRUE(g == user_cap || g == max_x || uint64_t{g + 1} * step > (uint64_t{1} << 30));
    // A step of the whole grid past the end of a window of up to 2^31 samples stays inside 32 bits.
    EXPECT_LT(uint64_t{g} * step + (uint64_t{1} << 31), uint64_t{1} << 32);
  }
}

TEST(Program, RunLengthProgramsFollowTheirCompaction) {
  const RunLengthLayout l = run_length_layout(1000, 256);
  const Program none = run_length_program(0, false, l, 64);
  EXPECT_TRUE(none.commands.empty());  // encoding nothing: the compaction wrote the 0 runs
  const Program edges = run_length_program(1000, true, l, 64);
  ASSERT_EQ(kinds(edges), (std::vector<std::string>{"barrier", "run_lengths.edges"}));
  EXPECT_TRUE(std::get<cmd::Barrier>(edges.commands[0]).after_earlier);
  const auto& d = std::get<cmd::Dispatch>(edges.commands[1]);
  EXPECT_EQ(d.bindings[0], (Bind{run_indices, 0, 1000, 4}));
  EXPECT_EQ(d.bindings[1], (Bind{run_lengths, 0, 500, 4}));
  EXPECT_EQ(d.groups_x, 16u);  // ceil(1000 / 64)
}

TEST(Program, SortProgramsRunEveryPassAndScanTheCountsInTemp) {
  SortConfig config;
  config.key_type = DataType::u32;
  for (const bool onesweep : {false, true}) {
    SortLayout l;
    l.bits = sort_bit_range(config);
    l.passes = sort_pass_count(l.bits);
    l.shape = SortShape{64, 4, 2, 1024, true};
    l.onesweep = onesweep;
    size_sort_counts(l, 100000);
    place_sort_arrays(l, 100000, 4, 0, 4096, false);
    SortRequest q;
    q.config = config;
    q.count = 100000;
    q.counts_scan = [](uint64_t n) {
      Program scan;
      scan.dispatch(named("scan", {Bind{plan_input, 0, n, 4}, Bind{plan_temp, 0, 1, 4}}));
      return scan;
    };
    const Program p = sort_program(l, q);
    size_t scans = 0, passes = 0;
    for (const Command& c : p.commands) {
      const auto* d = std::get_if<cmd::Dispatch>(&c);
      if (!d) continue;
      if (d->key.variant == "scan") {
        ++scans;
        EXPECT_EQ(d->bindings[0], (Bind{sort_temp, l.count_words / 4, l.counts, 4}));
        EXPECT_EQ(d->bindings[1], (Bind{sort_temp, l.scan_temp / 4, 1, 4}));
      }
      passes += d->key.variant.rfind(onesweep ? "sort_onesweep" : "sort_downsweep", 0) == 0;
    }
    EXPECT_EQ(passes, l.passes);
    EXPECT_EQ(scans, onesweep ? 1u : l.passes);
    q.stop = SortStop::counts;
    EXPECT_EQ(sort_program(l, q).dispatch_count(), 1u);
  }
}

}  // namespace
}  // namespace gpuscan::core
