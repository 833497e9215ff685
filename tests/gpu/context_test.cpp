// Context: device reporting, selection and adopting an application's own Vulkan objects.
#include <algorithm>
#include <random>
#include <span>
#include <string>
#include <functional>
#include <cstdlib>

#include "core/tuning.hpp"
#include "gpuscan/reference.hpp"
#include "gpu_test_support.hpp"
#include "vulkan/reconvergence.hpp"

namespace gpuscan::test {
namespace {

class ContextTest : public GpuTest {};

TEST_F(ContextTest, ReportsTheDevice) {
  const DeviceInfo& d = shared_context().device_info();
  EXPECT_FALSE(d.name.empty());
  EXPECT_TRUE(d.push_descriptors);
  EXPECT_GE(d.subgroup_size, 1u);
  EXPECT_GE(d.max_workgroup_invocations, 64u);
  // The test driver sets the subgroup size lavapipe should have (LP_NATIVE_VECTOR_WIDTH / 32).
  if (const char* expect = std::getenv("GPUSCAN_EXPECT_SUBGROUP_SIZE"))
    EXPECT_EQ(d.subgroup_size, std::strtoul(expect, nullptr, 10)) << "the subgroup-size setting did not apply";
  EXPECT_FALSE(Context::list_devices().empty());
  // lavapipe has everything the single-pass scan needs; automatic picks it beyond one tile. It has
  // subgroup shuffles too, so its subgroup kernels (not the subgroup-free ones) are what the tests run.
  EXPECT_TRUE(d.single_pass_capable);
  if (d.name.starts_with("llvmpipe")) EXPECT_TRUE(d.has_subgroup_arithmetic());
  EXPECT_TRUE(shared_context().single_pass_available());
  EXPECT_EQ(shared_context().resolve(ScanConfig{}, 1u << 20), Algorithm::single_pass);
  EXPECT_EQ(shared_context().resolve(ScanConfig{}, 100), Algorithm::reduce_then_scan);
  // Where automatic's single-pass range ends (core::single_pass_auto_limit): with the H200's profile no
  // limit for exclusive scans of 4-byte types, 2^27 for inclusive ones of u32/i32 and 2^25 for the rest;
  // with the H100's none for all of these; for deterministic floats (the ordered look-back) 2^21, 2^20
  // for f64, on both. lavapipe's and the conservative profile: 2^21 for all.
  if (d.name.starts_with("llvmpipe")) EXPECT_EQ(shared_context().tuning_profile(), "lavapipe");
  const std::string_view profile = shared_context().tuning_profile();
  const bool plain = profile != "nvidia-h200" && profile != "nvidia-h100";
  const bool h100 = profile == "nvidia-h100";
  constexpr uint64_t none = 0;  // no limit
  const uint64_t limit32 = plain ? uint64_t{1} << 21 : none;
  const uint64_t limit_inclusive = plain ? uint64_t{1} << 21 : h100 ? none : uint64_t{1} << 27;
  const uint64_t limit_other = plain ? uint64_t{1} << 21 : h100 ? none : uint64_t{1} << 25;
  const uint64_t limit_f64 = plain ? uint64_t{1} << 21 : uint64_t{1} << 20;
  ScanConfig f32;
  f32.type = DataType::f32;
  f32.deterministic = false;
  ScanConfig inclusive;
  inclusive.kind = ScanKind::inclusive;
  ScanConfig inclusive_f32 = f32;
  inclusive_f32.kind = ScanKind::inclusive;
  ScanConfig u64;
  u64.type = DataType::u64;
  ScanConfig deterministic_f64;  // deterministic floats: the ordered look-back
  deterministic_f64.type = DataType::f64;
  for (const auto& [config, limit] : {std::pair{ScanConfig{}, limit32}, std::pair{f32, limit32},
                                      std::pair{inclusive, limit_inclusive}, std::pair{inclusive_f32, limit_other},
                                      std::pair{u64, limit_other}, std::pair{deterministic_f64, limit_f64}}) {
    const std::string what = std::string(to_string(config.type)) + " " + std::string(to_string(config.kind));
    if (limit == none) {
      EXPECT_EQ(shared_context().resolve(config, uint64_t{1} << 34), Algorithm::single_pass) << what;
      continue;
    }
    EXPECT_EQ(shared_context().resolve(config, limit), Algorithm::single_pass) << what;
    EXPECT_EQ(shared_context().resolve(config, limit + 1), Algorithm::reduce_then_scan) << what;
  }
  // Deterministic f32 past the ordered limit: the look-ahead with the H100's profile (2^28 at most).
  ScanConfig deterministic_f32;
  deterministic_f32.type = DataType::f32;
  EXPECT_EQ(shared_context().resolve(deterministic_f32, (uint64_t{1} << 21) + 1),
            h100 ? Algorithm::look_ahead : Algorithm::reduce_then_scan);
  EXPECT_EQ(shared_context().resolve(deterministic_f32, (uint64_t{1} << 28) + 1), Algorithm::reduce_then_scan);
  EXPECT_EQ(shared_context().resolve(ScanConfig{}, 1u << 20, /*vector_aligned=*/false),
            Algorithm::reduce_then_scan);
  // The shape a scan runs with: core::scan_tile_shape's (tested without a device in
  // tests/scan_shape_test.cpp), the plain defaults off the H200 and for multipass, else the caller's.
  const uint64_t large = core::large_tile_min_elements + 1;
  const auto shape = [](const ScanConfig& c, uint64_t n) {
    return std::pair{shared_context().workgroup_size(c, n), shared_context().vectors_per_lane(c, n)};
  };
  EXPECT_EQ(shape({}, 1u << 20), std::pair(core::default_workgroup_size, core::default_vectors_per_lane));
  EXPECT_EQ(shape({}, large), std::pair(core::default_workgroup_size, plain ? core::default_vectors_per_lane : core::large_tile_vectors_per_lane));
  EXPECT_EQ(shape(inclusive, large), plain ? std::pair(core::default_workgroup_size, core::default_vectors_per_lane)
                                              : std::pair(core::inclusive_large_tile_workgroup_size, core::large_tile_vectors_per_lane));
  EXPECT_EQ(shape({}, core::small_tile_max_elements),
            std::pair(core::default_workgroup_size, plain ? core::default_vectors_per_lane : core::small_tile_vectors_per_lane));
  EXPECT_EQ(shape(u64, large), std::pair(core::default_workgroup_size, core::default_vectors_per_lane_for(8)));
  ScanConfig explicit_k;
  explicit_k.vectors_per_lane = 2;
  EXPECT_EQ(shared_context().vectors_per_lane(explicit_k, large), 2u);
  ScanConfig rts = inclusive;  // reduce-then-scan keeps the plain defaults for 4-byte types ...
  rts.algorithm = Algorithm::reduce_then_scan;
  EXPECT_EQ(shape(rts, large), std::pair(core::default_workgroup_size, core::default_vectors_per_lane));
  for (const DataType t : {DataType::u64, DataType::f64}) {  // ... and takes W = 64 for large 8-byte scans
    rts.type = t;
    EXPECT_EQ(shape(rts, large), std::pair(plain ? core::default_workgroup_size : core::large_eight_byte_rts_workgroup_size,
                                           core::default_vectors_per_lane_for(8)));
  }
  EXPECT_NE(shared_context().describe_choice({}, 1u << 20).find("single-pass"), std::string::npos);
  EXPECT_NE(shared_context().describe_choice({}, limit32 + 1).find("reduce-then-scan"), std::string::npos);
  ScanConfig multipass;
  multipass.algorithm = Algorithm::multipass;
  EXPECT_NE(shared_context().describe_choice(multipass).find("workgroup scan subgroup"), std::string::npos);
}

// The subgroup kernels run only where arithmetic, shuffle and shuffle_relative are all there (the
// single-pass scan's 32-bit integer kernels shuffle: shaders/common/scan_element.glsl).
TEST(DeviceInfoTest, SubgroupKernelsNeedArithmeticAndShuffles) {
  DeviceInfo info;
  const VkSubgroupFeatureFlags all = VK_SUBGROUP_FEATURE_BASIC_BIT | VK_SUBGROUP_FEATURE_ARITHMETIC_BIT |
                                     VK_SUBGROUP_FEATURE_SHUFFLE_BIT | VK_SUBGROUP_FEATURE_SHUFFLE_RELATIVE_BIT;
  info.subgroup_operations = all;
  EXPECT_TRUE(info.has_subgroup_arithmetic());
  for (const VkSubgroupFeatureFlags missing : {VK_SUBGROUP_FEATURE_ARITHMETIC_BIT, VK_SUBGROUP_FEATURE_SHUFFLE_BIT,
                                              VK_SUBGROUP_FEATURE_SHUFFLE_RELATIVE_BIT}) {
    info.subgroup_operations = all & ~missing;
    EXPECT_FALSE(info.has_subgroup_arithmetic()) << "without feature bit " << missing;
  }
}

TEST_F(ContextTest, SelectsByIndexAndByName) {
  const auto devices = Context::list_devices();
  ContextCreateInfo info;
  info.device_selector = "0";
  EXPECT_EQ(make_validated_context(info).device_info().name, devices[0].name);
  info.device_selector = devices[0].name.substr(0, 4);
  EXPECT_EQ(make_validated_context(info).device_info().name, devices[0].name);
}

// The spec version of the validation layer the test contexts load.
uint32_t validation_layer_version() {
  uint32_t count = 0;
  vkEnumerateInstanceLayerProperties(&count, nullptr);
  std::vector<VkLayerProperties> layers(count);
  vkEnumerateInstanceLayerProperties(&count, layers.data());
  for (const VkLayerProperties& l : layers)
    if (std::string_view(l.layerName) == "VK_LAYER_KHRONOS_validation") return l.specVersion;
  return 0;
}

// gpuscan's own contexts declare the strongest reconvergence guarantee the device offers (none on lavapipe) that
// the validation layer knows, and none when told not to; either way scans run.
TEST_F(ContextTest, DeclaresTheStrongestReconvergenceGuarantee) {
  const DeviceInfo& d = shared_context().device_info();
  const bool layer_knows_maximal = vk::layer_knows_maximal_reconvergence(validation_layer_version());
  const Reconvergence strongest = d.maximal_reconvergence && layer_knows_maximal ? Reconvergence::maximal
                                  : d.subgroup_uniform_control_flow             ? Reconvergence::subgroup_uniform
                                                                                : Reconvergence::none;
  EXPECT_EQ(to_string(shared_context().reconvergence()), to_string(strongest));
  ContextCreateInfo info;
  info.use_reconvergence_guarantee = false;
  const Context off = make_validated_context(info);
  EXPECT_EQ(to_string(off.reconvergence()), "none");
  const std::vector<uint32_t> in = {3, 1, 4, 1, 5};
  EXPECT_EQ(exclusive_scan(off, std::span<const uint32_t>(in)), (std::vector<uint32_t>{0, 3, 4, 8, 9}));
}

// An application's own instance with the validation layer, at `api_version` (VK_NULL_HANDLE if it fails).
VkInstance application_instance(uint32_t api_version) {
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.apiVersion = api_version;
  VkInstanceCreateInfo ii{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  ii.pApplicationInfo = &app;
  const char* layer = "VK_LAYER_KHRONOS_validation";
  ii.enabledLayerCount = 1;
  ii.ppEnabledLayerNames = &layer;
  VkInstance instance = VK_NULL_HANDLE;
  return vkCreateInstance(&ii, nullptr, &instance) == VK_SUCCESS ? instance : VK_NULL_HANDLE;
}

// An application's own device on `family` with `extensions` and the feature chain `features`, and its
// queue (VK_NULL_HANDLE if vkCreateDevice fails).
VkDevice application_device(VkPhysicalDevice physical, uint32_t family, std::span<const char* const> extensions,
                            const void* features, VkQueue& queue) {
  const float priority = 1;
  VkDeviceQueueCreateInfo qi{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  qi.queueFamilyIndex = family;
  qi.queueCount = 1;
  qi.pQueuePriorities = &priority;
  VkDeviceCreateInfo di{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  di.pNext = features;
  di.queueCreateInfoCount = 1;
  di.pQueueCreateInfos = &qi;
  di.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
  di.ppEnabledExtensionNames = extensions.data();
  VkDevice device = VK_NULL_HANDLE;
  if (vkCreateDevice(physical, &di, nullptr, &device) != VK_SUCCESS) return VK_NULL_HANDLE;
  vkGetDeviceQueue(device, family, 0, &queue);
  return device;
}

// An application creates its own instance and device; gpuscan adopts them and destroys nothing.
TEST_F(ContextTest, AdoptsTheApplicationsDevice) {
  const VkInstance instance = application_instance(VK_API_VERSION_1_1);
  ASSERT_NE(instance, VK_NULL_HANDLE);
  uint32_t count = 1;
  VkPhysicalDevice physical;
  vkEnumeratePhysicalDevices(instance, &count, &physical);
  ASSERT_GE(count, 1u);
  const auto extensions = Context::required_device_extensions();
  VkQueue queue = VK_NULL_HANDLE;  // family 0: lavapipe's and most GPUs' has compute
  const VkDevice device = application_device(physical, 0, extensions, nullptr, queue);
  ASSERT_NE(device, VK_NULL_HANDLE);
  {
    Context ctx = Context::adopt({instance, physical, device, queue, 0});
    EXPECT_EQ(to_string(ctx.reconvergence()), "none");  // not enabled by the application
    std::vector<int32_t> in = {5, -3, 2, 7, -1};
    EXPECT_EQ(inclusive_scan(ctx, std::span<const int32_t>(in)), (std::vector<int32_t>{5, 2, 4, 11, 10}));
    // Created without shaderInt64 / shaderFloat64: the 64-bit types are refused, saying why -- scans and
    // compactions alike, each naming the feature.
    const std::vector<uint64_t> wide = {1, 2};
    const std::vector<int64_t> signed_wide = {1, -2};
    const std::vector<double> doubles = {1, 2};
    const std::vector<uint32_t> flags = {1, 0};
    const std::pair<std::function<void()>, const char*> calls[] = {
        {[&] { inclusive_scan(ctx, std::span<const uint64_t>(wide)); }, "shader_int64"},
        {[&] { inclusive_scan(ctx, std::span<const double>(doubles)); }, "shader_float64"},
        {[&] { select_if(ctx, std::span<const uint64_t>(wide), Predicate::nonzero()); }, "shader_int64"},
        {[&] { partition(ctx, std::span<const int64_t>(signed_wide), Predicate::less<int64_t>(0)); }, "shader_int64"},
        {[&] { select_flagged(ctx, std::span<const double>(doubles), std::span<const uint32_t>(flags)); },
         "shader_float64"}};
    for (const auto& [call, feature] : calls) {
      try {
        call();
        ADD_FAILURE() << "a 64-bit scan or compaction ran on a device created without the 64-bit features";
      } catch (const Error& e) {
        EXPECT_EQ(e.code(), Errc::unsupported) << e.what();
        EXPECT_NE(std::string(e.what()).find(std::string("AdoptInfo::") + feature), std::string::npos) << e.what();
      }
    }
  }
  // A guarantee the application says it enabled but the device lacks is not declared (lavapipe has neither).
  if (!shared_context().device_info().maximal_reconvergence &&
      !shared_context().device_info().subgroup_uniform_control_flow) {
    AdoptInfo claims{instance, physical, device, queue, 0};
    claims.maximal_reconvergence_enabled = claims.subgroup_uniform_control_flow_enabled = true;
    EXPECT_EQ(to_string(Context::adopt(claims).reconvergence()), "none");
  }
  // The application's pipeline cache: gpuscan builds its pipelines with it, reads it back, and leaves it
  // to the application.
  {
    VkPipelineCacheCreateInfo cache_info{VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO};
    VkPipelineCache cache = VK_NULL_HANDLE;
    ASSERT_EQ(vkCreatePipelineCache(device, &cache_info, nullptr, &cache), VK_SUCCESS);
    {
      AdoptInfo with_cache{instance, physical, device, queue, 0};
      with_cache.pipeline_cache = cache;
      const Context ctx = Context::adopt(with_cache);
      const std::vector<uint32_t> in = {5, 3, 2};
      EXPECT_EQ(inclusive_scan(ctx, std::span<const uint32_t>(in)), (std::vector<uint32_t>{5, 8, 10}));
      EXPECT_TRUE(pipeline_cache_fits(ctx.pipeline_cache_data(), ctx.device_info()));
    }
    size_t size = 0;
    EXPECT_EQ(vkGetPipelineCacheData(device, cache, &size, nullptr), VK_SUCCESS) << "the cache outlives the Context";
    vkDestroyPipelineCache(device, cache, nullptr);
  }
  // Still ours and still working after the Context is gone.
  EXPECT_EQ(vkDeviceWaitIdle(device), VK_SUCCESS);
  vkDestroyDevice(device, nullptr);
  vkDestroyInstance(instance, nullptr);

  try {
    Context::adopt({});
    ADD_FAILURE() << "null handles adopted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::null_handle);
  }
}

// An application that creates its own device with what DeviceRequirements lists, and adopts it with
// DeviceRequirements::apply, gets what Context::create enables: the same capabilities, the same guarantee.
TEST_F(ContextTest, DeviceRequirementsGiveAnAdoptedDeviceWhatCreateEnables) {
  const Context& created = shared_context();
  const VkInstance instance = application_instance(created.device_info().api_version);
  ASSERT_NE(instance, VK_NULL_HANDLE);
  uint32_t count = 0;
  vkEnumeratePhysicalDevices(instance, &count, nullptr);
  std::vector<VkPhysicalDevice> physicals(count);
  vkEnumeratePhysicalDevices(instance, &count, physicals.data());
  ASSERT_GT(count, created.device_info().index);
  const VkPhysicalDevice physical = physicals[created.device_info().index];

  const DeviceInfo info = device_info_of(instance, physical);
  EXPECT_EQ(info.name, created.device_info().name);
  EXPECT_EQ(info.subgroup_size, created.device_info().subgroup_size);
  try {
    device_info_of(instance, VK_NULL_HANDLE);
    ADD_FAILURE() << "a null physical device was described";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::null_handle) << e.what();
  }

  const DeviceRequirements need(instance, physical, {.validation_layer = true});
  const std::span<const char* const> extensions = need.extensions();
  EXPECT_NE(std::find_if(extensions.begin(), extensions.end(),
                         [](const char* e) { return std::string(e) == VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME; }),
            extensions.end());
  const uint32_t family = created.queue_family_index();
  VkQueue queue = VK_NULL_HANDLE;
  const VkDevice device = application_device(physical, family, extensions, need.features(), queue);
  ASSERT_NE(device, VK_NULL_HANDLE);
  {
    AdoptInfo adopt{instance, physical, device, queue, family};
    need.apply(adopt);
    const Context ctx = Context::adopt(adopt);
    EXPECT_EQ(ctx.single_pass_available(), created.single_pass_available());
    EXPECT_EQ(ctx.device_address_available(), created.device_address_available());
    EXPECT_EQ(ctx.reconvergence(), created.reconvergence());
    // What the flags promise runs: 64-bit scans (single-pass where the device has it) and doubles.
    std::mt19937_64 rng(std::random_device{}());
    std::vector<uint64_t> wide(1000 + rng() % 5000);
    for (uint64_t& v : wide) v = rng();
    const Algorithm algorithm = ctx.single_pass_available() ? Algorithm::single_pass : Algorithm::automatic;
    if (info.shader_int64)
      EXPECT_EQ(inclusive_scan(ctx, std::span<const uint64_t>(wide), {.algorithm = algorithm}),
                cpu::scan(std::span<const uint64_t>(wide), ScanKind::inclusive));
    if (info.shader_float64) {
      const std::vector<double> d = {0.5, -2.25, 4.0};
      EXPECT_EQ(inclusive_scan(ctx, std::span<const double>(d)), (std::vector<double>{0.5, -1.75, 2.25}));
    }
  }
  EXPECT_EQ(vkDeviceWaitIdle(device), VK_SUCCESS);
  vkDestroyDevice(device, nullptr);
  vkDestroyInstance(instance, nullptr);
}

}  // namespace
}  // namespace gpuscan::test

namespace gpuscan::test {
namespace {

// The harness itself: an invalid Vulkan call must reach the message log, or no test could catch one.
TEST(ValidationHarness, InvalidUsageIsReported) {
  const Context& ctx = shared_context();
  message_log().take();
  VkBufferCreateInfo bad{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  bad.size = 0;  // VUID-VkBufferCreateInfo-size-00912
  bad.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
  VkBuffer buffer = VK_NULL_HANDLE;
  vkCreateBuffer(ctx.device(), &bad, nullptr, &buffer);
  if (buffer) vkDestroyBuffer(ctx.device(), buffer, nullptr);
  const auto messages = message_log().take();
  ASSERT_FALSE(messages.empty()) << "the validation layer is not active or its messages are lost";
  EXPECT_NE(messages.front().find("00912"), std::string::npos) << messages.front();
}

}  // namespace
}  // namespace gpuscan::test
