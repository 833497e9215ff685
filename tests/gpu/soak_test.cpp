// Soak: 10 000 convenience calls in one process, each checked, twice.
//
// 1. Host memory, on a Context without validation: the resident set (from /proc/self/statm) is sampled
//    after 100 warm-up calls (pipelines built, allocator pools populated) and again at the end, and
//    may grow by at most kMaxRssGrowth. Without validation because the validation layer itself (Debian
//    12's 1.3.239) keeps ~3 KiB per vkQueueSubmit until the process ends, ~30 MiB over this run, which
//    would hide anything gpuscan does (tests/sanitizers/lsan.supp). Under AddressSanitizer the RSS is
//    printed but not checked: freed memory sits in ASan's quarantine (up to 256 MiB) by design, and
//    LeakSanitizer checks for leaks at exit instead.
// 2. Vulkan objects, on a dedicated validated Context, created and destroyed inside the test: a
//    VkBuffer, VkDeviceMemory, VkCommandPool, VkFence or VkQueryPool left alive by any call is reported
//    by the layer's object tracker at vkDestroyDevice, and any validation message fails the test.
//
// Registered with CTest once, as `soak` (LABELS soak); GPUSCAN_SOAK_COUNT overrides the 10 000.
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <optional>

#include "../sanitizers/asan_build.hpp"
#include "scan_check.hpp"

#ifdef GPUSCAN_TEST_ASAN
#include <sanitizer/lsan_interface.h>
#endif

namespace gpuscan::test {
namespace {

// 8 MiB: each call allocates and frees 4 small buffers, a command pool, a fence and its vectors. A leak
// of even one 1 KiB allocation per call would show as ~10 MiB over 10 000 calls, while the heap and the
// driver settle within a few hundred KiB after warm-up (measured on lavapipe: about +1 MiB).
constexpr long kMaxRssGrowth = 8l << 20;
constexpr int kWarmup = 100;

long resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  long size = 0, resident = 0;
  statm >> size >> resident;
  return resident * sysconf(_SC_PAGESIZE);
}

int soak_count() {
  const char* count_env = std::getenv("GPUSCAN_SOAK_COUNT");
  return count_env ? std::max(std::atoi(count_env), kWarmup + 1) : 10'000;
}

// `count` random convenience calls on ctx (sizes log-uniform in 1..2^12), each checked; calls
// `at_warmup` after kWarmup of them.
template <class AtWarmup>
void run_calls(const Context& ctx, int count, AtWarmup&& at_warmup) {
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  std::vector<Algorithm> algorithms = {Algorithm::automatic, Algorithm::multipass, Algorithm::reduce_then_scan};
  if (ctx.single_pass_available()) algorithms.push_back(Algorithm::single_pass);
  int failures = 0;
  for (int i = 0; i < count && failures < 5; ++i) {
    if (i == kWarmup) at_warmup();
    ScanConfig c;
    c.algorithm = algorithms[rng() % algorithms.size()];
    c.kind = rng() % 2 ? ScanKind::inclusive : ScanKind::exclusive;
    c.deterministic = false;  // lets f32 calls take the single-pass scan too
    const size_t n = static_cast<size_t>(std::exp2(std::uniform_real_distribution<double>(0, 12)(rng)));
    ::testing::AssertionResult ok = ::testing::AssertionSuccess();
    switch (rng() % 3) {
      case 0: {
        const auto in = random_values<uint32_t>(n, rng);
        ok = matches_reference(in, scan(ctx, std::span<const uint32_t>(in), c), c.kind);
        break;
      }
      case 1: {
        const auto in = random_values<int32_t>(n, rng);
        ok = matches_reference(in, scan(ctx, std::span<const int32_t>(in), c), c.kind);
        break;
      }
      default: {
        const auto in = random_values<float>(n, rng);
        ok = matches_reference(in, scan(ctx, std::span<const float>(in), c), c.kind);
      }
    }
    if (!ok) {
      ++failures;
      ADD_FAILURE() << "call " << i << ": " << to_string(c.algorithm) << " n = " << n << ": " << ok.message()
                    << " (GPUSCAN_SEED=" << seed << ")";
    }
  }
}

class SoakTest : public GpuTest {};

TEST_F(SoakTest, TenThousandConvenienceCallsKeepHostMemoryFlat) {
  const int count = soak_count();
  const Context ctx = Context::create(env::apply({}));
  long rss_start = 0;
  run_calls(ctx, count, [&] { rss_start = resident_bytes(); });
  const long rss_end = resident_bytes();
  const long growth = rss_end - rss_start;
  std::printf("soak: %d calls, RSS after %d warm-up calls %.1f MiB, at the end %.1f MiB, growth %+.2f MiB "
              "(limit %.0f MiB)\n",
              count, kWarmup, rss_start / 1048576.0, rss_end / 1048576.0, growth / 1048576.0,
              kMaxRssGrowth / 1048576.0);
#ifdef GPUSCAN_TEST_ASAN
  std::printf("soak: AddressSanitizer build, RSS growth not checked (quarantine); LeakSanitizer checks at exit\n");
#else
  EXPECT_LE(growth, kMaxRssGrowth) << "resident set grew by " << growth << " bytes over " << count - kWarmup
                                   << " calls";
#endif
}

TEST_F(SoakTest, TenThousandValidatedConvenienceCallsLeaveNoVulkanObjects) {
  const int count = soak_count();
  std::optional<Context> ctx(make_validated_context());
  run_calls(*ctx, count, [] {});
  for (const std::string& m : message_log().take()) ADD_FAILURE() << "validation during the soak: " << m;
  // Destroying the Context: any Vulkan object still alive is reported by the validation layer here.
  ctx.reset();
  for (const std::string& m : message_log().take()) ADD_FAILURE() << "validation at Context destruction: " << m;
}

// The check above is not vacuous: a buffer left alive is reported when its Context is destroyed.
TEST_F(SoakTest, ALeakedObjectIsReportedAtContextDestruction) {
  std::optional<Context> ctx(make_validated_context());
  VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  info.size = 256;
  info.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
  VkBuffer leaked = VK_NULL_HANDLE;
  {
#ifdef GPUSCAN_TEST_ASAN
    __lsan::ScopedDisabler deliberate_leak;  // the driver's host memory for this one buffer is leaked on purpose
#endif
    ASSERT_EQ(vkCreateBuffer(ctx->device(), &info, nullptr, &leaked), VK_SUCCESS);
  }
  ASSERT_TRUE(message_log().take().empty());
  ctx.reset();
  const std::vector<std::string> messages = message_log().take();
  EXPECT_FALSE(messages.empty()) << "the validation layer did not report the leaked VkBuffer";
}

}  // namespace
}  // namespace gpuscan::test
