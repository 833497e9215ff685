// The workgroup-level scan used by tile passes: sh_data holds a tile of 2·W elements, and
// workgroup_exclusive_scan(lid) replaces it with its exclusive scan and returns the tile's total.
// WORKGROUP_BLELLOCH or WORKGROUP_SUBGROUP (from the manifest) picks the implementation.
#ifndef GPUSCAN_WORKGROUP_SCAN_GLSL
#define GPUSCAN_WORKGROUP_SCAN_GLSL

shared T sh_data[2u * gl_WorkGroupSize.x];

#if defined(WORKGROUP_BLELLOCH)
#include "workgroup_blelloch.glsl"
#elif defined(WORKGROUP_SUBGROUP)
#include "workgroup_subgroup.glsl"
#else
#error "define WORKGROUP_BLELLOCH or WORKGROUP_SUBGROUP"
#endif

#endif
