// A scan or reduction plan (core/plan.hpp) as a program of the one step format (core/program.hpp): the
// plan says which passes run over which ranges; this says how each pass binds them and what its
// parameter words are (shaders/common/pass_io.glsl's PassParams, indirect_count.comp's words), the same
// for every backend.
//
// Scan kernels: bindings 0 src, 1 dst, 2 aux, 3 the carry binding (a windowed scan's running total in
// temp, a count in GPU memory's words, or -- unread -- src again); words 0 n, 1..3 the offsets of
// bindings 0..2, 4 groups_x, 5 blocks, 6 the carry mode (0 none, 1 from words 7..8, 2 from binding 3 at
// word 7), 7..8 the carry-in's bits, 9 the dynamic words' offset; with device addresses, words 12..15 the
// addresses of src's and dst's first elements.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>

#include "core/indirect.hpp"
#include "core/plan.hpp"
#include "core/program.hpp"

namespace gpuscan::core {

// A scan program's buffers, in the order the executors are given them: the plan's slots, then a count
// in GPU memory and its status word.
enum PlanBuffer : uint8_t { plan_input, plan_output, plan_temp, plan_count, plan_status };

struct ScanLowering {
  uint32_t element_size = 4;  // bytes per element of input, output and temp
  // The backend's kernel for a dispatch: variant and constants (".bda" and vector_aligned are added here).
  std::function<PipelineKey(const Dispatch&)> key_of;
  std::optional<uint64_t> initial;  // the carry-in's bits, given to the plan's root dispatch
  // Vulkan: the passes over the caller's arrays reach them through device addresses (".bda" kernels).
  bool device_address = false;
  // A count in GPU memory (plans from plan_indirect): where its words are, and the indirect_count
  // dispatch's shape (bound, block sizes, levels, grid limits; the offsets are filled in here).
  IndirectRegion indirect;
  IndirectCountParams count;
  bool count_status = false;   // a status word to write (plan_status)
  bool min_one_block = false;  // a reduction: one workgroup per level even for no elements

  // Sets the fields of a count in GPU memory: the plan's region and bound, its levels' block size, the
  // count's width, the grid's limit, whether a status word is written.
  void count_from(const IndirectRegion& region, uint64_t bound, uint32_t block_size, bool is_64bit,
                  uint32_t max_groups_x, bool status, bool one_block_at_least);
};

// The kernels with a ".bda" variant (shaders/variants.cmake): the scan kernels that read or write the
// caller's arrays.
bool has_address_variant(Kernel kernel);

// The dispatch of shaders/indirect_count.comp for `d` (bindings: the count, the words in temp -- as
// elements of `element_size` bytes --, the status word or the words again).
cmd::Dispatch indirect_count_command(const Dispatch& d, uint32_t element_size, IndirectCountParams shape,
                                     bool count_status, bool min_one_block);

// Throws Errc::invalid_argument for an outline (check_recordable).
Program lower_scan_plan(const Plan& plan, const ScanLowering& how);

}  // namespace gpuscan::core
