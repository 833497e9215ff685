// Unit tests for the API-independent scan plans (src/core/plan.hpp): multi-pass (scan_local /
// uniform_add), reduce-then-scan (reduce_tiles / scan_tiles) and single-pass (fill, barrier,
// single_pass). Backends only execute a plan, so every property a GPU run depends on -- structure,
// grids, temp layout, barrier placement and the arithmetic itself -- is checked here without a GPU:
// structurally, and by running the plan's program (what both backends execute) on the tests' CPU
// executor, which tracks which scratch bytes were written and which commands may race.
//
// Random sizes and data come from one seed per run, printed with every failure; set
// GPUSCAN_TEST_SEED=<seed> to replay a run.
#include <gtest/gtest-spi.h>  // ScopedFakeTestPartResultReporter: the checkers' own tests
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <variant>
#include <vector>

#include "core/plan.hpp"
#include "core/plan_program.hpp"
#include "core/windows.hpp"
#include "gpuscan/error.hpp"
#include "program_interpreter.hpp"
#include "sanitizers/asan_build.hpp"

namespace {

using gpuscan::Errc;
using gpuscan::Error;
using gpuscan::core::Barrier;
using gpuscan::core::Dispatch;
using gpuscan::core::Fill;
using gpuscan::core::Kernel;
using gpuscan::core::Plan;
using gpuscan::core::PlanLimits;
using gpuscan::core::Range;
using gpuscan::core::ScanRequest;
using gpuscan::core::Slot;
using gpuscan::core::Step;
using gpuscan::core::temp_level_alignment;

constexpr uint32_t kBlockSizes[] = {2, 4, 128, 512};
// The tile kernels' tiles are W * vectors-per-lane * 4 elements, so thousands are realistic.
constexpr uint32_t kTileBlockSizes[] = {2, 4, 128, 512, 4096};
// Plans above this many elements are checked structurally only: simulating B^3+1 for B = 512
// (134M elements) would cost gigabytes and seconds without exercising anything new.
constexpr uint64_t kSimulationCap = uint64_t{1} << 22;
constexpr uint64_t kPoison = 0xDEADBEEFCAFEF00Dull;

enum class Planner { multipass, reduce_then_scan, single_pass };

const char* planner_name(Planner p) {
  switch (p) {
    case Planner::multipass: return "multipass";
    case Planner::reduce_then_scan: return "reduce_then_scan";
    case Planner::single_pass: return "single_pass";
  }
  return "?";
}

Plan make_plan(Planner p, const ScanRequest& req) {
  switch (p) {
    case Planner::multipass: return gpuscan::core::plan_multipass_scan(req);
    case Planner::reduce_then_scan: return gpuscan::core::plan_reduce_then_scan(req);
    case Planner::single_pass: return gpuscan::core::plan_single_pass(req);
  }
  return {};
}

uint64_t ceil_div(uint64_t a, uint64_t b) { return a / b + (a % b != 0); }

ScanRequest request(uint64_t n, uint32_t block_size, bool inclusive = false, PlanLimits limits = {},
                    uint32_t element_size = 4) {
  ScanRequest req;
  req.n = n;
  req.block_size = block_size;
  req.inclusive = inclusive;
  req.limits = limits;
  req.element_size = element_size;
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

// The sizes the brief names plus `random_count` random ones; duplicates (B = 2 gives B-1 == 1) are
// harmless.
std::vector<uint64_t> sizes_for(uint64_t b, std::mt19937_64& rng, uint64_t random_max, int random_count = 200) {
  std::vector<uint64_t> sizes = {0, 1, b - 1, b, b + 1, b * b - 1, b * b, b * b + 1, b * b * b + 1};
  for (int i = 0; i < random_count; ++i) sizes.push_back(random_size(rng, random_max));
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

const char* step_kind(const Step& s) {
  return std::holds_alternative<Barrier>(s) ? "a barrier" : std::holds_alternative<Fill>(s) ? "a fill" : "a dispatch";
}

// ---------------------------------------------------------------------------------------------------
// Structural check for the two recursive planners: walks the steps against the documented shape
//   multipass:        scan_local(l, sums)   / Barrier / [level l+1] / Barrier / uniform_add(l, sums)
//   reduce-then-scan: reduce_tiles(l, sums) / Barrier / [level l+1] / Barrier / scan_tiles(l, offsets)
// and collects each level's block-sum range for the layout checks.
class StructureChecker {
 public:
  StructureChecker(const Plan& plan, const ScanRequest& req, Planner planner)
      : plan_(plan), req_(req), planner_(planner) {}

  void run() {
    const Range in{Slot::input, 0, req_.n};
    const Range out{Slot::output, 0, req_.n};
    const size_t end = level(0, 0, req_.n, in, out, req_.inclusive);
    if (end != kFailed) {
      EXPECT_EQ(end, plan_.steps.size()) << "steps left over after level 0";
    }

    // Block-sum ranges of different levels must not alias: a level's sums are still needed by its
    // uniform_add / scan_tiles after every deeper level has run.
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
    if (!d) ADD_FAILURE() << "step " << pos << " is " << step_kind(plan_.steps[pos]) << ", expected a dispatch";
    return d;
  }

  bool barrier_at(size_t pos) {
    if (pos >= plan_.steps.size()) {
      ADD_FAILURE() << "plan ends at step " << pos << ", expected a barrier";
      return false;
    }
    const bool ok = std::holds_alternative<Barrier>(plan_.steps[pos]);
    if (!ok) ADD_FAILURE() << "step " << pos << " is " << step_kind(plan_.steps[pos]) << ", expected a barrier";
    return ok;
  }

  void common(const Dispatch& d, uint32_t l, uint64_t n) {
    EXPECT_EQ(d.level, l);
    EXPECT_EQ(d.n, n);
    EXPECT_EQ(d.blocks, ceil_div(n, req_.block_size));
    expect_grid(d.blocks, d.groups_x, d.groups_y, req_.limits);
  }

  // A level's block sums / tile totals: one per block, in temp, aligned, inside temp_elements.
  void expect_sums_range(const Range& sums, uint32_t l, uint64_t blocks) {
    EXPECT_EQ(sums.slot, Slot::temp);
    EXPECT_EQ(sums.count, blocks) << "one block sum per block of level " << l;
    EXPECT_EQ(sums.offset % temp_level_alignment, 0u) << to_string(sums);
    EXPECT_TRUE(sums.offset <= plan_.temp_elements && sums.count <= plan_.temp_elements - sums.offset)
        << to_string(sums) << " outside temp_elements " << plan_.temp_elements;
    sums_.push_back(sums);
  }

  // Checks the steps from `pos` that scan `array` (n elements) into `out`; returns the index after
  // them, or kFailed when the shape is broken (already reported).
  size_t level(size_t pos, uint32_t l, uint64_t n, Range array, Range out, bool inclusive) {
    SCOPED_TRACE("level " + std::to_string(l) + " at step " + std::to_string(pos));
    return planner_ == Planner::multipass ? multipass_level(pos, l, n, array, out, inclusive)
                                          : reduce_then_scan_level(pos, l, n, array, out, inclusive);
  }

  size_t multipass_level(size_t pos, uint32_t l, uint64_t n, Range array, Range out, bool inclusive) {
    const Dispatch* scan = dispatch_at(pos);
    if (!scan) return kFailed;
    EXPECT_EQ(scan->kernel, Kernel::scan_local);
    common(*scan, l, n);
    EXPECT_EQ(scan->src, array);
    EXPECT_EQ(scan->dst, out);
    // Only the caller's level honours `inclusive`: block offsets must be exclusive sums.
    EXPECT_EQ(scan->inclusive, inclusive);
    EXPECT_FALSE(scan->read_offsets);

    const uint64_t blocks = ceil_div(n, req_.block_size);
    if (blocks <= 1) {
      EXPECT_FALSE(scan->write_block_sums) << "single tile needs no block sums";
      return pos + 1;
    }

    EXPECT_TRUE(scan->write_block_sums);
    const Range sums = scan->aux;
    expect_sums_range(sums, l, blocks);

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
    EXPECT_FALSE(add->read_offsets);
    return after + 2;
  }

  size_t reduce_then_scan_level(size_t pos, uint32_t l, uint64_t n, Range array, Range out, bool inclusive) {
    const uint64_t blocks = ceil_div(n, req_.block_size);
    auto expect_scan_tiles = [&](const Dispatch& scan) {
      EXPECT_EQ(scan.kernel, Kernel::scan_tiles);
      common(scan, l, n);
      EXPECT_EQ(scan.src, array);
      EXPECT_EQ(scan.dst, out);
      // Only the caller's level honours `inclusive`: tile offsets must be exclusive sums.
      EXPECT_EQ(scan.inclusive, inclusive);
      EXPECT_FALSE(scan.write_block_sums);
    };
    if (blocks <= 1) {
      const Dispatch* scan = dispatch_at(pos);
      if (!scan) return kFailed;
      expect_scan_tiles(*scan);
      EXPECT_FALSE(scan->read_offsets) << "a single tile has no offsets to read";
      return pos + 1;
    }

    const Dispatch* reduce = dispatch_at(pos);
    if (!reduce) return kFailed;
    EXPECT_EQ(reduce->kernel, Kernel::reduce_tiles);
    common(*reduce, l, n);
    EXPECT_EQ(reduce->src, array) << "reduce_tiles must read this level's array";
    EXPECT_FALSE(reduce->write_block_sums);
    EXPECT_FALSE(reduce->read_offsets);
    const Range sums = reduce->aux;
    expect_sums_range(sums, l, blocks);

    if (!barrier_at(pos + 1)) return kFailed;
    // Deeper levels: exclusive, in place on this level's tile totals.
    const size_t after = level(pos + 2, l + 1, blocks, sums, sums, false);
    if (after == kFailed || !barrier_at(after)) return kFailed;

    const Dispatch* scan = dispatch_at(after + 1);
    if (!scan) return kFailed;
    expect_scan_tiles(*scan);
    EXPECT_TRUE(scan->read_offsets) << "scan_tiles must start each tile from its offset";
    EXPECT_EQ(scan->aux, sums) << "scan_tiles must read the offsets reduce_tiles' totals became";
    return after + 2;
  }

  const Plan& plan_;
  const ScanRequest& req_;
  Planner planner_;
  std::vector<Range> sums_;  // sums_[l-1]: block sums of level l-1, scanned as level l
};

// The single-pass plan: exactly [Fill(state), Barrier, single_pass], the state at temp element 0.
void check_single_pass_structure(const Plan& plan, const ScanRequest& req) {
  const uint64_t blocks = ceil_div(req.n, req.block_size);
  const uint64_t words = std::max<uint64_t>(1, (req.element_size + 3) / 4);  // 64-bit words per tile
  ASSERT_LE(blocks, (std::numeric_limits<uint64_t>::max() - 8) / 16 / words) << "the state's size wraps around";
  // Tile counter, done counter, words per tile, and as many again for the ordered look-back's block prefixes.
  const uint64_t state_bytes = 8 + 16 * words * blocks;
  EXPECT_EQ(gpuscan::core::single_pass_scan_state_bytes(blocks, req.element_size), state_bytes);
  const Range state{Slot::temp, 0, ceil_div(state_bytes, req.element_size)};
  ASSERT_EQ(plan.steps.size(), 3u);
  const auto* fill = std::get_if<Fill>(&plan.steps[0]);
  ASSERT_NE(fill, nullptr) << "step 0 is " << step_kind(plan.steps[0]) << ", expected a fill";
  ASSERT_TRUE(std::holds_alternative<Barrier>(plan.steps[1])) << "step 1 is " << step_kind(plan.steps[1]);
  const auto* d = std::get_if<Dispatch>(&plan.steps[2]);
  ASSERT_NE(d, nullptr) << "step 2 is " << step_kind(plan.steps[2]) << ", expected a dispatch";

  EXPECT_EQ(fill->range, state) << to_string(fill->range);
  EXPECT_EQ(d->kernel, Kernel::single_pass);
  EXPECT_EQ(d->level, 0u);
  EXPECT_EQ(d->n, req.n);
  EXPECT_EQ(d->blocks, blocks);
  expect_grid(d->blocks, d->groups_x, d->groups_y, req.limits);
  EXPECT_EQ(d->src, (Range{Slot::input, 0, req.n}));
  EXPECT_EQ(d->dst, (Range{Slot::output, 0, req.n}));
  EXPECT_EQ(d->aux, state) << "the look-back state must be what the fill zeroed: " << to_string(d->aux);
  EXPECT_GE(d->aux.count * req.element_size, state_bytes);
  EXPECT_EQ(d->inclusive, req.inclusive);
  EXPECT_FALSE(d->write_block_sums);
  EXPECT_FALSE(d->read_offsets);
  EXPECT_EQ(plan.temp_elements, state.count);
  EXPECT_EQ(plan.levels, 1u);
  EXPECT_EQ(plan.dispatch_count(), 1u);
}

// What a step touches, as the backend's barriers must see it.
struct Access {
  Range range;
  bool write;
};

std::vector<Access> accesses(const Step& s) {
  if (std::holds_alternative<Barrier>(s)) return {};
  if (const auto* f = std::get_if<Fill>(&s)) return {{f->range, true}};
  const Dispatch& d = std::get<Dispatch>(s);
  switch (d.kernel) {
    case Kernel::scan_local: {
      std::vector<Access> a = {{d.src, false}, {d.dst, true}};
      if (d.write_block_sums) a.push_back({d.aux, true});
      return a;
    }
    case Kernel::uniform_add: return {{d.dst, false}, {d.dst, true}, {d.aux, false}};
    case Kernel::reduce_tiles: return {{d.src, false}, {d.aux, true}};
    case Kernel::scan_tiles: {
      std::vector<Access> a = {{d.src, false}, {d.dst, true}};
      if (d.read_offsets) a.push_back({d.aux, false});
      return a;
    }
    case Kernel::single_pass: return {{d.src, false}, {d.dst, true}, {d.aux, false}, {d.aux, true}};
  }
  return {};
}

// Steps with no barrier between them may run concurrently on a GPU (a fill included: it is a transfer
// write), so any write that overlaps another access (RAW, WAW, and WAR too) in such a pair is a race,
// whatever order the CPU model uses.
void expect_barriers_separate_conflicts(const Plan& plan) {
  std::vector<size_t> barriers_before(plan.steps.size() + 1, 0);
  for (size_t i = 0; i < plan.steps.size(); ++i)
    barriers_before[i + 1] = barriers_before[i] + std::holds_alternative<Barrier>(plan.steps[i]);
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    if (std::holds_alternative<Barrier>(plan.steps[i])) continue;
    for (size_t j = i + 1; j < plan.steps.size(); ++j) {
      if (std::holds_alternative<Barrier>(plan.steps[j]) || barriers_before[j] != barriers_before[i + 1]) continue;
      for (const Access& x : accesses(plan.steps[i]))
        for (const Access& y : accesses(plan.steps[j]))
          EXPECT_FALSE((x.write || y.write) && overlaps(x.range, y.range))
              << "no barrier between step " << i << " and step " << j << " which touch "
              << to_string(x.range) << " and " << to_string(y.range);
    }
  }
}

// Fills zero scratch, are always followed by a barrier (plan.hpp), and come before every dispatch:
// the Vulkan backend orders transfer -> compute at the barrier after a fill and compute -> compute
// everywhere else.
void expect_fill_rules(const Plan& plan) {
  bool dispatched = false;
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    dispatched |= std::holds_alternative<Dispatch>(plan.steps[i]);
    const auto* f = std::get_if<Fill>(&plan.steps[i]);
    if (!f) continue;
    EXPECT_EQ(f->range.slot, Slot::temp) << "fill of the caller's data " << to_string(f->range);
    EXPECT_GT(f->range.count, 0u) << "empty fill at step " << i;
    EXPECT_FALSE(dispatched) << "fill at step " << i << " after a dispatch";
    EXPECT_TRUE(i + 1 < plan.steps.size() && std::holds_alternative<Barrier>(plan.steps[i + 1]))
        << "fill at step " << i << " is not followed by a barrier";
  }
}

// Every range a step names is bound by the backend, used or not, so it must lie inside its slot:
// input and output hold n elements, temp holds temp_elements.
void expect_ranges_in_bounds(const Plan& plan, uint64_t n) {
  auto check = [&](const Range& r, size_t i, const char* what) {
    const uint64_t size = r.slot == Slot::temp ? plan.temp_elements : n;
    EXPECT_TRUE(r.offset <= size && r.count <= size - r.offset)
        << "step " << i << " " << what << " " << to_string(r) << " outside a slot of " << size;
  };
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    if (const auto* f = std::get_if<Fill>(&plan.steps[i])) check(f->range, i, "fill");
    if (const auto* d = std::get_if<Dispatch>(&plan.steps[i])) {
      check(d->src, i, "src");
      check(d->dst, i, "dst");
      check(d->aux, i, "aux");
    }
  }
}

