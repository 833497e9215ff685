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
  if (pc.n == 0u) {
    if (gl_WorkGroupID.x == 0u && gl_WorkGroupID.y == 0u && gl_LocalInvocationID.x == 0u)
      g_count[pc.count_offset] = 0u;
    return;
  }
  const uint tile = linear_block_index();
  if (tile >= pc.blocks) return;
#if defined(COMPACT_PARTITION)
  const uint tile_offset = tile == 0u ? 0u : g_aux[pc.aux_offset + tile - 1u];
  const uint all_kept = g_aux[pc.aux_offset + pc.blocks - 1u];
#else
  const uint tile_offset = g_aux[pc.aux_offset + tile];
#endif
  uint total;
#if defined(COMPACT_BALLOT) && defined(COMPACT_PARTITION)
  T values[ITEMS];
  uint ranks[ITEMS];  // kept elements of the subgroup before this one (kept or not)
  bool keep[ITEMS];
  uint kept = 0u;
  for (uint k = 0u; k < ITEMS; ++k) {
    const uint i = ballot_element(tile, k);
    const bool p = i < pc.n && compact_keep(i, false, values[k]);
    if (i < pc.n) values[k] = g_src[pc.src_offset + i];
    keep[k] = p;
    const uvec4 ballot = subgroupBallot(p);
    ranks[k] = kept + subgroupBallotExclusiveBitCount(ballot);
    kept += subgroupBallotBitCount(ballot);
  }
  const uint base = tile_offset + subgroup_counts_exclusive(kept, total);
  for (uint k = 0u; k < ITEMS; ++k) {
    const uint i = ballot_element(tile, k);
    if (i >= pc.n) continue;
    const uint before = base + ranks[k];
    g_dst[pc.dst_offset + (keep[k] ? before : all_kept + (i - before))] = values[k];
  }
#elif defined(COMPACT_BALLOT)
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
#if defined(COMPACT_PARTITION)
    if (i >= pc.n) continue;
    const bool p = compact_keep(i, false, v);
    v = g_src[pc.src_offset + i];
    if (p) g_dst[pc.dst_offset + at++] = v;
    else g_dst[pc.dst_offset + all_kept + (i - at)] = v;
#else
    if (i < pc.n && compact_keep(i, true, v)) g_dst[pc.dst_offset + at++] = v;
#endif
  }
#endif
  if (tile == pc.blocks - 1u && gl_LocalInvocationID.x == 0u) g_count[pc.count_offset] = tile_offset + total;
}
