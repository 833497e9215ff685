// Element types, scan kinds and algorithm choices shared by every gpuscan API.
#pragma once

#include <bit>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gpuscan {

// Element types. The 64-bit ones need the device's shaderInt64 (u64, i64) or shaderFloat64 (f64);
// DeviceInfo says which it has, and a scan of a type the device lacks throws Errc::unsupported.
enum class DataType : uint8_t { u32, i32, f32, u64, i64, f64 };
enum class ScanKind : uint8_t { exclusive, inclusive };

// The operator a scan or reduction combines elements with, as a monoid (identity in brackets):
//   add [0], mul [1], min [the type's largest value, +inf for floats], max [its smallest, -inf]
//   on every type; bit_and [all ones], bit_or [0], bit_xor [0] on the integer types only.
// Integer add and mul wrap modulo 2^32 or 2^64 as C++ unsigned arithmetic does (two's complement for
// i32/i64), so no integer result is ever undefined. Float min and max propagate NaN as numpy's
// minimum/maximum do: every result that combines a NaN is the quiet NaN (its payload is not kept), so
// an inclusive scan is NaN from the first NaN on, an exclusive scan from the element after it. Float add
// and mul round at every step, so their result depends on the order of combination: see
// ScanConfig::deterministic.
enum class Op : uint8_t { add, min, max, mul, bit_and, bit_or, bit_xor };

// How a scan of a whole buffer is organised.
//   single_pass       one dispatch, chained scan with decoupled look-back and fallback: 2N bytes moved.
//                     Needs 64-bit buffer atomics. Runs in place too.
//   reduce_then_scan  reduce tiles, scan the tile totals, scan tiles again with their offsets: 3N.
//   multipass         scan-then-propagate with Blelloch or subgroup workgroup scans: 4N.
//   automatic         single_pass where the device can and the scan spans more
//                     than one tile but at most the device's tuning profile's limit
//                     (Context::tuning_profile; core::single_pass_auto_limit): on the H200 2^28
//                     elements for exclusive scans of 4-byte types, 2^27 for inclusive ones of
//                     u32/i32, 2^25 for the rest, 2^21 for deterministic f32, 2^20 for deterministic
//                     f64 (ScanConfig::deterministic), where it measured fastest (bench/RESULTS.md);
//                     2^21 on every other device; otherwise reduce_then_scan where the device has subgroup
//                     arithmetic; otherwise multipass with Blelloch workgroup scans.
//   look_ahead        EXPERIMENTAL; automatic picks it only on an H100 (nvidia-h100 profile), for deterministic
//                     exclusive f32 scans past the ordered limit up to 2^28: one dispatch like single_pass,
//                     but a fixed grid of G workgroups strides over the tiles (workgroup g takes tiles g,
//                     g + G, ...) and chains only tile totals: a workgroup adds the totals of the G - 1
//                     tiles before its tile to what it found for its previous tile, with the same fallback
//                     (docs/scan.md, "Look-ahead: tile totals only"). Needs what single_pass needs. Runs in place
//                     too, and with its count in GPU memory.
enum class Algorithm : uint8_t { automatic, single_pass, reduce_then_scan, multipass, look_ahead };

// How one workgroup of the multipass scan scans its tile. `automatic` takes `subgroup` where the device has subgroup
// arithmetic in compute shaders, `blelloch` elsewhere.
enum class WorkgroupAlgorithm : uint8_t { automatic, blelloch, subgroup };

// Element type traits: DataType for the C++ types gpuscan scans.
template <class T> struct data_type_of;
template <> struct data_type_of<uint32_t> { static constexpr DataType value = DataType::u32; };
template <> struct data_type_of<int32_t> { static constexpr DataType value = DataType::i32; };
template <> struct data_type_of<float> { static constexpr DataType value = DataType::f32; };
template <> struct data_type_of<uint64_t> { static constexpr DataType value = DataType::u64; };
template <> struct data_type_of<int64_t> { static constexpr DataType value = DataType::i64; };
template <> struct data_type_of<double> { static constexpr DataType value = DataType::f64; };
template <class T>
concept Element = requires { data_type_of<T>::value; };

// The bit pattern of one element, zero-extended to 64 bits (ScanArgs::initial_bits):
//   element_bits(1.0f) == 0x3f800000, element_bits(-1) == 0xffffffff, element_bits(-1LL) == ~0ull
template <Element T>
constexpr uint64_t element_bits(T v) noexcept {
  if constexpr (sizeof(T) == 4) return std::bit_cast<uint32_t>(v);
  else return std::bit_cast<uint64_t>(v);
}