void check_structure(const Plan& plan, const ScanRequest& req, Planner planner = Planner::multipass) {
  if (req.n == 0) {
    EXPECT_TRUE(plan.steps.empty());
    EXPECT_EQ(plan.temp_elements, 0u);
    EXPECT_EQ(plan.levels, 0u);
    return;
  }
  if (planner == Planner::single_pass) {
    check_single_pass_structure(plan, req);
  } else {
    EXPECT_EQ(plan.levels, expected_levels(req.n, req.block_size));
    EXPECT_EQ(plan.dispatch_count(), 2 * size_t{plan.levels} - 1);
    EXPECT_EQ(plan.steps.size() - plan.dispatch_count(), 2 * size_t{plan.levels} - 2) << "barriers";
    StructureChecker(plan, req, planner).run();
  }
  expect_ranges_in_bounds(plan, req.n);
  expect_fill_rules(plan);
  expect_barriers_separate_conflicts(plan);
}

// ---------------------------------------------------------------------------------------------------
// The plan's program (core::lower_scan_plan, what both backends execute) run by the tests' CPU executor
// (program_interpreter.hpp): output and temp start poisoned and unwritten, bindings start on aligned
// boundaries before their ranges, barrier-free runs of dispatches and their workgroups run in reverse,
// and a read of scratch never produced, a range overrun or a race fails loudly.

