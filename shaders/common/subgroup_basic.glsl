// Where an invocation sits among the subgroups of its workgroup, for the tile layers (tile_layout.glsl,
// subgroup_totals.glsl, tile.glsl, scan_element.glsl). Normally GL_KHR_shader_subgroup's built-ins.
// With GPUSCAN_NO_SUBGROUPS (OpenGL variants for drivers without the extension, such as llvmpipe's;
// cmake/Shaders.cmake builds them) every invocation is a subgroup of its own: the subgroup scans become
// trivial and subgroup_totals.glsl combines the W per-invocation totals in shared memory.
#ifndef GPUSCAN_SUBGROUP_BASIC_GLSL
#define GPUSCAN_SUBGROUP_BASIC_GLSL

#if defined(GPUSCAN_NO_SUBGROUPS)
#define SUBGROUP_ID gl_LocalInvocationID.x
#define SUBGROUP_SIZE 1u
#define SUBGROUP_LANE 0u
#define NUM_SUBGROUPS gl_WorkGroupSize.x
#define SUBGROUP_ELECT() true
#else
#extension GL_KHR_shader_subgroup_basic : require
#define SUBGROUP_ID gl_SubgroupID
#define SUBGROUP_SIZE gl_SubgroupSize
#define SUBGROUP_LANE gl_SubgroupInvocationID
#define NUM_SUBGROUPS gl_NumSubgroups
#define SUBGROUP_ELECT() subgroupElect()
#endif

#endif
