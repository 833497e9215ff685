// gpuscan on Vulkan: the Context (created by gpuscan or adopted from the application), what gpuscan
// learned about the device, and the buffer views every recording call takes. The calls themselves are in
// gpuscan/vulkan/scan.hpp, reduce.hpp, segmented.hpp, segmented_reduce.hpp, compact.hpp, run_length.hpp,
// sort.hpp, histogram.hpp and stream.hpp; gpuscan/vulkan.hpp includes them all.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <vulkan/vulkan_core.h>

#include "gpuscan/error.hpp"
#include "gpuscan/message.hpp"
#include "gpuscan/types.hpp"
#include "gpuscan/vulkan/error.hpp"

namespace gpuscan {

namespace detail {
struct ContextAccess;  // the backend's way to a Context's state (src/vulkan/context_impl.hpp)
}  // namespace detail

// What gpuscan learned about a physical device.
struct DeviceInfo {
  uint32_t index = 0;                   // position in vkEnumeratePhysicalDevices
  std::string name;
  VkPhysicalDeviceType type = VK_PHYSICAL_DEVICE_TYPE_OTHER;
  uint32_t api_version = 0;
  uint32_t subgroup_size = 0;
  // The widest subgroup a kernel may run with: VK_EXT_subgroup_size_control's maxSubgroupSize (core in
  // Vulkan 1.3), else subgroup_size. gpuscan's workgroups are at least this wide (docs/design.md, "Subgroup
  // sizes"): a default workgroup size is raised to it, a narrower requested one is Errc::invalid_argument.
  uint32_t max_subgroup_size = 0;
  // The narrowest likewise: minSubgroupSize, else subgroup_size.
  uint32_t min_subgroup_size = 0;
  // VK_EXT_subgroup_size_control's features (core in Vulkan 1.3): subgroupSizeControl with compute among
  // requiredSubgroupSizeStages -- a pipeline may require any power-of-two size from min_subgroup_size to
  // max_subgroup_size (TestHooks::required_subgroup_size runs the kernels so) -- and computeFullSubgroups.
  // gpuscan enables both on the devices it creates and builds every kernel with full subgroups.
  bool subgroup_size_control = false;
  bool compute_full_subgroups = false;
  uint32_t max_compute_workgroup_subgroups = 0;  // maxComputeWorkgroupSubgroups; 0 where not reported
  VkSubgroupFeatureFlags subgroup_operations = 0;  // in compute shaders; 0 where unsupported
  bool push_descriptors = false;                   // VK_KHR_push_descriptor, which gpuscan needs
  // What the single-pass scan needs: Vulkan 1.2 with shaderInt64 and shaderBufferInt64Atomics, and
  // subgroup arithmetic, shuffles and ballot in compute shaders.
  bool single_pass_capable = false;
  // 64-bit element types: shaderInt64 for u64 and i64 (and shaderSubgroupExtendedTypes, Vulkan 1.2,
  // for their subgroup operations: reduce-then-scan, single-pass and the subgroup workgroup scan),
  // shaderFloat64 for f64. gpuscan enables them on the devices it creates.
  bool shader_int64 = false;
  bool shader_float64 = false;
  bool subgroup_extended_types = false;
  // Vulkan 1.2's bufferDeviceAddress feature: scans and reductions can then read and write the caller's
  // buffers through 64-bit device addresses (Addressing::device_address). gpuscan enables it on the
  // devices it creates.
  bool buffer_device_address = false;
  // Reconvergence guarantees for subgroup operations (Reconvergence below): VK_KHR_shader_subgroup_uniform_control_flow
  // with shaderSubgroupUniformControlFlow, and VK_KHR_shader_maximal_reconvergence with shaderMaximalReconvergence
  // (which needs the former extension too).
  bool subgroup_uniform_control_flow = false;
  bool maximal_reconvergence = false;
  // VK_KHR_pipeline_executable_properties: the driver reports its compiler's statistics per pipeline
  // (ContextCreateInfo::on_pipeline_statistics receives them).
  bool pipeline_executable_properties = false;
  // What a saved pipeline cache must match to be reused (VkPipelineCacheHeaderVersionOne): data from
  // another vendor, device or driver build is of no use (ContextCreateInfo::load_pipeline_cache).
  uint32_t vendor_id = 0;
  uint32_t device_id = 0;
  std::array<uint8_t, VK_UUID_SIZE> pipeline_cache_uuid{};
  uint32_t max_workgroup_invocations = 0;
  uint32_t max_workgroup_count[3] = {0, 0, 0};
  uint64_t max_storage_buffer_range = 0;
  uint64_t min_storage_buffer_offset_alignment = 0;
  uint32_t max_shared_memory_bytes = 0;
  // The device's streaming multiprocessors (VK_NV_shader_sm_builtins: shaderSMCount), compute units
  // (VK_AMD_shader_core_properties: engines x arrays per engine x units per array) or shader cores
  // (VK_ARM_shader_core_builtins: shaderCoreCount), where the driver reports them; 0 where it does not.
  // The look-ahead scan sizes its grid by it (docs/scan.md, "Look-ahead: tile totals only").
  uint32_t shader_cores = 0;
  // The size of the device's largest memory heap: no buffer can be larger, so a count whose elements take
  // more bytes is Errc::too_large at once, before anything is planned or allocated.
  uint64_t largest_memory_heap_bytes = 0;
  float timestamp_period_ns = 0;                   // 0 if the queue has no timestamps

