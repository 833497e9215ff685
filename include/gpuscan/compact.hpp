// Stream compaction: keep the elements of an array that a predicate or a flag selects, in
// their original order (stable), and write how many were kept to a GPU buffer. This header holds what
// every backend shares (predicates, CompactConfig, PartitionResult) and names no graphics API; the calls
// are in gpuscan/vulkan/compact.hpp (included by gpuscan/vulkan.hpp) and gpuscan/gl.hpp. Every element
// type on Vulkan (u64 and i64 need shaderInt64, f64 shaderFloat64) and on OpenGL (u64 and i64 need
// GL_ARB_gpu_shader_int64; f64 is core GL 4.0).
//
//   std::vector<float> v = {0.5f, -1, 3, 0, 2};
//   auto big = gpuscan::select_if(ctx, std::span<const float>(v), gpuscan::Predicate::greater(1.0f));
//   // big == {3, 2}
//   std::vector<uint32_t> f = {1, 0, 0, 7, 0};
//   auto picked = gpuscan::select_flagged(ctx, std::span<const float>(v), std::span<const uint32_t>(f));
//   // picked == {0.5f, 0}
//
// How it runs (CompactAlgorithm): three_pass -- a compact_count pass counts every tile's kept elements,
// gpuscan's own u32 scan turns the counts into tile offsets, and a compact_scatter pass evaluates the
// predicate again and writes the kept elements; single_pass -- one dispatch chains the tiles' kept
// counts with the single-pass scan's decoupled look-back and writes each tile as soon as it knows how
// many elements were kept before it, reading the input once. Inside a tile a kept element's rank comes from subgroupBallot +
// subgroupBallotExclusiveBitCount (CompactPath::ballot) or, on devices without subgroup ballots, from a
// shared-memory scan of per-invocation counts of 0/1 flags (CompactPath::shared_memory).
//
// partition / partition_flagged write EVERY element: the kept ones first, in input order, then the
// rejected ones, also in input order (both parts are stable, as std::stable_partition): rejected element
// i goes to kept_total + (i - number of elements kept before i). The tile counts are scanned inclusively,
// so every tile of the scatter pass reads kept_total from the last entry.
//   auto p = gpuscan::partition(ctx, std::span<const float>(v), gpuscan::Predicate::greater(1.0f));
//   // p.values == {3, 2, 0.5f, -1, 0}, p.kept == 2
#pragma once

#include <bit>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "gpuscan/types.hpp"

namespace gpuscan {

// The built-in predicates. The constants are compared in the element type (u32, i32, u64 and i64 as
// integers, f32 and f64 as floats: NaN compares false, except that not_equal holds for it, and -0 equals
// 0); bits_set tests the element's bit pattern (32 or 64 bits). run_start alone looks at a second
// element, the one before: select_if with it is unique (std::unique_copy, CUB's DeviceSelect::Unique),
// partition_if with it puts the first of each run before the repeats.
enum class PredicateKind : uint8_t {
  nonzero,        // v != 0
  equal,          // v == a
  not_equal,      // v != a
  less,           // v < a
  less_equal,     // v <= a
  greater,        // v > a
  greater_equal,  // v >= a
  bits_set,       // (bits(v) & a) != 0
  in_range,       // a <= v && v <= b (closed)
  run_start,      // i == 0 || v != input[i - 1] (compared as the others: every NaN starts a run, -0 == 0);
                  // its input must fit one binding (Errc::too_large) and one rank (MPI: Errc::unsupported)
};

std::string_view to_string(PredicateKind kind) noexcept;  // "nonzero", "equal", ...

struct Predicate {
  PredicateKind kind = PredicateKind::nonzero;
  // Bit patterns of the constants in the element type, zero-extended for the 4-byte types (whose
  // kernels read the low 32 bits only).
  uint64_t a = 0;  // the first constant
  uint64_t b = 0;  // the second (in_range's upper bound)

  static Predicate nonzero() { return {}; }
  template <Element T> static Predicate equal(T v) { return {PredicateKind::equal, bits(v)}; }
  template <Element T> static Predicate not_equal(T v) { return {PredicateKind::not_equal, bits(v)}; }
  template <Element T> static Predicate less(T v) { return {PredicateKind::less, bits(v)}; }
  template <Element T> static Predicate less_equal(T v) { return {PredicateKind::less_equal, bits(v)}; }
  template <Element T> static Predicate greater(T v) { return {PredicateKind::greater, bits(v)}; }
  template <Element T> static Predicate greater_equal(T v) { return {PredicateKind::greater_equal, bits(v)}; }
  static Predicate bits_set(uint64_t mask) { return {PredicateKind::bits_set, mask}; }
  template <Element T> static Predicate in_range(T lo, T hi) { return {PredicateKind::in_range, bits(lo), bits(hi)}; }
  static Predicate run_start() { return {PredicateKind::run_start}; }

  // The same test on the host (for references and the CLI): `v` in the type the predicate was built for;
  // `before` the element before v (nullptr for element 0), which only run_start reads.
  //   Predicate::run_start().holds(2.0f, &two) == false       Predicate::greater(1u).holds(2u) == true
  template <Element T> bool holds(T v, const T* before = nullptr) const;
  // holds(v): for run_start, as for element 0 (true); std::copy_if(..., predicate) is right for the others.
  template <Element T> bool operator()(T v) const { return holds(v); }

