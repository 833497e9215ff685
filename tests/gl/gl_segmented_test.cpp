// Segmented scans on OpenGL (gl::record_segmented_scan, gl::segmented_scan*) against the CPU reference,
// with the Vulkan suite's segment patterns and heads (gpu/segmented_check.hpp): every type x operator
// (exclusive with flags, inclusive with u32 or u64 keys), the boundary sweep around the tiles and
// levels (W = 32, K = 1: B = 128) for every head source, kind and pattern, unaligned offsets and in
// place, output poisoned between guards, temp poisoned; the convenience calls; misuse. On GL these run
// the subgroup-free segmented kernels (.no_subgroups), so llvmpipe runs all of it.
#include "gl_test_support.hpp"
#include "segmented_check.hpp"

namespace gpuscan::test {
namespace {

constexpr size_t b = 128;


// Scans on fresh buffers: input from element `offset`, heads from unit `offset`, output after 37 poisoned
// guard elements (off vector alignment), temp poisoned; in place when asked.
template <class T>
void gl_check_segmented(const ScanConfig& config, SegmentHeads kind, size_t n, Pattern pattern, std::mt19937_64& rng,
                        uint64_t seed, size_t offset = 0, bool in_place = false) {
  SCOPED_TRACE(std::string(to_string(config.type)) + " " + std::string(to_string(config.op)) + " " +
               std::string(to_string(config.kind)) + ", heads from " + std::string(to_string(kind)) + ", " +
               name(pattern) + ", n = " + std::to_string(n) + ", offset " + std::to_string(offset) +
               (in_place ? ", in place" : "") + ", seed " + std::to_string(seed));
  constexpr size_t guard = 37;
  const auto input = random_op_values<T>(n, config.op, rng);
  const auto starts = make_starts(n, pattern, rng);
  const auto heads = make_heads(starts, kind, rng);
  const size_t unit = kind == SegmentHeads::keys_u64 ? 8 : 4;
  std::vector<T> staged(offset + n + 1);
  std::copy(input.begin(), input.end(), staged.begin() + offset);
  GlBuffer in(staged.size() * sizeof(T), staged.data());
  std::vector<std::byte> staged_heads(offset * unit + heads.size() + 8);
  std::copy(heads.begin(), heads.end(), staged_heads.begin() + offset * unit);
  GlBuffer head_buffer(staged_heads.size(), staged_heads.data());
  const auto poisoned = poison_bytes((n + 2 * guard) * sizeof(T));
  auto out_bytes = poisoned;
  if (in_place && n) std::memcpy(out_bytes.data() + guard * sizeof(T), input.data(), n * sizeof(T));
  GlBuffer out(out_bytes.size(), out_bytes.data());
  const gl::TempRequirements req = gl::segmented_scan_temp_requirements(gl_context(), n, config);
  const auto poisoned_temp = poison_bytes(req.size + 64);
  GlBuffer temp(poisoned_temp.size(), poisoned_temp.data());
  gl::SegmentedScanArgs args{config, kind, n, in.view(offset * sizeof(T)), head_buffer.view(offset * unit),
                             out.view(guard * sizeof(T)), temp.view()};
  if (in_place) args.input = args.output;
  gl::record_segmented_scan(gl_context(), args);
  buffer_update_barrier();
  const auto all = out.read<T>(0, n + 2 * guard);
  EXPECT_EQ(std::memcmp(all.data(), poisoned.data(), guard * sizeof(T)), 0) << "written before the output";
  EXPECT_EQ(std::memcmp(all.data() + guard + n, poisoned.data(), guard * sizeof(T)), 0) << "written after the output";
  EXPECT_TRUE(matches_segmented(input, starts, std::vector<T>(all.begin() + guard, all.begin() + guard + n),
                                config.kind, config.op));
}

TEST_F(GlTest, SegmentedEveryTypeAndOperator) {
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  int pair = 0;
  for (DataType type : {DataType::u32, DataType::i32, DataType::f32, DataType::u64, DataType::i64, DataType::f64}) {
    if ((type == DataType::u64 || type == DataType::i64) && !gl_context().info().gpu_shader_int64) continue;
    for (Op op : {Op::add, Op::min, Op::max, Op::mul, Op::bit_and, Op::bit_or, Op::bit_xor}) {
      if (!op_supports(op, type)) continue;
      const SegmentHeads keys = pair++ % 2 ? SegmentHeads::keys_u64 : SegmentHeads::keys_u32;
      visit_type(type, [&](auto tag) {
        using T = decltype(tag);
        const size_t sizes[4] = {1, b - 1, b + 1, std::uniform_int_distribution<size_t>(2, b * b + b)(rng)};
        for (size_t i = 0; i < 4; ++i) {
          const Pattern pattern = std::array{Pattern::random, Pattern::singletons, Pattern::one_segment,
                                             Pattern::random}[(i + pair) % 4];
          gl_check_segmented<T>(small_tiles(type, op, ScanKind::exclusive), SegmentHeads::flags, sizes[i], pattern,
                                rng, seed, i % 2);
          gl_check_segmented<T>(small_tiles(type, op, ScanKind::inclusive), keys, sizes[i], pattern, rng, seed);
        }
      });
    }
  }
}

// Around every tile and level boundary (B^3 + 1: four levels), every head source, kind and pattern;
// in place; another tile shape.
TEST_F(GlTest, SegmentedBoundarySizesAndInPlace) {
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  std::vector<size_t> sizes = {0, 1, 2, 5, b - 1, b, b + 1, 2 * b + 3, b * b - 1, b * b, b * b + 1};
  sizes.push_back(std::uniform_int_distribution<size_t>(b * b + 2, 3 * b * b)(rng));
  for (ScanKind kind : {ScanKind::exclusive, ScanKind::inclusive})
    for (SegmentHeads heads : {SegmentHeads::flags, SegmentHeads::keys_u32, SegmentHeads::keys_u64})
      for (Pattern pattern : {Pattern::singletons, Pattern::random, Pattern::one_segment})
        for (size_t n : sizes) {
          gl_check_segmented<uint32_t>(small_tiles(DataType::u32, Op::add, kind), heads, n, pattern, rng, seed);
          gl_check_segmented<float>(small_tiles(DataType::f32, Op::add, kind), heads, n, pattern, rng, seed, 3);
        }
  gl_check_segmented<uint32_t>(small_tiles(DataType::u32, Op::add, ScanKind::exclusive), SegmentHeads::flags,
                               b * b * b + 1, Pattern::random, rng, seed);
  for (ScanKind kind : {ScanKind::exclusive, ScanKind::inclusive})
    gl_check_segmented<double>(small_tiles(DataType::f64, Op::max, kind), SegmentHeads::keys_u64, b * b + 7,
                               Pattern::random, rng, seed, 0, true);
  ScanConfig other = small_tiles(DataType::i32, Op::min, ScanKind::inclusive);
  other.workgroup_size = 64;
  other.vectors_per_lane = 2;
  for (size_t n : {size_t{511}, size_t{513}, size_t{3 * 512 + 17}})
    gl_check_segmented<int32_t>(other, SegmentHeads::flags, n, Pattern::random, rng, seed, 1);
}

TEST_F(GlTest, SegmentedConvenienceCallsAndMisuse) {
  const gl::Context& ctx = gl_context();
  const std::vector<uint32_t> v = {3, 1, 7, 0, 4, 1, 6, 3};
  const std::vector<uint32_t> flags = {1, 0, 0, 1, 0, 1, 0, 0};
  EXPECT_EQ(gl::segmented_scan(ctx, std::span<const uint32_t>(v), std::span<const uint32_t>(flags)),
            (std::vector<uint32_t>{0, 3, 4, 0, 0, 0, 1, 7}));
  ScanConfig inclusive;
  inclusive.kind = ScanKind::inclusive;
  const std::vector<uint64_t> keys = {9, 9, 9, 4, 4, 9, 9, 9};
  EXPECT_EQ(gl::segmented_scan_by_key(ctx, std::span<const uint64_t>(keys), std::span<const uint32_t>(v), inclusive),
            (std::vector<uint32_t>{3, 4, 11, 0, 4, 1, 7, 10}));
  EXPECT_NE(gl::describe_segmented_scan_plan(ctx, 100000, {}).find("seg_reduce_tiles"), std::string::npos);
  const std::vector<uint32_t> short_flags = {1, 0};
  EXPECT_EQ(error_of([&] { gl::segmented_scan(ctx, std::span<const uint32_t>(v), std::span<const uint32_t>(short_flags)); }),
            Errc::invalid_argument);
  GlBuffer in(4096), heads(4096), out(4096), temp(4096);
  const gl::SegmentedScanArgs ok{small_tiles(DataType::u32, Op::add, ScanKind::exclusive), SegmentHeads::flags, 1000,
                                 in.view(), heads.view(), out.view(), temp.view()};
  auto a = ok;
  a.heads = {};
  EXPECT_EQ(error_of([&] { gl::record_segmented_scan(ctx, a); }), Errc::null_handle);
  a = ok;
  a.heads = out.view(64);  // inside the output
  EXPECT_EQ(error_of([&] { gl::record_segmented_scan(ctx, a); }), Errc::invalid_argument);
  a = ok;
  a.heads_kind = SegmentHeads::keys_u64;  // 8000 bytes of keys
  EXPECT_EQ(error_of([&] { gl::record_segmented_scan(ctx, a); }), Errc::buffer_too_small);
  a = ok;
  a.heads_kind = static_cast<SegmentHeads>(7);
  EXPECT_EQ(error_of([&] { gl::record_segmented_scan(ctx, a); }), Errc::invalid_argument);
  a = ok;
  a.input.offset = 2;
  EXPECT_EQ(error_of([&] { gl::record_segmented_scan(ctx, a); }), Errc::misaligned);
  a = ok;
  a.config.algorithm = Algorithm::multipass;
  EXPECT_EQ(error_of([&] { gl::record_segmented_scan(ctx, a); }), Errc::unsupported);
  a = ok;
  a.config.custom_op = CustomOp{"#define T uint\nT identity() { return 0u; }\nT combine(T a, T b) { return a + b; }\n"};
  EXPECT_EQ(error_of([&] { gl::record_segmented_scan(ctx, a); }), Errc::unsupported);
}

}  // namespace
}  // namespace gpuscan::test
