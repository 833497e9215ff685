// The reconvergence guarantee gpuscan's kernels declare (docs/design.md, "Reconvergence"). Core Vulkan does
// not promise that the invocations of a subgroup that diverged are together again at the next subgroup
// operation; SPV_KHR_maximal_reconvergence (MaximallyReconvergesKHR) and, weaker,
// SPV_KHR_subgroup_uniform_control_flow (SubgroupUniformControlFlowKHR) do, where the device enables them.
// glslc cannot put either into the shipped SPIR-V (lavapipe has neither, and Debian's glslc knows no GLSL for
// maximal reconvergence), so the modules are patched when the device is known, just before
// vkCreateShaderModule. Internal to the library.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include <vulkan/vulkan_core.h>

#include "gpuscan/vulkan.hpp"

namespace gpuscan::vk {

// VK_KHR_shader_maximal_reconvergence is newer than Debian 12's Vulkan headers (1.3.239): its name, its
// feature structure's sType and the structure, as the registry defines them.
inline constexpr const char* maximal_reconvergence_extension = "VK_KHR_shader_maximal_reconvergence";
inline constexpr auto maximal_reconvergence_features_type = static_cast<VkStructureType>(1000434000);
struct MaximalReconvergenceFeatures {  // VkPhysicalDeviceShaderMaximalReconvergenceFeaturesKHR
  VkStructureType sType = maximal_reconvergence_features_type;
  void* pNext = nullptr;
  VkBool32 shaderMaximalReconvergence = VK_FALSE;
};

// SPIR-V enumerants (SPIR-V registry, unified1/spirv.core.grammar.json).
inline constexpr uint32_t spirv_maximally_reconverges = 6023;             // ExecutionMode MaximallyReconvergesKHR
inline constexpr uint32_t spirv_subgroup_uniform_control_flow = 4421;    // ExecutionMode SubgroupUniformControlFlowKHR

// The strongest guarantee device `d` offers among those allowed: maximal, else subgroup-uniform, else none.
Reconvergence strongest_reconvergence(const DeviceInfo& d, bool maximal_allowed, bool subgroup_uniform_allowed);

// Whether a VK_LAYER_KHRONOS_validation of this spec version knows maximal reconvergence. Older ones (Debian 12's
// 1.3.239) report its feature structure in vkCreateDevice's pNext chain and MaximallyReconvergesKHR in every
// module as errors, so under them gpuscan stops at subgroup-uniform. The extension appeared in the 1.3.27x
// headers of early 2024; 1.3.280 is a safe bound.
inline bool layer_knows_maximal_reconvergence(uint32_t layer_spec_version) {
  return layer_spec_version >= VK_MAKE_API_VERSION(0, 1, 3, 280);
}

// A copy of `spirv` that declares `guarantee` for every GLCompute entry point: the SPIR-V extension after the
// last OpCapability and the execution mode after the last OpEntryPoint, each only where the module does not
// already have it; every other word unchanged. With Reconvergence::none, `spirv` as it is. Throws
// Errc::invalid_argument for a module that is not SPIR-V (too short, wrong magic number, an instruction
// running past the end) or has no GLCompute entry point.
//   auto words = with_reconvergence(shader, Reconvergence::maximal);
//   // ... OpCapability GroupNonUniformArithmetic
//   //     OpExtension "SPV_KHR_maximal_reconvergence"          <- added
//   //     %1 = OpExtInstImport "GLSL.std.450" ... OpEntryPoint GLCompute %4 "main" ...
//   //     OpExecutionMode %4 MaximallyReconvergesKHR           <- added
//   //     OpExecutionMode %4 LocalSize 64 1 1 ...
std::vector<uint32_t> with_reconvergence(std::span<const uint32_t> spirv, Reconvergence guarantee);

}  // namespace gpuscan::vk
