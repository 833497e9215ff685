// Not part of gpuscan's stable API: what gpuscan's own tests, benchmarks and white-box tools need from the
// library beyond its public calls. UNSTABLE: any of it may change or go in any release, without notice;
// applications have no use for it. Two parts:
//   - TestHooks and create_context_for_tests: hooks that make rare paths run on small inputs (the
//     single-pass fallback, two-dimensional grids, windows past one binding). Results stay correct with
//     every hook, only slower.
//   - gpuscan::testkit: running a kernel that no call of gpuscan runs (the benchmarks' copy roofline) on
//     the OpenGL backend, and the constants such kernels are built with. Its Vulkan half -- buffers,
//     submissions, the benchmarks' own SPIR-V kernels, the sort cut short -- names Vulkan types, so it is
//     in gpuscan/vulkan/testing.hpp, which includes this header.
// Names no graphics API: the create_context_for_tests functions take the backends' types, declared here
// only, so a caller includes gpuscan/vulkan.hpp or gpuscan/gl.hpp as well; GL buffers are GLuint names as
// uint32_t, as in gpuscan/gl.hpp.
//
//   gpuscan::TestHooks hooks;
//   hooks.max_binding_bytes = 20000;   // windows of 4992 u32
//   auto ctx = gpuscan::create_context_for_tests({}, hooks);
//   auto gl_ctx = gpuscan::gl::create_context_for_tests({}, hooks);
#pragma once

#include <cstdint>
#include <span>
#include <string>

namespace gpuscan {

class Context;
struct ContextCreateInfo;
namespace gl {
class Context;
struct ContextCreateInfo;
}  // namespace gl

struct TestHooks {
  // Cap the grid width below the device's maximum workgroup count in x (0 = no cap), so that the
  // two-dimensional grids used for very large inputs run on small ones. Vulkan and GL.
  uint32_t max_workgroup_count_x = 0;
  // Bind at most this many bytes of a buffer per binding (0 = the device's maxStorageBufferRange, or GL's
  // GL_MAX_SHADER_STORAGE_BLOCK_SIZE), so that scans longer than one binding -- consecutive windows
  // chained on the GPU -- run on small inputs. With device addresses (Addressing::device_address) it caps
  // the bytes one window covers the same way. Vulkan and GL.
  uint64_t max_binding_bytes = 0;
  // Vulkan only, single-pass scans and compaction: tile 0's workgroup never publishes the last word of its
  // look-back state (for 4-byte types its only word; for 8-byte types the second of two, as a workgroup
  // descheduled between its two stores would leave it), so every other tile must compute tile 0's prefix
  // itself in the fallback (with the carry-in, if any). Single-pass scans in place refuse it
  // (Errc::invalid_argument): tile 0 would overwrite its input without publishing.
  bool withhold_first_tile = false;
  // Vulkan only, single-pass and look-ahead scans and compaction: a workgroup about to compute a predecessor's total in
  // the fallback first waits (boundedly) for that predecessor to publish its inclusive prefix, so that in
  // place the input it reads has most likely been overwritten already; the fallback must notice and drop
  // its total (shaders/common/lookback.glsl, "In place"). The tests use it with a spin limit of 1. In the
  // look-ahead scan, every window computes its newest tile's total from its input though it is published.
  bool late_fallback = false;
  // Vulkan only, single-pass scans and compaction: only tiles whose index is a multiple of this publish
  // their inclusive prefix (0 or 1: every tile); the others publish their total alone, so every look-back
  // folds many totals and, past a window's length, reaches beyond its first window. Results stay the
  // same, bit for bit for floats too (shaders/common/lookback.glsl, "Ordered").
  uint32_t prefix_stride = 0;
  // Vulkan only, look-ahead scans (Algorithm::look_ahead): the grid G, the number of workgroups that stride
  // over the tiles (0 = the device's default, core::look_ahead_default_grid), so that scans of a few times G tiles
  // run on small inputs. Float results are the same bits for one G, not across different ones.
  uint32_t look_ahead_grid = 0;
  // Vulkan only: every kernel is built requiring this subgroup size (VkPipelineShaderStageRequiredSubgroupSizeCreateInfo),
  // so that the tests run each size a device offers, not only the one its driver picks. 0: the driver's
  // choice. create_context_for_tests throws Errc::unsupported unless the device has subgroupSizeControl
  // for compute and the size is a power of two from DeviceInfo::min_subgroup_size to max_subgroup_size.
  // The Context's DeviceInfo::max_workgroup_invocations then shrinks to maxComputeWorkgroupSubgroups subgroups
  // of that size, which a pipeline requiring it may not exceed.
  uint32_t required_subgroup_size = 0;
};

// Context::create(info) with the hooks applied: they change only what the Context records afterwards.
Context create_context_for_tests(const ContextCreateInfo& info, const TestHooks& hooks);
// gl::Context::create(info) likewise; only where gpuscan was built with its OpenGL backend.
namespace gl {
Context create_context_for_tests(const ContextCreateInfo& info, const TestHooks& hooks);
}  // namespace gl

namespace testkit {

// The specialization constants a kernel of testkit::dispatch_kernel (and, on Vulkan, testkit::record_kernel)
// is built with: of gpuscan's constant ids (shaders/common/backend.glsl), the three that kernels outside
// gpuscan's calls read; every other id keeps gpuscan's default.
struct KernelConstants {
  uint32_t workgroup_size = 0;    // id 0, LOCAL_SIZE_X_FROM(0); 0 for a kernel with a fixed local size
  bool aux = false;               // id 2 (USE_AUX); what it switches is the kernel's own
  uint32_t vectors_per_lane = 4;  // id 3, VECTORS_PER_LANE
};

// One shader storage binding of a GL dispatch: glBindBufferRange(GL_SHADER_STORAGE_BUFFER, i, buffer,
// offset, size).
struct GlBinding {
  uint32_t buffer = 0;  // a GLuint buffer name
  uint64_t offset = 0;  // bytes; a multiple of GL_SHADER_STORAGE_BUFFER_OFFSET_ALIGNMENT
  uint64_t size = 0;    // bytes
};

// Issues one dispatch of the GL program of variant `name` that gpuscan assembles but none of its calls
// runs -- the benchmarks' copy roofline, "copy.u32" (shaders/copy.comp, GPUSCAN_BENCH_SHADER_VARIANTS) --
// with `buffers` at shader storage bindings 0.., `params` (at least one word) as its parameter block,
// and a (groups_x, groups_y) grid, as gpuscan issues its own passes. The caller orders it with
// glMemoryBarrier. Errc::invalid_argument unless the context is current on this thread.
void dispatch_kernel(const gl::Context& ctx, const std::string& name, const KernelConstants& constants,
                     std::span<const GlBinding> buffers, std::span<const uint32_t> params, uint32_t groups_x,
                     uint32_t groups_y = 1);

}  // namespace testkit

}  // namespace gpuscan
