// Custom operators (ScanConfig::custom_op): GLSL snippets compiled at run time with shaderc, checked
// against a CPU reference of the same operator on every size around the multipass tile and recursion
// boundaries, exclusive and inclusive, with fresh random data and poisoned outputs between guards.
// Operators: the element of largest magnitude (f32), (sum, count) pairs (a struct), 2x2 u32 matrix
// products and affine maps x -> a*x + b on u32 (neither commutative), and (min, max, sum) of u32 (a
// 12-byte struct, whose bindings need offsets that are multiples of 12 as well as of the device's
// alignment). Also: compile errors, the cache, and what custom operators refuse.
#include <functional>
#include <optional>
#include <type_traits>
#include <limits>

#include "custom_op_check.hpp"
#include "gpu_test_support.hpp"
#include "scan_check.hpp"
#include "shaders/embedded_sources.hpp"
#include "vulkan/context_impl.hpp"

namespace gpuscan::test {
namespace {

// Records a custom scan of `input` (from an input buffer, or in place in the output buffer) into an output
// buffer after 37 guard elements, with poisoned output and temp, as record_and_run does for built-in types.
// With `gpu_count`, the count comes from GPU memory (ScanArgs::count_from) and n is its bound.
template <class T>
RecordedScan<T> record_custom(const Context& ctx, const std::vector<T>& input, const ScanConfig& config,
                              bool in_place = false, std::optional<uint32_t> gpu_count = std::nullopt) {
  constexpr size_t guard = 37;
  const size_t n = input.size();
  HostBuffer<T> in(ctx, std::max<size_t>(n, 1) * sizeof(T));
  HostBuffer<T> out(ctx, (n + 2 * guard) * sizeof(T));
  HostBuffer<uint32_t> count(ctx, 16);
  if (gpu_count) count.data()[0] = *gpu_count;
  const TempRequirements req = scan_temp_requirements(ctx, n, config, gpu_count.has_value());
  EXPECT_EQ(req.alignment % sizeof(T), 0u);
  HostBuffer<T> temp(ctx, req.size + 64, req.usage);
  poison(out.data(), (n + 2 * guard) * sizeof(T));
  poison(temp.data(), req.size + 64);
  if (n) std::memcpy(in_place ? out.data() + guard : in.data(), input.data(), n * sizeof(T));
  std::vector<T> before(out.data(), out.data() + n + 2 * guard);
  vk::submit_and_wait(ctx, [&](VkCommandBuffer cmd) {
    vk::memory_barrier(ctx, cmd, VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                       VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
    const BufferView dst = out.view(guard * sizeof(T));
    ScanArgs args{config, n, in_place ? dst : in.view(), dst, temp.view()};
    if (gpu_count) args.count_from = IndirectCount{count.view()};
    record_scan(ctx, cmd, args);
    vk::memory_barrier(ctx, cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
                       VK_ACCESS_HOST_READ_BIT);
  });
  RecordedScan<T> r;
  r.output.assign(out.data() + guard, out.data() + guard + n);
  for (size_t i = 0; i < guard; ++i)
    if (std::memcmp(&out.data()[i], &before[i], sizeof(T)) != 0 ||
        std::memcmp(&out.data()[guard + n + i], &before[guard + n + i], sizeof(T)) != 0)
      r.guards_intact = false;
  return r;
}

// W = 32: tiles of B = 64, so B^2 + 1 has three levels and B^3 + 1 four.
constexpr uint32_t small_w = 32;
constexpr size_t small_b = 2 * small_w;

ScanConfig custom_config(const std::string& glsl, ScanKind kind, uint32_t w = small_w) {
  ScanConfig c;
  c.kind = kind;
  c.workgroup_size = w;
  c.custom_op = CustomOp{glsl};
  return c;
}

// Every size around the tile and recursion boundaries, both kinds, against the reference.
template <class T, class Random>
void check_operator(const Operator<T>& op, Random random, const char* what) {
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  std::vector<size_t> sizes = boundary_sizes(small_b, rng);
  sizes.push_back(small_b * small_b * small_b + 1);
  for (ScanKind kind : {ScanKind::exclusive, ScanKind::inclusive}) {
    const ScanConfig config = custom_config(op.glsl, kind);
    for (size_t n : sizes) {
      SCOPED_TRACE(testing::Message() << what << " " << to_string(kind) << ", n = " << n << ", seed " << seed);
      std::vector<T> input(n);
      for (T& x : input) x = random(rng);
      const RecordedScan<T> r = record_custom(shared_context(), input, config);
      EXPECT_TRUE(r.guards_intact) << "the scan wrote outside its output range";
      EXPECT_TRUE(same_bytes(r.output, reference(input, kind, op)));
    }
  }
}

class CustomOpTest : public GpuTest {};

// The code compile_custom_op throws for `glsl`, or 0.
int compile_error_code(const std::string& glsl) {
  try {
    compile_custom_op(shared_context(), {glsl});
  } catch (const Error& e) {
    return e.code().value();
  }
  return 0;
}

// The element of largest magnitude, the earlier one on ties: associative, not commutative on ties.
const Operator<float> largest_magnitude{R"(
#define T float
T identity() { return 0.0; }
T combine(T a, T b) { return abs(a) >= abs(b) ? a : b; }
)",
                                        0.0f, [](const float& a, const float& b) {
                                          return std::fabs(a) >= std::fabs(b) ? a : b;
                                        }};

TEST_F(CustomOpTest, LargestMagnitudeF32) {
  check_operator(largest_magnitude, [](std::mt19937_64& rng) { return random_values<float>(1, rng)[0]; },
                 "largest magnitude");
}

struct SumCount {
  float sum;
  uint32_t count;
};

// Integer-valued floats of small magnitude: every partial sum is exact, so the comparison is bitwise.
TEST_F(CustomOpTest, SumCountStruct) {
  const Operator<SumCount> op{R"(
struct SumCount { float sum; uint count; };
#define T SumCount
T identity() { return SumCount(0.0, 0u); }
T combine(T a, T b) { return SumCount(a.sum + b.sum, a.count + b.count); }
)",
                              {0.0f, 0u}, [](const SumCount& a, const SumCount& b) {
                                return SumCount{a.sum + b.sum, a.count + b.count};
                              }};
  check_operator(op, [](std::mt19937_64& rng) {
    return SumCount{static_cast<float>(static_cast<int>(rng() % 17) - 8), static_cast<uint32_t>(rng() % 4)};
  }, "(sum, count)");
}

struct Mat2 {
  uint32_t m[4];  // row-major [m0 m1; m2 m3]
};

// 2x2 matrix products modulo 2^32, left to right: not commutative.
TEST_F(CustomOpTest, MatrixProductIsOrdered) {
  const Operator<Mat2> op{R"(
#define T uvec4
T identity() { return uvec4(1u, 0u, 0u, 1u); }
T combine(T a, T b) {
  return uvec4(a.x * b.x + a.y * b.z, a.x * b.y + a.y * b.w, a.z * b.x + a.w * b.z, a.z * b.y + a.w * b.w);
}
)",
                          {{1, 0, 0, 1}}, [](const Mat2& a, const Mat2& b) {
                            const uint32_t* x = a.m;
                            const uint32_t* y = b.m;
                            return Mat2{{x[0] * y[0] + x[1] * y[2], x[0] * y[1] + x[1] * y[3],
                                         x[2] * y[0] + x[3] * y[2], x[2] * y[1] + x[3] * y[3]}};
                          }};
  check_operator(op, [](std::mt19937_64& rng) {
    return Mat2{{static_cast<uint32_t>(rng()), static_cast<uint32_t>(rng()), static_cast<uint32_t>(rng()),
                 static_cast<uint32_t>(rng())}};
  }, "2x2 matrix product");
}

