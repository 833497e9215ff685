// Runs a scan through the recording API on poisoned buffers and compares it with the CPU reference.
#pragma once

#include <sstream>

#include "cpu/reference.hpp"
#include "gpu_test_support.hpp"

namespace gpuscan::test {

// Guard elements around the output: a scan that writes past its range is caught by them. 37 puts the
// output off vector alignment (exercising the scalar paths); the single-pass scan requires
// offsets of whole 4-element vectors, so it gets 36.
inline size_t guard_elements_for(const ScanConfig& config) {
  return config.algorithm == Algorithm::single_pass ? 36 : 37;
}

// Result of one recorded scan: the output range and whether the guards survived.
template <class T>
struct RecordedScan {
  std::vector<T> output;
  bool guards_intact = true;
};

// Scans `input` from element offset `in_offset` of a fresh input buffer into an output buffer, after
// `guard_elements` of guard, and checks the guards afterwards. Temp and output are poisoned first.
template <class T>
RecordedScan<T> record_and_run(const Context& ctx, const std::vector<T>& input, ScanConfig config,
                               size_t in_offset = 0, std::vector<uint32_t>* temp_out = nullptr,
                               std::optional<T> initial = std::nullopt) {
  config.type = data_type_of<T>::value;
  const size_t n = input.size();
  const size_t guard_elements = guard_elements_for(config);
  HostBuffer<T> in(ctx, (in_offset + n) * sizeof(T));
  HostBuffer<T> out(ctx, (n + 2 * guard_elements) * sizeof(T));
  const TempRequirements req = scan_temp_requirements(ctx, n, config);
  HostBuffer<T> temp(ctx, req.size + 64, req.usage);
  if (n) std::memcpy(in.data() + in_offset, input.data(), n * sizeof(T));
  poison(out.data(), (n + 2 * guard_elements) * sizeof(T));
  poison(temp.data(), req.size + 64);
  std::vector<T> guard_before(out.data(), out.data() + n + 2 * guard_elements);

  vk::submit_and_wait(ctx, [&](VkCommandBuffer cmd) {
    vk::memory_barrier(cmd, VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_WRITE_BIT,
                       VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
    ScanArgs args{config, n, in.view(in_offset * sizeof(T)), out.view(guard_elements * sizeof(T)), temp.view()};
    if (initial) args.initial_bits = element_bits(*initial);
    record_scan(ctx, cmd, args);
    vk::memory_barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                       VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
  });

  if (temp_out) temp_out->assign(static_cast<uint32_t*>(temp.buffer.mapped()),
                                 static_cast<uint32_t*>(temp.buffer.mapped()) + req.size / 4);
  RecordedScan<T> r;
  r.output.assign(out.data() + guard_elements, out.data() + guard_elements + n);
  for (size_t i = 0; i < guard_elements; ++i) {
    if (std::memcmp(&out.data()[i], &guard_before[i], sizeof(T)) != 0) r.guards_intact = false;
    const size_t j = guard_elements + n + i;
    if (std::memcmp(&out.data()[j], &guard_before[j], sizeof(T)) != 0) r.guards_intact = false;
  }
  return r;
}

// Exact for integers and for every operator but float add; float sums against a reference in a wider
// type (double for f32, long double for f64) within a bound derived from the sum of magnitudes
// (cpu::float_tolerance), because the GPU adds in another order than left to right. Float min and max
// are exact in any order; float mul is exact for the test data (random_op_values: powers of two).
template <class T>
::testing::AssertionResult matches_reference(const std::vector<T>& input, const std::vector<T>& got, ScanKind kind,
                                             Op op = Op::add, std::optional<T> initial = std::nullopt) {
  if (got.size() != input.size())
    return ::testing::AssertionFailure() << "size " << got.size() << " != " << input.size();
  if constexpr (std::is_floating_point_v<T>) {
    if (op == Op::add) {
      if (initial) return ::testing::AssertionFailure() << "float sums with a carry-in: no reference with a bound";
      using Wide = std::conditional_t<std::is_same_v<T, float>, double, long double>;
      std::vector<Wide> wide(input.begin(), input.end());
      const auto expected = cpu::scan<Wide>(wide, kind);
      const auto tol = cpu::float_tolerance<T>(input, kind);
      for (size_t i = 0; i < got.size(); ++i)
        if (!(std::fabs(static_cast<Wide>(got[i]) - expected[i]) <= tol[i]))
          return ::testing::AssertionFailure() << "index " << i << " of " << got.size() << ": got " << got[i]
                                               << ", expected " << static_cast<double>(expected[i]) << " +- "
                                               << tol[i];
      return ::testing::AssertionSuccess();
    }
  }
  const auto expected = cpu::scan<T>(input, kind, op, initial);
  for (size_t i = 0; i < got.size(); ++i)
    if (std::memcmp(&got[i], &expected[i], sizeof(T)) != 0)
      return ::testing::AssertionFailure() << "index " << i << " of " << got.size() << ": got " << +got[i]
                                           << ", expected " << +expected[i] << " (" << to_string(op) << ")";
  return ::testing::AssertionSuccess();
}

}  // namespace gpuscan::test
