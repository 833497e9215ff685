// What a Context holds. Internal to the library.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <tuple>

#include "core/pipeline_key.hpp"
#include "core/scan_policy.hpp"
#include "core/scan_shape.hpp"
#include "gpuscan/vulkan.hpp"
#include "vulkan/functions.hpp"
#include "vulkan/memory.hpp"

namespace gpuscan {

// The shared pipeline layout: storage buffers 0..5 pushed as descriptors (compaction's input indices
// are the only binding 5), and push-constant words.
inline constexpr uint32_t descriptor_bindings = 6;
// 22: PassParams' ten (shaders/common/pass_io.glsl), the segmented scans' heads_offset and heads_before,
// and, from word 12 (8-byte aligned), the ".bda" variants' src and dst addresses; or the compaction
// kernels' CompactParams (18 words, shaders/common/compact.glsl); or the sort's SortParams (14 words and
// the ".bda" variants' four addresses, shaders/common/radix_key.glsl). 88 of the 128 bytes every device offers.
inline constexpr uint32_t push_constant_words = 22;
inline constexpr uint32_t address_push_word = 12;

struct Context::Impl {
  // The Vulkan entry points (vulkan/functions.hpp): first, so that every member that calls Vulkan as it
  // is destroyed (buffers) finds them.
  vk::Functions fn;
  bool owns_device = false;  // created by gpuscan (destroy at the end) or adopted (leave alone)
  VkInstance instance = VK_NULL_HANDLE;
  VkPhysicalDevice physical_device = VK_NULL_HANDLE;
  VkDevice device = VK_NULL_HANDLE;
  VkQueue queue = VK_NULL_HANDLE;
  uint32_t queue_family = 0;
  VkDebugUtilsMessengerEXT messenger = VK_NULL_HANDLE;
  MessageCallback on_message;
  DeviceInfo info;
  uint32_t max_groups_x = 0;  // maxComputeWorkGroupCount[0], or TestHooks::max_workgroup_count_x
  bool withhold_first_tile = false;  // TestHooks::withhold_first_tile
  uint32_t prefix_stride = 1;        // TestHooks::prefix_stride (at least 1)
  bool late_fallback = false;       // TestHooks::late_fallback
  uint32_t look_ahead_grid = 0;     // core::look_ahead_default_grid(info.shader_cores), or TestHooks::look_ahead_grid
  // ContextCreateInfo::on_pipeline_statistics, set only where VK_KHR_pipeline_executable_properties was
  // enabled: each pipeline's compiler statistics go there as it is built.
  PipelineStatisticsCallback on_pipeline_statistics;
  void report_pipeline_statistics(VkPipeline pipeline, const PipelineKey& key) const;
  // How long submit_and_wait polls its fence before a blocking wait (ContextCreateInfo::fence_poll_us).
  std::chrono::microseconds fence_poll{2000};
  // The tuning profile chosen for the device at creation (core::select_profile): every default and cap
  // below that depends on the device comes from it.
  const core::TuningProfile* profile = &core::conservative_profile();
  // What the device offers scans of `type` (core::choose_scan).
  core::DeviceCaps caps(DataType type) const;
  // The most look-back polls per round a kernel may make for a requested limit (0 = default).
  uint32_t spin_limit(uint32_t requested) const { return core::spin_limit(*profile, requested); }
  // The W and K a scan of `count` elements of `type` runs `algorithm` with, for a requested W and K
  // (0 = default): core::scan_tile_shape with the device's profile.
  core::TileShape scan_shape(Algorithm algorithm, uint32_t w, uint32_t k, DataType type, ScanKind kind,
                             uint64_t count) const {
    return core::scan_tile_shape(algorithm, w, k, type, kind, count, *profile, core::workgroup_limits(info));
  }
  // The TILES_PER_WORKGROUP of a look-back dispatch over `tiles` tiles for a requested count (0 = default).
  uint32_t tiles_per_workgroup(uint32_t requested, uint64_t tiles) const {
    return core::tiles_per_workgroup(*profile, requested, tiles);
  }
  uint64_t max_binding_bytes = 0;    // maxStorageBufferRange, or TestHooks::max_binding_bytes
  // Elements of `type` (or of that many bytes) in one window of a scan or reduction longer than one
  // binding (core/windows.hpp).
  // With `device_address`, those of a window through device addresses (no binding limit: 2^31, or
  // TestHooks::max_binding_bytes).
  uint64_t window_elements(uint32_t element_bytes, bool device_address = false) const;
  uint64_t window_elements(DataType type) const { return window_elements(element_size(type)); }
  // Errc::too_large when `count` elements of `element_bytes` bytes exceed the device's largest memory
  // heap (core::check_count_fits): called before anything is planned for them.
  void check_count(uint64_t count, uint32_t element_bytes, const std::string& what) const {
    core::check_count_fits(count, element_bytes, info.largest_memory_heap_bytes, what);
  }
  bool device_address_enabled = false;  // bufferDeviceAddress enabled on the device
  // What gpuscan's own buffers for scans add to their usage, so that any Addressing can reach them.
  VkBufferUsageFlags address_usage() const {
    return device_address_enabled ? VkBufferUsageFlags{VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT} : 0u;
  }
  Addressing addressing = Addressing::automatic;
  uint64_t debug_max_window_bytes = 0;  // TestHooks::max_binding_bytes (0 = none)
  bool single_pass_enabled = false;  // the device has the single-pass scan's features enabled
  bool int64_enabled = false;        // shaderInt64
  bool float64_enabled = false;      // shaderFloat64
  bool extended_types_enabled = false;  // shaderSubgroupExtendedTypes
  bool subgroup_size_control_enabled = false;  // subgroupSizeControl (VK_EXT_subgroup_size_control / 1.3)
  bool full_subgroups_enabled = false;         // computeFullSubgroups, likewise
  uint32_t required_subgroup_size = 0;         // TestHooks::required_subgroup_size (0 = the driver's choice)
  Reconvergence reconvergence = Reconvergence::none;  // what every module declares (create_module)
  uint64_t timeout_ns = 60'000'000'000;  // convenience calls' wait for the GPU
  // Pools and fences of submissions that timed out: the GPU may still use them, so they are destroyed
  // only with the Context, after the device is idle.
  std::mutex abandoned_mutex;
  std::vector<std::pair<VkCommandPool, VkFence>> abandoned;
  std::vector<vk::OwnedBuffer> abandoned_buffers;
  // Device scratch that blocking calls reuse instead of allocating it every time (gpuscan::mpi's
  // device pieces): grown on demand, used by one call at a time under scratch_mutex, freed with the
  // Context (before the device).
  std::mutex scratch_mutex;
  vk::OwnedBuffer scratch_device, scratch_host;
  std::vector<VkQueryPool> abandoned_queries;
  // What vk::submit_and_wait submits with, kept between calls (creating a pool and a fence per call
  // showed up in gpuscan::mpi's per-call overhead); idle ones here, one per concurrent call.
  struct SubmitSlot {
    VkCommandPool pool = VK_NULL_HANDLE;
    VkCommandBuffer cmd = VK_NULL_HANDLE;
    VkFence fence = VK_NULL_HANDLE;
    VkQueryPool timestamps = VK_NULL_HANDLE;  // two queries, created the first time a call is timed
  };
  std::mutex submit_slots_mutex;
  std::vector<SubmitSlot> submit_slots;

  VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
  VkPipelineLayout pipeline_layout = VK_NULL_HANDLE;

  // Pipelines are built on first use (or by prepare_*) and kept. Records look them up under a shared
  // lock; building one takes it exclusively (the thread-safety note on Context in gpuscan/vulkan.hpp).
  std::shared_mutex pipelines_mutex;
  // What pipelines are built with: the application's (AdoptInfo::pipeline_cache) or gpuscan's own.
  VkPipelineCache pipeline_cache = VK_NULL_HANDLE;
  bool owns_pipeline_cache = false;
  std::map<std::string, VkShaderModule> modules;
  std::map<PipelineKey, VkPipeline> pipelines;

  // Custom operators (custom_op.cpp), compiled once per snippet text; also under pipelines_mutex.
  struct CompiledCustomOp {
    std::string prefix;         // of its kernels' names in `modules`: "custom3." + "scan_local"
    uint32_t element_size = 0;  // the std430 array stride of its T
  };
  std::map<std::string, CompiledCustomOp> custom_ops;
  uint32_t next_custom_op_id = 0;
  std::atomic<uint64_t> custom_op_compilations{0};  // kernels compiled with shaderc, for the tests

  // Queue submissions of the convenience calls (vkQueueSubmit needs external synchronization).
  std::mutex queue_mutex;

