// Not part of gpuscan's stable API: the Vulkan half of gpuscan/testing.hpp (which it includes), for
// gpuscan's own benchmarks and white-box tools. UNSTABLE: any of it may change or go in any release,
// without notice; applications have no use for it, and gpuscan/vulkan.hpp does not include it. What the
// benchmarks (bench/) need from the library beyond its public calls:
//   - Buffer: a VkBuffer with its own memory, device-local or mapped (their inputs, outputs, staging);
//   - submit_and_wait: one command buffer through the Context's queue, waited for, optionally timed
//     (host clocks and GPU timestamps; gpuscan_mpi_bench's breakdown), and the library's barrier and copy
//     helpers for the commands around gpuscan's;
//   - add_kernel / record_kernel: SPIR-V kernels of their own (the copy roofline, the huge scans' fill and
//     check) run with gpuscan's pipeline layout, as gpuscan runs its passes;
//   - window_elements: how many elements one window of a scan past one binding holds;
//   - record_sort_stages: the radix sort cut short after a stage, for per-stage times.
//
//   gpuscan::testkit::Buffer in(ctx, bytes, usage, gpuscan::testkit::Memory::device_local);
//   gpuscan::testkit::submit_and_wait(ctx, [&](VkCommandBuffer cmd) { gpuscan::record_scan(ctx, cmd, args); });
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>

#include <vulkan/vulkan_core.h>

#include "gpuscan/testing.hpp"
#include "gpuscan/vulkan/context.hpp"
#include "gpuscan/vulkan/sort.hpp"

namespace gpuscan {

namespace vk {
class OwnedBuffer;  // the library's own (src/vulkan/memory.hpp)
}  // namespace vk

namespace testkit {

// Where a Buffer's memory lives: device_local; host_visible (mapped, coherent); host_readback (mapped,
// coherent, preferring a HOST_CACHED type, for data the CPU reads back in bulk).
enum class Memory { device_local, host_visible, host_readback };

// A VkBuffer and its memory, freed with it; movable, not copyable. Default-constructed: none (handle()
// VK_NULL_HANDLE).
class Buffer {
 public:
  Buffer() noexcept;
  // A buffer of `bytes` bytes (at least 4) of ctx's device with `usage`; with SHADER_DEVICE_ADDRESS usage
  // its memory is allocated with DEVICE_ADDRESS. Throws Errc::vulkan_error (e.g. out of device memory)
  // or Errc::unsupported (no memory type of that kind).
  Buffer(const Context& ctx, VkDeviceSize bytes, VkBufferUsageFlags usage, Memory memory);
  Buffer(Buffer&&) noexcept;
  Buffer& operator=(Buffer&&) noexcept;
  ~Buffer();

  VkBuffer handle() const noexcept;
  VkDeviceSize size() const noexcept;
  void* mapped() const noexcept;  // host_visible and host_readback; nullptr for device_local
  // The whole buffer from `offset`, for the recording calls.
  BufferView view(VkDeviceSize offset = 0) const noexcept;

 private:
  std::unique_ptr<vk::OwnedBuffer> buffer_;
};

// Where one submit_and_wait's time went, in milliseconds: host steady_clock around the recording, the
// vkQueueSubmit (queue lock included) and the wait for the fence; gpu is between timestamps written at
// the start and the end of the command buffer (0 where the queue has no timestamps).
struct SubmitTimes {
  double record = 0, submit = 0, wait = 0, gpu = 0;
};

// Records `record` into a command buffer of the Context's, submits it to ctx.queue() and waits for it
// (as long as ContextCreateInfo::timeout_ms allows: Errc::timeout after that), as gpuscan's convenience
// calls do; the caller's commands bring their own barriers. With `times`, fills it.
void submit_and_wait(const Context& ctx, const std::function<void(VkCommandBuffer)>& record,
                     SubmitTimes* times = nullptr);

// The library's own command helpers, for the caller's commands around gpuscan's (plain Vulkan, through ctx's
// Vulkan functions, so a program that links no loader may use them): a global
// memory barrier from `src_stage` / `src_access` to `dst_stage` / `dst_access`; and a copy of `bytes` from
// the start of `src` to the start of `dst`, after what `src_stage` / `src_access` name and before what
// `dst_stage` / `dst_access` name.
void memory_barrier(const Context& ctx, VkCommandBuffer cmd, VkPipelineStageFlags src_stage, VkAccessFlags src_access,
                    VkPipelineStageFlags dst_stage, VkAccessFlags dst_access);
void copy_with_barrier(const Context& ctx, VkCommandBuffer cmd, VkBuffer src, VkBuffer dst, VkDeviceSize bytes,
                       VkPipelineStageFlags src_stage, VkAccessFlags src_access, VkPipelineStageFlags dst_stage,
                       VkAccessFlags dst_access);

// Gives ctx the compute kernel `spirv` as variant `name`, unless it has one of that name already (so a
// caller may add its kernels before every use). Its interface is gpuscan's pipeline layout: at most 6
// storage buffers (set 0, bindings 0..5, pushed as descriptors) and 22 words of push constants.
void add_kernel(const Context& ctx, const std::string& name, std::span<const uint32_t> spirv);

// Records one dispatch of kernel `name` (add_kernel), built with `constants` on first use: `buffers` at
// bindings 0.., `push_words` from word 0 (the rest zero) and a (groups_x, groups_y) grid. The caller
// records the barriers around it. Errc::invalid_argument for more than 6 buffers or 22 words.
void record_kernel(const Context& ctx, VkCommandBuffer cmd, const std::string& name, const KernelConstants& constants,
                   std::span<const VkDescriptorBufferInfo> buffers, std::span<const uint32_t> push_words,
                   uint32_t groups_x, uint32_t groups_y = 1);

// The elements of `element_bytes` bytes in one window of ctx's scans and reductions longer than one
// binding (docs/scan.md, "Buffers larger than one binding"), through bindings or, with `device_address`,
// through device addresses.
uint64_t window_elements(const Context& ctx, uint32_t element_bytes, bool device_address = false);

// How much of the radix sort record_sort_stages records: of the first pass (multipass), or of every
// pass (onesweep's counts).
enum class SortStages {
  counts,           // multipass: pass 1's tile digit counts; onesweep: every pass's digit counts
  counts_and_scan,  // and their exclusive scan
  all,              // the whole sort
};

// What record_sort_pairs records with `args`, cut short after `stages` (config.value_bytes 0: keys only,
// the values ignored). For per-stage times: unless `stages` is all, the result is not a sort.
void record_sort_stages(const Context& ctx, VkCommandBuffer cmd, const SortPairsArgs& args, SortStages stages);

}  // namespace testkit
}  // namespace gpuscan