// Little-endian elements of `esize` bytes, and back.
std::vector<std::byte> to_bytes(const std::vector<uint64_t>& values, uint32_t esize) {
  std::vector<std::byte> bytes(values.size() * esize);
  for (size_t i = 0; i < values.size(); ++i)
    for (uint32_t b = 0; b < esize; ++b) bytes[i * esize + b] = static_cast<std::byte>(values[i] >> (8 * b));
  return bytes;
}
std::vector<uint64_t> from_bytes(const std::vector<std::byte>& bytes, uint32_t esize) {
  std::vector<uint64_t> values(bytes.size() / esize, 0);
  for (size_t i = 0; i < values.size(); ++i)
    for (uint32_t b = 0; b < esize; ++b) values[i] |= uint64_t{static_cast<uint8_t>(bytes[i * esize + b])} << (8 * b);
  return values;
}
uint64_t element_mask(uint32_t esize) { return esize >= 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * esize)) - 1; }

gpuscan::core::Program program_of(const Plan& plan, uint32_t esize, std::optional<uint64_t> initial) {
  gpuscan::core::ScanLowering how;
  how.element_size = esize;
  how.initial = initial;
  how.key_of = [](const Dispatch& d) {
    gpuscan::PipelineKey key;
    key.variant = gpuscan::core::kernel_name(d.kernel);
    key.inclusive = d.inclusive;
    key.use_aux = d.write_block_sums || d.read_offsets || d.kernel == Kernel::carry_save;
    return key;
  };
  return gpuscan::core::lower_scan_plan(plan, how);
}

std::vector<uint64_t> reference_scan(const std::vector<uint64_t>& in, bool inclusive, uint64_t initial = 0) {
  std::vector<uint64_t> out(in.size());
  uint64_t running = initial;
  for (size_t i = 0; i < in.size(); ++i) {
    if (inclusive) running += in[i];
    out[i] = running;
    if (!inclusive) running += in[i];
  }
  return out;
}

std::vector<uint64_t> random_input(uint64_t n, std::mt19937_64& rng) {
  // Full-range random values: wrapping matters, and zeros/ones would hide a missing or doubled add.
  std::vector<uint64_t> input(n);
  for (uint64_t& v : input) v = rng();
  return input;
}

// Runs `plan`'s program on `input` (elements of req.element_size bytes: the values wrap there) and
// compares with the reference; returns false on failure.
bool run_plan(const Plan& plan, const ScanRequest& req, const std::vector<uint64_t>& input, uint64_t initial = 0) {
  const uint32_t esize = req.element_size;
  const uint64_t mask = element_mask(esize);
  using Buffer = gpuscan::test::ProgramInterpreter::Buffer;
  const std::vector<uint64_t> poison_out(input.size(), kPoison), poison_temp(plan.temp_elements, kPoison);
  gpuscan::test::ProgramInterpreter sim({Buffer{to_bytes(input, esize), true}, Buffer{to_bytes(poison_out, esize)},
                                         Buffer{to_bytes(poison_temp, esize)}},  // core::PlanBuffer's order
                                        req.block_size);
  try {
    sim.run(program_of(plan, esize, initial & mask));
  } catch (const std::exception& e) {
    ADD_FAILURE() << "lowering: " << e.what();
    return false;
  }
  EXPECT_EQ(sim.errors(), 0u) << "first: " << sim.first_error();
  const bool all_written = sim.written(gpuscan::core::plan_output, 0, input.size() * esize);
  EXPECT_TRUE(all_written) << "some output element was never written";
  std::vector<uint64_t> want = reference_scan(input, req.inclusive, initial);
  for (uint64_t& v : want) v &= mask;
  const std::vector<uint64_t> got = from_bytes(sim.bytes(gpuscan::core::plan_output), esize);
  const auto mismatch = std::mismatch(got.begin(), got.end(), want.begin());
  EXPECT_TRUE(mismatch.first == got.end())
      << "first wrong element " << (mismatch.first - got.begin()) << ": got " << *mismatch.first
      << ", want " << *mismatch.second;
  return sim.errors() == 0 && all_written && mismatch.first == got.end();
}

// Plans `req` with `planner` and runs it on random data, with a random carry-in: so every simulated plan
// also proves that exactly its root dispatch applies it (a root missing drops it, two roots add it twice).
bool simulate(const ScanRequest& req, std::mt19937_64& rng, Planner planner = Planner::multipass) {
  const std::vector<uint64_t> input = random_input(req.n, rng);
  return run_plan(make_plan(planner, req), req, input, rng());
}

std::string case_name(const ScanRequest& req, Planner planner = Planner::multipass) {
  std::ostringstream s;
  s << planner_name(planner) << " B=" << req.block_size << " n=" << req.n
    << (req.inclusive ? " inclusive" : " exclusive") << " esize=" << req.element_size
    << " limits=" << req.limits.max_groups_x << "x" << req.limits.max_groups_y << "; " << seed_note();
  return s.str();
}

void expect_throws(Errc code, Planner planner, const ScanRequest& req) {
  try {
    (void)make_plan(planner, req);
    ADD_FAILURE() << case_name(req, planner) << ": accepted, expected error " << static_cast<int>(code);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), code) << case_name(req, planner) << ": " << e.what();
  }
}

// ---------------------------------------------------------------------------------------------------
// Every planner: one instance each (ScanPlanner.<test>/<planner>), with what differs between them.

