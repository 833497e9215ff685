// Histograms on OpenGL (gpuscan/gl.hpp) against the CPU reference (cpu::histogram), with cases drawn at
// random from a fixed start (a failure names its round): every sample type GL runs, u32 and u64 counts, sizes
// 0, 1 and around workgroup and window boundaries, even and custom bins (empty ones, edges between sample
// values, more bins than shared memory holds), open and closed last bins, NaN, ±inf and -0.0, unaligned
// inputs, accumulation, counts from GPU memory. The counts lie between poisoned guards and temp is poisoned
// before every run. Then the fixed cases: the documented examples, the u64 counts' carry, refusals.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <sstream>

#include "gpuscan/reference.hpp"
#include "gl_test_support.hpp"
#include "histogram_samples.hpp"

namespace gpuscan::test {
namespace {

class GlHistogramTest : public GlTest {};

constexpr size_t kGuard = 3;  // poisoned counts before and after the counts

bool has_int64() { return gl_context().info().gpu_shader_int64; }

struct Run {
  HistogramConfig config;
  size_t in_offset = 0;                       // elements before the samples in their buffer
  const std::vector<uint64_t>* start = nullptr;  // with config.accumulate: the counts before
  std::optional<uint64_t> gpu_count;          // a count from GPU memory (the samples are its bound)
  bool wide_count = false;
};

// gl::record_histogram of `input` into counts between poisoned guards; temp poisoned. Returns the counts;
// with a count from GPU memory also checks its status word.
template <class T>
std::vector<uint64_t> run(const std::vector<T>& input, const HistogramBins& bins, const Run& how) {
  const gl::Context& ctx = gl_context();
  const size_t n = input.size();
  const uint32_t nb = bins.num_bins();
  HistogramConfig c = how.config;
  c.type = data_type_of<T>::value;
  const size_t cbytes = element_size(c.counts);
  std::vector<T> padded(how.in_offset + n);
  std::copy(input.begin(), input.end(), padded.begin() + static_cast<ptrdiff_t>(how.in_offset));
  GlBuffer in(std::max<size_t>(4, padded.size() * sizeof(T)), padded.empty() ? nullptr : padded.data());
  std::vector<unsigned char> counts_bytes = poison_bytes((nb + 2 * kGuard) * cbytes);
  if (how.start)
    for (uint32_t i = 0; i < nb; ++i) std::memcpy(counts_bytes.data() + (kGuard + i) * cbytes, &(*how.start)[i], cbytes);
  GlBuffer counts(counts_bytes.size(), counts_bytes.data());
  const gl::TempRequirements req = gl::histogram_temp_requirements(ctx, bins, c);
  GlBuffer temp(req.size, poison_bytes(req.size).data());
  const uint32_t words[4] = {static_cast<uint32_t>(how.gpu_count.value_or(0)),
                             static_cast<uint32_t>(how.gpu_count.value_or(0) >> 32), 0xA5A5A5A5u, 0};
  GlBuffer count_words(sizeof words, words);
  gl::HistogramArgs args{c, bins, n, n ? in.view(how.in_offset * sizeof(T)) : gl::BufferView{},
                         counts.view(kGuard * cbytes), temp.view()};
  if (how.gpu_count) args.count_from = gl::IndirectCount{count_words.view(), how.wide_count, count_words.view(8)};
  gl::record_histogram(ctx, args);
  buffer_update_barrier();
  const std::vector<unsigned char> got = counts.read<unsigned char>(0, counts_bytes.size());
  for (size_t i = 0; i < kGuard * cbytes; ++i) {
    EXPECT_EQ(got[i], 0xA5) << "guard byte " << i << " before the counts overwritten";
    EXPECT_EQ(got[(kGuard + nb) * cbytes + i], 0xA5) << "guard byte " << i << " after the counts overwritten";
  }
  if (how.gpu_count)
    EXPECT_EQ(count_words.read<uint32_t>(2, 1)[0], *how.gpu_count > n ? 1u : 0u) << "status word";
  std::vector<uint64_t> out(nb, 0);
  for (uint32_t i = 0; i < nb; ++i) std::memcpy(&out[i], got.data() + (kGuard + i) * cbytes, cbytes);
  return out;
}

// The range the samples of T are drawn around.
template <class T>
std::pair<double, double> range_of(std::mt19937_64& rng) {
  if constexpr (std::is_same_v<T, uint32_t>) return {static_cast<double>(rng() % 1000), 70000.0};
  else if constexpr (std::is_same_v<T, int32_t>) return {-5000.0, static_cast<double>(rng() % 3000)};
  else if constexpr (std::is_same_v<T, float>) return {-1.5, 2.25};
  else if constexpr (std::is_same_v<T, uint64_t>) return {1e15, 1e18};
  else if constexpr (std::is_same_v<T, int64_t>) return {-3e18, 5e3};
  else return {-1.5e-3, 2.25e300};
}

// Bins over [lo, hi]: even (1, 2, around 256 or past shared memory) or custom with empty bins and edges
// between sample values (fractions for integers; 0.1-like values that no float is).
HistogramBins draw_bins(double lo, double hi, std::mt19937_64& rng, std::ostream& what) {
  if (rng() % 2) {
    const uint32_t choices[] = {1, 2, 7, 255, 256, 257, kHistogramSharedBins, kHistogramSharedBins + 1, 1000};
    const uint32_t nb = choices[rng() % std::size(choices)];
    what << "even " << nb << " bins over [" << lo << ", " << hi << ")";
    return HistogramBins::even(nb, lo, hi);
  }
  std::uniform_real_distribution<double> u(lo, hi);
  std::vector<double> edges(2 + rng() % 40);
  for (double& e : edges) e = rng() % 5 == 0 ? std::floor(u(rng)) + 0.5 : u(rng);
  std::sort(edges.begin(), edges.end());
  if (edges.size() > 3) edges[2] = edges[1];  // an empty bin
  what << "custom " << edges.size() - 1 << " bins over [" << edges.front() << ", " << edges.back() << "]";
  return HistogramBins::custom(edges);
}

template <class T>
void random_case(std::mt19937_64& rng, size_t round) {
  const size_t w = 256;
  // Windows: under BindingCap 20000 bytes hold about 5000 4-byte or 2500 8-byte samples.
  bool windows = rng() % 4 == 0;
  const size_t window = 20000 / sizeof(T);
  const size_t sizes[] = {0, 1, w - 1, w, w + 1, 5 * w + 3, window - 1, window + 1, 3 * window, 2048 * w / 16 + 17,
                          static_cast<size_t>(rng() % 20000)};
  const size_t n = sizes[rng() % std::size(sizes)];
  const auto [lo, hi] = range_of<T>(rng);
  std::ostringstream what;
  what << "round " << round << ", " << to_string(data_type_of<T>::value) << " samples, n = " << n << ", ";
  const HistogramBins bins = draw_bins(lo, hi, rng, what);
  windows = windows && (bins.num_bins() + 1) * 8 <= 20000;  // the counts and edges fit one capped binding
  Run how;
  how.config.counts = rng() % 3 == 0 ? DataType::u64 : DataType::u32;
  how.config.last_bin_closed = rng() % 2;
  how.config.workgroup_size = rng() % 4 == 0 ? 64 : 0;
  // Samples per step with the default W: the default, or two others (each shape a program to compile).
  const uint32_t vectors[] = {0, 0, 2, 8};
  how.config.vectors_per_lane = how.config.workgroup_size == 0 ? vectors[rng() % 4] : 0;
  how.config.max_workgroups = rng() % 3 == 0 ? 1 + static_cast<uint32_t>(rng() % 9) : 0;
  how.in_offset = rng() % 3 == 0 ? rng() % 5 : 0;
  std::vector<uint64_t> start;
  if (rng() % 5 == 0) {
    how.config.accumulate = true;
    for (uint32_t i = 0; i < bins.num_bins(); ++i) start.push_back(rng() % 1000);
    how.start = &start;
  }
  std::vector<T> input = samples<T>(n, bins, rng);
  std::vector<T> counted = input;
  if (n > 0 && rng() % 4 == 0) {  // a count from GPU memory: below, at or above the bound
    const uint64_t choices[] = {0, n / 2, n, n + 1, (uint64_t{1} << 32) + 3};
    how.wide_count = rng() % 2;
    how.gpu_count = choices[rng() % (how.wide_count ? 5 : 4)];
    counted.resize(std::min<uint64_t>(*how.gpu_count, n));
  }
  what << ", " << to_string(how.config.counts) << " counts" << (how.config.last_bin_closed ? ", closed" : "")
       << (how.config.accumulate ? ", accumulate" : "") << ", W " << how.config.workgroup_size << ", vectors "
       << how.config.vectors_per_lane << ", at most " << how.config.max_workgroups << " workgroups, offset "
       << how.in_offset << (windows ? ", windows" : "");
  if (how.gpu_count) what << ", count from GPU memory " << *how.gpu_count;
  std::vector<uint64_t> want = cpu::histogram<T>(counted, bins.edges, how.config.last_bin_closed);
  for (size_t i = 0; i < start.size(); ++i) want[i] += start[i];
  std::optional<BindingCap> cap;
  if (windows) cap.emplace();
  EXPECT_EQ(run(input, bins, how), want) << what.str();
}

TEST_F(GlHistogramTest, RandomCasesMatchTheCpuReference) {
  const uint64_t seed = fresh_seed();  // drawn fresh each run; GPUSCAN_SEED replays one
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (size_t round = 0; round < 96; ++round) {
    switch (round % 6) {
      case 0: random_case<uint32_t>(rng, round); break;
      case 1: random_case<int32_t>(rng, round); break;
      case 2: random_case<float>(rng, round); break;
      case 3: if (has_int64()) random_case<uint64_t>(rng, round); break;
      case 4: if (has_int64()) random_case<int64_t>(rng, round); break;
      default: random_case<double>(rng, round); break;
    }
    if (HasFailure()) break;  // the first failing case is the one to read
  }
}

TEST_F(GlHistogramTest, DocumentedExamplesAndSpecialFloats) {
  const gl::Context& ctx = gl_context();
  const std::vector<uint32_t> doc = {1, 5, 9, 12, 5, 0};
  EXPECT_EQ(gl::histogram(ctx, std::span<const uint32_t>(doc), HistogramBins::even(3, 0, 12)),
            (std::vector<uint64_t>{2, 2, 1}));
  const std::vector<float> rec = {0.1f, 0.5f, 0.7f, 1.0f, -2.0f, 0.25f};
  EXPECT_EQ(run(rec, HistogramBins::even(4, 0, 1), {}), (std::vector<uint64_t>{1, 1, 2, 0}));
  EXPECT_EQ(gl::histogram_temp_requirements(ctx, HistogramBins::even(256, 0, 1), {.type = DataType::f32}).size, 1028u);
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  const std::vector<float> in = {-0.0f, 0.0f, nan, -nan, inf, -inf, -1.0f, 1.0f, 0.5f, -0.5f,
                                 std::nextafter(1.0f, 0.0f), std::nextafter(-1.0f, -2.0f)};
  EXPECT_EQ(run(in, HistogramBins::even(4, -1, 1), {}), (std::vector<uint64_t>{1, 1, 2, 2}));
  const HistogramBins infinite = HistogramBins::custom({-INFINITY, 0, INFINITY});
  for (bool closed : {false, true})
    EXPECT_EQ(run(in, infinite, {.config = {.last_bin_closed = closed}}), cpu::histogram<float>(in, infinite.edges, closed));
  // Upper edges between sample values: u32 {0, 0, 1, 5} in [0, 0.5] count 2; f32 0.1f lies above the double 0.1.
  EXPECT_EQ(run(std::vector<uint32_t>{0, 0, 1, 5}, HistogramBins::custom({0, 0.5}), {.config = {.last_bin_closed = true}}),
            (std::vector<uint64_t>{2}));
  EXPECT_EQ(run(std::vector<float>{0.1f, 0.05f}, HistogramBins::custom({0, 0.1}), {.config = {.last_bin_closed = true}}),
            (std::vector<uint64_t>{1}));
  // The full u32 range, whose upper edge no sample reaches; bins wholly above the type.
  const std::vector<uint32_t> full = {0u, UINT32_MAX, 1u << 24, (1u << 24) - 1, 77u};
  EXPECT_EQ(run(full, HistogramBins::even(256, 0, 4294967296.0), {}),
            cpu::histogram<uint32_t>(full, HistogramBins::even(256, 0, 4294967296.0).edges, false));
  const HistogramBins above = HistogramBins::custom({-1e12, 0, 4e9, 5e9, 6e9});
  EXPECT_EQ(run(full, above, {}), cpu::histogram<uint32_t>(full, above.edges, false));
  EXPECT_EQ(gl::histogram(ctx, std::span<const float>(), HistogramBins::even(5, 0, 1)), std::vector<uint64_t>(5, 0));
}

// u64 counts are pairs of 32-bit words on GL: a low word that wraps carries into the high word.
TEST_F(GlHistogramTest, WideCountsCarryIntoTheHighWord) {
  const std::vector<uint64_t> start = {0xFFFFFFF0u, (uint64_t{7} << 32) | 0xFFFFFFFFu, 5};
  std::vector<int32_t> in(100000, 1);  // all in bin 1: one shared counter, flushed once per workgroup
  in.insert(in.end(), 40, 0);
  in.push_back(2);
  std::vector<uint64_t> want = {start[0] + 40, start[1] + 100000, start[2] + 1};
  EXPECT_EQ(run(in, HistogramBins::even(3, 0, 3), {.config = {.counts = DataType::u64, .accumulate = true}, .start = &start}),
            want);
  // Past shared memory: every sample is one global atomic.
  const uint32_t nb = kHistogramSharedBins + 3;
  std::vector<uint64_t> many(nb, 0xFFFFFFFFu);
  std::vector<uint32_t> samples_in(5000, 9);
  std::vector<uint64_t> want_many = many;
  want_many[9] += 5000;
  EXPECT_EQ(run(samples_in, HistogramBins::even(nb, 0, nb), {.config = {.counts = DataType::u64, .accumulate = true},
                                                           .start = &many}),
            want_many);
}

TEST_F(GlHistogramTest, Refusals) {
  const gl::Context& ctx = gl_context();
  GlBuffer in(64 * 4), counts(16 * 4), temp(64 * 4);
  const HistogramBins four = HistogramBins::even(4, 0, 4);
  const gl::HistogramArgs good{{}, four, 64, in.view(), counts.view(), temp.view()};
  auto expect = [&](const gl::HistogramArgs& a, Errc code, const std::string& fragment) {
    const Error e = thrown_by([&] { gl::record_histogram(ctx, a); });
    EXPECT_EQ(e.code(), make_error_code(code)) << e.what();
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  };
  expect_common_refusals(good, in.view(32 * 4), counts.view(8), expect);
  gl::HistogramArgs a = good;
  a.count_from = gl::IndirectCount{counts.view(), false, {}};
  expect(a, Errc::invalid_argument, "count_from.buffer overlaps the counts");
  if (!has_int64()) {
    a = good;
    a.config.type = DataType::u64;
    expect(a, Errc::unsupported, "GL_ARB_gpu_shader_int64");
  }
  // Counts or an edge table past one binding: refused before anything is dispatched.
  const BindingCap cap;
  const Error e = thrown_by([&] { gl::histogram_temp_requirements(ctx, HistogramBins::even(6000, 0, 1), {}); });
  EXPECT_EQ(e.code(), make_error_code(Errc::too_large)) << e.what();
  EXPECT_NE(std::string(e.what()).find("GL_MAX_SHADER_STORAGE_BLOCK_SIZE"), std::string::npos) << e.what();
  const std::vector<double> d(10, 0.5);
  EXPECT_EQ(error_of([&] { gl::histogram(ctx, std::span<const double>(d), HistogramBins::even(2600, 0, 1)); }),
            Errc::too_large);
}

}  // namespace
}  // namespace gpuscan::test