  template <Element T> static uint64_t bits(T v) {
    if constexpr (sizeof(T) == 4) return std::bit_cast<uint32_t>(v);
    else return std::bit_cast<uint64_t>(v);
  }
  // The element of type T whose bit pattern is `bits` (its low 32 bits for a 4-byte T).
  template <Element T> static T value(uint64_t bits) {
    if constexpr (sizeof(T) == 4) return std::bit_cast<T>(static_cast<uint32_t>(bits));
    else return std::bit_cast<T>(bits);
  }
  friend bool operator==(const Predicate&, const Predicate&) = default;
};

// The predicate syntax of `gpuscan compact --pred` and the Python module's compact(a, "gt:100"): one of
// predicate_forms, constants written in the element type `type`: integers (u32, i32, u64, i64) in decimal
// or 0x hex ("gt:0x10", "lt:-0x10"), floats (f32, f64) as decimal numbers (also 1.5e3, inf, nan); MASK as
// wide as the element (32 or 64 bits). Throws Errc::invalid_argument ("invalid predicate 'gt:x': ...;
// valid forms: ...") for anything else: malformed text ("eq:1.5" for i32) or a constant out of the type's
// range, the message then naming the range ("ge:-1" for u32, "gt:1e39" or "gt:1e-50" for f32, whose
// comparison f32 cannot make).
//   parse_predicate("range:-1:1", DataType::f32) == Predicate::in_range(-1.0f, 1.0f)
//   parse_predicate("run-start", DataType::u64) == Predicate::run_start()
inline constexpr const char* predicate_forms =
    "nonzero, eq:C, ne:C, lt:C, le:C, gt:C, ge:C, bit:MASK, range:LO:HI (C, LO, HI in the element type, "
    "integers also in 0x hex; MASK as wide as the element, decimal or 0x hex), run-start (unequal to the "
    "element before: the first of each run)";
Predicate parse_predicate(std::string_view text, DataType type);

// How a tile ranks its kept elements.
//   automatic      ballot where the device has subgroup ballots in compute shaders, else shared_memory
//   ballot         subgroupBallot + subgroupBallotExclusiveBitCount per row of a subgroup
//   shared_memory  no subgroup operations at all: a shared-memory scan of the invocations' counts
enum class CompactPath : uint8_t { automatic, ballot, shared_memory };
std::string_view to_string(CompactPath path) noexcept;  // "auto", "ballot", "shared-memory"

// How a selection is planned. Partitions always run three_pass (a stable partition must know the total
// kept before it places a rejected element); asking one for single_pass is Errc::unsupported.
//   automatic    single_pass where the device can (Context::single_pass_available() and the ballot
//                path), else three_pass
//   three_pass   count per tile, gpuscan's scan of the counts, scatter: any device; reads the input
//                (or the flags) twice
//   single_pass  one dispatch; the tiles' kept counts are chained by the single-pass scan's decoupled
//                look-back with its fallback, so the input is read once. Needs the ballot path and what
//                the single-pass scan needs (Vulkan 1.2, 64-bit atomics); its temp is the look-back state,
//                so mind TempRequirements::usage and alignment, and SelectArgs::temp_zeroed.
enum class CompactAlgorithm : uint8_t { automatic, three_pass, single_pass };
std::string_view to_string(CompactAlgorithm algorithm) noexcept;  // "auto", "three-pass", "single-pass"
std::optional<CompactAlgorithm> parse_compact_algorithm(std::string_view name) noexcept;

struct CompactConfig {
  DataType type = DataType::u32;
  CompactPath path = CompactPath::automatic;
  // As in ScanConfig: W (0 = 256, else a power of two from 32 to the device maximum) and vectors per
  // lane K (0 = 4, else 1, 2, 4, 8 or 16). A tile holds W · K · 4 elements. The default K is 8 for
  // single-pass selections (by a predicate or by flags) of more than 2^23 elements where that tile fits
  // shared memory (not on lavapipe, whose 32 KiB it exceeds at W = 256): on the H200 3-10 % faster by a
  // predicate and 3-11 % by flags at 2^24 and 2^28 (bench/RESULTS.md). Devices without measurements
  // keep 4 (Context::tuning_profile "conservative").
  uint32_t workgroup_size = 0;
  uint32_t vectors_per_lane = 0;
  CompactAlgorithm algorithm = CompactAlgorithm::automatic;
  // single_pass: polls of a predecessor's state before counting its kept elements itself (0 = 1024, as
  // ScanConfig::spin_limit). Tests set 1 to force the fallback.
  uint32_t spin_limit = 0;
  // single_pass: tiles one workgroup takes in turn, as ScanConfig::tiles_per_workgroup (0 = the same
  // default: 4 above 512 tiles, else 1; 1 on lavapipe, and at most 4 there).
  uint32_t tiles_per_workgroup = 0;
};

template <Element T>
struct PartitionResult {
  std::vector<T> values;  // values.size() elements: [0, kept) kept, [kept, size) rejected, each in input order
  uint64_t kept = 0;      // read back from the GPU's count buffer
};

template <Element T>
bool Predicate::holds(T v, const T* before) const {
  const T ca = value<T>(a);
  const T cb = value<T>(b);
  switch (kind) {
    case PredicateKind::nonzero: return v != T(0);
    case PredicateKind::equal: return v == ca;
    case PredicateKind::not_equal: return v != ca;
    case PredicateKind::less: return v < ca;
    case PredicateKind::less_equal: return v <= ca;
    case PredicateKind::greater: return v > ca;
    case PredicateKind::greater_equal: return v >= ca;
    case PredicateKind::bits_set: return (bits(v) & a) != 0;
    case PredicateKind::in_range: return ca <= v && v <= cb;
    case PredicateKind::run_start: return before == nullptr || v != *before;
  }
  return false;
}

}  // namespace gpuscan