struct PlannerCase {
  Planner planner;
  std::vector<uint32_t> blocks;  // block sizes the structure and simulation tests run at
  uint64_t simulated_max;        // the largest random size simulated
  int simulated_random;          // how many random sizes are simulated per block size
  uint64_t salt;                 // the simulation's generator: rng_for(salt + B)
  bool alternate_element_size;   // simulate 4- and 8-byte elements in turn (the state layout differs)
};

const std::vector<uint32_t> kRecursiveBlocks(std::begin(kBlockSizes), std::end(kBlockSizes));
const std::vector<uint32_t> kTileBlocks(std::begin(kTileBlockSizes), std::end(kTileBlockSizes));
// The sanitizer build (scripts/test.sh) draws a fifth of the random sizes to simulate: there the
// simulator, test code that does not change the plans it checks, took 120 s of the three instances
// against 32 s in the plain build (2-core machine); every boundary size is still simulated, and the
// plain build draws them all.
#ifdef GPUSCAN_TEST_ASAN
constexpr int kSimulatedShare = 5;
#else
constexpr int kSimulatedShare = 1;
#endif
const PlannerCase kMultipass{Planner::multipass, kRecursiveBlocks, uint64_t{1} << 18, 200 / kSimulatedShare, 1000,
                             false};
const PlannerCase kReduceThenScan{Planner::reduce_then_scan, kTileBlocks, uint64_t{1} << 17, 120 / kSimulatedShare,
                                  3000, false};
const PlannerCase kSinglePass{Planner::single_pass, kTileBlocks, uint64_t{1} << 17, 120 / kSimulatedShare, 4000,
                              true};

// gtest prints the parameter of a failed instance: its planner, not its bytes.
void PrintTo(const PlannerCase& c, std::ostream* os) { *os << planner_name(c.planner); }

std::string planner_case_name(const ::testing::TestParamInfo<PlannerCase>& info) {
  return planner_name(info.param.planner);
}

class ScanPlanner : public ::testing::TestWithParam<PlannerCase> {
 protected:
  Planner planner() const { return GetParam().planner; }
};

// The multipass and reduce-then-scan plans: levels that recurse on the tile totals.
class RecursiveScanPlanner : public ScanPlanner {};

INSTANTIATE_TEST_SUITE_P(, ScanPlanner, ::testing::Values(kMultipass, kReduceThenScan, kSinglePass),
                         planner_case_name);
INSTANTIATE_TEST_SUITE_P(, RecursiveScanPlanner, ::testing::Values(kMultipass, kReduceThenScan), planner_case_name);

// Exactly one dispatch of every scan plan is the root, and it is the top level's scan.
TEST_P(ScanPlanner, EveryPlanHasOneRootAtTheTop) {
  std::mt19937_64 rng = rng_for(77 + 10 * static_cast<uint64_t>(planner()));
  for (uint64_t n : sizes_for(8, rng, 100000, 50)) {
    if (n == 0) continue;
    const ScanRequest req = request(n, 8);
    const Plan plan = make_plan(planner(), req);
    int roots = 0;
    uint32_t deepest = 0;
    for (const Step& s : plan.steps)
      if (const auto* d = std::get_if<Dispatch>(&s)) deepest = std::max(deepest, d->level);
    for (const Step& s : plan.steps)
      if (const auto* d = std::get_if<Dispatch>(&s); d && d->root) {
        ++roots;
        EXPECT_EQ(d->level, deepest) << case_name(req, planner());
        EXPECT_EQ(d->blocks, planner() == Planner::single_pass ? ceil_div(n, 8) : 1u) << case_name(req, planner());
        EXPECT_TRUE(d->kernel == Kernel::scan_local || d->kernel == Kernel::scan_tiles ||
                    d->kernel == Kernel::single_pass) << case_name(req, planner());
      }
    EXPECT_EQ(roots, 1) << case_name(req, planner());
  }
}

TEST_P(ScanPlanner, EmptyInputHasNoSteps) {
  for (uint32_t b : kBlockSizes)
    for (uint32_t esize : {4u, 8u}) {
      const Plan plan = make_plan(planner(), request(0, b, true, {}, esize));
      EXPECT_TRUE(plan.steps.empty());
      EXPECT_EQ(plan.dispatch_count(), 0u);
      EXPECT_EQ(plan.temp_elements, 0u);
      EXPECT_EQ(plan.levels, 0u);
    }
}

// One tile is one dispatch, from input to output, with no temp: scan_local (multipass) or scan_tiles
// (reduce-then-scan) reading no offsets and writing no block sums.
TEST_P(RecursiveScanPlanner, OneTileIsOneDispatch) {
  const Kernel kernel = planner() == Planner::multipass ? Kernel::scan_local : Kernel::scan_tiles;
  for (uint32_t b : GetParam().blocks)
    for (uint64_t n : {uint64_t{1}, uint64_t{b} - 1, uint64_t{b}})
      for (bool inclusive : {false, true}) {
        const ScanRequest req = request(n, b, inclusive);
        SCOPED_TRACE(case_name(req, planner()));
        const Plan plan = make_plan(planner(), req);
        ASSERT_EQ(plan.steps.size(), 1u) << gpuscan::core::describe(plan);
        const auto* d = std::get_if<Dispatch>(&plan.steps[0]);
        ASSERT_NE(d, nullptr);
        EXPECT_EQ(d->kernel, kernel);
        EXPECT_EQ(d->blocks, 1u);
        EXPECT_EQ(d->groups_x, 1u);
        EXPECT_EQ(d->groups_y, 1u);
        EXPECT_EQ(d->inclusive, inclusive);
        EXPECT_FALSE(d->read_offsets);
        EXPECT_FALSE(d->write_block_sums);
        EXPECT_EQ(d->src, (Range{Slot::input, 0, n}));
        EXPECT_EQ(d->dst, (Range{Slot::output, 0, n}));
        EXPECT_EQ(plan.temp_elements, 0u);
        EXPECT_EQ(plan.levels, 1u);
      }
}

// Pins the level count on hand-computed cases so the independent formula is itself checked.
TEST_P(RecursiveScanPlanner, LevelCountsByHand) {
  struct Case { uint32_t b; uint64_t n; uint32_t levels; };
  const Case cases[] = {
      {2, 2, 1},     {2, 3, 2},       {2, 4, 2},   {2, 5, 3},   {2, 9, 4},
      {4, 16, 2},    {4, 17, 3},      {4, 64, 3},  {4, 65, 4},  {512, 513, 2},
      {512, 262144, 2}, {512, 262145, 3}, {512, 134217728, 3}, {512, 134217729, 4},
  };
  for (const Case& c : cases) {
    const ScanRequest req = request(c.n, c.b);
    SCOPED_TRACE(case_name(req, planner()));
    EXPECT_EQ(expected_levels(c.n, c.b), c.levels);
    const Plan plan = make_plan(planner(), req);
    EXPECT_EQ(plan.levels, c.levels);
    EXPECT_EQ(plan.dispatch_count(), 2 * size_t{c.levels} - 1);
    check_structure(plan, req, planner());
  }
}

// Structure of every size in the brief plus random ones, up to the largest n the default grid allows
// (so B = 2 reaches ~33 levels).
TEST_P(ScanPlanner, StructureAcrossSizes) {
  for (const uint32_t b : GetParam().blocks) {
    std::mt19937_64 rng = rng_for(b + 100 * static_cast<uint64_t>(planner()));
    const PlanLimits limits;
    const uint64_t max_n = uint64_t{b} * limits.max_groups_x * limits.max_groups_y;
    std::vector<uint64_t> sizes = sizes_for(b, rng, uint64_t{1} << 20);
    for (int i = 0; i < 50; ++i) sizes.push_back(random_size(rng, max_n));
    sizes.push_back(max_n);
    for (uint64_t n : sizes)
      for (bool inclusive : {false, true})
        for (uint32_t esize : {4u, 8u}) {
          const ScanRequest req = request(n, b, inclusive, limits, esize);
          SCOPED_TRACE(case_name(req, planner()));
          const Plan plan = make_plan(planner(), req);
          SCOPED_TRACE(gpuscan::core::describe(plan));
          check_structure(plan, req, planner());
          if (HasFailure()) return;  // one readable failure beats hundreds of repeats
        }
  }
}

