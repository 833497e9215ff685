#version 450
// Indirect counts (src/core/indirect.hpp): one invocation reads the element count an earlier GPU pass
// left in a buffer, clamps it to the upper bound the plan was made for, and writes for every level L of
// the plan its (n, blocks, groups_x) and its VkDispatchIndirectCommand (x, y, 1) -- what the push
// constants hold for a count known on the host -- so that each later dispatch of the plan runs just
// the workgroups the real count needs (vkCmdDispatchIndirect).
//   words[6L .. 6L+2]: n_L, blocks_L, groups_x_L     words[6L+3 .. 6L+5]: the dispatch command
// n_0 = min(count, bound); blocks_L = ceil(n_L / B_L) (at least 1 where MIN_ONE_BLOCK: a reduction writes
// the identity, a compaction its count 0, even for no elements); n_(L+1) = blocks_L. B_L is block_size,
// except B_0 = level0_block_size where that is set (a compaction: tiles of W·K·4, then its tile counts
// scanned in blocks of 2·W by the multipass plan). The grid is laid out as core::grid_for does; a
// look-ahead scan's level 0 has min(blocks, level0_max_groups) workgroups instead of one per block.
// With command_only (record_indirect_args) only level 0's dispatch command is written, at words[0 .. 2].
#extension GL_GOOGLE_include_directive : require

#include "common/backend.glsl"
layout(local_size_x = 1) in;
SPEC_CONSTANT(2, bool, MIN_ONE_BLOCK, false);

PARAMS_BLOCK uniform IndirectParams {
  uint count_offset;   // word index of the count in binding 0
  uint count_is_64;    // 1: a u64 count (low word first)
  uint bound;          // the upper bound the plan was made for (< 2^32)
  uint block_size;     // B, elements per workgroup at every level
  uint levels;
  uint max_groups_x;   // maxComputeWorkGroupCount[0] (or the debugging cap)
  uint words_offset;   // word index of words[0] in binding 1
  uint status_offset;  // word index of the status word in binding 2
  uint has_status;     // 1: write the status (0 = the count fitted, 1 = it was clamped to the bound)
  uint level0_block_size;  // B_0 where it differs from block_size; 0 = block_size
  uint level0_max_groups;  // level 0's grid at most this many workgroups (the look-ahead scan's G); 0 = no cap
  uint command_only;   // 1: level 0's dispatch command alone, at words[0 .. 2] (record_indirect_args)
} pc;

layout(binding = 0, std430) readonly buffer CountBuffer { uint g_count[]; };
layout(binding = 1, std430) writeonly buffer Words { uint g_words[]; };
layout(binding = 2, std430) writeonly buffer Status { uint g_status[]; };

uint div_up(uint a, uint b) { return a / b + (a % b != 0u ? 1u : 0u); }

void main() {
  const uint lo = g_count[pc.count_offset];
  const bool high = pc.count_is_64 != 0u && g_count[pc.count_offset + 1u] != 0u;
  const bool clamped = high || lo > pc.bound;
  uint n = clamped ? pc.bound : lo;
  if (pc.has_status != 0u) g_status[pc.status_offset] = clamped ? 1u : 0u;
  for (uint level = 0u; level < pc.levels; ++level) {
    const uint block_size = level == 0u && pc.level0_block_size != 0u ? pc.level0_block_size : pc.block_size;
    uint blocks = div_up(n, block_size);
    if (MIN_ONE_BLOCK) blocks = max(blocks, 1u);
    // Workgroups: one per block, except where level 0 has a fixed grid that strides over its blocks
    // (the look-ahead scan: min(blocks, G), one row, as core::look_ahead_grid for a count on the host).
    const uint groups = level == 0u && pc.level0_max_groups != 0u ? min(blocks, pc.level0_max_groups) : blocks;
    const uint rows = groups <= pc.max_groups_x ? 1u : div_up(groups, pc.max_groups_x);
    const uint groups_x = rows == 1u ? groups : div_up(groups, rows);
    if (pc.command_only != 0u) {  // a caller's own dispatch: its VkDispatchIndirectCommand, nothing else
      g_words[pc.words_offset] = groups_x;
      g_words[pc.words_offset + 1u] = groups == 0u ? 0u : rows;
      g_words[pc.words_offset + 2u] = 1u;
      return;
    }
    const uint w = pc.words_offset + 6u * level;
    g_words[w] = n;
    g_words[w + 1u] = blocks;
    g_words[w + 2u] = groups_x;
    g_words[w + 3u] = groups_x;
    g_words[w + 4u] = groups == 0u ? 0u : rows;
    g_words[w + 5u] = 1u;
    n = blocks;
  }
}
