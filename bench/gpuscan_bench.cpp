// gpuscan's benchmark: GPU time of every scan algorithm and of stream compaction from timestamp
// queries, beside the GLSL copy roofline measured in the same process, as CSV rows that
// bench/scripts/compare.py and plot.py read (and, with --json, the same rows as JSON; docs/bench.md):
//   impl,algorithm,type,kind,n,median_ms,min_ms,max_ms,runs,gbps
// gbps counts the bytes a case must move at least: for a scan n elements read and n written; for a
// compaction n read, kept written, and n flags read for select-flagged (bench/compact_bench.hpp).
//
// Each case is first checked once against the CPU reference on a poisoned output; then `warmup` runs
// and `runs` timed runs are recorded into one command buffer, each between two timestamps and
// separated by a barrier, so runs do not overlap. Everything a scan or compaction needs is inside the
// timed region (the single-pass scan's clearing of its look-back state included). The median is
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

#include "cpu/reference.hpp"
#include "gpuscan/gpuscan.hpp"
#include "bench_support.hpp"
#include "compact_bench.hpp"
#include "vulkan/submit.hpp"

namespace gs = gpuscan;
namespace vk = gpuscan::vk;
using namespace gpuscan::bench;  // Stats, Buffers, time_runs, Sink, ...

namespace {

// Checks one scan's output against the CPU; returns the first bad index or -1.
template <class T>
int64_t first_mismatch(const std::vector<T>& input, const T* got, gs::ScanKind kind) {
  if constexpr (std::is_same_v<T, float>) {
    std::vector<double> wide(input.begin(), input.end());
    const auto expected = gs::cpu::scan<double>(wide, kind);
    const auto tol = gs::cpu::float_tolerance<float>(input, kind);
    for (size_t i = 0; i < input.size(); ++i)
      if (!(std::fabs(got[i] - expected[i]) <= tol[i])) return static_cast<int64_t>(i);
  } else {
    const auto expected = gs::cpu::scan<T>(input, kind);
    for (size_t i = 0; i < input.size(); ++i)
      if (got[i] != expected[i]) return static_cast<int64_t>(i);
  }
  return -1;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"gpuscan benchmark: GPU time of every scan algorithm and of stream compaction beside the GLSL "
               "copy roofline"};
  int min_log2 = 10, max_log2 = 28, step = 2;
  uint32_t runs = 30, warmup = 5;
  std::vector<std::string> algorithms = {"single-pass", "reduce-then-scan", "multipass-subgroup", "multipass-blelloch"};
  std::vector<std::string> types = {"u32", "f32"};
  std::vector<std::string> kinds = {"exclusive"};
  std::vector<uint32_t> workgroup_sizes = {256}, vectors = {4}, spins = {0};
  std::vector<uint32_t> copy_workgroup_sizes = {256}, copy_vectors = {4};
  std::vector<std::string> ops = {"scan"};
  CompactOptions compact;
  compact.densities = {1, 50, 99};
  compact.algorithms = {"three-pass", "single-pass"};
  std::string csv_path, json_path, device;
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
  app.add_option("--ops", ops,
                 "what to time: scan, select-if (> a threshold), select-flagged (0/1 u32 flags); default scan")
      ->delimiter(',');
  app.add_option("--densities", compact.densities, "compaction: percent of elements kept (default 1,50,99)")
      ->delimiter(',');
  app.add_option("--compact-algorithms", compact.algorithms,
                 "compaction: three-pass, single-pass (temp zeroed once, then left zeroed by each run), "
                 "single-pass-fill (clears its state with a fill every run); default three-pass,single-pass")
      ->delimiter(',');
  app.add_option("--csv", csv_path, "write CSV here (default stdout)");
  app.add_option("--json", json_path, "also write the rows as JSON here (docs/bench.md)");
  app.add_option("--device", device, "device index or name substring");
  app.add_flag("!--no-verify", verify, "skip the CPU check of each case");
  CLI11_PARSE(app, argc, argv);

