#include "core/plan.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <sstream>

#include "gpuscan/error.hpp"

namespace gpuscan::core {
namespace {

// Not (a + b - 1) / b: that wraps for a > 2^64 - b, giving 0 blocks and endless recursion.
uint64_t ceil_div(uint64_t a, uint64_t b) { return a / b + (a % b != 0); }
uint64_t align_up(uint64_t a, uint64_t b) { return ceil_div(a, b) * b; }

// The first free temp element after a level of `blocks` sums at `temp_top`. Only grid limits no device
// has (about 2^64 workgroups) get near 2^64 elements, but then the layout must not wrap around.
uint64_t level_top(uint64_t temp_top, uint64_t blocks) {
  if (temp_top > UINT64_MAX - temp_level_alignment || blocks > UINT64_MAX - temp_level_alignment - temp_top)
    throw Error(Errc::too_large, "the scan's scratch would exceed 2^64 elements");
  return align_up(temp_top + blocks, temp_level_alignment);
}

// Appends the passes that scan `array` (n elements) into `out`, using temp from `temp_top` upwards for
// block sums. Returns the first free temp element after what this level and those below it used.
uint64_t append_level(Plan& plan, const ScanRequest& req, uint32_t level, uint64_t n, Range array,
                      Range out, bool inclusive, uint64_t temp_top) {
  const uint64_t blocks = ceil_div(n, req.block_size);
  Dispatch scan;
  scan.kernel = Kernel::scan_local;
  scan.level = level;
  scan.n = n;
  scan.blocks = blocks;
  grid_for(blocks, req.limits, scan.groups_x, scan.groups_y);
  scan.src = array;
  scan.dst = out;
  scan.inclusive = inclusive;
  if (blocks == 1) {
    scan.aux = out;  // unused: no block sums for a single tile
    scan.root = true;
    plan.steps.emplace_back(scan);
    return temp_top;
  }

  const Range sums{Slot::temp, temp_top, blocks};
  const uint64_t next_top = level_top(temp_top, blocks);
  scan.aux = sums;
  scan.write_block_sums = true;
  plan.steps.emplace_back(scan);
  plan.steps.emplace_back(Barrier{});
  // Block offsets are the exclusive scan of block totals, whatever the caller asked for.
  const uint64_t top = append_level(plan, req, level + 1, blocks, sums, sums, false, next_top);
  plan.steps.emplace_back(Barrier{});

  Dispatch add = scan;
  add.kernel = Kernel::uniform_add;
  add.src = out;
  add.write_block_sums = false;
  add.inclusive = false;
  plan.steps.emplace_back(add);
  return top;
}

// Reduce-then-scan: like append_level, with reduce_tiles / scan_tiles and the offsets applied while
// the data is scanned the second time.
uint64_t append_rts_level(Plan& plan, const ScanRequest& req, uint32_t level, uint64_t n, Range array,
                          Range out, bool inclusive, uint64_t temp_top) {
  Dispatch scan;
  scan.kernel = Kernel::scan_tiles;
  scan.level = level;
  scan.n = n;
  scan.blocks = ceil_div(n, req.block_size);
  grid_for(scan.blocks, req.limits, scan.groups_x, scan.groups_y);
  scan.src = array;
  scan.dst = out;
  scan.aux = out;  // unused unless offsets are read
  scan.inclusive = inclusive;
  if (scan.blocks == 1) {
    scan.root = true;
    plan.steps.emplace_back(scan);
    return temp_top;
  }
  const Range sums{Slot::temp, temp_top, scan.blocks};
  Dispatch reduce = scan;
  reduce.kernel = Kernel::reduce_tiles;
  reduce.dst = array;  // not written: reduce only reads
  reduce.aux = sums;
  reduce.inclusive = false;
  plan.steps.emplace_back(reduce);
  plan.steps.emplace_back(Barrier{});
  const uint64_t top = append_rts_level(plan, req, level + 1, scan.blocks, sums, sums, false,
                                        level_top(temp_top, scan.blocks));
  plan.steps.emplace_back(Barrier{});
  scan.aux = sums;
  scan.read_offsets = true;
  plan.steps.emplace_back(scan);
  return top;
}

void check_request(const ScanRequest& req) {
  if (req.block_size < 2 || !std::has_single_bit(req.block_size))
    throw Error(Errc::invalid_argument,
                "tile size " + std::to_string(req.block_size) + " is not a power of two >= 2");
  if (req.element_size == 0) throw Error(Errc::invalid_argument, "element size must be positive");
}

void count_levels(Plan& plan) {
  for (const Step& s : plan.steps)
    if (const auto* d = std::get_if<Dispatch>(&s)) plan.levels = std::max(plan.levels, d->level + 1);
}

}  // namespace

uint64_t listed_windows(uint64_t windows, PlanExtent extent) {
  return extent == PlanExtent::outline ? std::min<uint64_t>(windows, 2) : windows;
}

void check_recordable(uint64_t windows_left_out) {
  if (windows_left_out > 0) throw Error(Errc::invalid_argument, "internal: the outline of a plan cannot be recorded");
}

size_t Plan::dispatch_count() const {
  size_t count = 0;
  for (const Step& s : steps) count += std::holds_alternative<Dispatch>(s);
  return count;
}

void grid_for(uint64_t blocks, const PlanLimits& limits, uint32_t& groups_x, uint32_t& groups_y) {
  if (limits.max_groups_x == 0 || limits.max_groups_y == 0)
    throw Error(Errc::invalid_argument, "workgroup count limits must be positive");
  if (blocks <= limits.max_groups_x) {
    groups_x = static_cast<uint32_t>(blocks);
    groups_y = blocks == 0 ? 0 : 1;
    return;
  }
  const uint64_t rows = ceil_div(blocks, limits.max_groups_x);
  if (rows > limits.max_groups_y) {
    std::ostringstream msg;
    msg << blocks << " workgroups exceed the device's grid of " << limits.max_groups_x << " x "
        << limits.max_groups_y;
    throw Error(Errc::too_large, msg.str());
  }
  // Spread the blocks over the rows evenly so the last row is not nearly empty.
  groups_x = static_cast<uint32_t>(ceil_div(blocks, rows));
  groups_y = static_cast<uint32_t>(rows);
}

namespace {

using LevelPlanner = uint64_t (*)(Plan&, const ScanRequest&, uint32_t, uint64_t, Range, Range, bool, uint64_t);

// The recursive plans: level 0 scans input into output, deeper levels work in temp.
Plan plan_levels(const ScanRequest& req, LevelPlanner level) {
  check_request(req);
  Plan plan;
  if (req.n == 0) return plan;
  const Range in{Slot::input, 0, req.n};
  const Range out{Slot::output, 0, req.n};
  plan.temp_elements = level(plan, req, 0, req.n, in, out, req.inclusive, 0);
  count_levels(plan);
  return plan;
}

}  // namespace

Plan plan_multipass_scan(const ScanRequest& req) { return plan_levels(req, append_level); }

Plan plan_reduce_then_scan(const ScanRequest& req) { return plan_levels(req, append_rts_level); }

uint32_t single_pass_words_per_tile(uint32_t element_size) { return std::max<uint32_t>(1, (element_size + 3) / 4); }

uint64_t single_pass_state_bytes(uint64_t tiles, uint32_t element_size) {
  return 8 + 8 * tiles * single_pass_words_per_tile(element_size);
}

uint64_t single_pass_scan_state_bytes(uint64_t tiles, uint32_t element_size) {
  return single_pass_state_bytes(2 * tiles, element_size);
}

namespace {

// One look-back dispatch over ceil(n / block) tiles (single_pass or compact_single_pass), its state at
// temp element 0, after a Fill of that state unless it is known to be zero.
Plan plan_look_back(Kernel kernel, uint64_t n, uint64_t block, uint32_t element_size, bool inclusive,
                    bool temp_zeroed, const PlanLimits& limits) {
  Plan plan;
  Dispatch d;
  d.kernel = kernel;
  d.n = n;
  d.blocks = ceil_div(n, block);
  grid_for(d.blocks, limits, d.groups_x, d.groups_y);
  if (d.blocks > (UINT64_MAX - 8) / 16 / single_pass_words_per_tile(element_size))  // only with grid limits no device has
    throw Error(Errc::too_large, "the single-pass look-back state would exceed 2^64 bytes");
  d.src = {Slot::input, 0, n};
  d.dst = {Slot::output, 0, n};
  // The look-ahead scan: G workgroups, each striding over the tiles (plan_look_ahead).
  if (kernel == Kernel::look_ahead) grid_for(look_ahead_grid(d.blocks, limits), limits, d.groups_x, d.groups_y);
  const uint64_t state_bytes = kernel == Kernel::single_pass ? single_pass_scan_state_bytes(d.blocks, element_size)
                                                             : single_pass_state_bytes(d.blocks, element_size);
  d.aux = {Slot::temp, 0, ceil_div(state_bytes, element_size)};
  d.inclusive = inclusive;
  d.root = kernel != Kernel::compact_single_pass;  // the scan's carry-in goes here; a compaction has none
  if (!temp_zeroed) {
    plan.steps.emplace_back(Fill{d.aux});
    plan.steps.emplace_back(Barrier{});
  }
  plan.steps.emplace_back(d);
  plan.temp_elements = d.aux.count;
  plan.levels = 1;
  return plan;
}

}  // namespace

Plan plan_single_pass(const ScanRequest& req) {
  check_request(req);
  if (req.n == 0) return {};
  return plan_look_back(Kernel::single_pass, req.n, req.block_size, req.element_size, req.inclusive, req.temp_zeroed,
                        req.limits);
}

uint64_t look_ahead_grid(uint64_t tiles, const PlanLimits& limits) {
  // One row of workgroups: the kernel takes G from gl_NumWorkGroups.x.
  const uint32_t grid = limits.look_ahead_grid ? limits.look_ahead_grid : look_ahead_default_grid(0);
  return std::min<uint64_t>(tiles, std::min(grid, limits.max_groups_x));
}

Plan plan_look_ahead(const ScanRequest& req) {
  check_request(req);
  if (req.n == 0) return {};
  return plan_look_back(Kernel::look_ahead, req.n, req.block_size, req.element_size, req.inclusive, req.temp_zeroed,
                        req.limits);
}

Plan plan_reduce(const ScanRequest& req) {
  check_request(req);
  Plan plan;
  Range array{Slot::input, 0, req.n};
  if (req.n == 0) array = {Slot::output, 0, 0};
  uint64_t temp_top = 0;
  for (uint32_t level = 0;; ++level) {
    Dispatch d;
    d.kernel = Kernel::reduce_tiles;
    d.level = level;
    d.n = array.count;
    d.blocks = std::max<uint64_t>(1, ceil_div(array.count, req.block_size));
    grid_for(d.blocks, req.limits, d.groups_x, d.groups_y);
    d.src = array;
    d.dst = array;  // not written: reduce_tiles only reads
    if (d.blocks == 1) {
      d.aux = {Slot::output, 0, 1};
      plan.steps.emplace_back(d);
      break;
    }
    d.aux = {Slot::temp, temp_top, d.blocks};
    plan.steps.emplace_back(d);
    plan.steps.emplace_back(Barrier{});
    array = d.aux;
    temp_top = level_top(temp_top, d.blocks);
  }
  plan.temp_elements = temp_top;
  count_levels(plan);
  return plan;
}

namespace {

// The counts' sub-plan scans its "input" into its "output" in place: both are the counts at
// temp[0, tiles); its own scratch moves up to `scratch`.
Range shift_into_temp(Range r, uint64_t scratch) {
  if (r.slot == Slot::temp) r.offset += scratch;
  r.slot = Slot::temp;
  return r;
}

}  // namespace

Plan plan_compact(const CompactRequest& req) {
  if (req.tile_size < 2 || !std::has_single_bit(req.tile_size))
    throw Error(Errc::invalid_argument, "tile size " + std::to_string(req.tile_size) + " is not a power of two >= 2");
  Plan plan;
  Dispatch scatter;
  scatter.kernel = Kernel::compact_scatter;
  if (req.n == 0) {
    scatter.blocks = 1;
    scatter.groups_x = scatter.groups_y = 1;
    scatter.src = {Slot::input, 0, 0};
    scatter.dst = {Slot::output, 0, 0};
    scatter.aux = {Slot::temp, 0, 0};
    plan.steps.emplace_back(scatter);
    plan.levels = 1;
    return plan;
  }
  const uint64_t tiles = ceil_div(req.n, req.tile_size);
  const bool windowed = req.window != 0 && req.n > req.window;
  if (req.single_pass) {
    if (req.partition)
      throw Error(Errc::invalid_argument, "the single-pass compaction selects only: a stable partition needs the "
                                          "total kept before it places a rejected element");
    if (windowed)
      throw Error(Errc::too_large, "the single-pass compaction must fit one binding: " + std::to_string(req.n) +
                                       " elements need windows (use the three-pass plan)");
    return plan_look_back(Kernel::compact_single_pass, req.n, req.tile_size, 4, false, req.temp_zeroed, req.limits);
  }
  if (windowed && req.window % req.tile_size != 0)
    throw Error(Errc::invalid_argument, "internal: a compaction window of " + std::to_string(req.window) +
                                            " elements is not a multiple of the tile");
  // Windows of whole tiles: window k's tile t is tile k·window/tile + t of the whole input.
  const uint64_t window = windowed ? req.window : req.n;
  const uint64_t windows = ceil_div(req.n, window);
  const uint64_t listed = listed_windows(windows, req.extent);  // temp does not depend on the windows
  auto window_range = [&](Slot slot, uint64_t k) {
    return Range{slot, k * window, std::min(window, req.n - k * window)};
  };
  auto tile_dispatch = [&](Kernel kernel, uint64_t k) {
    Dispatch d;
    d.kernel = kernel;
    d.src = window_range(Slot::input, k);
    d.n = d.src.count;
    d.blocks = ceil_div(d.n, req.tile_size);
    grid_for(d.blocks, req.limits, d.groups_x, d.groups_y);
    return d;
  };
  for (uint64_t k = 0; k < listed; ++k) {
    Dispatch count = tile_dispatch(Kernel::compact_count, k);
    count.dst = window_range(Slot::output, k);  // not written
    count.aux = {Slot::temp, k * window / req.tile_size, count.blocks};
    plan.steps.emplace_back(count);
    plan.steps.emplace_back(Barrier{});  // windows' count ranges may share a binding-aligned block
  }

  ScanRequest sub_req;
  sub_req.n = tiles;
  sub_req.block_size = req.counts_block_size;
  sub_req.inclusive = req.partition;
  sub_req.limits = req.limits;
  const Plan sub = req.counts_multipass ? plan_multipass_scan(sub_req) : plan_reduce_then_scan(sub_req);
  const uint64_t scratch = level_top(0, tiles);
  for (Step s : sub.steps) {
    if (auto* d = std::get_if<Dispatch>(&s)) {
      d->level += 1;
      d->src = shift_into_temp(d->src, scratch);
      d->dst = shift_into_temp(d->dst, scratch);
      d->aux = shift_into_temp(d->aux, scratch);
    } else if (auto* f = std::get_if<Fill>(&s)) {
      f->range = shift_into_temp(f->range, scratch);
    }
    plan.steps.push_back(s);
  }
  plan.steps.emplace_back(Barrier{});

  // Window k's kept elements land in output[0, end of window k); a partition's rejected ones anywhere.
  const Kernel last = req.partition ? Kernel::compact_partition : Kernel::compact_scatter;
  for (uint64_t k = 0; k < listed; ++k)
    for (uint64_t j = 0; j < (req.partition ? listed : k + 1); ++j) {
      if (k + j > 0) plan.steps.emplace_back(Barrier{});  // output windows' bindings may share aligned blocks
      scatter = tile_dispatch(last, k);
      scatter.dst = window_range(Slot::output, windowed ? j : 0);
      scatter.aux = {Slot::temp, 0, tiles};
      scatter.read_offsets = true;
      if (windowed) {
        scatter.first_tile = k * window / req.tile_size;
        scatter.all_tiles = tiles;
        scatter.output_window = true;
      }
      plan.steps.emplace_back(scatter);
    }
  plan.temp_elements = sub.temp_elements > 0 ? scratch + sub.temp_elements : tiles;
  plan.windows_left_out = windows - listed;
  count_levels(plan);
  return plan;
}

const char* kernel_name(Kernel k) {
  switch (k) {
    case Kernel::scan_local: return "scan_local";
    case Kernel::uniform_add: return "uniform_add";
    case Kernel::reduce_tiles: return "reduce_tiles";
    case Kernel::scan_tiles: return "scan_tiles";
    case Kernel::single_pass: return "single_pass";
    case Kernel::look_ahead: return "lookahead";
    case Kernel::compact_count: return "compact_count";
    case Kernel::compact_scatter: return "compact_scatter";
    case Kernel::compact_partition: return "compact_partition";
    case Kernel::compact_single_pass: return "compact_single_pass";
    case Kernel::carry_save: return "carry_save";
    case Kernel::carry_update: return "carry_update";
    case Kernel::indirect_count: return "indirect_count";
  }
  return "?";
}

std::string describe_windows_left_out(uint64_t windows) {
  if (windows == 0) return "";
  return "  ... " + std::to_string(windows) + " more window(s), planned as the ones above\n";
}

std::string describe(const Plan& plan) {
  static const char* slot_names[] = {"input", "output", "temp"};
  auto range = [](const Range& r) {
    std::ostringstream s;
    s << slot_names[static_cast<int>(r.slot)] << "[" << r.offset << ", " << r.offset + r.count << ")";
    return s.str();
  };
  std::ostringstream out;
  out << "plan: " << plan.levels << " level(s), " << plan.dispatch_count() << " dispatch(es), "
      << plan.temp_elements << " temp element(s)\n";
  for (const Step& s : plan.steps) {
    if (std::holds_alternative<Barrier>(s)) {
      out << "  barrier\n";
      continue;
    }
    if (const auto* f = std::get_if<Fill>(&s)) {
      out << "  fill zero " << range(f->range) << "\n";
      continue;
    }
    const Dispatch& d = std::get<Dispatch>(s);
    out << "  L" << d.level << " " << kernel_name(d.kernel) << " n=" << d.n << " grid=" << d.groups_x << "x"
        << d.groups_y;
    switch (d.kernel) {
      case Kernel::scan_local:
      case Kernel::scan_tiles:
      case Kernel::single_pass:
      case Kernel::look_ahead:
        out << " " << range(d.src) << " -> " << range(d.dst) << (d.inclusive ? " inclusive" : " exclusive");
        break;
      case Kernel::reduce_tiles: out << " " << range(d.src); break;
      case Kernel::uniform_add: out << " " << range(d.dst); break;
      case Kernel::compact_count: out << " " << range(d.src) << " counts " << range(d.aux); break;
      case Kernel::compact_scatter: out << " " << range(d.src) << " -> " << range(d.dst) << " offsets " << range(d.aux); break;
      case Kernel::compact_partition:
        out << " " << range(d.src) << " -> " << range(d.dst) << " inclusive offsets " << range(d.aux);
        break;
      case Kernel::compact_single_pass:
        out << " " << range(d.src) << " -> " << range(d.dst) << " state " << range(d.aux);
        break;
      case Kernel::carry_save: out << " " << range(d.src) << " -> " << range(d.aux); break;
      case Kernel::indirect_count: break;
      case Kernel::carry_update:
        out << " " << range(d.src) << " -> " << range(d.aux) << (d.inclusive ? " inclusive" : " exclusive");
        break;
    }
    if (d.kernel == Kernel::indirect_count) out << " count -> " << range(d.aux);
    if (d.carry_from_temp) out << " carry-in " << range(d.carry);
    if (d.dynamic) out << " (count from GPU memory)";
    if (d.write_block_sums || d.kernel == Kernel::uniform_add || d.kernel == Kernel::reduce_tiles)
      out << " sums " << range(d.aux);
    if (d.read_offsets && d.kernel != Kernel::compact_scatter && d.kernel != Kernel::compact_partition) out << " offsets " << range(d.aux);
    if (d.kernel == Kernel::single_pass || d.kernel == Kernel::look_ahead) out << " state " << range(d.aux);
    out << "\n";
  }
  out << describe_windows_left_out(plan.windows_left_out);
  return out.str();
}

}  // namespace gpuscan::core
