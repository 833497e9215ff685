// Runs a scan through the recording API on poisoned buffers and compares it with the CPU reference.
#pragma once

#include <set>
#include <sstream>

#include "gpuscan/reference.hpp"
#include "gpuscan/reduce.hpp"
#include "gpu_test_support.hpp"

namespace gpuscan::test {

// 0, 1, B-1, B, B+1, B^2-1, B^2, B^2+1, B^3+1 for tiles of B elements, plus random sizes up to 3·B².
inline std::vector<size_t> boundary_sizes(size_t b, std::mt19937_64& rng) {
  std::set<size_t> s = {0, 1, 2, 3, 5, b - 1, b, b + 1, 2 * b + 3, b * b - 1, b * b, b * b + 1, b * b * b + 1};
  std::uniform_int_distribution<size_t> any(2, 3 * b * b);
  for (int i = 0; i < 4; ++i) s.insert(any(rng));
  return {s.begin(), s.end()};
}

// Guard elements around the output: a scan that writes past its range is caught by them. 37 puts the
// output off vector alignment (exercising the scalar paths); the single-pass scan gets 36, so that its
// tests run the vector path it takes in practice (single_pass_offsets_test.cpp runs its scalar path);
// likewise the look-ahead scan (look_ahead_test.cpp runs its scalar path with an unaligned input).
inline size_t guard_elements_for(const ScanConfig& config) {
  return config.algorithm == Algorithm::single_pass || config.algorithm == Algorithm::look_ahead ? 36 : 37;
}

// Records `args` between the host's writes and its reads, submits and waits.
inline void run_scan(const Context& ctx, const ScanArgs& args) {
  vk::submit_and_wait(ctx, [&](VkCommandBuffer cmd) {
    vk::memory_barrier(ctx, cmd, VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                       VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
    record_scan(ctx, cmd, args);
    vk::memory_barrier(ctx, cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                       VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
  });
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
                               std::optional<T> initial = std::nullopt,
                               VkBufferUsageFlags usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT) {
  config.type = data_type_of<T>::value;
  const size_t n = input.size();
  const size_t guard_elements = guard_elements_for(config);
  HostBuffer<T> in(ctx, (in_offset + n) * sizeof(T), usage);
  HostBuffer<T> out(ctx, (n + 2 * guard_elements) * sizeof(T), usage);
  const TempRequirements req = scan_temp_requirements(ctx, n, config);
  HostBuffer<T> temp(ctx, req.size + 64, req.usage);
  if (n) std::memcpy(in.data() + in_offset, input.data(), n * sizeof(T));
  poison(out.data(), (n + 2 * guard_elements) * sizeof(T));
  poison(temp.data(), req.size + 64);
  std::vector<T> guard_before(out.data(), out.data() + n + 2 * guard_elements);

  ScanArgs args{config, n, in.view(in_offset * sizeof(T)), out.view(guard_elements * sizeof(T)), temp.view()};
  if (initial) args.initial_bits = element_bits(*initial);
  run_scan(ctx, args);

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

// Scans `data` in place, from host writes to host reads.
inline void scan_in_place(const Context& ctx, const ScanConfig& config, uint64_t n, const BufferView& data,
                   const BufferView& temp) {
  run_scan(ctx, {config, n, data, data, temp});
}

// Scans a copy of `input` in place and returns it.
template <class T>
std::vector<T> scanned_in_place(const Context& ctx, const ScanConfig& config, const std::vector<T>& input) {
  const size_t n = input.size();
  HostBuffer<T> data(ctx, n * sizeof(T));
  if (n > 0) std::memcpy(data.data(), input.data(), n * sizeof(T));  // an empty vector's data() may be null
  const TempRequirements req = scan_temp_requirements(ctx, n, config);
  HostBuffer<uint32_t> temp(ctx, req.size, req.usage);
  scan_in_place(ctx, config, n, data.view(), temp.view());
  return {data.data(), data.data() + n};
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

// A reduction's result against cpu::reduce. Float sums are compared within the bound of
// cpu::float_tolerance (the tree adds in another order than a loop; each partial sum is off by at most
// depth · eps · the sum of magnitudes); every other result bit for bit (float products are exact for
// random_op_values' powers of two).
template <class T>
::testing::AssertionResult reduces_to(const std::vector<T>& input, T got, Op op) {
  if constexpr (std::is_floating_point_v<T>) {
    if (op == Op::add) {
      using Wide = std::conditional_t<std::is_same_v<T, float>, double, long double>;
      const std::vector<Wide> wide(input.begin(), input.end());
      const Wide want = cpu::reduce<Wide>(wide);
      const double tol = input.empty() ? 0 : cpu::float_tolerance<T>(input, ScanKind::inclusive).back();
      if (std::fabs(static_cast<Wide>(got) - want) <= tol) return ::testing::AssertionSuccess();
      return ::testing::AssertionFailure() << "got " << got << ", expected " << static_cast<double>(want) << " +- " << tol;
    }
  }
  const T want = cpu::reduce<T>(input, op);
  if (std::memcmp(&got, &want, sizeof(T)) == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "got " << +got << ", expected " << +want << " (" << to_string(op) << ")";
}

// Every type x operator reduced by `run(input, config)` (which returns the result, a T) with W = 32, K = 1
// (B = 128, so B^2 + 1 runs three levels), at sizes around the level boundaries and one at random;
// `has(type)` is false for the types the backend lacks, which are skipped (their refusal is the
// caller's to check). Failures name the type, operator, size and seed.
template <class Run, class Has>
void check_every_reduction(Run run, Has has) {
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  constexpr size_t b = 128;
  for (DataType type : {DataType::u32, DataType::i32, DataType::f32, DataType::u64, DataType::i64, DataType::f64}) {
    if (!has(type)) continue;
    for (Op op : {Op::add, Op::min, Op::max, Op::mul, Op::bit_and, Op::bit_or, Op::bit_xor}) {
      if (!op_supports(op, type)) continue;
      const ReduceConfig config{type, op, 32, 1};
      const size_t any = std::uniform_int_distribution<size_t>(2, b * b * 2)(rng);
      visit_type(type, [&](auto tag) {
        using T = decltype(tag);
        for (size_t n : {size_t{0}, size_t{1}, b - 1, b, b + 1, b * b - 1, b * b + 1, any}) {
          SCOPED_TRACE(std::string(to_string(type)) + " " + std::string(to_string(op)) + ", n = " + std::to_string(n) +
                       ", seed " + std::to_string(seed));
          const auto input = random_op_values<T>(n, op, rng);
          EXPECT_TRUE(reduces_to(input, static_cast<T>(run(input, config)), op));
        }
        if constexpr (std::is_floating_point_v<T>)
          if (op == Op::min || op == Op::max)  // a NaN anywhere makes the result NaN
            for (size_t n : {size_t{1}, b + 1, any}) {
              SCOPED_TRACE(std::string(to_string(type)) + " " + std::string(to_string(op)) + ", n = " +
                           std::to_string(n) + " with NaNs, seed " + std::to_string(seed));
              const auto input = with_nans(random_op_values<T>(n, op, rng), rng);
              EXPECT_TRUE(reduces_to(input, static_cast<T>(run(input, config)), op));
            }
      });
    }
  }
}

// An algorithm and a kind, for suites over every tile-or-multipass algorithm (windows, indirect counts).
struct AlgorithmKind {
  Algorithm algorithm;
  ScanKind kind;
};

inline std::string algorithm_kind_name(const ::testing::TestParamInfo<AlgorithmKind>& info) {
  std::string name = std::string(to_string(info.param.algorithm)) + "_" + std::string(to_string(info.param.kind));
  for (char& c : name)
    if (c == '-') c = '_';
  return name;
}

// Every algorithm with a plan of its own, exclusive and inclusive.
inline auto every_algorithm_and_kind() {
  return ::testing::Values(AlgorithmKind{Algorithm::multipass, ScanKind::exclusive},
                           AlgorithmKind{Algorithm::multipass, ScanKind::inclusive},
                           AlgorithmKind{Algorithm::reduce_then_scan, ScanKind::exclusive},
                           AlgorithmKind{Algorithm::reduce_then_scan, ScanKind::inclusive},
                           AlgorithmKind{Algorithm::single_pass, ScanKind::exclusive},
                           AlgorithmKind{Algorithm::single_pass, ScanKind::inclusive});
}

// One scan test case: the algorithm (and workgroup algorithm) and the kind.
struct Case {
  Algorithm algorithm;
  WorkgroupAlgorithm workgroup;  // multipass only
  ScanKind kind;
  uint32_t spin_limit = 0;       // single-pass: 1 forces the fallback at nearly every wait
};

inline std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  std::string name(to_string(info.param.algorithm));
  if (info.param.algorithm == Algorithm::multipass) name += "_" + std::string(to_string(info.param.workgroup));
  if (info.param.spin_limit) name += "_spin" + std::to_string(info.param.spin_limit);
  name += "_" + std::string(to_string(info.param.kind));
  for (char& c : name)
    if (c == '-') c = '_';
  return name;
}

// The configuration of a parameterised scan test for a tile shape, and its tile size.
class ScanCaseParams : public ::testing::WithParamInterface<Case> {
 protected:
  ScanConfig config(uint32_t workgroup_size, uint32_t vectors_per_lane) const {
    ScanConfig c;
    c.algorithm = GetParam().algorithm;
    c.workgroup = GetParam().workgroup;
    c.kind = GetParam().kind;
    c.workgroup_size = workgroup_size;
    c.vectors_per_lane = vectors_per_lane;
    c.spin_limit = GetParam().spin_limit;
    c.deterministic = false;  // f32 on the single-pass scan too (determinism_test.cpp covers the default)
    return c;
  }
  // Elements per tile for this case's algorithm.
  size_t tile(uint32_t w, uint32_t k) const {
    return GetParam().algorithm == Algorithm::multipass ? 2 * w : size_t{w} * k * 4;
  }
};

// Scans random inputs of every size with `run(input, config)`, which returns a RecordedScan<T>, and checks
// the guards and the CPU reference; failures name the size, the tile shape, the type and the seed.
template <class T, class Run>
void check_sizes(const ScanConfig& c, const std::vector<size_t>& sizes, uint64_t seed, Run run) {
  std::mt19937_64 rng(seed);
  for (size_t n : sizes) {
    SCOPED_TRACE("n = " + std::to_string(n) + ", W = " + std::to_string(c.workgroup_size) + ", K = " +
                 std::to_string(c.vectors_per_lane) + ", type " + std::string(to_string(data_type_of<T>::value)) +
                 ", seed " + std::to_string(seed));
    const auto input = random_values<T>(n, rng);
    const RecordedScan<T> r = run(input, c);
    EXPECT_TRUE(r.guards_intact) << "the scan wrote outside its output range";
    EXPECT_TRUE(matches_reference(input, r.output, c.kind));
  }
}

}  // namespace gpuscan::test