TEST_P(ScanPlanner, SimulatedExecutionMatchesReference) {
  const PlannerCase& p = GetParam();
  for (uint32_t b : p.blocks) {
    std::mt19937_64 rng = rng_for(p.salt + b);
    for (uint64_t n : sizes_for(b, rng, p.simulated_max, p.simulated_random)) {
      if (n > kSimulationCap) continue;  // B = 512's B^3+1 and more: structure-only (see kSimulationCap)
      for (bool inclusive : {false, true}) {
        const uint32_t esize = p.alternate_element_size && (n + inclusive) % 2 == 0 ? 8 : 4;
        const ScanRequest req = request(n, b, inclusive, {}, esize);
        SCOPED_TRACE(case_name(req, p.planner));
        if (!simulate(req, rng, p.planner)) return;
      }
    }
  }
}

// Tiny fake grid limits force 2-D grids on every level that needs more than 7 workgroups; one block
// more than the grid holds must be refused, not truncated.
TEST_P(ScanPlanner, SmallGridLimitsGiveValid2DGrids) {
  const PlanLimits limits{.max_groups_x = 7, .max_groups_y = 5};
  std::mt19937_64 rng = rng_for(2000 + static_cast<uint64_t>(planner()));
  for (uint32_t b : {2u, 4u, 128u}) {
    bool saw_2d = false;
    const uint64_t max_n = uint64_t{b} * 7 * 5;
    for (uint64_t n = 0; n <= max_n; n += (b <= 4 ? 1 : 1 + rng() % 61)) {
      for (bool inclusive : {false, true}) {
        const ScanRequest req = request(n, b, inclusive, limits, inclusive ? 8 : 4);
        SCOPED_TRACE(case_name(req, planner()));
        const Plan plan = make_plan(planner(), req);
        check_structure(plan, req, planner());
        if (HasFailure() || !simulate(req, rng, planner())) return;
        for (const Step& s : plan.steps)
          if (const auto* d = std::get_if<Dispatch>(&s)) saw_2d |= d->groups_y > 1;
      }
    }
    // The largest n, simulated too (the loop's stride may skip it).
    const ScanRequest full = request(max_n, b, false, limits);
    check_structure(make_plan(planner(), full), full, planner());
    if (!simulate(full, rng, planner())) return;
    EXPECT_TRUE(saw_2d) << planner_name(planner()) << " B=" << b << ": the limits never produced a 2-D grid";
    for (uint64_t n : {max_n + 1, max_n + b, 10 * max_n})
      expect_throws(Errc::too_large, planner(), request(n, b, false, limits));
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


TEST_P(ScanPlanner, InvalidBlockSizesThrow) {
  for (uint32_t b : {0u, 1u, 3u, 6u, 100u, 0xFFFFFFFFu})
    for (uint64_t n : {uint64_t{0}, uint64_t{1000}}) expect_throws(Errc::invalid_argument, planner(), request(n, b));
}

TEST_P(ScanPlanner, ZeroElementSizeThrows) {
  for (uint64_t n : {uint64_t{0}, uint64_t{1000}})
    expect_throws(Errc::invalid_argument, planner(), request(n, 512, false, {}, 0));
}

// Sizes beyond what any grid can hold must be refused cleanly -- including n near 2^64, where a naive
// ceil(n / B) wraps around.
TEST_P(ScanPlanner, HugeSizesThrowTooLarge) {
  const uint64_t max = std::numeric_limits<uint64_t>::max();
  for (uint32_t b : kTileBlockSizes) {
    const uint64_t fits = uint64_t{b} * 65535 * 65535;
    for (uint64_t n : {fits + 1, uint64_t{1} << 63, max - b + 1, max - 1, max})
      expect_throws(Errc::too_large, planner(), request(n, b));
  }
}

// Limits no device has (2^32-1 workgroups each way) let n reach 2^64: the planners must then either
// refuse or produce a plan whose temp layout has not wrapped around. One failure is reported: the first
// wrapped plan tells the story.
TEST_P(ScanPlanner, ExtremeLimitsNeverWrapTemp) {
  const PlanLimits limits{.max_groups_x = 0xFFFFFFFFu, .max_groups_y = 0xFFFFFFFFu};
  const uint64_t max = std::numeric_limits<uint64_t>::max();
  for (uint32_t b : {2u, 4u, 512u})
    for (uint64_t n : {uint64_t{1} << 40, uint64_t{1} << 60, uint64_t{1} << 62, uint64_t{1} << 63, max - 1, max})
      for (uint32_t esize : {1u, 4u, 8u}) {
        const ScanRequest req = request(n, b, false, limits, esize);
        SCOPED_TRACE(case_name(req, planner()));
        try {
          const Plan plan = make_plan(planner(), req);
          check_structure(plan, req, planner());
        } catch (const Error& e) {
          EXPECT_EQ(e.code(), Errc::too_large) << e.what();
        }
        if (HasFailure()) return;
      }
}

// Light check: one line per step after the header, naming what it does.
void expect_describe_lists_every_step(const Plan& plan) {
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
    if (const auto* f = std::get_if<Fill>(&plan.steps[i])) {
      EXPECT_NE(line.find("fill zero"), std::string::npos) << line;
      EXPECT_NE(line.find(to_string(f->range)), std::string::npos) << line;
      continue;
    }
    const Dispatch& d = std::get<Dispatch>(plan.steps[i]);
    EXPECT_NE(line.find(gpuscan::core::kernel_name(d.kernel)), std::string::npos) << line;
    EXPECT_NE(line.find("L" + std::to_string(d.level)), std::string::npos) << line;
    EXPECT_NE(line.find("n=" + std::to_string(d.n)), std::string::npos) << line;
    if (d.read_offsets) {
      EXPECT_NE(line.find("offsets " + to_string(d.aux)), std::string::npos) << line;
    }
    if (d.kernel == Kernel::reduce_tiles) {
      EXPECT_NE(line.find("sums " + to_string(d.aux)), std::string::npos) << line;
    }
    if (d.kernel == Kernel::single_pass) {
      EXPECT_NE(line.find("state " + to_string(d.aux)), std::string::npos) << line;
      EXPECT_NE(line.find(d.inclusive ? "inclusive" : "exclusive"), std::string::npos) << line;
    }
  }
}

TEST_P(ScanPlanner, DescribeListsEveryStep) {
  for (uint64_t n : {uint64_t{0}, uint64_t{3}, uint64_t{9}, uint64_t{100}}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    expect_describe_lists_every_step(make_plan(planner(), request(n, 2, true)));
  }
}

TEST(Plan, KernelNames) {
  EXPECT_STREQ(gpuscan::core::kernel_name(Kernel::scan_local), "scan_local");
  EXPECT_STREQ(gpuscan::core::kernel_name(Kernel::uniform_add), "uniform_add");
  EXPECT_STREQ(gpuscan::core::kernel_name(Kernel::reduce_tiles), "reduce_tiles");
  EXPECT_STREQ(gpuscan::core::kernel_name(Kernel::scan_tiles), "scan_tiles");
  EXPECT_STREQ(gpuscan::core::kernel_name(Kernel::single_pass), "single_pass");
}

// ---------------------------------------------------------------------------------------------------
// Reduce-then-scan

// B + 1 elements with B = 4, written out step by step.
TEST(ReduceThenScan, TwoLevelsByHand) {
  const Plan plan = gpuscan::core::plan_reduce_then_scan(request(5, 4, true));
  SCOPED_TRACE(gpuscan::core::describe(plan));
  ASSERT_EQ(plan.steps.size(), 5u);
  const auto& reduce = std::get<Dispatch>(plan.steps[0]);
  EXPECT_EQ(reduce.kernel, Kernel::reduce_tiles);
  EXPECT_EQ(reduce.src, (Range{Slot::input, 0, 5}));
  EXPECT_EQ(reduce.aux, (Range{Slot::temp, 0, 2}));
  EXPECT_TRUE(std::holds_alternative<Barrier>(plan.steps[1]));
  const auto& totals = std::get<Dispatch>(plan.steps[2]);
  EXPECT_EQ(totals.kernel, Kernel::scan_tiles);
  EXPECT_EQ(totals.level, 1u);
  EXPECT_EQ(totals.src, (Range{Slot::temp, 0, 2}));
  EXPECT_EQ(totals.dst, (Range{Slot::temp, 0, 2}));
  EXPECT_FALSE(totals.inclusive);
  EXPECT_FALSE(totals.read_offsets);
  EXPECT_TRUE(std::holds_alternative<Barrier>(plan.steps[3]));
  const auto& scan = std::get<Dispatch>(plan.steps[4]);
  EXPECT_EQ(scan.kernel, Kernel::scan_tiles);
  EXPECT_EQ(scan.level, 0u);
  EXPECT_TRUE(scan.inclusive);
  EXPECT_TRUE(scan.read_offsets);
  EXPECT_EQ(scan.aux, (Range{Slot::temp, 0, 2}));
  EXPECT_EQ(plan.temp_elements, temp_level_alignment) << "the level padded to the alignment";
  EXPECT_EQ(plan.levels, 2u);
}

// ---------------------------------------------------------------------------------------------------
// Single-pass

// With temp_zeroed the state is already zero (a previous single-pass scan left it so): the plan is
// the dispatch alone, over the same state range.
TEST(SinglePass, TempZeroedPlansNoFill) {
  for (uint64_t n : {1ull, 4095ull, 4096ull, 4097ull, 1000003ull}) {
    ScanRequest req;
    req.n = n;
    req.block_size = 4096;
    const Plan with_fill = gpuscan::core::plan_single_pass(req);
    req.temp_zeroed = true;
    const Plan zeroed = gpuscan::core::plan_single_pass(req);
    ASSERT_EQ(zeroed.steps.size(), 1u) << "n = " << n;
    const auto* d = std::get_if<Dispatch>(&zeroed.steps[0]);
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->kernel, Kernel::single_pass);
    ASSERT_EQ(with_fill.steps.size(), 3u);
    EXPECT_EQ(d->aux, std::get<Dispatch>(with_fill.steps[2]).aux);
    EXPECT_EQ(zeroed.temp_elements, with_fill.temp_elements);
  }
}

