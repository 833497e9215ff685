# The shader manifest: every SPIR-V module gpuscan embeds, as
# "name|entry file|DEFINE,DEFINE[|vulkan target]" (target default vulkan1.1; the single-pass scan runs
# only on Vulkan 1.2 devices, for shaderBufferInt64Atomics, so it is built for 1.2).
# Types change declarations, so they are -D defines expanded here; the operator (except in the single-pass
# scan, common/ops.glsl says why), workgroup size, inclusive/exclusive and whether a pass writes block sums
# are specialization constants (src/core/pipeline_key.hpp), so one module serves every operator of its type.
# Variant names are looked up as "<kernel>.<type>[.<op>][.<workgroup algorithm>]" (core::scan_variant_name).
# GPUSCAN_TYPES (CMakeLists.txt) limits the types built, for development builds; scans of a type left out
# throw Errc::unsupported. Pipelines are built from these modules on first use.
# u32 is always built: element counts, compaction's offsets and indirect counts are u32 scans.
set(GPUSCAN_ALL_TYPES u32 i32 f32 u64 i64 f64)
if(NOT DEFINED GPUSCAN_TYPES OR GPUSCAN_TYPES STREQUAL "")
  set(GPUSCAN_TYPES ${GPUSCAN_ALL_TYPES})
endif()
foreach(type IN LISTS GPUSCAN_TYPES)
  if(NOT type IN_LIST GPUSCAN_ALL_TYPES)
    message(FATAL_ERROR "GPUSCAN_TYPES: unknown type '${type}' (known: ${GPUSCAN_ALL_TYPES})")
  endif()
endforeach()
set(GPUSCAN_BUILT_TYPES u32)
foreach(type IN LISTS GPUSCAN_ALL_TYPES)
  if(type IN_LIST GPUSCAN_TYPES AND NOT type STREQUAL "u32")
    list(APPEND GPUSCAN_BUILT_TYPES ${type})
  endif()
endforeach()
set(GPUSCAN_SHADER_VARIANTS "")
foreach(type IN LISTS GPUSCAN_BUILT_TYPES)
  string(TOUPPER "${type}" TYPE)
  # The kernels that touch a scan's or reduction's caller buffers, once with bindings and once with
  # ".bda": src and dst through buffer device addresses (ADDRESS_DEVICE, common/pass_io.glsl; Vulkan 1.2).
  # The single-pass scans have theirs below.
  set(kernels "")
  foreach(wg blelloch subgroup)
    string(TOUPPER "${wg}" WG)
    list(APPEND kernels "scan_local.${type}.${wg}|scan_local.comp|TYPE_${TYPE},WORKGROUP_${WG}")
  endforeach()
  list(APPEND kernels
    "uniform_add.${type}|uniform_add.comp|TYPE_${TYPE}"
    "reduce_tiles.${type}|reduce_tiles.comp|TYPE_${TYPE}"
    "scan_tiles.${type}|scan_tiles.comp|TYPE_${TYPE}")
  foreach(entry IN LISTS kernels)
    string(FIND "${entry}" "|" bar)
    string(SUBSTRING "${entry}" 0 ${bar} name)
    string(SUBSTRING "${entry}" ${bar} -1 rest)
    list(APPEND GPUSCAN_SHADER_VARIANTS "${entry}" "${name}.bda${rest},ADDRESS_DEVICE|vulkan1.2")
  endforeach()
  # The single-pass scan per operator (OP_* define; common/ops.glsl says why): "single_pass.<type>.<op>".
  set(ops add min max mul)
  if(NOT type MATCHES "^f")
    list(APPEND ops and or xor)
  endif()
  foreach(op IN LISTS ops)
    string(TOUPPER "${op}" OP)
    set(lookbacks "|")
    # Floats: the single-pass scan with the ordered look-back (common/lookback_ordered.glsl), the same bits
    # on every run; ScanConfig::deterministic picks it (src/vulkan/record.cpp).
    if(type MATCHES "^f")
      list(APPEND lookbacks ".ordered|,LOOKBACK_ORDERED")
    endif()
    foreach(lookback IN LISTS lookbacks)
      string(REPLACE "|" ";" parts "${lookback}|")
      list(GET parts 0 suffix)
      list(GET parts 1 define)
      set(name "single_pass.${type}.${op}${suffix}")
      list(APPEND GPUSCAN_SHADER_VARIANTS
        "${name}|single_pass.comp|TYPE_${TYPE},OP_${OP}${define}|vulkan1.2"
        "${name}.bda|single_pass.comp|TYPE_${TYPE},OP_${OP}${define},ADDRESS_DEVICE|vulkan1.2")
    endforeach()
    # The look-ahead scan (Algorithm::look_ahead, experimental): the same bits on every run for one grid,
    # so no ordered variant.
    list(APPEND GPUSCAN_SHADER_VARIANTS
      "lookahead.${type}.${op}|lookahead.comp|TYPE_${TYPE},OP_${OP}|vulkan1.2"
      "lookahead.${type}.${op}.bda|lookahead.comp|TYPE_${TYPE},OP_${OP},ADDRESS_DEVICE|vulkan1.2")
  endforeach()
  list(APPEND GPUSCAN_SHADER_VARIANTS
    # Chains the windows of a scan longer than one pass: one element at each end, always bound.
    "window_carry.${type}|window_carry.comp|TYPE_${TYPE}"
    # Segmented scans (common/segmented.glsl): where heads come from is specialization constant 8.
    "seg_reduce_tiles.${type}|seg_reduce_tiles.comp|TYPE_${TYPE}"
    "seg_scan_tiles.${type}|seg_scan_tiles.comp|TYPE_${TYPE}"
    # Segmented reductions by offsets: the tiles read once, then the pieces of segments that cross tiles
    # (seg_offsets_finish); seg_offsets_gather writes the identities of an empty input's segments.
    "seg_offsets_tiles.${type}|seg_offsets_tiles.comp|TYPE_${TYPE}"
    "seg_offsets_finish.${type}|seg_offsets_finish.comp|TYPE_${TYPE}"
    "seg_offsets_gather.${type}|seg_offsets_gather.comp|TYPE_${TYPE}")
