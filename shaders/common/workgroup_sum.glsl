// workgroup_exclusive_sum: one u32 per invocation summed across the workgroup in shared memory, with no
// subgroup operation (compaction's counts, the subgroup-free radix ranking's 1-bit splits).
#ifndef GPUSCAN_WORKGROUP_SUM_GLSL
#define GPUSCAN_WORKGROUP_SUM_GLSL

// Exclusive sum of one u32 per invocation in local invocation order (Hillis-Steele in shared memory,
// 2·log2(W) barriers); `total` receives the workgroup's sum. Call from uniform control flow.
shared uint sh_workgroup_sum[gl_WorkGroupSize.x];

uint workgroup_exclusive_sum(uint v, out uint total) {
  const uint lid = gl_LocalInvocationID.x;
  barrier();
  sh_workgroup_sum[lid] = v;
  for (uint d = 1u; d < gl_WorkGroupSize.x; d <<= 1) {
    barrier();
    const uint t = lid >= d ? sh_workgroup_sum[lid - d] : 0u;
    barrier();
    sh_workgroup_sum[lid] += t;
  }
  barrier();
  total = sh_workgroup_sum[gl_WorkGroupSize.x - 1u];
  const uint inclusive = sh_workgroup_sum[lid];
  barrier();
  return inclusive - v;
}

#endif
