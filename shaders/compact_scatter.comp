#version 450
// Stream compaction, pass 3: every tile evaluates its predicate again and writes its kept elements, in
// order, from g_aux[aux_offset + tile] (the exclusive scan of the tile counts) on. The last tile writes
// the number kept to g_count[count_offset]; with n == 0 the one workgroup writes 0 and nothing else.
//   COMPACT_BALLOT: ranks from subgroup ballots (common/ballot.glsl).
//   COMPACT_SHARED: invocation l owns ITEMS consecutive elements; the invocations' counts of 0/1 flags
//                   are scanned in shared memory. No subgroup operations.
#extension GL_GOOGLE_include_directive : require

layout(local_size_x_id = 0) in;

#include "common/ops.glsl"
#include "common/compact.glsl"
#if defined(COMPACT_BALLOT)
#include "common/ballot.glsl"
#elif !defined(COMPACT_SHARED)
#error "define COMPACT_BALLOT or COMPACT_SHARED"
#endif

void main() {
  if (pc.n == 0u) {
    if (gl_WorkGroupID.x == 0u && gl_WorkGroupID.y == 0u && gl_LocalInvocationID.x == 0u)
      g_count[pc.count_offset] = 0u;
    return;
  }
  const uint tile = linear_block_index();
  if (tile >= pc.blocks) return;
  const uint tile_offset = g_aux[pc.aux_offset + tile];
  uint total;
#if defined(COMPACT_BALLOT)
  const uint NONE = 0xffffffffu;
  T values[ITEMS];
  uint ranks[ITEMS];  // rank among the subgroup's kept elements, NONE where not kept
  uint kept = 0u;     // the subgroup's kept elements so far (uniform in the subgroup)
  for (uint k = 0u; k < ITEMS; ++k) {
    const uint i = ballot_element(tile, k);
    const bool p = i < pc.n && compact_keep(i, true, values[k]);
    const uvec4 ballot = subgroupBallot(p);
    ranks[k] = p ? kept + subgroupBallotExclusiveBitCount(ballot) : NONE;
    kept += subgroupBallotBitCount(ballot);
  }
  const uint base = tile_offset + subgroup_counts_exclusive(kept, total);
  for (uint k = 0u; k < ITEMS; ++k)
    if (ranks[k] != NONE) g_dst[pc.dst_offset + base + ranks[k]] = values[k];
#else
  const uint first = tile * tile_elements() + gl_LocalInvocationID.x * ITEMS;
  uint kept = 0u;
  T v;
  for (uint k = 0u; k < ITEMS; ++k) {
    const uint i = first + k;
    if (i < pc.n && compact_keep(i, false, v)) ++kept;
  }
  uint at = tile_offset + workgroup_exclusive_sum(kept, total);
  for (uint k = 0u; k < ITEMS; ++k) {
    const uint i = first + k;
    if (i < pc.n && compact_keep(i, true, v)) g_dst[pc.dst_offset + at++] = v;
  }
#endif
  if (tile == pc.blocks - 1u && gl_LocalInvocationID.x == 0u) g_count[pc.count_offset] = tile_offset + total;
}
