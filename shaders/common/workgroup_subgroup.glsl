// Exclusive scan of the 2·W values in sh_data built on subgroup operations: each invocation combines
// its two adjacent values, subgroups scan those pairs, and subgroup 0 scans the per-subgroup totals.
// Works for any subgroup size, 4 to 128 included: when there are more subgroups than lanes in one
// (W = 1024 with subgroups of 4 gives 256), subgroup 0 walks the totals in chunks, carrying the sum.
// Returns the total of all 2·W values to every invocation.
//
// Positions come from (gl_SubgroupID, gl_SubgroupInvocationID), so the order of the scan is the order
// of the subgroup operations even if an implementation numbers local invocations differently.
#ifndef GPUSCAN_WORKGROUP_SUBGROUP_GLSL
#define GPUSCAN_WORKGROUP_SUBGROUP_GLSL

#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require

// Subgroups have at least 4 invocations, so W / 4 totals at most (one more for W < 4 stays safe).
shared T sh_subgroup_prefix[gl_WorkGroupSize.x / 4u + 1u];
shared T sh_total;

T workgroup_exclusive_scan(uint lid) {
  barrier();  // sh_data is complete
  const uint pos = gl_SubgroupID * gl_SubgroupSize + gl_SubgroupInvocationID;
  T x0 = sh_data[2u * pos];
  T x1 = sh_data[2u * pos + 1u];
  T pair = op_combine(x0, x1);
  T before_pair = SUBGROUP_EXCLUSIVE(pair);
  T subgroup_total = SUBGROUP_REDUCE(pair);
  if (subgroupElect()) sh_subgroup_prefix[gl_SubgroupID] = subgroup_total;
  barrier();

  if (gl_SubgroupID == 0u) {
    T carry = op_identity();
    for (uint chunk = 0u; chunk < gl_NumSubgroups; chunk += gl_SubgroupSize) {
      uint i = chunk + gl_SubgroupInvocationID;
      T v = i < gl_NumSubgroups ? sh_subgroup_prefix[i] : op_identity();
      T before = SUBGROUP_EXCLUSIVE(v);
      if (i < gl_NumSubgroups) sh_subgroup_prefix[i] = op_combine(carry, before);
      carry = op_combine(carry, SUBGROUP_REDUCE(v));
    }
    if (subgroupElect()) sh_total = carry;
  }
  barrier();

  T prefix = op_combine(sh_subgroup_prefix[gl_SubgroupID], before_pair);
  sh_data[2u * pos] = prefix;
  sh_data[2u * pos + 1u] = op_combine(prefix, x0);
  barrier();
  return sh_total;
}

#endif
