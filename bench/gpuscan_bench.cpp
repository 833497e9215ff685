// gpuscan's benchmark: GPU time of every scan algorithm from timestamp queries, beside the GLSL copy
// roofline measured in the same process, as CSV rows that bench/scripts/compare.py and plot.py read:
//   impl,algorithm,type,kind,n,median_ms,min_ms,max_ms,runs,gbps
// gbps counts the bytes a scan must move at least: n elements read and n written.
//
// Each (algorithm, type, kind, n) is first checked once against the CPU reference on a poisoned
// output; then `warmup` runs and `runs` timed runs are recorded into one command buffer, each between
// two timestamps and separated by a barrier, so runs do not overlap. Everything a scan needs is inside
// the timed region (the single-pass scan's clearing of its look-back state included). The median is
// reported. Inputs are random; sizes above the 60 MB L2 measure memory, smaller ones partly the cache.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>

#include "bench_common.hpp"
#include "gpuscan/gpuscan.hpp"
#include "vulkan/check.hpp"
#include "vulkan/context_impl.hpp"
#include "vulkan/memory.hpp"
#include "vulkan/submit.hpp"

namespace gs = gpuscan;
namespace vk = gpuscan::vk;
using gpuscan::bench::Stats;
using gpuscan::bench::csv_row;
using gpuscan::bench::summarize;

namespace {

struct Variant {
  std::string label;  // CSV "algorithm" column
  gs::ScanConfig config;
};

// Device buffers sized for the largest run, reused for all.
struct Buffers {
  vk::OwnedBuffer in, out, temp, staging;
};

// Records `runs` repetitions of `record`, each between two timestamps, and returns each one's GPU time.
std::vector<double> time_runs_once(const gs::Context& ctx, uint32_t warmup, uint32_t runs,
                                   const std::function<void(VkCommandBuffer)>& record) {
  const VkDevice device = ctx.device();
  VkQueryPoolCreateInfo q{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
  q.queryType = VK_QUERY_TYPE_TIMESTAMP;
  q.queryCount = 2 * runs;
  VkQueryPool pool;
  vk::check(vkCreateQueryPool(device, &q, nullptr, &pool), "vkCreateQueryPool");
  vk::submit_and_wait(ctx, [&](VkCommandBuffer cmd) {
    vkCmdResetQueryPool(cmd, pool, 0, 2 * runs);
    const VkMemoryBarrier between{VK_STRUCTURE_TYPE_MEMORY_BARRIER, nullptr,
                                  VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
                                  VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT};
    for (uint32_t i = 0; i < warmup + runs; ++i) {
      const bool timed = i >= warmup;
      if (timed) vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, pool, 2 * (i - warmup));
      record(cmd);
      if (timed) vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, pool, 2 * (i - warmup) + 1);
      vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                           VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &between, 0,
                           nullptr, 0, nullptr);
    }
  });
  std::vector<uint64_t> stamps(2 * runs);
  vk::check(vkGetQueryPoolResults(device, pool, 0, 2 * runs, stamps.size() * 8, stamps.data(), 8,
                                  VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT),
            "vkGetQueryPoolResults");
  vkDestroyQueryPool(device, pool, nullptr);
  std::vector<double> ms(runs);
  for (uint32_t i = 0; i < runs; ++i)
    ms[i] = static_cast<double>(stamps[2 * i + 1] - stamps[2 * i]) * ctx.device_info().timestamp_period_ns * 1e-6;
  return ms;
}

// GPU clocks drop while the host verifies results between cases, and a few runs do not bring them
// back (seen on the H200: the first cases after an idle second ran 2-4x slower). So the warm-up is
// long enough to keep the GPU busy for `warmup_ms` before the timed runs, in the same submission.
double g_warmup_ms = 200;

std::vector<double> time_runs(const gs::Context& ctx, uint32_t warmup, uint32_t runs,
                              const std::function<void(VkCommandBuffer)>& record) {
  const std::vector<double> probe = time_runs_once(ctx, 0, 3, record);
  const double estimate = std::max(*std::min_element(probe.begin(), probe.end()), 1e-3);
  const uint32_t needed = static_cast<uint32_t>(std::min(20000.0, std::ceil(g_warmup_ms / estimate)));
  return time_runs_once(ctx, std::max(warmup, needed), runs, record);
}

