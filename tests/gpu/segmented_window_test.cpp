// Segmented scans longer than one storage-buffer binding (windows, core/segmented_plan.hpp) and with
// their count in GPU memory (SegmentedScanArgs::count_from), against the CPU reference
// (cpu::segmented_scan), outputs poisoned and guarded, fresh random data.
//
// A context that binds at most 20000 bytes (TestHooks::max_binding_bytes) makes small
// inputs span many windows: windows of whole small tiles (W = 32, K = 1: 4992 u32 elements with flags,
// 39 tiles), and, with the default tiles of 4096, windows smaller than one tile, so that window
// boundaries fall inside the tiles a one-window scan would use. Segments span boundaries, start exactly
// at them, or (keys) continue with equal keys across them; one segment covers everything. One test
// crosses lavapipe's real 128 MiB maxStorageBufferRange with 40 M u32 values.
#include <algorithm>
#include <map>

#include "core/scan_shape.hpp"
#include "core/segmented_plan.hpp"
#include "scan_check.hpp"
#include "segmented_check.hpp"
#include "segmented_record.hpp"
#include "vulkan/context_impl.hpp"

namespace gpuscan::test {
namespace {

constexpr uint64_t small_binding = 20000;

const Context& small_binding_context() {
  return cached_context("window " + std::to_string(small_binding), [] {
    TestHooks hooks;
    hooks.max_binding_bytes = small_binding;
    return make_validated_context({}, hooks);
  });
}

core::HeadSource source_of(SegmentHeads heads) {
  return heads == SegmentHeads::flags      ? core::HeadSource::flags
         : heads == SegmentHeads::keys_u32 ? core::HeadSource::keys32
                                           : core::HeadSource::keys64;
}

// The window the library picks (src/vulkan/segmented.cpp): whole tiles of what one binding holds of the
// values and the heads, less the key before it.
size_t window_of(const Context& ctx, const ScanConfig& c, SegmentHeads heads) {
  const core::TileShape shape = core::tile_shape(c.workgroup_size, c.vectors_per_lane,
                                                 core::workgroup_limits(ctx.device_info()), element_size(c.type));
  const uint64_t tile = uint64_t{shape.workgroup_size} * shape.vectors_per_lane * 4;
  const core::HeadSource source = source_of(heads);
  const uint32_t unit = std::max(element_size(c.type), core::head_unit_bytes(source));
  return core::segmented_window(impl_of(ctx).window_elements(unit), tile, source);
}

// What happens at the window boundaries k·w: whatever the pattern drew, a segment starts there, or none
// does (keys then stay equal across the boundary).
enum class Boundary { as_drawn, starts, continues };
const char* name(Boundary b) {
  return b == Boundary::as_drawn ? "" : b == Boundary::starts ? ", segments start at window boundaries"
                                                              : ", segments continue across window boundaries";
}

std::vector<uint8_t> make_window_starts(size_t n, Pattern pattern, Boundary boundary, size_t w, std::mt19937_64& rng) {
  auto starts = make_starts(n, pattern, rng);
  if (boundary != Boundary::as_drawn)
    for (size_t k = w; k < n; k += w) starts[k] = boundary == Boundary::starts;
  return starts;
}

template <class T>
void check_windowed(const Context& ctx, const ScanConfig& c, SegmentHeads kind, size_t n, Pattern pattern,
                    Boundary boundary, std::mt19937_64& rng, uint64_t seed, Placement at = {}) {
  const size_t w = window_of(ctx, c, kind);
  SCOPED_TRACE(std::string(to_string(c.type)) + " " + std::string(to_string(c.op)) + " " +
               std::string(to_string(c.kind)) + ", heads from " + std::string(to_string(kind)) + ", " + name(pattern) +
               name(boundary) + ", n = " + std::to_string(n) + " in windows of " + std::to_string(w) + ", W = " +
               std::to_string(c.workgroup_size) + ", K = " + std::to_string(c.vectors_per_lane) +
               (at.in_place ? ", in place" : "") + ", seed " + std::to_string(seed));
  const auto input = random_op_values<T>(n, c.op, rng);
  const auto starts = make_window_starts(n, pattern, boundary, w, rng);
  const auto heads = make_heads(starts, kind, rng);
  const auto r = record_segmented(ctx, input, heads, kind, c, at);
  EXPECT_TRUE(r.guards_intact) << "the scan wrote outside its output range";
  EXPECT_TRUE(matches_segmented(input, starts, r.output, c.kind, c.op));
}

// Sizes around the window boundaries, up to six windows.
std::vector<size_t> window_sizes(size_t w, std::mt19937_64& rng) {
  return {w - 1, w, w + 1, 2 * w, 3 * w + 5, std::uniform_int_distribution<size_t>(w + 2, 6 * w)(rng)};
}

class SegmentedWindowTest : public GpuTest {};

// u32 add with every head source, kind, pattern and boundary case, in windows of whole small tiles and
// in windows smaller than the default tile.
TEST_F(SegmentedWindowTest, WindowBoundaries) {
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  const Context& ctx = small_binding_context();
  int turn = 0;
  for (bool small : {true, false})
    for (ScanKind kind : {ScanKind::exclusive, ScanKind::inclusive})
      for (SegmentHeads heads : {SegmentHeads::flags, SegmentHeads::keys_u32, SegmentHeads::keys_u64}) {
        ScanConfig c = small_tiles(DataType::u32, Op::add, kind);
        if (!small) c.workgroup_size = c.vectors_per_lane = 0;  // the default tile of 4096 elements
        for (size_t n : window_sizes(window_of(ctx, c, heads), rng)) {
          const Pattern pattern = std::array{Pattern::random, Pattern::one_segment, Pattern::singletons}[turn % 3];
          const Boundary boundary = std::array{Boundary::as_drawn, Boundary::starts, Boundary::continues}[turn / 3 % 3];
          ++turn;
          check_windowed<uint32_t>(ctx, c, heads, n, pattern, boundary, rng, seed);
        }
      }
}

// Every type with one of its operators (flags exclusive, keys inclusive), and the convenience calls.
TEST_F(SegmentedWindowTest, TypesAndOperators) {
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  const Context& ctx = small_binding_context();
  struct TypeOp {
    DataType type;
    Op op;
  };
  int turn = 0;
  for (const TypeOp t : {TypeOp{DataType::i32, Op::max}, TypeOp{DataType::f32, Op::add}, TypeOp{DataType::u64, Op::add},
                         TypeOp{DataType::i64, Op::mul}, TypeOp{DataType::f64, Op::min},
                         TypeOp{DataType::u32, Op::bit_xor}})
    visit_type(t.type, [&](auto tag) {
      using T = decltype(tag);
      const SegmentHeads keys = turn++ % 2 ? SegmentHeads::keys_u64 : SegmentHeads::keys_u32;
      const ScanConfig ex = small_tiles(t.type, t.op, ScanKind::exclusive);
      const ScanConfig in = small_tiles(t.type, t.op, ScanKind::inclusive);
      const size_t w = window_of(ctx, in, keys);
      for (size_t n : {w + 1, 3 * w + 5}) {
        check_windowed<T>(ctx, ex, SegmentHeads::flags, n, Pattern::random, Boundary::starts, rng, seed);
        check_windowed<T>(ctx, in, keys, n, Pattern::random, Boundary::continues, rng, seed);
      }
    });
  // The convenience calls: the library's own buffers, windowed alike.
  const size_t w = window_of(ctx, ScanConfig{}, SegmentHeads::keys_u64);
  const size_t n = 3 * w + 7;
  const auto values = random_values<uint32_t>(n, rng);
  const auto starts = make_window_starts(n, Pattern::random, Boundary::continues, w, rng);
  const auto flags = make_heads(starts, SegmentHeads::flags, rng);
  const auto keys = make_heads(starts, SegmentHeads::keys_u64, rng);
  ScanConfig c;
  const auto ex = segmented_scan(ctx, std::span<const uint32_t>(values),
                                 std::span(reinterpret_cast<const uint32_t*>(flags.data()), n), c);
  EXPECT_TRUE(matches_segmented(values, starts, ex, ScanKind::exclusive, Op::add)) << "seed " << seed;
  c.kind = ScanKind::inclusive;
  const auto in = segmented_scan_by_key(ctx, std::span(reinterpret_cast<const uint64_t*>(keys.data()), n),
                                        std::span<const uint32_t>(values), c);
  EXPECT_TRUE(matches_segmented(values, starts, in, ScanKind::inclusive, Op::add)) << "seed " << seed;
}

// In place (output == input) across windows: an exclusive scan saves each window's last input before the
// window overwrites it. Unaligned offsets too.
TEST_F(SegmentedWindowTest, InPlaceAndUnaligned) {
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  const Context& ctx = small_binding_context();
  for (ScanKind kind : {ScanKind::exclusive, ScanKind::inclusive})
    for (SegmentHeads heads : {SegmentHeads::flags, SegmentHeads::keys_u32}) {
      const ScanConfig c = small_tiles(DataType::u32, Op::add, kind);
      const size_t w = window_of(ctx, c, heads);
      check_windowed<uint32_t>(ctx, c, heads, 3 * w + 5, Pattern::random, Boundary::continues, rng, seed,
                               {0, 2, 37, true});
      check_windowed<uint32_t>(ctx, c, heads, 2 * w + 1, Pattern::one_segment, Boundary::as_drawn, rng, seed,
                               {3, 1, 37, false});
    }
}

// Past lavapipe's real maxStorageBufferRange (128 MiB): 40 M u32 values (160 MB, two windows of 8191
// tiles), with flags (random segments, one starting exactly at the window boundary) and with u32 keys
// (one segment across everything, its key equal across the boundary).
TEST_F(SegmentedWindowTest, BeyondTheDevicesBindingLimit) {
  const Context& ctx = shared_context();
  const size_t n = 40'000'000;
  if (ctx.device_info().max_storage_buffer_range >= n * 4) GTEST_SKIP() << "one binding holds 160 MB here";
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  ScanConfig c;
  check_windowed<uint32_t>(ctx, c, SegmentHeads::flags, n, Pattern::random, Boundary::starts, rng, seed);
  c.kind = ScanKind::inclusive;
  check_windowed<uint32_t>(ctx, c, SegmentHeads::keys_u32, n, Pattern::one_segment, Boundary::continues, rng, seed);
}

class SegmentedIndirectTest : public GpuTest {
 protected:
  // Scans `bound` elements with `count` in GPU memory; checks the scanned prefix, the untouched tail and
  // the status word.
  template <class T>
  void check(const ScanConfig& c, SegmentHeads kind, size_t bound, uint64_t count, bool is_64bit,
             std::mt19937_64& rng, uint64_t seed) {
    SCOPED_TRACE(std::string(to_string(c.type)) + " " + std::string(to_string(c.kind)) + ", heads from " +
                 std::string(to_string(kind)) + ", bound " + std::to_string(bound) + ", count " + std::to_string(count) +
                 (is_64bit ? " (u64)" : "") + ", seed " + std::to_string(seed));
    const auto input = random_op_values<T>(bound, c.op, rng);
    const auto starts = make_starts(bound, Pattern::random, rng);
    const auto heads = make_heads(starts, kind, rng);
    GpuCount from{count, is_64bit};
    const auto r = record_segmented(shared_context(), input, heads, kind, c, {}, &from);
    EXPECT_TRUE(r.guards_intact);
    EXPECT_EQ(from.status, count > bound ? 1u : 0u) << "status word";
    const size_t n = static_cast<size_t>(std::min<uint64_t>(count, bound));
    const std::vector<T> prefix(input.begin(), input.begin() + n);
    const std::vector<uint8_t> prefix_starts(starts.begin(), starts.begin() + n);
    EXPECT_TRUE(matches_segmented(prefix, prefix_starts, std::vector<T>(r.output.begin(), r.output.begin() + n),
                                  c.kind, c.op));
    std::vector<T> poisoned(1);
    poison(poisoned.data(), sizeof(T));
    size_t touched = 0;
    for (size_t i = n; i < bound; ++i) touched += std::memcmp(&r.output[i], poisoned.data(), sizeof(T)) != 0;
    EXPECT_EQ(touched, 0u) << "elements past the count were written";
  }
};

// Counts 0, 1, around a tile, any, the bound, and above it (clamped, status 1), u32 and u64 counts
// (a u64 count above the bound in its high word only), over one to three levels; a bound of 0.
TEST_F(SegmentedIndirectTest, CountsUpToAndPastTheBound) {
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  const size_t b = 128;
  int turn = 0;
  for (size_t bound : {b - 1, b + 1, b * b + 3}) {
    const size_t any = std::uniform_int_distribution<size_t>(0, bound)(rng);
    for (uint64_t count : {size_t{0}, size_t{1}, std::min(b, bound), std::min(b + 1, bound), any, bound, bound + 5}) {
      const ScanKind kind = turn % 2 ? ScanKind::inclusive : ScanKind::exclusive;
      const SegmentHeads heads = std::array{SegmentHeads::flags, SegmentHeads::keys_u32, SegmentHeads::keys_u64}[turn % 3];
      ++turn;
      check<uint32_t>(small_tiles(DataType::u32, Op::add, kind), heads, bound, count, false, rng, seed);
    }
    check<uint32_t>(small_tiles(DataType::u32, Op::add, ScanKind::exclusive), SegmentHeads::flags, bound,
                    (uint64_t{1} << 32) + 3, true, rng, seed);
    check<uint32_t>(small_tiles(DataType::u32, Op::add, ScanKind::inclusive), SegmentHeads::keys_u32, bound,
                    bound / 2, true, rng, seed);
  }
  // A bound of 0: nothing scanned, the status still written.
  check<uint32_t>(small_tiles(DataType::u32, Op::add, ScanKind::exclusive), SegmentHeads::flags, 0, 0, false, rng, seed);
  check<uint32_t>(small_tiles(DataType::u32, Op::add, ScanKind::inclusive), SegmentHeads::keys_u32, 0, 3, false, rng,
                  seed);
  check<double>(small_tiles(DataType::f64, Op::min, ScanKind::inclusive), SegmentHeads::keys_u64, b * b + 3, b + 2,
                false, rng, seed);
  check<int32_t>(small_tiles(DataType::i32, Op::max, ScanKind::exclusive), SegmentHeads::flags, b * b + 3, b * 7,
                 false, rng, seed);
}

// Misuse of count_from and of windows.
class SegmentedIndirectMisuseTest : public GpuTest {
 protected:
  // Buffers of `bytes` each (temp with the indirect usage) for a u32 scan with its count in GPU memory.
  struct Buffers {
    static constexpr VkBufferUsageFlags temp_usage =
        VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT;
    HostBuffer<uint32_t> in, heads, out, count, temp;
    Buffers(const Context& ctx, size_t bytes)
        : in(ctx, bytes), heads(ctx, bytes), out(ctx, bytes), count(ctx, 64), temp(ctx, 4096, temp_usage) {}
    SegmentedScanArgs args(uint64_t bound) const {
      SegmentedScanArgs a;
      a.config = small_tiles(DataType::u32, Op::add, ScanKind::exclusive);
      a.count = bound;
      a.input = in.view();
      a.heads = heads.view();
      a.output = out.view();
      a.temp = temp.view();
      a.count_from = IndirectCount{count.view()};
      return a;
    }
  };
};

TEST_F(SegmentedIndirectMisuseTest, CountsAndBounds) {
  const Context& ctx = shared_context();
  const Buffers one(ctx, 4096);
  const SegmentedScanArgs a = one.args(1000);
  one.count.data()[0] = 10;
  vk::submit_and_wait(ctx, [&](VkCommandBuffer cmd) { record_segmented_scan(ctx, cmd, a); });  // the valid baseline
  SegmentedScanArgs b = a;
  b.count_from->buffer = one.out.view(16);
  expect_segmented_error(ctx, b, Errc::invalid_argument, "the count overlaps the output or temp range");
  b = a;
  b.count_from->status = one.count.view();
  expect_segmented_error(ctx, b, Errc::invalid_argument, "the status word overlaps the count");
  b = a;
  HostBuffer<uint32_t> plain_temp(ctx, 4096);
  b.temp = plain_temp.view();
  expect_segmented_error(ctx, b, Errc::missing_usage, "temp buffer lacks VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT");
  b = a;
  b.count_from->buffer.offset = 2;
  expect_segmented_error(ctx, b, Errc::misaligned, "count offset 2");
  // A bound past one window: windows cannot take a count in GPU memory.
  const Context& small = small_binding_context();
  const Buffers big(small, 40000);
  b = big.args(10000);
  expect_segmented_error(small, b, Errc::too_large, "must fit one binding");
  b.count_from.reset();  // without one, windows run (temp is large enough)
  vk::submit_and_wait(small, [&](VkCommandBuffer cmd) { record_segmented_scan(small, cmd, b); });
}

}  // namespace
}  // namespace gpuscan::test
