// The ballot path of stream compaction: subgroup s of a tile owns ITEMS rows of S = min(subgroup size,
// W) consecutive elements, row k at tile element (s·ITEMS + k)·S + lane, so loads are coalesced and
// the element order is (subgroup, row, lane). A row's ballot gives each kept element its rank among the
// row's kept elements (subgroupBallotExclusiveBitCount) and the row's count (subgroupBallotBitCount);
// rows accumulate per subgroup, and the subgroups' counts are scanned across the workgroup in shared
// memory. Ballots are uvec4, so subgroups of 4 to 128 invocations all work.
#ifndef GPUSCAN_BALLOT_GLSL
#define GPUSCAN_BALLOT_GLSL

#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_ballot : require

uint ballot_lanes() { return min(gl_SubgroupSize, gl_WorkGroupSize.x); }

// Element index (in the whole array) of this invocation's row k of `tile`.
uint ballot_element(uint tile, uint k) {
  return tile * tile_elements() + (gl_SubgroupID * ITEMS + k) * ballot_lanes() + gl_SubgroupInvocationID;
}

// Subgroups have at least 4 invocations.
shared uint sh_subgroup_count[gl_WorkGroupSize.x / 4u + 1u];

// Exclusive scan of one count per subgroup (the subgroup's elected invocation passes it): returns,
// to every invocation, the count of the subgroups before its own; `total` the workgroup's.
uint subgroup_counts_exclusive(uint subgroup_count, out uint total) {
  if (subgroupElect()) sh_subgroup_count[gl_SubgroupID] = subgroup_count;
  barrier();
  const uint lid = gl_LocalInvocationID.x;
  const uint mine = lid < gl_NumSubgroups ? sh_subgroup_count[lid] : 0u;
  const uint before = workgroup_exclusive_sum(mine, total);  // begins and ends with barriers
  if (lid < gl_NumSubgroups) sh_subgroup_count[lid] = before;
  barrier();
  return sh_subgroup_count[gl_SubgroupID];
}

// Selection (compact_scatter.comp and compact_single_pass.comp): this invocation's rows of a tile, the
// kept ones' bits and their ranks among the subgroup's kept elements (BALLOT_NONE where not kept).
const uint BALLOT_NONE = 0xffffffffu;
uint b_values[ITEMS];
uint b_ranks[ITEMS];

// Loads and ranks the kept elements of `tile` into b_values / b_ranks. Returns, to every invocation,
// the number of the tile's kept elements before its subgroup's; `total` the tile's. Call from uniform
// control flow.
uint ballot_rank_kept(uint tile, out uint total) {
  uint kept = 0u;  // the subgroup's kept elements so far (uniform in the subgroup)
  for (uint k = 0u; k < ITEMS; ++k) {
    const uint i = ballot_element(tile, k);
    const bool p = i < pc.n && compact_keep(i, true, b_values[k]);
    const uvec4 ballot = subgroupBallot(p);
    b_ranks[k] = p ? kept + subgroupBallotExclusiveBitCount(ballot) : BALLOT_NONE;
    kept += subgroupBallotBitCount(ballot);
  }
  return subgroup_counts_exclusive(kept, total);
}

// Writes the ranked kept elements, the subgroup's first at g_dst[dst_offset + base].
void ballot_store_kept(uint base) {
  for (uint k = 0u; k < ITEMS; ++k)
    if (b_ranks[k] != BALLOT_NONE) g_dst[pc.dst_offset + base + b_ranks[k]] = b_values[k];
}

#endif
