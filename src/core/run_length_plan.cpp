#include "core/run_length_plan.hpp"

#include <algorithm>
#include <iterator>
#include <string>

#include "gpuscan/compact.hpp"
#include "gpuscan/error.hpp"

namespace gpuscan::core {

static_assert(predicate_run_start == static_cast<uint32_t>(PredicateKind::run_start) + 1,
              "PRED_RUN_START is PredicateKind::run_start + 1 (shaders/common/compact.glsl)");

namespace {

constexpr uint64_t array_alignment = 64;
constexpr uint64_t max_length_groups = 1024;  // the lengths pass strides over the runs

uint64_t round_up(uint64_t x, uint64_t to) { return (x + to - 1) / to * to; }

}  // namespace

void check_run_length_count(uint64_t count) {
  if (count > UINT32_MAX)
    throw Error(Errc::too_large, "run-length encoding writes u32 indices and lengths: at most 2^32 - 1 elements, not " +
                                     std::to_string(count));
}

RunLengthLayout run_length_layout(uint64_t count, uint64_t compact_bytes) {
  RunLengthLayout l;
  l.indices = round_up(compact_bytes, array_alignment);
  l.word = round_up(l.indices + count * 4, array_alignment);
  l.bytes = l.word + 4;
  return l;
}

void check_run_length_overlaps(const RunLengthRanges& r) {
  struct Named {
    const char* name;
    const ByteRange* range;
  };
  const Named ranges[] = {{"input", &r.input},     {"values", &r.values}, {"lengths", &r.lengths},
                          {"offsets", &r.offsets}, {"runs", &r.runs},     {"temp", &r.temp}};
  for (size_t i = 1; i < std::size(ranges); ++i)  // every output against everything before it
    for (size_t j = 0; j < i; ++j)
      if (overlaps(*ranges[i].range, *ranges[j].range))
        throw Error(Errc::invalid_argument, std::string("run-length encoding: the ") + ranges[i].name +
                                                " range overlaps the " + ranges[j].name + " range");
}

Program run_length_program(uint64_t count, bool edges, const RunLengthLayout& layout, uint32_t workgroup_size) {
  Program program;
  program.buffer_names.assign(std::begin(run_buffer_names), std::end(run_buffer_names));
  // Only non-trivial runs write count_out here when there are no elements, from the zero count.
  if (count == 0 && !edges) return program;
  cmd::Dispatch d;
  d.key.variant = edges ? "run_lengths.edges" : "run_lengths.starts";
  d.key.workgroup_size = workgroup_size;
  d.groups_x = static_cast<uint32_t>(
      std::clamp<uint64_t>((count + workgroup_size - 1) / workgroup_size, 1, max_length_groups));
  const Bind word{run_temp, layout.word / 4, 1};
  const Bind runs{run_count, 0, 1};
  Bind found = word, lengths = runs, offsets = runs, kept = word;
  if (count > 0) {
    const uint64_t room = edges ? std::max<uint64_t>(count / 2, 1) : count;
    found = {run_indices, 0, count};
    kept = edges ? word : runs;
    // One element has no non-trivial run: lengths and offsets may be empty, and are then never written.
    const bool no_room = edges && count / 2 == 0;
    lengths = no_room ? runs : Bind{run_lengths, 0, room};
    offsets = !edges ? lengths : no_room ? runs : Bind{run_offsets, 0, room};
  }
  d.bindings = {found, lengths, offsets, kept, runs};
  // run_lengths.comp's RunParams: n, then the offsets of bindings 0, 1, 2, 3 and 4.
  d.params = {Param::word(static_cast<uint32_t>(count)), Param::offset(0), Param::offset(1), Param::offset(2),
              Param::offset(3), Param::offset(4)};
  program.commands.emplace_back(cmd::Barrier{.after_earlier = true});  // after the compaction
  program.dispatch(std::move(d));
  return program;
}

}  // namespace gpuscan::core