TEST(SinglePass, StateBytes) {
  for (uint64_t tiles : {uint64_t{0}, uint64_t{1}, uint64_t{2}, uint64_t{1000}, uint64_t{65535} * 65535})
    EXPECT_EQ(gpuscan::core::single_pass_state_bytes(tiles), 8 + 8 * tiles);
  // 64-bit elements: two words per tile, each a flag with one 32-bit half of the value.
  for (uint64_t tiles : {uint64_t{0}, uint64_t{1}, uint64_t{1000}})
    EXPECT_EQ(gpuscan::core::single_pass_state_bytes(tiles, 8), 8 + 16 * tiles);
  EXPECT_EQ(gpuscan::core::single_pass_words_per_tile(4), 1u);
  EXPECT_EQ(gpuscan::core::single_pass_words_per_tile(8), 2u);
}

// The state in elements, by hand: 8 + 16 * words * tiles bytes (words = ceil(esize / 4); tile states and
// block-prefix slots) rounded up to whole elements.
TEST(SinglePass, StateElementsByHand) {
  struct Case { uint64_t n; uint32_t b; uint32_t esize; uint64_t elements; };
  const Case cases[] = {
      {1, 512, 4, 6},    {1, 512, 8, 5},      {512, 512, 4, 6},    {513, 512, 4, 10}, {513, 512, 8, 9},
      {5, 2, 4, 14},     {5, 2, 8, 13},       {5, 2, 1, 56},       {5, 2, 16, 13},    {5, 2, 32, 13},
      {1, 2, 16, 5},     {3, 2, 16, 9},       {5000, 4096, 4, 10}, {5000, 4096, 8, 9},
  };
  for (const Case& c : cases) {
    const ScanRequest req = request(c.n, c.b, false, {}, c.esize);
    SCOPED_TRACE(case_name(req, Planner::single_pass));
    const Plan plan = gpuscan::core::plan_single_pass(req);
    EXPECT_EQ(plan.temp_elements, c.elements);
    check_structure(plan, req, Planner::single_pass);
  }
}

// Element sizes that do not divide 8 or exceed it round the state up too.
TEST(SinglePass, StructureOfOddElementSizes) {
  for (uint32_t esize : {1u, 2u, 3u, 12u, 16u, 64u})
    for (uint64_t n : {uint64_t{1}, uint64_t{7}, uint64_t{1000}, uint64_t{123457}}) {
      const ScanRequest req = request(n, 4, true, {}, esize);
      SCOPED_TRACE(case_name(req, Planner::single_pass));
      check_structure(gpuscan::core::plan_single_pass(req), req, Planner::single_pass);
    }
}

TEST(SinglePass, SmallElementSizesSimulate) {
  std::mt19937_64 rng = rng_for(4500);
  for (uint32_t esize : {1u, 2u, 4u, 8u})
    for (uint64_t n : {uint64_t{1}, uint64_t{3}, uint64_t{4}, uint64_t{5}, uint64_t{17}, uint64_t{1000}})
      for (bool inclusive : {false, true}) {
        const ScanRequest req = request(n, 4, inclusive, {}, esize);
        SCOPED_TRACE(case_name(req, Planner::single_pass));
        if (!simulate(req, rng, Planner::single_pass)) return;
      }
}

// ---------------------------------------------------------------------------------------------------
// The checkers themselves: broken plans must be caught, or the tests above prove nothing.

// Runs `f` with gtest's failures intercepted and expects at least one whose message contains `what`.
template <class F>
void expect_failure_containing(F&& f, const std::string& what) {
  ::testing::TestPartResultArray results;
  {
    ::testing::ScopedFakeTestPartResultReporter reporter(
        ::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD, &results);
    f();
  }
  std::string all;
  for (int i = 0; i < results.size(); ++i) {
    const std::string message = results.GetTestPartResult(i).message();
    if (message.find(what) != std::string::npos) return;
    all += "\n---\n" + message;
  }
  ADD_FAILURE() << "expected a failure containing \"" << what << "\", got " << results.size() << ":" << all;
}

Plan without_step(Plan plan, size_t i) {
  plan.steps.erase(plan.steps.begin() + static_cast<std::ptrdiff_t>(i));
  return plan;
}

TEST(PlanCheckers, MissingBarrierAfterFillIsARace) {
  const ScanRequest req = request(100, 4);
  const Plan broken = without_step(gpuscan::core::plan_single_pass(req), 1);
  expect_failure_containing([&] { expect_barriers_separate_conflicts(broken); }, "no barrier between step 0 and step 1");
  expect_failure_containing([&] { expect_fill_rules(broken); }, "not followed by a barrier");
}

TEST(PlanCheckers, MissingBarrierInReduceThenScanIsARace) {
  const ScanRequest req = request(100, 4);
  const Plan plan = gpuscan::core::plan_reduce_then_scan(req);
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    if (!std::holds_alternative<Barrier>(plan.steps[i])) continue;
    SCOPED_TRACE("without step " + std::to_string(i));
    expect_failure_containing([&] { expect_barriers_separate_conflicts(without_step(plan, i)); }, "no barrier between");
  }
}

TEST(PlanCheckers, MissingFillReadsUnwrittenState) {
  const ScanRequest req = request(100, 4);
  std::mt19937_64 rng = rng_for(5000);
  const std::vector<uint64_t> input = random_input(req.n, rng);
  const Plan broken = without_step(gpuscan::core::plan_single_pass(req), 0);
  expect_failure_containing([&] { run_plan(broken, req, input); }, "read of unwritten byte 0");
}