  Impl() = default;
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;
  ~Impl();

  // Why scans (or the `what` named: "compactions") of `type` cannot run on this context ("" if they
  // can); with `subgroup_ops`, also why they cannot use subgroup operations.
  std::string type_obstacle(DataType type, bool subgroup_ops = false, std::string_view what = "scans") const;
  // Whether scans of `type` may use subgroup arithmetic here.
  bool subgroup_arithmetic_for(DataType type) const { return info.has_subgroup_arithmetic() && type_obstacle(type, true).empty(); }

  // Creates the layouts shared by every gpuscan pipeline. Called once the device is known.
  void create_layouts();
  // Creates gpuscan's own pipeline cache from `initial` (ContextCreateInfo::load_pipeline_cache), or
  // empty where its header does not fit the device (pipeline_cache_fits): such data is no use to the
  // driver, and handing it over anyway would break a valid-usage rule (initialDataSize must be what
  // vkGetPipelineCacheData returned).
  void create_pipeline_cache(std::span<const std::byte> initial);
  VkPipeline pipeline(const PipelineKey& key);
  // Makes `spirv` the module of variant `name` unless one is there: kernels built outside the library's
  // table (the benchmarks' own, bench/CMakeLists.txt).
  void add_module(const std::string& name, std::span<const uint32_t> spirv);
  // A shader module of `spirv` declaring `reconvergence` (vulkan/reconvergence.hpp); the caller destroys it
  // (those in `modules` go with the Context).
  VkShaderModule create_module(std::span<const uint32_t> spirv) const;
  // The compiled form of `op`: compiles it on first use (throws Errc::compile_error and the like, see
  // compile_custom_op in gpuscan/vulkan.hpp) and checks op.element_size against it.
  const CompiledCustomOp& custom_op(const CustomOp& op);
  // Binds the pipeline for `key`, pushes `buffers` as storage bindings 0.. and `params` as push
  // constants, and dispatches a (groups_x, groups_y) grid: what every gpuscan pass records. With
  // `indirect` (a buffer and the offset of a VkDispatchIndirectCommand in it) the grid comes from there.
  // With `cmd` VK_NULL_HANDLE it only builds the pipeline: the prepare_* calls walk a plan so, with
  // stand-in buffers (vk::stand_in_view), and the record loops skip their fills and barriers then too.
  struct IndirectCommand {
    VkBuffer buffer;
    VkDeviceSize offset;
  };
  void record_dispatch(VkCommandBuffer cmd, const PipelineKey& key, std::span<const VkDescriptorBufferInfo> buffers,
                       std::span<const uint32_t> params, uint32_t groups_x, uint32_t groups_y,
                       std::optional<IndirectCommand> indirect = std::nullopt);
};

namespace detail {
// A Context keeps its state private; the backend, and gpuscan's white-box tests and benchmarks, reach it here.
struct ContextAccess {
  static Context::Impl& impl(const Context& ctx) noexcept { return *ctx.impl_; }
};
}  // namespace detail

inline Context::Impl& impl_of(const Context& ctx) noexcept { return detail::ContextAccess::impl(ctx); }

namespace vk {
// Fills a DeviceInfo from Vulkan queries (device_info.cpp), through `fn`'s instance functions.
DeviceInfo query_device_info(const Functions& fn, VkPhysicalDevice physical, uint32_t index);
// The extensions a physical device lists, and whether such a list names one.
std::vector<VkExtensionProperties> device_extensions(const Functions& fn, VkPhysicalDevice physical);
bool lists(const std::vector<VkExtensionProperties>& extensions, const char* name);
// The first queue family with compute, preferring one without graphics; UINT32_MAX if none.
uint32_t find_compute_queue_family(const Functions& fn, VkPhysicalDevice physical);
}  // namespace vk

}  // namespace gpuscan
