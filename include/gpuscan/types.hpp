// Element types, scan kinds and algorithm choices shared by every gpuscan API.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace gpuscan {

enum class DataType : uint8_t { u32, i32, f32 };
enum class ScanKind : uint8_t { exclusive, inclusive };

// How a scan of a whole buffer is organised.
//   single_pass       one dispatch, chained scan with decoupled look-back and fallback: 2N bytes moved.
//                     Needs 64-bit buffer atomics; not in place.
//   reduce_then_scan  reduce tiles, scan the tile totals, scan tiles again with their offsets: 3N.
//   multipass         seed 001's scan-then-propagate with Blelloch or subgroup workgroup scans: 4N.
//   automatic         single_pass where the device can, the scan is not in place and it spans more
//                     than one tile but at most 2^21 elements (where it measured fastest, see
//                     bench/RESULTS.md); otherwise reduce_then_scan where the device has subgroup
//                     arithmetic; otherwise multipass with Blelloch workgroup scans.
enum class Algorithm : uint8_t { automatic, single_pass, reduce_then_scan, multipass };

// How one workgroup of the multipass scan scans its tile. `automatic` takes `subgroup` where the device has subgroup
// arithmetic in compute shaders, `blelloch` elsewhere.
enum class WorkgroupAlgorithm : uint8_t { automatic, blelloch, subgroup };

// Element type traits: DataType for the C++ types gpuscan scans.
template <class T> struct data_type_of;
template <> struct data_type_of<uint32_t> { static constexpr DataType value = DataType::u32; };
template <> struct data_type_of<int32_t> { static constexpr DataType value = DataType::i32; };
template <> struct data_type_of<float> { static constexpr DataType value = DataType::f32; };
template <class T>
concept Element = requires { data_type_of<T>::value; };

uint32_t element_size(DataType type) noexcept;                    // bytes: 4 for all types so far
std::string_view to_string(DataType type) noexcept;               // "u32", "i32", "f32"
std::string_view to_string(ScanKind kind) noexcept;               // "exclusive", "inclusive"
std::string_view to_string(WorkgroupAlgorithm algorithm) noexcept;  // "auto", "blelloch", "subgroup"
std::string_view to_string(Algorithm algorithm) noexcept;  // "auto", "single-pass", "reduce-then-scan", "multipass"
std::optional<Algorithm> parse_algorithm(std::string_view name) noexcept;
std::optional<DataType> parse_data_type(std::string_view name) noexcept;
std::optional<WorkgroupAlgorithm> parse_workgroup_algorithm(std::string_view name) noexcept;

struct ScanConfig {
  DataType type = DataType::u32;
  ScanKind kind = ScanKind::exclusive;
  Algorithm algorithm = Algorithm::automatic;
  WorkgroupAlgorithm workgroup = WorkgroupAlgorithm::automatic;  // multipass only
  // Invocations per workgroup W. 0 = default (256). Otherwise a power of two from 32 to the device's
  // maxComputeWorkGroupInvocations. Multipass tiles hold 2·W elements; single-pass and
  // reduce-then-scan tiles W · vectors_per_lane · 4.
  uint32_t workgroup_size = 0;
  // Tile kernels: 4-element vectors each invocation owns. 0 = default (4); otherwise 1, 2, 4, 8 or 16.
  uint32_t vectors_per_lane = 0;
  // Single-pass: polls of a predecessor's state before computing its total from its input instead.
  // 0 = default (64). Tests set 1 to force the fallback path.
  uint32_t spin_limit = 0;
};

inline constexpr uint32_t default_workgroup_size = 256;
inline constexpr uint32_t default_vectors_per_lane = 4;
inline constexpr uint32_t default_spin_limit = 64;

}  // namespace gpuscan
