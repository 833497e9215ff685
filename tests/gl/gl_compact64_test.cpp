// 64-bit compaction on OpenGL (u64, i64, f64) through the record-level calls, drawn at random: sizes 0, 1
// and around tile boundaries, tile shapes, nothing / everything / some kept, every predicate kind (run
// starts too) and flags, selections and partitions, element offsets that break the 16-byte vectors; the
// values hold the predicate's constants, repeats and, for f64, NaN, -0.0 and the infinities. The output
// is poisoned before every run, and what lies outside the written range must stay poisoned. Expected
// results come from Predicate::holds on the host (std::copy_if and std::stable_partition).
#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "gl_test_support.hpp"

namespace gpuscan::test {
namespace {

template <class T>
using Bits = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;

// A random predicate of any kind whose constants are often values of `in` (so equal, the bounds of
// in_range and the like are met), for T.
template <class T>
Predicate draw_predicate(const std::vector<T>& in, std::mt19937_64& rng) {
  auto constant = [&]() -> uint64_t {
    if (!in.empty() && rng() % 2) return Predicate::bits(in[rng() % in.size()]);
    return Predicate::bits(random_values<T>(1, rng)[0]);
  };
  Predicate p{static_cast<PredicateKind>(rng() % (static_cast<uint32_t>(PredicateKind::run_start) + 1))};
  p.a = p.kind == PredicateKind::bits_set ? rng() >> (rng() % 64) : constant();
  p.b = constant();
  if (p.kind == PredicateKind::in_range && Predicate::value<T>(p.b) < Predicate::value<T>(p.a)) std::swap(p.a, p.b);
  return p;
}

// Random values with, now and then, repeats of the one before (runs), zeros and for floats the special
// values.
template <class T>
std::vector<T> draw_values(size_t n, std::mt19937_64& rng) {
  std::vector<T> v = random_values<T>(n, rng);
  using Limits = std::numeric_limits<T>;
  for (size_t i = 0; i < n; ++i) {
    const uint64_t r = rng() % 16;
    if (r < 4 && i > 0) v[i] = v[i - 1];
    else if (r == 4) v[i] = T(0);
    else if (r == 5) v[i] = Limits::max();
    if constexpr (std::is_floating_point_v<T>) {
      const T specials[] = {T(-0.0), Limits::quiet_NaN(), -Limits::quiet_NaN(), Limits::infinity(), -Limits::infinity()};
      if (r == 6) v[i] = specials[rng() % std::size(specials)];
    }
  }
  return v;
}

template <class T>
void check_draw(const gl::Context& ctx, std::mt19937_64& rng, uint64_t start) {
  constexpr uint32_t esize = sizeof(T);
  const uint32_t w = 32u << (rng() % 3);  // 32, 64, 128
  const uint32_t k = 1u << (rng() % 2);   // 1, 2
  const size_t tile = size_t{w} * k * 4;
  const size_t near[] = {0, 1, 2, tile - 1, tile, tile + 1, 2 * tile - 1, 2 * tile + 1, 7 * tile,
                         (rng() % 40) * tile + rng() % 3, rng() % 20000};
  const size_t n = near[rng() % std::size(near)];
  std::vector<T> in = draw_values<T>(n, rng);
  const bool flagged = rng() % 3 == 0;
  const bool partition = rng() % 2 == 0;
  // How much is kept: nothing, everything, or a random share (flags), else as the predicate has it.
  const uint32_t keeping = rng() % 4;  // 0 nothing, 1 everything, else some
  std::vector<uint32_t> flags(n);
  for (auto& f : flags) f = keeping == 0 ? 0u : keeping == 1 ? 1u + static_cast<uint32_t>(rng() % 7) : static_cast<uint32_t>(rng() % 2);
  Predicate p = draw_predicate(in, rng);
  if (!flagged && keeping < 2) {  // no zeros (nor -0.0): equal to 0 keeps nothing, not_equal everything
    std::replace(in.begin(), in.end(), T(0), T(1));
    p = keeping == 0 ? Predicate::equal<T>(T(0)) : Predicate::not_equal<T>(T(0));
  }

  std::vector<T> kept, rejected;
  for (size_t i = 0; i < n; ++i) {
    const bool keep = flagged ? flags[i] != 0 : p.holds(in[i], i ? &in[i - 1] : nullptr);
    (keep ? kept : rejected).push_back(in[i]);
  }
  const size_t written = partition ? n : kept.size();

  // Element offsets 0..3 of the input and output (1 and 3 break the vector loads), words for the rest.
  const size_t in_at = rng() % 4, out_at = rng() % 4, flags_at = rng() % 4, count_at = rng() % 4, tail = 5;
  std::vector<T> staged(in_at + std::max<size_t>(n, 1));
  std::copy(in.begin(), in.end(), staged.begin() + in_at);
  std::vector<uint32_t> staged_flags(flags_at + std::max<size_t>(n, 1));
  std::copy(flags.begin(), flags.end(), staged_flags.begin() + flags_at);
  const size_t out_elements = out_at + n + tail;
  const auto poisoned = poison_bytes(out_elements * esize);
  const CompactConfig cfg{data_type_of<T>::value, CompactPath::automatic, w, k};
  const gl::TempRequirements req = gl::compact_temp_requirements(ctx, n, cfg);
  const auto poisoned_temp = poison_bytes(req.size + 8);
  GlBuffer input(staged.size() * esize, staged.data()), output(poisoned.size(), poisoned.data()),
      flag_buffer(staged_flags.size() * 4, staged_flags.data()), count(32, poison_bytes(32).data()),
      temp(poisoned_temp.size(), poisoned_temp.data());
  const gl::SelectArgs args{cfg,           n, input.view(in_at * esize), flag_buffer.view(flags_at * 4), p,
                            output.view(out_at * esize), count.view(count_at * 4), temp.view(4)};
  if (flagged) (partition ? gl::record_partition_flagged : gl::record_select_flagged)(ctx, args);
  else (partition ? gl::record_partition_if : gl::record_select_if)(ctx, args);
  buffer_update_barrier();

  std::ostringstream what;
  what << to_string(data_type_of<T>::value) << (partition ? " partition" : " select")
       << (flagged ? " flagged" : " by " + std::string(to_string(p.kind))) << " a=0x" << std::hex << p.a << " b=0x" << p.b
       << std::dec << " n=" << n << " W=" << w << " K=" << k << " offsets " << in_at << "/" << out_at << "/" << flags_at
       << " start value " << start;
  const auto counts = count.read<uint32_t>(0, 8);
  for (size_t i = 0; i < 8; ++i)
    ASSERT_EQ(counts[i], i == count_at ? static_cast<uint32_t>(kept.size()) : 0xA5A5A5A5u) << "count word " << i << ", " << what.str();
  std::vector<T> want = kept;
  if (partition) want.insert(want.end(), rejected.begin(), rejected.end());
  const auto got = output.read<Bits<T>>(0, out_elements);
  constexpr Bits<T> poison_word = static_cast<Bits<T>>(0xA5A5A5A5A5A5A5A5u);
  for (size_t i = 0; i < out_elements; ++i) {
    const bool inside = i >= out_at && i < out_at + written;
    const Bits<T> expected = inside ? static_cast<Bits<T>>(Predicate::bits(want[i - out_at])) : poison_word;
    ASSERT_EQ(got[i], expected) << "output element " << i << (inside ? "" : " (outside the written range)") << ", "
                                << what.str();
  }
}

class GlCompact64Test : public GlTest {
 protected:
  void SetUp() override {
    if (!gl_context().info().gpu_shader_int64) GTEST_SKIP() << "no GL_ARB_gpu_shader_int64";
  }
};

TEST_F(GlCompact64Test, RandomDrawsMatchTheHost) {
  const gl::Context& ctx = gl_context();
  const uint64_t start = fresh_seed();  // drawn fresh each run; GPUSCAN_SEED replays one
  std::mt19937_64 rng(start);
  for (int draw = 0; draw < 30; ++draw) {
    switch (draw % 3) {
      case 0: check_draw<uint64_t>(ctx, rng, start); break;
      case 1: check_draw<int64_t>(ctx, rng, start); break;
      default: check_draw<double>(ctx, rng, start); break;
    }
    if (HasFatalFailure()) return;
  }
}

// Without GL_ARB_gpu_shader_int64, u64 and i64 are refused naming the extension (f64 is core GL 4.0).
TEST_F(GlTest, Compact64NamesTheMissingExtension) {
  const gl::Context& ctx = gl_context();
  EXPECT_TRUE(refused_without_int64([&] { gl::compact_temp_requirements(ctx, 10, {DataType::i64}); }));
  EXPECT_NO_THROW(gl::compact_temp_requirements(ctx, 10, {DataType::f64}));
}

}  // namespace
}  // namespace gpuscan::test
