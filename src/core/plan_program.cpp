#include "core/plan_program.hpp"

#include "core/variant_names.hpp"
#include "gpuscan/error.hpp"

namespace gpuscan::core {
namespace {

constexpr uint32_t address_word = 12;  // pass_io.glsl: src's address in words 12..13, dst's in 14..15

Bind bind_of(const Range& r, uint32_t unit) { return {static_cast<uint8_t>(r.slot), r.offset, r.count, unit}; }

}  // namespace

void ScanLowering::count_from(const IndirectRegion& region, uint64_t bound, uint32_t block_size, bool is_64bit,
                              uint32_t max_groups_x, bool status, bool one_block_at_least) {
  indirect = region;
  count.bound = bound;
  count.block_size = block_size;
  count.is_64bit = is_64bit;
  count.max_groups_x = max_groups_x;
  count_status = status;
  min_one_block = one_block_at_least;
}

bool has_address_variant(Kernel kernel) {
  switch (kernel) {
    case Kernel::scan_local:
    case Kernel::uniform_add:
    case Kernel::reduce_tiles:
    case Kernel::scan_tiles:
    case Kernel::single_pass:
    case Kernel::look_ahead: return true;
    default: return false;
  }
}

cmd::Dispatch indirect_count_command(const Dispatch& d, uint32_t element_size, IndirectCountParams shape,
                                     bool count_status, bool min_one_block) {
  cmd::Dispatch c;
  c.key.variant = "indirect_count";
  c.key.use_aux = min_one_block;  // MIN_ONE_BLOCK
  const Bind words{plan_temp, d.aux.offset, d.aux.count, element_size};
  c.bindings = {Bind{plan_count, 0, shape.is_64bit ? 2u : 1u, 4}, words,
                count_status ? Bind{plan_status, 0, 1, 4} : words};
  if (count_status) shape.status_offset = 0;
  for (const uint32_t word : indirect_count_words(shape)) c.params.push_back(Param::word(word));
  c.params[0] = Param::offset(0);                                               // count_offset
  c.params[6] = Param::offset(1, static_cast<uint8_t>(element_size / 4));       // words_offset, in words
  if (count_status) c.params[7] = Param::offset(2);                             // status_offset
  return c;
}

Program lower_scan_plan(const Plan& plan, const ScanLowering& how) {
  check_recordable(plan.windows_left_out);
  const uint32_t esize = how.element_size;
  Program program;
  program.buffer_names.assign(std::begin(plan_buffer_names), std::end(plan_buffer_names));
  for (const Step& step : plan.steps) {
    if (const auto* fill = std::get_if<Fill>(&step)) {
      program.fill(static_cast<uint8_t>(fill->range.slot), fill->range.offset * esize, fill->range.count * esize);
      continue;
    }
    if (std::holds_alternative<Barrier>(step)) {
      program.barrier();
      continue;
    }
    const Dispatch& d = std::get<Dispatch>(step);
    if (d.kernel == Kernel::indirect_count) {
      IndirectCountParams shape = how.count;
      shape.levels = how.indirect.levels;
      for (const Step& s : plan.steps)  // the look-ahead scan's grid: G for the bound, fewer below
        if (const auto* la = std::get_if<Dispatch>(&s); la && la->kernel == Kernel::look_ahead)
          shape.level0_max_groups = la->groups_x;
      program.dispatch(indirect_count_command(d, esize, shape, how.count_status, how.min_one_block));
      continue;
    }
    cmd::Dispatch c;
    c.key = how.key_of(d);
    // With device addresses, the passes over the caller's arrays take src and dst from the addresses in
    // the parameter words; their bindings (unread) and any binding of a caller's range then cover one
    // element, so no binding limit applies. Passes over temp keep their bindings.
    const bool caller = d.src.slot != Slot::temp || d.dst.slot != Slot::temp;
    const bool by_address = how.device_address && caller && has_address_variant(d.kernel);
    if (by_address && (d.src.slot == Slot::temp || d.dst.slot == Slot::temp))
      throw Error(Errc::invalid_argument, "internal: a pass over the caller's array and temp cannot use device addresses");
    auto bind = [&](const Range& r) {
      Bind b = bind_of(r, esize);
      if (by_address && r.slot != Slot::temp) b.count = std::min<uint64_t>(b.count, 1);
      return b;
    };
    const Bind src = bind(d.src);
    const Bind carry = d.carry_from_temp ? bind_of(d.carry, esize)
                       : d.dynamic       ? Bind{plan_temp, how.indirect.first, how.indirect.elements, esize}
                                         : src;
    c.bindings = {src, bind(d.dst), bind(d.aux), carry};
    const bool carry_in = d.root && how.initial.has_value() && !d.carry_from_temp;
    const uint64_t bits = carry_in ? *how.initial : 0;
    c.params = {Param::word(static_cast<uint32_t>(d.n)),
                by_address ? Param::word(0) : Param::offset(0),
                by_address ? Param::word(0) : Param::offset(1),
                Param::offset(2),
                Param::word(d.groups_x),
                Param::word(static_cast<uint32_t>(d.blocks)),
                Param::word(d.carry_from_temp ? 2u : carry_in ? 1u : 0u),
                d.carry_from_temp ? Param::offset(3) : Param::word(static_cast<uint32_t>(bits)),
                Param::word(static_cast<uint32_t>(bits >> 32)),
                Param::word(0)};
    if (d.dynamic) {  // dynamic_param: the level's words, counted in u32 from binding 3's start
      c.params[9] = Param::offset(3, static_cast<uint8_t>(esize / 4), dynamic_param(0, d.level));
      c.indirect = cmd::Dispatch::Indirect{plan_temp, indirect_command_offset(how.indirect, esize, d.level)};
    }
    const uint8_t vector_elements = 4;
    if (by_address) {
      c.key.variant += ".bda";
      c.params.resize(address_word, Param::word(0));
      c.params.push_back(Param::address(src, false));
      c.params.push_back(Param::address(src, true));
      c.params.push_back(Param::address(c.bindings[1], false));
      c.params.push_back(Param::address(c.bindings[1], true));
      // Whole vectors only where both addresses are multiples of a vector's size.
      c.vector_aligned_if = {{address_word, 1, static_cast<uint8_t>(vector_elements * esize)},
                             {address_word + 2, 1, static_cast<uint8_t>(vector_elements * esize)}};
    } else {
      // Whole vectors only where both ranges start on a vector boundary of their bindings.
      c.vector_aligned_if = {{1, 1, vector_elements}, {2, 1, vector_elements}};
    }
    if (d.kernel == Kernel::single_pass || d.kernel == Kernel::look_ahead) {
      c.state_binding = 2;
      c.state_name = d.kernel == Kernel::single_pass ? "single-pass scan" : "look-ahead scan";
    }
    c.groups_x = d.groups_x;
    c.groups_y = d.groups_y;
    program.dispatch(std::move(c));
  }
  return program;
}

bool is_compaction_kernel(Kernel kernel) {
  return kernel == Kernel::compact_count || kernel == Kernel::compact_scatter || kernel == Kernel::compact_partition ||
         kernel == Kernel::compact_single_pass;
}

Program lower_compact_plan(const Plan& plan, const CompactLowering& how) {
  check_recordable(plan.windows_left_out);
  const ScanLowering& scan = how.scan;
  Program program;
  program.buffer_names.assign(std::begin(plan_buffer_names), std::end(plan_buffer_names));
  for (const Step& step : plan.steps) {
    if (std::holds_alternative<Barrier>(step)) {
      program.barrier();
      continue;
    }
    if (const auto* fill = std::get_if<Fill>(&step)) {  // the single-pass look-back state (u32 words)
      program.fill(static_cast<uint8_t>(fill->range.slot), fill->range.offset * 4, fill->range.count * 4);
      continue;
    }
    if (!is_compaction_kernel(std::get<Dispatch>(step).kernel)) {
      // The count's indirect_count and the tile counts' scan: a scan program's dispatches.
      Plan one;
      one.steps = {step};
      for (Command& c : lower_scan_plan(one, scan).commands) program.commands.push_back(std::move(c));
      continue;
    }
    const Dispatch& d = std::get<Dispatch>(step);
    cmd::Dispatch c;
    c.key = scan.key_of(d);
    const Bind src = bind_of(d.src, d.src.slot == Slot::temp ? 4 : how.value_bytes);
    const Bind dst = bind_of(d.dst, d.dst.slot == Slot::temp ? 4 : how.output_unit);
    // A dynamic compaction kernel reads its words through the aux binding, which then reaches them.
    Bind aux = bind_of(d.aux, 4);
    if (d.dynamic) aux.count = scan.indirect.first + scan.indirect.elements - d.aux.offset;
    const Bind flags =
        how.flagged && how.count > 0 ? Bind{plan_flags, d.src.offset, d.src.count, how.flag_unit} : src;
    const bool with_indices = how.indices && how.count > 0 && d.kernel != Kernel::compact_count;
    c.bindings = {src, dst, aux, flags, Bind{plan_count_out, 0, 1, 4},
                  with_indices ? Bind{plan_indices, 0, how.count, 4} : dst};
    auto low = [](uint64_t v) { return Param::word(static_cast<uint32_t>(v)); };
    c.params = {low(d.n), Param::offset(0), Param::offset(1), Param::offset(2), Param::word(d.groups_x),
                low(d.blocks), Param::offset(3), Param::offset(4), low(how.predicate_a), low(how.predicate_b),
                Param::word(0), Param::word(0), Param::word(0), Param::word(0), Param::word(0),
                low(how.predicate_a >> 32), low(how.predicate_b >> 32),
                how.indices ? Param::offset(5) : Param::word(0)};
    if (d.dynamic) {
      c.params[10] = Param::offset(2, 1, static_cast<uint32_t>(scan.indirect.first - d.aux.offset) +
                                             dynamic_param(0, d.level));
      c.indirect = cmd::Dispatch::Indirect{plan_temp, indirect_command_offset(scan.indirect, 4, d.level)};
    }
    if (d.output_window) {  // counts < 2^32 (core::check_count)
      c.params[11] = low(d.first_tile);
      c.params[12] = low(d.all_tiles);
      c.params[13] = low(d.dst.offset);
      c.params[14] = low(d.dst.count);
    }
    // The ballot path loads 16-byte vectors of values (and flags) where both start on a 16-byte boundary.
    c.vector_aligned_if = {{1, static_cast<uint8_t>(how.value_bytes), 16}};
    if (how.flagged && how.flag_vectors) c.vector_aligned_if.push_back({6, 1, 4});
    if (d.kernel == Kernel::compact_single_pass) {
      c.state_binding = 2;
      c.state_name = "single-pass compaction";
    }
    c.groups_x = d.groups_x;
    c.groups_y = d.groups_y;
    program.dispatch(std::move(c));
  }
  return program;
}

PipelineKey segmented_kernel_key(const SegDispatch& d, DataType type, Op op, uint32_t workgroup_size,
                                 uint32_t vectors_per_lane, const std::string& suffix) {
  PipelineKey key;
  key.variant = std::string(seg_kernel_name(d.kernel)) + "." + std::string(to_string(type)) + suffix;
  key.op = op_constant(op);
  key.workgroup_size = workgroup_size;
  key.vectors_per_lane = vectors_per_lane;
  key.inclusive = d.inclusive;
  key.use_aux = d.read_offsets;
  key.heads = static_cast<uint32_t>(d.head_source);
  return key;
}

Program lower_segmented_plan(const SegmentedPlan& plan, const SegmentedLowering& how) {
  check_recordable(plan.windows_left_out);
  const ScanLowering& scan = how.scan;
  const uint32_t esize = scan.element_size;
  // The scans' slots (input, output, temp, count, status) among the segmented scan's buffers.
  constexpr Place scan_buffers[] = {{seg_input}, {seg_output}, {seg_temp}, {seg_count}, {seg_status}};
  Program program;
  program.buffer_names.assign(std::begin(seg_buffer_names), std::end(seg_buffer_names));
  auto bind = [](const SegRange& r, uint32_t unit) { return Bind{static_cast<uint8_t>(r.slot), r.offset, r.count, unit}; };
  for (const SegStep& step : plan.steps) {
    if (std::holds_alternative<Barrier>(step)) {
      program.barrier();
      continue;
    }
    if (const auto* machinery = std::get_if<Dispatch>(&step)) {
      Plan one;
      one.steps = {*machinery};
      append_placed(program, lower_scan_plan(one, scan), scan_buffers);
      continue;
    }
    const SegDispatch& d = std::get<SegDispatch>(step);
    const bool reduce = d.kernel == SegKernel::seg_reduce_tiles;
    cmd::Dispatch c;
    c.key = how.key_of(d);
    const Bind values = bind(d.values, esize);
    // With heads_before, the key before the range is bound too; the shader's element 0 stays the range's.
    const uint32_t before = d.heads_before ? 1 : 0;
    const SegRange heads{d.heads.slot, d.heads.offset - before, d.heads.count + before};
    // Binding 3: the running value of the windows before, the indirect words, or (unread) the values.
    const Bind carry = d.carry_from_temp ? bind(d.carry, esize)
                       : d.dynamic       ? Bind{seg_temp, scan.indirect.first, scan.indirect.elements, esize}
                                         : values;
    c.bindings = {values, reduce ? bind(d.tile_heads, 4) : bind(d.out, esize), bind(d.totals, esize), carry,
                  bind(heads, d.heads.slot == SegSlot::heads ? how.head_unit : 4)};
    c.params = {Param::word(static_cast<uint32_t>(d.n)), Param::offset(0), Param::offset(1), Param::offset(2),
                Param::word(d.groups_x), Param::word(static_cast<uint32_t>(d.blocks)),
                Param::word(d.carry_from_temp ? 2u : 0u), d.carry_from_temp ? Param::offset(3) : Param::word(0),
                Param::word(0), Param::word(0), Param::offset(4, 1, before), Param::word(before)};
    if (d.dynamic) {
      c.params[9] = Param::offset(3, static_cast<uint8_t>(esize / 4), dynamic_param(0, d.level));
      c.indirect = cmd::Dispatch::Indirect{seg_temp, indirect_command_offset(scan.indirect, esize, d.level)};
    }
    c.vector_aligned_if = {{1, 1, 4}};
    if (!reduce) c.vector_aligned_if.push_back({2, 1, 4});
    c.groups_x = d.groups_x;
    c.groups_y = d.groups_y;
    program.dispatch(std::move(c));
  }
  return program;
}

}  // namespace gpuscan::core
