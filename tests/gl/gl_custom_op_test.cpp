// Custom operators (ScanConfig::custom_op) on OpenGL: the snippet compiled by the GL driver into the
// multipass kernels' source. Checked against a CPU fold of the same operator at every size around the
// tile and recursion boundaries (W = 32: B = 64), both kinds, with fresh random data and poisoned
// output between guards: affine maps x -> a*x + b on u32 (not commutative, 8 bytes) and
// (min, max, sum) of u32 (a 12-byte struct: bindings at multiples of 12 and of 16), in place, in windows
// past one binding and with the count from GPU memory. Also compile errors (the driver's log), the
// cache, and what custom operators refuse on GL as on Vulkan.
#include "custom_op_check.hpp"
#include "gl_test_support.hpp"
#include "scan_check.hpp"

namespace gpuscan::test {
namespace {

struct Affine {  // x -> a*x + b
  uint32_t a, b;
};
// combine(f, g) applies f, then g: g(f(x)) = g.a*f.a*x + g.a*f.b + g.b.
const Operator<Affine> affine{R"(
#define T uvec2
T identity() { return T(1u, 0u); }
T combine(T f, T g) { return T(g.x * f.x, g.x * f.y + g.y); }
)",
                              {1, 0}, [](const Affine& f, const Affine& g) {
                                return Affine{g.a * f.a, g.a * f.b + g.b};
                              }};

struct MinMaxSum {
  uint32_t lo, hi, sum;
};
const Operator<MinMaxSum> min_max_sum{R"(
struct MinMaxSum { uint lo; uint hi; uint sum; };
#define T MinMaxSum
T identity() { return T(0xffffffffu, 0u, 0u); }
T combine(T a, T b) { return T(min(a.lo, b.lo), max(a.hi, b.hi), a.sum + b.sum); }
)",
                                      {0xffffffffu, 0, 0}, [](const MinMaxSum& a, const MinMaxSum& b) {
                                        return MinMaxSum{std::min(a.lo, b.lo), std::max(a.hi, b.hi), a.sum + b.sum};
                                      }};

template <class T>
std::vector<T> random_elements(size_t n, std::mt19937_64& rng) {
  const auto words = random_values<uint32_t>(n * sizeof(T) / 4, rng);
  std::vector<T> v(n);
  if (n) std::memcpy(v.data(), words.data(), n * sizeof(T));
  return v;
}

ScanConfig custom_config(const std::string& glsl, ScanKind kind) {
  ScanConfig c;
  c.kind = kind;
  c.workgroup_size = 32;
  c.custom_op = CustomOp{glsl};
  return c;
}

// Scans `input` (from an input buffer, or in place) into an output buffer after `guard` elements,
// output and temp poisoned; with `gpu_count` the count comes from GPU memory and n is its bound.
template <class T>
RecordedScan<T> gl_custom_run(const std::vector<T>& input, const ScanConfig& config, bool in_place = false,
                              std::optional<uint32_t> gpu_count = std::nullopt) {
  constexpr size_t guard = 37;
  const size_t n = input.size();
  GlBuffer in((n + 1) * sizeof(T), nullptr);
  if (n) gl_functions().NamedBufferSubData(in.name(), 0, static_cast<GLsizeiptr>(n * sizeof(T)), input.data());
  auto staged = poison_bytes((n + 2 * guard) * sizeof(T));
  if (in_place && n) std::memcpy(staged.data() + guard * sizeof(T), input.data(), n * sizeof(T));
  GlBuffer out(staged.size(), staged.data());
  const gl::TempRequirements req = gl::scan_temp_requirements(gl_context(), n, config, gpu_count.has_value());
  EXPECT_EQ(req.alignment, sizeof(T));
  const auto poisoned_temp = poison_bytes(req.size + 64);
  GlBuffer temp(poisoned_temp.size(), poisoned_temp.data());
  const uint32_t count_word[2] = {gpu_count.value_or(0), 0};
  GlBuffer count(sizeof count_word, count_word);
  const gl::BufferView dst = out.view(guard * sizeof(T));
  gl::ScanArgs args{config, n, in_place ? dst : in.view(), dst, temp.view()};
  if (gpu_count) args.count_from = gl::IndirectCount{count.view()};
  gl::record_scan(gl_context(), args);
  buffer_update_barrier();
  const auto all = out.read<T>(0, n + 2 * guard);
  const auto poisoned = poison_bytes((n + 2 * guard) * sizeof(T));
  RecordedScan<T> r;
  r.output.assign(all.begin() + guard, all.begin() + guard + n);
  const size_t written = gpu_count ? std::min<size_t>(*gpu_count, n) : n;
  r.guards_intact = std::memcmp(all.data(), poisoned.data(), guard * sizeof(T)) == 0 &&
                    std::memcmp(all.data() + guard + written, poisoned.data(), (n - written + guard) * sizeof(T)) == 0;
  return r;
}

