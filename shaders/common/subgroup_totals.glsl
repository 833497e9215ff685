// Scans one value per subgroup across the workgroup. Each subgroup's elected invocation has stored its
// total in sh_subgroup_prefix[gl_SubgroupID]; after subgroup_totals_exclusive_scan() that array holds,
// per subgroup, the combination of all subgroups before it, and sh_total the workgroup's total.
// Works for any subgroup size, 4 to 128 included: when there are more subgroups than lanes in one
// (W = 1024 with subgroups of 4 gives 256), subgroup 0 walks the totals in chunks, carrying the sum.
// Call from uniform control flow; it starts and ends with barrier().
#ifndef GPUSCAN_SUBGROUP_TOTALS_GLSL
#define GPUSCAN_SUBGROUP_TOTALS_GLSL

#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require

// Subgroups have at least 4 invocations, so W / 4 totals at most (+1 keeps tiny W valid).
shared T sh_subgroup_prefix[gl_WorkGroupSize.x / 4u + 1u];
shared T sh_total;

void subgroup_totals_exclusive_scan() {
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
}

#endif
