// Element types, scan kinds and algorithm choices shared by every gpuscan API.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace gpuscan {

enum class DataType : uint8_t { u32, i32, f32 };
enum class ScanKind : uint8_t { exclusive, inclusive };

// How one workgroup scans its tile. `automatic` takes `subgroup` where the device has subgroup
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
std::optional<DataType> parse_data_type(std::string_view name) noexcept;
std::optional<WorkgroupAlgorithm> parse_workgroup_algorithm(std::string_view name) noexcept;

struct ScanConfig {
  DataType type = DataType::u32;
  ScanKind kind = ScanKind::exclusive;
  WorkgroupAlgorithm workgroup = WorkgroupAlgorithm::automatic;
  // Invocations per workgroup W; a tile is 2·W elements. 0 = default (256). Otherwise a power of two
  // from 32 to the device's maxComputeWorkGroupInvocations.
  uint32_t workgroup_size = 0;
};

inline constexpr uint32_t default_workgroup_size = 256;

}  // namespace gpuscan
