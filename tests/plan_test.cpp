// Unit tests for the API-independent scan plan (src/core/plan.hpp). Backends only execute a plan, so
// every property a GPU run depends on -- structure, grids, temp layout, barrier placement and the
// arithmetic itself -- is checked here without a GPU: structurally, and by running the plan on a tiny
// CPU interpreter that tracks which scratch elements were written.
//
// Random sizes and data come from one seed per run, printed with every failure; set
// GPUSCAN_TEST_SEED=<seed> to replay a run.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <variant>
#include <vector>

#include "core/plan.hpp"
#include "gpuscan/error.hpp"

namespace {

using gpuscan::Errc;
using gpuscan::Error;
using gpuscan::core::Barrier;
using gpuscan::core::Dispatch;
using gpuscan::core::Kernel;
using gpuscan::core::Plan;
using gpuscan::core::PlanLimits;
using gpuscan::core::Range;
using gpuscan::core::ScanRequest;
using gpuscan::core::Slot;
using gpuscan::core::Step;
using gpuscan::core::temp_level_alignment;

constexpr uint32_t kBlockSizes[] = {2, 4, 128, 512};
// Plans above this many elements are checked structurally only: simulating B^3+1 for B = 512
// (134M elements) would cost gigabytes and seconds without exercising anything new.
constexpr uint64_t kSimulationCap = uint64_t{1} << 22;
constexpr uint64_t kPoison = 0xDEADBEEFCAFEF00Dull;

uint64_t ceil_div(uint64_t a, uint64_t b) { return a / b + (a % b != 0); }

ScanRequest request(uint64_t n, uint32_t block_size, bool inclusive = false, PlanLimits limits = {}) {
  ScanRequest req;
  req.n = n;
  req.block_size = block_size;
  req.inclusive = inclusive;
  req.limits = limits;
  return req;
}

uint64_t suite_seed() {
  static const uint64_t seed = [] {
    if (const char* s = std::getenv("GPUSCAN_TEST_SEED")) return uint64_t{std::strtoull(s, nullptr, 0)};
    std::random_device rd;
    return (uint64_t{rd()} << 32) ^ rd() ^
           static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  }();
  return seed;
}

std::string seed_note() {
  return "seed " + std::to_string(suite_seed()) + " (replay with GPUSCAN_TEST_SEED=" +
         std::to_string(suite_seed()) + ")";
}

// One generator per test and block size, so a failing case replays regardless of test order/filter.
std::mt19937_64 rng_for(uint64_t salt) { return std::mt19937_64(suite_seed() ^ (salt * 0x9E3779B97F4A7C15ull)); }

// Log-uniform in [1, max]: small sizes (edge-heavy) and large ones (many levels) both get drawn.
uint64_t random_size(std::mt19937_64& rng, uint64_t max) {
  const int bits = 64 - __builtin_clzll(max);
  const int k = std::uniform_int_distribution<int>(0, bits - 1)(rng);
  const uint64_t lo = uint64_t{1} << k;
  const uint64_t hi = std::min(max, (lo << 1) - 1);
  return std::uniform_int_distribution<uint64_t>(lo, hi)(rng);
}

// Levels counted independently of plan.cpp: divide (rounding up) until one tile holds the rest.
uint32_t expected_levels(uint64_t n, uint64_t block) {
  if (n == 0) return 0;
  uint32_t levels = 1;
  for (; n > block; n = ceil_div(n, block)) ++levels;
  return levels;
}

// The sizes the brief names plus random ones; duplicates (B = 2 gives B-1 == 1) are harmless.
std::vector<uint64_t> sizes_for(uint64_t b, std::mt19937_64& rng, uint64_t random_max) {
  std::vector<uint64_t> sizes = {0, 1, b - 1, b, b + 1, b * b - 1, b * b, b * b + 1, b * b * b + 1};
  for (int i = 0; i < 200; ++i) sizes.push_back(random_size(rng, random_max));
  return sizes;
}

std::string to_string(const Range& r) {
  static const char* names[] = {"input", "output", "temp"};
  std::ostringstream s;
  s << names[static_cast<int>(r.slot)] << "[" << r.offset << ", " << r.offset + r.count << ")";
  return s.str();
}

bool overlaps(const Range& a, const Range& b) {
  return a.slot == b.slot && a.count > 0 && b.count > 0 && a.offset < b.offset + b.count &&
         b.offset < a.offset + a.count;
}

void expect_grid(uint64_t blocks, uint32_t gx, uint32_t gy, const PlanLimits& limits) {
  EXPECT_GE(uint64_t{gx} * gy, blocks) << "grid too small for " << blocks << " blocks";
  EXPECT_GE(gx, 1u);
  EXPECT_GE(gy, 1u);
  EXPECT_LE(gx, limits.max_groups_x);
  EXPECT_LE(gy, limits.max_groups_y);
  // A fully empty last row would be wasted workgroups and means the grid was computed wrongly.
  if (gy >= 1) {
    EXPECT_LT(uint64_t{gy - 1} * gx, blocks) << "grid " << gx << "x" << gy;
  }
}

// ---------------------------------------------------------------------------------------------------
// Structural check: walks the steps recursively against the documented shape
//   scan_local(l, sums) / Barrier / [level l+1] / Barrier / uniform_add(l)
// and collects each level's block-sum range for the layout checks.
class StructureChecker {
 public:
  StructureChecker(const Plan& plan, const ScanRequest& req) : plan_(plan), req_(req) {}

