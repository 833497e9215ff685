// The gpuscan binary on both APIs: every command that computes, with --api vulkan and --api gl on the same
// random inputs, must write byte-identical files and standard output. histogram: every sample type, even
// and custom bins, open and closed last bins, u32 and u64 counts; rle: u32, f32, i64 and f64, encode and
// non-trivial runs, binary and text; then scan, reduce, compact, unique and sort (the last test's comment
// says which forms). NaN, ±inf and -0.0 among the float samples.
#include <gtest/gtest.h>

#include <cmath>
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "cli_e2e_fixture.hpp"

namespace {

// n random samples of `type` as raw bytes: integers in [-300, 3000) (unsigned ones from 0), floats in
// [-300, 3000) with a few exact integers, NaN, ±inf and ±0 mixed in; `runs`: each repeated 1 to 8 times.
std::string random_samples(DataType type, size_t n, std::mt19937_64& rng, bool runs = false) {
  std::string bytes;
  const bool is_unsigned = type == DataType::u32 || type == DataType::u64;
  while (bytes.size() < n * gpuscan::element_size(type)) {
    double v = std::uniform_real_distribution<double>(is_unsigned ? 0 : -300, 3000)(rng);
    if (type != DataType::f32 && type != DataType::f64) v = std::floor(v);
    else if (rng() % 8 == 0) v = std::floor(v);
    else if (rng() % 16 == 0) {
      const double special[] = {std::numeric_limits<double>::quiet_NaN(), INFINITY, -INFINITY, -0.0, 0.0};
      v = special[rng() % 5];
    }
    char one[8];
    switch (type) {
      case DataType::u32: { const uint32_t x = static_cast<uint32_t>(v); std::memcpy(one, &x, 4); break; }
      case DataType::i32: { const int32_t x = static_cast<int32_t>(v); std::memcpy(one, &x, 4); break; }
      case DataType::f32: { const float x = static_cast<float>(v); std::memcpy(one, &x, 4); break; }
      case DataType::u64: { const uint64_t x = static_cast<uint64_t>(v); std::memcpy(one, &x, 8); break; }
      case DataType::i64: { const int64_t x = static_cast<int64_t>(v); std::memcpy(one, &x, 8); break; }
      case DataType::f64: std::memcpy(one, &v, 8); break;
    }
    const size_t repeat = runs ? 1 + rng() % 8 : 1;
    for (size_t k = 0; k < repeat; ++k) bytes.append(one, gpuscan::element_size(type));
  }
  bytes.resize(n * gpuscan::element_size(type));
  return bytes;
}

constexpr DataType kTypes[] = {DataType::u32, DataType::i32, DataType::f32, DataType::u64, DataType::i64, DataType::f64};

// Runs `args` (without --api) on both APIs, writing `outputs` (files in the test's directory that args
// names), and expects exit 0 and the same bytes in each output and on standard output.
class ApiParityTest : public CliTest {
 protected:
  void expect_same_on_both(const std::string& args, const std::vector<std::string>& outputs) {
    SCOPED_TRACE(args);
    std::vector<std::string> vulkan;
    const RunResult v = run("--api vulkan " + args);
    ASSERT_EQ(v.exit_code, 0) << v;
    for (const std::string& o : outputs) vulkan.push_back(read_file(path(o)));
    for (const std::string& o : outputs) std::filesystem::remove(path(o));
    const RunResult g = run("--api gl " + args);
    ASSERT_EQ(g.exit_code, 0) << g;
    EXPECT_TRUE(v.out == g.out) << "standard output differs\n--- vulkan ---\n" << v << "\n--- gl ---\n" << g;
    for (size_t i = 0; i < outputs.size(); ++i) {
      EXPECT_FALSE(vulkan[i].empty()) << outputs[i];
      EXPECT_TRUE(read_file(path(outputs[i])) == vulkan[i]) << outputs[i] << " differs between the APIs";
    }
  }
};

TEST_F(ApiParityTest, HistogramIsTheSameOnVulkanAndGl) {
  std::mt19937_64 rng(20261206);
  write_file(path("edges.txt"), "-250\n-0.5\n0\n0\n17.25\n100.1\n2047.5\n2999.75\n");
  size_t turn = 0;
  for (const DataType type : kTypes) {
    const std::string name(gpuscan::to_string(type));
    const size_t sizes[] = {0, 1, 255, 257, 5003};
    const size_t n = sizes[turn % std::size(sizes)] + (turn % 2 ? 0 : 3001);
    ++turn;
    write_file(path("in.bin"), random_samples(type, n, rng));
    const std::string io = " --in " + shell_quote(path("in.bin").string());
    const std::string out = " --out " + shell_quote(path("h.bin").string());
    const std::string lower = type == DataType::u32 || type == DataType::u64 ? "0" : "-200";
    expect_same_on_both("histogram --type " + name + " --bins 37 --lower " + lower + " --upper 2900.5" + io + out,
                        {"h.bin"});
    if (turn % 2 == 0)  // past shared memory, to standard output as text (every other type)
      expect_same_on_both("histogram --type " + name + " --bins 5000 --lower " + lower + " --upper 3000 --counts u64" + io,
                          {});
    expect_same_on_both("histogram --type " + name + " --edges " + shell_quote(path("edges.txt").string()) +
                            " --closed --counts u64 --verify" + io + out,
                        {"h.bin"});
  }
}

TEST_F(ApiParityTest, RleIsTheSameOnVulkanAndGl) {
  std::mt19937_64 rng(20261207);
  // f32 (NaN and ±0 among the runs) encoded as text and its non-trivial runs in binary; u32 encoded.
  write_file(path("in.bin"), random_samples(DataType::f32, 4097, rng, true));
  const std::string in = " --in " + shell_quote(path("in.bin").string());
  const std::string outputs =
      " --values " + shell_quote(path("v").string()) + " --lengths " + shell_quote(path("l").string());
  expect_same_on_both("rle --type f32 --out-format text" + in + outputs, {"v", "l"});
  expect_same_on_both("rle --type f32 --non-trivial --offsets -" + in + " --lengths " + shell_quote(path("l").string()),
                      {"l"});
  write_file(path("in.bin"), random_samples(DataType::u32, 20011, rng, true));
  expect_same_on_both("rle --type u32" + in + outputs, {"v", "l"});
  // The 64-bit types: i64 encoded, f64 (NaN and ±0 again) and its non-trivial runs.
  write_file(path("in.bin"), random_samples(DataType::i64, 9001, rng, true));
  expect_same_on_both("rle --type i64" + in + outputs, {"v", "l"});
  write_file(path("in.bin"), random_samples(DataType::f64, 5003, rng, true));
  expect_same_on_both("rle --type f64 --out-format text" + in + outputs, {"v", "l"});
  expect_same_on_both("rle --type f64 --non-trivial --offsets -" + in + " --lengths " + shell_quote(path("l").string()),
                      {"l"});
}

// The other commands on random inputs of a size drawn around the tiles: integer scans, float min and max
// scans (exact: a float sum's order of combination differs between the algorithms each API picks, see
// docs/gl.md), segmented scans, reductions (by offsets too), compaction of 4- and 8-byte types by
// predicate and flags, unique of sorted and unsorted input, and sorts of keys, pairs, indices and a bit
// range; the size and the data are drawn from a fresh seed.
TEST_F(ApiParityTest, EveryOtherCommandIsTheSameOnVulkanAndGl) {
  // A seed drawn fresh each run (GPUSCAN_SEED replays one), printed with any failure.
  const char* replay = std::getenv("GPUSCAN_SEED");
  const uint64_t seed = replay ? std::strtoull(replay, nullptr, 0) : std::random_device{}();
  SCOPED_TRACE(testing::Message() << "GPUSCAN_SEED=" << seed);
  std::mt19937_64 rng(seed);
  const size_t n = 3001 + rng() % 4096;
  const auto q = [&](const std::string& name) { return shell_quote(path(name).string()); };
  const std::string out = " --out " + q("o.bin");
  auto input = [&](DataType type, bool runs = false) {
    const std::string name = std::string(gpuscan::to_string(type)) + (runs ? "_runs.bin" : ".bin");
    write_file(path(name), random_samples(type, n, rng, runs));
    return " --type " + std::string(gpuscan::to_string(type)) + " --in " + q(name);
  };
  auto u32_file = [&](const std::string& name, std::vector<uint32_t> words) {
    write_file(path(name), std::string(reinterpret_cast<const char*>(words.data()), words.size() * 4));
  };
  std::vector<uint32_t> flags(n), offsets{0};
  for (uint32_t& f : flags) f = rng() % 5 == 0;
  for (size_t end = 0; end < n;) offsets.push_back(static_cast<uint32_t>(end = std::min(n, end + rng() % 700)));
  u32_file("flags.bin", flags);
  u32_file("offsets.bin", offsets);

  const std::string u32 = input(DataType::u32), i64 = input(DataType::i64), f32 = input(DataType::f32),
                    f64 = input(DataType::f64);
  expect_same_on_both("scan" + u32 + out, {"o.bin"});
  expect_same_on_both("scan --inclusive --op xor" + u32 + out, {"o.bin"});
  expect_same_on_both("scan --inclusive --op max" + i64 + out, {"o.bin"});
  expect_same_on_both("scan --op min" + f32 + out, {"o.bin"});
  expect_same_on_both("scan --inclusive --op max" + f64 + out, {"o.bin"});
  expect_same_on_both("scan --segments " + q("flags.bin") + u32 + out, {"o.bin"});
  expect_same_on_both("reduce" + u32, {});
  expect_same_on_both("reduce --op max" + f32, {});
  expect_same_on_both("reduce --op min --offsets " + q("offsets.bin") + i64 + " --out " + q("o.bin"), {"o.bin"});
  expect_same_on_both("compact --pred gt:1500" + u32 + out, {"o.bin"});
  expect_same_on_both("compact --pred lt:100.5" + f64 + out, {"o.bin"});
  expect_same_on_both("compact --flags " + q("flags.bin") + " --partition" + i64 + out, {"o.bin"});
  expect_same_on_both("unique" + input(DataType::i32, true) + out, {"o.bin"});
  expect_same_on_both("unique --partition" + input(DataType::f32, true) + out, {"o.bin"});
  expect_same_on_both("unique --sort" + input(DataType::u64) + out, {"o.bin"});
  expect_same_on_both("sort" + u32 + out, {"o.bin"});
  expect_same_on_both("sort --descending --values " + q("flags.bin") + " --values-out " + q("v.bin") + f32 + out,
                      {"o.bin", "v.bin"});
  expect_same_on_both("sort --indices-out " + q("v.bin") + i64 + out, {"o.bin", "v.bin"});
  expect_same_on_both("sort --bits 3:14" + input(DataType::i32) + out, {"o.bin"});
}

}  // namespace
