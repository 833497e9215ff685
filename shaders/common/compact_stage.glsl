// Staged selection (compact_single_pass.comp): a tile's kept elements are ranked with ballots in
// registers (common/ballot.glsl's layout), gathered in tile order into shared memory, and stored from
// there once the look-back has found where they go -- contiguous, coalesced stores of one element per
// invocation and step instead of scattered ones. In registers a tile takes its values and one word per
// row; while the tile loop (common/tile_loop.glsl) holds a tile, it waits in shared memory, so the
// next tile's loads have the registers to themselves.
//
// Needs W·K·4 elements of shared memory for the stage (W·K·16 bytes, W·K·32 for 8-byte elements: the host
// refuses shapes that do not fit, core::compact_single_pass_shared_bytes) and
// subgroup arithmetic (common/subgroup_totals.glsl scans the subgroups' counts). Include after
// common/ballot.glsl and common/subgroup_totals.glsl.
#ifndef GPUSCAN_COMPACT_STAGE_GLSL
#define GPUSCAN_COMPACT_STAGE_GLSL

EVEC4 st_values[VECTORS_PER_LANE];
// Per row: the subgroup's kept elements before this lane's first element of the row (bits 4..31; a tile
// has at most 2^16 elements) and which of the lane's four elements are kept (bits 0..3).
uint st_rows[VECTORS_PER_LANE];
uint st_subgroup_before;  // the tile's kept elements before this subgroup's
uint st_tile;             // the tile they belong to

shared EBITS sh_stage[gl_WorkGroupSize.x * VECTORS_PER_LANE * 4u];

// Combines the subgroups' kept counts across the workgroup: returns the tile's kept count to every
// invocation and leaves the count before this subgroup in `before_subgroup`. Call from uniform control
// flow.
uint stage_subgroups_total(uint kept, out uint before_subgroup) {
  if (subgroupElect()) sh_subgroup_prefix[gl_SubgroupID] = kept;
  subgroup_totals_exclusive_scan();
  before_subgroup = sh_subgroup_prefix[gl_SubgroupID];
  const uint total = sh_total;
  barrier();  // sh_subgroup_prefix and sh_total are free for the next use
  return total;
}

// Loads and ranks the kept elements of `tile` into st_values / st_rows / st_subgroup_before; returns the
// tile's kept count to every invocation. Call from uniform control flow.
uint stage_rank(uint tile) {
  // With flags, the values are loaded beside them rather than after them where one is set: one round
  // trip to memory instead of two per row. On the H200 11 % faster at half kept and no slower at 1 %
  // (2^24, 2^28; bench/RESULTS.md), although it reads every value. Loading every row's flags,
  // ranking, then the values of the rows with one kept: 2-4 % slower at half kept, 6-8 % faster at 1 %.
  // Only large tiles (K >= 8, the default above 2^23) load all their rows before the first ballot: at
  // K = 4 that made 2^20 5-14 % slower.
  uvec4 flags[VECTORS_PER_LANE];
  st_tile = tile;
  const bool whole = ballot_load_tile(tile, VECTORS_PER_LANE >= 8u, LOAD_ALL, st_values, flags);
  uint kept = 0u;  // the subgroup's kept elements so far (uniform in the subgroup)
  for (uint k = 0u; k < VECTORS_PER_LANE; ++k) {
    const bvec4 p = ballot_row_keep(whole, tile, k, LOAD_ALL, st_values[k], flags[k]);
    uint row_count;
    const uint before = ballot_row_ranks(p, row_count).x + kept;
    st_rows[k] = (before << 4) | uint(p.x) | (uint(p.y) << 1) | (uint(p.z) << 2) | (uint(p.w) << 3);
    kept += row_count;
  }
  return stage_subgroups_total(kept, st_subgroup_before);
}

// Moves the ranked tile into sh_stage in output order: the kept elements' bits, or with OUT_INDICES
// their input indices. Call from uniform control flow, once every invocation is done reading the
// previous tile from the stage; the stage is complete after the next barrier().
void stage_gather() {
  for (uint k = 0u; k < VECTORS_PER_LANE; ++k) {
    const uint row = st_rows[k];
    uint place = st_subgroup_before + (row >> 4);
    for (uint c = 0u; c < 4u; ++c) {
      if ((row & (1u << c)) == 0u) continue;
      sh_stage[place++] = (OUTPUTS & OUT_INDICES) != 0u ? index_as_bits(ballot_first(st_tile, k) + c)
                                                         : evec4_at(st_values[k], c);
    }
  }
}

// Stores the staged tile's `count` kept elements, the first at output element `first`. With
// OUT_INDICES and OUT_VALUES the values are read again from the input at the staged indices: the tile
// was loaded moments before, so from cache, and the stage stays one word (two for 8-byte elements) per
// element. Call after a barrier() that follows stage_gather().
void stage_store(uint first, uint count) {
  for (uint i = gl_LocalInvocationID.x; i < count; i += gl_WorkGroupSize.x) {
    const EBITS staged = sh_stage[i];
    if ((OUTPUTS & OUT_INDICES) == 0u) {
      store_out(first + i, staged);
      continue;
    }
    const uint at = bits_as_index(staged);
    store_kept(first + i, at, (OUTPUTS & OUT_VALUES) != 0u ? g_src[pc.src_offset + at] : EBITS(0u));
  }
}

// The kept count of stage_rank, for the look-back's fallback: one row in registers at a time (a loop
// the compiler is asked not to unroll), as tile.glsl's tile_total, so that the rare fallback does not
// set the kernel's register count while a ranked tile sits in registers.
uint stage_count(uint tile) {
  uint kept = 0u;
  DONT_UNROLL for (uint k = 0u; k < VECTORS_PER_LANE; ++k) {
    EVEC4 values;
    uint row_count;
    ballot_row_ranks(compact_keep4(ballot_first(tile, k), LOAD_NONE, values), row_count);
    kept += row_count;
  }
  uint before_subgroup;  // not needed: only the total counts here
  return stage_subgroups_total(kept, before_subgroup);
}

#endif