  void run() {
    const Range in{Slot::input, 0, req_.n};
    const Range out{Slot::output, 0, req_.n};
    const size_t end = level(0, 0, req_.n, in, out, req_.inclusive);
    if (end != kFailed) {
      EXPECT_EQ(end, plan_.steps.size()) << "steps left over after level 0";
    }

    // Block-sum ranges of different levels must not alias: a level's sums are still needed by its
    // uniform_add after every deeper level has run.
    for (size_t i = 0; i < sums_.size(); ++i)
      for (size_t j = i + 1; j < sums_.size(); ++j)
        EXPECT_FALSE(overlaps(sums_[i], sums_[j]))
            << "levels " << i + 1 << " and " << j + 1 << ": " << to_string(sums_[i]) << " vs "
            << to_string(sums_[j]);

    // temp_elements is what backends allocate: it must be 0 for one level and not wasteful otherwise
    // (at most every level padded to the alignment).
    uint64_t bound = 0;
    for (const Range& r : sums_) bound += ceil_div(r.count, temp_level_alignment) * temp_level_alignment;
    EXPECT_LE(plan_.temp_elements, bound);
    if (sums_.empty()) {
      EXPECT_EQ(plan_.temp_elements, 0u);
    }
  }

 private:
  static constexpr size_t kFailed = static_cast<size_t>(-1);

  const Dispatch* dispatch_at(size_t pos) {
    if (pos >= plan_.steps.size()) {
      ADD_FAILURE() << "plan ends at step " << pos << ", expected a dispatch";
      return nullptr;
    }
    const auto* d = std::get_if<Dispatch>(&plan_.steps[pos]);
    if (!d) ADD_FAILURE() << "step " << pos << " is a barrier, expected a dispatch";
    return d;
  }

  bool barrier_at(size_t pos) {
    if (pos >= plan_.steps.size()) {
      ADD_FAILURE() << "plan ends at step " << pos << ", expected a barrier";
      return false;
    }
    const bool ok = std::holds_alternative<Barrier>(plan_.steps[pos]);
    if (!ok) ADD_FAILURE() << "step " << pos << " is a dispatch, expected a barrier";
    return ok;
  }

  void common(const Dispatch& d, uint32_t l, uint64_t n) {
    EXPECT_EQ(d.level, l);
    EXPECT_EQ(d.n, n);
    EXPECT_EQ(d.blocks, ceil_div(n, req_.block_size));
    expect_grid(d.blocks, d.groups_x, d.groups_y, req_.limits);
  }

