// Thread safety: 8 threads share the process-wide validated Context and each runs 200 convenience
// scans (exclusive_scan / inclusive_scan / scan) with a random algorithm the device supports, a random
// element type and a log-uniform size; every result is checked against the CPU reference. Pipelines
// are built on first use under the Context's pipeline mutex and submissions go through its queue lock,
// so this exercises both concurrently (and, under GPUSCAN_SANITIZE, gives ASan/UBSan the chance to see
// races that corrupt memory). GPUSCAN_THREADS_MAX_LOG2 caps the sizes (default 2^18).
#include <atomic>
#include <cstdlib>
#include <mutex>
#include <sstream>
#include <thread>

#include "scan_check.hpp"

namespace gpuscan::test {
namespace {

class ThreadsTest : public GpuTest {};

constexpr int kThreads = 8;
constexpr int kScansPerThread = 200;

template <class T>
std::vector<T> run_one(const Context& ctx, const std::vector<T>& input, const ScanConfig& config, int how) {
  const std::span<const T> in(input);
  switch (how) {
    case 0: return exclusive_scan(ctx, in, config);
    case 1: return inclusive_scan(ctx, in, config);
    default: return scan(ctx, in, config);
  }
}

template <class T>
std::string check_one(const Context& ctx, size_t n, ScanConfig config, std::mt19937_64& rng) {
  const int how = static_cast<int>(rng() % 3);
  if (how == 0) config.kind = ScanKind::exclusive;
  if (how == 1) config.kind = ScanKind::inclusive;
  const auto input = random_values<T>(n, rng);
  const std::vector<T> got = run_one(ctx, input, config, how);
  const ::testing::AssertionResult r = matches_reference(input, got, config.kind);
  return r ? std::string() : std::string(r.message());
}

TEST_F(ThreadsTest, EightThreadsShareOneContextForConvenienceScans) {
  const Context& ctx = shared_context();
  const uint64_t seed = fresh_seed();
  int max_log2 = 18;
  if (const char* s = std::getenv("GPUSCAN_THREADS_MAX_LOG2")) max_log2 = std::clamp(std::atoi(s), 0, 26);

  std::vector<Algorithm> algorithms = {Algorithm::automatic, Algorithm::multipass, Algorithm::reduce_then_scan};
  if (ctx.single_pass_available()) algorithms.push_back(Algorithm::single_pass);
  std::vector<WorkgroupAlgorithm> workgroups = {WorkgroupAlgorithm::automatic, WorkgroupAlgorithm::blelloch};
  if (ctx.device_info().has_subgroup_arithmetic()) workgroups.push_back(WorkgroupAlgorithm::subgroup);

  std::mutex failures_mutex;
  std::vector<std::string> failures;
  std::atomic<int> done{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937_64 rng(seed + static_cast<uint64_t>(t) * 0x9E3779B97F4A7C15ull);
      for (int i = 0; i < kScansPerThread; ++i) {
        ScanConfig c;
        c.algorithm = algorithms[rng() % algorithms.size()];
        c.workgroup = workgroups[rng() % workgroups.size()];
        c.kind = rng() % 2 ? ScanKind::inclusive : ScanKind::exclusive;
        c.deterministic = false;  // lets f32 scans take the single-pass scan too
        const size_t n = static_cast<size_t>(
            std::exp2(std::uniform_real_distribution<double>(0, static_cast<double>(max_log2))(rng)));
        const int type = static_cast<int>(rng() % 3);
        std::string error;
        try {
          error = type == 0   ? check_one<uint32_t>(ctx, n, c, rng)
                  : type == 1 ? check_one<int32_t>(ctx, n, c, rng)
                              : check_one<float>(ctx, n, c, rng);
        } catch (const std::exception& e) {
          error = std::string("threw: ") + e.what();
        }
        if (!error.empty()) {
          std::ostringstream s;
          s << "thread " << t << ", scan " << i << ": " << to_string(c.algorithm) << " "
            << (type == 0 ? "u32" : type == 1 ? "i32" : "f32") << " n = " << n << ": " << error;
          std::lock_guard lock(failures_mutex);
          failures.push_back(s.str());
        }
        ++done;
      }
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(done.load(), kThreads * kScansPerThread);
  for (size_t i = 0; i < failures.size() && i < 10; ++i) ADD_FAILURE() << failures[i] << " (seed " << seed << ")";
  EXPECT_TRUE(failures.empty()) << failures.size() << " of " << kThreads * kScansPerThread
                                << " scans failed (GPUSCAN_SEED=" << seed << " replays the run)";
}

}  // namespace
}  // namespace gpuscan::test
