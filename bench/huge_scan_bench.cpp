// Scans beyond one binding on a real GPU: u32 exclusive sums of 2^31 and 2^33 elements (8 and
// 32 GiB per buffer; an H200 binds at most 4 GiB - 1, so these run as windows chained on the GPU). The
// input is generated and the result checked on the GPU (shaders/bench_pattern.comp: out[0] == 0 and
// out[i] + x[i] == out[i + 1] everywhere), so nothing of that size crosses to the host. Each algorithm is
// timed beside the GLSL copy of the same bytes, in one process: medians of --runs runs after warm-up.
// With --addressing device_address the scans reach the buffers through buffer device addresses (windows
// of 2^31 elements instead of one binding; docs/scan.md).
//   gpuscan_huge_bench --log2 31,33 --runs 10 > huge.csv
#include <CLI/CLI.hpp>

#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

#include "bench_support.hpp"

namespace gs = gpuscan;
using namespace gpuscan::bench;

namespace {

constexpr uint32_t pattern_group = 256;  // bench_pattern.comp's local size

// Runs bench_pattern.comp over n elements, window by window: fill `in` (check = false) or check the
// exclusive scan `out` of `in`, counting mismatches into `counter`, one u32 per window.
void record_pattern(const gs::Context& ctx, VkCommandBuffer cmd, const Buffers& b, VkBuffer counter, uint64_t n,
                    bool check) {
  gs::bench::add_bench_modules(ctx);
  // One element of slack so that a check window can bind its successor too.
  const uint64_t window = (gs::testkit::window_elements(ctx, 4) - 16) / pattern_group * pattern_group;
  for (uint64_t start = 0, slot = 0; start < n; start += window, ++slot) {
    const uint64_t len = std::min(window, n - start);
    const bool next = start + len < n;
    const VkDescriptorBufferInfo infos[3] = {
        {b.in.handle(), start * 4, len * 4}, {check ? b.out.handle() : b.in.handle(), start * 4, (len + next) * 4},
        {counter, 0, VK_WHOLE_SIZE}};
    const uint32_t params[8] = {static_cast<uint32_t>(len), 0, 0, next ? 1u : 0u, start == 0 ? 1u : 0u,
                                static_cast<uint32_t>(start), static_cast<uint32_t>(start >> 32),
                                static_cast<uint32_t>(slot)};
    const uint32_t groups = static_cast<uint32_t>(std::min<uint64_t>((len + pattern_group - 1) / pattern_group, 65535));
    gs::testkit::record_kernel(ctx, cmd, "bench_pattern", {.aux = check}, infos, params, groups);
  }
}

void compute_barrier(const gs::Context& ctx, VkCommandBuffer cmd) {
  gs::testkit::memory_barrier(ctx, cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                              VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
                              VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                              VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"gpuscan huge-scan benchmark: u32 exclusive sums past one binding, checked on the GPU"};
  std::vector<int> log2s = {31, 33};
  std::vector<std::string> algorithms = {"auto", "reduce-then-scan", "single-pass", "multipass"};
  uint32_t runs = 10, warmup = 2;
  std::string device, addressing = "bindings";
  app.add_option("--log2", log2s, "sizes as powers of two")->delimiter(',');
  app.add_option("--algorithms", algorithms, "auto, single-pass, reduce-then-scan, multipass")->delimiter(',');
  app.add_option("--runs", runs, "timed runs per case (median reported)");
  app.add_option("--warmup", warmup, "untimed runs before them");
  double warmup_ms = -1;
  app.add_option("--warmup-ms", warmup_ms, "and at least this much warm-up work (default 2000 on a GPU, 200 on a CPU)");
  app.add_option("--device", device, "device selector (index or name substring)");
  app.add_option("--addressing", addressing, "how the scans reach the buffers: bindings or device_address")
      ->check(CLI::IsMember({"bindings", "device_address"}));
  CLI11_PARSE(app, argc, argv);
  try {
    gs::ContextCreateInfo info;
    info.device_selector = device;
    const bool by_address = addressing == "device_address";
    info.addressing = by_address ? gs::Addressing::device_address : gs::Addressing::bindings;
    const gs::Context ctx = gs::Context::create(gs::env::apply(info));
    set_warmup_ms(ctx, warmup_ms);
    std::cout << "# device: " << ctx.device_info().name << ", maxStorageBufferRange "
              << ctx.device_info().max_storage_buffer_range << " bytes, addressing " << addressing << "\n"
              << "n,algorithm,median_ms,gbps,copy_ms,ratio_to_copy,windows,mismatches\n";
    int failures = 0;
    for (int e : log2s) {
      const uint64_t n = uint64_t{1} << e;
      uint64_t temp_bytes = 16;
      for (const auto& a : algorithms) {
        gs::ScanConfig c;
        c.algorithm = *gs::parse_algorithm(a);
        temp_bytes = std::max(temp_bytes, gs::scan_temp_requirements(ctx, n, c).size);
      }
      const VkBufferUsageFlags usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT |
                                       (by_address ? VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT : 0);
      auto device_buffer = [&](VkDeviceSize bytes) {
        return gs::testkit::Buffer(ctx, bytes, usage, gs::testkit::Memory::device_local);
      };
      Buffers b{device_buffer(n * 4), device_buffer(n * 4), device_buffer(temp_bytes), {}, {}, {}};
      constexpr uint32_t max_windows = 1024;  // counter slots: 2^40 elements in windows of 2^30
      if (n / (gs::testkit::window_elements(ctx, 4) - 16 - pattern_group) >= max_windows)
        throw gs::Error(gs::Errc::too_large, "more than 1024 check windows");
      gs::testkit::Buffer counter(ctx, max_windows * 4, usage, gs::testkit::Memory::host_visible);
      auto* slots = static_cast<uint32_t*>(counter.mapped());
      gs::testkit::submit_and_wait(ctx, [&](VkCommandBuffer cmd) { record_pattern(ctx, cmd, b, counter.handle(), n, false); });
      const Stats copy = summarize(time_runs(ctx, warmup, runs, [&](VkCommandBuffer cmd) { record_copy(ctx, cmd, b, n, 256, 4); }));
      const uint64_t scan_window = gs::testkit::window_elements(ctx, 4, by_address);
      const uint64_t windows = (n + scan_window - 1) / scan_window;
      // The check itself must be able to fail: on the poisoned output it finds (nearly) every element wrong.
      auto check = [&](const gs::ScanArgs* args) {
        std::fill(slots, slots + max_windows, 0u);
        poison(ctx, b.out.handle(), n * 4);
        gs::testkit::submit_and_wait(ctx, [&](VkCommandBuffer cmd) {
          compute_barrier(ctx, cmd);
          if (args) gs::record_scan(ctx, cmd, *args);
          compute_barrier(ctx, cmd);
          record_pattern(ctx, cmd, b, counter.handle(), n, true);
          gs::testkit::memory_barrier(ctx, cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                                      VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
        });
        uint64_t total = 0;
        for (uint32_t i = 0; i < max_windows; ++i) total += slots[i];
        return total;
      };
      const uint64_t unscanned = check(nullptr);
      std::cout << "# check on the unscanned (poisoned) output of n = " << n << ": " << unscanned << " mismatches\n";
      if (unscanned < n / 2) throw gs::Error(gs::Errc::unsupported, "the GPU check cannot tell a wrong scan on this device");
      for (const auto& a : algorithms) {
        gs::ScanConfig c;
        c.algorithm = *gs::parse_algorithm(a);
        const gs::ScanArgs args{c, n, b.in.view(), b.out.view(), b.temp.view()};
        const uint64_t mismatches = check(&args);  // once on a poisoned output, then timed
        failures += mismatches != 0;
        const Stats s = summarize(time_runs(ctx, warmup, runs, [&](VkCommandBuffer cmd) { gs::record_scan(ctx, cmd, args); }));
        std::cout << n << "," << a << "," << s.median_ms << "," << 2.0 * n * 4 / (s.median_ms * 1e-3) / 1e9 << ","
                  << copy.median_ms << "," << copy.median_ms / s.median_ms << "," << windows << "," << mismatches
                  << std::endl;
      }
    }
    return failures ? 1 : 0;
  } catch (const gs::Error& e) {
    std::cerr << "gpuscan_huge_bench: error: " << e.what() << "\n";
    return 1;
  }
}