  // Checks the steps from `pos` that scan `array` (n elements) into `out`; returns the index after
  // them, or kFailed when the shape is broken (already reported).
  size_t level(size_t pos, uint32_t l, uint64_t n, Range array, Range out, bool inclusive) {
    SCOPED_TRACE("level " + std::to_string(l) + " at step " + std::to_string(pos));
    const Dispatch* scan = dispatch_at(pos);
    if (!scan) return kFailed;
    EXPECT_EQ(scan->kernel, Kernel::scan_local);
    common(*scan, l, n);
    EXPECT_EQ(scan->src, array);
    EXPECT_EQ(scan->dst, out);
    // Only the caller's level honours `inclusive`: block offsets must be exclusive sums.
    EXPECT_EQ(scan->inclusive, inclusive);

    const uint64_t blocks = ceil_div(n, req_.block_size);
    if (blocks <= 1) {
      EXPECT_FALSE(scan->write_block_sums) << "single tile needs no block sums";
      return pos + 1;
    }

    EXPECT_TRUE(scan->write_block_sums);
    const Range sums = scan->aux;
    EXPECT_EQ(sums.slot, Slot::temp);
    EXPECT_EQ(sums.count, blocks) << "one block sum per block of level " << l;
    EXPECT_EQ(sums.offset % temp_level_alignment, 0u) << to_string(sums);
    EXPECT_LE(sums.offset + sums.count, plan_.temp_elements) << to_string(sums);
    sums_.push_back(sums);

    if (!barrier_at(pos + 1)) return kFailed;
    // Deeper levels: exclusive, in place on this level's sums.
    const size_t after = level(pos + 2, l + 1, blocks, sums, sums, false);
    if (after == kFailed || !barrier_at(after)) return kFailed;

    const Dispatch* add = dispatch_at(after + 1);
    if (!add) return kFailed;
    EXPECT_EQ(add->kernel, Kernel::uniform_add);
    common(*add, l, n);
    EXPECT_EQ(add->dst, out) << "uniform_add must update what this level's scan wrote";
    EXPECT_EQ(add->aux, sums) << "uniform_add must read the sums this level's scan wrote";
    EXPECT_FALSE(add->write_block_sums);
    return after + 2;
  }

  const Plan& plan_;
  const ScanRequest& req_;
  std::vector<Range> sums_;  // sums_[l-1]: block sums of level l-1, scanned as level l
};

// What a dispatch touches, as the backend's barriers must see it.
struct Access {
  Range range;
  bool write;
};

std::vector<Access> accesses(const Dispatch& d) {
  if (d.kernel == Kernel::scan_local) {
    std::vector<Access> a = {{d.src, false}, {d.dst, true}};
    if (d.write_block_sums) a.push_back({d.aux, true});
    return a;
  }
  return {{d.dst, false}, {d.dst, true}, {d.aux, false}};
}

// Dispatches with no barrier between them may run concurrently on a GPU, so any write that overlaps
// another access (RAW, WAW, and WAR too) in such a pair is a race, whatever order the CPU model uses.
void expect_barriers_separate_conflicts(const Plan& plan) {
  std::vector<size_t> barriers_before(plan.steps.size() + 1, 0);
  for (size_t i = 0; i < plan.steps.size(); ++i)
    barriers_before[i + 1] = barriers_before[i] + std::holds_alternative<Barrier>(plan.steps[i]);
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    const auto* a = std::get_if<Dispatch>(&plan.steps[i]);
    if (!a) continue;
    for (size_t j = i + 1; j < plan.steps.size(); ++j) {
      const auto* b = std::get_if<Dispatch>(&plan.steps[j]);
      if (!b || barriers_before[j] != barriers_before[i + 1]) continue;
      for (const Access& x : accesses(*a))
        for (const Access& y : accesses(*b))
          EXPECT_FALSE((x.write || y.write) && overlaps(x.range, y.range))
              << "no barrier between step " << i << " and step " << j << " which touch "
              << to_string(x.range) << " and " << to_string(y.range);
    }
  }
}

void check_structure(const Plan& plan, const ScanRequest& req) {
  EXPECT_EQ(plan.levels, expected_levels(req.n, req.block_size));
  if (req.n == 0) {
    EXPECT_TRUE(plan.steps.empty());
    EXPECT_EQ(plan.temp_elements, 0u);
    return;
  }
  EXPECT_EQ(plan.dispatch_count(), 2 * size_t{plan.levels} - 1);
  EXPECT_EQ(plan.steps.size() - plan.dispatch_count(), 2 * size_t{plan.levels} - 2) << "barriers";
  StructureChecker(plan, req).run();
  expect_barriers_separate_conflicts(plan);
}

