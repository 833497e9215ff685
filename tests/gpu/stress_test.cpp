// Stress: many single-pass scans and compactions of random sizes and shapes back to back, each checked,
// while another Context keeps the device busy; and a hang that must end in Errc::timeout instead of a
// stuck process. GPUSCAN_STRESS_COUNT sets the number of scans (200 by default; the H200 run uses 1000),
// and half as many compactions. One in four runs on a Context whose tile 0 never publishes its look-back state
// (TestHooks::withhold_first_tile): a workgroup stalled for good, which no forward-progress
// guarantee would help, so every other tile must take the fallback for it.
#include <atomic>
#include <cstdlib>
#include <thread>
#include <vector>

#include "busy_device.hpp"
#include "scan_check.hpp"

namespace gpuscan::test {
namespace {

class StressTest : public GpuTest {};

// Runs `one` GPUSCAN_STRESS_COUNT times (200 by default) while another Context keeps the device busy,
// stopping after 5 mismatches. Each run gets the shared Context or, one time in four, the one whose
// tile 0 never publishes, and returns whether its result matched; `what` describes the run for a failure.
// `share` divides the count (the compactions take half as many, to keep CI's time).
// `one(ctx, shape, rng, what)` draws what makes a pipeline (tile shape, spin limit, kind, type) from
// `shape` and sizes and data from `rng`. `shape` replays one of kShapes generators drawn for the test, so
// a test compiles at most 2 · kShapes pipelines of each kernel: with a new shape in every run, lavapipe
// compiling each anew (about a second each with a cold shader cache) made these the longest entries of a
// clean CI run. The shapes are drawn afresh each time the test runs, as the sizes and data are.
constexpr int kShapes = 8;

template <class One>
void stress(const char* kind, One one, int share = 1) {
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  const char* count_env = std::getenv("GPUSCAN_STRESS_COUNT");
  const int count = (count_env ? std::atoi(count_env) : 200) / share;
  std::vector<uint64_t> shapes(kShapes);
  for (uint64_t& s : shapes) s = rng();
  BusyDevice busy;
  int failures = 0;
  for (int i = 0; i < count && failures < 5; ++i) {
    const bool withheld = rng() % 4 == 0;
    const Context& ctx = !withheld ? shared_context() : cached_context("withhold-first-tile", [] {
      TestHooks hooks;
      hooks.withhold_first_tile = true;
      return make_validated_context({}, hooks);
    });
    std::mt19937_64 shape(shapes[rng() % kShapes]);
    std::string what;
    if (!one(ctx, shape, rng, what)) {
      ++failures;
      ADD_FAILURE() << kind << " " << i << " wrong: " << what << (withheld ? ", tile 0 withheld" : "") << ", seed "
                    << seed;
    }
  }
  EXPECT_EQ(failures, 0);
  ::testing::Test::RecordProperty("busy_batches", static_cast<int>(busy.batches()));
}

// Log-uniform sizes from 1 to 2^20.
size_t stress_size(std::mt19937_64& rng) {
  return static_cast<size_t>(std::exp2(std::uniform_real_distribution<double>(0, 20)(rng)));
}

TEST_F(StressTest, ManySinglePassScansWhileTheDeviceIsBusy) {
  const uint32_t max_w = shared_context().device_info().max_workgroup_invocations;
  stress("scan", [&](const Context& ctx, std::mt19937_64& shape, std::mt19937_64& rng, std::string& what) {
    ScanConfig c;
    c.algorithm = Algorithm::single_pass;
    c.kind = shape() % 2 ? ScanKind::inclusive : ScanKind::exclusive;
    c.workgroup_size = std::min<uint32_t>(max_w, 32u << (shape() % 6));
    c.vectors_per_lane = 1u << (shape() % 4);
    c.spin_limit = shape() % 2 ? 1 : 64;  // 1: the fallback at nearly every wait
    c.deterministic = false;              // f32 too: the single-pass scan is what this stresses
    const bool u32 = shape() % 2;
    const size_t n = stress_size(rng);
    what = "n = " + std::to_string(n) + ", W = " + std::to_string(c.workgroup_size) + ", K = " +
           std::to_string(c.vectors_per_lane) + ", spin " + std::to_string(c.spin_limit) + (u32 ? ", u32" : ", f32");
    if (u32) {
      const auto input = random_values<uint32_t>(n, rng);
      const auto r = record_and_run(ctx, input, c);
      return r.guards_intact && matches_reference(input, r.output, c.kind);
    }
    const auto input = random_values<float>(n, rng);
    const auto r = record_and_run(ctx, input, c);
    return r.guards_intact && matches_reference(input, r.output, c.kind);
  });
}

// The single-pass compaction (select_if above a random threshold, so anything from none to all is kept)
// in random shapes and sizes, against std::copy_if.
TEST_F(StressTest, ManySinglePassCompactionsWhileTheDeviceIsBusy) {
  const DeviceInfo& info = shared_context().device_info();
  if (!info.single_pass_capable || !info.has_subgroup_ballot())
    GTEST_SKIP() << "the device cannot run the single-pass compaction";
  stress("compaction", [&](const Context& ctx, std::mt19937_64& shape, std::mt19937_64& rng, std::string& what) {
    CompactConfig c;
    c.algorithm = CompactAlgorithm::single_pass;
    c.workgroup_size = std::min<uint32_t>(info.max_workgroup_invocations, 32u << (shape() % 4));
    c.vectors_per_lane = 1u << (shape() % 3);  // the staged tile, W * K * 16 bytes, within 16 KiB
    c.spin_limit = shape() % 2 ? 1 : 64;
    c.tiles_per_workgroup = 1u << (shape() % 3);
    const size_t n = stress_size(rng);
    const uint32_t threshold = static_cast<uint32_t>(rng());
    const auto input = random_values<uint32_t>(n, rng);
    std::vector<uint32_t> want;
    std::copy_if(input.begin(), input.end(), std::back_inserter(want), [&](uint32_t v) { return v > threshold; });
    const auto got = select_if(ctx, std::span<const uint32_t>(input), Predicate::greater<uint32_t>(threshold), c);
    what = "n = " + std::to_string(n) + ", W = " + std::to_string(c.workgroup_size) + ", K = " +
           std::to_string(c.vectors_per_lane) + ", spin " + std::to_string(c.spin_limit) + ", tiles " +
           std::to_string(c.tiles_per_workgroup) + ": kept " + std::to_string(got.size()) + " of " +
           std::to_string(want.size());
    return got == want;
  }, 2);
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
