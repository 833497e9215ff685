// The OpenGL backend against the Vulkan one through the CLI: the same random inputs run with --api vulkan
// and --api gl must give byte-identical output files and the same summary line (less the device). 64-bit
// compaction: compact by a drawn predicate or flags, with or without --partition, and unique, per type.
// Segmented reductions by offsets (reduce --offsets): every type with a drawn operator, segments empty,
// of length 1, one segment, offsets on tile boundaries; floats hold small integers, so that sums are
// exact in any order (float add combines in an order that depends on the subgroup size).
#include <algorithm>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "cli_e2e_fixture.hpp"

namespace {

// The parts of a run to compare across the APIs: exit code, output bytes and stderr's first line, with
// the device named there (the only part that may differ) cut off.
struct Outcome {
  int exit_code = -1;
  std::string output;
  std::string summary;
};

class GlParityTest : public CliTest {
 protected:
  const uint64_t start = std::random_device{}() ^ (uint64_t{std::random_device{}()} << 32);
  std::mt19937_64 rng{start};

  // Runs `args --api <api> --out <file>` and returns what to compare.
  Outcome run_on(const std::string& api, const std::string& args) {
    const fs::path out = path("out_" + api + ".bin");
    const RunResult r = run(args + " --api " + api + " --out " + shell_quote(out.string()));
    EXPECT_EQ(r.exit_code, 0) << api << ": " << args << "\n" << r;
    Outcome o{r.exit_code, read_file(out), r.err.substr(0, r.err.find('\n'))};
    if (const size_t on = o.summary.find(" on "); on != std::string::npos) o.summary.resize(on);
    return o;
  }

  // The same command on both APIs: identical bytes out.
  void expect_same_on_both(const std::string& args) {
    SCOPED_TRACE(args + " (start value " + std::to_string(start) + ")");
    const Outcome vk = run_on("vulkan", args), gl = run_on("gl", args);
    ASSERT_EQ(vk.exit_code, 0);
    ASSERT_EQ(gl.exit_code, 0);
    EXPECT_EQ(vk.summary, gl.summary);
    ASSERT_EQ(vk.output.size(), gl.output.size());
    EXPECT_TRUE(vk.output == gl.output) << "the outputs differ in their bytes";
  }

  // A size around the tiles of the default shape (W = 256, K = 4: 4096 elements), 0 and 1 among them.
  size_t draw_size() {
    const size_t sizes[] = {0, 1, 2, 4095, 4096, 4097, 8193, 1 + rng() % 20000};
    return sizes[rng() % std::size(sizes)];
  }

  // `n` random 8-byte elements of `type` with runs (repeats of the one before), zeros and, for f64,
  // NaN, -0.0 and the infinities.
  std::string draw_values(DataType type, size_t n) {
    std::vector<uint64_t> v(n);
    const double specials[] = {0.0, -0.0, std::numeric_limits<double>::quiet_NaN(),
                               std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity()};
    for (size_t i = 0; i < n; ++i) {
      const uint64_t r = rng() % 16;
      if (type == DataType::f64) {
        double d = std::uniform_real_distribution<double>(-4.0, 4.0)(rng);
        if (r == 0) d = specials[rng() % std::size(specials)];
        std::memcpy(&v[i], &d, 8);
      } else {
        v[i] = r == 0 ? 0 : rng() >> (rng() % 64);
        if (type == DataType::i64 && rng() % 2) v[i] = ~v[i] + 1;  // negative
      }
      if (r < 4 && i > 0) v[i] = v[i - 1];
    }
    return std::string(reinterpret_cast<const char*>(v.data()), n * 8);
  }