  // Whether gpuscan's subgroup kernels run: they need arithmetic, and the 32-bit integer scans shuffle
  // and shuffle_relative too (shaders/common/scan_element.glsl); every driver known to offer arithmetic
  // offers both. Without them the subgroup-free kernels run.
  bool has_subgroup_arithmetic() const noexcept {
    constexpr VkSubgroupFeatureFlags needed = VK_SUBGROUP_FEATURE_ARITHMETIC_BIT | VK_SUBGROUP_FEATURE_SHUFFLE_BIT |
                                              VK_SUBGROUP_FEATURE_SHUFFLE_RELATIVE_BIT;
    return (subgroup_operations & needed) == needed;
  }
  bool has_subgroup_ballot() const noexcept { return (subgroup_operations & VK_SUBGROUP_FEATURE_BALLOT_BIT) != 0; }
};

std::string_view to_string(VkPhysicalDeviceType type) noexcept;  // "discrete GPU", "CPU", ...

// How scans and reductions reach the caller's input and output (docs/scan.md, "Buffers larger than one
// binding"):
//   bindings:       storage-buffer bindings of at most maxStorageBufferRange bytes each (128 MiB on
//                   lavapipe, 4 GiB - 1 on an H200); longer arrays run as windows of one binding each.
//   device_address: 64-bit buffer device addresses (Vulkan 1.2 bufferDeviceAddress): no binding limit,
//                   so a window holds up to 2^31 elements (32-bit indices inside a window). The input
//                   and output buffers must have VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT (and their
//                   memory VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT); Errc::missing_usage otherwise.
//   automatic:      device_address when the device has it, the array needs more than one binding and
//                   both buffers have that usage bit; bindings otherwise.
// A property of the Context (ContextCreateInfo / AdoptInfo), not of ScanConfig: it depends on a
// device feature chosen when the device is created, and ScanConfig is shared with the OpenGL backend,
// which has bindings only. Custom operators (ScanConfig::custom_op) use bindings only: with
// `device_address` their scans throw Errc::unsupported. Segmented scans and compaction use bindings
// whatever the setting. gpuscan's own buffers (convenience and streaming calls) have the usage bit
// whenever the context can use device addresses.
enum class Addressing { automatic, bindings, device_address };
std::string_view to_string(Addressing addressing) noexcept;  // "automatic", "bindings", "device_address"

// Which guarantee every gpuscan kernel declares that the invocations of a subgroup that diverged are together
// again at its subgroup operations (docs/design.md, "Reconvergence"). Core Vulkan promises neither:
//   maximal:          MaximallyReconvergesKHR (VK_KHR_shader_maximal_reconvergence), the stronger one;
//   subgroup_uniform: SubgroupUniformControlFlowKHR (VK_KHR_shader_subgroup_uniform_control_flow);
//   none:             the device offers neither (lavapipe), or it was turned off or not enabled.
// Contexts gpuscan creates take the strongest the device offers (ContextCreateInfo::use_reconvergence_guarantee);
// adopted ones what AdoptInfo says the device was created with.
enum class Reconvergence { none, subgroup_uniform, maximal };
std::string_view to_string(Reconvergence guarantee) noexcept;  // "none", "subgroup-uniform", "maximal"

// One statistic of a compiled pipeline, as the driver names and reports it
// (VK_KHR_pipeline_executable_properties): registers, shared memory, spills, ...
struct PipelineStatistic {
  std::string name;  // "VGPRs", "Shared memory size", ... (the driver's words)
  std::variant<bool, int64_t, uint64_t, double> value;
};

// The statistics of one executable (a compute shader) of a pipeline gpuscan built: what
// ContextCreateInfo::on_pipeline_statistics receives.
struct PipelineStatistics {
  std::string variant;              // the shader variant (shaders/variants.cmake): "scan_tiles.u32"
  std::vector<uint32_t> constants;  // its specialization constants, by constant id
  std::string executable;           // the driver's name for the executable
  std::vector<PipelineStatistic> statistics;
};
using PipelineStatisticsCallback = std::function<void(const PipelineStatistics&)>;

struct ContextCreateInfo {
  // Which physical device: "" = the first discrete GPU, then integrated, then virtual, then CPU
  // (Context::preferred_devices). Otherwise an index into the device list or a case-insensitive
  // substring of the device name. gpuscan reads no environment variable; the CLI, the tests and the
  // Python module fill this in from GPUSCAN_DEVICE.
  std::string device_selector;
  // Load VK_LAYER_KHRONOS_validation with synchronization validation; Errc::unsupported if the layer
  // is not installed. Messages go to on_message.
  bool enable_validation = false;
  MessageCallback on_message;  // optional
  // How scans and reductions reach the caller's buffers. Errc::unsupported for device_address on a
  // device without bufferDeviceAddress (DeviceInfo::buffer_device_address).
  Addressing addressing = Addressing::automatic;
  // How long convenience calls wait for the GPU before throwing Errc::timeout, in milliseconds; 0 = 60 s.
  // After a timeout, destroy the Context: it waits for the device to go idle and then frees what the
  // timed-out submission used. (The CLI and the tests take it from GPUSCAN_TIMEOUT_MS.)
  uint32_t timeout_ms = 0;
  // Enable the strongest reconvergence guarantee the device offers (maximal, else subgroup-uniform) and declare
  // it in every kernel (Reconvergence); with enable_validation and a validation layer older than 1.3.280, which
  // does not know maximal reconvergence, at most subgroup-uniform. false = declare none, leaving reconvergence
  // to the driver (for A/B comparisons: gpuscan_bench --no-reconvergence).
  bool use_reconvergence_guarantee = true;
  // Optional: receives the compiler statistics of every pipeline as gpuscan builds it, one call per
  // executable, on the thread that builds it and with the Context's pipeline lock held (so the callback
  // must not call gpuscan with this Context). Where the device offers VK_KHR_pipeline_executable_properties
  // (DeviceInfo::pipeline_executable_properties) gpuscan then enables it; elsewhere it is never called.
  //   info.on_pipeline_statistics = [](const gpuscan::PipelineStatistics& s) { log(s.variant, s.statistics); };
  PipelineStatisticsCallback on_pipeline_statistics;
  // How long convenience calls poll their fence before a blocking wait, in microseconds (a blocking wait
  // can add about a millisecond of wake-up latency); unset = 2000, 0 = block at once.
  std::optional<uint32_t> fence_poll_us;
  // Optional: the initial contents of the Context's pipeline cache, called once the device is chosen and
  // before any pipeline is built; return what Context::pipeline_cache_data() gave in an earlier run on
  // that device (kept by the application, e.g. in a file named by DeviceInfo::vendor_id, device_id and
  // pipeline_cache_uuid), or nothing. Data whose header does not match the device (another device or
  // driver, a truncated or damaged file) is ignored: the cache then starts empty, and creation never
  // fails because of it. Exceptions from the callback propagate out of create().
  std::function<std::vector<std::byte>(const DeviceInfo&)> load_pipeline_cache;
  // Optional: the vkGetInstanceProcAddr gpuscan loads every Vulkan function through (an application's
  // loader: volk's, or one it resolved itself). null: gpuscan opens the system loader at run time
  // (libvulkan.so.1; Errc::no_device where there is none). gpuscan links no Vulkan symbol (docs/scan.md,
  // "Your own Vulkan loader").
  PFN_vkGetInstanceProcAddr get_instance_proc_addr = nullptr;
};

// An application's own Vulkan objects for Context::adopt. gpuscan does not destroy them. The device
// must have been created with API version 1.1 or later and with VK_KHR_push_descriptor enabled
// (Context::required_device_extensions()); the queue must support compute.
struct AdoptInfo {
  VkInstance instance = VK_NULL_HANDLE;
  VkPhysicalDevice physical_device = VK_NULL_HANDLE;
  VkDevice device = VK_NULL_HANDLE;
  VkQueue queue = VK_NULL_HANDLE;
  uint32_t queue_family_index = 0;
  // Set if the device was created with shaderInt64 and shaderBufferInt64Atomics enabled (Vulkan 1.2
  // features): then the single-pass scan is available. Vulkan cannot be asked which
  // features a device was created with, so the application says so.
  bool single_pass_features_enabled = false;
  // Likewise for the 64-bit element types: set each one the device was created with. Without
  // shaderInt64, u64 and i64 scans throw Errc::unsupported; without shaderSubgroupExtendedTypes they
  // run as multipass scans with the blelloch workgroup scan only; without shaderFloat64 f64 scans throw.
  bool shader_int64_enabled = false;
  bool subgroup_extended_types_enabled = false;
  bool shader_float64_enabled = false;
  // Set if the device was created with Vulkan 1.2's bufferDeviceAddress enabled; without it scans use
  // bindings only, and addressing = device_address throws Errc::unsupported.
  bool buffer_device_address_enabled = false;
  // Set if the device was created with subgroupSizeControl and computeFullSubgroups enabled
  // (VK_EXT_subgroup_size_control or Vulkan 1.3): gpuscan then builds its kernels with full subgroups.
  bool subgroup_size_control_enabled = false;
  bool compute_full_subgroups_enabled = false;
  Addressing addressing = Addressing::automatic;  // as ContextCreateInfo::addressing
  // Set if the device was created with VK_KHR_shader_maximal_reconvergence and shaderMaximalReconvergence
  // enabled, or with VK_KHR_shader_subgroup_uniform_control_flow and shaderSubgroupUniformControlFlow: the
  // kernels then declare that guarantee (the stronger one if both). Unset: they declare none (Reconvergence).
  bool maximal_reconvergence_enabled = false;
  bool subgroup_uniform_control_flow_enabled = false;
  // Optional: the application's pipeline cache, which gpuscan then builds its pipelines with (and
  // Context::pipeline_cache_data reads); gpuscan does not destroy it. Unless it was created with
  // VK_PIPELINE_CACHE_CREATE_EXTERNALLY_SYNCHRONIZED_BIT, the application may use it at the same time.
  // VK_NULL_HANDLE: gpuscan creates an empty cache of its own.
  VkPipelineCache pipeline_cache = VK_NULL_HANDLE;
  std::optional<uint32_t> fence_poll_us;  // as ContextCreateInfo::fence_poll_us
  // The vkGetInstanceProcAddr the instance was created through (volk's `vkGetInstanceProcAddr` after
  // volkInitialize, or the application's own): gpuscan loads the instance's and the device's functions
  // through it (device-level ones through vkGetDeviceProcAddr). null: the system loader's, opened at run time.
  PFN_vkGetInstanceProcAddr get_instance_proc_addr = nullptr;
};

// The DeviceInfo of one of `instance`'s physical devices: an application's own, before it creates a device
// on it or after. Errc::null_handle for a null handle, Errc::invalid_argument if `physical` is not one of
// the devices the instance enumerates. `get_instance_proc_addr`: as AdoptInfo's (null: the system loader).
DeviceInfo device_info_of(VkInstance instance, VkPhysicalDevice physical,
                          PFN_vkGetInstanceProcAddr get_instance_proc_addr = nullptr);

// What gpuscan enables on a device it creates itself, for an application that creates its own device
// and adopts it: the extensions and features to enable, each one the physical device supports, and the
// AdoptInfo flags that say so. Context::create enables exactly these.
//
//   gpuscan::DeviceRequirements need(instance, physical);
//   std::vector<const char*> exts(need.extensions().begin(), need.extensions().end());   // plus the app's
//   VkDeviceCreateInfo info{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
//   info.pNext = need.features();   // a VkPhysicalDeviceFeatures2 chain (or link the app's own after it)
//   info.enabledExtensionCount = uint32_t(exts.size()); info.ppEnabledExtensionNames = exts.data(); ...
//   vkCreateDevice(physical, &info, nullptr, &device);
//   gpuscan::AdoptInfo adopt{instance, physical, device, queue, family};
//   need.apply(adopt);              // every *_enabled flag, as the features above enable them
//   auto ctx = gpuscan::Context::adopt(adopt);
//
// The chain is owned by this object (copies share it): keep it alive until vkCreateDevice returns; do not
// write to it. Features that are Vulkan 1.3 core on a device without their extension (subgroup size
// control) are asked for only where the loader and the device both speak 1.3: create the instance with
// apiVersion 1.3 or later for them. Throws Errc::unsupported for a device gpuscan cannot run on (no Vulkan 1.1, no push
// descriptors), naming what it lacks.
class DeviceRequirements {
 public:
  struct Options {
    // Ask for the strongest reconvergence guarantee the device offers (ContextCreateInfo::
    // use_reconvergence_guarantee); with `validation_layer`, only what the installed validation layer
    // knows (Debian 12's refuses VK_KHR_shader_maximal_reconvergence).
    bool reconvergence = true;
    bool validation_layer = false;
    // VK_KHR_pipeline_executable_properties, for ContextCreateInfo::on_pipeline_statistics.
    bool pipeline_statistics = false;
    // As AdoptInfo::get_instance_proc_addr (null: the system loader).
    PFN_vkGetInstanceProcAddr get_instance_proc_addr = nullptr;
  };
  DeviceRequirements(VkInstance instance, VkPhysicalDevice physical, Options options);
  DeviceRequirements(VkInstance instance, VkPhysicalDevice physical) : DeviceRequirements(instance, physical, Options{}) {}