TEST(PlanCheckers, ShortStateIsCaught) {
  std::mt19937_64 rng = rng_for(5001);
  for (uint32_t esize : {4u, 8u}) {
    const ScanRequest req = request(100, 4, false, {}, esize);
    const std::vector<uint64_t> input = random_input(req.n, rng);
    Plan broken = gpuscan::core::plan_single_pass(req);
    std::get<Fill>(broken.steps[0]).range.count -= 1;
    std::get<Dispatch>(broken.steps[2]).aux.count -= 1;
    expect_failure_containing([&] { run_plan(broken, req, input); }, "outside");
    expect_failure_containing([&] { check_structure(broken, req, Planner::single_pass); }, "the look-back state");
  }
}

TEST(PlanCheckers, UnreadOffsetsGiveWrongOutput) {
  const ScanRequest req = request(100, 4, true);
  std::mt19937_64 rng = rng_for(5002);
  const std::vector<uint64_t> input = random_input(req.n, rng);
  Plan broken = gpuscan::core::plan_reduce_then_scan(req);
  std::get<Dispatch>(broken.steps.back()).read_offsets = false;
  expect_failure_containing([&] { run_plan(broken, req, input); }, "first wrong element 4");
  expect_failure_containing([&] { check_structure(broken, req, Planner::reduce_then_scan); }, "scan_tiles must start");
}

TEST(PlanCheckers, AliasedLevelsAreCaught) {
  // Level 2's totals moved onto level 1's: the structure check and the simulation both object.
  const ScanRequest req = request(100, 4);
  std::mt19937_64 rng = rng_for(5003);
  const std::vector<uint64_t> input = random_input(req.n, rng);
  Plan broken = gpuscan::core::plan_reduce_then_scan(req);
  const Range level1 = std::get<Dispatch>(broken.steps[0]).aux;
  const Range level2 = std::get<Dispatch>(broken.steps[2]).aux;
  for (Step& s : broken.steps)
    if (auto* d = std::get_if<Dispatch>(&s))
      for (Range* r : {&d->src, &d->dst, &d->aux})
        if (*r == level2) *r = Range{Slot::temp, level1.offset, level2.count};
  expect_failure_containing([&] { check_structure(broken, req, Planner::reduce_then_scan); }, "levels 1 and 2");
  expect_failure_containing([&] { run_plan(broken, req, input); }, "first wrong element");
}

TEST(PlanDescribe, NamesTheTileKernelsAndTheFill) {
  const std::string rts = gpuscan::core::describe(gpuscan::core::plan_reduce_then_scan(request(100, 4, true)));
  EXPECT_NE(rts.find("reduce_tiles"), std::string::npos) << rts;
  EXPECT_NE(rts.find("scan_tiles"), std::string::npos) << rts;
  EXPECT_NE(rts.find("offsets temp["), std::string::npos) << rts;
  EXPECT_NE(rts.find("barrier"), std::string::npos) << rts;
  const std::string sp = gpuscan::core::describe(gpuscan::core::plan_single_pass(request(100, 4, true, {}, 8)));
  // 25 tiles of 8-byte elements: 8 + 2 * 8 * 25 * 2 (tile states, block-prefix slots) = 808 bytes, 101
  // elements of 8 bytes.
  EXPECT_NE(sp.find("fill zero temp[0, 101)"), std::string::npos) << sp;
  EXPECT_NE(sp.find("single_pass"), std::string::npos) << sp;
  EXPECT_NE(sp.find("state temp[0, 101)"), std::string::npos) << sp;
  EXPECT_NE(sp.find("barrier"), std::string::npos) << sp;
  EXPECT_NE(sp.find("1 level(s), 1 dispatch(es), 101 temp element(s)"), std::string::npos) << sp;
}

}  // namespace

// ---------------------------------------------------------------------------------------------------
// Windows: scans longer than one binding (core/windows.hpp)

namespace {

// The windowed plan of `req` (whole n) with windows of `window` elements, each planned by `planner`;
// later windows rely on the single-pass state the previous window left zeroed, as the backends plan them.
// `windows_planned`, if given, counts the windows planned.
Plan windowed(Planner planner, const ScanRequest& req, uint64_t window,
              gpuscan::core::PlanExtent extent = gpuscan::core::PlanExtent::full, int* windows_planned = nullptr) {
  return gpuscan::core::plan_windowed_scan(
      req.n, window, req.inclusive,
      [&](uint64_t n, bool first) {
        if (windows_planned) ++*windows_planned;
        ScanRequest sub = req;
        sub.n = n;
        sub.temp_zeroed = !first;
        return make_plan(planner, sub);
      },
      extent);
}

// describe(plan)'s step lines: neither the header (it counts the listed dispatches) nor an outline's last line.
std::vector<std::string> step_lines(const Plan& plan) {
  std::istringstream text(gpuscan::core::describe(plan));
  std::vector<std::string> lines;
  std::string line;
  std::getline(text, line);
  while (std::getline(text, line))
    if (!line.starts_with("  ... ")) lines.push_back(line);
  return lines;
}

// Each planner's windows (WindowedScanPlanner.<test>/<planner>).
class WindowedScanPlanner : public ScanPlanner {};

INSTANTIATE_TEST_SUITE_P(, WindowedScanPlanner, ::testing::Values(kMultipass, kReduceThenScan, kSinglePass),
                         planner_case_name);

}  // namespace

// Windows chain into one scan, carry-in included, with windows that are not multiples of the tile
// (boundaries inside tiles) and a last window of any length.
TEST_P(WindowedScanPlanner, ChainIntoOneScan) {
  std::mt19937_64 rng = rng_for(4242 + 10 * static_cast<uint64_t>(planner()));
  for (bool inclusive : {false, true})
    for (uint64_t window : {16u, 48u, 112u})
      for (uint64_t n : {window + 1, 2 * window, 2 * window + 1, 5 * window + 7, 17 * window - 1}) {
        const ScanRequest req = request(n, 8, inclusive);
        SCOPED_TRACE(case_name(req, planner()) + " window=" + std::to_string(window));
        const Plan plan = windowed(planner(), req, window);
        int from_temp = 0;
        for (const Step& st : plan.steps)
          if (const auto* d = std::get_if<Dispatch>(&st)) from_temp += d->carry_from_temp;
        EXPECT_EQ(static_cast<uint64_t>(from_temp), ceil_div(n, window) - 1);
        if (!run_plan(plan, req, random_input(n, rng), rng())) return;
      }
}

// The binding-size arithmetic: whole 16-element multiples that fit behind any alignment slack, capped
// at 2^31 elements.
TEST(Windows, ElementsPerWindow) {
  using gpuscan::core::window_elements;
  EXPECT_EQ(window_elements(128u << 20, 16, 4), (((128u << 20) - 15) / 4) / 16 * 16);
  EXPECT_EQ(window_elements(20000, 16, 8), 2496u);
  EXPECT_EQ(window_elements(uint64_t{4} << 30, 64, 4), (((uint64_t{4} << 30) - 63) / 4) / 16 * 16);
  EXPECT_EQ(window_elements(uint64_t{1} << 40, 4, 4), uint64_t{1} << 31);
  EXPECT_THROW(window_elements(60, 16, 4), Error);
}

// 2^33 + 5 elements in windows of just under 2^30 (an H200's 4 GiB binding, u32): every dispatch stays
// within 32-bit element counts and inside the caller's ranges.
TEST(Windows, BeyondTwoToTheThirtyTwo) {
  const uint64_t n = (uint64_t{1} << 33) + 5;
  const uint64_t window = gpuscan::core::window_elements((uint64_t{4} << 30) - 1, 64, 4);
  for (Planner planner : {Planner::reduce_then_scan, Planner::single_pass}) {
    ScanRequest req = request(n, 4096);
    req.limits = {65535, 65535};
    const Plan plan = windowed(planner, req, window);
    uint64_t covered = 0;
    for (const Step& st : plan.steps) {
      const auto* d = std::get_if<Dispatch>(&st);
      if (!d) continue;
      EXPECT_LT(d->n, uint64_t{1} << 32);
      for (const Range& r : {d->src, d->dst})
        if (r.slot != Slot::temp) EXPECT_LE(r.offset + r.count, n);
      if (d->root) covered += d->kernel == Kernel::single_pass ? d->n : 0;
      if (d->kernel == Kernel::scan_tiles && d->level == 0) covered += d->n;
    }
    EXPECT_EQ(covered, n) << planner_name(planner);
  }
}

