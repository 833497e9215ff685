// Scans one value per subgroup across the workgroup (a SCAN_ELEMENT: T unless the kernel scans
// something else, scan_element.glsl). Each subgroup's elected invocation has stored its
// total in sh_subgroup_prefix[gl_SubgroupID]; after subgroup_totals_exclusive_scan() that array holds,
// per subgroup, the combination of all subgroups before it, and sh_total the workgroup's total.
// Works for any subgroup size, 4 to 128 included: when there are more subgroups than lanes in one
// (W = 1024 with subgroups of 4 gives 256), subgroup 0 walks the totals in chunks, carrying the sum.
// Call from uniform control flow; it starts and ends with barrier().
// Without subgroups (GPUSCAN_NO_SUBGROUPS) each invocation is one, and the totals are scanned in shared memory.
#ifndef GPUSCAN_SUBGROUP_TOTALS_GLSL
#define GPUSCAN_SUBGROUP_TOTALS_GLSL

#include "subgroup_basic.glsl"
#if !defined(GPUSCAN_NO_SUBGROUPS)
#extension GL_KHR_shader_subgroup_arithmetic : require
#endif

#include "scan_element.glsl"

shared SCAN_ELEMENT sh_total;

#if defined(GPUSCAN_NO_SUBGROUPS)
// One total per invocation (subgroup_basic.glsl): a Hillis-Steele scan of the W totals in shared memory,
// log2(W) steps, each combining the left neighbour at distance d in front (the order of the elements).
shared SCAN_ELEMENT sh_subgroup_prefix[gl_WorkGroupSize.x];

void subgroup_totals_exclusive_scan() {
  const uint lid = gl_LocalInvocationID.x;
  barrier();
  for (uint d = 1u; d < gl_WorkGroupSize.x; d <<= 1) {
    const SCAN_ELEMENT left = lid >= d ? sh_subgroup_prefix[lid - d] : scan_identity();
    barrier();
    if (lid >= d) sh_subgroup_prefix[lid] = scan_combine(left, sh_subgroup_prefix[lid]);
    barrier();
  }
  const SCAN_ELEMENT before = lid > 0u ? sh_subgroup_prefix[lid - 1u] : scan_identity();
  if (lid == gl_WorkGroupSize.x - 1u) sh_total = sh_subgroup_prefix[lid];
  barrier();
  sh_subgroup_prefix[lid] = before;
  barrier();
}
#else
// Subgroups have at least 4 invocations, so W / 4 totals at most (+1 keeps tiny W valid).
shared SCAN_ELEMENT sh_subgroup_prefix[gl_WorkGroupSize.x / 4u + 1u];

void subgroup_totals_exclusive_scan() {
  barrier();
  if (gl_SubgroupID == 0u) {
    SCAN_ELEMENT carry = scan_identity();
    for (uint chunk = 0u; chunk < gl_NumSubgroups; chunk += gl_SubgroupSize) {
      uint i = chunk + gl_SubgroupInvocationID;
      SCAN_ELEMENT v = i < gl_NumSubgroups ? sh_subgroup_prefix[i] : scan_identity();
      SCAN_ELEMENT before, total;
      scan_subgroup(v, before, total);
      if (i < gl_NumSubgroups) sh_subgroup_prefix[i] = scan_combine(carry, before);
      carry = scan_combine(carry, total);
    }
    if (subgroupElect()) sh_total = carry;
  }
  barrier();
}
#endif

#endif
