// The 64-bit integer types (int64_t, uint64_t, i64vec4, ...) and packUint2x32 / unpackUint2x32, from the
// extension each API's GLSL has them in: GL_EXT_shader_explicit_arithmetic_types_int64 on Vulkan
// (shaderInt64), GL_ARB_gpu_shader_int64 on OpenGL (the host refuses u64 and i64 where the GL driver
// lacks it). Neither gives subgroup operations on them: common/ops.glsl asks Vulkan for those itself.
#ifndef GPUSCAN_INT64_TYPES_GLSL
#define GPUSCAN_INT64_TYPES_GLSL

#include "backend.glsl"

#if defined(GPUSCAN_GL)
#extension GL_ARB_gpu_shader_int64 : require
#else
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#endif

#endif