// An outline (PlanExtent::outline) is the plan's first two windows -- window 0, the chaining, window 1 with
// the carry from temp -- with the whole plan's temp and levels, and says how many windows it leaves out.
TEST_P(WindowedScanPlanner, OutlinesAreTheFirstTwoWindowsOfThePlan) {
  using gpuscan::core::PlanExtent;
  const Planner planner = GetParam().planner;
  for (bool inclusive : {false, true})
    for (uint64_t window : {16u, 48u})
      for (uint64_t n : {window - 1, window, window + 1, 2 * window, 2 * window + 1, 5 * window + 7}) {
        const ScanRequest req = request(n, 8, inclusive);
        SCOPED_TRACE(case_name(req, planner) + " window=" + std::to_string(window));
        const Plan full = windowed(planner, req, window);
        const Plan outline = windowed(planner, req, window, PlanExtent::outline);
        const uint64_t windows = ceil_div(n, window);
        EXPECT_EQ(full.windows_left_out, 0u);
        EXPECT_EQ(outline.windows_left_out, windows - std::min<uint64_t>(windows, 2));
        EXPECT_EQ(outline.temp_elements, full.temp_elements);
        EXPECT_EQ(outline.levels, full.levels);
        const std::vector<std::string> listed = step_lines(outline), all = step_lines(full);
        ASSERT_LE(listed.size(), all.size());
        EXPECT_TRUE(std::equal(listed.begin(), listed.end(), all.begin())) << gpuscan::core::describe(outline);
        if (windows <= 2) EXPECT_EQ(listed, all);
        const std::string text = gpuscan::core::describe(outline);
        EXPECT_EQ(text.find(" more window(s)") != std::string::npos, windows > 2) << text;
        if (windows > 2) EXPECT_THROW(gpuscan::core::check_recordable(outline.windows_left_out), Error);
        else EXPECT_NO_THROW(gpuscan::core::check_recordable(outline.windows_left_out));
      }
}

// Outlines of 2^40 and 2^50 elements -- in lavapipe's windows of 2^25 - 16 u32 and in windows of 4992
// (up to 2^47.7 of them) -- plan three windows at most (the first window once for the shared scratch,
// then windows 0 and 1), never all of them: sizing temp costs the same at any count.
TEST_P(WindowedScanPlanner, OutlinesOfHugeCountsPlanAFewWindows) {
  using gpuscan::core::PlanExtent;
  const Planner planner = GetParam().planner;
  for (const uint64_t window : {gpuscan::core::window_elements(128u << 20, 16, 4), uint64_t{4992}})
    for (const uint64_t n : {uint64_t{1} << 40, uint64_t{1} << 50}) {
      const ScanRequest req = request(n, 4096);
      SCOPED_TRACE(case_name(req, planner) + " window=" + std::to_string(window));
      int planned = 0;
      const Plan outline = windowed(planner, req, window, PlanExtent::outline, &planned);
      EXPECT_LE(planned, 3);
      EXPECT_EQ(outline.windows_left_out, ceil_div(n, window) - 2);
      EXPECT_LT(outline.steps.size(), 40u);
      const uint64_t first = make_plan(planner, request(window, 4096)).temp_elements;
      EXPECT_EQ(outline.temp_elements, ceil_div(first, 16) * 16 + 2);
    }
}

// The counts the prepare_* calls plan: every power of two and the count after it, the largest count, and
// the same again past one and two whole windows (a windowed plan's last window takes any remainder).
TEST(Windows, BoundaryCounts) {
  using gpuscan::core::boundary_counts;
  EXPECT_EQ(boundary_counts(20, 0), (std::vector<uint64_t>{1, 2, 3, 4, 5, 8, 9, 16, 17, 20}));
  EXPECT_EQ(boundary_counts(1, 0), (std::vector<uint64_t>{1}));
  EXPECT_TRUE(boundary_counts(0, 0).empty());
  EXPECT_EQ(boundary_counts(40, 16), (std::vector<uint64_t>{1, 2, 3, 4, 5, 8, 9, 16, 17, 18, 19, 20, 21, 24, 25, 32,
                                                            33, 34, 35, 36, 37, 40}));
  EXPECT_EQ(boundary_counts(16, 16), boundary_counts(16, 0));  // one window: nothing past it
  const std::vector<uint64_t> large = boundary_counts(uint64_t{1} << 40, uint64_t{1} << 31);
  EXPECT_EQ(large.front(), 1u);
  EXPECT_EQ(large.back(), uint64_t{1} << 40);
  EXPECT_TRUE(std::is_sorted(large.begin(), large.end()));
  EXPECT_LT(large.size(), 250u);
}

// The look-ahead scan: one row of G = min(tiles, grid, max_groups_x) workgroups over every tile, the state
// of a tile total per tile (no block-prefix slots), filled first unless known zero.
// The default G: 4 per shader core where the device reports them (an H200's 132 SMs: 528, the grid
// measured there), a small guess where it does not.
TEST(LookAhead, DefaultGridFollowsShaderCores) {
  EXPECT_EQ(gpuscan::core::look_ahead_default_grid(132), 528u);
  EXPECT_EQ(gpuscan::core::look_ahead_default_grid(1), gpuscan::core::look_ahead_grid_per_core);
  EXPECT_EQ(gpuscan::core::look_ahead_default_grid(0), gpuscan::core::look_ahead_unknown_device_grid);
}

TEST(LookAhead, GridAndState) {
  struct Case {
    uint64_t n;
    uint32_t b, grid, max_x, esize;
    uint64_t want_grid;
  };
  const Case cases[] = {{1, 128, 4, 65535, 4, 1},          {128, 128, 4, 65535, 4, 1},
                        {129, 128, 4, 65535, 4, 2},        {4 * 128 + 1, 128, 4, 65535, 4, 4},
                        {1'000'000, 128, 0, 65535, 8, gpuscan::core::look_ahead_unknown_device_grid},
                        {1'000'000, 128, 5000, 300, 4, 300}};
  for (const Case& c : cases) {
    PlanLimits limits;
    limits.max_groups_x = c.max_x;
    limits.look_ahead_grid = c.grid;
    const ScanRequest req = request(c.n, c.b, true, limits, c.esize);
    SCOPED_TRACE("n = " + std::to_string(c.n) + ", grid " + std::to_string(c.grid));
    const Plan plan = gpuscan::core::plan_look_ahead(req);
    ASSERT_EQ(plan.steps.size(), 3u);
    EXPECT_TRUE(std::holds_alternative<Fill>(plan.steps[0]));
    const auto& d = std::get<Dispatch>(plan.steps[2]);
    EXPECT_EQ(d.kernel, Kernel::look_ahead);
    EXPECT_EQ(d.blocks, ceil_div(c.n, c.b));
    EXPECT_EQ(d.groups_x, c.want_grid);
    EXPECT_EQ(d.groups_y, 1u);
    EXPECT_TRUE(d.inclusive);
    EXPECT_TRUE(d.root);
    EXPECT_EQ(d.aux.slot, Slot::temp);
    EXPECT_EQ(d.aux.offset, 0u);
    EXPECT_EQ(d.aux.count, ceil_div(gpuscan::core::single_pass_state_bytes(d.blocks, c.esize), c.esize));
    ScanRequest zeroed = req;
    zeroed.temp_zeroed = true;
    EXPECT_EQ(gpuscan::core::plan_look_ahead(zeroed).steps.size(), 1u);
  }
  EXPECT_TRUE(gpuscan::core::plan_look_ahead(request(0, 128)).steps.empty());
}
