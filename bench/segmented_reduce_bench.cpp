#include "segmented_reduce_bench.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iostream>

#include "gpuscan/reference.hpp"
#include "gpuscan/gpuscan.hpp"
#include "segment_lengths.hpp"

namespace gpuscan::bench {

std::vector<uint32_t> offsets_len0_32(uint64_t segments, uint64_t state) {
  return bench_inputs::segment_offsets<uint32_t>(bench_inputs::random_segment_lengths(state, segments, 32));
}

std::vector<uint32_t> offsets_with_total(uint64_t segments, uint64_t n, uint64_t state) {
  return bench_inputs::segment_offsets<uint32_t>(bench_inputs::segment_lengths_with_total(state, n, segments));
}

namespace {

constexpr VkBufferUsageFlags kUsage =
    VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;

testkit::Buffer device_copy_of(const Context& ctx, const void* data, uint64_t bytes) {
  testkit::Buffer staging(ctx, bytes, kUsage, testkit::Memory::host_visible);
  std::memcpy(staging.mapped(), data, bytes);
  testkit::Buffer buffer(ctx, bytes, kUsage, testkit::Memory::device_local);
  testkit::submit_and_wait(ctx, [&](VkCommandBuffer cmd) {
    testkit::copy_with_barrier(ctx, cmd, staging.handle(), buffer.handle(), bytes, VK_PIPELINE_STAGE_TRANSFER_BIT,
                               VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                               VK_ACCESS_SHADER_READ_BIT);
  });
  return buffer;
}

template <class T>
std::vector<T> values_for(uint64_t n, std::mt19937_64& rng) {
  std::vector<T> v(n);
  if constexpr (std::is_floating_point_v<T>) {
    std::uniform_real_distribution<T> u(-1, 1);
    for (auto& x : v) x = u(rng);
  } else {
    for (auto& x : v) x = static_cast<T>(rng());
  }
  return v;
}

template <class T>
bool check(const Context& ctx, const testkit::Buffer& out, const std::vector<T>& values,
           const std::vector<uint32_t>& offsets) {
  const uint64_t segments = offsets.size() - 1;
  testkit::Buffer readback(ctx, segments * sizeof(T), kUsage, testkit::Memory::host_readback);
  testkit::submit_and_wait(ctx, [&](VkCommandBuffer cmd) {
    testkit::memory_barrier(ctx, cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                            VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT);
    testkit::copy_with_barrier(ctx, cmd, out.handle(), readback.handle(), segments * sizeof(T),
                               VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
                               VK_ACCESS_HOST_READ_BIT);
  });
  const T* got = static_cast<const T*>(readback.mapped());
  const auto want = cpu::segmented_reduce<T>(values, offsets, Op::add);
  std::vector<double> tol;
  if constexpr (std::is_floating_point_v<T>) tol = cpu::segmented_reduce_tolerance<T>(values, offsets);
  for (uint64_t s = 0; s < segments; ++s) {
    const bool ok = tol.empty() ? got[s] == want[s] : std::fabs(double(got[s]) - double(want[s])) <= tol[s];
    if (!ok) return false;
  }
  return true;
}

template <class T>
int run_case(const Context& ctx, const SegmentedReduceOptions& options, const std::string& kind,
             const std::vector<uint32_t>& offsets, Sink& sink, std::mt19937_64& rng) {
  const std::string type_name(to_string(data_type_of<T>::value));
  const uint64_t n = offsets.back(), segments = offsets.size() - 1;
  ReduceConfig config;
  config.type = data_type_of<T>::value;
  try {
    segmented_reduce_temp_requirements(ctx, n, config);  // too large for one binding: skipped
  } catch (const Error& e) {
    if (e.code() != Errc::too_large) throw;
    std::cerr << "segmented-reduce " << type_name << " " << kind << " n=" << n << ": skipped: " << e.what() << "\n";
    sink.note("segmented-reduce " + type_name + " " + kind + " n=" + std::to_string(n) + " skipped: " + e.what());
    return 0;
  }
  const auto values = values_for<T>(n, rng);
  const testkit::Buffer in = device_copy_of(ctx, values.data(), n * sizeof(T));
  const testkit::Buffer offs = device_copy_of(ctx, offsets.data(), offsets.size() * 4);
  const testkit::Buffer out(ctx, segments * sizeof(T), kUsage, testkit::Memory::device_local);
  int failures = 0;
  for (const uint32_t w : options.workgroup_sizes)
    for (const uint32_t k : options.vectors) {
      config.workgroup_size = w;
      config.vectors_per_lane = k;
      std::string label = "segmented-reduce";
      if (options.workgroup_sizes.size() > 1 || options.vectors.size() > 1)
        label += "-w" + std::to_string(w) + "-k" + std::to_string(k);
      const TempRequirements shape_req = segmented_reduce_temp_requirements(ctx, n, config);
      const testkit::Buffer temp(ctx, std::max<VkDeviceSize>(shape_req.size, 4), kUsage | shape_req.usage,
                                 testkit::Memory::device_local);
      const SegmentedReduceArgs args{config, n, segments, in.view(), offs.view(), out.view(), temp.view()};
      prepare_segmented_reduce(ctx, n, config);
      const std::string what = label + " " + type_name + " " + kind + " n=" + std::to_string(n);
      if (options.verify) {
        poison(ctx, out.handle(), segments * sizeof(T));
        testkit::submit_and_wait(ctx, [&](VkCommandBuffer cmd) { record_segmented_reduce(ctx, cmd, args); });
        if (!check<T>(ctx, out, values, offsets)) {
          std::cerr << "MISMATCH " << what << "\n";
          sink.note("MISMATCH " + what);
          ++failures;
          continue;
        }
      }
      const Stats s = summarize(time_runs(ctx, options.warmup, options.runs,
                                          [&](VkCommandBuffer cmd) { record_segmented_reduce(ctx, cmd, args); }));
      std::cerr << what << " S=" << segments << ": " << s.median_ms << " ms\n";
      sink.row({"gpuscan-vulkan", label, type_name, kind, n, s, options.runs,
                double(n) * sizeof(T) + double(segments + 1) * 4 + double(segments) * sizeof(T)});
    }
  return failures;
}

}  // namespace

int run_segmented_reduce_cases(const Context& ctx, const SegmentedReduceOptions& options, Sink& sink,
                               std::mt19937_64& rng) {
  std::vector<std::pair<std::string, std::vector<uint32_t>>> cases;
  cases.emplace_back("segments-1e6-mean16", offsets_len0_32(1000000, options.rng_state));
  for (int e : {24, 28})
    if (e <= options.max_log2) cases.emplace_back("segments-1e3", offsets_with_total(1000, uint64_t{1} << e, options.rng_state));
  int failures = 0;
  for (const auto& type_name : options.types) {
    const auto type = parse_data_type(type_name);
    if (!type) throw Error(Errc::invalid_argument, "unknown type " + type_name);
    for (const auto& [kind, offsets] : cases)
      failures += visit_type(*type, [&](auto tag) {
        return run_case<decltype(tag)>(ctx, options, kind, offsets, sink, rng);
      });
  }
  return failures;
}

}  // namespace gpuscan::bench