// Calls f(T{}) with T the C++ type of `type` (the one place that maps a DataType back to a type):
//   gpuscan::visit_type(config.type, [&](auto tag) { using T = decltype(tag); ... });
template <class F>
decltype(auto) visit_type(DataType type, F&& f) {
  switch (type) {
    case DataType::i32: return f(int32_t{});
    case DataType::f32: return f(float{});
    case DataType::u64: return f(uint64_t{});
    case DataType::i64: return f(int64_t{});
    case DataType::f64: return f(double{});
    default: return f(uint32_t{});
  }
}

uint32_t element_size(DataType type) noexcept;                    // bytes: 4, or 8 for u64, i64, f64
bool is_float(DataType type) noexcept;                            // f32, f64
// Whether `op` is defined on `type`: the bitwise operators only on integer types.
bool op_supports(Op op, DataType type) noexcept;
std::string_view to_string(DataType type) noexcept;               // "u32", "i32", "f32", "u64", "i64", "f64"
std::string_view to_string(Op op) noexcept;                       // "add", "min", "max", "mul", "and", "or", "xor"
std::string_view to_string(ScanKind kind) noexcept;               // "exclusive", "inclusive"
std::string_view to_string(WorkgroupAlgorithm algorithm) noexcept;  // "auto", "blelloch", "subgroup"
std::string_view to_string(Algorithm algorithm) noexcept;  // "auto", "single-pass", "reduce-then-scan", "multipass", "look-ahead"
std::optional<Algorithm> parse_algorithm(std::string_view name) noexcept;
std::optional<DataType> parse_data_type(std::string_view name) noexcept;
std::optional<Op> parse_op(std::string_view name) noexcept;  // the names to_string(Op) gives
std::optional<WorkgroupAlgorithm> parse_workgroup_algorithm(std::string_view name) noexcept;

// A caller's operator, written in GLSL and compiled at run time (Vulkan: shaderc; OpenGL: the driver,
// gl::compile_custom_op; docs/scan.md, "Custom operators"). The snippet defines the element type as
// the macro T -- a scalar (float, uint, int64_t, double), a vector or matrix (vec2, uvec4, mat2) or a struct declared in the snippet -- and
//   T identity();          // combine(identity(), x) == combine(x, identity()) == x
//   T combine(T a, T b);   // associative; a is the earlier element, so it need not be commutative
// For example, the running maximum of absolute values of floats:
//   gpuscan::CustomOp absmax{R"(
//     #define T float
//     T identity() { return 0.0; }
//     T combine(T a, T b) { return max(abs(a), abs(b)); }
//   )"};
// and (sum, count) pairs, a struct of 8 bytes:
//   struct SumCount { float sum; uint count; };
//   #define T SumCount
//   T identity() { return SumCount(0.0, 0u); }
//   T combine(T a, T b) { return SumCount(a.sum + b.sum, a.count + b.count); }
// The snippet is #included into gpuscan's kernels after `#version 450`: it may hold #extension lines
// (GL_EXT_shader_explicit_arithmetic_types_int64 for int64_t), not #version; names starting with op_,
// g_, sh_, pass_ or workgroup_ and macros other than T are gpuscan's. 64-bit types need the device's
// shaderInt64 / shaderFloat64 (Errc::unsupported otherwise).
//
// The element's size is what T takes in a std430 array, which the compiled shader states: an `element_size`
// of 0 takes that; any other value must equal it (Errc::invalid_argument otherwise, e.g. 12 for a vec3,
// whose std430 stride is 16). A snippet that does not compile throws Errc::compile_error with the
// compiler's message ("custom_op.glsl:3: error: ..."). Each Context compiles a snippet once and keeps
// its pipelines (keyed by the text).
//
// Custom operators run as the multipass scan with the Blelloch workgroup scan (the subgroup
// intrinsics have no user operators): Algorithm::automatic and multipass, WorkgroupAlgorithm::automatic
// and blelloch, in place or not, in windows beyond one binding, with ScanArgs::count_from; the other
// algorithms, a carry-in, reductions, compaction and gpuscan::mpi throw Errc::unsupported. On OpenGL the
// GL driver compiles the snippet (gl::compile_custom_op, docs/gl.md): GLSL for GL, no shaderc. The
// order of combination depends only on n and W, so results are the same on every run.
struct CustomOp {
  std::string glsl;
  uint32_t element_size = 0;  // bytes per element; 0 = the std430 array stride of the snippet's T
};