struct Affine {
  uint32_t a, b;  // x -> a*x + b
};

const char* affine_glsl = R"(
struct Affine { uint a; uint b; };
#define T Affine
T identity() { return Affine(1u, 0u); }
T combine(T f, T g) { return Affine(g.a * f.a, g.a * f.b + g.b); }  // f first, then g
)";

// Composition of affine maps on u32, f then g: not commutative.
TEST_F(CustomOpTest, AffineCompositionIsOrdered) {
  const Operator<Affine> op{affine_glsl, {1u, 0u}, [](const Affine& f, const Affine& g) {
                              return Affine{g.a * f.a, g.a * f.b + g.b};
                            }};
  check_operator(op, [](std::mt19937_64& rng) {
    return Affine{static_cast<uint32_t>(rng()) | 1u, static_cast<uint32_t>(rng())};
  }, "affine composition");
}

struct MinMaxSum {
  uint32_t lo, hi, sum;
};

const char* min_max_sum_glsl = R"(
struct MinMaxSum { uint lo; uint hi; uint sum; };
#define T MinMaxSum
T identity() { return MinMaxSum(0xffffffffu, 0u, 0u); }
T combine(T a, T b) { return MinMaxSum(min(a.lo, b.lo), max(a.hi, b.hi), a.sum + b.sum); }
)";

