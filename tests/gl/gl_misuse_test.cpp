// Misuse of the OpenGL backend ends in the same gpuscan errors as on Vulkan, before anything is issued,
// and leaves no GL error behind (GlTest checks glGetError after every test). Plus the context itself:
// what it reports and the thread/current-context rules.
#include "gl/egl.hpp"
#include "gl_test_support.hpp"

namespace gpuscan::test {
namespace {

class GlMisuseTest : public GlTest {
 protected:
  const gl::Context& ctx = gl_context();
  GlBuffer in{4096}, out{4096}, temp{4096};
  gl::ScanArgs args(uint64_t n = 100) const { return {{}, n, in.view(), out.view(), temp.view()}; }
};

// What GL refuses of types and operators: u64/i64 without GL_ARB_gpu_shader_int64, the subgroup paths
// for the 64-bit types (GL's GLSL has no subgroup arithmetic on them), the single-pass compaction,
// bitwise operators on floats (as on Vulkan), and of custom operators what Vulkan refuses too.
TEST_F(GlMisuseTest, TypesAndOperatorsGlLacks) {
  for (const DataType type : {DataType::u64, DataType::i64, DataType::f64}) {
    ScanConfig c;
    c.type = type;
    const bool has = type == DataType::f64 ? ctx.info().gpu_shader_fp64 : ctx.info().gpu_shader_int64;
    if (!has) {
      EXPECT_EQ(error_of([&] { gl::scan_temp_requirements(ctx, 100, c); }), Errc::unsupported) << to_string(type);
      continue;
    }
    c.algorithm = Algorithm::reduce_then_scan;
    EXPECT_EQ(error_of([&] { gl::scan_temp_requirements(ctx, 100, c); }), Errc::unsupported) << to_string(type);
    auto a = args();
    a.config = c;
    EXPECT_EQ(error_of([&] { gl::record_scan(ctx, a); }), Errc::unsupported) << to_string(type);
    c.algorithm = Algorithm::multipass;
    c.workgroup = WorkgroupAlgorithm::subgroup;
    EXPECT_EQ(error_of([&] { gl::scan_temp_requirements(ctx, 100, c); }), Errc::unsupported) << to_string(type);
  }
  ScanConfig c;
  c.type = DataType::f32;
  c.op = Op::bit_xor;
  EXPECT_EQ(error_of([&] { gl::scan_temp_requirements(ctx, 100, c); }), Errc::invalid_argument);
  c.type = DataType::f64;
  EXPECT_EQ(error_of([&] { gl::scan_temp_requirements(ctx, 100, c); }), Errc::invalid_argument);
  CompactConfig single;
  single.algorithm = CompactAlgorithm::single_pass;
  EXPECT_EQ(error_of([&] { gl::compact_temp_requirements(ctx, 100, single); }), Errc::unsupported);
}

// The 8-byte types' compactions check their buffers in 8-byte elements, before anything runs: a
// buffer of 4096 bytes holds 512 of them, an offset of 4 bytes is not a whole element, and an input
// overlapping the output by one element is refused.
TEST_F(GlMisuseTest, CompactionOfEightByteTypes) {
  GlBuffer count{16};
  for (const DataType type : {DataType::u64, DataType::i64, DataType::f64}) {
    CompactConfig c;
    c.type = type;
    const gl::SelectArgs fits{c, 512, in.view(), {}, Predicate::nonzero(), out.view(), count.view(), temp.view()};
    gl::SelectArgs a = fits;
    a.count = 513;
    EXPECT_EQ(error_of([&] { gl::record_select_if(ctx, a); }), Errc::buffer_too_small) << to_string(type);
    a = fits;
    a.input.offset = 4;
    a.count = 100;
    EXPECT_EQ(error_of([&] { gl::record_partition_if(ctx, a); }), Errc::misaligned) << to_string(type);
    a = fits;
    a.count = 100;
    a.output = in.view(99 * 8);
    EXPECT_EQ(error_of([&] { gl::record_select_if(ctx, a); }), Errc::invalid_argument) << to_string(type);
    a.output = in.view(100 * 8);  // just past the input: fine
    EXPECT_NO_THROW(gl::record_select_if(ctx, a)) << to_string(type);
  }
}

TEST_F(GlMisuseTest, Buffers) {
  auto a = args();
  a.input.buffer = 0;
  EXPECT_EQ(error_of([&] { gl::record_scan(ctx, a); }), Errc::null_handle);
  a = args();
  a.output.buffer = 987654;  // no such buffer object
  EXPECT_EQ(error_of([&] { gl::record_scan(ctx, a); }), Errc::invalid_argument);
  a = args();
  a.input.offset = 2;
  EXPECT_EQ(error_of([&] { gl::record_scan(ctx, a); }), Errc::misaligned);
  a = args(1025);  // 4100 bytes
  EXPECT_EQ(error_of([&] { gl::record_scan(ctx, a); }), Errc::buffer_too_small);
  // Temp checks need a plan that uses temp on every driver: multipass Blelloch, blocks of 512 (where the
  // driver has subgroup arithmetic, automatic picks reduce-then-scan, whose one 4096-element tile needs none).
  const auto multipass = [&](size_t n) {
    auto m = args(n);
    m.config.algorithm = Algorithm::multipass;
    m.config.workgroup = WorkgroupAlgorithm::blelloch;
    return m;
  };
  a = multipass(600);
  a.temp.offset = 4064;  // 8 elements left; the plan needs 16
  EXPECT_EQ(error_of([&] { gl::record_scan(ctx, a); }), Errc::buffer_too_small);
  a = args();
  a.output = in.view(8);  // overlaps the input without being it
  EXPECT_EQ(error_of([&] { gl::record_scan(ctx, a); }), Errc::invalid_argument);
  a = multipass(600);
  a.temp = out.view(0);
  EXPECT_EQ(error_of([&] { gl::record_scan(ctx, a); }), Errc::invalid_argument);
}

// A buffer mapped without GL_MAP_PERSISTENT_BIT cannot be used by a dispatch (GL_INVALID_OPERATION):
// refused beforehand.
TEST_F(GlMisuseTest, MappedBufferIsRefused) {
  auto map = reinterpret_cast<PFNGLMAPNAMEDBUFFERRANGEPROC>(gl::egl().GetProcAddress("glMapNamedBufferRange"));
  auto unmap = reinterpret_cast<PFNGLUNMAPNAMEDBUFFERPROC>(gl::egl().GetProcAddress("glUnmapNamedBuffer"));
  ASSERT_TRUE(map && unmap);
  GLuint name = 0;
  gl_functions().CreateBuffers(1, &name);
  gl_functions().NamedBufferStorage(name, 4096, nullptr, GL_MAP_READ_BIT);
  ASSERT_NE(map(name, 0, 4096, GL_MAP_READ_BIT), nullptr);
  auto a = args();
  a.input = {name, 0};
  EXPECT_EQ(error_of([&] { gl::record_scan(ctx, a); }), Errc::invalid_argument);
  unmap(name);
  gl_functions().DeleteBuffers(1, &name);
}

TEST_F(GlMisuseTest, Configurations) {
  auto a = args();
  a.config.algorithm = Algorithm::single_pass;
  EXPECT_EQ(error_of([&] { gl::record_scan(ctx, a); }), Errc::unsupported);
  a = args();
  a.config.workgroup_size = 48;
  EXPECT_EQ(error_of([&] { gl::record_scan(ctx, a); }), Errc::invalid_argument);
  a = args();
  a.config.vectors_per_lane = 3;  // the tile shape is checked first, whatever the algorithm
  a.config.algorithm = Algorithm::reduce_then_scan;
  EXPECT_EQ(error_of([&] { gl::record_scan(ctx, a); }), Errc::invalid_argument);
  if (!ctx.info().subgroup_arithmetic) {
    a = args();
    a.config.algorithm = Algorithm::reduce_then_scan;
    EXPECT_EQ(error_of([&] { gl::record_scan(ctx, a); }), Errc::unsupported);
    a.config.algorithm = Algorithm::multipass;
    a.config.workgroup = WorkgroupAlgorithm::subgroup;
    EXPECT_EQ(error_of([&] { gl::record_scan(ctx, a); }), Errc::unsupported);
  }
  if (!ctx.info().subgroup_ballot) {
    const std::vector<uint32_t> v = {1, 0, 2};
    EXPECT_EQ(error_of([&] {
                gl::select_if(ctx, std::span<const uint32_t>(v), Predicate::nonzero(), {DataType::u32, CompactPath::ballot});
              }),
              Errc::unsupported);
  }
  const std::vector<uint32_t> v = {1, 2, 3};
  const std::vector<uint32_t> flags = {1};
  EXPECT_EQ(error_of([&] { gl::select_flagged(ctx, std::span<const uint32_t>(v), std::span<const uint32_t>(flags)); }),
            Errc::invalid_argument);
  const std::vector<std::byte> odd(6);
  EXPECT_EQ(error_of([&] { gl::scan_bytes(ctx, odd, {}); }), Errc::invalid_argument);
}

TEST_F(GlMisuseTest, Compaction) {
  GlBuffer count(4);
  const size_t n = 100;
  const CompactConfig cfg{DataType::u32, CompactPath::automatic, 32, 1};
  gl::SelectArgs a{cfg, n, in.view(), {}, Predicate::nonzero(), out.view(), count.view(), temp.view()};
  EXPECT_EQ(error_of([&] { gl::record_select_flagged(ctx, a); }), Errc::null_handle);  // no flags
  auto b = a;
  b.count_out = {};
  EXPECT_EQ(error_of([&] { gl::record_select_if(ctx, b); }), Errc::null_handle);
  b = a;
  b.output = in.view(40);
  EXPECT_EQ(error_of([&] { gl::record_select_if(ctx, b); }), Errc::invalid_argument);
  b = a;
  b.predicate.kind = static_cast<PredicateKind>(200);
  EXPECT_EQ(error_of([&] { gl::record_select_if(ctx, b); }), Errc::invalid_argument);
  b = a;
  b.count = 2000;
  EXPECT_EQ(error_of([&] { gl::record_partition_if(ctx, b); }), Errc::buffer_too_small);
}

// A range larger than one SSBO binding may hold (GL_MAX_SHADER_STORAGE_BLOCK_SIZE, 128 MiB on llvmpipe):
// a scan runs in windows and is right; a compaction (not windowed) is refused, not run wrongly. Skipped
// where the limit is above 1 GiB (no such buffer here).
TEST_F(GlMisuseTest, LargerThanOneBinding) {
  const uint64_t limit = ctx.info().max_shader_storage_block_size;
  if (limit > (uint64_t{1} << 30)) GTEST_SKIP() << "GL_MAX_SHADER_STORAGE_BLOCK_SIZE is " << limit;
  const uint64_t n = limit / 4 + 1;
  std::mt19937_64 rng(fresh_seed());
  const auto input = random_values<uint32_t>(n, rng);
  GlBuffer big(n * 4, input.data()), big_out(n * 4);
  gl::ScanArgs a{{}, n, big.view(), big_out.view(), temp.view()};
  const gl::TempRequirements req = gl::scan_temp_requirements(ctx, n, a.config);
  GlBuffer big_temp(req.size);
  a.temp = big_temp.view();
  gl::record_scan(ctx, a);
  buffer_update_barrier();
  const auto got = big_out.read<uint32_t>(0, n);
  uint32_t running = 0;
  size_t wrong = 0;
  for (size_t i = 0; i < n; ++i) {
    wrong += got[i] != running;
    running += input[i];
  }
  EXPECT_EQ(wrong, 0u);
  GlBuffer count(4);
  gl::SelectArgs s{{}, n, big.view(), {}, Predicate::nonzero(), big_out.view(), count.view(), big_temp.view()};
  EXPECT_EQ(error_of([&] { gl::record_select_if(ctx, s); }), Errc::too_large);
}

// Sizing temp and describing a plan of 2^50 elements (2^25 windows of 128 MiB) cost what two windows do
// (they plan an outline), and a count past 2^64 - 1 bytes is too_large at once. GL cannot say how much
// memory the device has, so 2^50 elements are sized, not refused (Vulkan refuses them).
TEST_F(GlMisuseTest, HugeCounts) {
  const uint64_t n = uint64_t{1} << 50;
  EXPECT_GT(gl::scan_temp_requirements(ctx, n, {}).size, 0u);
  EXPECT_EQ(gl::scan_temp_requirements(ctx, n, {}).size, gl::scan_temp_requirements(ctx, n / 1024, {}).size);
  EXPECT_GT(gl::reduce_temp_requirements(ctx, n, {}).size, 0u);
  EXPECT_NE(gl::describe_scan_plan(ctx, n, {}).find(" more window(s)"), std::string::npos);
  EXPECT_NE(gl::describe_reduce_plan(ctx, n, {}).find(" more window(s)"), std::string::npos);
  EXPECT_EQ(error_of([&] { gl::scan_temp_requirements(ctx, UINT64_MAX, {}); }), Errc::too_large);
  EXPECT_EQ(error_of([&] { gl::reduce_temp_requirements(ctx, UINT64_MAX, {}); }), Errc::too_large);
  EXPECT_EQ(error_of([&] { ctx.resolve(ScanConfig{}, UINT64_MAX); }), Errc::too_large);
}

TEST_F(GlMisuseTest, ReportsWhatItFound) {
  const gl::GlInfo& info = ctx.info();
  EXPECT_GE(info.major * 10 + info.minor, 45);
  EXPECT_FALSE(info.renderer.empty());
  EXPECT_TRUE(info.platform == "EGL surfaceless" || info.platform == "EGL device") << info.platform;
  EXPECT_GT(info.max_shader_storage_block_size, 0u);
  EXPECT_NE(ctx.describe_choice({}).find(info.subgroup_arithmetic ? "reduce-then-scan" : "multipass"),
            std::string::npos);
  // The tuning profile, by GL_RENDERER (GL has no PCI IDs), and describe_choice cites it.
  if (info.renderer.starts_with("llvmpipe")) EXPECT_EQ(ctx.tuning_profile(), "lavapipe");
  EXPECT_FALSE(ctx.tuning_profile_source().empty());
  EXPECT_NE(ctx.describe_choice({}).find("profile " + std::string(ctx.tuning_profile())), std::string::npos);
  EXPECT_EQ(ctx.resolve(CompactPath::automatic), info.subgroup_ballot ? CompactPath::ballot : CompactPath::shared_memory);
  EXPECT_NE(gl::describe_scan_plan(ctx, 1000, {}).find("plan:"), std::string::npos);
}

// A second context becomes current on creation: calls on the first then fail clearly until it is
// made current again, and programs are per context.
TEST_F(GlMisuseTest, CurrentContextRules) {
  const std::vector<uint32_t> v = {3, 1, 7, 0, 4};
  {
    gl::Context other = gl::Context::create();
    EXPECT_EQ(gl::inclusive_scan(other, std::span<const uint32_t>(v)), (std::vector<uint32_t>{3, 4, 11, 11, 15}));
    EXPECT_EQ(error_of([&] { gl::inclusive_scan(ctx, std::span<const uint32_t>(v)); }), Errc::invalid_argument);
    ctx.make_current();
    EXPECT_EQ(error_of([&] { gl::inclusive_scan(other, std::span<const uint32_t>(v)); }), Errc::invalid_argument);
    other.make_current();
  }  // destroyed while current: nothing is current afterwards
  EXPECT_EQ(error_of([] { gl::Context::adopt_current(); }), Errc::unsupported);
  ctx.make_current();
  EXPECT_EQ(gl::inclusive_scan(ctx, std::span<const uint32_t>(v)), (std::vector<uint32_t>{3, 4, 11, 11, 15}));
  gl::Context adopted = gl::Context::adopt_current();
  EXPECT_EQ(adopted.info().platform, "adopted");
  EXPECT_EQ(gl::exclusive_scan(adopted, std::span<const uint32_t>(v)), (std::vector<uint32_t>{0, 3, 4, 11, 11}));
  EXPECT_EQ(error_of([&] { adopted.make_current(); }), Errc::invalid_argument);
}

}  // namespace
}  // namespace gpuscan::test
