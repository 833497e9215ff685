// Blelloch's work-efficient exclusive scan of the 2·W values in sh_data by the W invocations of a
// workgroup: up-sweep builds a reduction tree in place, the root is cleared to the identity, and the
// down-sweep pushes prefixes back to the leaves. barrier() separates every step.
// Returns the total of all 2·W values (the root before it is cleared) to every invocation.
#ifndef GPUSCAN_WORKGROUP_BLELLOCH_GLSL
#define GPUSCAN_WORKGROUP_BLELLOCH_GLSL

T workgroup_exclusive_scan(uint lid) {
  const uint size = 2u * gl_WorkGroupSize.x;
  uint stride = 1u;
  for (uint nodes = size >> 1; nodes > 0u; nodes >>= 1) {
    barrier();
    if (lid < nodes) {
      uint left = stride * (2u * lid + 1u) - 1u;
      uint right = left + stride;
      sh_data[right] = op_combine(sh_data[left], sh_data[right]);
    }
    stride <<= 1;
  }
  barrier();
  T total = sh_data[size - 1u];
  barrier();  // every invocation has read the root before it is cleared
  if (lid == 0u) sh_data[size - 1u] = op_identity();

  for (uint nodes = 1u; nodes < size; nodes <<= 1) {
    stride >>= 1;
    barrier();
    if (lid < nodes) {
      uint left = stride * (2u * lid + 1u) - 1u;
      uint right = left + stride;
      T left_sum = sh_data[left];
      sh_data[left] = sh_data[right];                         // parent's prefix goes left
      sh_data[right] = op_combine(sh_data[right], left_sum);  // right gets prefix + left subtree
    }
  }
  barrier();
  return total;
}

#endif