MinMaxSum min_max_sum(const MinMaxSum& a, const MinMaxSum& b) {
  return MinMaxSum{std::min(a.lo, b.lo), std::max(a.hi, b.hi), a.sum + b.sum};
}

// A 12-byte element: its ranges are bound at offsets that are multiples of 12 and of the device's
// alignment (guards of 37 elements put the output off both).
TEST_F(CustomOpTest, TwelveByteStruct) {
  const Operator<MinMaxSum> op{min_max_sum_glsl, {0xffffffffu, 0u, 0u}, min_max_sum};
  EXPECT_EQ(compile_custom_op(shared_context(), {op.glsl}), 12u);
  check_operator(op, [](std::mt19937_64& rng) {
    const uint32_t v = static_cast<uint32_t>(rng());
    return MinMaxSum{v, v, v};
  }, "(min, max, sum)");
}

// In place, with the default workgroup size, through the recording API; and the convenience calls.
TEST_F(CustomOpTest, InPlaceAndConvenience) {
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  const Operator<Affine> op{affine_glsl, {1u, 0u}, [](const Affine& f, const Affine& g) {
                              return Affine{g.a * f.a, g.a * f.b + g.b};
                            }};
  std::vector<Affine> input(300001);
  for (Affine& x : input) x = {static_cast<uint32_t>(rng()), static_cast<uint32_t>(rng())};
  for (ScanKind kind : {ScanKind::exclusive, ScanKind::inclusive}) {
    ScanConfig config = custom_config(op.glsl, kind, 0);
    const RecordedScan<Affine> r = record_custom(shared_context(), input, config, /*in_place=*/true);
    EXPECT_TRUE(r.guards_intact);
    EXPECT_TRUE(same_bytes(r.output, reference(input, kind, op)));

    EXPECT_TRUE(same_bytes(custom_scan(shared_context(), std::span<const Affine>(input), config),
                           reference(input, kind, op)));
    config.custom_op->element_size = sizeof(Affine);
    const auto bytes = scan_bytes(shared_context(), std::as_bytes(std::span<const Affine>(input)), config);
    std::vector<Affine> from_bytes(input.size());
    std::memcpy(from_bytes.data(), bytes.data(), bytes.size());
    EXPECT_TRUE(same_bytes(from_bytes, reference(input, kind, op)));
  }
  EXPECT_TRUE(custom_scan(shared_context(), std::span<const Affine>(), custom_config(op.glsl, ScanKind::inclusive)).empty());
}

