// Run-length encoding on OpenGL (gpuscan/gl.hpp) against the CPU reference (cpu::runs), with cases drawn
// at random from a fresh start (a failure names its round and the seed): every element type,
// sizes 0, 1 and around tile boundaries, runs of length 1 (all distinct), one run, short and long runs
// crossing tiles, NaN (each its own run) and -0.0 == 0.0; encode with and without offsets and the
// non-trivial runs, through the record calls with every output poisoned one element past the worst case
// (which must stay so), and the convenience calls. Then the documented examples and the refusals.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>

#include "gpuscan/reference.hpp"
#include "gl_test_support.hpp"

namespace gpuscan::test {
namespace {

class GlRunLengthTest : public GlTest {};

constexpr uint32_t kPoison = 0xA5A5A5A5u;

// n elements in runs: every run 1 long (`max_run` 1), one run (`max_run` >= n), or 1..max_run long,
// their values from a small alphabet (so neighbouring runs may hold equal values and merge) with, for
// floats, NaN, ±0 and ±inf.
template <class T>
std::vector<T> runs_of(size_t n, size_t max_run, std::mt19937_64& rng) {
  std::vector<T> alphabet = random_values<T>(5, rng);
  if constexpr (std::is_floating_point_v<T>) {
    using Limits = std::numeric_limits<T>;
    alphabet.insert(alphabet.end(), {T(0), T(-0.0), Limits::quiet_NaN(), Limits::infinity(), -Limits::infinity()});
  }
  std::vector<T> v;
  while (v.size() < n) {
    const T x = max_run == 1 ? static_cast<T>(v.size()) : alphabet[rng() % alphabet.size()];
    v.insert(v.end(), std::min<size_t>(1 + rng() % max_run, n - v.size()), x);
  }
  return v;
}

// Bitwise equality, so that NaN values compare as stored.
template <class T>
void expect_bits(const std::vector<T>& got, const std::vector<T>& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i)
    if (std::memcmp(&got[i], &want[i], sizeof(T)) != 0) {
      ADD_FAILURE() << what << ": element " << i << " of " << got.size() << " is " << got[i] << ", not " << want[i];
      return;
    }
}

// gl::record_run_length_encode (with offsets or not) or gl::record_non_trivial_runs of `in`, every output
// poisoned and one element longer than the worst case, temp poisoned; checks the runs and that nothing
// past them was written.
template <class T>
void check_record(const std::vector<T>& in, const CompactConfig& config, bool edges, bool with_offsets,
                  const std::string& what) {
  const gl::Context& ctx = gl_context();
  const size_t n = in.size();
  const cpu::Runs<T> want = cpu::runs<T>(in);
  std::vector<uint32_t> want_offsets, want_lengths;
  for (size_t r = 0; r < want.lengths.size(); ++r)
    if (!edges || want.lengths[r] > 1) want_offsets.push_back(want.starts[r]), want_lengths.push_back(want.lengths[r]);
  const size_t room = (edges ? n / 2 : n) + 1;
  GlBuffer input(std::max<size_t>(4, n * sizeof(T)), n ? in.data() : nullptr);
  GlBuffer values(room * sizeof(T), poison_bytes(room * sizeof(T)).data());
  GlBuffer lengths(room * 4, poison_bytes(room * 4).data()), offsets(room * 4, poison_bytes(room * 4).data());
  GlBuffer runs(4, poison_bytes(4).data());
  const gl::TempRequirements req = gl::run_length_temp_requirements(ctx, n, config);
  GlBuffer temp(req.size, poison_bytes(req.size).data());
  gl::RunLengthArgs args{config, n, input.view(), values.view(), lengths.view(), {}, runs.view(), temp.view()};
  if (edges || with_offsets) args.offsets = offsets.view();
  (edges ? gl::record_non_trivial_runs : gl::record_run_length_encode)(ctx, args);
  buffer_update_barrier();
  const size_t r = want_lengths.size();
  ASSERT_EQ(runs.read<uint32_t>(0, 1)[0], r) << what;
  EXPECT_EQ(lengths.read<uint32_t>(0, r + 1), [&] { auto v = want_lengths; v.push_back(kPoison); return v; }())
      << "lengths (then one poisoned word): " << what;
  if (edges || with_offsets)
    EXPECT_EQ(offsets.read<uint32_t>(0, r + 1), [&] { auto v = want_offsets; v.push_back(kPoison); return v; }())
        << "offsets (then one poisoned word): " << what;
  else
    EXPECT_EQ(offsets.read<uint32_t>(0, 1)[0], kPoison) << "offsets written without being given: " << what;
  if (!edges) {
    expect_bits(values.read<T>(0, r), want.values, "values: " + what);
    const std::vector<unsigned char> past = values.read<unsigned char>(r * sizeof(T), sizeof(T));
    EXPECT_TRUE(std::all_of(past.begin(), past.end(), [](unsigned char b) { return b == 0xA5; }))
        << "values past the runs written: " << what;
  }
}

template <class T>
void random_case(std::mt19937_64& rng, size_t round) {
  // Tiles of W·K·4 elements: 256 with W = 64, K = 1; the default shape's otherwise.
  const bool small = rng() % 2;
  const CompactConfig config{.type = data_type_of<T>::value, .workgroup_size = small ? 64u : 0u,
                             .vectors_per_lane = small ? 1u : 0u};
  const size_t tile = small ? 256 : 4096;
  const size_t sizes[] = {0, 1, 2, 3, tile - 1, tile, tile + 1, 2 * tile + 5, static_cast<size_t>(rng() % 30000)};
  const size_t n = sizes[rng() % std::size(sizes)];
  const size_t max_runs[] = {1, 2, 5, 300, n + 1};
  const size_t max_run = max_runs[rng() % std::size(max_runs)];
  const std::vector<T> in = runs_of<T>(n, max_run, rng);
  std::ostringstream what;
  what << "round " << round << ", " << to_string(config.type) << ", n = " << n << ", runs up to " << max_run
       << (small ? ", W 64, K 1" : "");
  const bool edges = rng() % 2;
  check_record(in, config, edges, rng() % 2, what.str() + (edges ? ", non-trivial" : ", encode"));
  if (rng() % 4) return;
  // The convenience calls.
  const cpu::Runs<T> want = cpu::runs<T>(in);
  const RunLengthResult<T> got = gl::run_length_encode(gl_context(), std::span<const T>(in), config);
  expect_bits(got.values, want.values, "run_length_encode values: " + what.str());
  EXPECT_EQ(got.lengths, want.lengths) << "run_length_encode lengths: " << what.str();
  const NonTrivialRuns trivial = gl::non_trivial_runs(gl_context(), std::span<const T>(in), config);
  std::vector<uint32_t> offsets, lengths;
  for (size_t r = 0; r < want.lengths.size(); ++r)
    if (want.lengths[r] > 1) offsets.push_back(want.starts[r]), lengths.push_back(want.lengths[r]);
  EXPECT_EQ(trivial.offsets, offsets) << "non_trivial_runs: " << what.str();
  EXPECT_EQ(trivial.lengths, lengths) << "non_trivial_runs: " << what.str();
}

TEST_F(GlRunLengthTest, RandomCasesMatchTheCpuReference) {
  const uint64_t seed = fresh_seed();  // drawn fresh each run; GPUSCAN_SEED replays one
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (size_t round = 0; round < 60; ++round) {
    switch (round % 6) {
      case 0: random_case<uint32_t>(rng, round); break;
      case 1: random_case<int32_t>(rng, round); break;
      case 2: random_case<float>(rng, round); break;
      case 3: random_case<uint64_t>(rng, round); break;
      case 4: random_case<int64_t>(rng, round); break;
      default: random_case<double>(rng, round); break;
    }
    if (HasFailure()) break;  // the first failing case is the one to read
  }
}

TEST_F(GlRunLengthTest, DocumentedExamplesAndNumbers) {
  const gl::Context& ctx = gl_context();
  const std::vector<uint32_t> v = {7, 7, 7, 2, 5, 5, 7};
  const RunLengthResult<uint32_t> rle = gl::run_length_encode(ctx, std::span<const uint32_t>(v));
  EXPECT_EQ(rle.values, (std::vector<uint32_t>{7, 2, 5, 7}));
  EXPECT_EQ(rle.lengths, (std::vector<uint32_t>{3, 1, 2, 1}));
  const NonTrivialRuns runs = gl::non_trivial_runs(ctx, std::span<const uint32_t>(v));
  EXPECT_EQ(runs.offsets, (std::vector<uint32_t>{0, 4}));
  EXPECT_EQ(runs.lengths, (std::vector<uint32_t>{3, 2}));
  // -0 equals 0 (the run starts with -0); every NaN is a run of its own.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> f = {1, -0.0f, 0.0f, nan, nan, 7, 7, 7, -2.5f};
  const RunLengthResult<float> frle = gl::run_length_encode(ctx, std::span<const float>(f));
  EXPECT_EQ(frle.lengths, (std::vector<uint32_t>{1, 2, 1, 1, 3, 1}));
  ASSERT_EQ(frle.values.size(), 6u);
  EXPECT_TRUE(std::signbit(frle.values[1]) && frle.values[1] == 0.0f);
  EXPECT_TRUE(std::isnan(frle.values[2]) && std::isnan(frle.values[3]));
  const NonTrivialRuns fruns = gl::non_trivial_runs(ctx, std::span<const float>(f));
  EXPECT_EQ(fruns.offsets, (std::vector<uint32_t>{1, 5}));
  EXPECT_EQ(fruns.lengths, (std::vector<uint32_t>{2, 3}));
  EXPECT_TRUE(gl::run_length_encode(ctx, std::span<const int32_t>()).lengths.empty());
  EXPECT_TRUE(gl::non_trivial_runs(ctx, std::span<const int32_t>(std::vector<int32_t>{4})).lengths.empty());
}

TEST_F(GlRunLengthTest, Refusals) {
  const gl::Context& ctx = gl_context();
  GlBuffer in(64 * 4), values(64 * 4), lengths(64 * 4), offsets(64 * 4), runs(4);
  const gl::TempRequirements req = gl::run_length_temp_requirements(ctx, 64, {});
  GlBuffer temp(req.size);
  const gl::RunLengthArgs good{{}, 64, in.view(), values.view(), lengths.view(), {}, runs.view(), temp.view()};
  auto expect = [&](const gl::RunLengthArgs& a, bool edges, Errc code, const std::string& fragment) {
    const Error e = thrown_by([&] { (edges ? gl::record_non_trivial_runs : gl::record_run_length_encode)(ctx, a); });
    EXPECT_EQ(e.code(), make_error_code(code)) << e.what();
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  };
  gl::RunLengthArgs a = good;
  a.count = 65;
  expect(a, false, Errc::buffer_too_small, "input buffer holds 64");
  a = good;
  a.lengths = values.view();
  expect(a, false, Errc::invalid_argument, "the lengths range overlaps the values range");
  a = good;
  a.count_out = temp.view();
  expect(a, false, Errc::invalid_argument, "the temp range overlaps the runs range");
  expect(good, true, Errc::null_handle, "offsets");  // non-trivial runs need offsets
  a = good;
  a.config.type = DataType::u64;  // 64-bit elements in a buffer of 64 u32: 32 of them
  expect(a, false, Errc::buffer_too_small, "input buffer holds 32");
  const BindingCap cap;  // one binding of 20000 bytes: 5001 u32 elements do not fit
  const std::vector<uint32_t> big(5001, 3);
  EXPECT_EQ(error_of([&] { gl::run_length_encode(ctx, std::span<const uint32_t>(big)); }), Errc::too_large);
}

}  // namespace
}  // namespace gpuscan::test