// What a config's 0 means for W and K where no tuning profile or single-pass rule says otherwise
// (docs/scan.md, "ScanConfig"): W = 256; K = 4 for 4-byte types and 2 for 8-byte ones, whose vectors hold
// twice the registers (on the H200 their scans ran 1.5-1.8x faster with K = 2 than with 4 at 2^24-2^28
// elements, while 4-byte types are fastest at 4). Context::workgroup_size / vectors_per_lane say what a
// given scan takes.
inline constexpr uint32_t default_workgroup_size = 256;
inline constexpr uint32_t default_vectors_per_lane = 4;
constexpr uint32_t default_vectors_per_lane_for(uint32_t element_bytes) {
  return element_bytes >= 8 ? 2 : default_vectors_per_lane;
}

// The look-ahead scan's default grid G (Algorithm::look_ahead) for a device of `shader_cores` SMs / compute
// units / cores (DeviceInfo::shader_cores; 0: not reported). G must not exceed the workgroups the device holds
// at once: past that, every resident workgroup computes the totals of those not started yet from their input
// (measured on an H200, 2^28 u32 exclusive: 0.74 ms at G = 528, 65 ms at G = 2048). So 4 per core, the figure
// measured there (132 SMs, G = 528), and where the device does not say, a guess small enough for any
// discrete GPU. Speed depends on it, and so do float results' last bits.
inline constexpr uint32_t look_ahead_grid_per_core = 4;
inline constexpr uint32_t look_ahead_unknown_device_grid = 64;
constexpr uint32_t look_ahead_default_grid(uint32_t shader_cores) {
  return shader_cores != 0 ? look_ahead_grid_per_core * shader_cores : look_ahead_unknown_device_grid;
}

struct ScanConfig {
  DataType type = DataType::u32;
  ScanKind kind = ScanKind::exclusive;
  Algorithm algorithm = Algorithm::automatic;
  WorkgroupAlgorithm workgroup = WorkgroupAlgorithm::automatic;  // multipass only
  // Invocations per workgroup W. 0 = default (256; for large inclusive single-pass scans of u32/i32
  // 128, for large reduce-then-scans of u64/i64 64: docs/scan.md, "ScanConfig"; Context::workgroup_size
  // says which a scan takes). Otherwise a power of two from 32 to the device's
  // maxComputeWorkGroupInvocations. Multipass tiles hold 2·W elements; single-pass and
  // reduce-then-scan tiles W · vectors_per_lane · 4.
  uint32_t workgroup_size = 0;
  // Tile kernels: 4-element vectors each invocation owns. 0 = default (4 for 4-byte types, 2 for 8-byte
  // ones; single-pass scans vary it with the count: docs/scan.md, "ScanConfig";
  // Context::vectors_per_lane); otherwise 1, 2, 4, 8 or 16.
  uint32_t vectors_per_lane = 0;
  // Single-pass: polls of a predecessor's state before computing its total from its input instead.
  // 0 = default (1024). Tests set 1 to force the fallback path. On lavapipe it is capped at 256: lavapipe
  // ends every loop of a shader invocation after 65535 iterations in all, which long polling would
  // reach (a look-back cut short gives wrong results).
  uint32_t spin_limit = 0;
  // Single-pass: tiles one workgroup scans in turn. With more than one, a workgroup loads and scans its
  // next tile, and publishes that tile's total, before it looks back for the tile it holds, so it does
  // not sit idle in the look-back (docs/scan.md, "Several tiles per workgroup"). 0 = default
  // (on the H200 4 above 512 tiles, else 1; 1 on other devices, lavapipe being a CPU with no memory
  // latency to hide and the others unmeasured); 1 = one
  // tile per workgroup. On lavapipe capped at 4 (its loop-iteration limit, as for spin_limit).
  uint32_t tiles_per_workgroup = 0;
  // The operator: add (a prefix sum) unless set. See Op for the operators each type has.
  //   ScanConfig c;  c.type = DataType::i64;  c.op = Op::max;   // running maximum of int64_t values
  Op op = Op::add;
  // Float types only (integer results never depend on the order of combination): the same input on
  // the same device gives bitwise the same output on every run. Every algorithm's combination order is
  // fixed but the single-pass scan's look-back, which folds predecessors in whatever state it finds
  // them; with this set, float single-pass scans take an ordered look-back instead
  // (shaders/common/lookback_ordered.glsl), 10-25 % slower on the H200, so `automatic` gives them the
  // single-pass scan up to 2^21 elements only (f64 2^20) and reduce-then-scan above (docs/scan.md,
  // "Deterministic floats"). false: the unordered look-back, whose results may differ in the last bits
  // run to run (the CLI's --nondeterministic, Python's deterministic=False).
  bool deterministic = true;
  // A caller's operator (CustomOp above) instead of `type` and `op`, which are then ignored.
  //   config.custom_op = gpuscan::CustomOp{absmax_glsl};
  std::optional<CustomOp> custom_op;
};

}  // namespace gpuscan
