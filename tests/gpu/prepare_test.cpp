// Pipelines built up front: after prepare_scan / prepare_compact / prepare_reduce / prepare_segmented_scan,
// records of any count up to the prepared one build no pipeline (Context::pipeline_count stays put), on
// one thread or on several at once. Also what a quiet library owes its host program: it reads no
// environment variable and prints nothing (compiler statistics go to a callback), and its pipeline cache
// comes back through ContextCreateInfo::load_pipeline_cache, damaged data being ignored.
#include <algorithm>
#include <cstdlib>
#include <iterator>
#include <mutex>
#include <optional>
#include <thread>

#include "gpuscan/reference.hpp"
#include "gpu_test_support.hpp"
#include "gpuscan/compact.hpp"
#include "gpuscan/reduce.hpp"
#include "gpuscan/segmented.hpp"

namespace gpuscan::test {
namespace {

class PrepareTest : public GpuTest {};

// Up to 2^17 elements: on lavapipe several tile levels, the single-pass scan and reduce-then-scan.
constexpr uint64_t max_count = uint64_t{1} << 17;

// Counts around tile and level boundaries and a few others, all at most max_count.
std::vector<size_t> counts_to_record(std::mt19937_64& rng) {
  std::vector<size_t> counts = {1, 2, 3, 255, 256, 257, 1000, 4095, 4096, 4097, 65536, 65537, 100000, max_count};
  for (int i = 0; i < 4; ++i) counts.push_back(1 + rng() % max_count);
  return counts;
}

void host_to_compute(const Context& ctx, VkCommandBuffer cmd) {
  vk::memory_barrier(ctx, cmd, VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                     VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
}

void compute_to_host(const Context& ctx, VkCommandBuffer cmd) {
  vk::memory_barrier(ctx, cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
                     VK_ACCESS_HOST_READ_BIT);
}

// `input` scanned through record_scan, on buffers of its own.
std::vector<uint32_t> recorded_scan(const Context& ctx, const std::vector<uint32_t>& input, const ScanConfig& config) {
  const size_t n = input.size();
  HostBuffer<uint32_t> in(ctx, n * 4), out(ctx, n * 4);
  const TempRequirements req = scan_temp_requirements(ctx, n, config);
  HostBuffer<uint32_t> temp(ctx, std::max<VkDeviceSize>(req.size, 4), req.usage);
  std::memcpy(in.data(), input.data(), n * 4);
  vk::submit_and_wait(ctx, [&](VkCommandBuffer cmd) {
    host_to_compute(ctx, cmd);
    record_scan(ctx, cmd,
                {.config = config, .count = n, .input = in.view(), .output = out.view(), .temp = temp.view()});
    compute_to_host(ctx, cmd);
  });
  return {out.data(), out.data() + n};
}

// `values` selected by `predicate` (or by `flags` where given) through record_select_*.
std::vector<uint32_t> recorded_selection(const Context& ctx, const std::vector<uint32_t>& values,
                                         const std::vector<uint32_t>* flags, const Predicate& predicate) {
  const size_t n = values.size();
  HostBuffer<uint32_t> in(ctx, n * 4), flag_buffer(ctx, n * 4), out(ctx, n * 4), kept(ctx, 4);
  const TempRequirements req = compact_temp_requirements(ctx, n, CompactConfig{});
  HostBuffer<uint32_t> temp(ctx, std::max<VkDeviceSize>(req.size, 4), req.usage);
  std::memcpy(in.data(), values.data(), n * 4);
  if (flags) std::memcpy(flag_buffer.data(), flags->data(), n * 4);
  const SelectArgs args{{}, n, in.view(), flag_buffer.view(), predicate, out.view(), kept.view(), temp.view()};
  vk::submit_and_wait(ctx, [&](VkCommandBuffer cmd) {
    host_to_compute(ctx, cmd);
    flags ? record_select_flagged(ctx, cmd, args) : record_select_if(ctx, cmd, args);
    compute_to_host(ctx, cmd);
  });
  return {out.data(), out.data() + std::min<size_t>(kept.data()[0], n)};
}

TEST_F(PrepareTest, ScansRecordedAfterPrepareBuildNothing) {
  const Context& ctx = shared_context();
  std::mt19937_64 rng(0x5ca1ab1e);
  ScanConfig inclusive;
  inclusive.kind = ScanKind::inclusive;
  ScanConfig multipass;
  multipass.algorithm = Algorithm::multipass;
  for (const ScanConfig& config : {ScanConfig{}, inclusive, multipass}) {
    prepare_scan(ctx, max_count, config);
    const size_t built = ctx.pipeline_count();
    EXPECT_GT(built, 0u);
    for (const size_t n : counts_to_record(rng)) {
      SCOPED_TRACE(std::string(to_string(config.algorithm)) + " " + std::string(to_string(config.kind)) + ", " +
                   std::to_string(n) + " elements");
      const std::vector<uint32_t> input = random_values<uint32_t>(n, rng);
      EXPECT_EQ(recorded_scan(ctx, input, config), cpu::scan<uint32_t>(input, config.kind));
      EXPECT_EQ(ctx.pipeline_count(), built) << "the record built a pipeline";
    }
  }
}

TEST_F(PrepareTest, CompactionsRecordedAfterPrepareBuildNothing) {
  const Context& ctx = shared_context();
  std::mt19937_64 rng(0xc0ffee);
  const Predicate big = Predicate::greater<uint32_t>(0x80000000u);
  prepare_compact(ctx, max_count, {}, {.predicate = PredicateKind::greater});
  prepare_compact(ctx, max_count, {}, {.flagged = true});
  const size_t built = ctx.pipeline_count();
  for (const size_t n : counts_to_record(rng)) {
    SCOPED_TRACE(std::to_string(n) + " elements");
    const std::vector<uint32_t> values = random_values<uint32_t>(n, rng);
    std::vector<uint32_t> want;
    std::copy_if(values.begin(), values.end(), std::back_inserter(want), big);
    EXPECT_EQ(recorded_selection(ctx, values, nullptr, big), want);
    std::vector<uint32_t> flags(n);
    for (size_t i = 0; i < n; ++i) flags[i] = big(values[i]) ? 1 + static_cast<uint32_t>(i % 3) : 0;
    EXPECT_EQ(recorded_selection(ctx, values, &flags, {}), want);
    EXPECT_EQ(ctx.pipeline_count(), built) << "the record built a pipeline";
  }
  // Another predicate kind has pipelines of its own, built at its first record.
  recorded_selection(ctx, {1, 2, 3}, nullptr, Predicate::less<uint32_t>(2));
  EXPECT_GT(ctx.pipeline_count(), built);
}

// Reductions and segmented scans, through their convenience calls (which record the same way).
TEST_F(PrepareTest, ReductionsAndSegmentedScansAfterPrepareBuildNothing) {
  const Context& ctx = shared_context();
  std::mt19937_64 rng(0xfeed);
  prepare_reduce(ctx, max_count, {});
  prepare_segmented_scan(ctx, max_count, ScanConfig{}, SegmentHeads::flags);
  const size_t built = ctx.pipeline_count();
  for (const size_t n : counts_to_record(rng)) {
    SCOPED_TRACE(std::to_string(n) + " elements");
    const std::vector<uint32_t> values = random_values<uint32_t>(n, rng);
    uint32_t sum = 0;
    for (const uint32_t v : values) sum += v;
    EXPECT_EQ(reduce(ctx, std::span<const uint32_t>(values)), sum);
    std::vector<uint32_t> flags(n);
    for (auto& f : flags) f = rng() % 7 == 0;
    const std::vector<uint32_t> got =
        segmented_scan(ctx, std::span<const uint32_t>(values), std::span<const uint32_t>(flags));
    const std::vector<uint8_t> starts = cpu::starts_from_flags(flags, n);
    EXPECT_EQ(got, cpu::segmented_scan<uint32_t>(values, starts, ScanKind::exclusive));
    EXPECT_EQ(ctx.pipeline_count(), built) << "the call built a pipeline";
  }
}

// After prepare, records on several threads only look pipelines up (under the shared lock): they run at
// once, build nothing, and each gets its own right result.
TEST_F(PrepareTest, ThreadsRecordConcurrentlyAfterPrepare) {
  const Context& ctx = shared_context();
  ScanConfig config;
  config.kind = ScanKind::inclusive;
  prepare_scan(ctx, max_count, config);
  const size_t built = ctx.pipeline_count();
  constexpr int threads = 4;
  std::vector<std::string> failures(threads);
  std::vector<std::thread> running;
  for (int t = 0; t < threads; ++t)
    running.emplace_back([&, t] {
      std::mt19937_64 rng(1000 + t);
      try {
        for (int i = 0; i < 12; ++i) {
          const size_t n = 1 + rng() % max_count;
          const std::vector<uint32_t> input = random_values<uint32_t>(n, rng);
          if (recorded_scan(ctx, input, config) != cpu::scan<uint32_t>(input, config.kind))
            failures[t] += "wrong result for " + std::to_string(n) + " elements; ";
        }
      } catch (const std::exception& e) {
        failures[t] += std::string("threw: ") + e.what();
      }
    });
  for (std::thread& thread : running) thread.join();
  for (int t = 0; t < threads; ++t) EXPECT_TRUE(failures[t].empty()) << "thread " << t << ": " << failures[t];
  EXPECT_EQ(ctx.pipeline_count(), built);
}

// Sets environment variables for its lifetime, then restores them.
class ScopedEnvironment {
 public:
  explicit ScopedEnvironment(std::initializer_list<std::pair<const char*, const char*>> values) {
    for (const auto& [name, value] : values) {
      const char* old = std::getenv(name);
      saved_.push_back({name, old != nullptr, old ? old : ""});
      setenv(name, value, 1);
    }
  }
  ~ScopedEnvironment() {
    for (const Saved& s : saved_) {
      if (s.had) setenv(s.name, s.value.c_str(), 1);
      else unsetenv(s.name);
    }
  }

 private:
  struct Saved {
    const char* name;
    bool had;
    std::string value;
  };
  std::vector<Saved> saved_;
};

// The variables the programs read (tools/env/gpuscan_env.hpp) mean nothing to the library: with all of
// them set to nonsense a default Context is created and scans, and nothing reaches stderr from gpuscan.
TEST_F(PrepareTest, TheLibraryIgnoresTheEnvironment) {
  const ScopedEnvironment nonsense({{"GPUSCAN_TIMEOUT_MS", "garbage"},
                                    {"GPUSCAN_DEVICE", "no-such-device"},
                                    {"GPUSCAN_FENCE_POLL_US", "soon"},
                                    {"GPUSCAN_PIPELINE_STATS", "1"}});
  ::testing::internal::CaptureStderr();
  {
    std::optional<Context> ctx;
    EXPECT_NO_THROW(ctx.emplace(Context::create()));
    if (ctx) {
      const std::vector<uint32_t> in = {3, 1, 7};
      EXPECT_EQ(exclusive_scan(*ctx, std::span<const uint32_t>(in)), (std::vector<uint32_t>{0, 3, 4}));
    }
  }
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(err.find("gpuscan"), std::string::npos) << err;
  // The programs, which do read them, refuse the malformed ones.
  EXPECT_THROW(env::apply({}), Error);
}

TEST_F(PrepareTest, PipelineStatisticsGoToTheCallback) {
  std::mutex mutex;
  std::vector<PipelineStatistics> seen;
  ContextCreateInfo info;
  info.on_pipeline_statistics = [&](const PipelineStatistics& s) {
    std::lock_guard lock(mutex);
    seen.push_back(s);
  };
  const Context ctx = make_validated_context(info);
  if (!ctx.device_info().pipeline_executable_properties)
    GTEST_SKIP() << ctx.device_info().name << " does not offer VK_KHR_pipeline_executable_properties";
  prepare_scan(ctx, 10000, {});
  std::lock_guard lock(mutex);
  ASSERT_GE(seen.size(), ctx.pipeline_count()) << "one call per executable of every pipeline";
  for (const PipelineStatistics& s : seen) {
    EXPECT_FALSE(s.variant.empty());
    EXPECT_EQ(s.constants.size(), 14u);
    EXPECT_FALSE(s.executable.empty());
  }
}

TEST_F(PrepareTest, PipelineCacheDataComesBackAndDamagedDataIsIgnored) {
  std::vector<std::byte> saved;
  DeviceInfo device;
  {
    const Context first = make_validated_context();
    prepare_scan(first, 10000, {});
    saved = first.pipeline_cache_data();
    device = first.device_info();
    ASSERT_TRUE(pipeline_cache_fits(saved, device));
  }
  std::vector<std::byte> other_device = saved;
  other_device[12] ^= std::byte{1};  // the device id
  const std::vector<std::vector<std::byte>> given = {saved, {saved.begin(), saved.begin() + 20}, other_device,
                                                     std::vector<std::byte>(saved.size(), std::byte{0xa5}), {}};
  for (size_t i = 0; i < given.size(); ++i) {
    SCOPED_TRACE("cache data " + std::to_string(i));
    EXPECT_EQ(pipeline_cache_fits(given[i], device), i == 0);
    ContextCreateInfo info;
    std::optional<uint32_t> asked;
    info.load_pipeline_cache = [&](const DeviceInfo& d) {
      asked = d.device_id;
      return given[i];
    };
    const Context ctx = make_validated_context(info);
    ASSERT_TRUE(asked.has_value()) << "load_pipeline_cache was not called";
    EXPECT_EQ(*asked, ctx.device_info().device_id) << "called once the device was chosen";
    const std::vector<uint32_t> in = {3, 1, 7};
    EXPECT_EQ(exclusive_scan(ctx, std::span<const uint32_t>(in)), (std::vector<uint32_t>{0, 3, 4}));
    EXPECT_TRUE(pipeline_cache_fits(ctx.pipeline_cache_data(), ctx.device_info()));
  }
}

}  // namespace
}  // namespace gpuscan::test
