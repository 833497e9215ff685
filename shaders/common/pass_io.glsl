// What every pass shares: the push constants the plan fills in (src/vulkan/record.cpp), the three
// storage buffers, and the mapping of a possibly two-dimensional grid onto linear block indices.
//
// Buffers are bound at an offset rounded down to minStorageBufferOffsetAlignment; the element offsets
// below point at the caller's exact byte offset inside that binding, so callers need only
// element-size alignment. src and dst may be the same buffer (in-place), hence no `restrict`.
//
// Kernels reach src and dst only through the accessors below (src_at, dst_at, dst_put; the vector ones
// in tile_layout.glsl). With ADDRESS_DEVICE (the ".bda" variants of shaders/variants.cmake) they go
// through GL_EXT_buffer_reference instead of bindings 0 and 1: the host passes 64-bit base addresses
// (vkGetBufferDeviceAddress of the caller's buffer + the byte offset of this pass's array, summed in
// 64 bits on the host) and the shader indexes from there with 32-bit element indices, so one pass still
// covers at most 2^31 elements but is no longer limited by maxStorageBufferRange. aux and binding 3
// (temporaries, never larger than a binding) stay bindings in both variants.
#ifndef GPUSCAN_PASS_IO_GLSL
#define GPUSCAN_PASS_IO_GLSL

#include "backend.glsl"

PARAMS_BLOCK uniform PassParams {
  uint n;           // elements in this pass's array
  uint src_offset;  // element offset of the array inside binding 0
  uint dst_offset;  // ... inside binding 1
  uint aux_offset;  // element offset of the block sums inside binding 2
  uint groups_x;    // grid width, to linearize a 2-D grid
  uint blocks;      // number of real blocks; workgroups past it exit at once
  uint has_initial; // 1 on the root dispatch of a scan given a carry-in (ScanArgs::initial_bits);
                    // 2 where it is g_carry[initial_lo] (a windowed scan's running total, core/windows.hpp)
  uint initial_lo;  // the carry-in's bit pattern: low word, then the high word of 64-bit types
  uint initial_hi;
  uint dynamic;     // 0: n, blocks and groups_x above hold; else 1 + the index in g_words of this
                    // dispatch's (n, blocks, groups_x), written on the GPU (indirect counts, core/indirect.hpp)
#if defined(PASS_PARAMS_EXTRA)
  PASS_PARAMS_EXTRA  // a kernel family's own words after these (segmented.glsl: heads_offset, heads_before)
#endif
#if defined(ADDRESS_DEVICE)
  // Words 12-15 (src/vulkan/context_impl.hpp, push_constant_words): low word first.
  layout(offset = 48) uvec2 src_address;
  uvec2 dst_address;
#endif
} pc;

#if defined(ADDRESS_DEVICE)
#include "bda.glsl"
// src_offset and dst_offset are 0 here: the addresses point at element 0 of the pass's arrays, which
// are element-aligned (and vector-aligned where VECTOR_ALIGNED says so, tile_layout.glsl).
#if defined(TYPE_U64) || defined(TYPE_I64) || defined(TYPE_F64)
#define BDA_ELEMENT_ALIGN 8  // also the element size: only the built-in types take this path
#define BDA_VECTOR_ALIGN 32
#else
#define BDA_ELEMENT_ALIGN 4
#define BDA_VECTOR_ALIGN 16
#endif
layout(buffer_reference, std430, buffer_reference_align = BDA_ELEMENT_ALIGN) readonly buffer SrcElements { T v[]; };
layout(buffer_reference, std430, buffer_reference_align = BDA_ELEMENT_ALIGN) buffer DstElements { T v[]; };
T src_at(uint i) { return SrcElements(bda_address(pc.src_address, i, BDA_ELEMENT_ALIGN)).v[0]; }
T dst_at(uint i) { return DstElements(bda_address(pc.dst_address, i, BDA_ELEMENT_ALIGN)).v[0]; }
void dst_put(uint i, T value) { DstElements(bda_address(pc.dst_address, i, BDA_ELEMENT_ALIGN)).v[0] = value; }
#else
layout(binding = 0, std430) readonly buffer SrcBuffer { T g_src[]; };
layout(binding = 1, std430) buffer DstBuffer { T g_dst[]; };
T src_at(uint i) { return g_src[pc.src_offset + i]; }
T dst_at(uint i) { return g_dst[pc.dst_offset + i]; }
void dst_put(uint i, T value) { g_dst[pc.dst_offset + i] = value; }
#endif
layout(binding = 2, std430) buffer AuxBuffer { T g_aux[]; };
// Binding 3: a windowed scan's running total, or an indirect scan's per-level parameters; every scan
// dispatch binds something here (the source when unused).
layout(binding = 3, std430) readonly buffer CarryBuffer { T g_carry[]; };
layout(binding = 3, std430) readonly buffer DynamicWords { uint g_words[]; };

// This dispatch's array length, number of real blocks and grid width: the push constants', or with
// pc.dynamic those an earlier dispatch computed from a count in GPU memory. pass_begin() sets them;
// every kernel calls it first.
uint g_pass_n;
uint g_pass_blocks;
uint g_pass_groups_x;

void pass_begin() {
  if (pc.dynamic == 0u) {
    g_pass_n = pc.n;
    g_pass_blocks = pc.blocks;
    g_pass_groups_x = pc.groups_x;
  } else {
    g_pass_n = g_words[pc.dynamic - 1u];
    g_pass_blocks = g_words[pc.dynamic];
    g_pass_groups_x = g_words[pc.dynamic + 1u];
  }
}

// Grids wider than maxComputeWorkGroupCount[0] are dispatched as (groups_x, groups_y); the last row may
// be partly past the end, which the caller checks against g_pass_blocks.
uint linear_block_index() {
  return gl_WorkGroupID.y * g_pass_groups_x + gl_WorkGroupID.x;
}

// The carry-in this dispatch puts in front of everything (core::Dispatch::root): the identity unless
// it has one. with_initial(v) combines it in front of v, and leaves v untouched without one (0.0 + -0.0
// would not).
T pass_initial() {
  if (pc.has_initial == 2u) return g_carry[pc.initial_lo];
  return pc.has_initial != 0u ? from_words(uvec2(pc.initial_lo, pc.initial_hi)) : op_identity();
}
T with_initial(T v) { return pc.has_initial != 0u ? op_combine(pass_initial(), v) : v; }

// Out-of-range lanes read the identity so they cannot change a scan or a block total. (Not `?:`: glslang
// 11 and 12 emit an invalid store for it when T is a struct, the buffer's and the function's types differing.)
T load_src_or_identity(uint i) {
  if (i < g_pass_n) return src_at(i);
  return op_identity();
}

void store_dst_guarded(uint i, T value) {
  if (i < g_pass_n) dst_put(i, value);
}

#endif