  std::span<const char* const> extensions() const noexcept;
  const VkPhysicalDeviceFeatures2* features() const noexcept;
  // Sets every AdoptInfo::*_enabled flag to what features() enables.
  void apply(AdoptInfo& info) const noexcept;

  struct Impl;
  const Impl& impl() const noexcept { return *impl_; }

 private:
  std::shared_ptr<const Impl> impl_;
};

// A Context owns gpuscan's pipelines for one device (and the instance and device themselves when it
// created them). It is thread-safe: scans on several threads may share one Context.
//   - Pipelines are built when first needed, or up front by the prepare_* calls (prepare_scan in
//     gpuscan/vulkan/scan.hpp), and kept until the Context is destroyed. Building one takes the Context's
//     pipeline lock exclusively, so a record_* call that finds its pipeline missing compiles it in the
//     caller's frame and meanwhile stalls records on other threads. Once a configuration is prepared, its
//     records find every pipeline and take that lock only shared: they run concurrently and build nothing.
//   - Records of a custom operator (ScanConfig::custom_op) look its compiled snippet up under the
//     exclusive lock, briefly; its first use compiles it there (compile_custom_op does so up front).
//   - Convenience calls serialize their queue submissions under a queue lock and reuse command pools
//     and fences from a shared list under a lock of its own.
class Context {
 public:
  // Creates an instance and a device. Throws Errc::no_device if there is no Vulkan device (or none that
  // matches the selector), Errc::unsupported if the chosen one lacks Vulkan 1.1 or push descriptors.
  //   auto ctx = gpuscan::Context::create();
  //   std::cout << ctx.device_info().name;        // "llvmpipe (LLVM 15.0.6, 256 bits)"
  // gpuscan's tests create theirs with gpuscan::create_context_for_tests (gpuscan/testing.hpp, unstable).
  static Context create(const ContextCreateInfo& info = {});
  // Uses the application's instance, device and queue.
  static Context adopt(const AdoptInfo& info);
  // Every physical device the Vulkan loader reports, in order (through `get_instance_proc_addr`, or the
  // system loader where null). Throws Errc::no_device without a loader or driver.
  static std::vector<DeviceInfo> list_devices(PFN_vkGetInstanceProcAddr get_instance_proc_addr = nullptr);
  // The devices Context::create chooses among when no selector is given: those gpuscan can run on, of
  // the best type present (discrete GPUs if any, else integrated, virtual, CPU), in enumeration order.
  // create() takes the first; gpuscan::mpi spreads the ranks of a node over all of them.
  static std::vector<DeviceInfo> preferred_devices(PFN_vkGetInstanceProcAddr get_instance_proc_addr = nullptr);
  // Device extensions an adopted device must have enabled.
  static std::vector<const char*> required_device_extensions();

