#include "histogram_bench.hpp"

#include <bit>
#include <cstring>
#include <iostream>
#include <vector>

#include "gpuscan/reference.hpp"
#include "gpuscan/vulkan.hpp"

namespace gpuscan::bench {
namespace {

constexpr uint32_t kBins = 256;

struct Case {
  DataType type;
  HistogramBins bins;
};

std::vector<Case> cases() {
  return {{DataType::u32, HistogramBins::even(kBins, 0.0, 4294967296.0)},
          {DataType::f32, HistogramBins::even(kBins, 0.0, 1.0)}};
}

}  // namespace

uint64_t histogram_temp_bytes(const Context& ctx) {
  uint64_t bytes = 16;
  for (const Case& c : cases())
    bytes = std::max<uint64_t>(bytes, histogram_temp_requirements(ctx, c.bins, {.type = c.type}).size);
  return bytes;
}

int run_histogram_cases(const Context& ctx, const Buffers& b, uint64_t n, const HistogramSweep& sweep, int warmup,
                        int runs, bool verify, Sink& sink, std::mt19937_64& rng) {
  int failures = 0;
  for (const Case& c : cases()) {
    std::vector<uint32_t> words(n);
    std::uniform_real_distribution<float> unit(0.0f, 1.0f);
    for (auto& w : words) w = c.type == DataType::u32 ? static_cast<uint32_t>(rng()) : std::bit_cast<uint32_t>(unit(rng));
    upload(ctx, b, b.in.handle(), words.data(), n * 4);
    const std::vector<uint64_t> want =
        !verify ? std::vector<uint64_t>{}
        : c.type == DataType::u32
            ? cpu::histogram<uint32_t>(words, c.bins.edges, false)
            : cpu::histogram<float>(std::span(reinterpret_cast<const float*>(words.data()), n), c.bins.edges, false);
    for (const uint32_t w : sweep.workgroup_sizes)
      for (const uint32_t v : sweep.vectors)
        for (const uint32_t g : sweep.groups) {
          const HistogramConfig config{
              .type = c.type, .workgroup_size = w, .vectors_per_lane = v, .max_workgroups = g};
          const HistogramArgs args{config, c.bins, n, b.in.view(), b.out.view(), b.temp.view()};
          auto record = [&](VkCommandBuffer cmd) { record_histogram(ctx, cmd, args); };
          const std::string type(to_string(c.type));
          const std::string algorithm =
              "histogram-even" + (w || v || g ? "-w" + std::to_string(w) + "v" + std::to_string(v) + "g" +
                                                    std::to_string(g)
                                              : std::string());
          const std::string what = algorithm + " " + type + " n=" + std::to_string(n);
          if (verify) {
            poison(ctx, b.out.handle(), kBins * 4);
            testkit::submit_and_wait(ctx, record);
            std::vector<uint32_t> got(kBins);
            std::memcpy(got.data(), read_back(ctx, b, b.out.handle(), kBins * 4), kBins * 4);
            if (!std::equal(want.begin(), want.end(), got.begin())) {
              ++failures;
              std::cerr << "MISMATCH " << what << "\n";
              sink.note("MISMATCH " + what);
              continue;
            }
          }
          Row row{"gpuscan-vulkan", algorithm, type, "histogram-" + std::to_string(kBins), n};
          row.stats = summarize(time_runs(ctx, warmup, runs, record));
          row.runs = runs;
          row.bytes = static_cast<double>(n) * 4;
          std::cerr << what << ": " << row.stats.median_ms << " ms\n";
          sink.row(row);
        }
  }
  return failures;
}

}  // namespace gpuscan::bench
