// gpuscan on OpenGL 4.5: the same plans and the same GLSL as the Vulkan backend, dispatched with
// glDispatchCompute and ordered with glMemoryBarrier (docs/gl.md).
//
// A gl::Context is gpuscan's state for one GL context: its own headless one (EGL, no window) or the
// one the application has current. GL entry points are loaded through eglGetProcAddress (libEGL.so.1
// is opened at run time, so linking gpuscan adds no GL or EGL dependency). Like every GL object, a
// gl::Context is used on the thread where its GL context is current.
//
//   auto ctx = gpuscan::gl::Context::create();              // EGL, surfaceless: no display needed
//   std::vector<uint32_t> in = {3, 1, 7, 0, 4, 1, 6, 3};
//   auto out = gpuscan::gl::exclusive_scan(ctx, std::span<const uint32_t>(in));
//   // out == {0, 3, 4, 11, 11, 15, 16, 22}
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

// Only the neutral headers: a GL program needs no Vulkan header.
#include "gpuscan/compact.hpp"  // Predicate, CompactConfig, PartitionResult
#include "gpuscan/error.hpp"
#include "gpuscan/histogram.hpp"  // HistogramBins, HistogramConfig
#include "gpuscan/message.hpp"  // MessageSeverity, MessageCallback
#include "gpuscan/reduce.hpp"  // ReduceConfig
#include "gpuscan/run_length.hpp"  // RunLengthResult, NonTrivialRuns
#include "gpuscan/segmented.hpp"  // SegmentHeads
#include "gpuscan/sort.hpp"  // SortConfig, SortedBytes
#include "gpuscan/sort_unique.hpp"  // UniqueResult
#include "gpuscan/stream.hpp"  // StreamOptions, StreamReader, StreamWriter, StreamStats
#include "gpuscan/types.hpp"

namespace gpuscan::gl {

namespace detail {
struct ContextAccess;  // the backend's way to a Context's state (src/gl/context_impl.hpp)
}  // namespace detail

// What gpuscan learned about the GL context (glGetString / glGetInteger*).
struct GlInfo {
  std::string version;       // GL_VERSION: "4.5 (Core Profile) Mesa 22.3.6"
  std::string renderer;      // GL_RENDERER: "llvmpipe (LLVM 15.0.6, 256 bits)"
  std::string vendor;        // GL_VENDOR
  std::string platform;      // "EGL surfaceless", "EGL device" or "adopted"
  int major = 0, minor = 0;  // the context's version
  // GL_KHR_shader_subgroup in compute shaders; all false where the extension is missing (llvmpipe has
  // only GL_ARB_shader_ballot, which gpuscan's shaders do not use).
  bool subgroup_basic = false;
  bool subgroup_arithmetic = false;
  bool subgroup_ballot = false;
  uint32_t subgroup_size = 0;     // GL_SUBGROUP_SIZE_KHR, 0 without the extension
  bool arb_shader_ballot = false;  // reported for `gpuscan info` only
  // 64-bit element types: u64 and i64 need GL_ARB_gpu_shader_int64; f64 needs GL_ARB_gpu_shader_fp64,
  // core since OpenGL 4.0 (so always true on the 4.5 contexts gpuscan runs on).
  bool gpu_shader_int64 = false;
  bool gpu_shader_fp64 = false;
  bool khr_debug = false;          // GL_KHR_debug (core in 4.3)
  uint32_t max_workgroup_invocations = 0;
  uint32_t max_workgroup_count[3] = {0, 0, 0};
  uint64_t max_shader_storage_block_size = 0;     // the most bytes one SSBO binding may span
  uint64_t shader_storage_offset_alignment = 0;   // GL_SHADER_STORAGE_BUFFER_OFFSET_ALIGNMENT
  uint32_t max_shared_memory_bytes = 0;           // GL_MAX_COMPUTE_SHARED_MEMORY_SIZE
};

enum class Platform : uint8_t {
  automatic,    // the first hardware EGL device (a GPU), else surfaceless (Mesa's llvmpipe), else any device
  surfaceless,  // EGL_MESA_platform_surfaceless (with GLVND: Mesa's, even beside an NVIDIA GPU)
  device,       // EGL_EXT_platform_device: the first EGL device, hardware ones first (NVIDIA's headless path)
};

struct ContextCreateInfo {
  Platform platform = Platform::automatic;
  // Create a debug context with KHR_debug output on, synchronous, routed to on_message: GL errors and
  // undefined behaviour as MessageSeverity::error, performance and portability warnings as warning, the
  // shader compiler's messages as info (a failed compile throws with the same log).
  bool debug = false;
  MessageCallback on_message;  // optional; called on the thread that made the failing GL call
};

class Context {
 public:
  // Creates an EGL display (`info.platform`) and a GL 4.5 core context without a surface (a 1x1 pbuffer
  // where EGL needs one) and makes it current on the calling thread. Throws Errc::no_device without
  // libEGL.so.1 or an EGL display, Errc::unsupported when the driver cannot make a GL 4.5 core context.
  // gpuscan's tests create theirs with gpuscan::gl::create_context_for_tests (gpuscan/testing.hpp, unstable).
  static Context create(const ContextCreateInfo& info = {});
  // Uses the GL context current on the calling thread (EGL, GLX, ...), which must be 4.5 or later.
  // gpuscan does not destroy it; destroy the gpuscan Context while it is still current (its programs
  // and its parameter buffer are deleted then). Throws Errc::unsupported when no context is current.
  static Context adopt_current();

