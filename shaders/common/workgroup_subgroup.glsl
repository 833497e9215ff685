// Exclusive scan of the 2·W values in sh_data built on subgroup operations: each invocation combines
// its two adjacent values, subgroups scan those pairs, and the per-subgroup totals are scanned across
// the workgroup (subgroup_totals.glsl). Returns the total of all 2·W values to every invocation.
//
// Positions come from (gl_SubgroupID, gl_SubgroupInvocationID), so the order of the scan is the order
// of the subgroup operations even if an implementation numbers local invocations differently.
#ifndef GPUSCAN_WORKGROUP_SUBGROUP_GLSL
#define GPUSCAN_WORKGROUP_SUBGROUP_GLSL

#include "subgroup_totals.glsl"

T workgroup_exclusive_scan(uint lid) {
  barrier();  // sh_data is complete
  const uint pos = gl_SubgroupID * gl_SubgroupSize + gl_SubgroupInvocationID;
  T x0 = sh_data[2u * pos];
  T x1 = sh_data[2u * pos + 1u];
  T pair = op_combine(x0, x1);
  T before_pair = SUBGROUP_EXCLUSIVE(pair);
  T subgroup_total = SUBGROUP_REDUCE(pair);
  if (subgroupElect()) sh_subgroup_prefix[gl_SubgroupID] = subgroup_total;
  subgroup_totals_exclusive_scan();

  T prefix = op_combine(sh_subgroup_prefix[gl_SubgroupID], before_pair);
  sh_data[2u * pos] = prefix;
  sh_data[2u * pos + 1u] = op_combine(prefix, x0);
  barrier();
  return sh_total;
}

#endif