endforeach()
# ... their head flags and each tile's range of offsets (no element type of their own).
list(APPEND GPUSCAN_SHADER_VARIANTS "seg_offsets_heads|seg_offsets_heads.comp|TYPE_U32,OP_ADD"
  "seg_offsets_bounds|seg_offsets_bounds.comp|TYPE_U32")

# Indirect counts: turns a count in GPU memory into every level's parameters and dispatch commands.
list(APPEND GPUSCAN_SHADER_VARIANTS "indirect_count|indirect_count.comp|TYPE_U32,OP_ADD")

# The benchmark's own kernels, embedded in the benchmarks (bench/CMakeLists.txt), not in the library: the
# copy roofline (the same vector layout as the tile kernels, no arithmetic) and the fill / check of scans
# too large to check on the host (bench/huge_scan_bench.cpp).
set(GPUSCAN_BENCH_SHADER_VARIANTS
  "copy.u32|copy.comp|TYPE_U32,OP_ADD"
  "copy.u64|copy.comp|TYPE_U64,OP_ADD"
  "bench_pattern|bench_pattern.comp|TYPE_U32,OP_ADD")

# Stream compaction (include/gpuscan/compact.hpp): "<kernel>.<type>.<path>"; the predicate is a
# specialization constant. Elements move as bit patterns (uint, or uvec2 for the 8-byte types) and
# ops.glsl's T is the u32 count (TYPE_U32, OP_ADD: the single-pass plan's look-back combines kept counts);
# ELEMENT_<type> is what the predicate compares. compact_partition is compact_scatter.comp with COMPACT_PARTITION (stable partition: every
# element written). compact_single_pass (ballot path only) needs Vulkan 1.2 like single_pass.
foreach(type u32 i32 f32 u64 i64 f64)
  if(NOT type IN_LIST GPUSCAN_BUILT_TYPES)
    continue()
  endif()
  string(TOUPPER "${type}" TYPE)
  set(defines "TYPE_U32,OP_ADD,ELEMENT_${TYPE}")
  foreach(kernel compact_count compact_scatter)
    list(APPEND GPUSCAN_SHADER_VARIANTS
      "${kernel}.${type}.ballot|${kernel}.comp|${defines},COMPACT_BALLOT"
      "${kernel}.${type}.shared|${kernel}.comp|${defines},COMPACT_SHARED")
  endforeach()
  list(APPEND GPUSCAN_SHADER_VARIANTS
    "compact_partition.${type}.ballot|compact_scatter.comp|${defines},COMPACT_BALLOT,COMPACT_PARTITION"
    "compact_partition.${type}.shared|compact_scatter.comp|${defines},COMPACT_SHARED,COMPACT_PARTITION"
    "compact_single_pass.${type}.ballot|compact_single_pass.comp|${defines},COMPACT_BALLOT|vulkan1.2")