  std::string draw_flags(size_t n) {
    std::vector<uint32_t> f(n);
    const uint32_t keeping = rng() % 3;  // nothing, everything, some
    for (auto& x : f) x = keeping == 0 ? 0u : keeping == 1 ? 1u : static_cast<uint32_t>(rng() % 2);
    return std::string(reinterpret_cast<const char*>(f.data()), n * 4);
  }
};

TEST_F(GlParityTest, CompactAndUniqueOfEightByteTypes) {
  const char* predicates[][4] = {{"gt:0x8000000000000000", "bit:0x100000001", "eq:0", "lt:1000"},
                                 {"lt:-1", "range:-0x100000000:0x100000000", "nonzero", "ge:0"},
                                 {"gt:0.5", "le:-0", "ne:nan", "range:-1:1"}};
  const DataType types[] = {DataType::u64, DataType::i64, DataType::f64};
  for (size_t t = 0; t < 3; ++t) {
    const std::string type(gpuscan::to_string(types[t]));
    const size_t n = draw_size();
    write_file(path("in.bin"), draw_values(types[t], n));
    write_file(path("flags.bin"), draw_flags(n));
    const std::string in = " --type " + type + " --in " + shell_quote(path("in.bin").string());
    const std::string select = rng() % 3 ? " --pred " + std::string(predicates[t][rng() % 4])
                                         : " --flags " + shell_quote(path("flags.bin").string());
    expect_same_on_both("compact" + in + select + (rng() % 2 ? " --partition" : ""));
    expect_same_on_both("unique" + in + (rng() % 2 ? " --partition" : ""));
  }
}

// Offsets for `n` values: S + 1 non-decreasing ones, offsets[S] <= n, drawn as one of several shapes.
std::vector<uint32_t> draw_offsets(size_t n, std::mt19937_64& rng) {
  const uint32_t last = static_cast<uint32_t>(n);
  std::vector<uint32_t> o = {0};
  switch (rng() % 5) {
    case 0: o.push_back(last); break;                                   // one segment
    case 1: for (uint32_t i = 1; i <= last; ++i) o.push_back(i); break;  // every segment of length 1
    case 2:                                                             // on tile boundaries (K = 1: 1024)
      for (uint32_t i = 1024; i < last; i += 1024) o.push_back(i);
      o.push_back(last);
      break;
    default:  // random lengths, many empty, the first and last offsets not at the ends
      o[0] = n ? static_cast<uint32_t>(rng() % (n / 4 + 1)) : 0;
      while (o.back() < last && o.size() < 5000) {
        const uint32_t step = rng() % 3 == 0 ? 0 : static_cast<uint32_t>(rng() % 300);
        o.push_back(std::min(last, o.back() + step));
      }
      if (rng() % 2 && o.size() > 1) o.back() = o[o.size() - 2];
  }
  return o;
}

TEST_F(GlParityTest, SegmentedReduceByOffsets) {
  const DataType types[] = {DataType::u32, DataType::i32, DataType::f32, DataType::u64, DataType::i64,
                            DataType::f64};
  for (const DataType type : types) {
    const bool is_float = type == DataType::f32 || type == DataType::f64;
    const bool wide = type == DataType::u64 || type == DataType::i64 || type == DataType::f64;
    const char* ops[] = {"add", "min", "max", is_float ? "add" : "xor"};
    const std::string op = ops[rng() % std::size(ops)];
    const size_t n = draw_size();
    std::string values(n * (wide ? 8 : 4), '\0');
    for (size_t i = 0; i < n; ++i) {
      const uint64_t r = rng();
      const int small = static_cast<int>(r % 2001) - 1000;  // exact in float sums of up to 2^13 terms
      if (type == DataType::f32) {
        const float f = static_cast<float>(small);
        std::memcpy(&values[i * 4], &f, 4);
      } else if (type == DataType::f64) {
        const double d = static_cast<double>(small) * 1024.0;
        std::memcpy(&values[i * 8], &d, 8);
      } else {
        std::memcpy(&values[i * (wide ? 8 : 4)], &r, wide ? 8 : 4);
      }
    }
    const std::vector<uint32_t> offsets = draw_offsets(n, rng);
    write_file(path("v.bin"), values);
    write_file(path("o.bin"), std::string(reinterpret_cast<const char*>(offsets.data()), offsets.size() * 4));
    expect_same_on_both("reduce --type " + std::string(gpuscan::to_string(type)) + " --op " + op + " --in " +
                        shell_quote(path("v.bin").string()) + " --offsets " + shell_quote(path("o.bin").string()) +
                        (rng() % 2 ? " -k 1" : " -w 64 -k 2"));
  }
}

}  // namespace