template <class T>
void check_operator(const Operator<T>& op, const char* what) {
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  std::vector<size_t> sizes = boundary_sizes(64, rng);
  for (ScanKind kind : {ScanKind::exclusive, ScanKind::inclusive})
    for (size_t n : sizes)
      for (bool in_place : {false, true}) {
        if (in_place && n != sizes.back()) continue;
        SCOPED_TRACE(testing::Message() << what << " " << to_string(kind) << ", n = " << n
                                        << (in_place ? ", in place" : "") << ", seed " << seed);
        const auto input = random_elements<T>(n, rng);
        const RecordedScan<T> r = gl_custom_run(input, custom_config(op.glsl, kind), in_place);
        EXPECT_TRUE(r.guards_intact) << "the scan wrote outside its output range";
        EXPECT_TRUE(same_bytes(r.output, reference(input, kind, op)));
      }
}

TEST_F(GlTest, CustomOpAffineMaps) { check_operator(affine, "affine maps"); }

TEST_F(GlTest, CustomOpTwelveByteStruct) {
  EXPECT_EQ(gl::compile_custom_op(gl_context(), {min_max_sum.glsl}), 12u);
  check_operator(min_max_sum, "(min, max, sum)");
}

// Windows past one binding (the shared context binds at most 20000 bytes here) and counts from GPU memory.
TEST_F(GlTest, CustomOpWindowsAndGpuCounts) {
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  std::optional<BindingCap> cap(std::in_place);
  for (ScanKind kind : {ScanKind::exclusive, ScanKind::inclusive})
    for (size_t n : {size_t{1663}, size_t{1665}, size_t{5000}}) {
      SCOPED_TRACE("n = " + std::to_string(n) + ", seed " + std::to_string(seed));
      const auto input = random_elements<MinMaxSum>(n, rng);
      const auto r = gl_custom_run(input, custom_config(min_max_sum.glsl, kind));
      EXPECT_TRUE(r.guards_intact);
      EXPECT_TRUE(same_bytes(r.output, reference(input, kind, min_max_sum)));
      const auto maps = random_elements<Affine>(n, rng);
      const auto in_place = gl_custom_run(maps, custom_config(affine.glsl, kind), true);
      EXPECT_TRUE(same_bytes(in_place.output, reference(maps, kind, affine))) << "in place";
    }
  cap.reset();  // a count from GPU memory needs its bound to fit one binding
  const size_t bound = 64 * 64 + 3;
  const auto input = random_elements<Affine>(bound, rng);
  for (uint32_t count : {0u, 1u, 65u, static_cast<uint32_t>(bound - 1), static_cast<uint32_t>(bound + 5)}) {
    SCOPED_TRACE("count " + std::to_string(count));
    const auto r = gl_custom_run(input, custom_config(affine.glsl, ScanKind::inclusive), false, count);
    const size_t n = std::min<size_t>(count, bound);
    EXPECT_TRUE(r.guards_intact) << "written past the count";
    const std::vector<Affine> head(input.begin(), input.begin() + n);
    EXPECT_TRUE(same_bytes(std::vector<Affine>(r.output.begin(), r.output.begin() + n),
                           reference(head, ScanKind::inclusive, affine)));
  }
}

