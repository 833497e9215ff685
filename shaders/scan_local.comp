#version 450
// Pass 1 of the multi-pass scan (and the whole scan when one block holds everything): every workgroup
// scans one block of B = 2·W elements from src into dst and, when WRITE_BLOCK_SUMS is set, writes the
// block's total to g_aux[aux_offset + block] for the next level.
#extension GL_GOOGLE_include_directive : require

#include "common/backend.glsl"
LOCAL_SIZE_X_FROM(0);
SPEC_CONSTANT(1, bool, INCLUSIVE, false);
SPEC_CONSTANT(2, bool, WRITE_BLOCK_SUMS, false);

#include "common/ops.glsl"
#include "common/pass_io.glsl"
#include "common/workgroup_scan.glsl"

void main() {
  pass_begin();
  const uint block = linear_block_index();
  if (block >= g_pass_blocks) return;  // whole workgroup leaves together: no barrier is skipped by half of it
  const uint W = gl_WorkGroupSize.x;
  const uint lid = gl_LocalInvocationID.x;
  const uint base = block * 2u * W;

  // Coalesced: neighbouring invocations read neighbouring elements.
  T a = load_src_or_identity(base + lid);
  T b = load_src_or_identity(base + lid + W);
  sh_data[lid] = a;
  sh_data[lid + W] = b;

  T total = workgroup_exclusive_scan(lid);

  T out_a = sh_data[lid];
  T out_b = sh_data[lid + W];
  if (INCLUSIVE) {
    out_a = op_combine(out_a, a);
    out_b = op_combine(out_b, b);
  }
  store_dst_guarded(base + lid, with_initial(out_a));
  store_dst_guarded(base + lid + W, with_initial(out_b));
  if (WRITE_BLOCK_SUMS && lid == 0u) g_aux[pc.aux_offset + block] = total;
}
