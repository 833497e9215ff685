// The one place where the two APIs that run these shaders differ, so that every algorithm exists once.
//   Vulkan (glslc -> SPIR-V): specialization constants, push constants, descriptor set 0 (the default).
//   OpenGL (-DGPUSCAN_GL, assembled by src/gl/program_source.cpp at run time and compiled by the GL
//   driver): the constants are #defines GPUSCAN_SPEC_<id> in a preamble gpuscan puts after #version,
//   and the parameters a std140 uniform block at binding 0 (a block of uints has the push constants'
//   layout).
//   SPEC_CONSTANT(3, uint, VECTORS_PER_LANE, 4u);  LOCAL_SIZE_X_FROM(0);  PARAMS_BLOCK uniform P { ... } pc;
#ifndef GPUSCAN_BACKEND_GLSL
#define GPUSCAN_BACKEND_GLSL

#if defined(GPUSCAN_GL)
#define SPEC_CONSTANT(id, type, name, value) const type name = type(GPUSCAN_SPEC_##id)
#define LOCAL_SIZE_X_FROM(id) layout(local_size_x = GPUSCAN_SPEC_##id) in
#define PARAMS_BLOCK layout(std140, binding = 0)
#else
#define SPEC_CONSTANT(id, type, name, value) layout(constant_id = id) const type name = value
#define LOCAL_SIZE_X_FROM(id) layout(local_size_x_id = id) in
#define PARAMS_BLOCK layout(push_constant)
#endif

// A loop the compiler should not unroll, or should (hints; OpenGL drivers need not know the attribute).
#if defined(GPUSCAN_GL)
#define DONT_UNROLL
#define UNROLL
#else
#extension GL_EXT_control_flow_attributes : require
#define DONT_UNROLL [[dont_unroll]]
#define UNROLL [[unroll]]
#endif

#endif
