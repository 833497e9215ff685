#version 450
// Stream compaction, pass 1: the number of kept elements of every tile goes to g_aux[aux_offset + tile]
// (u32). COMPACT_BALLOT counts with subgroup ballots, COMPACT_SHARED with a shared-memory atomic only.
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
#include "common/compact_tile.glsl"

void main() {
  compact_begin();
  const uint tile = linear_block_index();
  if (tile >= g_blocks) return;
  const uint kept = count_kept(tile);
  if (gl_LocalInvocationID.x == 0u) g_aux[pc.aux_offset + tile] = kept;
}
