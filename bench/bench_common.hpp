// What both benchmarks (gpuscan_bench on Vulkan, gpuscan_gl_bench on OpenGL) share: the statistics of
// a case's timed runs and the check of a scan against the CPU reference; and gpuscan_gl_bench's CSV row
//   impl,algorithm,type,kind,n,median_ms,min_ms,max_ms,runs,gbps
// that bench/scripts/compare.py and plot.py read.
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "gpuscan/reference.hpp"
#include "gpuscan/types.hpp"

namespace gpuscan::bench {

namespace gs = gpuscan;

struct Stats {
  double median_ms, min_ms, max_ms;
};

// Warm-up before a case's timed runs, in the same submission: the GPU's clock comes up only after a
// while. On the H200 200 ms left the SM clock at 345-1035 MHz instead of 1980 in about half the batches
// (2-4x slower, the copy too) and 2 s in none (bench/RESULTS.md, "Findings"); a CPU device needs little.
inline double default_warmup_ms(bool cpu_device) { return cpu_device ? 200 : 2000; }

// Warm-up runs for at least `warmup_ms` of work, from the times of a few probe runs (at most 20000).
inline uint32_t warmup_runs_for(const std::vector<double>& probe_ms, double warmup_ms) {
  const double estimate = std::max(*std::min_element(probe_ms.begin(), probe_ms.end()), 1e-3);
  return static_cast<uint32_t>(std::min(20000.0, std::ceil(warmup_ms / estimate)));
}

// A case's timed runs after at least `warmup_ms` of warm-up work (and at least `warmup` runs), in the
// same submission; `time_once(w, r)` submits w untimed runs and r timed ones and returns the timed ones'
// milliseconds. The warm-up's length in runs comes from three probe runs -- at the clocks the GPU has
// when the case starts. After a second of host work (a case's input drawn on the CPU) the H100's SM clock
// stood at 345-555 MHz, and a compute-bound kernel (the histogram's shared atomics) ran 3.6x slower then;
// a warm-up estimated from such probes lasted a fraction of warmup_ms, and whole cases were timed at those
// clocks (H100, 2^28 f32 samples: 1.866 ms against 0.522; memory-bound kernels barely moved). So the
// probes are repeated after that warm-up, and where they ran much faster the warm-up is done again at the
// new speed.
template <class TimeOnce>
std::vector<double> warmed_up_runs(TimeOnce time_once, uint32_t warmup, uint32_t runs, double warmup_ms) {
  const auto fastest = [](const std::vector<double>& ms) { return *std::min_element(ms.begin(), ms.end()); };
  const std::vector<double> cold = time_once(0, 3);
  const std::vector<double> warm = time_once(warmup_runs_for(cold, warmup_ms), 3);
  const bool clocks_rose = fastest(warm) < 0.8 * fastest(cold);
  return time_once(std::max(warmup, clocks_rose ? warmup_runs_for(warm, warmup_ms) : 0u), runs);
}

// The whole warm-up is needed only after the device may have idled: the H200's SM clock began to fall
// within about 100 ms of idle (bench/RESULTS.md, "Findings"). A batch that follows another within 100 ms
// (a sweep without CPU checks) finds the clock up and gets at most kShortWarmupMs, so that long sweeps
// do not spend most of their time warming up.
struct BatchWarmup {
  static constexpr double kShortWarmupMs = 200;
  static constexpr std::chrono::milliseconds kIdle{100};
  static inline std::optional<std::chrono::steady_clock::time_point> last_end;
  // The warm-up for the batch about to start, given the full one.
  static double ms(double full_ms) {
    const bool idled = !last_end || std::chrono::steady_clock::now() - *last_end > kIdle;
    return idled ? full_ms : std::min(full_ms, kShortWarmupMs);
  }
  static void batch_ended() { last_end = std::chrono::steady_clock::now(); }
};

inline Stats summarize(std::vector<double> ms) {
  std::sort(ms.begin(), ms.end());
  const size_t n = ms.size();
  const double median = n % 2 ? ms[n / 2] : 0.5 * (ms[n / 2 - 1] + ms[n / 2]);
  return {median, ms.front(), ms.back()};
}

// Checks one scan's output against the CPU; returns the first bad index or -1. Float sums against a
// wider reference within cpu::float_tolerance (the GPU adds in another order); everything else exactly.
template <class T>
int64_t first_mismatch(std::span<const T> input, const T* got, gs::ScanKind kind, gs::Op op = gs::Op::add) {
  if constexpr (std::is_floating_point_v<T>) {
    if (op == gs::Op::add) {
      using Wide = std::conditional_t<std::is_same_v<T, float>, double, long double>;
      std::vector<Wide> wide(input.begin(), input.end());
      const auto expected = gs::cpu::scan<Wide>(wide, kind);
      const auto tol = gs::cpu::float_tolerance<T>(input, kind);
      for (size_t i = 0; i < input.size(); ++i)
        if (!(std::fabs(static_cast<Wide>(got[i]) - expected[i]) <= tol[i])) return static_cast<int64_t>(i);
      return -1;
    }
  }
  const auto expected = gs::cpu::scan<T>(input, kind, op);
  for (size_t i = 0; i < input.size(); ++i)
    if (std::memcmp(&got[i], &expected[i], sizeof(T)) != 0) return static_cast<int64_t>(i);
  return -1;
}

// The same for an input given as 32-bit patterns of `type` (how the benchmarks keep their data).
inline int64_t first_mismatch_bits(gs::DataType type, const std::vector<uint32_t>& bits, const void* got,
                                   gs::ScanKind kind) {
  const auto as = [&](auto tag) {
    using T = decltype(tag);
    std::vector<T> in(bits.size());
    if (!bits.empty()) std::memcpy(in.data(), bits.data(), bits.size() * 4);
    return first_mismatch<T>(std::span<const T>(in), static_cast<const T*>(got), kind);
  };
  switch (type) {
    case gs::DataType::f32: return as(float{});
    case gs::DataType::i32: return as(int32_t{});
    default: return as(uint32_t{});
  }
}

inline std::string csv_row(const std::string& impl, const std::string& algorithm, const std::string& type,
                           const std::string& kind, uint64_t n, const Stats& s, uint32_t runs, uint32_t esize) {
  std::ostringstream o;
  o.precision(6);
  const double gbps = 2.0 * n * esize / (s.median_ms * 1e-3) / 1e9;
  o << impl << "," << algorithm << "," << type << "," << kind << "," << n << "," << s.median_ms << "," << s.min_ms
    << "," << s.max_ms << "," << runs << "," << gbps;
  return o.str();
}

}  // namespace gpuscan::bench