endforeach()

# Custom operators (ScanConfig::custom_op): a caller's GLSL snippet is compiled at run time with shaderc
# (src/vulkan/custom_op.cpp), as "name|entry file|defines" entries of the same form, with ops.glsl's
# TYPE_CUSTOM/OP_CUSTOM taking T, identity() and combine() from the snippet (#included as
# "custom_op.glsl"). A user operator has no subgroup intrinsic, so only the multipass kernels with the
# Blelloch workgroup scan take it (and window_carry, which chains the windows of scans longer than one
# binding). Their sources and every shaders/common file are embedded as text
# (cmake/Shaders.cmake, gpuscan_embed_runtime_sources); nothing here is compiled at build time.
set(GPUSCAN_CUSTOM_OP_VARIANTS
  "scan_local|scan_local.comp|TYPE_CUSTOM,OP_CUSTOM,WORKGROUP_BLELLOCH"
  "uniform_add|uniform_add.comp|TYPE_CUSTOM,OP_CUSTOM"
  "window_carry|window_carry.comp|TYPE_CUSTOM,OP_CUSTOM")

# OpenGL (cmake/Shaders.cmake, gpuscan_gl_variants; docs/gl.md): the kernels also built with
# GPUSCAN_NO_SUBGROUPS as "<name>.no_subgroups" (every invocation a subgroup of its own,
# common/subgroup_basic.glsl) for GL drivers without GL_KHR_shader_subgroup, and the variants that use no
# subgroup operation, the only ones (with those) built for the 64-bit types on GL. The compaction kernels
# of every element type are built for GL (their T is the u32 count; 8-byte elements move as uvec2).
# The segmented kernels are built for GL in that form only. sort_downsweep's .no_subgroups form ranks
# keys by 1-bit splits in shared memory instead of ballots (common/radix_rank.glsl); its 64-bit keys are
# uvec2 pairs, so the sort builds no 64-bit-integer code at all.
set(GPUSCAN_GL_NO_SUBGROUP_KERNELS reduce_tiles seg_reduce_tiles seg_scan_tiles sort_downsweep)
set(GPUSCAN_GL_SUBGROUP_FREE "^(scan_local[.].*[.]blelloch|uniform_add[.]|window_carry[.])")
# Segmented reductions by offsets on GL (src/gl/segment_offsets.cpp): their kernels in the .no_subgroups
# form only, as the other segmented ones (seg_offsets_tiles scans (head, value) pairs as seg_scan_tiles
# does; the others use no subgroup operation).
list(APPEND GPUSCAN_GL_NO_SUBGROUP_KERNELS seg_offsets_bounds seg_offsets_tiles seg_offsets_finish seg_offsets_gather)

# Run-length encoding (include/gpuscan/vulkan/run_length.hpp): the compaction kernels find the runs (their
# OUTPUTS constant adds the input indices), these turn the indices into lengths. OpenGL (src/gl/run_length.cpp)
# builds the same two from GPUSCAN_GL_RUN_LENGTH_VARIANTS (gpuscan_gl_variants' form).
list(APPEND GPUSCAN_SHADER_VARIANTS
  "run_lengths.starts|run_lengths.comp|RUNS_FROM_STARTS|vulkan1.1"
  "run_lengths.edges|run_lengths.comp|RUNS_FROM_EDGES|vulkan1.1")
set(GPUSCAN_GL_RUN_LENGTH_VARIANTS
  "run_lengths.starts|run_lengths.comp|RUNS_FROM_STARTS"
  "run_lengths.edges|run_lengths.comp|RUNS_FROM_EDGES")

