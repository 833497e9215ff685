#include "core/windows.hpp"

#include <algorithm>
#include <string>
#include <variant>

#include "gpuscan/error.hpp"

namespace gpuscan::core {

std::vector<uint64_t> boundary_counts(uint64_t max_count, uint64_t window) {
  std::vector<uint64_t> counts;
  auto add = [&](uint64_t n) {
    if (n >= 1 && n <= max_count) counts.push_back(n);
  };
  for (uint64_t windows = 0; windows <= 2; ++windows) {
    if (windows > 0 && (window == 0 || windows * window >= max_count)) break;
    const uint64_t base = windows * window;
    add(base);
    for (uint64_t p = 1; p != 0 && p <= max_count - base; p <<= 1) {
      add(base + p);
      if (base + p < max_count) add(base + p + 1);
    }
  }
  add(max_count);
  std::sort(counts.begin(), counts.end());
  counts.erase(std::unique(counts.begin(), counts.end()), counts.end());
  return counts;
}

namespace {

constexpr uint64_t window_multiple = 16;

uint64_t align_up(uint64_t a, uint64_t b) { return (a / b + (a % b != 0)) * b; }

// Where a sub-plan's slots land in the windowed plan.
struct SlotMap {
  Range input;     // the sub-plan's input[0, ...) starts here
  Range output;    // ... its output
  uint64_t temp;   // its temp element 0 sits at this temp element
  Range map(Range r) const {
    switch (r.slot) {
      case Slot::input: return {input.slot, input.offset + r.offset, r.count};
      case Slot::output: return {output.slot, output.offset + r.offset, r.count};
      default: return {Slot::temp, temp + r.offset, r.count};
    }
  }
};

// Appends `sub` with its ranges mapped; returns its root dispatch's index in plan.steps (or SIZE_MAX).
size_t append_mapped(Plan& plan, const Plan& sub, const SlotMap& m) {
  size_t root = SIZE_MAX;
  for (Step s : sub.steps) {
    if (auto* d = std::get_if<Dispatch>(&s)) {
      d->src = m.map(d->src);
      d->dst = m.map(d->dst);
      d->aux = m.map(d->aux);
      if (d->root) root = plan.steps.size();
    } else if (auto* f = std::get_if<Fill>(&s)) {
      f->range = m.map(f->range);
    }
    plan.steps.push_back(s);
    if (const auto* d = std::get_if<Dispatch>(&s)) plan.levels = std::max(plan.levels, d->level + 1);
  }
  return root;
}

Dispatch carry_dispatch(Kernel kernel, Range last, uint64_t carry, bool inclusive) {
  Dispatch d;
  d.kernel = kernel;
  d.n = 1;
  d.blocks = 1;
  d.groups_x = 1;
  d.groups_y = 1;
  d.src = last;
  d.aux = {Slot::temp, carry, 2};
  d.dst = d.aux;
  d.inclusive = inclusive;
  return d;
}

uint64_t window_count(uint64_t n, uint64_t window) {
  if (window == 0) throw Error(Errc::invalid_argument, "internal: a window of 0 elements");
  return n / window + (n % window != 0);
}

}  // namespace

uint64_t window_elements(uint64_t max_binding_bytes, uint64_t offset_alignment, uint32_t element_size) {
  const uint64_t slack = std::max<uint64_t>(offset_alignment, 1) - 1;
  const uint64_t usable = max_binding_bytes > slack ? max_binding_bytes - slack : 0;
  uint64_t elements = usable / element_size;
  elements = std::min<uint64_t>(elements, uint64_t{1} << 31);
  elements -= elements % window_multiple;
  if (elements == 0)
    throw Error(Errc::too_large, "a storage-buffer binding of " + std::to_string(max_binding_bytes) +
                                     " bytes holds fewer than " + std::to_string(window_multiple) + " elements");
  return elements;
}

uint64_t chain_windows(uint64_t n, uint64_t window, bool inclusive, uint64_t carry,
                       const std::function<void(const WindowSpan&)>& scan_window,
                       const std::function<void(const CarryStep&)>& emit, PlanExtent extent) {
  const uint64_t windows = window_count(n, window);
  const uint64_t listed = listed_windows(windows, extent);
  for (uint64_t k = 0; k < listed; ++k) {
    const uint64_t start = k * window;
    const uint64_t len = std::min(window, n - start);
    const bool last = k + 1 == windows;
    if (!last && !inclusive) {
      emit(carry_dispatch(Kernel::carry_save, {Slot::input, start + len - 1, 1}, carry, false));
      emit(Barrier{});
    }
    scan_window({k, start, len});
    if (!last) {
      emit(Barrier{});
      emit(carry_dispatch(Kernel::carry_update, {Slot::output, start + len - 1, 1}, carry, inclusive));
      emit(Barrier{});
    }
  }
  return windows - listed;
}

Plan plan_windowed_scan(uint64_t n, uint64_t window, bool inclusive, const WindowScanPlanner& planner,
                        PlanExtent extent) {
  // Every window's plan uses the same scratch (the windows run one after another); the first is the largest.
  const uint64_t scratch = planner(std::min(n, window), true).temp_elements;
  const uint64_t carry = align_up(scratch, window_multiple);
  Plan plan;
  auto scan_window = [&](const WindowSpan& w) {
    const SlotMap m{{Slot::input, w.start, w.len}, {Slot::output, w.start, w.len}, 0};
    const size_t root = append_mapped(plan, planner(w.len, w.index == 0), m);
    if (root == SIZE_MAX) throw Error(Errc::invalid_argument, "internal: a window's plan has no root dispatch");
    if (w.index > 0) {
      Dispatch& d = std::get<Dispatch>(plan.steps[root]);
      d.carry_from_temp = true;
      d.carry = {Slot::temp, carry, 1};
    }
  };
  plan.windows_left_out =
      chain_windows(n, window, inclusive, carry, scan_window,
                    [&](const CarryStep& s) { std::visit([&](const auto& step) { plan.steps.emplace_back(step); }, s); },
                    extent);
  plan.temp_elements = carry + 2;
  return plan;
}

Plan plan_windowed_reduce(uint64_t n, uint64_t window, const WindowReducePlanner& planner, PlanExtent extent) {
  const uint64_t windows = window_count(n, window);
  const uint64_t listed = listed_windows(windows, extent);
  const uint64_t scratch = planner(std::min(n, window)).temp_elements;
  const uint64_t partials = align_up(scratch, window_multiple);
  const uint64_t final_scratch = align_up(partials + windows, window_multiple);
  Plan plan;
  for (uint64_t k = 0; k < listed; ++k) {
    const uint64_t start = k * window;
    const uint64_t len = std::min(window, n - start);
    append_mapped(plan, planner(len), {{Slot::input, start, len}, {Slot::temp, partials + k, 1}, 0});
    plan.steps.emplace_back(Barrier{});  // the next window reuses the scratch; the last one's partial is read next
  }
  const Plan final_plan = planner(windows);
  append_mapped(plan, final_plan, {{Slot::temp, partials, windows}, {Slot::output, 0, 1}, final_scratch});
  plan.temp_elements = final_scratch + final_plan.temp_elements;
  plan.windows_left_out = windows - listed;
  return plan;
}

}  // namespace gpuscan::core