  Context(Context&&) noexcept;
  Context& operator=(Context&&) noexcept;
  ~Context();

  const DeviceInfo& device_info() const noexcept;
  VkInstance instance() const noexcept;
  VkPhysicalDevice physical_device() const noexcept;
  VkDevice device() const noexcept;
  VkQueue queue() const noexcept;
  uint32_t queue_family_index() const noexcept;

  // Whether this context can run the single-pass scan (device support and features enabled).
  bool single_pass_available() const noexcept;
  // The addressing policy it was created with, and whether device addresses can be used at all.
  Addressing addressing() const noexcept;
  bool device_address_available() const noexcept;
  // The reconvergence guarantee its kernels declare.
  //   gpuscan::to_string(ctx.reconvergence());   // "none" on lavapipe, "maximal" where the driver offers it
  Reconvergence reconvergence() const noexcept;
  // The workgroup algorithm `automatic` resolves to on this device for elements of `type` (multipass
  // scans).
  WorkgroupAlgorithm resolve(WorkgroupAlgorithm requested, DataType type = DataType::u32) const;
  // The algorithm a scan of `count` elements would use (in place or not, the same), with input and
  // output offsets that are multiples of 4 elements (16 bytes, or 32 for 64-bit types: `vector_aligned`)
  // or not; throws Errc::unsupported (or invalid_argument) when the type, the operator or an
  // explicitly requested algorithm cannot run so, saying why.
  Algorithm resolve(const ScanConfig& config, uint64_t count, bool vector_aligned = true) const;
  // The workgroup size (W) and vectors per lane (K) a scan of `count` elements runs with: the config's
  // where set, else the defaults for its algorithm, type, kind and count (single-pass and
  // reduce-then-scan vary them with the count: "Single-pass tile shapes" and "Reduce-then-scan tile
  // shapes" in docs/scan.md).
  uint32_t workgroup_size(const ScanConfig& config, uint64_t count) const;
  uint32_t vectors_per_lane(const ScanConfig& config, uint64_t count) const;
  // A sentence on how a scan of `count` elements of `type` reaches its buffers (Addressing) and in
  // windows of how many elements (for `gpuscan info`).
  std::string describe_addressing(DataType type, uint64_t count) const;
  // A sentence on what runs for `count` elements and why (for `gpuscan info`).
  std::string describe_choice(const ScanConfig& config, uint64_t count = 1u << 24) const;
  // The tuning profile the default shapes, limits and tile counts come from, chosen for the device by
  // its PCI vendor and device ID (docs/design.md, "Tuning profiles"), and where its numbers came from.
  //   ctx.tuning_profile();          // "nvidia-h200", "nvidia-h100", "lavapipe" or "conservative"
  //   ctx.tuning_profile_source();   // "measured on an NVIDIA H200, driver 580.159.04 (bench/RESULTS.md)"
  std::string_view tuning_profile() const noexcept;
  std::string_view tuning_profile_source() const noexcept;

