// `gpuscan demo`: the tour. Random values (a fresh seed each run, printed so a failure can be
// repeated with --seed), scanned exclusive and inclusive with every algorithm the device supports
// (single-pass, reduce-then-scan, multipass with subgroup and with Blelloch workgroup scans), or only
// the one --algorithm names; each result checked against the CPU reference and timed. Exit code 0 only
// if every scan matches.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <iterator>
#include <memory>
#include <optional>
#include <limits>
#include <random>
#include <span>
#include <string>
#include <vector>

#include <unistd.h>

#include "commands.hpp"
#include "format.hpp"
#include "io.hpp"
#include "options.hpp"
#include "output.hpp"
#include "verify.hpp"

namespace gpuscan::cli {
namespace {

struct DemoOptions {
  uint64_t n = 4'000'000;
  DataType type = DataType::u32;
  AlgorithmOptions algorithm;
  std::optional<uint64_t> seed;
};

// One row group of the demo: an algorithm with, for multipass, its workgroup scan.
struct Variant {
  const char* name;
  Algorithm algorithm;
  WorkgroupAlgorithm workgroup;  // multipass only
};

constexpr Variant all_variants[] = {
    {"single-pass", Algorithm::single_pass, WorkgroupAlgorithm::automatic},
    {"reduce-then-scan", Algorithm::reduce_then_scan, WorkgroupAlgorithm::automatic},
    {"multipass-subgroup", Algorithm::multipass, WorkgroupAlgorithm::subgroup},
    {"multipass-blelloch", Algorithm::multipass, WorkgroupAlgorithm::blelloch},
};
// Run only when --algorithm names it: the experimental look-ahead scan (docs/scan.md).
constexpr Variant chosen_only_variants[] = {
    {"look-ahead", Algorithm::look_ahead, WorkgroupAlgorithm::automatic},
};

// Why `variant` cannot run on `ctx`, or nullptr if it can.
const char* obstacle(const Backend& ctx, const Variant& variant) {
  const bool chained = variant.algorithm == Algorithm::single_pass || variant.algorithm == Algorithm::look_ahead;
  if (chained && !ctx.vulkan())
    return "not offered on OpenGL (the GL backend builds no look-back kernels: they need 64-bit buffer atomics and GL_KHR_shader_subgroup)";
  if (chained && !ctx.single_pass_available())
    return "the device lacks what the single-pass scan needs (Vulkan 1.2 with shaderInt64, "
           "shaderBufferInt64Atomics, subgroup arithmetic, shuffles and ballot)";
  if ((variant.algorithm == Algorithm::reduce_then_scan || variant.workgroup == WorkgroupAlgorithm::subgroup) &&
      !ctx.subgroup_arithmetic())
    return "the device lacks subgroup arithmetic in compute shaders";
  return nullptr;
}

// The one variant `config` (from --algorithm / --workgroup-algorithm) runs for n elements.
const Variant& variant_for(const Backend& ctx, const ScanConfig& config, uint64_t n) {
  const Algorithm algorithm = ctx.resolve(config, n);  // throws if an explicit choice cannot run here
  const WorkgroupAlgorithm workgroup =
      algorithm == Algorithm::multipass ? ctx.resolve(config.workgroup, config.type) : WorkgroupAlgorithm::automatic;
  for (const Variant& v : all_variants)
    if (v.algorithm == algorithm && v.workgroup == workgroup) return v;
  for (const Variant& v : chosen_only_variants)
    if (v.algorithm == algorithm && v.workgroup == workgroup) return v;
  throw Error(Errc::unsupported, "demo: no variant for algorithm " + std::string(to_string(algorithm)));
}

// Integers span their whole range, so the sums wrap (as they do on the CPU reference); floats lie in
// [-1, 1), so the sums stay well inside the type and the tolerance check means something.
std::vector<std::byte> random_values(DataType type, uint64_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  return visit_type(type, [&](auto tag) {
    using T = decltype(tag);
    std::vector<T> v(n);
    if constexpr (std::is_floating_point_v<T>) {
      std::uniform_real_distribution<T> dist(-1, 1);
      for (auto& x : v) x = dist(rng);
    } else {
      std::uniform_int_distribution<T> dist(std::numeric_limits<T>::min(), std::numeric_limits<T>::max());
      for (auto& x : v) x = dist(rng);
    }
    return bytes_from_values<T>(v);
  });
}

uint64_t fresh_seed() {
  std::random_device device;
  return (uint64_t{device()} << 32) ^ device();
}

int run_demo(const DemoOptions& options, GlobalFlags& globals) {
  auto& out = std::cout;
  // The demo's report is written as it goes (each row as its scans finish), failures included: it is a
  // report, not a result to land whole. Each write is checked.
  const auto publish = [] { process_outputs().commit_stdout(); };
  const uint64_t seed = options.seed ? *options.seed : fresh_seed();
  out << "gpuscan " << version << " demo: " << options.n << " random " << to_string(options.type)
      << " values, seed " << seed << " (repeat with --seed " << seed << ")\n";
  const Backend ctx = globals.open_backend();
  ScanConfig base = scan_config(options.type, false, options.algorithm);
  // Before allocating: a count the device could never hold is too_large here, and an explicit algorithm
  // it cannot run unsupported. Counts past one binding run in windows, as every scan of that size does.
  (void)ctx.resolve(base, options.n);
  const auto input = random_values(options.type, options.n, seed);
  const uint32_t w = effective_workgroup_size(base);
  const uint32_t k = effective_vectors_per_lane(base);
  // The tile scans may take other shapes than the default, depending on the type, count and kind
  // (Context::workgroup_size, vectors_per_lane).
  std::string large_tiles;
  for (const Algorithm algorithm : {Algorithm::single_pass, Algorithm::reduce_then_scan}) {
    if (algorithm == Algorithm::single_pass && !ctx.single_pass_available()) continue;
    for (const ScanKind kind : {ScanKind::exclusive, ScanKind::inclusive}) {
      ScanConfig tiles = base;
      tiles.algorithm = algorithm;
      tiles.kind = kind;
      try {
        const uint32_t w_tiles = ctx.workgroup_size(tiles, options.n);
        const uint32_t k_tiles = ctx.vectors_per_lane(tiles, options.n);
        if (w_tiles != w || k_tiles != k)
          large_tiles += "; " + std::string(to_string(kind)) + " " + std::string(to_string(algorithm)) +
                         ": W = " + std::to_string(w_tiles) + ", K = " + std::to_string(k_tiles) + ", tiles of " +
                         std::to_string(tile_elements(base, algorithm, k_tiles, w_tiles));
      } catch (const Error&) {  // this type cannot run so here; its row says so
      }
    }
  }
  out << "device: " << ctx.describe_device() << ", subgroup size " << ctx.subgroup_size()
      << ", subgroup arithmetic " << (ctx.subgroup_arithmetic() ? "yes" : "no") << ", single-pass "
      << (ctx.single_pass_available() ? "yes" : "no") << '\n'
      << "input: " << format_bytes(input.size()) << "; W = " << w << ", K = " << k << ": tiles of "
      << tile_elements(base, Algorithm::single_pass) << " elements (single-pass, reduce-then-scan), "
      << tile_elements(base, Algorithm::multipass) << " (multipass)" << large_tiles << "\n"
      << "addressing: " << ctx.describe_addressing(options.type, options.n) << "\n"
      << "Each algorithm first scans a few tiles untimed, so pipeline creation is not timed. GPU time covers "
         "the scan passes;\nwall time adds upload, download and allocation."
      << (ctx.has_gpu_timer() ? "" : " (This queue has no timestamps: throughput uses wall time.)")
      << "\n";

  // Every variant, or only the one --algorithm (or --workgroup-algorithm) picks.
  std::vector<Variant> variants(std::begin(all_variants), std::end(all_variants));
  const auto& chosen = options.algorithm;
  if (chosen.algorithm || (chosen.workgroup && *chosen.workgroup != WorkgroupAlgorithm::automatic)) {
    variants = {variant_for(ctx, base, options.n)};
    out << (chosen.algorithm ? "--algorithm " + std::string(to_string(*chosen.algorithm))
                             : "--workgroup-algorithm " + std::string(to_string(*chosen.workgroup)))
        << ": running " << variants.front().name << " only\n";
  }
  out << '\n';

  const uint32_t esize = element_size(options.type);
  // Progress for long runs (a large --n on a CPU driver takes minutes): one line on stderr as each
  // algorithm starts, only when stderr is a terminal, so files, pipes and tests see none.
  const bool progress = isatty(STDERR_FILENO) == 1;
  int scans = 0;
  int failures = 0;
  for (size_t v = 0; v < variants.size(); ++v) {
    const Variant& variant = variants[v];
    if (const char* why = obstacle(ctx, variant)) {
      char label[64];
      std::snprintf(label, sizeof label, "  %-18s", variant.name);
      out << label << "  skipped: " << why << '\n';
      continue;
    }
    if (progress) {
      publish();
      std::cerr << "gpuscan demo: [" << v + 1 << '/' << variants.size() << "] " << variant.name
                << ": warm-up, then exclusive and inclusive scans of " << options.n << " elements..." << std::endl;
    }
    for (const ScanKind kind : {ScanKind::exclusive, ScanKind::inclusive}) {
      ScanConfig config = base;
      config.kind = kind;
      config.algorithm = variant.algorithm;
      config.workgroup = variant.workgroup;
      // The W and K this size runs with, pinned so that the warm-up's few tiles build the same pipelines
      // (single-pass shapes depend on the count: Context::workgroup_size, vectors_per_lane).
      const uint32_t w_run = ctx.workgroup_size(config, options.n);
      config.vectors_per_lane = ctx.vectors_per_lane(config, options.n);
      config.workgroup_size = w_run;
      // Untimed warm-up with the same config: creates (and on software drivers compiles) the pipelines.
      // A few tiles take every kernel of a multi-tile scan; exclusive runs first, so its warm-up also
      // covers the exclusive kernels that the deeper levels of a large inclusive scan use.
      const uint64_t warm_n = std::min<uint64_t>(options.n, 2 * tile_elements(config, variant.algorithm) + 1);
      (void)ctx.run(primitive::Scan{config}, {.values = std::span(input).first(warm_n * esize)}, warm_n);

      double gpu_ns = 0;
      const auto start = std::chrono::steady_clock::now();
      const auto output = ctx.run(primitive::Scan{config}, {.values = input}, options.n, &gpu_ns);
      const double wall_ns =
          std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count();
      const auto mismatch = verify_scan(input, output, options.type, kind);

      char row[224];
      std::snprintf(row, sizeof row, "  %-18s  %-9s  GPU %11s  wall %11s  %16s  ", variant.name,
                    std::string(to_string(kind)).c_str(), format_duration(gpu_ns).c_str(),
                    format_duration(wall_ns).c_str(),
                    format_rate(options.n, gpu_ns > 0 ? gpu_ns : wall_ns).c_str());
      out << row << (mismatch ? to_string(*mismatch) : "OK") << '\n';
      publish();
      ++scans;
      if (mismatch) ++failures;
    }
  }
  out << '\n';
  if (failures == 0)
    out << "all " << scans << " scans match the CPU reference\n";
  else
    out << failures << " of " << scans << " scans MISMATCH the CPU reference (seed " << seed << ")\n";
  publish();
  return failures == 0 ? 0 : 1;
}

}  // namespace

Command add_demo_command(CLI::App& app) {
  auto options = std::make_shared<DemoOptions>();
  CLI::App* sub = app.add_subcommand(
      "demo", "Scan random data with every algorithm the device supports, check each result against the CPU and "
              "time it");
  sub->add_option("--n,-n", options->n, "number of elements")
      ->transform(unsigned_integer())
      ->type_name("N")
      ->capture_default_str();
  add_type_option(*sub, options->type);
  add_algorithm_options(*sub, options->algorithm);
  sub->add_option_function<uint64_t>(
      "--seed", [options](const uint64_t& seed) { options->seed = seed; },
      "random seed (default: a fresh one each run, printed)")
      ->transform(unsigned_integer())
      ->type_name("SEED");
  sub->footer(
      "Examples:\n"
      "  gpuscan demo                                   4000000 u32 values, every algorithm\n"
      "  gpuscan demo --n 1000000 --type f32\n"
      "  gpuscan demo --algorithm single-pass --seed 42  one algorithm, repeatable data\n"
      "  gpuscan demo --api gl                          the same on OpenGL\n"
      "  gpuscan demo --n 2000000000                    8 GB of u32, past one binding: scanned in windows\n"
      "When standard error is a terminal, a progress line goes there as each algorithm starts.\n" +
      std::string(exit_codes_help));
  return {sub, [options](GlobalFlags& globals) { return run_demo(*options, globals); },
          [options](const GlobalFlags& globals) {
            return options->algorithm.conflict_with(globals.api, globals.api_option());
          }};
}

}  // namespace gpuscan::cli
