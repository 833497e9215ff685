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
#include <string>

#include "core/indirect.hpp"
#include "core/plan.hpp"
#include "core/segmented_plan.hpp"
#include "core/program.hpp"

namespace gpuscan::core {

// A plan's buffers, in the order the executors are given them: its slots, then a count
// in GPU memory and its status word; a compaction's flags, its count of kept elements and the kept
// elements' input indices.
enum PlanBuffer : uint8_t {
  plan_input, plan_output, plan_temp, plan_count, plan_status, plan_flags, plan_count_out, plan_indices
};
inline constexpr std::string_view plan_buffer_names[] = {"input", "output", "temp", "count", "status",
                                                         "flags", "count_out", "indices"};

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

// Stream compaction (plan_compaction's plans). The compaction kernels (shaders/common/compact.glsl) bind
// 0 input, 1 output, 2 temp (u32 tile counts or the look-back state), 3 flags (select_if: the input
// again, unread), 4 the count of kept elements, 5 the kept elements' input indices (or the output again,
// unwritten); their words are CompactParams: 0..5 as PassParams, 6 and 7 the offsets of bindings 3 and
// 4, 8..9 and 15..16 the predicate's constants (low, high words), 10 a dynamic dispatch's words, 11..14
// an output window, 17 the offset of binding 5. The tile counts' scan runs the scan kernels over temp,
// whose elements are u32; `scan` gives their kernels and the count in GPU memory (with the compaction's
// element_size of 4).
struct CompactLowering {
  ScanLowering scan;              // key_of: every dispatch's kernel, compaction and scan alike
  uint64_t count = 0;             // elements (a count in GPU memory's bound)
  uint32_t value_bytes = 4;       // bytes per input element
  uint32_t output_unit = 4;       // bytes per output element: value_bytes, or 4 where it holds indices alone
  bool flagged = false;           // select_flagged / partition_flagged: binding 3 the caller's flags
  uint32_t flag_unit = 4;         // bytes per flag (8 for u64 keys)
  bool flag_vectors = true;       // the flags are u32 flags, loaded as vectors where aligned
  uint64_t predicate_a = 0, predicate_b = 0;
  bool indices = false;           // binding 5 the indices (record_select_indexed)
};
Program lower_compact_plan(const Plan& plan, const CompactLowering& how);
bool is_compaction_kernel(Kernel kernel);

// Segmented scans (core/segmented_plan.hpp). Buffers in SegSlot's order, then a count in GPU memory and
// its status word. The segmented kernels (shaders/common/segmented.glsl) bind 0 values, 1 output (for
// seg_reduce_tiles, which writes no values, the tile heads), 2 tile totals, 3 the carry binding (as the
// scan kernels'), 4 heads; their words are PassParams, then 10 heads_offset and 11 heads_before. The
// carry kernels between windows and the indirect_count dispatch are the scans' (lower_scan_plan, with
// `scan`, whose element_size is the values').
enum SegBuffer : uint8_t { seg_input, seg_heads, seg_output, seg_temp, seg_count, seg_status };
inline constexpr std::string_view seg_buffer_names[] = {"input", "heads", "output", "temp", "count", "status"};
struct SegmentedLowering {
  ScanLowering scan;
  std::function<PipelineKey(const SegDispatch&)> key_of;  // the segmented kernels' (vector_aligned is added here)
  uint32_t head_unit = 4;                                 // bytes per head of the caller's (flags, keys)
};
Program lower_segmented_plan(const SegmentedPlan& plan, const SegmentedLowering& how);
// A segmented kernel's key: "<kernel>.<type><suffix>" (OpenGL's suffix ".no_subgroups") with its constants.
PipelineKey segmented_kernel_key(const SegDispatch& d, DataType type, Op op, uint32_t workgroup_size,
                                 uint32_t vectors_per_lane, const std::string& suffix = "");  // compact_count, compact_scatter, compact_partition, compact_single_pass

}  // namespace gpuscan::core