// The GLSL copy roofline: shaders/copy.comp with the tile kernels' layout.
void record_copy(const gs::Context& ctx, VkCommandBuffer cmd, const Buffers& b, uint64_t n, uint32_t w, uint32_t k) {
  gs::Context::Impl& impl = ctx.impl();
  gs::PipelineKey key;
  key.variant = "copy.u32";
  key.workgroup_size = w;
  key.vectors_per_lane = k;
  const uint64_t tile = uint64_t{w} * k * 4;
  const uint64_t blocks = (n + tile - 1) / tile;
  const uint32_t gx = static_cast<uint32_t>(std::min<uint64_t>(blocks, impl.max_groups_x));
  const uint32_t gy = static_cast<uint32_t>((blocks + gx - 1) / gx);
  const VkDescriptorBufferInfo infos[3] = {
      {b.in.handle(), 0, n * 4}, {b.out.handle(), 0, n * 4}, {b.out.handle(), 0, n * 4}};
  const uint32_t params[6] = {static_cast<uint32_t>(n), 0, 0, 0, gx, static_cast<uint32_t>(blocks)};
  impl.record_dispatch(cmd, key, infos, params, gx, gy);
}

// Copies `bytes` from device buffer `src` to the staging buffer and returns a pointer to them.
const void* read_back(const gs::Context& ctx, const Buffers& b, VkBuffer src, uint64_t bytes) {
  vk::submit_and_wait(ctx, [&](VkCommandBuffer cmd) {
    vk::copy_with_barrier(cmd, src, b.staging.handle(), bytes, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                          VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
  });
  return b.staging.mapped();
}

void upload(const gs::Context& ctx, const Buffers& b, VkBuffer dst, const void* data, uint64_t bytes) {
  std::memcpy(b.staging.mapped(), data, bytes);
  vk::submit_and_wait(ctx, [&](VkCommandBuffer cmd) {
    vk::copy_with_barrier(cmd, b.staging.handle(), dst, bytes, VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_WRITE_BIT,
                          VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
  });
}

void poison(const gs::Context& ctx, VkBuffer buffer, uint64_t bytes) {
  vk::submit_and_wait(ctx, [&](VkCommandBuffer cmd) {
    vk::memory_barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT,
                       VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT);
    vkCmdFillBuffer(cmd, buffer, 0, bytes, 0xA5A5A5A5u);
    vk::memory_barrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                       VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
  });
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"gpuscan benchmark: GPU time of every scan algorithm beside the GLSL copy roofline"};
  int min_log2 = 10, max_log2 = 28, step = 2;
  uint32_t runs = 30, warmup = 5;
  std::vector<std::string> algorithms = {"single-pass", "reduce-then-scan", "multipass-subgroup", "multipass-blelloch"};
  std::vector<std::string> types = {"u32", "f32"};
  std::vector<std::string> kinds = {"exclusive"};
  std::vector<uint32_t> workgroup_sizes = {256}, vectors = {4}, spins = {0};
  std::vector<uint32_t> copy_workgroup_sizes = {256}, copy_vectors = {4};
  std::string csv_path, device;
  bool verify = true;
  app.add_option("--min-log2", min_log2, "smallest size 2^k (default 10)");
  app.add_option("--max-log2", max_log2, "largest size 2^k (default 28)");
  app.add_option("--step", step, "exponent step (default 2)");
  app.add_option("--runs", runs, "timed runs per case (default 30)");
  app.add_option("--warmup", warmup, "untimed runs first, at least (default 5)");
  app.add_option("--warmup-ms", g_warmup_ms, "keep the GPU busy this long before timed runs (default 200)");
  app.add_option("--algorithms", algorithms,
                 "single-pass (temp zeroed once, then left zeroed by each scan), single-pass-fill (clears its "
                 "state with a fill every time), reduce-then-scan, multipass-subgroup, multipass-blelloch")
      ->delimiter(',');
  app.add_option("--types", types, "u32, i32, f32")->delimiter(',');
  app.add_option("--kinds", kinds, "exclusive, inclusive")->delimiter(',');
  app.add_option("--workgroup-sizes", workgroup_sizes, "tile kernels: W values to sweep")->delimiter(',');
  app.add_option("--vectors", vectors, "tile kernels: vectors per lane to sweep")->delimiter(',');
  app.add_option("--spins", spins, "single-pass: spin limits to sweep (0 = default)")->delimiter(',');
  app.add_option("--copy-workgroup-sizes", copy_workgroup_sizes, "copy roofline: W values")->delimiter(',');
  app.add_option("--copy-vectors", copy_vectors, "copy roofline: vectors per lane")->delimiter(',');
  app.add_option("--csv", csv_path, "write CSV here (default stdout)");
  app.add_option("--device", device, "device index or name substring");
  app.add_flag("!--no-verify", verify, "skip the CPU check of each case");
  CLI11_PARSE(app, argc, argv);

  try {
    gs::ContextCreateInfo info;
    info.device_selector = device;
    const gs::Context ctx = gs::Context::create(info);
    const gs::DeviceInfo& d = ctx.device_info();
    if (d.timestamp_period_ns <= 0) throw gs::Error(gs::Errc::unsupported, "the device has no timestamps");

    std::ofstream file;
    std::ostream& out = csv_path.empty() ? std::cout : (file.open(csv_path), file);
    out << "# device: " << d.name << "\n# vulkan: " << VK_API_VERSION_MAJOR(d.api_version) << "."
        << VK_API_VERSION_MINOR(d.api_version) << "." << VK_API_VERSION_PATCH(d.api_version)
        << "\n# subgroup size: " << d.subgroup_size << "\n# gpuscan: " << gs::version
        << "\n# timing: Vulkan timestamps around each run, median of " << runs << " after at least " << warmup
        << " warm-up runs and " << g_warmup_ms << " ms of warm-up work in the same submission\n"
        << "impl,algorithm,type,kind,n,median_ms,min_ms,max_ms,runs,gbps\n";

    const uint64_t max_n = uint64_t{1} << max_log2;
    std::mt19937_64 rng(std::random_device{}());
    // Temp storage: the most any variant asks for at the largest size.
    uint64_t temp_bytes = 16;
    for (const auto& t : types)
      for (auto w : workgroup_sizes)
        for (auto k : vectors)
          for (auto a : {gs::Algorithm::single_pass, gs::Algorithm::reduce_then_scan, gs::Algorithm::multipass}) {
            gs::ScanConfig c;
            c.type = *gs::parse_data_type(t);
            c.algorithm = a;
            c.workgroup_size = w;
            c.vectors_per_lane = k;
            c.deterministic = false;
            temp_bytes = std::max(temp_bytes, gs::scan_temp_requirements(ctx, max_n, c).size);
          }
    constexpr VkBufferUsageFlags usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                         VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    Buffers b{{ctx.physical_device(), ctx.device(), max_n * 4, usage, vk::MemoryKind::device_local},
              {ctx.physical_device(), ctx.device(), max_n * 4, usage, vk::MemoryKind::device_local},
              {ctx.physical_device(), ctx.device(), temp_bytes, usage, vk::MemoryKind::device_local},
              {ctx.physical_device(), ctx.device(), max_n * 4, usage, vk::MemoryKind::host_visible}};

    // Bring the clocks up before the first measurement: about a second of copies at the largest size.
    const int clock_warmup = static_cast<int>(std::clamp<uint64_t>((uint64_t{2} << 30) / max_n, 200, 20000));
    time_runs_once(ctx, 0, 1, [&](VkCommandBuffer cmd) {
      for (int i = 0; i < clock_warmup; ++i) {
        record_copy(ctx, cmd, b, max_n, 256, 4);
        vk::memory_barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                           VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT);
      }
    });
    int failures = 0;
    for (int e = min_log2; e <= max_log2; e += step) {
      const uint64_t n = uint64_t{1} << e;
      // Copy roofline: the best over the copy shapes, measured before and after this size's scans
      // (a slow first measurement at a new size was seen on the H200 even after warm-up).
      Stats best_copy{1e30, 0, 0};
      auto measure_copy = [&] {
        std::vector<uint32_t> data(n);
        for (auto& x : data) x = static_cast<uint32_t>(rng());
        upload(ctx, b, b.in.handle(), data.data(), n * 4);
        for (auto w : copy_workgroup_sizes)
          for (auto k : copy_vectors) {
            const Stats s = summarize(time_runs(ctx, warmup, runs, [&](VkCommandBuffer cmd) { record_copy(ctx, cmd, b, n, w, k); }));
            std::cerr << "copy n=2^" << e << " W=" << w << " K=" << k << ": " << s.median_ms << " ms\n";
            if (s.median_ms < best_copy.median_ms) best_copy = s;
          }
      };
      measure_copy();
      for (const auto& type_name : types) {
        const gs::DataType type = *gs::parse_data_type(type_name);
        std::vector<uint32_t> bits(n);
        if (type == gs::DataType::f32) {
          std::uniform_real_distribution<float> u(-1.0f, 1.0f);
          for (auto& x : bits) { float f = u(rng); std::memcpy(&x, &f, 4); }
        } else {
          for (auto& x : bits) x = static_cast<uint32_t>(rng());
        }
        upload(ctx, b, b.in.handle(), bits.data(), n * 4);
        for (const auto& kind_name : kinds) {
          const gs::ScanKind kind = kind_name == "inclusive" ? gs::ScanKind::inclusive : gs::ScanKind::exclusive;
          for (const auto& alg : algorithms) {
            for (auto w : workgroup_sizes)
              for (auto k : vectors)
                for (auto spin : spins) {
                  gs::ScanConfig c;
                  c.type = type;
                  c.kind = kind;
                  c.workgroup_size = w;
                  c.vectors_per_lane = k;
                  c.spin_limit = spin;
                  c.deterministic = false;  // time every algorithm as asked, f32 on single-pass too
                  const bool with_fill = alg == "single-pass-fill";
                  if (alg == "single-pass" || with_fill) c.algorithm = gs::Algorithm::single_pass;
                  else if (alg == "reduce-then-scan") c.algorithm = gs::Algorithm::reduce_then_scan;
                  else if (alg == "multipass-subgroup") c.algorithm = gs::Algorithm::multipass, c.workgroup = gs::WorkgroupAlgorithm::subgroup;
                  else if (alg == "multipass-blelloch") c.algorithm = gs::Algorithm::multipass, c.workgroup = gs::WorkgroupAlgorithm::blelloch;
                  else throw gs::Error(gs::Errc::invalid_argument, "unknown algorithm " + alg);
                  const bool tiles = c.algorithm != gs::Algorithm::multipass;
                  if (!tiles && (k != vectors.front() || spin != spins.front())) continue;  // K, spins: tile kernels only
                  if (c.algorithm != gs::Algorithm::single_pass && spin != spins.front()) continue;
                  gs::ScanArgs args{c, n, b.in.view(), b.out.view(), b.temp.view()};
                  if (c.algorithm == gs::Algorithm::single_pass && !with_fill) {
                    // Zero the temp once; every single-pass scan leaves it zeroed (ScanArgs::temp_zeroed),
                    // so the timed runs need no clearing pass: the kernel's last workgroup clears it.
                    vk::submit_and_wait(ctx, [&](VkCommandBuffer cmd) {
                      vk::memory_barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                                         VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT,
                                         VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT);
                      vkCmdFillBuffer(cmd, b.temp.handle(), 0, VK_WHOLE_SIZE, 0);
                      vk::memory_barrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                                         VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                                         VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
                    });
                    args.temp_zeroed = true;
                  }
                  std::string label = alg;
                  if (workgroup_sizes.size() > 1 || vectors.size() > 1 || spins.size() > 1)
                    label += "-w" + std::to_string(w) + (tiles ? "-k" + std::to_string(k) : "") +
                             (c.algorithm == gs::Algorithm::single_pass && spins.size() > 1 ? "-s" + std::to_string(spin) : "");
                  if (verify) {
                    poison(ctx, b.out.handle(), n * 4);
                    vk::submit_and_wait(ctx, [&](VkCommandBuffer cmd) { gs::record_scan(ctx, cmd, args); });
                    const void* got = read_back(ctx, b, b.out.handle(), n * 4);
                    const int64_t bad = gpuscan::bench::first_mismatch_bits(type, bits, got, kind);
                    if (bad >= 0) {
                      ++failures;
                      std::cerr << "MISMATCH " << label << " " << type_name << " " << kind_name << " n=" << n
                                << " at index " << bad << "\n";
                      out << "# MISMATCH " << label << " " << type_name << " " << kind_name << " n=" << n << "\n";
                      continue;
                    }
                  }
                  const Stats s = summarize(time_runs(ctx, warmup, runs, [&](VkCommandBuffer cmd) { gs::record_scan(ctx, cmd, args); }));
                  std::cerr << label << " " << type_name << " " << kind_name << " n=2^" << e << ": " << s.median_ms << " ms\n";
                  out << csv_row("gpuscan-vulkan", label, type_name, kind_name, n, s, runs, 4) << "\n" << std::flush;
                }
          }
        }
      }
      measure_copy();
      out << csv_row("glsl-copy", "copy", "u32", "copy", n, best_copy, runs, 4) << "\n" << std::flush;
    }
    if (failures) std::cerr << failures << " case(s) failed verification\n";
    return failures ? 1 : 0;
  } catch (const gs::Error& e) {
    std::cerr << "gpuscan_bench: error: " << e.what() << "\n";
    return 1;
  }
}