// ---------------------------------------------------------------------------------------------------
// CPU interpreter. Buffers hold uint64_t (wrapping like the GPU's unsigned adds); output and temp start
// poisoned and every element remembers whether a dispatch wrote it, so reading scratch that was never
// produced (a missing pass, a wrong range, a wrong order) fails loudly instead of reading a stale value.
class Interpreter {
 public:
  Interpreter(const Plan& plan, uint32_t block_size, const std::vector<uint64_t>& input)
      : plan_(plan),
        block_(block_size),
        input_(input),
        output_(input.size(), kPoison),
        temp_(plan.temp_elements, kPoison),
        output_written_(input.size(), 0),
        temp_written_(plan.temp_elements, 0) {}

  // Barrier-free runs of dispatches may execute in any order on a GPU, and workgroups within a
  // dispatch too; running both in reverse is a cheap adversarial order (the barrier check covers the
  // rest).
  const std::vector<uint64_t>& run() {
    size_t begin = 0;
    for (size_t i = 0; i <= plan_.steps.size(); ++i) {
      if (i < plan_.steps.size() && !std::holds_alternative<Barrier>(plan_.steps[i])) continue;
      for (size_t j = i; j-- > begin;) execute(std::get<Dispatch>(plan_.steps[j]));
      begin = i + 1;
    }
    return output_;
  }

  uint64_t errors() const { return errors_; }
  const std::string& first_error() const { return first_error_; }

 private:
  void fail(const std::string& what) {
    if (errors_++ == 0) first_error_ = what;
  }

  std::vector<uint64_t>* buffer(Slot s) {
    switch (s) {
      case Slot::input: return &input_;
      case Slot::output: return &output_;
      case Slot::temp: return &temp_;
    }
    return nullptr;
  }
  std::vector<char>* written(Slot s) {
    return s == Slot::output ? &output_written_ : s == Slot::temp ? &temp_written_ : nullptr;
  }

  uint64_t read(const Range& r, uint64_t i) {
    const std::vector<uint64_t>& buf = *buffer(r.slot);
    if (i >= r.count || r.offset + i >= buf.size()) {
      fail("read outside " + to_string(r) + " / buffer at element " + std::to_string(i));
      return 0;
    }
    const std::vector<char>* w = written(r.slot);
    if (w && !(*w)[r.offset + i])
      fail("read of unwritten element " + std::to_string(r.offset + i) + " of " + to_string(r));
    return buf[r.offset + i];
  }

  void write(const Range& r, uint64_t i, uint64_t v) {
    std::vector<uint64_t>& buf = *buffer(r.slot);
    if (r.slot == Slot::input) return fail("write to the caller's input " + to_string(r));
    if (i >= r.count || r.offset + i >= buf.size())
      return fail("write outside " + to_string(r) + " / buffer at element " + std::to_string(i));
    buf[r.offset + i] = v;
    (*written(r.slot))[r.offset + i] = 1;
  }

  void execute(const Dispatch& d) {
    for (uint64_t b = d.blocks; b-- > 0;) {
      const uint64_t begin = b * block_, end = std::min(d.n, begin + block_);
      if (d.kernel == Kernel::scan_local) {
        uint64_t running = 0;
        for (uint64_t i = begin; i < end; ++i) {
          const uint64_t v = read(d.src, i);  // before the write: src may be dst (in place)
          if (d.inclusive) running += v;
          write(d.dst, i, running);
          if (!d.inclusive) running += v;
        }
        if (d.write_block_sums) write(d.aux, b, running);
      } else {
        const uint64_t offset = read(d.aux, b);
        for (uint64_t i = begin; i < end; ++i) write(d.dst, i, read(d.dst, i) + offset);
      }
    }
  }

  const Plan& plan_;
  uint64_t block_;
  std::vector<uint64_t> input_, output_, temp_;
  std::vector<char> output_written_, temp_written_;
  uint64_t errors_ = 0;
  std::string first_error_;
};

std::vector<uint64_t> reference_scan(const std::vector<uint64_t>& in, bool inclusive) {
  std::vector<uint64_t> out(in.size());
  uint64_t running = 0;
  for (size_t i = 0; i < in.size(); ++i) {
    if (inclusive) running += in[i];
    out[i] = running;
    if (!inclusive) running += in[i];
  }
  return out;
}

