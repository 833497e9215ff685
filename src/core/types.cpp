#include "gpuscan/types.hpp"

namespace gpuscan {

uint32_t element_size(DataType) noexcept { return 4; }

std::string_view to_string(DataType type) noexcept {
  switch (type) {
    case DataType::u32: return "u32";
    case DataType::i32: return "i32";
    case DataType::f32: return "f32";
  }
  return "?";
}

std::string_view to_string(ScanKind kind) noexcept {
  return kind == ScanKind::inclusive ? "inclusive" : "exclusive";
}

std::string_view to_string(WorkgroupAlgorithm a) noexcept {
  switch (a) {
    case WorkgroupAlgorithm::automatic: return "auto";
    case WorkgroupAlgorithm::blelloch: return "blelloch";
    case WorkgroupAlgorithm::subgroup: return "subgroup";
  }
  return "?";
}

std::string_view to_string(Algorithm a) noexcept {
  switch (a) {
    case Algorithm::automatic: return "auto";
    case Algorithm::single_pass: return "single-pass";
    case Algorithm::reduce_then_scan: return "reduce-then-scan";
    case Algorithm::multipass: return "multipass";
  }
  return "?";
}

std::optional<Algorithm> parse_algorithm(std::string_view name) noexcept {
  for (auto a : {Algorithm::automatic, Algorithm::single_pass, Algorithm::reduce_then_scan, Algorithm::multipass})
    if (name == to_string(a)) return a;
  return std::nullopt;
}

std::optional<DataType> parse_data_type(std::string_view name) noexcept {
  for (DataType t : {DataType::u32, DataType::i32, DataType::f32})
    if (name == to_string(t)) return t;
  return std::nullopt;
}

std::optional<WorkgroupAlgorithm> parse_workgroup_algorithm(std::string_view name) noexcept {
  for (auto a : {WorkgroupAlgorithm::automatic, WorkgroupAlgorithm::blelloch, WorkgroupAlgorithm::subgroup})
    if (name == to_string(a)) return a;
  return std::nullopt;
}

}  // namespace gpuscan
