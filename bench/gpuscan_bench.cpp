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
#include <span>
#include <sstream>

#include "gpuscan/reference.hpp"
#include "gpuscan/gpuscan.hpp"
#include "gpuscan/vulkan/testing.hpp"
#include "bench_support.hpp"
#include "compact_bench.hpp"
#include "segmented_reduce_bench.hpp"
#include "histogram_bench.hpp"
#include "sort_bench.hpp"

namespace gs = gpuscan;
namespace testkit = gpuscan::testkit;
using namespace gpuscan::bench;  // Stats, Buffers, time_runs, Sink, ...

namespace {

// Random input of `type` as raw bytes: floats uniform in [-1, 1), integers over their whole range.
std::vector<std::byte> random_input(gs::DataType type, uint64_t n, std::mt19937_64& rng) {
  return gs::visit_type(type, [&](auto tag) {
    using T = decltype(tag);
    std::vector<std::byte> bytes(n * sizeof(T));
    T* v = reinterpret_cast<T*>(bytes.data());
    if constexpr (std::is_floating_point_v<T>) {
      std::uniform_real_distribution<T> u(-1, 1);
      for (uint64_t i = 0; i < n; ++i) v[i] = u(rng);
    } else {
      for (uint64_t i = 0; i < n; ++i) v[i] = static_cast<T>(rng());
    }
    return bytes;
  });
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
  std::vector<std::string> operators = {"add"};
  // W and K 0: gpuscan's defaults, which for single-pass scans depend on the type, kind and count.
  std::vector<uint32_t> workgroup_sizes = {0}, vectors = {0}, spins = {0}, histogram_groups = {0};
  std::vector<uint32_t> tiles_per_wg = {0};  // 0: gpuscan's default
  std::vector<uint32_t> copy_workgroup_sizes = {256}, copy_vectors = {4};
  std::vector<std::string> ops = {"scan"};
  CompactOptions compact;
  std::vector<std::string> compact_types = {"u32"};
  compact.densities = {1, 50, 99};
  compact.algorithms = {"three-pass", "single-pass"};
  std::string csv_path, json_path, device;
  bool verify = true, reconvergence = true;
  uint32_t look_ahead_grid = 0;  // 0: gpuscan's default
  uint64_t segment_rng = 1;
  app.add_option("--segment-rng", segment_rng,
                 "segmented-reduce: the splitmix64 starting state of the segment lengths (default 1)");
  app.add_option("--min-log2", min_log2, "smallest size 2^k (default 10)");
  app.add_option("--max-log2", max_log2, "largest size 2^k (default 28)");
  app.add_option("--step", step, "exponent step (default 2)");
  app.add_option("--runs", runs, "timed runs per case (default 30)");
  app.add_option("--warmup", warmup, "untimed runs first, at least (default 5)");
  double warmup_ms = -1;
  app.add_option("--warmup-ms", warmup_ms,
                 "keep the device busy this long before timed runs, in the same submission (default 2000 on a GPU, "
                 "whose clocks may take that long to come up; 200 on a CPU device)");
  app.add_option("--algorithms", algorithms,
                 "single-pass (temp zeroed once, then left zeroed by each scan; floats with the unordered "
                 "look-back), single-pass-ordered (floats: the deterministic look-back), single-pass-fill (clears "
                 "its state with a fill every time), reduce-then-scan, multipass-subgroup, multipass-blelloch, "
                 "look-ahead (experimental; temp zeroed once like single-pass)")
      ->delimiter(',');
  app.add_option("--types", types, "u32, i32, f32, u64, i64, f64")->delimiter(',');
  app.add_option("--operators", operators, "scan operators: add, min, max, mul, and, or, xor (default add)")
      ->delimiter(',');
  app.add_option("--kinds", kinds, "exclusive, inclusive")->delimiter(',');
  app.add_option("--workgroup-sizes", workgroup_sizes, "tile kernels: W values to sweep (0 = gpuscan's default: 256, or as core::scan_tile_shape picks for single-pass and reduce-then-scan scans)")->delimiter(',');
  app.add_option("--vectors", vectors, "tile kernels: vectors per lane to sweep (0 = gpuscan's default: 4, or 2 for 8-byte types; single-pass scans as for W)")->delimiter(',');
  app.add_option("--histogram-groups", histogram_groups,
                 "histogram: the grid's most workgroups to sweep (0 = gpuscan's choice); --workgroup-sizes and "
                 "--vectors (samples per step: 1, 2, 4, 8) apply too")
      ->delimiter(',');
  app.add_option("--spins", spins, "single-pass: spin limits to sweep (0 = default)")->delimiter(',');
  app.add_option("--tiles-per-workgroup", tiles_per_wg, "single-pass: tiles per workgroup to sweep (0 = default)")
      ->delimiter(',');
  app.add_option("--look-ahead-grid", look_ahead_grid,
                 "look-ahead: the number of workgroups striding over the tiles (TestHooks::look_ahead_grid; "
                 "0 = gpuscan's default)");
  app.add_option("--copy-workgroup-sizes", copy_workgroup_sizes, "copy roofline: W values")->delimiter(',');
  app.add_option("--copy-vectors", copy_vectors, "copy roofline: vectors per lane")->delimiter(',');
  app.add_option("--ops", ops,
                 "what to time: scan, select-if (> a threshold), select-flagged (0/1 u32 flags), unique and rle (run-length "
                 "encoding) of u32 runs of mean length 16 (bench/segment_lengths.hpp), segmented-reduce (segments by offsets, "
                 "bench/segmented_reduce_bench.hpp), histogram (256 even bins: u32 over [0, 2^32), f32 over [0, 1)), sort (radix sort of "
                 "random u32 keys, u32 pairs and, with a 64-bit --types entry, u64 keys; bench/sort_bench.hpp); "
                 "default scan")
      ->delimiter(',');
  app.add_option("--densities", compact.densities, "compaction: percent of elements kept (default 1,50,99)")
      ->delimiter(',');
  app.add_option("--compact-types", compact_types, "compaction: element types (u32, i32, f32, u64, i64, f64; default u32)")
      ->delimiter(',');
  app.add_option("--compact-algorithms", compact.algorithms,
                 "compaction: three-pass, single-pass (temp zeroed once, then left zeroed by each run), "
                 "single-pass-fill (clears its state with a fill every run); default three-pass,single-pass")
      ->delimiter(',');
  app.add_option("--csv", csv_path, "write CSV here (default stdout)");
  app.add_option("--json", json_path, "also write the rows as JSON here (docs/bench.md)");
  app.add_option("--device", device, "device index or name substring");
  app.add_flag("!--no-verify", verify, "skip the CPU check of each case");
  app.add_flag("!--no-reconvergence", reconvergence,
               "declare no reconvergence guarantee in the kernels, even where the device offers one "
               "(ContextCreateInfo::use_reconvergence_guarantee)");
  CLI11_PARSE(app, argc, argv);

  try {
    gs::ContextCreateInfo info;
    info.device_selector = device;
    info.use_reconvergence_guarantee = reconvergence;
    gs::TestHooks hooks;
    hooks.look_ahead_grid = look_ahead_grid;
    const gs::Context ctx = gs::create_context_for_tests(gs::env::apply(info), hooks);
    const gs::DeviceInfo& d = ctx.device_info();
    if (d.timestamp_period_ns <= 0) throw gs::Error(gs::Errc::unsupported, "the device has no timestamps");
    set_warmup_ms(ctx, warmup_ms);

    bool scans = false, segmented_reduce = false, histograms = false, sorts = false;
    for (const auto& op : ops) {
      if (op == "scan") scans = true;
      else if (op == "segmented-reduce") segmented_reduce = true;
      else if (op == "histogram") histograms = true;
      else if (op == "sort") sorts = true;
      else compact.ops.push_back(op);
    }
    compact.workgroup_sizes = workgroup_sizes;
    compact.vectors = vectors;
    compact.tiles_per_workgroup = tiles_per_wg;
    compact.spins = spins;
    compact.warmup = warmup;
    compact.runs = runs;
    compact.verify = verify;
    compact.types.clear();
    for (const auto& t : compact_types) {
      const auto parsed = gs::parse_data_type(t);
      if (!parsed) throw gs::Error(gs::Errc::invalid_argument, "unknown compaction type " + t);
      compact.types.push_back(*parsed);
    }
    check_compact_options(compact);

    std::ofstream file;
    std::ostream& out = csv_path.empty() ? std::cout : (file.open(csv_path), file);
    Sink sink(out, json_path);
    sink.metadata("device", d.name);
    sink.metadata("vulkan", std::to_string(VK_API_VERSION_MAJOR(d.api_version)) + "." +
                                std::to_string(VK_API_VERSION_MINOR(d.api_version)) + "." +
                                std::to_string(VK_API_VERSION_PATCH(d.api_version)));
    sink.metadata("subgroup size", std::to_string(d.subgroup_size));
    sink.metadata("reconvergence", std::string(gs::to_string(ctx.reconvergence())));
    sink.metadata("tuning profile", std::string(ctx.tuning_profile()));
    sink.metadata("gpuscan", std::string(gs::version));
    std::ostringstream timing;
    timing << "Vulkan timestamps around each run, median of " << runs << " after at least " << warmup
           << " warm-up runs and " << g_warmup_ms
           << " ms of warm-up work in the same submission (at most " << BatchWarmup::kShortWarmupMs
           << " ms for a case that follows another within " << BatchWarmup::kIdle.count() << " ms)";
    sink.metadata("timing", timing.str());
    sink.metadata("gbps", "bytes moved at least / median: scans and copy 2*n*sizeof(T); compaction n*sizeof(T) read + "
                          "kept*sizeof(T) written (+ n*4 flags read for select-flagged); segmented reduction "
                          "n*sizeof(T) + (S+1)*4 read + S*sizeof(T) written; histogram n*sizeof(T) read; sort "
                          "2*n*(key + value bytes)");

    const uint64_t max_n = uint64_t{1} << max_log2;
    // Bytes per element of the widest type asked for; buffers hold max_n of those. With 8-byte types the
    // copy roofline is also measured at 2n u32, so every scan row has a copy row of the same bytes.
    uint32_t max_esize = 4;
    std::vector<std::string> sized_types = types;
    if (!compact.ops.empty()) sized_types.insert(sized_types.end(), compact_types.begin(), compact_types.end());
    for (const auto& t : sized_types) {
      const auto parsed = gs::parse_data_type(t);
      if (!parsed) throw gs::Error(gs::Errc::invalid_argument, "unknown type " + t);
      max_esize = std::max(max_esize, gs::element_size(*parsed));
    }
    for (const auto& o : operators)
      if (!gs::parse_op(o)) throw gs::Error(gs::Errc::invalid_argument, "unknown operator " + o);
    std::mt19937_64 rng(std::random_device{}());
    // Temp storage: the most any variant asks for at the largest size.
    uint64_t temp_bytes = 16;
    for (const auto& t : types)
      for (auto w : workgroup_sizes)
        for (auto k : vectors)
          for (auto a : {gs::Algorithm::single_pass, gs::Algorithm::reduce_then_scan, gs::Algorithm::multipass,
                         gs::Algorithm::look_ahead})
          for (auto kind : {gs::ScanKind::exclusive, gs::ScanKind::inclusive}) {
            gs::ScanConfig c;
            c.type = *gs::parse_data_type(t);
            c.kind = kind;
            c.algorithm = a;
            c.workgroup_size = w;
            c.vectors_per_lane = k;
            c.deterministic = false;
            temp_bytes = std::max(temp_bytes, gs::scan_temp_requirements(ctx, max_n, c).size);
          }
    constexpr VkBufferUsageFlags usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                         VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    if (!compact.ops.empty()) temp_bytes = std::max(temp_bytes, compact_temp_bytes(ctx, max_n, compact));
    if (histograms) temp_bytes = std::max(temp_bytes, histogram_temp_bytes(ctx));
    const auto device_buffer = [&](VkDeviceSize bytes) {
      return testkit::Buffer(ctx, bytes, usage, testkit::Memory::device_local);
    };
    const uint64_t buffer_bytes = max_n * max_esize;
    Buffers b{device_buffer(buffer_bytes), device_buffer(buffer_bytes), device_buffer(temp_bytes),
              {ctx, buffer_bytes, usage, testkit::Memory::host_visible}};
    if (!compact.ops.empty()) {
      b.flags = device_buffer(max_n * 4);
      b.count = device_buffer(4);
    }

    // Bring the clocks up before the first measurement: about a second of copies at the largest size.
    const int clock_warmup = static_cast<int>(std::clamp<uint64_t>((uint64_t{2} << 30) / max_n, 200, 20000));
    time_runs_once(ctx, 0, 1, [&](VkCommandBuffer cmd) {
      for (int i = 0; i < clock_warmup; ++i) {
        record_copy(ctx, cmd, b, max_n, 256, 4);
        testkit::memory_barrier(ctx, cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                                VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT);
      }
    });
    int failures = 0;
    for (int e = min_log2; e <= max_log2; e += step) {
      const uint64_t n = uint64_t{1} << e;
      // Copy roofline: the best over the copy shapes, measured before and after this size's scans
      // (a slow first measurement at a new size was seen on the H200 even after warm-up).
      const uint64_t copy_words = n * (max_esize / 4);  // the copy roofline's u32 count, see max_esize
      Stats best_copy{1e30, 0, 0};
      Stats best_copy_n{1e30, 0, 0};  // at n u32 too, where copy_words is 2n
      // And n 8-byte elements through the 8-byte scans' own layout (copy.u64), where 8-byte types are
      // scanned: the same bytes as copy_words, in the lanes' pattern of those scans.
      Stats best_copy_wide{1e30, 0, 0};
      bool wide_scans = false;
      int copy_failures = 0;
      for (const auto& t : scans ? types : std::vector<std::string>{})
        wide_scans = wide_scans || gs::element_size(*gs::parse_data_type(t)) == 8;
      auto measure_copy = [&] {
        for (uint64_t words : copy_words == n ? std::vector<uint64_t>{n} : std::vector<uint64_t>{n, copy_words}) {
          std::vector<uint32_t> data(words);
          for (auto& x : data) x = static_cast<uint32_t>(rng());
          upload(ctx, b, b.in.handle(), data.data(), words * 4);
          Stats& best = words == copy_words ? best_copy : best_copy_n;
          for (auto w : copy_workgroup_sizes)
            for (auto k : copy_vectors) {
              const Stats s =
                  summarize(time_runs(ctx, warmup, runs, [&](VkCommandBuffer cmd) { record_copy(ctx, cmd, b, words, w, k); }));
              std::cerr << "copy n=" << words << " W=" << w << " K=" << k << ": " << s.median_ms << " ms\n";
              if (s.median_ms < best.median_ms) best = s;
              if (wide_scans && words == copy_words) {
                // Checked like the scans (up to 2^24, on a poisoned output): a layout must move every byte.
                const bool check = verify && n <= (uint64_t{1} << 24);
                if (check) poison(ctx, b.out.handle(), n * 8);
                const Stats s8 = summarize(
                    time_runs(ctx, warmup, runs, [&](VkCommandBuffer cmd) { record_copy(ctx, cmd, b, n, w, k, 8); }));
                std::cerr << "copy.u64 n=" << n << " W=" << w << " K=" << k << ": " << s8.median_ms << " ms\n";
                if (check && std::memcmp(read_back(ctx, b, b.out.handle(), n * 8), data.data(), n * 8) != 0) {
                  sink.note("MISMATCH copy.u64 n=" + std::to_string(n));
                  ++copy_failures;
                }
                if (s8.median_ms < best_copy_wide.median_ms) best_copy_wide = s8;
              }
            }
        }
      };
      measure_copy();
      for (const auto& type_name : scans ? types : std::vector<std::string>{}) {
        const gs::DataType type = *gs::parse_data_type(type_name);
        const uint32_t esize = gs::element_size(type);
        const std::vector<std::byte> input = random_input(type, n, rng);
        upload(ctx, b, b.in.handle(), input.data(), n * esize);
        for (const auto& op_name : operators)
        for (const auto& kind_name : kinds) {
          const gs::Op op = *gs::parse_op(op_name);
          if (!gs::op_supports(op, type)) continue;  // bitwise operators on floats
          // The kind column names the operator when it is not add: "exclusive-max".
          const std::string kind_label = op == gs::Op::add ? kind_name : kind_name + "-" + op_name;
          const gs::ScanKind kind = kind_name == "inclusive" ? gs::ScanKind::inclusive : gs::ScanKind::exclusive;
          for (const auto& alg : algorithms) {
            for (auto w : workgroup_sizes)
              for (auto k : vectors)
                for (auto spin : spins)
                for (auto m : tiles_per_wg) {
                  gs::ScanConfig c;
                  c.type = type;
                  c.op = op;
                  c.kind = kind;
                  c.workgroup_size = w;
                  c.vectors_per_lane = k;
                  c.spin_limit = spin;
                  c.tiles_per_workgroup = m;
                  // Floats: single-pass-ordered is the deterministic look-back, single-pass the unordered one.
                  const bool ordered = alg == "single-pass-ordered";
                  c.deterministic = ordered;
                  const bool with_fill = alg == "single-pass-fill";
                  if (alg == "single-pass" || with_fill || ordered) c.algorithm = gs::Algorithm::single_pass;
                  else if (alg == "reduce-then-scan") c.algorithm = gs::Algorithm::reduce_then_scan;
                  else if (alg == "look-ahead") c.algorithm = gs::Algorithm::look_ahead;
                  else if (alg == "multipass-subgroup") c.algorithm = gs::Algorithm::multipass, c.workgroup = gs::WorkgroupAlgorithm::subgroup;
                  else if (alg == "multipass-blelloch") c.algorithm = gs::Algorithm::multipass, c.workgroup = gs::WorkgroupAlgorithm::blelloch;
                  else throw gs::Error(gs::Errc::invalid_argument, "unknown algorithm " + alg);
                  const bool tiles = c.algorithm != gs::Algorithm::multipass;
                  if (!tiles && (k != vectors.front() || spin != spins.front())) continue;  // K, spins: tile kernels only
                  if (c.algorithm != gs::Algorithm::single_pass && (spin != spins.front() || m != tiles_per_wg.front()))
                    continue;
                  gs::ScanArgs args{c, n, b.in.view(), b.out.view(), b.temp.view()};
                  const bool chained = c.algorithm == gs::Algorithm::single_pass || c.algorithm == gs::Algorithm::look_ahead;
                  if (chained && !with_fill) {
                    // Zero the temp once; every single-pass or look-ahead scan leaves it zeroed (ScanArgs::temp_zeroed),
                    // so the timed runs need no clearing pass: the kernel's last workgroup clears it.
                    zero(ctx, b.temp.handle());
                    args.temp_zeroed = true;
                  }
                  std::string label = alg;
                  if (workgroup_sizes.size() > 1 || vectors.size() > 1 || spins.size() > 1 || tiles_per_wg.size() > 1)
                    label += "-w" + std::to_string(w) + (tiles ? "-k" + std::to_string(k) : "") +
                             (c.algorithm == gs::Algorithm::single_pass && spins.size() > 1 ? "-s" + std::to_string(spin) : "") +
                             (c.algorithm == gs::Algorithm::single_pass && tiles_per_wg.size() > 1 ? "-m" + std::to_string(m) : "");
                  if (verify) {
                    poison(ctx, b.out.handle(), n * esize);
                    testkit::submit_and_wait(ctx, [&](VkCommandBuffer cmd) { gs::record_scan(ctx, cmd, args); });
                    const void* got = read_back(ctx, b, b.out.handle(), n * esize);
                    const int64_t bad = gs::visit_type(type, [&](auto tag) {
                      using T = decltype(tag);
                      return first_mismatch<T>({reinterpret_cast<const T*>(input.data()), n}, static_cast<const T*>(got),
                                               kind, op);
                    });
                    if (bad >= 0) {
                      ++failures;
                      std::cerr << "MISMATCH " << label << " " << type_name << " " << kind_label << " n=" << n
                                << " at index " << bad << "\n";
                      sink.note("MISMATCH " + label + " " + type_name + " " + kind_label + " n=" + std::to_string(n));
                      continue;
                    }
                  }
                  const Stats s = summarize(time_runs(ctx, warmup, runs, [&](VkCommandBuffer cmd) { gs::record_scan(ctx, cmd, args); }));
                  std::cerr << label << " " << type_name << " " << kind_label << " n=2^" << e << ": " << s.median_ms << " ms\n";
                  sink.row({"gpuscan-vulkan", label, type_name, kind_label, n, s, runs, 2.0 * n * esize});
                }
          }
        }
      }
      failures += run_compaction_cases(ctx, b, n, compact, sink, rng);
      if (histograms)
        failures += run_histogram_cases(ctx, b, n, {workgroup_sizes, vectors, histogram_groups}, warmup, runs, verify,
                                        sink, rng);
      if (sorts) failures += run_sort_cases(ctx, b, n, max_esize, workgroup_sizes, vectors, warmup, runs, verify, sink, rng);
      measure_copy();
      failures += copy_failures;
      if (copy_words != n) sink.row({"glsl-copy", "copy", "u32", "copy", n, best_copy_n, runs, 2.0 * n * 4});
      sink.row({"glsl-copy", "copy", "u32", "copy", copy_words, best_copy, runs, 2.0 * copy_words * 4});
      if (wide_scans) sink.row({"glsl-copy", "copy", "u64", "copy", n, best_copy_wide, runs, 2.0 * n * 8});
    }
    if (segmented_reduce)  // sizes of their own, after the sweep (segmented_reduce_bench.hpp)
      failures += run_segmented_reduce_cases(
          ctx, {types, max_log2, segment_rng, warmup, runs, verify, workgroup_sizes, vectors}, sink, rng);
    sink.finish();
    if (failures) std::cerr << failures << " case(s) failed verification\n";
    return failures ? 1 : 0;
  } catch (const gs::Error& e) {
    std::cerr << "gpuscan_bench: error: " << e.what() << "\n";
    return 1;
  }
}
