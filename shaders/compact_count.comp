#version 450
// Stream compaction, pass 1: the number of kept elements of every tile goes to g_aux[aux_offset + tile]
// (u32, whatever T is). COMPACT_BALLOT counts with subgroup ballots, COMPACT_SHARED with a
// shared-memory atomic only.
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

shared uint sh_tile_count;

void main() {
  const uint tile = linear_block_index();
  if (tile >= pc.blocks) return;
  if (gl_LocalInvocationID.x == 0u) sh_tile_count = 0u;
  barrier();
  uint kept = 0u;
  T v;
#if defined(COMPACT_BALLOT)
  for (uint k = 0u; k < ITEMS; ++k) {
    const uint i = ballot_element(tile, k);
    const bool p = i < pc.n && compact_keep(i, false, v);
    kept += subgroupBallotBitCount(subgroupBallot(p));
  }
  if (subgroupElect()) atomicAdd(sh_tile_count, kept);
#else
  const uint first = tile * tile_elements() + gl_LocalInvocationID.x * ITEMS;
  for (uint k = 0u; k < ITEMS; ++k) {
    const uint i = first + k;
    if (i < pc.n && compact_keep(i, false, v)) ++kept;
  }
  atomicAdd(sh_tile_count, kept);
#endif
  barrier();
  if (gl_LocalInvocationID.x == 0u) g_aux[pc.aux_offset + tile] = sh_tile_count;
}