  // The contents of the Context's pipeline cache (vkGetPipelineCacheData), to be saved and given back
  // through ContextCreateInfo::load_pipeline_cache in a later run, which then builds its pipelines from
  // the cache instead of compiling them again.
  //   const std::vector<std::byte> data = ctx.pipeline_cache_data();   // write it to a file
  std::vector<std::byte> pipeline_cache_data() const;
  // How many pipelines the Context holds: each built once (by a prepare_* call or on first use), kept
  // until the Context is destroyed. A count that does not change across a record_* call means the call
  // built nothing.
  size_t pipeline_count() const;

  struct Impl;  // the backend's state (src/vulkan/context_impl.hpp)

 private:
  friend struct detail::ContextAccess;
  explicit Context(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// A range of a caller's VkBuffer. gpuscan cannot query a buffer's size or usage from Vulkan, so the
// caller states them; they are checked against every request.
struct BufferView {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceSize buffer_size = 0;    // size the buffer was created with, in bytes
  VkBufferUsageFlags usage = 0;    // usage it was created with; must include STORAGE_BUFFER
  VkDeviceSize offset = 0;         // byte offset of element 0; a multiple of the element size
};

// Temporary storage a scan needs. size may be 0 (multipass and reduce-then-scan scans that fit one
// tile need none); then the temp view passed to record_scan may be empty. A single-pass scan always
// needs its look-back state (8 bytes, plus 16 per tile for the 32-bit types and 32 for the 64-bit ones).
struct TempRequirements {
  VkDeviceSize size = 0;
  VkBufferUsageFlags usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;  // the single-pass scan adds TRANSFER_DST
  VkDeviceSize alignment = 4;  // temp.offset must be a multiple of this
};

// An element count in GPU memory, written by an earlier pass on the GPU (a compaction's count, say):
// ScanArgs::count_from. The scan reads it when it runs, so nothing goes through the host.
struct IndirectCount {
  BufferView buffer;     // the count, a u32 (or with is_64bit a u64, low word first) at buffer.offset
  bool is_64bit = false;
  // Optional (buffer VK_NULL_HANDLE = none): a u32 the scan sets to 0 when the count was at most
  // ScanArgs::count, or to 1 when it was larger and only the first ScanArgs::count elements were
  // scanned (nothing is ever written past the bound).
  BufferView status;
};

// Whether `data` begins with a pipeline cache header that fits `device` (VkPipelineCacheHeaderVersionOne:
// its size, version, vendor id, device id and pipelineCacheUUID): what data from
// ContextCreateInfo::load_pipeline_cache must pass to be used. Vulkan offers no check of the rest; drivers
// validate it themselves.
//   if (!gpuscan::pipeline_cache_fits(file_bytes, ctx.device_info())) { /* another device's, or damaged */ }
bool pipeline_cache_fits(std::span<const std::byte> data, const DeviceInfo& device) noexcept;

// What the records that a prepare_* call (prepare_scan, prepare_reduce, prepare_compact,
// prepare_segmented_scan) readies the pipelines for look like, beyond their config and count. Records
// that differ still run, building what they miss when first recorded.
struct PrepareOptions {
  bool in_place = false;  // output == input (scans)
  bool indirect = false;  // the count comes from GPU memory (count_from); max_count is its upper bound
  // true: the caller's ranges (input, output, flags) start at multiples of 4 elements (16 bytes; 32 for
  // 64-bit types), as vector loads need; false: at other multiples of the element size. Either way temp
  // is taken to start at a multiple of the device's minStorageBufferOffsetAlignment.
  bool vector_aligned = true;
};

}  // namespace gpuscan
