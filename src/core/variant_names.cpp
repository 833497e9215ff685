#include "core/variant_names.hpp"

namespace gpuscan::core {

std::string scan_variant_name(Kernel kernel, DataType type, WorkgroupAlgorithm workgroup) {
  std::string name = std::string(kernel_name(kernel)) + "." + std::string(to_string(type)) + ".add";
  if (kernel == Kernel::scan_local) name += "." + std::string(to_string(workgroup));
  return name;
}

std::string compact_variant_name(Kernel kernel, DataType type, bool ballot) {
  if (kernel == Kernel::compact_count || kernel == Kernel::compact_scatter || kernel == Kernel::compact_partition)
    return std::string(kernel_name(kernel)) + "." + std::string(to_string(type)) + (ballot ? ".ballot" : ".shared");
  return scan_variant_name(kernel, DataType::u32, WorkgroupAlgorithm::blelloch);
}

}  // namespace gpuscan::core
