// Indirect counts (issue 6): a scan whose element count sits in GPU memory, written by an earlier GPU
// pass (a compaction's count, say), runs without a trip through the host. The plan is made for a
// caller-given upper bound; a first one-invocation dispatch (shaders/indirect_count.comp) reads the count,
// clamps it to the bound (reporting that in an optional status word), and writes every level's
// (n, blocks, groups_x) and dispatch command into temp; every other dispatch is marked `dynamic`: it
// reads its parameters from there (binding 3) and is issued with vkCmdDispatchIndirect /
// glDispatchComputeIndirect, so only the workgroups the real count needs run.
#pragma once

#include <cstdint>

#include "core/plan.hpp"

namespace gpuscan::core {

// Words per plan level in the indirect region: n, blocks, groups_x, then the command (x, y, 1).
inline constexpr uint32_t indirect_words_per_level = 6;
inline constexpr uint32_t indirect_command_word = 3;  // where the dispatch command starts within a level

// Where the words are: temp elements [first, first + elements) of the plan's element size.
struct IndirectRegion {
  uint64_t first = 0;
  uint64_t elements = 0;
  uint32_t levels = 0;
};

// `plan` (made for the upper bound, with every level's tiles of `block_size` elements) with an
// indirect_count dispatch and a barrier in front, its other dispatches marked dynamic, and the word
// region appended to its temp. Throws Errc::too_large for a windowed plan (the bound must fit one
// binding).
Plan plan_indirect(const Plan& plan, uint32_t element_size, IndirectRegion* region = nullptr);

}  // namespace gpuscan::core
