#version 450
// Segmented reduction by offsets, pass 3 of 3 (after seg_offsets_tiles.comp and the segmented scan of
// the tiles' totals): where tile t left a piece -- a segment that started in an earlier tile and ends in
// t -- its result is the scan of the tiles before t (src[t - 1], inclusive: the segment's elements in
// those tiles) combined with the piece. One invocation per tile; tile 0 never leaves one (element 0
// starts a run).
//
// Bindings: 0 the scanned tile totals, 1 the S results, 2 (aux) the pieces from aux_offset, 3 unread,
// 4 the pieces' segments (u32, from heads_offset; NO_PIECE where none).
#extension GL_GOOGLE_include_directive : require

#include "common/backend.glsl"
LOCAL_SIZE_X_FROM(0);

#include "common/ops.glsl"

#define PASS_PARAMS_EXTRA uint heads_offset;
#include "common/pass_io.glsl"

layout(binding = 4, std430) readonly buffer PieceSegments { uint g_piece_segments[]; };

const uint NO_PIECE = 0xffffffffu;

void main() {
  pass_begin();
  const uint block = linear_block_index();
  if (block >= g_pass_blocks) return;
  const uint t = block * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
  if (t == 0u || t >= g_pass_n) return;
  const uint s = g_piece_segments[pc.heads_offset + t];
  if (s != NO_PIECE) dst_put(s, op_combine(src_at(t - 1u), g_aux[pc.aux_offset + t]));
}
