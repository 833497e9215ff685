// Stress: many single-pass scans of random sizes and shapes back to back, each checked, while another
// Context keeps the device busy; and a hang that must end in Errc::timeout instead of a stuck process.
// GPUSCAN_STRESS_COUNT sets the number of scans (200 by default; the H200 run uses 1000).
#include <atomic>
#include <cstdlib>
#include <thread>

#include "busy_device.hpp"
#include "scan_check.hpp"

namespace gpuscan::test {
namespace {

class StressTest : public GpuTest {};

TEST_F(StressTest, ManySinglePassScansWhileTheDeviceIsBusy) {
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  const char* count_env = std::getenv("GPUSCAN_STRESS_COUNT");
  const int count = count_env ? std::atoi(count_env) : 200;
  const uint32_t max_w = shared_context().device_info().max_workgroup_invocations;
  BusyDevice busy;
  int failures = 0;
  for (int i = 0; i < count && failures < 5; ++i) {
    ScanConfig c;
    c.algorithm = Algorithm::single_pass;
    c.kind = rng() % 2 ? ScanKind::inclusive : ScanKind::exclusive;
    c.workgroup_size = std::min<uint32_t>(max_w, 32u << (rng() % 6));
    c.vectors_per_lane = 1u << (rng() % 4);
    c.spin_limit = rng() % 2 ? 1 : 64;  // 1: the fallback at nearly every wait
    c.deterministic = false;            // f32 too: the single-pass scan is what this stresses
    // Log-uniform sizes from 1 to 2^20.
    const size_t n = static_cast<size_t>(std::exp2(std::uniform_real_distribution<double>(0, 20)(rng)));
    SCOPED_TRACE("scan " + std::to_string(i) + ": n = " + std::to_string(n) + ", W = " +
                 std::to_string(c.workgroup_size) + ", K = " + std::to_string(c.vectors_per_lane) + ", spin " +
                 std::to_string(c.spin_limit) + ", seed " + std::to_string(seed));
    bool ok;
    if (rng() % 2) {
      const auto input = random_values<uint32_t>(n, rng);
      const auto r = record_and_run(shared_context(), input, c);
      ok = r.guards_intact && matches_reference(input, r.output, c.kind);
    } else {
      const auto input = random_values<float>(n, rng);
      const auto r = record_and_run(shared_context(), input, c);
      ok = r.guards_intact && matches_reference(input, r.output, c.kind);
    }
    if (!ok) {
      ++failures;
      ADD_FAILURE() << "mismatch or write outside the output";
    }
  }
  EXPECT_EQ(failures, 0);
  RecordProperty("busy_batches", static_cast<int>(busy.batches()));
}

// A submission that waits for an event the host has not set stands for a hung GPU: the wait must end
// in Errc::timeout after the configured time. Setting the event afterwards lets the GPU finish, and the
// Context then frees what the submission used.
TEST_F(StressTest, HangEndsInTimeoutError) {
  ContextCreateInfo info;
  info.timeout_ms = 300;
  Context ctx = make_validated_context(info);
  VkEventCreateInfo event_info{VK_STRUCTURE_TYPE_EVENT_CREATE_INFO};
  VkEvent event = VK_NULL_HANDLE;
  ASSERT_EQ(vkCreateEvent(ctx.device(), &event_info, nullptr, &event), VK_SUCCESS);
  const auto start = std::chrono::steady_clock::now();
  try {
    vk::submit_and_wait(ctx, [&](VkCommandBuffer cmd) {
      vkCmdWaitEvents(cmd, 1, &event, VK_PIPELINE_STAGE_HOST_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, nullptr, 0,
                      nullptr, 0, nullptr);
    });
    ADD_FAILURE() << "no timeout";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::timeout) << e.what();
    EXPECT_NE(std::string(e.what()).find("300 ms"), std::string::npos) << e.what();
  }
  const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_GE(waited, 0.29);
  EXPECT_LT(waited, 30.0);
  vkSetEvent(ctx.device(), event);
  vkDeviceWaitIdle(ctx.device());
  vkDestroyEvent(ctx.device(), event, nullptr);
}

}  // namespace
}  // namespace gpuscan::test
