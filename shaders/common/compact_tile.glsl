// What a compaction pass does with a whole tile, on either path: count its kept elements
// (compact_count.comp; the single-pass plan's fallback counts row by row instead, compact_stage.glsl's
// stage_count). Include after common/compact.glsl and, for COMPACT_BALLOT, common/ballot.glsl.
#ifndef GPUSCAN_COMPACT_TILE_GLSL
#define GPUSCAN_COMPACT_TILE_GLSL

shared uint sh_tile_count;

// The number of kept elements of `tile`, returned to every invocation. COMPACT_BALLOT counts with four
// ballots per row of vectors of the ballot layout, COMPACT_SHARED each invocation over its ITEMS
// consecutive elements, with one shared-memory atomic per subgroup or invocation. Call from uniform
// control flow.
uint count_kept(uint tile) {
  if (gl_LocalInvocationID.x == 0u) sh_tile_count = 0u;
  barrier();
  uint kept = 0u;
  EBITS v;
#if defined(COMPACT_BALLOT)
  EVEC4 values[VECTORS_PER_LANE];
  uvec4 flags[VECTORS_PER_LANE];
  const bool whole = ballot_load_tile(tile, true, LOAD_NONE, values, flags);
  for (uint k = 0u; k < VECTORS_PER_LANE; ++k) {
    uint row_count;
    ballot_row_ranks(ballot_row_keep(whole, tile, k, LOAD_NONE, values[k], flags[k]), row_count);
    kept += row_count;
  }
  if (subgroupElect()) atomicAdd(sh_tile_count, kept);
#else
  const uint first = tile * tile_elements() + gl_LocalInvocationID.x * ITEMS;
  for (uint k = 0u; k < ITEMS; ++k) {
    const uint i = first + k;
    if (i < g_n && compact_keep(i, false, v)) ++kept;
  }
  atomicAdd(sh_tile_count, kept);
#endif
  barrier();
  const uint total = sh_tile_count;
  barrier();  // sh_tile_count is free for the next call
  return total;
}

#endif