// Scans longer than one binding run in windows chained by window_carry (a custom-operator kernel too):
// a context binding at most 20000 bytes makes a few thousand elements span several windows, for an
// 8-byte and a 12-byte element, out of place and in place.
TEST_F(CustomOpTest, WindowsLongerThanOneBinding) {
  const Context& windowed = cached_context("window 20000", [] {
    TestHooks hooks;
    hooks.max_binding_bytes = 20000;
    return make_validated_context({}, hooks);
  });
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  const Operator<Affine> affine{affine_glsl, {1u, 0u}, [](const Affine& f, const Affine& g) {
                                  return Affine{g.a * f.a, g.a * f.b + g.b};
                                }};
  const Operator<MinMaxSum> triple{min_max_sum_glsl, {0xffffffffu, 0u, 0u}, min_max_sum};
  auto check = [&](const auto& op, auto random) {
    using T = typename std::decay_t<decltype(op.identity)>;
    const size_t w = impl_of(windowed).window_elements(uint32_t{sizeof(T)});
    for (ScanKind kind : {ScanKind::exclusive, ScanKind::inclusive})
      for (size_t n : {w - 1, w, w + 1, 2 * w, 3 * w + 5})
        for (bool in_place : {false, true}) {
          SCOPED_TRACE(std::to_string(sizeof(T)) + "-byte, window " + std::to_string(w) + ", n = " + std::to_string(n) +
                       " " + std::string(to_string(kind)) + (in_place ? " in place" : "") + ", seed " +
                       std::to_string(seed));
          std::vector<T> input(n);
          for (T& x : input) x = random(rng);
          const RecordedScan<T> r = record_custom(windowed, input, custom_config(op.glsl, kind), in_place);
          EXPECT_TRUE(r.guards_intact);
          EXPECT_TRUE(same_bytes(r.output, reference(input, kind, op)));
        }
  };
  check(affine, [](std::mt19937_64& rng) { return Affine{static_cast<uint32_t>(rng()), static_cast<uint32_t>(rng())}; });
  check(triple, [](std::mt19937_64& rng) {
    const uint32_t v = static_cast<uint32_t>(rng());
    return MinMaxSum{v, v, v};
  });
}

// The element count from GPU memory (ScanArgs::count_from): elements past it stay untouched.
TEST_F(CustomOpTest, CountFromGpuMemory) {
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  const Operator<Affine> op{affine_glsl, {1u, 0u}, [](const Affine& f, const Affine& g) {
                              return Affine{g.a * f.a, g.a * f.b + g.b};
                            }};
  const size_t bound = small_b * small_b + 7;
  std::vector<Affine> input(bound);
  for (Affine& x : input) x = {static_cast<uint32_t>(rng()), static_cast<uint32_t>(rng())};
  for (uint32_t count : {0u, 1u, static_cast<uint32_t>(small_b + 1), static_cast<uint32_t>(bound - 3)}) {
    SCOPED_TRACE("count " + std::to_string(count) + ", seed " + std::to_string(seed));
    const RecordedScan<Affine> r =
        record_custom(shared_context(), input, custom_config(op.glsl, ScanKind::inclusive), false, count);
    EXPECT_TRUE(r.guards_intact);
    const std::vector<Affine> prefix(input.begin(), input.begin() + count);
    EXPECT_TRUE(same_bytes(std::vector<Affine>(r.output.begin(), r.output.begin() + count),
                           reference(prefix, ScanKind::inclusive, op)));
    std::vector<Affine> poisoned(1);
    poison(poisoned.data(), sizeof(Affine));
    for (size_t i = count; i < bound; ++i)
      if (std::memcmp(&r.output[i], poisoned.data(), sizeof(Affine)) != 0) {
        ADD_FAILURE() << "element " << i << " past the count was written";
        break;
      }
  }
}

// The worked example of docs/scan.md ("Custom operators").
TEST_F(CustomOpTest, DocumentedExample) {
  ScanConfig config;
  config.kind = ScanKind::inclusive;
  config.custom_op = CustomOp{affine_glsl};
  const std::vector<Affine> steps = {{2, 1}, {3, 0}, {1, 5}};
  const auto maps = custom_scan(shared_context(), std::span<const Affine>(steps), config);
  ASSERT_EQ(maps.size(), 3u);
  EXPECT_TRUE(same_bytes(maps, std::vector<Affine>{{2, 1}, {6, 3}, {6, 8}}));
}