// Runs the plan for `req` on random data and compares with the reference; returns false on failure.
bool simulate(const ScanRequest& req, std::mt19937_64& rng) {
  // Full-range random values: wrapping matters, and zeros/ones would hide a missing or doubled add.
  std::vector<uint64_t> input(req.n);
  for (uint64_t& v : input) v = rng();
  const Plan plan = gpuscan::core::plan_multipass_scan(req);
  Interpreter sim(plan, req.block_size, input);
  const std::vector<uint64_t>& got = sim.run();
  EXPECT_EQ(sim.errors(), 0u) << "first: " << sim.first_error();
  const std::vector<uint64_t> want = reference_scan(input, req.inclusive);
  const auto mismatch = std::mismatch(got.begin(), got.end(), want.begin());
  EXPECT_TRUE(mismatch.first == got.end())
      << "first wrong element " << (mismatch.first - got.begin()) << ": got " << *mismatch.first
      << ", want " << *mismatch.second;
  return sim.errors() == 0 && mismatch.first == got.end();
}

std::string case_name(const ScanRequest& req) {
  std::ostringstream s;
  s << "B=" << req.block_size << " n=" << req.n << (req.inclusive ? " inclusive" : " exclusive")
    << " limits=" << req.limits.max_groups_x << "x" << req.limits.max_groups_y << "; " << seed_note();
  return s.str();
}

// ---------------------------------------------------------------------------------------------------

TEST(Plan, EmptyInputHasNoSteps) {
  for (uint32_t b : kBlockSizes) {
    const Plan plan = gpuscan::core::plan_multipass_scan(request(0, b, true));
    EXPECT_TRUE(plan.steps.empty());
    EXPECT_EQ(plan.dispatch_count(), 0u);
    EXPECT_EQ(plan.temp_elements, 0u);
    EXPECT_EQ(plan.levels, 0u);
  }
}

TEST(Plan, OneTileIsOneLocalScan) {
  for (uint32_t b : kBlockSizes)
    for (uint64_t n : {uint64_t{1}, uint64_t{b} - 1, uint64_t{b}})
      for (bool inclusive : {false, true}) {
        if (n == 0) continue;
        const ScanRequest req = request(n, b, inclusive);
        SCOPED_TRACE(case_name(req));
        const Plan plan = gpuscan::core::plan_multipass_scan(req);
        ASSERT_EQ(plan.steps.size(), 1u) << gpuscan::core::describe(plan);
        const auto* d = std::get_if<Dispatch>(&plan.steps[0]);
        ASSERT_NE(d, nullptr);
        EXPECT_EQ(d->kernel, Kernel::scan_local);
        EXPECT_EQ(d->blocks, 1u);
        EXPECT_EQ(d->groups_x, 1u);
        EXPECT_EQ(d->groups_y, 1u);
        EXPECT_EQ(d->inclusive, inclusive);
        EXPECT_FALSE(d->write_block_sums);
        EXPECT_EQ(d->src, (Range{Slot::input, 0, n}));
        EXPECT_EQ(d->dst, (Range{Slot::output, 0, n}));
        EXPECT_EQ(plan.temp_elements, 0u);
        EXPECT_EQ(plan.levels, 1u);
      }
}

// Pins the level count on hand-computed cases so the independent formula is itself checked.
TEST(Plan, LevelCountsByHand) {
  struct Case { uint32_t b; uint64_t n; uint32_t levels; };
  const Case cases[] = {
      {2, 2, 1},     {2, 3, 2},       {2, 4, 2},   {2, 5, 3},   {2, 9, 4},
      {4, 16, 2},    {4, 17, 3},      {4, 64, 3},  {4, 65, 4},  {512, 513, 2},
      {512, 262144, 2}, {512, 262145, 3}, {512, 134217728, 3}, {512, 134217729, 4},
  };
  for (const Case& c : cases) {
    const ScanRequest req = request(c.n, c.b);
    SCOPED_TRACE(case_name(req));
    EXPECT_EQ(expected_levels(c.n, c.b), c.levels);
    const Plan plan = gpuscan::core::plan_multipass_scan(req);
    EXPECT_EQ(plan.levels, c.levels);
    EXPECT_EQ(plan.dispatch_count(), 2 * size_t{c.levels} - 1);
    check_structure(plan, req);
  }
}

