#version 450
// Pass 3 of the multi-pass scan: block i of dst (B = 2·W elements) is combined, on the left, with the
// scanned total of all blocks before it, g_aux[aux_offset + i]. Block 0's offset is the identity.
#extension GL_GOOGLE_include_directive : require

#include "common/backend.glsl"
LOCAL_SIZE_X_FROM(0);

#include "common/ops.glsl"
#include "common/pass_io.glsl"

void main() {
  pass_begin();
  const uint block = linear_block_index();
  if (block >= g_pass_blocks) return;
  const uint W = gl_WorkGroupSize.x;
  const uint base = block * 2u * W;
  const T offset = g_aux[pc.aux_offset + block];
  for (uint k = 0u; k < 2u; ++k) {
    uint i = base + k * W + gl_LocalInvocationID.x;
    if (i < g_pass_n) dst_put(i, op_combine(offset, dst_at(i)));
  }
}