  Context(Context&&) noexcept;
  Context& operator=(Context&&) noexcept;
  ~Context();

  const GlInfo& info() const noexcept;
  // Makes gpuscan's own GL context current on the calling thread (after it was used elsewhere);
  // Errc::invalid_argument for an adopted context.
  void make_current() const;

  // As gpuscan::Context::resolve: what `automatic` picks, or why an explicit choice cannot run here.
  // The single-pass scan is refused (Errc::unsupported): the GL backend builds no look-back kernels,
  // which need 64-bit buffer atomics and subgroup ballots (docs/gl.md, "Why not single-pass"). So are u64 and i64 without GL_ARB_gpu_shader_int64
  // (Errc::unsupported), and a bitwise operator on a float type (Errc::invalid_argument, as on Vulkan).
  // The 64-bit types run the subgroup-free kernels only (GL's GLSL has no subgroup arithmetic on 64-bit
  // integers): multipass with Blelloch workgroup scans; reduce-then-scan and the subgroup workgroup
  // scan are refused for them.
  WorkgroupAlgorithm resolve(WorkgroupAlgorithm requested, DataType type = DataType::u32) const;
  Algorithm resolve(const ScanConfig& config, uint64_t count) const;
  std::string describe_choice(const ScanConfig& config, uint64_t count = 1u << 24) const;
  // As gpuscan::Context::tuning_profile, chosen by GL_VENDOR and GL_RENDERER (GL has no PCI IDs):
  // "lavapipe" on llvmpipe, "nvidia-h200" on an NVIDIA H200, "nvidia-h100" on an H100, else "conservative".
  std::string_view tuning_profile() const noexcept;
  std::string_view tuning_profile_source() const noexcept;
  // What `automatic` picks for compaction: ballot with GL_KHR_shader_subgroup ballot, else shared_memory.
  CompactPath resolve(CompactPath requested) const;

  struct Impl;  // the backend's state (src/gl/context_impl.hpp)