// Structure of every size in the brief plus random ones, up to the largest n the default grid allows
// (so B = 2 reaches ~33 levels).
TEST(Plan, StructureAcrossSizes) {
  for (uint32_t b : kBlockSizes) {
    std::mt19937_64 rng = rng_for(b);
    const PlanLimits limits;
    const uint64_t max_n = uint64_t{b} * limits.max_groups_x * limits.max_groups_y;
    std::vector<uint64_t> sizes = sizes_for(b, rng, uint64_t{1} << 20);
    for (int i = 0; i < 50; ++i) sizes.push_back(random_size(rng, max_n));
    sizes.push_back(max_n);
    for (uint64_t n : sizes)
      for (bool inclusive : {false, true}) {
        const ScanRequest req = request(n, b, inclusive);
        SCOPED_TRACE(case_name(req));
        const Plan plan = gpuscan::core::plan_multipass_scan(req);
        SCOPED_TRACE(gpuscan::core::describe(plan));
        check_structure(plan, req);
        if (HasFailure()) return;  // one readable failure beats hundreds of repeats
      }
  }
}

TEST(Plan, SimulatedExecutionMatchesReference) {
  for (uint32_t b : kBlockSizes) {
    std::mt19937_64 rng = rng_for(1000 + b);
    for (uint64_t n : sizes_for(b, rng, uint64_t{1} << 18)) {
      if (n > kSimulationCap) continue;  // B = 512's B^3+1: structure-only (see kSimulationCap)
      for (bool inclusive : {false, true}) {
        const ScanRequest req = request(n, b, inclusive);
        SCOPED_TRACE(case_name(req));
        if (!simulate(req, rng)) return;
      }
    }
  }
}

// Tiny fake grid limits force 2-D grids on every level that needs more than 7 workgroups.
TEST(Plan, SmallGridLimitsGiveValid2DGrids) {
  const PlanLimits limits{.max_groups_x = 7, .max_groups_y = 5};
  std::mt19937_64 rng = rng_for(2000);
  for (uint32_t b : {2u, 4u, 128u}) {
    bool saw_2d = false;
    const uint64_t max_n = uint64_t{b} * 7 * 5;
    for (uint64_t n = 0; n <= max_n; n += (b <= 4 ? 1 : 1 + rng() % 61)) {
      for (bool inclusive : {false, true}) {
        const ScanRequest req = request(n, b, inclusive, limits);
        SCOPED_TRACE(case_name(req));
        const Plan plan = gpuscan::core::plan_multipass_scan(req);
        check_structure(plan, req);
        if (HasFailure() || !simulate(req, rng)) return;
        for (const Step& s : plan.steps)
          if (const auto* d = std::get_if<Dispatch>(&s)) saw_2d |= d->groups_y > 1;
      }
    }
    EXPECT_TRUE(saw_2d) << "B=" << b << ": the limits never produced a 2-D grid";
    // One block more than the grid holds must be refused, not truncated.
    const ScanRequest too_big = request(max_n + 1, b, false, limits);
    try {
      (void)gpuscan::core::plan_multipass_scan(too_big);
      ADD_FAILURE() << case_name(too_big) << ": expected too_large";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), Errc::too_large) << e.what();
    }
  }
}

TEST(GridFor, ExhaustiveSmallLimits) {
  for (uint32_t mx = 1; mx <= 12; ++mx)
    for (uint32_t my = 1; my <= 12; ++my) {
      const PlanLimits limits{.max_groups_x = mx, .max_groups_y = my};
      for (uint64_t blocks = 1; blocks <= uint64_t{mx} * my; ++blocks) {
        SCOPED_TRACE("limits " + std::to_string(mx) + "x" + std::to_string(my) + " blocks " +
                     std::to_string(blocks));
        uint32_t gx = 0, gy = 0;
        gpuscan::core::grid_for(blocks, limits, gx, gy);
        expect_grid(blocks, gx, gy, limits);
        if (blocks <= mx) {
          EXPECT_EQ(gy, 1u) << "one row while it fits";
        }
        if (HasFailure()) return;
      }
    }
}

TEST(GridFor, TooManyBlocksThrowsTooLarge) {
  const PlanLimits limits{.max_groups_x = 7, .max_groups_y = 5};
  for (uint64_t blocks : {uint64_t{36}, uint64_t{37}, uint64_t{1000}, uint64_t{1} << 40}) {
    uint32_t gx = 0, gy = 0;
    try {
      gpuscan::core::grid_for(blocks, limits, gx, gy);
      ADD_FAILURE() << blocks << " blocks fit a 7x5 grid?";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), Errc::too_large);
      // The message must let a user see what was asked and what the device allows.
      const std::string what = e.what();
      EXPECT_NE(what.find(std::to_string(blocks)), std::string::npos) << what;
      EXPECT_NE(what.find('7'), std::string::npos) << what;
      EXPECT_NE(what.find('5'), std::string::npos) << what;
    }
  }
}

