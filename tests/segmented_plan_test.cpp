// Unit tests for the segmented scan's plan (core::plan_segmented_scan), without a GPU: the plan's program
// runs on the tests' CPU executor (program_interpreter.hpp), which models seg_reduce_tiles /
// seg_scan_tiles as the shaders define them -- dispatches between barriers and the workgroups of each in
// reverse order -- on a non-commutative operator (affine maps in an element's two halves, so an offset
// combined on the wrong side or from the wrong tile shows), with temp poisoned, and fails on reads of
// unwritten temp, on reads of what another dispatch wrote since the last barrier, and on ranges out of
// bounds. Results are compared
// with a sequential segmented scan, for every head source and kind, segment lengths 1, random and one
// segment, sizes around every tile and recursion boundary. Windowed plans (SegmentedRequest::window)
// run the same way, with the carry dispatches between windows (core/windows.hpp) as window_carry.comp
// defines them. Seeds are printed on failure; GPUSCAN_TEST_SEED replays a run.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <random>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "core/plan_program.hpp"
#include "core/segmented_plan.hpp"
#include "gpuscan/error.hpp"
#include "program_interpreter.hpp"

namespace {

using namespace gpuscan::core;

// x -> m·x + c, composed left first: (a ⊕ b)(x) = b(a(x)). Associative, not commutative.
struct Affine {
  uint64_t m = 1, c = 0;
  friend bool operator==(const Affine&, const Affine&) = default;
};
Affine combine(Affine a, Affine b) { return {a.m * b.m, a.c * b.m + b.c}; }

uint64_t ceil_div(uint64_t a, uint64_t b) { return a / b + (a % b != 0); }

uint64_t test_seed() {
  if (const char* s = std::getenv("GPUSCAN_TEST_SEED")) return std::strtoull(s, nullptr, 0);
  return std::random_device{}();
}

// The data of one run: values, heads as stored (flags or keys, one word each here), and the starts they mean.
struct Data {
  std::vector<Affine> values;
  std::vector<uint64_t> heads;
  std::vector<uint8_t> starts;
};

enum class Pattern { singletons, random, one_segment };

// start_every > 0: segments also start at every multiple of it (at every window boundary, say).
Data make_data(uint64_t n, Pattern pattern, HeadSource source, std::mt19937_64& rng, uint64_t start_every = 0) {
  Data d;
  const uint64_t mean = std::array<uint64_t, 3>{2, 7, 90}[rng() % 3];
  uint64_t key = rng();
  for (uint64_t i = 0; i < n; ++i) {
    d.values.push_back({rng() | 1, rng()});
    const bool start = i == 0 || pattern == Pattern::singletons || (pattern == Pattern::random && rng() % mean == 0) ||
                       (start_every && i % start_every == 0);
    d.starts.push_back(start);
    if (source == HeadSource::flags) {
      d.heads.push_back(start && (i > 0 || rng() % 2) ? (rng() | 1) : 0);
    } else {
      if (i > 0 && start) key = source == HeadSource::keys32 ? static_cast<uint32_t>(key + 1 + rng() % 5) : key + (uint64_t{1} << 32);
      d.heads.push_back(source == HeadSource::keys32 ? static_cast<uint32_t>(key) : key);
    }
  }
  return d;
}

std::vector<Affine> reference(const Data& d, bool inclusive) {
  std::vector<Affine> out(d.values.size());
  Affine running;
  for (size_t i = 0; i < d.values.size(); ++i) {
    if (d.starts[i]) running = Affine{};
    if (inclusive) {
      running = combine(running, d.values[i]);
      out[i] = running;
    } else {
      out[i] = running;
      running = combine(running, d.values[i]);
    }
  }
  return out;
}

// Runs `plan`'s program (core::lower_segmented_plan, what both backends execute) on `data` with the
// tests' CPU executor (program_interpreter.hpp) and its affine operator, elements of req.element_size bytes
// (m and c in their two halves), and returns the output as affine maps: the reference's reduced to those
// halves, which mod-2^k arithmetic makes exact.
std::vector<Affine> interpret(const SegmentedPlan& plan, const SegmentedRequest& req, const Data& data) {
  const uint32_t esize = req.element_size, half = 4 * esize, hunit = head_unit_bytes(req.heads);
  const uint64_t mask = (uint64_t{1} << half) - 1;
  auto put = [](std::vector<std::byte>& bytes, uint64_t i, uint64_t v, uint32_t unit) {
    for (uint32_t b = 0; b < unit; ++b) bytes[i * unit + b] = static_cast<std::byte>(v >> (8 * b));
  };
  std::vector<std::byte> values(req.n * esize), heads(req.n * hunit);
  for (uint64_t i = 0; i < req.n; ++i) {
    put(values, i, (data.values[i].m & mask) << half | (data.values[i].c & mask), esize);
    put(heads, i, data.heads[i], hunit);
  }
  using Buffer = gpuscan::test::ProgramInterpreter::Buffer;
  gpuscan::test::ProgramInterpreter sim(
      {Buffer{values, true}, Buffer{heads, true}, Buffer{std::vector<std::byte>(req.n * esize, std::byte{0xA5})},
       Buffer{std::vector<std::byte>(plan.temp_bytes, std::byte{0xA5})}, Buffer{}, Buffer{}},  // SegBuffer's order
      req.tile_size);
  sim.set_operator(gpuscan::test::ProgramInterpreter::Operator::affine);
  SegmentedLowering how;
  how.head_unit = hunit;
  how.scan.element_size = esize;
  how.key_of = [&](const SegDispatch& d) {
    return segmented_kernel_key(d, esize == 8 ? gpuscan::DataType::u64 : gpuscan::DataType::u32, gpuscan::Op::add, 0, 0);
  };
  how.scan.key_of = [](const Dispatch& d) {
    gpuscan::PipelineKey key;
    key.variant = kernel_name(d.kernel);
    key.inclusive = d.inclusive;
    key.use_aux = d.kernel == Kernel::carry_save;
    return key;
  };
  sim.run(lower_segmented_plan(plan, how));
  EXPECT_EQ(sim.errors(), 0u) << "first: " << sim.first_error();
  EXPECT_TRUE(sim.written(seg_output, 0, req.n * esize)) << "some output element was never written";
  std::vector<Affine> out;
  const std::vector<std::byte>& bytes = sim.bytes(seg_output);
  for (uint64_t i = 0; i < req.n; ++i) {
    uint64_t v = 0;
    for (uint32_t b = 0; b < esize; ++b) v |= uint64_t{static_cast<uint8_t>(bytes[i * esize + b])} << (8 * b);
    out.push_back({(v >> half) & mask, v & mask});
  }
  return out;
}

// The sequential reference with each map's halves reduced to `esize` bytes' worth.
std::vector<Affine> reduced(std::vector<Affine> maps, uint32_t esize) {
  const uint64_t mask = (uint64_t{1} << (4 * esize)) - 1;
  for (Affine& a : maps) a = {a.m & mask, a.c & mask};
  return maps;
}

SegmentedRequest request(uint64_t n, uint32_t tile, bool inclusive, HeadSource heads, uint32_t esize = 4,
                         PlanLimits limits = {}, uint64_t window = 0) {
  SegmentedRequest r;
  r.n = n;
  r.tile_size = tile;
  r.inclusive = inclusive;
  r.element_size = esize;
  r.heads = heads;
  r.limits = limits;
  r.window = window;
  return r;
}

// Temp arrays: each at a multiple of 64 bytes, pairwise disjoint, temp_bytes no larger than their end
// rounded up; and n <= B plans one dispatch without temp.
void check_layout(const SegmentedPlan& plan, const SegmentedRequest& req) {
  // Per window (the steps between carry dispatches): windows reuse one scratch, each laid out anew.
  std::vector<std::vector<std::pair<uint64_t, uint64_t>>> windows(1);
  for (const SegStep& s : plan.steps) {
    if (std::holds_alternative<Dispatch>(s) && !windows.back().empty()) windows.emplace_back();
    if (const auto* d = std::get_if<SegDispatch>(&s); d && d->kernel == SegKernel::seg_reduce_tiles) {
      windows.back().emplace_back(d->totals.offset * req.element_size,
                                  (d->totals.offset + d->totals.count) * req.element_size);
      windows.back().emplace_back(d->tile_heads.offset * 4, (d->tile_heads.offset + d->tile_heads.count) * 4);
    }
  }
  uint64_t end = 0;
  for (auto& arrays : windows) {
    std::sort(arrays.begin(), arrays.end());
    for (size_t i = 0; i < arrays.size(); ++i) {
      EXPECT_EQ(arrays[i].first % 64, 0u) << "temp array at byte " << arrays[i].first;
      if (i > 0) EXPECT_GE(arrays[i].first, arrays[i - 1].second) << "temp arrays overlap";
      end = std::max(end, arrays[i].second);
    }
  }
  // Windows share the scratch, then two elements for the carry.
  const bool windowed = req.window && req.n > req.window;
  EXPECT_EQ(plan.temp_bytes, ceil_div(end, 64) * 64 + (windowed ? 2 * req.element_size : 0));
  if (req.n <= req.tile_size && !windowed) {
    EXPECT_EQ(plan.dispatch_count(), req.n ? 1u : 0u);
    EXPECT_EQ(plan.temp_bytes, 0u);
  }
}

std::vector<uint64_t> sizes_for(uint64_t b, std::mt19937_64& rng) {
  std::set<uint64_t> s = {0, 1, 2, 3, b - 1, b, b + 1, 2 * b + 1, b * b - 1, b * b, b * b + 1, b * b * b + 1};
  for (int i = 0; i < 6; ++i) s.insert(std::uniform_int_distribution<uint64_t>(1, std::min<uint64_t>(3 * b * b, 20000))(rng));
  return {s.begin(), s.end()};
}

TEST(SegmentedPlan, InterpretedPlansMatchTheSequentialScan) {
  const uint64_t seed = test_seed();
  std::mt19937_64 rng(seed);
  for (uint32_t b : {2u, 4u, 128u})
    for (uint64_t n : sizes_for(b, rng)) {
      if (n > 300000) continue;
      for (HeadSource source : {HeadSource::flags, HeadSource::keys32, HeadSource::keys64})
        for (Pattern pattern : {Pattern::singletons, Pattern::random, Pattern::one_segment})
          for (bool inclusive : {false, true}) {
            const uint32_t esize = rng() % 2 ? 8 : 4;
            const SegmentedRequest req = request(n, b, inclusive, source, esize);
            SCOPED_TRACE("B = " + std::to_string(b) + ", n = " + std::to_string(n) + ", source " +
                         std::to_string(int(source)) + ", pattern " + std::to_string(int(pattern)) +
                         (inclusive ? ", inclusive" : ", exclusive") + ", esize " + std::to_string(esize) + ", seed " +
                         std::to_string(seed));
            const SegmentedPlan plan = plan_segmented_scan(req);
            check_layout(plan, req);
            const Data data = make_data(n, pattern, source, rng);
            ASSERT_EQ(interpret(plan, req, data), reduced(reference(data, inclusive), esize)) << describe(plan);
            if (::testing::Test::HasFailure()) return;
          }
    }
}

TEST(SegmentedPlan, LevelsAndShape) {
  // n = B^2 + 1 with B = 4: 17 elements, 5 tiles, 2 tile totals, 1: three levels.
  const SegmentedPlan plan = plan_segmented_scan(request(17, 4, false, HeadSource::keys64));
  EXPECT_EQ(plan.levels, 3u);
  EXPECT_EQ(plan.dispatch_count(), 5u);
  const auto& first = std::get<SegDispatch>(plan.steps.front());
  EXPECT_EQ(first.kernel, SegKernel::seg_reduce_tiles);
  EXPECT_EQ(first.head_source, HeadSource::keys64);
  EXPECT_EQ(first.heads.slot, SegSlot::heads);
  const auto& last = std::get<SegDispatch>(plan.steps.back());
  EXPECT_EQ(last.kernel, SegKernel::seg_scan_tiles);
  EXPECT_FALSE(last.inclusive) << "the caller's exclusive scan";
  EXPECT_TRUE(last.read_offsets);
  EXPECT_EQ(last.out.slot, SegSlot::output);
  for (const SegStep& s : plan.steps)
    if (const auto* d = std::get_if<SegDispatch>(&s); d && d->level > 0) {
      EXPECT_EQ(d->head_source, HeadSource::flags);
      if (d->kernel == SegKernel::seg_scan_tiles) EXPECT_TRUE(d->inclusive) << "inner levels scan inclusively";
    }
  const std::string text = describe(plan);
  EXPECT_NE(text.find("plan: 3 level(s), 5 dispatch(es)"), std::string::npos) << text;
  EXPECT_NE(text.find("L0 seg_reduce_tiles n=17 grid=5x1 input[0, 17) heads u64 keys heads[0, 17)"), std::string::npos)
      << text;
  EXPECT_NE(text.find("-> output[0, 17) exclusive offsets temp[0, 5)"), std::string::npos) << text;
}

TEST(SegmentedPlan, GridsUnderSmallLimits) {
  const SegmentedRequest req = request(1000, 2, true, HeadSource::flags, 4, {7, 100});
  const SegmentedPlan plan = plan_segmented_scan(req);
  const auto& d = std::get<SegDispatch>(plan.steps.front());
  EXPECT_EQ(d.groups_x, 7u);
  EXPECT_EQ(d.groups_y, 72u);  // 500 tiles in rows of at most 7, spread evenly
  std::mt19937_64 rng(1);
  const Data data = make_data(1000, Pattern::random, HeadSource::flags, rng);
  EXPECT_EQ(interpret(plan, req, data), reduced(reference(data, true), 4));
  EXPECT_THROW(plan_segmented_scan(request(1000, 2, true, HeadSource::flags, 4, {7, 10})), gpuscan::Error);
}

// Windowed plans (core/windows.hpp's chain): sizes around the window boundaries, windows of whole tiles
// and windows smaller than one tile, segments spanning boundaries, starting exactly at every boundary,
// one segment across everything, and keys equal across boundaries (a later window's first key is
// compared with the previous window's last).
TEST(SegmentedPlan, WindowedPlansMatchTheSequentialScan) {
  const uint64_t seed = test_seed();
  std::mt19937_64 rng(seed);
  struct Shape {
    uint32_t tile;
    uint64_t window;
  };
  for (const Shape shape : {Shape{4, 64}, Shape{2, 48}, Shape{128, 16}, Shape{16, 80}}) {
    const uint64_t w = shape.window;
    for (uint64_t n : {w - 1, w, w + 1, 2 * w, 2 * w + 1, 3 * w + 5,
                       std::uniform_int_distribution<uint64_t>(w + 2, 6 * w)(rng)})
      for (HeadSource source : {HeadSource::flags, HeadSource::keys32, HeadSource::keys64})
        for (Pattern pattern : {Pattern::singletons, Pattern::random, Pattern::one_segment})
          for (bool inclusive : {false, true})
            for (bool at_boundaries : {false, true}) {
              if (at_boundaries && pattern == Pattern::singletons) continue;
              const uint32_t esize = rng() % 2 ? 8 : 4;
              const SegmentedRequest req = request(n, shape.tile, inclusive, source, esize, {}, w);
              SCOPED_TRACE("B = " + std::to_string(shape.tile) + ", window " + std::to_string(w) + ", n = " +
                           std::to_string(n) + ", source " + std::to_string(int(source)) + ", pattern " +
                           std::to_string(int(pattern)) + (at_boundaries ? " + starts at window boundaries" : "") +
                           (inclusive ? ", inclusive" : ", exclusive") + ", esize " + std::to_string(esize) +
                           ", seed " + std::to_string(seed));
              const SegmentedPlan plan = plan_segmented_scan(req);
              check_layout(plan, req);
              const Data data = make_data(n, pattern, source, rng, at_boundaries ? w : 0);
              ASSERT_EQ(interpret(plan, req, data), reduced(reference(data, inclusive), esize)) << describe(plan);
              if (::testing::Test::HasFailure()) return;
            }
  }
}

TEST(SegmentedPlan, WindowLayout) {
  // 40 elements in windows of 16, tiles of 4, u32 keys: windows [0, 16), [16, 32), [32, 40).
  const SegmentedPlan plan = plan_segmented_scan(request(40, 4, false, HeadSource::keys32, 4, {}, 16));
  const uint64_t carry = plan.temp_bytes / 4 - 2;
  int saves = 0, updates = 0;
  for (const SegStep& s : plan.steps) {
    if (const auto* c = std::get_if<Dispatch>(&s)) {
      saves += c->kernel == Kernel::carry_save;
      updates += c->kernel == Kernel::carry_update;
      EXPECT_EQ(c->aux, (Range{Slot::temp, carry, 2}));
      continue;
    }
    const auto* d = std::get_if<SegDispatch>(&s);
    if (!d) continue;
    const bool later = d->level == 0 ? d->values.offset >= 16 : false;
    if (d->level == 0) EXPECT_EQ(d->heads_before, later) << describe(plan);
    else EXPECT_FALSE(d->heads_before);
    if (d->kernel == SegKernel::seg_reduce_tiles) EXPECT_FALSE(d->carry_from_temp);
    if (d->carry_from_temp) EXPECT_EQ(d->carry, (SegRange{SegSlot::temp, carry, 1}));
  }
  EXPECT_EQ(saves, 2) << "exclusive: each window but the last saves its last input";
  EXPECT_EQ(updates, 2);
  const std::string text = describe(plan);
  EXPECT_NE(text.find("carry_update output[15, 16) -> temp["), std::string::npos) << text;
  EXPECT_NE(text.find("L0 seg_reduce_tiles n=16 grid=4x1 input[16, 32) heads u32 keys heads[16, 32)"),
            std::string::npos) << text;
  EXPECT_NE(text.find("(+ the key before)"), std::string::npos) << text;
  // Inclusive: no saves; the first window's dispatches take no carry-in.
  const SegmentedPlan inclusive = plan_segmented_scan(request(40, 4, true, HeadSource::flags, 8, {}, 16));
  for (const SegStep& s : inclusive.steps) {
    if (const auto* c = std::get_if<Dispatch>(&s)) EXPECT_EQ(c->kernel, Kernel::carry_update);
    if (const auto* d = std::get_if<SegDispatch>(&s)) {
      EXPECT_FALSE(d->heads_before) << "flags need no key before";
      if (d->level == 0 && d->values.offset == 0) EXPECT_FALSE(d->carry_from_temp);
    }
  }
  // One window when it holds everything: no carry steps.
  EXPECT_EQ(plan_segmented_scan(request(16, 4, false, HeadSource::keys32, 4, {}, 16)).temp_bytes,
            plan_segmented_scan(request(16, 4, false, HeadSource::keys32)).temp_bytes);
}

TEST(SegmentedPlan, WindowSizes) {
  EXPECT_EQ(segmented_window(33554416, 4096, HeadSource::flags), 33550336u);  // lavapipe, u32: 8191 tiles
  EXPECT_EQ(segmented_window(33554416, 4096, HeadSource::keys32), 33550336u);
  EXPECT_EQ(segmented_window(4096, 4096, HeadSource::flags), 4096u);
  EXPECT_EQ(segmented_window(4096, 4096, HeadSource::keys64), 4080u) << "one less for the key before: no whole tile";
  EXPECT_EQ(segmented_window(8192, 4096, HeadSource::keys32), 4096u);
  EXPECT_EQ(segmented_window(16, 4096, HeadSource::flags), 16u);
  EXPECT_THROW(segmented_window(16, 4096, HeadSource::keys32), gpuscan::Error);
}

TEST(SegmentedPlan, CountInGpuMemory) {
  const SegmentedPlan base = plan_segmented_scan(request(17, 4, true, HeadSource::flags));
  IndirectRegion region;
  const SegmentedPlan plan = plan_segmented_indirect(base, 8, &region);
  ASSERT_EQ(plan.steps.size(), base.steps.size() + 2);
  ASSERT_TRUE(std::holds_alternative<Dispatch>(plan.steps[0]));
  EXPECT_EQ(std::get<Dispatch>(plan.steps[0]).kernel, Kernel::indirect_count);
  EXPECT_TRUE(std::holds_alternative<Barrier>(plan.steps[1]));
  for (const SegStep& s : plan.steps)
    if (const auto* d = std::get_if<SegDispatch>(&s)) EXPECT_TRUE(d->dynamic);
  EXPECT_EQ(region.levels, 3u);
  EXPECT_GE(region.first * 8, base.temp_bytes) << "the words after the scratch";
  EXPECT_GE(region.elements * 8, 3u * indirect_words_per_level * 4);
  EXPECT_EQ(plan.temp_bytes, (region.first + region.elements) * 8);
  EXPECT_EQ(plan.levels, 3u);
  // The bound must fit one window.
  try {
    plan_segmented_indirect(plan_segmented_scan(request(40, 4, false, HeadSource::flags, 4, {}, 16)), 4, nullptr);
    ADD_FAILURE() << "a windowed plan took a count in GPU memory";
  } catch (const gpuscan::Error& e) {
    EXPECT_EQ(e.code(), gpuscan::Errc::too_large);
  }
}

// An outline (PlanExtent::outline) lists the first two windows with the whole plan's temp and levels, so
// sizing temp costs the same at 2^50 elements (2^25 windows of lavapipe's size) as at a few windows.
TEST(SegmentedPlan, OutlinesOfWindowedPlans) {
  for (const HeadSource source : {HeadSource::flags, HeadSource::keys32})
    for (const bool inclusive : {false, true})
      for (const uint64_t n : {uint64_t{15}, uint64_t{40}, uint64_t{48}, uint64_t{49}, uint64_t{100}}) {
        SCOPED_TRACE("n = " + std::to_string(n) + (inclusive ? ", inclusive" : ", exclusive"));
        SegmentedRequest req = request(n, 4, inclusive, source, 4, {}, 16);
        const SegmentedPlan full = plan_segmented_scan(req);
        req.extent = PlanExtent::outline;
        const SegmentedPlan outline = plan_segmented_scan(req);
        const uint64_t windows = ceil_div(n, 16);
        EXPECT_EQ(outline.temp_bytes, full.temp_bytes);
        EXPECT_EQ(outline.levels, full.levels);
        EXPECT_EQ(outline.windows_left_out, windows - std::min<uint64_t>(windows, 2));
        const std::string listed = describe(outline), all = describe(full);
        const std::string steps = listed.substr(listed.find('\n') + 1, listed.find("  ... ") - listed.find('\n') - 1);
        EXPECT_EQ(all.find(steps), all.find('\n') + 1) << "the outline's steps begin the plan\n" << listed << all;
        EXPECT_EQ(listed.find(" more window(s)") != std::string::npos, windows > 2) << listed;
      }
  for (const uint64_t n : {uint64_t{1} << 40, uint64_t{1} << 50}) {
    const SegmentedPlan outline = plan_segmented(n, 4096, gpuscan::DataType::u32, false, HeadSource::keys32, {},
                                                 33550336, PlanExtent::outline);
    EXPECT_EQ(outline.windows_left_out, ceil_div(n, 33550336) - 2);
    EXPECT_LT(outline.steps.size(), 40u);
    const uint64_t scratch =
        plan_segmented(33550336, 4096, gpuscan::DataType::u32, false, HeadSource::keys32, {}).temp_bytes;
    EXPECT_EQ(outline.temp_bytes, ceil_div(scratch, 64) * 64 + 8)
        << "the first window's scratch, then the two carry elements on a 64-byte line of their own";
  }
}

TEST(SegmentedPlan, Errors) {
  auto code = [](auto f) -> std::error_code {
    try {
      f();
    } catch (const gpuscan::Error& e) {
      return e.code();
    }
    return {};  // nothing thrown
  };
  EXPECT_EQ(code([] { plan_segmented_scan(request(10, 6, false, HeadSource::flags)); }), gpuscan::Errc::invalid_argument);
  EXPECT_EQ(code([] { plan_segmented_scan(request(10, 1, false, HeadSource::flags)); }), gpuscan::Errc::invalid_argument);
  EXPECT_EQ(code([] { plan_segmented_scan(request(10, 4, false, HeadSource::flags, 2)); }), gpuscan::Errc::invalid_argument);
  EXPECT_EQ(code([] { plan_segmented(uint64_t{1} << 32, 4096, gpuscan::DataType::u32, false, HeadSource::flags, {}); }),
            gpuscan::Errc::too_large);
  EXPECT_EQ(plan_segmented(0, 4096, gpuscan::DataType::f64, false, HeadSource::flags, {}).steps.size(), 0u);
  // Windows lift the 32-bit limit: 2^32 elements in 4096 windows.
  EXPECT_EQ(plan_segmented(uint64_t{1} << 32, 4096, gpuscan::DataType::u32, false, HeadSource::flags, {}, 1u << 20).levels,
            2u);
}

}  // namespace
