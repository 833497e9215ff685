#include "sort_bench.hpp"

#include <algorithm>
#include <cstring>
#include <iostream>
#include <numeric>
#include <vector>

#include "gpuscan/vulkan.hpp"

namespace gpuscan::bench {
namespace {

template <class K>
int run_case(const Context& ctx, const Buffers& b, uint64_t n, SortAlgorithm algorithm, uint32_t w, uint32_t k,
             bool pairs, int warmup, int runs, bool verify, Sink& sink, std::mt19937_64& rng) {
  const SortConfig config{.key_type = data_type_of<K>::value,
                          .value_bytes = pairs ? 4u : 0u,
                          .workgroup_size = w,
                          .keys_per_lane = k,
                          .algorithm = algorithm};
  const TempRequirements req = sort_temp_requirements(ctx, n, config);
  constexpr VkBufferUsageFlags usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                       VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  auto device_buffer = [&](uint64_t bytes, VkBufferUsageFlags extra) {
    return testkit::Buffer(ctx, std::max<uint64_t>(bytes, 4), usage | extra, testkit::Memory::device_local);
  };
  testkit::Buffer temp = device_buffer(req.size, req.usage);
  testkit::Buffer values_in = device_buffer(pairs ? n * 4 : 4, 0), values_out = device_buffer(pairs ? n * 4 : 4, 0);
  std::vector<K> keys(n);
  for (auto& k : keys) k = static_cast<K>(rng());
  upload(ctx, b, b.in.handle(), keys.data(), n * sizeof(K));
  std::vector<uint32_t> positions(pairs ? n : 0);
  std::iota(positions.begin(), positions.end(), 0u);
  if (pairs) upload(ctx, b, values_in.handle(), positions.data(), n * 4);
  auto record = [&](VkCommandBuffer cmd) {
    if (pairs)
      record_sort_pairs(ctx, cmd, {config, n, b.in.view(), b.out.view(), values_in.view(), values_out.view(), temp.view()});
    else
      record_sort(ctx, cmd, {config, n, b.in.view(), b.out.view(), temp.view()});
  };
  const std::string type(to_string(config.key_type));
  const std::string name = std::string(algorithm == SortAlgorithm::onesweep ? "radix-onesweep" : "radix-multipass") +
                           (w || k ? "-w" + std::to_string(w) + "k" + std::to_string(k) : "");
  const std::string kind = pairs ? "pairs-u32" : "keys";
  const std::string what = name + " " + type + " " + kind + " n=" + std::to_string(n);
  if (verify) {
    poison(ctx, b.out.handle(), n * sizeof(K));
    if (pairs) poison(ctx, values_out.handle(), n * 4);
    testkit::submit_and_wait(ctx, record);
    std::vector<uint32_t> order(n);
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(), [&](uint32_t x, uint32_t y) { return keys[x] < keys[y]; });
    std::vector<K> got(n);
    std::memcpy(got.data(), read_back(ctx, b, b.out.handle(), n * sizeof(K)), n * sizeof(K));
    bool ok = true;
    for (uint64_t i = 0; i < n && ok; ++i) ok = got[i] == keys[order[i]];
    if (ok && pairs) {
      std::memcpy(positions.data(), read_back(ctx, b, values_out.handle(), n * 4), n * 4);
      ok = positions == order;
    }
    if (!ok) {
      std::cerr << "MISMATCH " << what << "\n";
      sink.note("MISMATCH " + what);
      return 1;
    }
  }
  Row row{"gpuscan-vulkan", name, type, kind, n};
  row.stats = summarize(time_runs(ctx, warmup, runs, record));
  row.runs = runs;
  row.bytes = 2.0 * n * (sizeof(K) + (pairs ? 4 : 0));
  std::cerr << what << ": " << row.stats.median_ms << " ms\n";
  sink.row(row);
  // The first 8-bit pass alone and cut after each stage (kinds "<kind>/pass1-counts", "-counts+scan",
  // "pass1"), so that differences give each stage's time: multipass counts, scan, scatter; onesweep
  // counts all digits, scan, then one pass. Bytes: the key (and value) bytes each reads and writes.
  const struct {
    testkit::SortStages stages;
    const char* suffix;
    double bytes;
  } cuts[] = {{testkit::SortStages::counts, "/pass1-counts", 1.0 * n * sizeof(K)},
              {testkit::SortStages::counts_and_scan, "/pass1-counts+scan", 1.0 * n * sizeof(K)},
              {testkit::SortStages::all, "/pass1", 3.0 * n * sizeof(K) + 2.0 * n * (pairs ? 4 : 0)}};
  SortConfig one_pass = config;
  one_pass.end_bit = 8;
  for (const auto& cut : cuts) {
    Row stage{"gpuscan-vulkan", name, type, kind + cut.suffix, n};
    stage.stats = summarize(time_runs(ctx, warmup, runs, [&](VkCommandBuffer cmd) {
      testkit::record_sort_stages(ctx, cmd, {one_pass, n, b.in.view(), b.out.view(), values_in.view(),
                                             values_out.view(), temp.view()}, cut.stages);
    }));
    stage.runs = runs;
    stage.bytes = cut.bytes;
    std::cerr << what << cut.suffix << ": " << stage.stats.median_ms << " ms\n";
    sink.row(stage);
  }
  return 0;
}

}  // namespace

int run_sort_cases(const Context& ctx, const Buffers& b, uint64_t n, uint32_t element_bytes,
                   const std::vector<uint32_t>& workgroup_sizes, const std::vector<uint32_t>& keys_per_lane, int warmup,
                   int runs, bool verify, Sink& sink, std::mt19937_64& rng) {
  int failures = 0;
  std::vector<SortAlgorithm> algorithms = {SortAlgorithm::multipass};
  if (ctx.single_pass_available()) algorithms.push_back(SortAlgorithm::onesweep);
  for (const SortAlgorithm a : algorithms)
    for (const uint32_t w : workgroup_sizes)
      for (const uint32_t k : keys_per_lane) {
        failures += run_case<uint32_t>(ctx, b, n, a, w, k, false, warmup, runs, verify, sink, rng);
        failures += run_case<uint32_t>(ctx, b, n, a, w, k, true, warmup, runs, verify, sink, rng);
        if (element_bytes >= 8)
          failures += run_case<uint64_t>(ctx, b, n, a, w, k, false, warmup, runs, verify, sink, rng);
      }
  return failures;
}

}  // namespace gpuscan::bench