// The real limits: products beyond 32 bits must neither overflow nor truncate the grid.
TEST(GridFor, DefaultLimitsAtTheEdges) {
  const PlanLimits limits;  // 65535 x 65535
  const uint64_t max = uint64_t{65535} * 65535;
  for (uint64_t blocks : {uint64_t{1}, uint64_t{65535}, uint64_t{65536}, uint64_t{1} << 31,
                          max - 65535, max - 1, max}) {
    uint32_t gx = 0, gy = 0;
    gpuscan::core::grid_for(blocks, limits, gx, gy);
    SCOPED_TRACE("blocks " + std::to_string(blocks));
    expect_grid(blocks, gx, gy, limits);
  }
  uint32_t gx = 0, gy = 0;
  EXPECT_THROW(gpuscan::core::grid_for(max + 1, limits, gx, gy), Error);
}

TEST(GridFor, ZeroLimitsAreInvalid) {
  uint32_t gx = 0, gy = 0;
  for (const PlanLimits limits : {PlanLimits{0, 5}, PlanLimits{5, 0}}) {
    try {
      gpuscan::core::grid_for(3, limits, gx, gy);
      ADD_FAILURE() << "zero limit accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), Errc::invalid_argument);
    }
  }
}

TEST(Plan, InvalidBlockSizesThrow) {
  for (uint32_t b : {0u, 1u, 3u, 6u, 100u, 0xFFFFFFFFu}) {
    for (uint64_t n : {uint64_t{0}, uint64_t{1000}}) {
      try {
        (void)gpuscan::core::plan_multipass_scan(request(n, b));
        ADD_FAILURE() << "block size " << b << " accepted for n=" << n;
      } catch (const Error& e) {
        EXPECT_EQ(e.code(), Errc::invalid_argument) << e.what();
      }
    }
  }
}

// Sizes beyond what any grid can hold must be refused cleanly -- including n near 2^64, where a naive
// ceil(n / B) wraps around.
TEST(Plan, HugeSizesThrowTooLarge) {
  const uint64_t max = std::numeric_limits<uint64_t>::max();
  for (uint32_t b : kBlockSizes) {
    const uint64_t fits = uint64_t{b} * 65535 * 65535;
    for (uint64_t n : {fits + 1, uint64_t{1} << 63, max - b + 1, max - 1, max}) {
      try {
        (void)gpuscan::core::plan_multipass_scan(request(n, b));
        ADD_FAILURE() << "B=" << b << " n=" << n << " accepted";
      } catch (const Error& e) {
        EXPECT_EQ(e.code(), Errc::too_large) << "B=" << b << " n=" << n << ": " << e.what();
      }
    }
  }
}

// Light check: one line per step after the header, naming the kernel and level it describes.
TEST(Plan, DescribeListsEveryStep) {
  for (uint64_t n : {uint64_t{0}, uint64_t{3}, uint64_t{9}, uint64_t{100}}) {
    const Plan plan = gpuscan::core::plan_multipass_scan(request(n, 2, true));
    const std::string text = gpuscan::core::describe(plan);
    SCOPED_TRACE(text);
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    ASSERT_EQ(lines.size(), plan.steps.size() + 1);
    for (size_t i = 0; i < plan.steps.size(); ++i) {
      const std::string& line = lines[i + 1];
      if (std::holds_alternative<Barrier>(plan.steps[i])) {
        EXPECT_NE(line.find("barrier"), std::string::npos) << line;
        continue;
      }
      const Dispatch& d = std::get<Dispatch>(plan.steps[i]);
      EXPECT_NE(line.find(d.kernel == Kernel::scan_local ? "scan_local" : "uniform_add"), std::string::npos)
          << line;
      EXPECT_NE(line.find("L" + std::to_string(d.level)), std::string::npos) << line;
      EXPECT_NE(line.find("n=" + std::to_string(d.n)), std::string::npos) << line;
    }
  }
}

}  // namespace
