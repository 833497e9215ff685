#include "core/indirect.hpp"

#include <algorithm>
#include <variant>

#include <string>

#include "gpuscan/error.hpp"

namespace gpuscan::core {

IndirectRegion indirect_region(uint64_t temp_elements, uint32_t levels, uint32_t element_size) {
  IndirectRegion r;
  r.levels = levels;
  r.first = (temp_elements + temp_level_alignment - 1) / temp_level_alignment * temp_level_alignment;
  const uint64_t words = uint64_t{indirect_words_per_level} * std::max<uint32_t>(levels, 1);
  r.elements = (words * 4 + element_size - 1) / element_size;
  return r;
}

Dispatch indirect_count_dispatch(const IndirectRegion& region) {
  Dispatch prepare;
  prepare.kernel = Kernel::indirect_count;
  prepare.blocks = 1;
  prepare.groups_x = 1;
  prepare.groups_y = 1;
  prepare.aux = {Slot::temp, region.first, region.elements};
  prepare.src = prepare.aux;
  prepare.dst = prepare.aux;
  return prepare;
}

Plan plan_indirect(const Plan& plan, uint32_t element_size, IndirectRegion* region) {
  const IndirectRegion r = indirect_region(plan.temp_elements, plan.levels, element_size);
  Plan out;
  out.steps.emplace_back(indirect_count_dispatch(r));
  out.steps.emplace_back(Barrier{});
  for (Step s : plan.steps) {
    if (auto* d = std::get_if<Dispatch>(&s)) {
      // Windows: a scan's later windows take their carry from temp; a reduction's windows have no carry
      // but read the input from past its start. Every dynamic dispatch would take the whole count for its
      // own window's, so neither can run from a count in GPU memory.
      if (d->carry_from_temp || (d->src.slot == Slot::input && d->src.offset != 0))
        throw Error(Errc::too_large, "an operation with its count in GPU memory must fit one binding: its upper "
                                     "bound spans several windows");
      d->dynamic = true;
    }
    out.steps.push_back(s);
  }
  out.temp_elements = r.first + r.elements;
  out.levels = plan.levels;
  out.windows_left_out = plan.windows_left_out;  // an outline stays one
  if (region) *region = r;
  return out;
}

uint32_t dynamic_param(uint32_t words_offset, uint32_t level) {
  return words_offset + indirect_words_per_level * level + 1;
}

uint64_t indirect_command_offset(const IndirectRegion& region, uint32_t element_size, uint32_t level) {
  return region.first * element_size + (uint64_t{indirect_words_per_level} * level + indirect_command_word) * 4;
}

std::array<uint32_t, indirect_count_param_words> indirect_count_words(const IndirectCountParams& p) {
  if (p.bound > UINT32_MAX)
    throw Error(Errc::too_large, "a count in GPU memory is bounded by " + std::to_string(p.bound) +
                                     " elements; at most 2^32 - 1 are supported (one binding)");
  return {p.count_offset,
          p.is_64bit ? 1u : 0u,
          static_cast<uint32_t>(p.bound),
          p.block_size,
          p.levels,
          p.max_groups_x,
          p.words_offset,
          p.status_offset.value_or(0),
          p.status_offset ? 1u : 0u,
          p.level0_block_size,
          p.level0_max_groups,
          p.command_only ? 1u : 0u};
}

Program indirect_args_program(bool count_64bit, bool status, uint64_t bound, uint32_t per_workgroup,
                              uint32_t max_groups_x) {
  if (per_workgroup == 0)
    throw Error(Errc::invalid_argument, "elements_per_workgroup is 0: a workgroup takes at least one element");
  IndirectCountParams shape;
  shape.is_64bit = count_64bit;
  shape.bound = bound;
  shape.block_size = per_workgroup;
  shape.levels = 1;
  shape.max_groups_x = max_groups_x;
  shape.command_only = true;
  if (status) shape.status_offset = 0;
  cmd::Dispatch c;
  c.key.variant = "indirect_count";
  const Bind command{indirect_args_command, 0, 3, 4};
  c.bindings = {Bind{indirect_args_count, 0, count_64bit ? 2u : 1u, 4}, command,
                status ? Bind{indirect_args_status, 0, 1, 4} : command};
  for (const uint32_t word : indirect_count_words(shape)) c.params.push_back(Param::word(word));
  c.params[0] = Param::offset(0);  // count_offset
  c.params[6] = Param::offset(1);  // words_offset
  if (status) c.params[7] = Param::offset(2);  // status_offset
  Program program;
  program.buffer_names.assign(std::begin(indirect_args_buffer_names), std::end(indirect_args_buffer_names));
  program.dispatch(std::move(c));
  return program;
}

bool overlaps(const ByteRange& a, const ByteRange& b) {
  return a.bytes > 0 && b.bytes > 0 && a.buffer == b.buffer && a.offset < b.offset + b.bytes &&
         b.offset < a.offset + a.bytes;
}

void check_indirect_count(const ByteRange& count, const ByteRange& status, std::span<const ByteRange> written,
                          const char* written_names) {
  for (const ByteRange& w : written)
    if (overlaps(count, w)) throw Error(Errc::invalid_argument, std::string("the count overlaps ") + written_names);
  for (const ByteRange& w : written)
    if (overlaps(status, w))
      throw Error(Errc::invalid_argument, std::string("the status word overlaps ") + written_names);
  if (overlaps(status, count)) throw Error(Errc::invalid_argument, "the status word overlaps the count");
}

}  // namespace gpuscan::core
