#include "core/segmented_plan.hpp"
#include "core/segmented_checks.hpp"
#include "core/scan_shape.hpp"
#include "core/windows.hpp"

#include <algorithm>
#include <bit>
#include <sstream>

#include "gpuscan/error.hpp"

namespace gpuscan::core {
namespace {

constexpr uint64_t array_alignment = 64;  // bytes: no two temp arrays share a 64-byte line

uint64_t ceil_div(uint64_t a, uint64_t b) { return a / b + (a % b != 0); }

// The first byte past `bytes` bytes at `top`, rounded up to array_alignment. Counts below 2^32 keep this
// far from overflow, but the check costs nothing.
uint64_t after(uint64_t top, uint64_t bytes) {
  if (bytes > UINT64_MAX - array_alignment - top)
    throw Error(Errc::too_large, "the segmented scan's scratch would exceed 2^64 bytes");
  return ceil_div(top + bytes, array_alignment) * array_alignment;
}

// Appends the passes that scan `values` (n elements, heads from `heads` as `source` says) into `out`,
// using temp from byte `temp_top` on. Returns the first free temp byte after what this level and those
// below it used.
uint64_t append_level(SegmentedPlan& plan, const SegmentedRequest& req, uint32_t level, uint64_t n, SegRange values,
                      SegRange heads, HeadSource source, SegRange out, bool inclusive, uint64_t temp_top) {
  SegDispatch scan;
  scan.kernel = SegKernel::seg_scan_tiles;
  scan.level = level;
  scan.n = n;
  scan.blocks = ceil_div(n, req.tile_size);
  grid_for(scan.blocks, req.limits, scan.groups_x, scan.groups_y);
  scan.values = values;
  scan.heads = heads;
  scan.head_source = source;
  scan.out = out;
  scan.totals = out;      // unused unless offsets are read
  scan.tile_heads = out;  // unused by the scan
  scan.inclusive = inclusive;
  if (scan.blocks == 1) {
    plan.steps.emplace_back(scan);
    return temp_top;
  }
  const uint64_t heads_top = after(temp_top, scan.blocks * req.element_size);
  const SegRange totals{SegSlot::temp, temp_top / req.element_size, scan.blocks};
  const SegRange tile_heads{SegSlot::temp, heads_top / 4, scan.blocks};
  SegDispatch reduce = scan;
  reduce.kernel = SegKernel::seg_reduce_tiles;
  reduce.out = values;  // not written
  reduce.totals = totals;
  reduce.tile_heads = tile_heads;
  reduce.inclusive = false;
  plan.steps.emplace_back(reduce);
  plan.steps.emplace_back(Barrier{});
  const uint64_t top = append_level(plan, req, level + 1, scan.blocks, totals, tile_heads, HeadSource::flags, totals,
                                    true, after(heads_top, scan.blocks * 4));
  plan.steps.emplace_back(Barrier{});
  scan.totals = totals;
  scan.read_offsets = true;
  plan.steps.emplace_back(scan);
  return top;
}

}  // namespace

SegRange as_seg(const Range& r) {
  const SegSlot slot = r.slot == Slot::input ? SegSlot::input : r.slot == Slot::output ? SegSlot::output : SegSlot::temp;
  return {slot, r.offset, r.count};
}

uint32_t head_unit_bytes(HeadSource source) { return source == HeadSource::keys64 ? 8 : 4; }

size_t SegmentedPlan::dispatch_count() const {
  size_t count = 0;
  for (const SegStep& s : steps) count += std::holds_alternative<SegDispatch>(s);
  return count;
}

SegmentedPlan plan_segmented_scan(const SegmentedRequest& req) {
  if (req.tile_size < 2 || !std::has_single_bit(req.tile_size))
    throw Error(Errc::invalid_argument, "tile size " + std::to_string(req.tile_size) + " is not a power of two >= 2");
  if (req.element_size != 4 && req.element_size != 8)
    throw Error(Errc::invalid_argument, "element size " + std::to_string(req.element_size) + " is not 4 or 8");
  SegmentedPlan plan;
  if (req.n == 0) return plan;
  auto append_window = [&](uint64_t start, uint64_t len) {
    const SegRange values{SegSlot::input, start, len};
    const SegRange heads{SegSlot::heads, start, len};
    const SegRange out{SegSlot::output, start, len};
    return append_level(plan, req, 0, len, values, heads, req.heads, out, req.inclusive, 0);
  };
  if (req.window == 0 || req.n <= req.window) {
    plan.temp_bytes = append_window(0, req.n);
  } else {
    // The windows share the scratch (they run one after another; the first is the largest), then the carry.
    const uint64_t scratch = plan_segmented_scan({req.window, req.tile_size, req.inclusive, req.element_size,
                                                  req.heads, req.limits, 0}).temp_bytes;
    const uint64_t carry = after(scratch, 0) / req.element_size;
    auto scan_window = [&](const WindowSpan& w) {
      const size_t first = plan.steps.size();
      append_window(w.start, w.len);
      if (w.index == 0) return;
      for (size_t i = first; i < plan.steps.size(); ++i) {
        auto* d = std::get_if<SegDispatch>(&plan.steps[i]);
        if (!d) continue;
        d->heads_before = d->level == 0 && req.heads != HeadSource::flags;
        if (d->kernel == SegKernel::seg_scan_tiles) {
          d->carry_from_temp = true;
          d->carry = {SegSlot::temp, carry, 1};
        }
      }
    };
    plan.windows_left_out = chain_windows(
        req.n, req.window, req.inclusive, carry, scan_window,
        [&](const CarryStep& s) { std::visit([&](const auto& step) { plan.steps.emplace_back(step); }, s); },
        req.extent);
    plan.temp_bytes = (carry + 2) * req.element_size;
  }
  for (const SegStep& s : plan.steps)
    if (const auto* d = std::get_if<SegDispatch>(&s)) plan.levels = std::max(plan.levels, d->level + 1);
  return plan;
}

SegmentedPlan plan_segmented(uint64_t count, uint64_t tile, DataType type, bool inclusive, HeadSource heads,
                             const PlanLimits& limits, uint64_t window, PlanExtent extent) {
  const uint64_t one_window = window == 0 ? count : std::min(count, window);
  if (one_window > uint64_t{UINT32_MAX} - tile)
    throw Error(Errc::too_large, "segmented scans of " + std::to_string(count) +
                                     " elements in one window are not supported: at most " +
                                     std::to_string(uint64_t{UINT32_MAX} - tile) + " elements per window");
  SegmentedRequest req;
  req.n = count;
  req.tile_size = static_cast<uint32_t>(tile);
  req.inclusive = inclusive;
  req.element_size = element_size(type);
  req.heads = heads;
  req.limits = limits;
  req.window = window;
  req.extent = extent;
  return plan_segmented_scan(req);
}

uint64_t segmented_window(uint64_t fit, uint64_t tile, HeadSource heads) {
  const uint64_t room = fit - (heads != HeadSource::flags && fit > 0);
  const uint64_t window = room >= tile ? room / tile * tile : room / 16 * 16;
  if (window == 0)
    throw Error(Errc::too_large, "a storage-buffer binding holds " + std::to_string(fit) +
                                     " elements, too few for a window of a segmented scan");
  return window;
}

SegmentedPlan plan_segmented_indirect(const SegmentedPlan& plan, uint32_t element_size, IndirectRegion* region) {
  const IndirectRegion r = indirect_region(ceil_div(plan.temp_bytes, element_size), plan.levels, element_size);
  SegmentedPlan out;
  out.steps.emplace_back(indirect_count_dispatch(r));
  out.steps.emplace_back(Barrier{});
  for (SegStep s : plan.steps) {
    if (auto* d = std::get_if<SegDispatch>(&s)) {
      if (d->carry_from_temp)
        throw Error(Errc::too_large, "a segmented scan with its count in GPU memory must fit one binding: its "
                                     "upper bound spans several windows");
      d->dynamic = true;
    }
    out.steps.push_back(s);
  }
  out.temp_bytes = (r.first + r.elements) * element_size;
  out.levels = plan.levels;
  if (region) *region = r;
  return out;
}

const char* seg_kernel_name(SegKernel kernel) {
  return kernel == SegKernel::seg_reduce_tiles ? "seg_reduce_tiles" : "seg_scan_tiles";
}

std::string describe(const SegmentedPlan& plan) {
  static const char* slot_names[] = {"input", "heads", "output", "temp"};
  static const char* source_names[] = {"flags", "u32 keys", "u64 keys"};
  auto range = [](const SegRange& r) {
    std::ostringstream s;
    s << slot_names[static_cast<int>(r.slot)] << "[" << r.offset << ", " << r.offset + r.count << ")";
    return s.str();
  };
  std::ostringstream out;
  out << "plan: " << plan.levels << " level(s), " << plan.dispatch_count() << " dispatch(es), " << plan.temp_bytes
      << " temp byte(s)\n";
  for (const SegStep& s : plan.steps) {
    if (std::holds_alternative<Barrier>(s)) {
      out << "  barrier\n";
      continue;
    }
    if (const auto* c = std::get_if<Dispatch>(&s)) {  // carry_save, carry_update or indirect_count
      out << "  " << kernel_name(c->kernel) << " " << range(as_seg(c->src)) << " -> " << range(as_seg(c->aux)) << "\n";
      continue;
    }
    const SegDispatch& d = std::get<SegDispatch>(s);
    out << "  L" << d.level << " " << seg_kernel_name(d.kernel) << " n=" << d.n << " grid=" << d.groups_x << "x"
        << d.groups_y << " " << range(d.values) << " heads " << source_names[static_cast<int>(d.head_source)] << " "
        << range(d.heads);
    if (d.kernel == SegKernel::seg_reduce_tiles) {
      out << " totals " << range(d.totals) << " tile heads " << range(d.tile_heads);
    } else {
      out << " -> " << range(d.out) << (d.inclusive ? " inclusive" : " exclusive");
      if (d.read_offsets) out << " offsets " << range(d.totals);
      if (d.carry_from_temp) out << " carry-in " << range(d.carry);
    }
    if (d.heads_before) out << " (+ the key before)";
    if (d.dynamic) out << " dynamic";
    out << "\n";
  }
  out << describe_windows_left_out(plan.windows_left_out);
  return out.str();
}

void check_segmented_config(const ScanConfig& config) {
  check_op(config.op, config.type);
  if (config.custom_op)
    throw Error(Errc::unsupported, "segmented scans take the built-in operators only, not a custom operator");
  if (config.algorithm != Algorithm::automatic && config.algorithm != Algorithm::reduce_then_scan)
    throw Error(Errc::unsupported, "segmented scans run as reduce-then-scan over (head, value) pairs only, not " +
                                       std::string(to_string(config.algorithm)) +
                                       "; use Algorithm::automatic or reduce_then_scan");
}

uint64_t segmented_value_count(uint64_t value_bytes, DataType type, uint64_t head_bytes, uint32_t head_unit,
                               const std::string& heads_name) {
  const uint32_t esize = element_size(type);
  if (value_bytes % esize != 0)
    throw Error(Errc::invalid_argument, "values hold " + std::to_string(value_bytes) + " bytes, not a whole number of " +
                                            std::string(to_string(type)) + " elements");
  const uint64_t n = value_bytes / esize;
  if (head_bytes / head_unit < n)
    throw Error(Errc::invalid_argument, heads_name + " hold " + std::to_string(head_bytes / head_unit) +
                                            " elements, fewer than the " + std::to_string(n) + " values");
  return n;
}

}  // namespace gpuscan::core