# Histograms (include/gpuscan/vulkan/histogram.hpp): "histogram.<sample type>.<count type>". The 64-bit
# counts use 64-bit buffer atomics (shaderBufferInt64Atomics), hence Vulkan 1.2. Named targets keep both
# out of gpuscan_gl_variants. OpenGL (src/gl/histogram.cpp) builds the same ones from
# GPUSCAN_GL_HISTOGRAM_VARIANTS (gpuscan_gl_variants' form, "name|source|define,..."): every sample type (the kernel uses no subgroup
# operation; u64/i64 need GL_ARB_gpu_shader_int64), u64 counts as pairs of 32-bit words added with a carry
# (GPUSCAN_GL: GL has no 64-bit buffer atomics in core).
set(GPUSCAN_GL_HISTOGRAM_VARIANTS "")
foreach(type u32 i32 f32 u64 i64 f64)
  if(NOT type IN_LIST GPUSCAN_BUILT_TYPES)
    continue()
  endif()
  string(TOUPPER "${type}" TYPE)
  list(APPEND GPUSCAN_GL_HISTOGRAM_VARIANTS "histogram.${type}.u32|histogram.comp|TYPE_${TYPE},OP_ADD"
    "histogram.${type}.u64|histogram.comp|TYPE_${TYPE},OP_ADD,COUNTS_U64")
  list(APPEND GPUSCAN_SHADER_VARIANTS
    "histogram.${type}.u32|histogram.comp|TYPE_${TYPE},OP_ADD|vulkan1.1"
    "histogram.${type}.u64|histogram.comp|TYPE_${TYPE},OP_ADD,COUNTS_U64|vulkan1.2")
endforeach()

# LSD radix sort (include/gpuscan/vulkan/sort.hpp): "sort_upsweep.<key>" counts each tile's digits,
# "sort_downsweep.<key>[.<values>]" ranks and scatters; keys (k32, k64) and values (v32, v64) move as
# bit patterns, the key type's order is a push-constant flag (common/radix_key.glsl). The multipass
# kernels (no target given) are built for OpenGL too (src/gl/sort.cpp), sort_downsweep also without
# subgroups (GPUSCAN_GL_NO_SUBGROUP_KERNELS below); Onesweep is Vulkan only.
foreach(key 32 64)
  list(APPEND GPUSCAN_SHADER_VARIANTS
    "sort_upsweep.k${key}|sort_upsweep.comp|KEY_${key}"
    "sort_downsweep.k${key}|sort_downsweep.comp|KEY_${key}"
    "sort_downsweep.k${key}.v32|sort_downsweep.comp|KEY_${key},VALUES_32"
    "sort_downsweep.k${key}.v64|sort_downsweep.comp|KEY_${key},VALUES_64"
    # The same with keys and values through device addresses (ADDRESS_DEVICE): past one binding.
    "sort_upsweep.k${key}.bda|sort_upsweep.comp|KEY_${key},ADDRESS_DEVICE|vulkan1.2"
    "sort_downsweep.k${key}.bda|sort_downsweep.comp|KEY_${key},ADDRESS_DEVICE|vulkan1.2"
    "sort_downsweep.k${key}.v32.bda|sort_downsweep.comp|KEY_${key},VALUES_32,ADDRESS_DEVICE|vulkan1.2"
    "sort_downsweep.k${key}.v64.bda|sort_downsweep.comp|KEY_${key},VALUES_64,ADDRESS_DEVICE|vulkan1.2"
    # SortAlgorithm::onesweep: every pass's digit counts at once, then one dispatch per pass with a
    # look-back over 64-bit tile states (shaderBufferInt64Atomics, hence Vulkan 1.2, like single_pass).
    "sort_histogram.k${key}|sort_histogram.comp|KEY_${key}|vulkan1.2"
    "sort_onesweep.k${key}|sort_onesweep.comp|KEY_${key}|vulkan1.2"
    "sort_onesweep.k${key}.v32|sort_onesweep.comp|KEY_${key},VALUES_32|vulkan1.2"
    "sort_onesweep.k${key}.v64|sort_onesweep.comp|KEY_${key},VALUES_64|vulkan1.2")
endforeach()
