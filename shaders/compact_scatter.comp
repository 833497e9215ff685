#version 450
// Stream compaction, pass 3: every tile evaluates its predicate again and writes its kept elements, in
// order, from g_aux[aux_offset + tile] (the exclusive scan of the tile counts) on. The last tile writes
// the number kept to g_count[count_offset]; with n == 0 the one workgroup writes 0 and nothing else.
//   COMPACT_BALLOT: ranks from subgroup ballots (common/ballot.glsl).
//   COMPACT_SHARED: invocation l owns ITEMS consecutive elements; the invocations' counts of 0/1 flags
//                   are scanned in shared memory. No subgroup operations.
//   COMPACT_PARTITION (compact_partition.*): g_aux holds the INCLUSIVE scan of the tile counts, so tile t
//                   starts at g_aux[t - 1] (0 for t = 0) and every tile reads the total kept from
//                   g_aux[blocks - 1]. Every element is written: a kept one at the number of kept
//                   elements before it, a rejected element i at total + (i - kept elements before i), so
//                   both parts keep their input order.
//   Windows (core::Dispatch::output_window): the dispatch covers one window of the input and binds one
//                   window of the output; elements bound elsewhere are skipped (store_out), and tiles
//                   that write nothing here return at once.
#extension GL_GOOGLE_include_directive : require

#include "common/backend.glsl"
LOCAL_SIZE_X_FROM(0);

#include "common/ops.glsl"
#include "common/compact.glsl"
#if defined(COMPACT_BALLOT)
#include "common/ballot.glsl"
#elif !defined(COMPACT_SHARED)
#error "define COMPACT_BALLOT or COMPACT_SHARED"
#endif

void main() {
  compact_begin();
  if (g_n == 0u) {
    if (gl_WorkGroupID.x == 0u && gl_WorkGroupID.y == 0u && gl_LocalInvocationID.x == 0u)
      g_count[pc.count_offset] = 0u;
    return;
  }
  const uint tile = linear_block_index();
  if (tile >= g_blocks) return;
  // The tile's index in the whole input, and its first element's (windows are whole tiles).
  const uint whole_tile = pc.tile_base + tile;
  const uint window_first = pc.tile_base * tile_elements();
  const uint all_tiles = pc.all_tiles != 0u ? pc.all_tiles : g_blocks;
#if defined(COMPACT_PARTITION)
  const uint tile_offset = whole_tile == 0u ? 0u : g_aux[pc.aux_offset + whole_tile - 1u];
  const uint all_kept = g_aux[pc.aux_offset + all_tiles - 1u];
#else
  const uint tile_offset = g_aux[pc.aux_offset + whole_tile];
#endif
  // A windowed dispatch skips the tiles that write nothing into its output window (but never the last
  // tile, which writes the count, and whose end a selection's exclusive offsets do not hold).
  if (pc.dst_count != 0u && whole_tile + 1u < all_tiles) {
    const uint lo = pc.dst_base, hi = pc.dst_base + pc.dst_count;
#if defined(COMPACT_PARTITION)
    const uint kept_end = g_aux[pc.aux_offset + whole_tile];
    const uint first = window_first + tile * tile_elements();
    const uint rejected = all_kept + first - tile_offset;  // where the tile's first rejected element goes
    const uint rejected_end = rejected + tile_elements() - (kept_end - tile_offset);
    const bool writes = (tile_offset < hi && kept_end > lo && tile_offset < kept_end) ||
                        (rejected < hi && rejected_end > lo && rejected < rejected_end);
#else
    const uint kept_end = g_aux[pc.aux_offset + whole_tile + 1u];
    const bool writes = tile_offset < hi && kept_end > lo && tile_offset < kept_end;
#endif
    if (!writes) return;
  }
  uint total;
#if defined(COMPACT_BALLOT) && defined(COMPACT_PARTITION)
  EVEC4 values[VECTORS_PER_LANE];
  uvec4 ranks[VECTORS_PER_LANE];  // kept elements of the subgroup before each element (kept or not)
  bvec4 keep[VECTORS_PER_LANE];
  uvec4 flags[VECTORS_PER_LANE];
  const bool whole = ballot_load_tile(tile, true, LOAD_ALL, values, flags);
  uint kept = 0u;
  for (uint k = 0u; k < VECTORS_PER_LANE; ++k) {
    keep[k] = ballot_row_keep(whole, tile, k, LOAD_ALL, values[k], flags[k]);
    uint row_count;
    ranks[k] = ballot_row_ranks(keep[k], row_count) + kept;
    kept += row_count;
  }
  const uint base = tile_offset + subgroup_counts_exclusive(kept, total);
  for (uint k = 0u; k < VECTORS_PER_LANE; ++k)
    for (uint c = 0u; c < 4u; ++c) {
      const uint i = ballot_first(tile, k) + c;
      if (i >= g_n) continue;
      const uint before = base + ranks[k][c];
      store_out(keep[k][c] ? before : all_kept + (window_first + i - before), evec4_at(values[k], c));
    }
#elif defined(COMPACT_BALLOT)
  ballot_store_kept(tile_offset + ballot_rank_kept(tile, total));
#else
  const uint first = tile * tile_elements() + gl_LocalInvocationID.x * ITEMS;
  uint kept = 0u;
  EBITS v;
  for (uint k = 0u; k < ITEMS; ++k) {
    const uint i = first + k;
    if (i < g_n && compact_keep(i, false, v)) ++kept;
  }
  uint at = tile_offset + workgroup_exclusive_sum(kept, total);
  for (uint k = 0u; k < ITEMS; ++k) {
    const uint i = first + k;
#if defined(COMPACT_PARTITION)
    if (i >= g_n) continue;
    const bool p = compact_keep(i, false, v);
    v = g_src[pc.src_offset + i];
    if (p) store_out(at++, v);
    else store_out(all_kept + (window_first + i - at), v);
#else
    if (i < g_n && compact_keep(i, true, v)) store_kept(at++, window_first + i, v);
#endif
  }
#endif
  if (whole_tile == all_tiles - 1u && gl_LocalInvocationID.x == 0u) g_count[pc.count_offset] = tile_offset + total;
}