// Float sums combine in an order fixed by n and W: two runs agree bit for bit.
TEST_F(CustomOpTest, FloatSumIsReproducible) {
  std::mt19937_64 rng(fresh_seed());
  const auto input = random_values<float>(100003, rng);
  const ScanConfig config = custom_config("#define T float\nT identity() { return 0.0; }\n"
                                          "T combine(T a, T b) { return a + b; }\n",
                                          ScanKind::inclusive, 0);
  const auto first = custom_scan(shared_context(), std::span<const float>(input), config);
  for (int run = 0; run < 3; ++run)
    EXPECT_TRUE(same_bytes(custom_scan(shared_context(), std::span<const float>(input), config), first));
}

// 64-bit element types, with the #extension the snippet itself names: (u64 sum, f64 max) in a 16-byte struct.
TEST_F(CustomOpTest, SixtyFourBitMembers) {
  struct SumMax {
    uint64_t sum;
    double max;
  };
  const Operator<SumMax> op{R"(
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
struct SumMax { uint64_t sum; double max; };
#define T SumMax
T identity() { return SumMax(0ul, packDouble2x32(uvec2(0u, 0xfff00000u))); }  // -inf
T combine(T a, T b) { return SumMax(a.sum + b.sum, max(a.max, b.max)); }
)",
                            {0, -std::numeric_limits<double>::infinity()}, [](const SumMax& a, const SumMax& b) {
                              return SumMax{a.sum + b.sum, a.max < b.max ? b.max : a.max};
                            }};
  if (!impl_of(shared_context()).int64_enabled || !impl_of(shared_context()).float64_enabled) {
    EXPECT_EQ(compile_error_code(op.glsl), static_cast<int>(Errc::unsupported));
    GTEST_SKIP() << "the device lacks shaderInt64 or shaderFloat64";
  }
  check_operator(op, [](std::mt19937_64& rng) {
    return SumMax{rng(), random_values<double>(1, rng)[0]};
  }, "(u64 sum, f64 max)");
}

// A second scan with the same snippet compiles nothing and builds no pipeline.
TEST_F(CustomOpTest, CompiledOncePerContext) {
  Context::Impl& impl = impl_of(shared_context());
  // A snippet no other test uses, so that its first scan here compiles it.
  const std::string glsl = "// " + std::to_string(fresh_seed()) +
                           "\n#define T uint\nT identity() { return 0u; }\nT combine(T a, T b) { return a ^ b; }\n";
  const std::vector<uint32_t> input = {1, 2, 4, 8, 3};
  const ScanConfig config = custom_config(glsl, ScanKind::inclusive);
  const uint64_t before = impl.custom_op_compilations;
  EXPECT_EQ(custom_scan(shared_context(), std::span<const uint32_t>(input), config),
            (std::vector<uint32_t>{1, 3, 7, 15, 12}));
  const uint64_t after_first = impl.custom_op_compilations;
  EXPECT_EQ(after_first - before, shaders::custom_op_variants().size()) << "each kernel compiles once";
  size_t pipelines = 0;
  {
    std::lock_guard lock(impl.pipelines_mutex);
    pipelines = impl.pipelines.size();
  }
  EXPECT_EQ(custom_scan(shared_context(), std::span<const uint32_t>(input), config),
            (std::vector<uint32_t>{1, 3, 7, 15, 12}));
  EXPECT_EQ(compile_custom_op(shared_context(), {glsl}), 4u);
  EXPECT_EQ(impl.custom_op_compilations, after_first);
  std::lock_guard lock(impl.pipelines_mutex);
  EXPECT_EQ(impl.pipelines.size(), pipelines);
}

template <class F>
void expect_error(F&& f, Errc code, const std::vector<std::string>& parts) {
  try {
    f();
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    for (const std::string& part : parts)
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << "'" << part << "' not in: " << e.what();
  }
}

