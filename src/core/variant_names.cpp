#include "core/variant_names.hpp"

namespace gpuscan::core {

std::string scan_variant_name(Kernel kernel, DataType type, Op op, WorkgroupAlgorithm workgroup) {
  if (kernel == Kernel::indirect_count) return "indirect_count";  // counts are u32 whatever is scanned
  // Both carry kernels are window_carry.comp, told apart by its SAVE constant (PipelineKey::use_aux).
  const bool carry = kernel == Kernel::carry_save || kernel == Kernel::carry_update;
  std::string name = std::string(carry ? "window_carry" : kernel_name(kernel)) + "." + std::string(to_string(type));
  if (kernel == Kernel::single_pass || kernel == Kernel::look_ahead) name += "." + std::string(to_string(op));
  if (kernel == Kernel::scan_local) name += "." + std::string(to_string(workgroup));
  return name;
}

std::string custom_variant_name(Kernel kernel) {
  return kernel == Kernel::carry_save || kernel == Kernel::carry_update ? "window_carry" : kernel_name(kernel);
}

std::string compact_variant_name(Kernel kernel, DataType type, bool ballot) {
  if (kernel == Kernel::compact_count || kernel == Kernel::compact_scatter || kernel == Kernel::compact_partition ||
      kernel == Kernel::compact_single_pass)
    return std::string(kernel_name(kernel)) + "." + std::string(to_string(type)) + (ballot ? ".ballot" : ".shared");
  return scan_variant_name(kernel, DataType::u32, Op::add, WorkgroupAlgorithm::blelloch);
}

}  // namespace gpuscan::core