 private:
  friend struct detail::ContextAccess;
  explicit Context(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// A range of a caller's GL buffer object: its name and the byte offset of element 0 (a multiple of the
// element size; any such offset works, gpuscan binds at GL_SHADER_STORAGE_BUFFER_OFFSET_ALIGNMENT below
// it and passes the rest to the shader). The buffer's size is asked from GL.
struct BufferView {
  uint32_t buffer = 0;  // a GLuint buffer name
  uint64_t offset = 0;
};

// Scratch a call needs: size bytes at an offset that is a multiple of alignment (0 bytes: none).
struct TempRequirements {
  uint64_t size = 0;
  uint64_t alignment = 4;
};

TempRequirements scan_temp_requirements(const Context& ctx, uint64_t count, const ScanConfig& config,
                                        bool indirect = false);
std::string describe_scan_plan(const Context& ctx, uint64_t count, const ScanConfig& config);

// An element count in GPU memory, as gpuscan::IndirectCount: a u32 (or u64) written earlier by a GL
// command or shader (shader writes made visible with GL_SHADER_STORAGE_BARRIER_BIT), and an optional
// status word set to 1 when the count exceeded ScanArgs::count and was clamped to it (0 otherwise).
struct IndirectCount {
  BufferView buffer;
  bool is_64bit = false;
  BufferView status;  // buffer 0 = none
};

struct ScanArgs {
  ScanConfig config;
  uint64_t count = 0;  // 0 issues nothing; with count_from, the upper bound of the count
  BufferView input;
  BufferView output;   // may be exactly the input (in place)
  BufferView temp;     // scan_temp_requirements(ctx, count, config).size bytes; unused when that is 0
  // A carry-in combined in front of every element, as gpuscan::ScanArgs::initial_bits (its bit pattern,
  // element_bits): exclusive output[0] = initial. Applied in the plan's top-level pass.
  std::optional<uint64_t> initial_bits;
  // Optional: the count from GPU memory; every dispatch is then glDispatchComputeIndirect, temp holds
  // the commands (scan_temp_requirements(..., indirect = true)) and the bound must fit one binding.
  std::optional<IndirectCount> count_from;
};

// Issues the scan's dispatches into the current GL command stream. It binds its own program, SSBO
// bindings 0-4 and uniform-buffer binding 0 (the caller's are disturbed afterwards).
//
// Barrier contract. Before: shader writes to `input` must be made visible by the caller with
// glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT) (writes by GL commands such as glBufferSubData need
// nothing), and so must earlier shader accesses to `output` and `temp` be complete: GL does not order
// a shader's stores after earlier shaders' loads without that barrier either, so two gpuscan calls
// that share a temp buffer need glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT) between them. Between its own passes gpuscan issues glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT)
// exactly where the plan has a barrier. After: `output` is written by shader storage stores; before
// using it, the caller issues the barrier for that use: GL_SHADER_STORAGE_BARRIER_BIT (a shader reads
// it), GL_BUFFER_UPDATE_BARRIER_BIT (glGetBufferSubData, glMapBuffer), GL_VERTEX_ATTRIB_ARRAY_BARRIER_BIT,
// GL_ELEMENT_ARRAY_BARRIER_BIT or GL_COMMAND_BARRIER_BIT (indirect draws and dispatches).
//
//   // in = [3, 1, 7, 0, 4, 1, 6, 3] in buffer `a`, `b` and `t` sized as the requirements say
//   gpuscan::gl::record_scan(ctx, {.count = 8, .input = {a}, .output = {b}, .temp = {t}});
//   glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
//   // b <-- [0, 3, 4, 11, 11, 15, 16, 22]
void record_scan(const Context& ctx, const ScanArgs& args);

// The element types the OpenGL backend scans and reduces: all of types.hpp's, with every operator their
// type has (ScanConfig::op). u64 and i64 need GL_ARB_gpu_shader_int64 (Errc::unsupported without it;
// GlInfo::gpu_shader_int64 says), and the 64-bit types run the subgroup-free kernels (Context::resolve).
template <class T>
concept GlElement = Element<T>;

// Custom operators (CustomOp in types.hpp), as on Vulkan: multipass with Blelloch workgroup scans, no
// carry-in, windows and count_from as for the built-in types. The GL driver compiles the snippet into
// the kernels' source (no shaderc); it is GLSL 4.50 for GL (int64_t needs
// "#extension GL_ARB_gpu_shader_int64 : require"). compile_custom_op compiles it now (or finds it
// compiled in this Context) and returns its element size (the std430 stride of T); a snippet that
// does not compile throws Errc::compile_error with the driver's info log, whose line numbers are the
// snippet's own (it is source string 1; Mesa names string 1 for syntax errors, 0 for some others).
uint32_t compile_custom_op(const Context& ctx, const CustomOp& op);

// Convenience: upload, scan, download (blocks until done). With `initial`, a carry-in as
// ScanArgs::initial_bits:  gpuscan::gl::scan<uint32_t>(ctx, in, {}, 100u)  // {3, 1, 7} -> {100, 103, 104}
template <GlElement T>
std::vector<T> scan(const Context& ctx, std::span<const T> input, ScanConfig config = {});
template <GlElement T>
std::vector<T> scan(const Context& ctx, std::span<const T> input, ScanConfig config, T initial);
template <GlElement T>
std::vector<T> exclusive_scan(const Context& ctx, std::span<const T> input, ScanConfig config = {}) {
  config.kind = ScanKind::exclusive;
  return scan(ctx, input, config);
}
template <GlElement T>
std::vector<T> inclusive_scan(const Context& ctx, std::span<const T> input, ScanConfig config = {}) {
  config.kind = ScanKind::inclusive;
  return scan(ctx, input, config);
}
// Untyped form for callers holding raw bytes (the CLI); `gpu_ns`, if given, receives the GPU time of
// the scan's dispatches (two GL_TIMESTAMP queries).
std::vector<std::byte> scan_bytes(const Context& ctx, std::span<const std::byte> input, const ScanConfig& config,
                                  double* gpu_ns = nullptr, std::optional<uint64_t> initial_bits = std::nullopt);

// Data larger than one upload, as gpuscan::scan_stream (gpuscan/stream.hpp): chunks that fit
// options.device_memory_budget (here the GL input, output and temp buffers of one chunk; the host
// also holds one chunk of input and of results), scanned one after another with the running total as
// the carry-in. double_buffer does not apply: one chunk is in flight.
//   auto stats = gpuscan::gl::scan_stream(ctx, {}, read, write, {.device_memory_budget = 16 << 20});
StreamPlan plan_scan_stream(const Context& ctx, const ScanConfig& config, const StreamOptions& options = {});
StreamStats scan_stream(const Context& ctx, const ScanConfig& config, const StreamReader& read,
                        const StreamWriter& write, const StreamOptions& options = {},
                        std::optional<uint64_t> initial_bits = std::nullopt);

// Device-wide reduction, as gpuscan/reduce.hpp: the same plan of reduce_tiles passes (a tile of W·K·4
// elements per workgroup, the tile totals reduced again until one tile is left; windows past one
// binding), so the result depends only on n, W and K (bitwise, for floats, on one driver). Where GL has
// no GL_KHR_shader_subgroup arithmetic (llvmpipe), and for the 64-bit types everywhere, the tiles are
// reduced without subgroups: every invocation combines its K·4 elements, then the workgroup combines
// the W partial totals in shared memory (log2 W steps). Every type and operator of types.hpp.
TempRequirements reduce_temp_requirements(const Context& ctx, uint64_t count, const ReduceConfig& config,
                                          bool indirect = false);
std::string describe_reduce_plan(const Context& ctx, uint64_t count, const ReduceConfig& config);

struct ReduceArgs {
  ReduceConfig config;
  uint64_t count = 0;  // elements to reduce; 0 writes the identity (input may then be empty: buffer 0)
  BufferView input;    // count elements
  BufferView output;   // one element receives the result; must not overlap input
  BufferView temp;     // reduce_temp_requirements(ctx, count, config).size bytes; unused when that is 0
  // Optional: the count from GPU memory, as ScanArgs::count_from (`count` is its upper bound); a count
  // of 0 writes the identity, one above the bound reduces the bound's elements and sets the status word.
  std::optional<IndirectCount> count_from;
};

// Barrier contract as record_scan's; output[0] is written by a shader storage store.
//   gpuscan::gl::record_reduce(ctx, {.config = {.op = gpuscan::Op::max}, .count = 8, .input = {a},
//                                    .output = {b}, .temp = {t}});
//   glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);   // b[0] <-- the largest of a[0, 8)
void record_reduce(const Context& ctx, const ReduceArgs& args);

// Convenience: upload, reduce, download (blocks). An empty input gives the operator's identity. The
// config's type is T's.
//   gpuscan::gl::reduce(ctx, std::span<const int32_t>(in), gpuscan::Op::min)
template <GlElement T>
T reduce(const Context& ctx, std::span<const T> input, ReduceConfig config = {});
template <GlElement T>
T reduce(const Context& ctx, std::span<const T> input, Op op) {
  return reduce(ctx, input, ReduceConfig{.op = op});
}
// Untyped form (the CLI): input.size() a multiple of the element size; returns the result's bytes.
// `gpu_ns`, if given, receives the GPU time of the dispatches.
std::vector<std::byte> reduce_bytes(const Context& ctx, std::span<const std::byte> input, const ReduceConfig& config,
                                    double* gpu_ns = nullptr);

// Segmented scans, as gpuscan/segmented.hpp (flags or u32/u64 keys, every type and operator,
// reduce-then-scan over (head, value) pairs, the same core plan). On GL they always run the
// .no_subgroups builds of the segmented tile kernels (every invocation a subgroup of its own), so they
// need no GL_KHR_shader_subgroup. No windows, carry-in or count_from (unlike Vulkan's segmented scans).
TempRequirements segmented_scan_temp_requirements(const Context& ctx, uint64_t count, const ScanConfig& config);
std::string describe_segmented_scan_plan(const Context& ctx, uint64_t count, const ScanConfig& config,
                                         SegmentHeads heads = SegmentHeads::flags);

struct SegmentedScanArgs {
  ScanConfig config;
  SegmentHeads heads_kind = SegmentHeads::flags;
  uint64_t count = 0;  // 0 issues nothing
  BufferView input;    // count elements
  BufferView heads;    // count u32 flags or count keys; must not overlap output
  BufferView output;   // count elements; may be exactly the input (in place)
  BufferView temp;     // segmented_scan_temp_requirements(ctx, count, config).size bytes
};

// Barrier contract as record_scan's (binds SSBOs 0-4 and uniform buffer 0).
//   // in = [3, 1, 7, 0, 4, 1, 6, 3], heads = u32 flags [1, 0, 0, 1, 0, 1, 0, 0]
//   gpuscan::gl::record_segmented_scan(ctx, {.count = 8, .input = {a}, .heads = {f}, .output = {b}, .temp = {t}});
//   glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);   // b <-- [0, 3, 4, 0, 0, 0, 1, 7]
void record_segmented_scan(const Context& ctx, const SegmentedScanArgs& args);

// Convenience (blocks); Errc::invalid_argument when there are fewer flags or keys than values.
template <GlElement T>
std::vector<T> segmented_scan(const Context& ctx, std::span<const T> values, std::span<const uint32_t> flags,
                              ScanConfig config = {});
template <GlElement T, class Key>  // Key is uint32_t or uint64_t
std::vector<T> segmented_scan_by_key(const Context& ctx, std::span<const Key> keys, std::span<const T> values,
                                     ScanConfig config = {});
std::vector<std::byte> segmented_scan_bytes(const Context& ctx, std::span<const std::byte> values,
                                            std::span<const std::byte> heads, SegmentHeads heads_kind,
                                            const ScanConfig& config);

// ---- Segmented reductions by offsets ----------------------------------------------------------------
// As gpuscan/vulkan/segmented_reduce.hpp: S segments given by S + 1 non-decreasing u32 offsets (CSR:
// segment s is values[offsets[s] .. offsets[s+1])), one result per segment, the operator's identity for an
// empty one; every type and operator. The same plan (bounds, tiles read once, the segmented scan of the
// tiles' totals, the segments that cross tiles; src/core/segment_offsets_plan.hpp) with the .no_subgroups
// builds of its kernels, so it runs on any GL 4.5 context (u64 and i64 with GL_ARB_gpu_shader_int64).
// Integer results, and float min and max, equal Vulkan's bit for bit; float add and mul combine in an
// order that depends on the subgroup size (1 here), so they may differ from Vulkan's in the last bits.
// The values are bound once: count up to one SSBO binding (Errc::too_large past it).
//   // in = [3, 1, 7, 0, 4, 1, 6, 3], offsets = [0, 3, 3, 5, 8]
//   auto sums = gpuscan::gl::segmented_reduce(ctx, std::span<const uint32_t>(in), std::span<const uint32_t>(offsets));
//   // sums == {11, 0, 4, 10}
TempRequirements segmented_reduce_temp_requirements(const Context& ctx, uint64_t count, const ReduceConfig& config);

struct SegmentedReduceArgs {
  ReduceConfig config;    // type and op; workgroup_size and vectors_per_lane shape the tiles (K 0 = 1 here)
  uint64_t count = 0;     // values in `input`; offsets index them
  uint64_t segments = 0;  // S: segments and results; 0 dispatches nothing
  BufferView input;       // count elements of config.type (unused when count is 0)
  BufferView offsets;     // S + 1 u32, non-decreasing, offsets[S] <= count; must not overlap output
  BufferView output;      // S elements of config.type; must not overlap input or offsets
  BufferView temp;        // segmented_reduce_temp_requirements(ctx, count, config).size bytes at its alignment
};

// Barrier contract as record_scan's (binds SSBOs 0-5 and uniform buffer 0). Offsets that break the
// precondition give unspecified results but no access outside the bound ranges, as on Vulkan.
//   gpuscan::gl::record_segmented_reduce(ctx, {.count = 8, .segments = 4, .input = {a}, .offsets = {o},
//                                              .output = {b}, .temp = {t}});
//   glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);   // b <-- [11, 0, 4, 10]
void record_segmented_reduce(const Context& ctx, const SegmentedReduceArgs& args);

// Convenience (blocks); checks the offsets on the host (Errc::invalid_argument when empty, decreasing or
// past the values), as gpuscan::segmented_reduce. The config's type is T's.
template <GlElement T>
std::vector<T> segmented_reduce(const Context& ctx, std::span<const T> values, std::span<const uint32_t> offsets,
                                ReduceConfig config = {});
template <GlElement T>
std::vector<T> segmented_reduce(const Context& ctx, std::span<const T> values, std::span<const uint32_t> offsets,
                                Op op) {
  return segmented_reduce(ctx, values, offsets, ReduceConfig{.op = op});
}
// Untyped form (the CLI): `values` holds elements of config.type; returns the S results' bytes.
std::vector<std::byte> segmented_reduce_bytes(const Context& ctx, std::span<const std::byte> values,
                                              std::span<const uint32_t> offsets, const ReduceConfig& config);
// ---- end of segmented reductions by offsets ---------------------------------------------------------

// Stream compaction, as in gpuscan/compact.hpp: every element type (u64 and i64 need
// GL_ARB_gpu_shader_int64, else Errc::unsupported naming it), three-pass only (CompactAlgorithm::single_pass
// is Errc::unsupported: no look-back kernels on GL). 8-byte elements move as pairs of 32-bit words and
// their counts are u32, so no 64-bit subgroup operation is needed: the ballot path runs where
// GL_KHR_shader_subgroup ballots are, the shared-memory path (llvmpipe) everywhere.
TempRequirements compact_temp_requirements(const Context& ctx, uint64_t count, const CompactConfig& config);
std::string describe_compact_plan(const Context& ctx, uint64_t count, const CompactConfig& config);

struct SelectArgs {
  CompactConfig config;
  uint64_t count = 0;    // elements of input; 0 issues one pass that writes 0 to count_out
  BufferView input;
  BufferView flags;      // *_flagged: count u32 flags (kept where non-zero)
  Predicate predicate;   // *_if
  BufferView output;     // room for count elements
  BufferView count_out;  // one u32: the number kept
  BufferView temp;       // compact_temp_requirements(ctx, count, config).size bytes
};

// Barrier contract as record_scan's; output[0, kept) (all of output[0, count) for a partition) and
// count_out are written by shader storage stores.
//   // in = [5, 0, 2, 0, 7] in buffer `a`
//   gpuscan::gl::record_select_if(ctx, {.count = 5, .input = {a}, .predicate = gpuscan::Predicate::nonzero(),
//                                       .output = {b}, .count_out = {c}, .temp = {t}});
//   glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
//   // b <-- [5, 2, 7, ...], c <-- 3
void record_select_if(const Context& ctx, const SelectArgs& args);
void record_select_flagged(const Context& ctx, const SelectArgs& args);
void record_partition_if(const Context& ctx, const SelectArgs& args);
void record_partition_flagged(const Context& ctx, const SelectArgs& args);

// Convenience compaction on host data (blocks until done).
template <Element T>
std::vector<T> select_if(const Context& ctx, std::span<const T> values, Predicate predicate, CompactConfig config = {});
template <Element T>
std::vector<T> select_flagged(const Context& ctx, std::span<const T> values, std::span<const uint32_t> flags,
                              CompactConfig config = {});
template <Element T>
PartitionResult<T> partition(const Context& ctx, std::span<const T> values, Predicate predicate,
                             CompactConfig config = {});
template <Element T>
PartitionResult<T> partition_flagged(const Context& ctx, std::span<const T> values, std::span<const uint32_t> flags,
                                     CompactConfig config = {});
// The first element of every run of equal consecutive elements (select_if with Predicate::run_start()),
// as gpuscan::unique on Vulkan.
template <Element T>
std::vector<T> unique(const Context& ctx, std::span<const T> values, CompactConfig config = {}) {
  return select_if(ctx, values, Predicate::run_start(), config);
}

// LSD radix sort, as gpuscan/vulkan/sort.hpp with the same SortConfig and order of every key type
// (gpuscan/sort.hpp), multipass only: per 8-bit digit the tiles' digit counts, their exclusive scan with
// record_scan, and the stable scatter, ordered by glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT). All six
// key types run on any GL 4.5 context (64-bit keys move as pairs of 32-bit words: no
// GL_ARB_gpu_shader_int64 needed). Where GlInfo::subgroup_ballot, tiles are ranked with subgroup ballots
// as on Vulkan; elsewhere (llvmpipe) the tile is sorted stably in shared memory by 1-bit splits, with the
// same result. SortAlgorithm::onesweep is refused (Errc::unsupported: its look-back needs 64-bit buffer
// atomics, which the GL backend does not use); automatic is multipass. Double buffering as on Vulkan:
// keys_in and values_in are only read, and the result is always in keys_out / values_out.
//
// Temp a sort of `count` keys with `config` needs (`indirect`: for SortArgs::count_from, count its bound).
//   auto req = gpuscan::gl::sort_temp_requirements(ctx, n, {.key_type = gpuscan::DataType::f32});
TempRequirements sort_temp_requirements(const Context& ctx, uint64_t count, const SortConfig& config,
                                        bool indirect = false);
// "multipass, 4 passes, W = 256, K = 8, ranking by 1-bit splits (no subgroups)", and the count scan's plan.
std::string describe_sort_plan(const Context& ctx, uint64_t count, const SortConfig& config);

struct SortArgs {
  SortConfig config;    // value_bytes must be 0
  uint64_t count = 0;   // keys; 0 issues nothing. With count_from: the count's upper bound
  BufferView keys_in;   // count keys of config.key_type; only read
  BufferView keys_out;  // count keys: the sorted keys; must not overlap keys_in or temp
  BufferView temp;      // sort_temp_requirements(ctx, count, config).size bytes at its alignment
  // Optional: the count from GPU memory, as ScanArgs::count_from: every dispatch is sized for the bound
  // and the kernels read the count (clamped to the bound; the status word says whether it was) when they
  // run, so nothing past it is read or written. temp: sort_temp_requirements(ctx, count, config, true).
  std::optional<IndirectCount> count_from;
};

// Issues the sort (binds its own programs, SSBO bindings 0-5 and uniform buffer 0). Barrier contract as
// record_scan's. Throws Errc::invalid_argument for a bad bit range, value_bytes, workgroup_size,
// keys_per_lane or overlapping ranges; Errc::unsupported for SortAlgorithm::onesweep; Errc::too_large
// past 2^32 - 1 keys or one binding; check_view's errors (buffer_too_small for a short temp, ...).
//   // in = [5, 1, 4, 1, 3] in buffer `a`
//   gpuscan::gl::record_sort(ctx, {.count = 5, .keys_in = {a}, .keys_out = {b}, .temp = {t}});
//   glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);   // b <-- [1, 1, 3, 4, 5]
void record_sort(const Context& ctx, const SortArgs& args);

struct SortPairsArgs {
  SortConfig config;      // value_bytes 4 or 8
  uint64_t count = 0;
  BufferView keys_in;     // as SortArgs
  BufferView keys_out;
  BufferView values_in;   // count values; only read; unused with values_are_indices
  BufferView values_out;  // count values, each moved with its key
  BufferView temp;
  bool values_are_indices = false;  // argsort: the values are the keys' input positions as u32
  std::optional<IndirectCount> count_from;
};

// A stable sort of keys with values that move with them.
//   // keys = [3.5f, -1.0f, 3.5f, NaN, -0.0f], values = [10, 11, 12, 13, 14]
//   gpuscan::gl::record_sort_pairs(ctx, {.config = {.key_type = gpuscan::DataType::f32, .value_bytes = 4},
//                                        .count = 5, .keys_in = {k}, .keys_out = {ks}, .values_in = {v},
//                                        .values_out = {vs}, .temp = {t}});
//   // ks <-- [-1.0f, -0.0f, 3.5f, 3.5f, NaN], vs <-- [11, 14, 10, 12, 13]
void record_sort_pairs(const Context& ctx, const SortPairsArgs& args);

// Untyped convenience (blocks): as gpuscan::sort_bytes.
SortedBytes sort_bytes(const Context& ctx, std::span<const std::byte> keys, std::span<const std::byte> values,
                       const SortConfig& config, bool indices = false);

// Convenience on host data (blocks); key_type and value_bytes come from the types.
//   gpuscan::gl::sort(ctx, std::span<const float>(k))      // {2.5f, -1.0f, 2.5f} -> {-1.0f, 2.5f, 2.5f}
//   gpuscan::gl::argsort(ctx, std::span<const float>(k))   // {1, 0, 2}
template <GlElement K>
std::vector<K> sort(const Context& ctx, std::span<const K> keys, SortConfig config = {}) {
  return gpuscan::detail::sort_via([&ctx](auto... a) { return sort_bytes(ctx, a...); }, keys, config);
}
template <GlElement K>
std::vector<uint32_t> argsort(const Context& ctx, std::span<const K> keys, SortConfig config = {}) {
  return gpuscan::detail::argsort_via([&ctx](auto... a) { return sort_bytes(ctx, a...); }, keys, config);
}
//   gpuscan::gl::sort_pairs(ctx, std::span<const uint32_t>(k), std::span<const double>(v))
//   // k = {2, 1, 2}, v = {0.5, 1.5, 2.5}  ->  {{1, 2, 2}, {1.5, 0.5, 2.5}}
template <GlElement K, class V>
  requires(std::is_trivially_copyable_v<V> && (sizeof(V) == 4 || sizeof(V) == 8))
std::pair<std::vector<K>, std::vector<V>> sort_pairs(const Context& ctx, std::span<const K> keys,
                                                     std::span<const V> values, SortConfig config = {}) {
  return gpuscan::detail::sort_pairs_via([&ctx](auto... a) { return sort_bytes(ctx, a...); }, keys, values, config);
}

// ---- Dispatch commands from a count on the GPU, as gpuscan/vulkan/indirect_args.hpp ---------------------
// The same kernel and command: {x, y, 1} for ceil(min(count, bound) / elements_per_workgroup) workgroups,
// rows of at most GL_MAX_COMPUTE_WORK_GROUP_COUNT[0], {0, 0, 1} for none; for the application's
// glDispatchComputeIndirect after glMemoryBarrier(GL_COMMAND_BARRIER_BIT). Barrier contract as
// record_scan's.
struct IndirectArgs {
  IndirectCount count;                  // its status word (optional): 1 where the count was above `bound`
  uint64_t bound = 0xFFFFFFFFu;         // at most 2^32 - 1
  uint32_t elements_per_workgroup = 1;
  BufferView command;                   // 12 bytes at command.offset (a multiple of 4)
};
void record_indirect_args(const Context& ctx, const IndirectArgs& args);

// ---- Histograms, as gpuscan/histogram.hpp and gpuscan/vulkan/histogram.hpp ----------------------------
// The same kernel (shaders/histogram.comp) and plan (src/core/histogram_plan.hpp), so the same counts as
// on Vulkan: exact bin membership for every sample type, even and custom bins, numpy's closed last bin,
// NaN not counted, windows past one binding, a count from GPU memory. u64 and i64 samples need
// GL_ARB_gpu_shader_int64 (Errc::unsupported without it; GlInfo::gpu_shader_int64 says); u64 counts run
// on every GL 4.5 context (each a pair of 32-bit words added with 32-bit atomics and a carry: GL has no
// 64-bit buffer atomics in core).
//
// Temp: the edge table, one sample-type value per edge, which record_histogram copies there
// (glCopyNamedBufferSubData: any buffer storage will do).
//   gpuscan::gl::histogram_temp_requirements(ctx, gpuscan::HistogramBins::even(256, 0, 1),
//                                            {.type = gpuscan::DataType::f32}).size  // 1028
TempRequirements histogram_temp_requirements(const Context& ctx, const HistogramBins& bins,
                                             const HistogramConfig& config);

struct HistogramArgs {
  HistogramConfig config;
  HistogramBins bins;
  uint64_t count = 0;  // samples; 0 only zeroes the counts (input may then be buffer 0)
  BufferView input;    // count samples of config.type
  BufferView counts;   // num_bins counts of config.counts; must not overlap input or temp. Zeroed with
                       // glClearNamedBufferSubData unless config.accumulate
  BufferView temp;     // histogram_temp_requirements(...).size bytes
  // Optional: the count from GPU memory, as ScanArgs::count_from (`count` is its upper bound). A count
  // above the bound counts the bound's samples and sets the status word to 1.
  std::optional<IndirectCount> count_from;
};

// Dispatches the histogram (binds its program, SSBO bindings 0-4 and uniform buffer 0). Barrier contract as
// record_scan's; the counts are zeroed and the edge table written by GL commands, which need no barrier
// before the dispatches, but earlier shader accesses to counts and temp must be complete. Afterwards
// counts[0, num_bins) (and a status word) are written by shader storage atomics and stores. Throws
// Errc::invalid_argument for no bins, edges that are NaN or decrease, counts other than u32/u64, a
// workgroup size that is not a power of two, or overlapping ranges; Errc::too_large for counts or an
// edge table past GL_MAX_SHADER_STORAGE_BLOCK_SIZE; check_view's errors for the buffers.
//   // in = [0.1f, 0.5f, 0.7f, 1.0f, -2.0f, 0.25f] in buffer `a`
//   gpuscan::gl::record_histogram(ctx, {.config = {.type = gpuscan::DataType::f32},
//                                       .bins = gpuscan::HistogramBins::even(4, 0.0, 1.0), .count = 6,
//                                       .input = {a}, .counts = {c}, .temp = {t}});
//   glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);   // c <-- [1, 1, 2, 0] (1.0 and -2.0 lie outside)
void record_histogram(const Context& ctx, const HistogramArgs& args);

// Convenience: upload, count, download (blocks). Returns num_bins counts.
//   std::vector<uint32_t> in = {1, 5, 9, 12, 5, 0};
//   gpuscan::gl::histogram(ctx, std::span<const uint32_t>(in), gpuscan::HistogramBins::even(3, 0, 12));
//   // {2, 2, 1}: [0, 4) holds 1 and 0, [4, 8) 5 and 5, [8, 12) 9; 12 is outside
// Untyped form (the CLI): input.size() must be a multiple of the sample size of config.type.
std::vector<uint64_t> histogram_bytes(const Context& ctx, std::span<const std::byte> input, const HistogramBins& bins,
                                      const HistogramConfig& config);
template <GlElement T>
std::vector<uint64_t> histogram(const Context& ctx, std::span<const T> input, const HistogramBins& bins,
                                HistogramConfig config = {}) {
  config.type = data_type_of<T>::value;
  return histogram_bytes(ctx, std::as_bytes(input), bins, config);
}
// ---- end of histograms ------------------------------------------------------------------------------

// ---- Run-length encoding, as gpuscan/vulkan/run_length.hpp ------------------------------------------
// The same two passes as on Vulkan: a compaction (select_if's plan, three-pass on GL) that keeps the first
// element of every run and writes its input index -- for non-trivial runs the first and the last index of
// each run of two or more -- then run_lengths.comp, which turns the indices into lengths. Elements are
// equal as numbers (Predicate::run_start's rule: -0 == 0, every NaN a run of its own). The element types
// are GL compaction's (CompactConfig::type; Errc::unsupported for the others); lengths and offsets are u32.
//
// Temp either record call needs for `count` elements: the compaction's and count u32 indices and a word.
TempRequirements run_length_temp_requirements(const Context& ctx, uint64_t count, const CompactConfig& config);

struct RunLengthArgs {
  CompactConfig config;  // type and the compaction's shape, as for select_if
  uint64_t count = 0;    // elements of input; 0 writes 0 runs
  BufferView input;      // count elements
  BufferView values;     // encode: room for count elements, the first of each run; non-trivial: unused
  BufferView lengths;    // room for count u32 (encode) or count / 2 (non-trivial): each run's length
  BufferView offsets;    // each run's first index (u32): optional for encode (room for count), required
                         // for non-trivial runs (count / 2)
  BufferView count_out;  // one u32: the number of runs
  BufferView temp;       // run_length_temp_requirements(ctx, count, config).size bytes
};

// Dispatches the encoding: values[0, runs) the first element of each run, lengths[0, runs) its length,
// offsets (if given) its first index, count_out the number of runs. Barrier contract as
// record_select_if's; past `runs` the outputs are left as they were. No output may overlap the input,
// another output or temp (Errc::invalid_argument); the input must fit one binding and hold fewer than
// 2^32 elements (Errc::too_large).
//   // in = [4, 4, 1, 1, 1, 9] in buffer `a`
//   gpuscan::gl::record_run_length_encode(ctx, {.count = 6, .input = {a}, .values = {u}, .lengths = {l},
//                                               .count_out = {r}, .temp = {t}});
//   glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);   // u <-- [4, 1, 9], l <-- [2, 3, 1], r <-- 3
void record_run_length_encode(const Context& ctx, const RunLengthArgs& args);
// The non-trivial runs (offsets and lengths of the runs of two or more); `values` is not used.
//   // in = [4, 4, 1, 2, 2, 2]  -->  offsets <-- [0, 3], lengths <-- [2, 3], count_out <-- 2
void record_non_trivial_runs(const Context& ctx, const RunLengthArgs& args);

// Convenience: upload, encode, download (blocks).
//   std::vector<uint32_t> v = {7, 7, 7, 2, 5, 5, 7};
//   auto rle = gpuscan::gl::run_length_encode(ctx, std::span<const uint32_t>(v));
//   // rle.values == {7, 2, 5, 7}, rle.lengths == {3, 1, 2, 1}
template <GlElement T>
RunLengthResult<T> run_length_encode(const Context& ctx, std::span<const T> values, CompactConfig config = {});

// numpy.unique of any input, as gpuscan::sort_unique on Vulkan (gpuscan/sort_unique.hpp).
template <GlElement T>
UniqueResult<T> sort_unique(const Context& ctx, std::span<const T> values, SortConfig config = {}) {
  return gpuscan::detail::sort_unique_via([&ctx](auto... a) { return sort_bytes(ctx, a...); },
                                          [&ctx](std::span<const T> s) { return run_length_encode(ctx, s); },
                                          values, config);
}
//   gpuscan::gl::non_trivial_runs(ctx, std::span<const uint32_t>(v))   // offsets {0, 4}, lengths {3, 2}
template <GlElement T>
NonTrivialRuns non_trivial_runs(const Context& ctx, std::span<const T> values, CompactConfig config = {});
// ---- end of run-length encoding ---------------------------------------------------------------------

}  // namespace gpuscan::gl