TEST_F(CustomOpTest, CompileErrorsQuoteTheCompiler) {
  const std::vector<uint32_t> input = {1, 2, 3};
  // An undeclared name on the snippet's line 3.
  const std::string bad = "#define T uint\nT identity() { return 0u; }\nT combine(T a, T b) { return a + oops; }\n";
  expect_error([&] { custom_scan(shared_context(), std::span<const uint32_t>(input), custom_config(bad, ScanKind::inclusive)); },
               Errc::compile_error, {"custom_op.glsl:3", "oops", "did not compile"});
  expect_error([&] { compile_custom_op(shared_context(), {"uint identity() { return 0u; }"}); }, Errc::compile_error,
               {"must #define T"});
  expect_error([&] { compile_custom_op(shared_context(), {"#define T uint\nT identity() { return 0u; }\n"}); },
               Errc::compile_error, {"combine"});
  expect_error([&] { compile_custom_op(shared_context(), {"  \n"}); }, Errc::invalid_argument, {"empty"});
  // A failed snippet is not cached: it fails again, with the same message.
  expect_error([&] { compile_custom_op(shared_context(), {bad}); }, Errc::compile_error, {"custom_op.glsl:3"});
}

TEST_F(CustomOpTest, RefusesWhatItCannotDo) {
  const Context& ctx = shared_context();
  const std::vector<Affine> input(10, Affine{1, 2});
  const std::span<const Affine> span(input);
  ScanConfig config = custom_config(affine_glsl, ScanKind::exclusive);
  for (Algorithm a : {Algorithm::single_pass, Algorithm::reduce_then_scan}) {
    ScanConfig c = config;
    c.algorithm = a;
    expect_error([&] { custom_scan(ctx, span, c); }, Errc::unsupported, {"multipass"});
  }
  ScanConfig subgroup = config;
  subgroup.workgroup = WorkgroupAlgorithm::subgroup;
  expect_error([&] { custom_scan(ctx, span, subgroup); }, Errc::unsupported, {"blelloch"});
  ScanConfig multipass = config;
  multipass.algorithm = Algorithm::multipass;
  multipass.workgroup = WorkgroupAlgorithm::blelloch;
  EXPECT_EQ(ctx.resolve(multipass, 1u << 20), Algorithm::multipass);
  EXPECT_EQ(ctx.resolve(config, 1u << 20), Algorithm::multipass);
  EXPECT_NE(ctx.describe_choice(config, 1u << 20).find("custom"), std::string::npos);

  // The element size: a wrong one, and a vec3, whose std430 stride is 16.
  ScanConfig wrong = config;
  wrong.custom_op->element_size = 12;
  expect_error([&] { scan_temp_requirements(ctx, 100, wrong); }, Errc::invalid_argument, {"12", "8 bytes"});
  expect_error([&] { custom_scan(ctx, std::span<const uint32_t>(), config); }, Errc::invalid_argument, {"8"});
  expect_error([&] {
    compile_custom_op(ctx, {"#define T vec3\nT identity() { return vec3(0.0); }\nT combine(T a, T b) { return a + b; }\n",
                            12});
  }, Errc::invalid_argument, {"16"});
  // A capability gpuscan does not enable on its devices (16-bit floats): refused before any pipeline.
  expect_error([&] {
    compile_custom_op(ctx, {"#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require\n"
                            "#define T f16vec2\nT identity() { return T(0.0hf); }\nT combine(T a, T b) { return a + b; }\n"});
  }, Errc::unsupported, {"needs", "does not have enabled"});
  // Input bytes that are not whole elements.
  const std::vector<std::byte> odd(12);
  expect_error([&] { scan_bytes(ctx, odd, config); }, Errc::invalid_argument, {"8-byte"});

  // Streams of host data chain their chunks through carry-ins: refused too.
  expect_error([&] {
    scan_stream(ctx, config, [](std::span<std::byte>) -> size_t { return 0; }, [](std::span<const std::byte>) {});
  }, Errc::unsupported, {"custom operator"});

  // No carry-in: gpuscan cannot make a T of bits.
  HostBuffer<Affine> in(ctx, 10 * sizeof(Affine)), out(ctx, 10 * sizeof(Affine));
  ScanArgs args{config, 10, in.view(), out.view(), {}};
  args.initial_bits = 1;
  expect_error([&] { vk::submit_and_wait(ctx, [&](VkCommandBuffer cmd) { record_scan(ctx, cmd, args); }); },
               Errc::unsupported, {"carry-in"});
}

}  // namespace
}  // namespace gpuscan::test