TEST_F(GlTest, CustomOpCompileErrorsCacheAndRefusals) {
  const gl::Context& ctx = gl_context();
  // A compile error names the snippet's line (source string 1, line 3 here) in the driver's log.
  const Error broken = thrown_by([&] {
    gl::compile_custom_op(ctx, {"#define T uint\nT identity() { return 0u; }\nT combine(T a, T b) { return a +* b; }\n"});
  });
  EXPECT_EQ(static_cast<Errc>(broken.code().value()), Errc::compile_error) << broken.what();
  // The snippet's own line 3 of source string 1: Mesa writes "1:3", NVIDIA "1(3)".
  const std::string message = broken.what();
  EXPECT_TRUE(message.find("1:3") != std::string::npos || message.find("1(3)") != std::string::npos) << message;
  EXPECT_EQ(error_of([&] { gl::compile_custom_op(ctx, {"#define T uint\n"}); }), Errc::compile_error);
  EXPECT_EQ(error_of([&] { gl::compile_custom_op(ctx, {" \n"}); }), Errc::invalid_argument);
  // The driver's compiler messages are not GL errors: nothing arrived as MessageSeverity::error.
  EXPECT_TRUE(take_gl_errors().empty());
  // The cache: a second compile of the same text builds nothing.
  EXPECT_EQ(gl::compile_custom_op(ctx, {affine.glsl}), 8u);
  const size_t programs = impl_of(ctx).programs.size();
  EXPECT_EQ(gl::compile_custom_op(ctx, {affine.glsl}), 8u);
  EXPECT_EQ(impl_of(ctx).programs.size(), programs);
  EXPECT_EQ(error_of([&] { gl::compile_custom_op(ctx, {affine.glsl, 12}); }), Errc::invalid_argument);
  // What custom operators refuse.
  GlBuffer in(4096), out(4096), temp(4096);
  ScanConfig c = custom_config(affine.glsl, ScanKind::exclusive);
  c.algorithm = Algorithm::reduce_then_scan;
  EXPECT_EQ(error_of([&] { gl::scan_temp_requirements(ctx, 100, c); }), Errc::unsupported);
  c.algorithm = Algorithm::single_pass;
  EXPECT_EQ(error_of([&] { gl::scan_temp_requirements(ctx, 100, c); }), Errc::unsupported);
  c.algorithm = Algorithm::multipass;
  c.workgroup = WorkgroupAlgorithm::subgroup;
  EXPECT_EQ(error_of([&] { gl::scan_temp_requirements(ctx, 100, c); }), Errc::unsupported);
  c.workgroup = WorkgroupAlgorithm::automatic;
  gl::ScanArgs a{c, 100, in.view(), out.view(), temp.view(), uint64_t{1}};
  EXPECT_EQ(error_of([&] { gl::record_scan(ctx, a); }), Errc::unsupported) << "a carry-in";
  a.initial_bits.reset();
  a.input.offset = 4;  // not a multiple of the 8-byte element
  EXPECT_EQ(error_of([&] { gl::record_scan(ctx, a); }), Errc::misaligned);
  EXPECT_EQ(error_of([&] { gl::plan_scan_stream(ctx, c); }), Errc::unsupported) << "streams chain carry-ins";
  const std::vector<uint32_t> odd = {2, 1, 3};  // one and a half affine maps
  EXPECT_EQ(error_of([&] { gl::scan_bytes(ctx, std::as_bytes(std::span<const uint32_t>(odd)), c); }),
            Errc::invalid_argument);
}

// The untyped convenience call counts elements of the snippet's size: the example of docs/scan.md.
TEST_F(GlTest, CustomOpScanBytes) {
  const std::vector<Affine> maps = {{2, 1}, {3, 0}, {1, 5}};
  const auto bytes = gl::scan_bytes(gl_context(), std::as_bytes(std::span<const Affine>(maps)),
                                    custom_config(affine.glsl, ScanKind::inclusive));
  ASSERT_EQ(bytes.size(), maps.size() * sizeof(Affine));
  std::vector<Affine> got(maps.size());
  std::memcpy(got.data(), bytes.data(), bytes.size());
  EXPECT_TRUE(same_bytes(got, std::vector<Affine>{{2, 1}, {6, 3}, {6, 8}}));
}

}  // namespace
}  // namespace gpuscan::test
