// The ballot path of stream compaction: subgroup s of a tile owns VECTORS_PER_LANE rows of S = min(subgroup
// size, W) consecutive 4-element vectors, lane l the l-th vector of each row (row k starts at tile
// vector (s·K + k)·S), so loads are coalesced 16-byte loads and the element order is (subgroup, row,
// lane, component). In a row, one ballot per component gives, by subgroupBallotExclusiveBitCount, the
// kept elements of the lanes before this one, and subgroupBallotBitCount the row's count; rows
// accumulate per subgroup, and the subgroups' counts are scanned across the workgroup in shared
// memory. Ballots are uvec4, so subgroups of 4 to 128 invocations all work.
#ifndef GPUSCAN_BALLOT_GLSL
#define GPUSCAN_BALLOT_GLSL

#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_ballot : require

uint ballot_lanes() { return min(gl_SubgroupSize, gl_WorkGroupSize.x); }

// Index (in the whole array) of the first element of this invocation's vector in row k of `tile`.
uint ballot_first(uint tile, uint k) {
  return tile * tile_elements() + ((gl_SubgroupID * VECTORS_PER_LANE + k) * ballot_lanes() + gl_SubgroupInvocationID) * 4u;
}

// A tile's rows are loaded in one go where the whole tile lies below n and is vector-aligned
// (ballot_load_tile), and row by row, each element guarded, only in a tile at the end of the input. Row
// by row, NVIDIA's compile issued each row's loads only after the previous row's ballots, so a tile's
// loads were not in flight together: loading every row first made the single-pass select-if 25-29 %
// faster on the H200 at 2^24 and 2^28 with the same registers, select-flagged 6-7 % and the three-pass
// kernels 2-16 % (bench/RESULTS.md; the single-pass kernel at K = 4 keeps loading row by
// row: compact_stage.glsl). The rows are only loaded there; ballot_row_keep applies the predicate beside
// each row's ballots (evaluating every row's predicate first, into an array, took NVIDIA's compile
// 88-164 registers and was 30-50 % slower).
//
// Returns whether `tile` is loaded whole: `hoist` (the caller's choice) and the tile whole and aligned.
// Then this invocation's rows are loaded -- the values (with flags only where `load` is LOAD_ALL) and
// with flags the flags; otherwise `values` and `flags` are zero and ballot_row_keep loads row by row.
bool ballot_load_tile(uint tile, bool hoist, uint load, out EVEC4 values[VECTORS_PER_LANE],
                      out uvec4 flags[VECTORS_PER_LANE]) {
  const uint first = tile * tile_elements();
  const bool whole = hoist && VECTOR_ALIGNED && first < g_n && g_n - first >= tile_elements();
  for (uint k = 0u; k < VECTORS_PER_LANE; ++k) {
    values[k] = evec4_zero();
    flags[k] = uvec4(0u);
  }
  if (whole) {
    for (uint k = 0u; k < VECTORS_PER_LANE; ++k) {
      const uint e = ballot_first(tile, k);
      if (PREDICATE != PRED_FLAGGED || load == LOAD_ALL) values[k] = src_vector(e);
      if (PREDICATE == PRED_FLAGGED) flags[k] = flags_vector(e);
    }
  }
  return whole;
}

// Which of row k's four elements are kept: in a whole tile from the rows ballot_load_tile loaded
// (`values`, `flags`; with flags and LOAD_KEPT the values are loaded here, where one of the four is
// kept, as compact_keep4 does), elsewhere loaded now into `values` (compact_keep4).
bvec4 ballot_row_keep(bool whole, uint tile, uint k, uint load, inout EVEC4 values, uvec4 flags) {
  if (!whole) return compact_keep4(ballot_first(tile, k), load, values);
  if (PREDICATE != PRED_FLAGGED) return compact_keep_values4(ballot_first(tile, k), values);
  const bvec4 kept = notEqual(flags, uvec4(0u));
  if (load == LOAD_KEPT && any(kept)) values = src_vector(ballot_first(tile, k));
  return kept;
}

// For each of this invocation's four elements of a row, the number of the row's kept elements before
// it (kept or not); `row_count` the row's kept elements. Call from uniform control flow.
uvec4 ballot_row_ranks(bvec4 kept, out uint row_count) {
  const uvec4 b0 = subgroupBallot(kept.x), b1 = subgroupBallot(kept.y), b2 = subgroupBallot(kept.z),
              b3 = subgroupBallot(kept.w);
  row_count = subgroupBallotBitCount(b0) + subgroupBallotBitCount(b1) + subgroupBallotBitCount(b2) +
              subgroupBallotBitCount(b3);
  const uint before = subgroupBallotExclusiveBitCount(b0) + subgroupBallotExclusiveBitCount(b1) +
                      subgroupBallotExclusiveBitCount(b2) + subgroupBallotExclusiveBitCount(b3);
  const uvec4 own = uvec4(kept);
  return uvec4(before, before + own.x, before + own.x + own.y, before + own.x + own.y + own.z);
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

// Selection (compact_scatter.comp and compact_single_pass.comp): this invocation's vectors of a tile,
// their bits (where loaded) and the kept elements' ranks among the subgroup's kept elements
// (BALLOT_NONE where not kept).
const uint BALLOT_NONE = 0xffffffffu;
EVEC4 b_values[VECTORS_PER_LANE];
uvec4 b_ranks[VECTORS_PER_LANE];
uint b_tile;  // the tile they belong to (in this dispatch)

// Loads and ranks the kept elements of `tile` into b_values / b_ranks. Returns, to every invocation,
// the number of the tile's kept elements before its subgroup's; `total` the tile's. Call from uniform
// control flow.
uint ballot_rank_kept(uint tile, out uint total) {
  uvec4 flags[VECTORS_PER_LANE];
  b_tile = tile;
  const bool whole = ballot_load_tile(tile, true, LOAD_KEPT, b_values, flags);
  uint kept = 0u;  // the subgroup's kept elements so far (uniform in the subgroup)
  for (uint k = 0u; k < VECTORS_PER_LANE; ++k) {
    const bvec4 p = ballot_row_keep(whole, tile, k, LOAD_KEPT, b_values[k], flags[k]);
    uint row_count;
    const uvec4 ranks = ballot_row_ranks(p, row_count) + kept;
    b_ranks[k] = uvec4(p.x ? ranks.x : BALLOT_NONE, p.y ? ranks.y : BALLOT_NONE, p.z ? ranks.z : BALLOT_NONE,
                       p.w ? ranks.w : BALLOT_NONE);
    kept += row_count;
  }
  return subgroup_counts_exclusive(kept, total);
}

// Writes the ranked kept elements, the subgroup's first at output element `base`.
void ballot_store_kept(uint base) {
  const uint window_first = pc.tile_base * tile_elements();
  for (uint k = 0u; k < VECTORS_PER_LANE; ++k)
    for (uint c = 0u; c < 4u; ++c)
      if (b_ranks[k][c] != BALLOT_NONE)
        store_kept(base + b_ranks[k][c], window_first + ballot_first(b_tile, k) + c, evec4_at(b_values[k], c));
}

#endif
