// Bad input gets a gpuscan::Error with the right code and a message that says what to fix -- and
// records nothing, so validation stays silent.
#include <cstdlib>
#include <functional>
#include <string>

#include "gpu_test_support.hpp"

namespace gpuscan::test {
namespace {

class MisuseTest : public GpuTest {
 protected:
  const Context& ctx = shared_context();
  HostBuffer<uint32_t> in{ctx, 4096};
  HostBuffer<uint32_t> out{ctx, 4096};
  HostBuffer<uint32_t> temp{ctx, 4096};
  ScanArgs args() const {
    ScanArgs a;
    a.config.workgroup_size = 32;
    a.count = 1000;
    a.input = in.view();
    a.output = out.view();
    a.temp = temp.view();
    return a;
  }

  // Records `a` into a real command buffer and expects `code` with `fragment` in the message.
  void expect_error(const ScanArgs& a, Errc code, const std::string& fragment) {
    expect_recording_error(ctx, [&](VkCommandBuffer cmd) { record_scan(ctx, cmd, a); }, code, fragment);
  }
};

TEST_F(MisuseTest, CountLargerThanTheOutputHolds) {
  auto a = args();
  a.output.offset = 16;
  a.count = 1021;  // 4096 bytes hold 1020 elements from byte 16
  expect_error(a, Errc::buffer_too_small, "output buffer holds 1020 elements from offset 16");
}

TEST_F(MisuseTest, CountLargerThanTheInputHolds) {
  auto a = args();
  a.count = 1025;
  expect_error(a, Errc::buffer_too_small, "input buffer holds 1024 elements");
}

TEST_F(MisuseTest, TempTooSmall) {
  auto a = args();
  a.temp.buffer_size = 8;
  expect_error(a, Errc::buffer_too_small, "temp buffer holds 2 elements");
}

TEST_F(MisuseTest, MisalignedOffset) {
  auto a = args();
  a.input.offset = 6;
  expect_error(a, Errc::misaligned, "input offset 6 is not a multiple of the element size");
}

TEST_F(MisuseTest, MissingStorageUsage) {
  auto a = args();
  a.output.usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  expect_error(a, Errc::missing_usage, "VK_BUFFER_USAGE_STORAGE_BUFFER_BIT");
}

TEST_F(MisuseTest, NullHandles) {
  auto a = args();
  a.input.buffer = VK_NULL_HANDLE;
  expect_error(a, Errc::null_handle, "input buffer is VK_NULL_HANDLE");
  a = args();
  a.temp.buffer = VK_NULL_HANDLE;
  expect_error(a, Errc::null_handle, "temp buffer is VK_NULL_HANDLE");
  try {
    record_scan(ctx, VK_NULL_HANDLE, args());
    ADD_FAILURE() << "null command buffer accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::null_handle);
  }
}

TEST_F(MisuseTest, PartialOverlap) {
  auto a = args();
  a.count = 500;
  a.output = in.view(4);  // one element past the input's start: neither in place nor disjoint
  expect_error(a, Errc::invalid_argument, "overlap");
}

// The debugging aid that withholds tile 0's state cannot work in place (tile 0 overwrites its input).
TEST_F(MisuseTest, WithheldFirstTileInPlace) {
  TestHooks hooks;
  hooks.withhold_first_tile = true;
  const Context withholding = make_validated_context({}, hooks);
  if (!withholding.single_pass_available()) GTEST_SKIP() << "no single-pass scan here";
  HostBuffer<uint32_t> data(withholding, 4096), temp(withholding, 4096);
  ScanArgs a{ScanConfig{}, 1000, data.view(), data.view(), temp.view()};
  a.config.algorithm = Algorithm::single_pass;
  try {
    vk::submit_and_wait(withholding, [&](VkCommandBuffer cmd) { record_scan(withholding, cmd, a); });
    ADD_FAILURE() << "accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("TestHooks::withhold_first_tile"), std::string::npos) << e.what();
  }
}

TEST_F(MisuseTest, SinglePassTempWithoutTransferUsage) {
  auto a = args();
  a.config.algorithm = Algorithm::single_pass;
  a.config.vectors_per_lane = 1;  // 1000 elements span several tiles of 128
  expect_error(a, Errc::missing_usage, "TRANSFER_DST");
}

TEST_F(MisuseTest, SinglePassTempMisaligned) {
  HostBuffer<uint32_t> temp2(ctx, 4096, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT);
  auto a = args();
  a.config.algorithm = Algorithm::single_pass;
  a.config.vectors_per_lane = 1;
  a.temp = temp2.view(4);
  expect_error(a, Errc::misaligned, "temp offset 4");
}

TEST_F(MisuseTest, BadVectorsPerLane) {
  for (uint32_t k : {3u, 32u}) {
    auto a = args();
    a.config.algorithm = Algorithm::reduce_then_scan;
    a.config.vectors_per_lane = k;
    expect_error(a, Errc::invalid_argument, "vectors per lane " + std::to_string(k));
  }
}

TEST_F(MisuseTest, BadWorkgroupSize) {
  for (uint32_t w : {1u, 16u, 48u, 100u, 4096u}) {
    auto a = args();
    a.config.workgroup_size = w;
    expect_error(a, Errc::invalid_argument, "workgroup size " + std::to_string(w));
  }
}

// Scans of more than 2^32 elements plan as windows (their scratch is a small fraction of the data);
// compaction is not windowed and says so.
TEST_F(MisuseTest, TooManyElementsForThisVersion) {
  const uint64_t n = uint64_t{1} << 33;
  if (n * 4 <= ctx.device_info().largest_memory_heap_bytes)  // else too_large (CountsBeyondTheDevicesMemory...)
    EXPECT_LT(scan_temp_requirements(ctx, n, ScanConfig{}).size, n / 64);
  try {
    compact_temp_requirements(ctx, n, CompactConfig{});
    ADD_FAILURE() << "a compaction of 2^33 elements accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::too_large);
  }
}

// A count whose elements no buffer on the device could hold is too_large at once, naming the count and
// the limit, before anything is planned: sizing or describing the millions of windows such a count
// would take must not run the process out of memory (it used to end in std::bad_alloc).
TEST_F(MisuseTest, CountsBeyondTheDevicesMemoryAreTooLarge) {
  const auto expect_too_large = [](const std::function<void()>& call, uint64_t count, const std::string& limit,
                                   const std::string& what) {
    try {
      call();
      ADD_FAILURE() << what << " of " << count << " elements accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), Errc::too_large) << what << ": " << e.what();
      EXPECT_NE(std::string(e.what()).find(std::to_string(count) + " elements"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(limit), std::string::npos) << e.what();
    }
  };
  const std::string heap = "the device's largest memory heap";
  for (const uint64_t n : {uint64_t{1} << 40, uint64_t{1} << 50}) {
    expect_too_large([&] { scan_temp_requirements(ctx, n, ScanConfig{}); }, n, heap, "scan_temp_requirements");
    expect_too_large([&] { describe_scan_plan(ctx, n, ScanConfig{}); }, n, heap, "describe_scan_plan");
    expect_too_large([&] { ctx.resolve(ScanConfig{}, n); }, n, heap, "Context::resolve");
    expect_too_large([&] { reduce_temp_requirements(ctx, n, ReduceConfig{}); }, n, heap, "reduce_temp_requirements");
    expect_too_large([&] { compact_temp_requirements(ctx, n, CompactConfig{}); }, n, heap, "compact_temp_requirements");
    expect_too_large([&] { segmented_scan_temp_requirements(ctx, n, ScanConfig{}); }, n, heap,
                     "segmented_scan_temp_requirements");
    auto a = args();
    a.count = n;
    expect_error(a, Errc::too_large, std::to_string(n) + " elements");
  }
  // A count whose bytes 64-bit offsets cannot even express.
  expect_too_large([&] { scan_temp_requirements(ctx, UINT64_MAX, ScanConfig{}); }, UINT64_MAX, "64-bit",
                   "scan_temp_requirements");
}

TEST_F(MisuseTest, ConvenienceBytesNotAWholeElement) {
  const std::vector<std::byte> bytes(10);
  try {
    scan_bytes(ctx, bytes, ScanConfig{});
    ADD_FAILURE() << "10 bytes accepted as u32";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("10 bytes"), std::string::npos);
  }
}

TEST_F(MisuseTest, ZeroCountRecordsNothingEvenWithoutBuffers) {
  ScanArgs a;
  vk::submit_and_wait(ctx, [&](VkCommandBuffer cmd) { EXPECT_NO_THROW(record_scan(ctx, cmd, a)); });
}

TEST_F(MisuseTest, NoMatchingDevice) {
  ContextCreateInfo info;
  info.device_selector = "no such device name";
  try {
    Context::create(info);
    ADD_FAILURE() << "selector matched nothing yet a context was created";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::no_device);
    EXPECT_NE(std::string(e.what()).find("no device name contains"), std::string::npos) << e.what();
  }
  info.device_selector = "99";
  try {
    Context::create(info);
    ADD_FAILURE() << "index 99 accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::no_device);
    EXPECT_NE(std::string(e.what()).find("out of range"), std::string::npos) << e.what();
  }
}

TEST_F(MisuseTest, NoVulkanDriverAtAll) {
  // Point the loader at a driver manifest that does not exist: no physical device can appear.
  // Both variables are restored afterwards (the H200 run selects NVIDIA's driver through them).
  struct Saved {
    const char* name;
    bool had;
    std::string value;
  };
  std::vector<Saved> saved;
  for (const char* name : {"VK_ICD_FILENAMES", "VK_DRIVER_FILES"}) {
    const char* v = std::getenv(name);
    saved.push_back({name, v != nullptr, v ? v : ""});
    setenv(name, "/nonexistent/gpuscan_test_icd.json", 1);
  }
  try {
    Context::create();
    ADD_FAILURE() << "a context was created without any driver";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::no_device) << e.what();
  }
  for (const Saved& s : saved) {
    if (s.had) setenv(s.name, s.value.c_str(), 1);
    else unsetenv(s.name);
  }
}

}  // namespace
}  // namespace gpuscan::test