  try {
    gs::ContextCreateInfo info;
    info.device_selector = device;
    const gs::Context ctx = gs::Context::create(info);
    const gs::DeviceInfo& d = ctx.device_info();
    if (d.timestamp_period_ns <= 0) throw gs::Error(gs::Errc::unsupported, "the device has no timestamps");

    bool scans = false;
    for (const auto& op : ops) {
      if (op == "scan") scans = true;
      else compact.ops.push_back(op);
    }
    compact.workgroup_sizes = workgroup_sizes;
    compact.vectors = vectors;
    compact.warmup = warmup;
    compact.runs = runs;
    compact.verify = verify;
    check_compact_options(compact);

    std::ofstream file;
    std::ostream& out = csv_path.empty() ? std::cout : (file.open(csv_path), file);
    Sink sink(out, json_path);
    sink.metadata("device", d.name);
    sink.metadata("vulkan", std::to_string(VK_API_VERSION_MAJOR(d.api_version)) + "." +
                                std::to_string(VK_API_VERSION_MINOR(d.api_version)) + "." +
                                std::to_string(VK_API_VERSION_PATCH(d.api_version)));
    sink.metadata("subgroup size", std::to_string(d.subgroup_size));
    sink.metadata("gpuscan", std::string(gs::version));
    std::ostringstream timing;
    timing << "Vulkan timestamps around each run, median of " << runs << " after at least " << warmup
           << " warm-up runs and " << g_warmup_ms << " ms of warm-up work in the same submission";
    sink.metadata("timing", timing.str());
    sink.metadata("gbps", "bytes moved at least / median: scans and copy 2*n*4; compaction n*4 read + kept*4 "
                          "written (+ n*4 flags read for select-flagged)");

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
    if (!compact.ops.empty()) temp_bytes = std::max(temp_bytes, compact_temp_bytes(ctx, max_n, compact));
    const auto device_buffer = [&](VkDeviceSize bytes) {
      return vk::OwnedBuffer(ctx.physical_device(), ctx.device(), bytes, usage, vk::MemoryKind::device_local);
    };
    Buffers b{device_buffer(max_n * 4), device_buffer(max_n * 4), device_buffer(temp_bytes),
              {ctx.physical_device(), ctx.device(), max_n * 4, usage, vk::MemoryKind::host_visible}};
    if (!compact.ops.empty()) {
      b.flags = device_buffer(max_n * 4);
      b.count = device_buffer(4);
    }

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
      for (const auto& type_name : scans ? types : std::vector<std::string>{}) {
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
                    zero(ctx, b.temp.handle());
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
                    int64_t bad;
                    if (type == gs::DataType::f32) {
                      std::vector<float> in(n);
                      std::memcpy(in.data(), bits.data(), n * 4);
                      bad = first_mismatch<float>(in, static_cast<const float*>(got), kind);
                    } else if (type == gs::DataType::i32) {
                      std::vector<int32_t> in(n);
                      std::memcpy(in.data(), bits.data(), n * 4);
                      bad = first_mismatch<int32_t>(in, static_cast<const int32_t*>(got), kind);
                    } else {
                      bad = first_mismatch<uint32_t>(bits, static_cast<const uint32_t*>(got), kind);
                    }
                    if (bad >= 0) {
                      ++failures;
                      std::cerr << "MISMATCH " << label << " " << type_name << " " << kind_name << " n=" << n
                                << " at index " << bad << "\n";
                      sink.note("MISMATCH " + label + " " + type_name + " " + kind_name + " n=" + std::to_string(n));
                      continue;
                    }
                  }
                  const Stats s = summarize(time_runs(ctx, warmup, runs, [&](VkCommandBuffer cmd) { gs::record_scan(ctx, cmd, args); }));
                  std::cerr << label << " " << type_name << " " << kind_name << " n=2^" << e << ": " << s.median_ms << " ms\n";
                  sink.row({"gpuscan-vulkan", label, type_name, kind_name, n, s, runs, 2.0 * n * 4});
                }
          }
        }
      }
      failures += run_compaction_cases(ctx, b, n, compact, sink, rng);
      measure_copy();
      sink.row({"glsl-copy", "copy", "u32", "copy", n, best_copy, runs, 2.0 * n * 4});
    }
    sink.finish();
    if (failures) std::cerr << failures << " case(s) failed verification\n";
    return failures ? 1 : 0;
  } catch (const gs::Error& e) {
    std::cerr << "gpuscan_bench: error: " << e.what() << "\n";
    return 1;
  }
}
