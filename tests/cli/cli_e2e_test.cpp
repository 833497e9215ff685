// End-to-end tests of the gpuscan binary: random data written to files, the real executable run on
// them (always with --validate, so any validation-layer message fails the test through exit code 3),
// and the output files checked against the CPU reference. Errors are checked by exit code and message.
//
// They test what only the tool does: its options and every usage error, the file formats, streaming past
// the memory budget, what it prints (summaries, info, JSON, help), its exit codes, and each command,
// algorithm, type and backend once end to end. The library's results across algorithms, types, kinds,
// operators and sizes are the GPU suites' (tests/gpu, tests/gl), which check them without a subprocess
// per case; each test here that samples such a space names the GPU test that covers all of it.
//
// The binary's path comes from CMake (GPUSCAN_CLI_PATH = $<TARGET_FILE:gpuscan_cli>).
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <bit>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "cli_e2e_fixture.hpp"
#include "gpuscan/reference.hpp"
#include "gpuscan/types.hpp"
#include "gpuscan/version.hpp"

namespace {

// --- Data: random values, files in both formats, the reference -------------------------------------

// Random elements of `type` as raw bytes. Integers cover the whole range (sums wrap); floats lie in
// [-100, 100) with a few exact small integers mixed in.
std::vector<uint32_t> random_words(DataType type, size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<uint32_t> words(n);
  for (auto& w : words) {
    if (type == DataType::f32) {
      const float f = rng() % 8 == 0 ? static_cast<float>(static_cast<int>(rng() % 201) - 100)
                                     : std::uniform_real_distribution<float>(-100.0f, 100.0f)(rng);
      std::memcpy(&w, &f, sizeof f);
    } else {
      w = static_cast<uint32_t>(rng());
    }
  }
  return words;
}

std::string word_to_text(uint32_t w, DataType type) {
  char buffer[64];
  std::to_chars_result r{};
  if (type == DataType::u32) {
    r = std::to_chars(buffer, buffer + sizeof buffer, w);
  } else if (type == DataType::i32) {
    r = std::to_chars(buffer, buffer + sizeof buffer, static_cast<int32_t>(w));
  } else {
    float f;
    std::memcpy(&f, &w, sizeof f);
    r = std::to_chars(buffer, buffer + sizeof buffer, f);
  }
  return {buffer, r.ptr};
}

std::string to_file_content(const std::vector<uint32_t>& words, DataType type, bool text) {
  if (!text) return {reinterpret_cast<const char*>(words.data()), words.size() * 4};
  std::string s;
  for (uint32_t w : words) s += word_to_text(w, type) + "\n";
  return s;
}

// Reads the CLI's output independently of tools/gpuscan/io.cpp.
std::vector<uint32_t> from_file_content(const std::string& content, DataType type, bool text) {
  std::vector<uint32_t> words;
  if (!text) {
    EXPECT_EQ(content.size() % 4, 0u);
    words.resize(content.size() / 4);
    if (!words.empty()) std::memcpy(words.data(), content.data(), words.size() * 4);
    return words;
  }
  std::istringstream lines(content);
  std::string line;
  while (std::getline(lines, line)) {
    const char* first = line.data();
    const char* last = line.data() + line.size();
    std::from_chars_result r{};
    uint32_t w = 0;
    if (type == DataType::u32) {
      r = std::from_chars(first, last, w);
    } else if (type == DataType::i32) {
      int32_t i = 0;
      r = std::from_chars(first, last, i);
      w = static_cast<uint32_t>(i);
    } else {
      float f = 0;
      r = std::from_chars(first, last, f);
      std::memcpy(&w, &f, sizeof f);
    }
    EXPECT_TRUE(r.ec == std::errc() && r.ptr == last) << "output line " << words.size() + 1 << ": '" << line << "'";
    words.push_back(w);
  }
  return words;
}

// Checks `got` against the CPU reference: exact for integers, within cpu::float_tolerance of a double
// reference for f32. Reports at most a few differing elements.
void expect_scan_of(const std::vector<uint32_t>& in, const std::vector<uint32_t>& got, DataType type,
                    ScanKind kind) {
  ASSERT_EQ(got.size(), in.size());
  int reported = 0;
  if (type == DataType::f32) {
    std::vector<float> f(in.size());
    if (!in.empty()) std::memcpy(f.data(), in.data(), in.size() * 4);
    const std::vector<double> d(f.begin(), f.end());
    const auto want = gpuscan::cpu::scan<double>(d, kind);
    const auto tol = gpuscan::cpu::float_tolerance<float>(f, kind);
    for (size_t i = 0; i < in.size() && reported < 5; ++i) {
      float g;
      std::memcpy(&g, &got[i], sizeof g);
      if (!(std::fabs(static_cast<double>(g) - want[i]) <= tol[i])) {
        ADD_FAILURE() << "index " << i << ": got " << g << ", expected " << want[i] << " +- " << tol[i];
        ++reported;
      }
    }
  } else {
    // u32 and i32 wrap identically, so the u32 reference covers both.
    const auto want = gpuscan::cpu::scan<uint32_t>(in, kind);
    for (size_t i = 0; i < in.size() && reported < 5; ++i) {
      if (got[i] != want[i]) {
        ADD_FAILURE() << "index " << i << ": got " << word_to_text(got[i], type) << ", expected "
                      << word_to_text(want[i], type);
        ++reported;
      }
    }
  }
}

// --- Scans: each type in each file format ----------------------------------------------------------
//
// What the CLI adds to the library is reading and writing the files: each type once in each format, both
// kinds, and the sizes a file can hold (empty, one element, many tiles). The scans themselves, at every
// size around the tile and level boundaries, are the GPU suites' (ScanTest.*, OpsTest.EveryTypeAndOperator).

using ScanParam = std::tuple<DataType, ScanKind, bool /*text*/, size_t /*n*/>;

class CliScan : public CliTest, public ::testing::WithParamInterface<ScanParam> {};

TEST_P(CliScan, MatchesCpuReference) {
  const auto [type, kind, text, n] = GetParam();
  const uint64_t seed = n * 131 + static_cast<uint64_t>(type) * 7 + static_cast<uint64_t>(kind) * 3 + text;
  SCOPED_TRACE("seed " + std::to_string(seed));
  const auto in = random_words(type, n, seed);
  write_file(path("in"), to_file_content(in, type, text));

  const std::string type_name(gpuscan::to_string(type));
  const RunResult r = run("scan --type " + type_name + (kind == ScanKind::inclusive ? " --inclusive" : "") +
                          " --format " + (text ? "text" : "binary") + " --verify --in " +
                          shell_quote(path("in").string()) + " --out " + shell_quote(path("out").string()));
  ASSERT_EQ(r.exit_code, 0) << r;
  EXPECT_TRUE(r.out.empty()) << "data must not go to stdout without --out -\n" << r;
  EXPECT_NE(r.err.find(std::to_string(n) + " " + type_name + " elements"), std::string::npos) << r;
  EXPECT_EQ(r.err.find("validation"), std::string::npos) << r;

  const std::string content = read_file(path("out"));
  if (!text) EXPECT_EQ(content.size(), n * 4);
  expect_scan_of(in, from_file_content(content, type, text), type, kind);
}

std::string scan_param_name(const ::testing::TestParamInfo<ScanParam>& info) {
  const auto [type, kind, text, n] = info.param;
  return std::string(gpuscan::to_string(type)) + "_" + std::string(gpuscan::to_string(kind)) + "_" +
         (text ? "text" : "binary") + "_" + std::to_string(n);
}

INSTANTIATE_TEST_SUITE_P(All, CliScan,
                         ::testing::Values(ScanParam{DataType::u32, ScanKind::exclusive, false, size_t{0}},
                                           ScanParam{DataType::u32, ScanKind::exclusive, true, size_t{0}},
                                           ScanParam{DataType::u32, ScanKind::inclusive, true, size_t{1000}},
                                           ScanParam{DataType::i32, ScanKind::exclusive, true, size_t{1}},
                                           ScanParam{DataType::i32, ScanKind::inclusive, false, size_t{100003}},
                                           ScanParam{DataType::f32, ScanKind::exclusive, false, size_t{1000}},
                                           ScanParam{DataType::f32, ScanKind::inclusive, true, size_t{100003}}),
                         scan_param_name);

// --- Every --algorithm value, once ------------------------------------------------------------------
//
// Each name reaches the library and the summary names what ran; types and kinds vary over the five runs.
// Each algorithm on every type, kind and size is the GPU suites' (ScanTest.*, OpsTest.EveryTypeAndOperator).

// What the scan's summary line must name for `algorithm`: the algorithm used, as Context::resolve
// returned it, with its tile size (defaults W = 256, K = 4).
std::vector<std::string> expected_summaries(const std::string& algorithm) {
  if (algorithm == "single-pass") return {"(single-pass, W = 256, K = 4, tiles of 4096 elements)"};
  if (algorithm == "reduce-then-scan") return {"(reduce-then-scan, W = 256, K = 4, tiles of 4096 elements)"};
  if (algorithm == "multipass")
    return {"(multipass (subgroup workgroup scan), W = 256, tiles of 512 elements)",
            "(multipass (blelloch workgroup scan), W = 256, tiles of 512 elements)"};
  if (algorithm == "blelloch") return {"(multipass (blelloch workgroup scan), W = 256, tiles of 512 elements)"};
  if (algorithm == "look-ahead") return {"(look-ahead, W = 256, K = 4, tiles of 4096 elements)"};
  // auto: whichever the device allows.
  std::vector<std::string> any;
  for (const char* a : {"single-pass", "reduce-then-scan", "multipass"})
    for (const auto& summary : expected_summaries(a)) any.push_back(summary);
  return any;
}

using AlgorithmParam = std::tuple<const char* /*algorithm*/, DataType, ScanKind, size_t /*n*/>;

class CliAlgorithm : public CliTest, public ::testing::WithParamInterface<AlgorithmParam> {};

// Skips (after a probe) when `r` failed because the picked device cannot run `algorithm`; such a
// failure on a device that can counts.
#define SKIP_IF_DEVICE_CANNOT(r, algorithm)                                                                 \
  if ((r).exit_code == 1 && ((r).err.find("lacks what the single-pass scan needs") != std::string::npos ||   \
                             (r).err.find("has no subgroup arithmetic") != std::string::npos)) {            \
    const PickedDevice device = picked_device();                                                          \
    const std::string a = (algorithm);                                                                    \
    if (((a == "single-pass" || a == "look-ahead") && !device.single_pass) ||                            \
        (a == "reduce-then-scan" && !device.subgroup_arithmetic))                                        \
      GTEST_SKIP() << device.name << " cannot run " << a << ": " << (r).err;                              \
  }

TEST_P(CliAlgorithm, MatchesCpuReference) {
  const auto [algorithm, type, kind, n] = GetParam();
  const uint64_t seed = n * 131 + static_cast<uint64_t>(type) * 7 + static_cast<uint64_t>(kind) * 3 +
                        std::string(algorithm).size() * 1009;
  SCOPED_TRACE("seed " + std::to_string(seed));
  const auto in = random_words(type, n, seed);
  write_file(path("in.bin"), to_file_content(in, type, false));

  const std::string type_name(gpuscan::to_string(type));
  const RunResult r = run(std::string("scan --algorithm ") + algorithm + " --type " + type_name +
                          (kind == ScanKind::inclusive ? " --inclusive" : "") + " --verify --in " +
                          shell_quote(path("in.bin").string()) + " --out " + shell_quote(path("out.bin").string()));
  SKIP_IF_DEVICE_CANNOT(r, algorithm);
  ASSERT_EQ(r.exit_code, 0) << r;
  EXPECT_TRUE(r.out.empty()) << r;
  EXPECT_NE(r.err.find(std::to_string(n) + " " + type_name + " elements ("), std::string::npos) << r;
  bool named = false;
  for (const auto& summary : expected_summaries(algorithm)) named = named || r.err.find(summary) != std::string::npos;
  EXPECT_TRUE(named) << "the summary must name the algorithm used and its tiles\n" << r;
  EXPECT_NE(r.err.find("verified against the CPU reference"), std::string::npos) << r;
  EXPECT_EQ(r.err.find("validation"), std::string::npos) << r;

  const std::string content = read_file(path("out.bin"));
  EXPECT_EQ(content.size(), n * 4);
  expect_scan_of(in, from_file_content(content, type, false), type, kind);
}

std::string algorithm_param_name(const ::testing::TestParamInfo<AlgorithmParam>& info) {
  const auto [algorithm, type, kind, n] = info.param;
  std::string name = std::string(algorithm) + "_" + std::string(gpuscan::to_string(type)) + "_" +
                     std::string(gpuscan::to_string(kind)) + "_" + std::to_string(n);
  for (char& c : name)
    if (c == '-') c = '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(All, CliAlgorithm,
                         ::testing::Values(AlgorithmParam{"auto", DataType::u32, ScanKind::exclusive, size_t{100003}},
                                           AlgorithmParam{"single-pass", DataType::i32, ScanKind::inclusive,
                                                          size_t{100003}},
                                           AlgorithmParam{"reduce-then-scan", DataType::f32, ScanKind::exclusive,
                                                          size_t{100003}},
                                           AlgorithmParam{"multipass", DataType::u32, ScanKind::inclusive,
                                                          size_t{100003}},
                                           AlgorithmParam{"blelloch", DataType::i32, ScanKind::exclusive,
                                                          size_t{100003}},
                                           AlgorithmParam{"look-ahead", DataType::f32, ScanKind::inclusive,
                                                          size_t{100003}}),
                         algorithm_param_name);

// `scan` never scans in place, so --algorithm single-pass works even when --out names the --in file
// (the file is read whole before the scan and written after it). Small tiles make a long look-back chain.
TEST_F(CliTest, SinglePassScanIntoItsInputFile) {
  const auto in = random_words(DataType::u32, 100003, 5);
  write_file(path("data.bin"), to_file_content(in, DataType::u32, false));
  const RunResult r = run("scan --algorithm single-pass -w 32 -k 1 -t u32 --verify -i " +
                          shell_quote(path("data.bin").string()) + " -o " + shell_quote(path("data.bin").string()));
  SKIP_IF_DEVICE_CANNOT(r, "single-pass");
  ASSERT_EQ(r.exit_code, 0) << r;
  EXPECT_NE(r.err.find("(single-pass, W = 32, K = 1, tiles of 128 elements)"), std::string::npos) << r;
  expect_scan_of(in, from_file_content(read_file(path("data.bin")), DataType::u32, false), DataType::u32,
                 ScanKind::exclusive);
}

// Workgroup algorithms, workgroup sizes and vectors per lane reach the library, and the summary names the
// tiles they make. --workgroup-algorithm without --algorithm selects the multipass scan; --vectors-per-lane
// does not apply to it. Every tile shape of every algorithm is the GPU suites' (ScanTest.EveryTileShape).
TEST_F(CliTest, ScanWithEachWorkgroupAlgorithmAndSize) {
  const PickedDevice device = picked_device();
  const auto in = random_words(DataType::u32, 100003, 99);
  write_file(path("in.bin"), to_file_content(in, DataType::u32, false));
  const std::pair<const char*, const char*> cases[] = {
      {"-a blelloch -w 32", "(multipass (blelloch workgroup scan), W = 32, tiles of 64 elements)"},
      {"-a subgroup -w 1024", "(multipass (subgroup workgroup scan), W = 1024, tiles of 2048 elements)"},
      {"-a auto", " elements ("},
      {"--algorithm multipass -a blelloch -w 64", "(multipass (blelloch workgroup scan), W = 64, tiles of 128"},
      {"--algorithm single-pass -w 1024 -k 2", "(single-pass, W = 1024, K = 2, tiles of 8192 elements)"},
      {"--algorithm reduce-then-scan -w 32 -k 1", "(reduce-then-scan, W = 32, K = 1, tiles of 128 elements)"},
      {"--algorithm blelloch -k 2", "(multipass (blelloch workgroup scan), W = 256, tiles of 512 elements)"},
  };
  std::string skipped;  // options the device cannot run: the test is then a skip, after the others have run
  for (const auto& [options_text, summary] : cases) {
    const std::string options = options_text;
    if ((!device.subgroup_arithmetic && (options.find("subgroup") != std::string::npos ||
                                         options.find("reduce-then-scan") != std::string::npos)) ||
        (!device.single_pass && options.find("single-pass") != std::string::npos)) {
      skipped += "; " + options;
      continue;
    }
    SCOPED_TRACE(options);
    const RunResult r = run("scan -t u32 --inclusive " + options + " -i " + shell_quote(path("in.bin").string()) +
                            " -o " + shell_quote(path("out.bin").string()));
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_NE(r.err.find(summary), std::string::npos) << r;
    expect_scan_of(in, from_file_content(read_file(path("out.bin")), DataType::u32, false), DataType::u32,
                   ScanKind::inclusive);
  }
  if (!skipped.empty()) GTEST_SKIP() << device.name << " cannot run" << skipped;
}

TEST_F(CliTest, StdinToStdout) {
  write_file(path("in.txt"), "3\n1\n7\n0\n4\n1\n6\n3\n");
  const RunResult r = run("scan --type i32 --format text --in - --out -", path("in.txt").string());
  ASSERT_EQ(r.exit_code, 0) << r;
  EXPECT_EQ(r.out, "0\n3\n4\n11\n11\n15\n16\n22\n");
}

TEST_F(CliTest, TextInputWithTrailingBlankLinesAndCrlf) {
  write_file(path("in.txt"), "1.5\r\n-2.25\r\n 4 \r\n\r\n\n");
  const RunResult r = run("scan -t f32 --inclusive -f text -i " + shell_quote(path("in.txt").string()) + " -o -");
  ASSERT_EQ(r.exit_code, 0) << r;
  EXPECT_EQ(r.out, "1.5\n-0.75\n3.25\n");
}

// --- Errors ------------------------------------------------------------------------------------------

TEST_F(CliTest, UnknownTypeIsAUsageErrorListingValidTypes) {
  write_file(path("in.bin"), "");
  const RunResult r = run("scan --type u128 --in " + shell_quote(path("in.bin").string()) + " --out " +
                          shell_quote(path("out.bin").string()));
  expect_failure(r, 2, {"unknown type 'u128'", "u32, i32, f32, u64, i64, f64"});
  EXPECT_FALSE(fs::exists(path("out.bin")));
}

TEST_F(CliTest, UnknownCommandAndOptionAreUsageErrors) {
  expect_failure(run("frobnicate"), 2, {"unknown command 'frobnicate'", "info, scan, reduce, compact, unique, demo"});
  expect_failure(run(""), 2, {"no command given"});
  expect_failure(run("info --bogus"), 2, {"--bogus"});
  expect_failure(run("scan --type u32 --out x"), 2, {"--in"});
  expect_failure(run("info --workgroup-algorithm fast"), 2, {"unknown workgroup algorithm 'fast'", "blelloch"});
  expect_failure(run("scan -t u32 -i a -o b --format csv"), 2, {"unknown format 'csv'"});
}

TEST_F(CliTest, UnknownAlgorithmIsAUsageErrorListingValidNames) {
  write_file(path("in.bin"), std::string(8, '\0'));
  const std::string files =
      " -i " + shell_quote(path("in.bin").string()) + " -o " + shell_quote(path("out.bin").string());
  for (const std::string command : {"scan -t u32" + files, std::string("info"), std::string("demo --n 10")}) {
    SCOPED_TRACE(command);
    expect_failure(run(command + " --algorithm fast"), 2,
                   {"unknown algorithm 'fast'", "auto, single-pass, reduce-then-scan, multipass, blelloch, look-ahead"});
  }
  EXPECT_FALSE(fs::exists(path("out.bin")));
}

TEST_F(CliTest, ConflictingAlgorithmOptionsAreUsageErrors) {
  write_file(path("in.bin"), std::string(8, '\0'));
  const std::string scan =
      "scan -t u32 -i " + shell_quote(path("in.bin").string()) + " -o " + shell_quote(path("out.bin").string());
  expect_failure(run(scan + " --algorithm single-pass --workgroup-algorithm subgroup"), 2,
                 {"--workgroup-algorithm subgroup applies to the multipass scan only"});
  expect_failure(run(scan + " --algorithm reduce-then-scan -a blelloch"), 2,
                 {"applies to the multipass scan only, not to --algorithm reduce-then-scan"});
  expect_failure(run("info --algorithm blelloch -a subgroup"), 2, {"conflicts with --workgroup-algorithm subgroup"});
  expect_failure(run("demo --algorithm single-pass -a blelloch"), 2, {"multipass scan only"});
  expect_failure(run(scan + " --vectors-per-lane -1"), 2, {"'-1' is not a non-negative integer"});
  expect_failure(run(scan + " --vectors-per-lane 4x"), 2, {"'4x' is not a non-negative integer"});
  // Digits, but not a power of two from 1 to 16: the library refuses it.
  expect_failure(run(scan + " --vectors-per-lane 3"), 1, {"gpuscan: error: ", "vectors per lane 3"});
  EXPECT_FALSE(fs::exists(path("out.bin")));
}

// Options that cannot go together are usage errors (exit 2) in the command line's words, found before
// any file or device is opened: the input file does not exist and GPUSCAN_DEVICE matches no device, so
// either being opened would be an error of its own (exit 1).
TEST_F(CliTest, EveryOptionConflictIsAUsageErrorBeforeAnyWork) {
  write_file(path("op.glsl"), "#define T uint\nT identity() { return 0u; }\nT combine(T a, T b) { return a + b; }\n");
  write_file(path("empty"), "");  // standard input: read only if a conflict went unnoticed
  const std::string missing = shell_quote(path("missing.bin").string());
  const std::string io = " --in " + missing + " --out " + shell_quote(path("out.bin").string());
  const std::string op_file = " --op-file " + shell_quote(path("op.glsl").string());
  const std::string flags = " --segments " + missing;
  const std::string keys = " --keys " + missing;
  struct Case {
    std::string args;
    std::vector<std::string> fragments;
    std::string env;
  };
  const Case cases[] = {
      // compact: --algorithm single-pass against --partition, --path, --api gl; --type; standard input twice
      {"compact -t u32 --pred nonzero --partition --algorithm single-pass" + io,
       {"--partition runs three-pass only", "not --algorithm single-pass; use --algorithm three-pass or auto"}},
      {"compact -t u32 --flags " + missing + " --algorithm single-pass --path shared-memory" + io,
       {"--algorithm single-pass runs on the ballot path only, not --path shared-memory"}},
      {"compact --api gl -t u32 --pred nonzero --algorithm single-pass" + io,
       {"--algorithm single-pass is not offered with --api gl", "--algorithm three-pass or auto"}},
      {"compact -t u32 --pred nonzero --algorithm single-pass" + io,
       {"--algorithm single-pass is not offered with GPUSCAN_API=gl"}, "GPUSCAN_API=gl"},
      {"compact -t u32 --flags - --in - --out -",
       {"--in - and --flags - both name standard input, which can be read only once"}},
      // scan: operators and types
      {"scan -t f32 --op xor" + io, {"--op xor applies to integer types only, not to --type f32"}},
      {"reduce -t f32 --op and --in " + missing, {"--op and applies to integer types only, not to --type f32"}},
      // scan --op-file against what custom operators do not run
      {"scan -t u32 --algorithm single-pass" + op_file + io,
       {"--op-file runs the multipass scan with Blelloch workgroup scans only, not --algorithm single-pass",
        "use --algorithm multipass, blelloch or auto"}},
      {"scan -t u32 --algorithm reduce-then-scan" + op_file + io, {"not --algorithm reduce-then-scan"}},
      {"scan -t u32 -a subgroup" + op_file + io,
       {"--op-file runs Blelloch workgroup scans only", "not --workgroup-algorithm subgroup"}},
      {"scan -t u32 --verify" + op_file + io, {"--verify has no CPU reference for a custom operator (--op-file)"}},
      {"scan -t u32" + op_file + flags + io, {"--op-file cannot be combined with --segments"}},
      {"scan -t u32" + op_file + keys + io, {"--op-file cannot be combined with --keys"}},
      {"scan -t u32 --device-memory-budget 1M" + op_file + io, {"--device-memory-budget does not apply to --op-file"}},
      // segmented scans against what they do not run
      {"scan -t u32 --algorithm single-pass" + flags + io,
       {"segmented scans (--segments) run as reduce-then-scan only, not --algorithm single-pass",
        "use --algorithm reduce-then-scan or auto"}},
      {"scan -t u32 --algorithm multipass" + keys + io, {"segmented scans (--keys) run as reduce-then-scan only"}},
      {"scan -t u32 --algorithm blelloch" + flags + io, {"not --algorithm blelloch"}},
      {"scan -t u32 -a blelloch" + flags + io,
       {"--workgroup-algorithm blelloch applies to the multipass scan, which segmented scans (--segments) do not run"}},
      {"scan -t u32 --device-memory-budget 1M" + keys + io, {"--device-memory-budget does not apply to --keys"}},
      {"scan -t u32 --in - --segments - --out -", {"--in - and --segments - both name standard input"}},
      {"scan -t u32 --in - --keys - --out -", {"--in - and --keys - both name standard input"}},
      // --api gl: no single-pass scan, no streamed reduction, no --device
      {"scan --api gl -t u32 --algorithm single-pass" + io, {"--algorithm single-pass is not offered with --api gl"}},
      {"info --algorithm single-pass", {"--algorithm single-pass is not offered with GPUSCAN_API=gl"},
       "GPUSCAN_API=gl"},
      {"demo --api gl --n 10 --algorithm single-pass", {"--algorithm single-pass is not offered with --api gl"}},
      {"reduce --api gl -t u32 --device-memory-budget 1M --in " + missing,
       {"--device-memory-budget does not apply with --api gl", "reads the whole input"}},
      {"--api gl --device 0 info", {"--device selects a Vulkan device and does not apply with --api gl"}},
      {"scan --device llvmpipe -t u32" + io,
       {"--device selects a Vulkan device and does not apply with GPUSCAN_API=gl"}, "GPUSCAN_API=gl"},
      // Vulkan-only commands on GL: known before running, said in the CLI's words
      {"sort --api gl -t u32 --algorithm onesweep" + io,
       {"--algorithm onesweep is not offered with --api gl", "use --algorithm multipass or auto"}},
      // sort: --bits within the key's bits, whatever the number; --values-type only with --values
      {"sort -t u32 --bits 33" + io, {"--bits is E or B:E with 0 <= B <= E <= 32", "not '33'"}},
      {"sort -t u32 --bits 65" + io, {"--bits is E or B:E with 0 <= B <= E <= 32", "not '65'"}},
      {"sort -t u64 --bits 8:65" + io, {"0 <= B <= E <= 64 (the bits of a --type u64 key"}},
      {"sort -t u32 --values-type f32" + io, {"--values-type applies to --values only"}},
      // histogram: even bins take --bins, --lower and --upper together; --edges none of them
      {"histogram -t u32 --bins 2 --lower 0 --in " + missing, {"give --bins N --lower L --upper U (all three)"}},
      {"histogram -t u32 --bins 2 --upper 9 --in " + missing, {"give --bins N --lower L --upper U (all three)"}},
      {"histogram -t u32 --lower 0 --upper 9 --in " + missing, {"give --bins N --lower L --upper U (all three)"}},
      {"histogram -t u32 --edges " + missing + " --lower 0 --in " + missing,
       {"--edges FILE and --bins/--lower/--upper exclude each other"}},
      {"histogram -t u32 --bins 0 --lower 0 --upper 9 --in " + missing, {"--bins must be at least 1"}},
      {"histogram -t u32 --bins 2 --lower 9 --upper 0.5 --in " + missing,
       {"--lower and --upper must be finite with --lower below --upper, not [9, 0.5)"}},
      {"histogram -t u32 --bins 2 --lower 0 --upper inf --in " + missing, {"not [0, inf)"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.args + " [" + c.env + "]");
    const RunResult r = run(c.args, path("empty").string(), "GPUSCAN_DEVICE=no-such-gpu-anywhere " + c.env);
    std::vector<std::string> fragments = c.fragments;
    fragments.insert(fragments.begin(), "gpuscan: usage error: ");
    EXPECT_EQ(r.exit_code, 2) << r;
    for (const auto& fragment : fragments)
      EXPECT_NE(r.err.find(fragment), std::string::npos) << "expected '" << fragment << "' in stderr\n" << r;
    EXPECT_EQ(r.err.find("::"), std::string::npos) << "a C++ name in a CLI message\n" << r;
    EXPECT_TRUE(r.out.empty()) << r;
  }
  EXPECT_FALSE(fs::exists(path("out.bin")));
}

// What still goes together: custom operators with the multipass scan they run, segmented scans with
// reduce-then-scan, three-pass compaction on GL, and GPUSCAN_DEVICE, which GL ignores (it is often set for a
// whole session, unlike --device).
TEST_F(CliTest, OptionsThatAgreeStillRun) {
  write_file(path("op.glsl"), "#define T uint\nT identity() { return 0u; }\nT combine(T a, T b) { return a + b; }\n");
  write_file(path("v.txt"), "3\n1\n7\n0\n");
  write_file(path("f.txt"), "1\n0\n1\n0\n");
  const std::string v = " -f text --in " + shell_quote(path("v.txt").string()) + " --out -";
  for (const char* algorithm : {" --algorithm blelloch", " --algorithm multipass -a blelloch", " --algorithm auto"}) {
    const RunResult r =
        run(std::string("scan -t u32 --op-file ") + shell_quote(path("op.glsl").string()) + algorithm + v);
    ASSERT_EQ(r.exit_code, 0) << algorithm << "\n" << r;
    EXPECT_EQ(r.out, "0\n3\n4\n11\n") << r;
  }
  const RunResult segmented =
      run("scan -t u32 --algorithm auto -a auto --segments " + shell_quote(path("f.txt").string()) + v);
  ASSERT_EQ(segmented.exit_code, 0) << segmented;
  EXPECT_EQ(segmented.out, "0\n3\n0\n7\n") << segmented;
  const RunResult gl = run("compact --api gl -t u32 --pred nonzero --algorithm three-pass" + v, "",
                           "GPUSCAN_DEVICE=no-such-gpu-anywhere");
  ASSERT_EQ(gl.exit_code, 0) << gl;
  EXPECT_EQ(gl.out, "3\n1\n7\n") << gl;
}

// GPUSCAN_TIMEOUT_MS must be a number of milliseconds: anything else was read as far as its digits went
// (garbage as 0, that is the 60 s default; "5e3" as 5 ms).
TEST_F(CliTest, MalformedTimeoutEnvironmentVariableIsAnError) {
  write_file(path("in.bin"), std::string(8, '\0'));
  const std::string io =
      " --in " + shell_quote(path("in.bin").string()) + " --out " + shell_quote(path("out.bin").string());
  for (const char* value : {"garbage", "5e3", "0", "-1", "4294967296", " 100"}) {
    SCOPED_TRACE(value);
    const RunResult r = run("scan -t u32" + io, "", "GPUSCAN_TIMEOUT_MS=" + shell_quote(value));
    expect_failure(r, 1, {"gpuscan: error: GPUSCAN_TIMEOUT_MS is '" + std::string(value) + "'",
                          "whole number of milliseconds from 1 to 4294967295"});
    EXPECT_FALSE(fs::exists(path("out.bin")));
  }
  const RunResult ok = run("scan -t u32" + io, "", "GPUSCAN_TIMEOUT_MS=120000");
  EXPECT_EQ(ok.exit_code, 0) << ok;
}

// The Vulkan pipeline cache is kept between runs, one file per device under $XDG_CACHE_HOME/gpuscan; a
// damaged file is read as no cache and replaced, and --no-pipeline-cache neither reads nor writes one.
TEST_F(CliTest, PipelineCacheIsKeptBetweenRunsAndNeverFailsOne) {
  write_file(path("in.txt"), "3\n1\n7\n");
  const std::string io = " --format text --in " + shell_quote(path("in.txt").string()) + " --out " +
                         shell_quote(path("out.txt").string());
  const auto cache_files = [&](const fs::path& dir) {
    std::vector<fs::path> files;
    if (fs::exists(dir / "gpuscan"))
      for (const auto& entry : fs::directory_iterator(dir / "gpuscan"))
        if (entry.path().filename().string().starts_with("pipelines-")) files.push_back(entry.path());
    return files;
  };
  const RunResult first = run("scan -t u32" + io);
  ASSERT_EQ(first.exit_code, 0) << first;
  EXPECT_EQ(read_file(path("out.txt")), "0\n3\n4\n") << first;
  const std::vector<fs::path> files = cache_files(path("cache"));
  ASSERT_EQ(files.size(), 1u) << "one file for the one device";
  const std::string saved = read_file(files[0]);
  ASSERT_GE(saved.size(), 32u);

  for (const std::string& damaged : {std::string("garbage"), saved.substr(0, 20), std::string(saved.size(), '\xa5'),
                                     saved.substr(0, 32)}) {
    write_file(files[0], damaged);
    const RunResult r = run("scan -t u32" + io);
    EXPECT_EQ(r.exit_code, 0) << r;
    EXPECT_EQ(read_file(path("out.txt")), "0\n3\n4\n") << r;
    EXPECT_GE(read_file(files[0]).size(), 32u) << "the damaged file is replaced";
  }

  const RunResult off = run("--no-pipeline-cache scan -t u32" + io, "",
                            "XDG_CACHE_HOME=" + shell_quote(path("other").string()));
  EXPECT_EQ(off.exit_code, 0) << off;
  EXPECT_TRUE(cache_files(path("other")).empty());
}

TEST_F(CliTest, MalformedTextNamesFileAndLine) {
  struct Case {
    const char* type;
    const char* content;
    int line;
    const char* fragment;
  };
  const Case cases[] = {
      {"u32", "1\n2\n12x\n4\n", 3, "'12x'"},
      {"i32", "abc\n", 1, "'abc'"},
      {"u32", "1\n4294967296\n", 2, "out of range for u32"},
      {"u32", "5\n6\n7\n-1\n", 4, "out of range for u32"},
      {"i32", "1\n2147483648\n", 2, "out of range for i32"},
      {"f32", "1.5\nnope\n", 2, "'nope'"},
      {"u32", "1\n2\n\n3\n", 3, "empty line"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.content);
    write_file(path("bad.txt"), c.content);
    const RunResult r = run(std::string("scan --format text --type ") + c.type + " --in " +
                            shell_quote(path("bad.txt").string()) + " --out " + shell_quote(path("out.txt").string()));
    expect_failure(r, 1, {"gpuscan: error: " + path("bad.txt").string() + ":" + std::to_string(c.line) + ": ",
                          c.fragment});
    EXPECT_FALSE(fs::exists(path("out.txt")));
  }
}

// A binary file read with --format text: the message quotes the bad bytes escaped (a raw NUL ended it,
// control bytes reached the terminal) and says the file looks binary.
TEST_F(CliTest, BinaryFileReadAsTextIsQuotedSafelyWithAHint) {
  const uint32_t five[] = {1, 2, 3, 4, 5};
  write_file(path("five.bin"), std::string(reinterpret_cast<const char*>(five), sizeof five));
  std::mt19937 rng(5);
  std::string noise(3000, '\0');
  for (char& c : noise) c = static_cast<char>(rng());
  write_file(path("noise.bin"), noise);
  for (const char* name : {"five.bin", "noise.bin"}) {
    SCOPED_TRACE(name);
    const RunResult r = run("scan --type u32 --format text --in " + shell_quote(path(name).string()) + " --out -");
    expect_failure(r, 1, {"gpuscan: error: " + path(name).string() + ":", "(is it binary? use --format binary)\n"});
    for (const char c : r.err) {
      const auto byte = static_cast<unsigned char>(c);
      EXPECT_TRUE(c == '\n' || (byte >= 0x20 && byte < 0x7f)) << "byte " << int(byte) << " on stderr\n" << r;
    }
    EXPECT_LT(r.err.size(), 400u) << r;
  }
  const RunResult r = run("scan --type u32 --format text --in " + shell_quote(path("five.bin").string()) + " --out -");
  EXPECT_NE(r.err.find(":1: '\\x01\\x00\\x00\\x00\\x02\\x00\\x00\\x00\\x03"), std::string::npos) << r;
}

TEST_F(CliTest, MissingInputFile) {
  const RunResult r = run("scan --type f32 --in " + shell_quote(path("does-not-exist.bin").string()) + " --out " +
                          shell_quote(path("out.bin").string()));
  expect_failure(r, 1, {"gpuscan: error: ", path("does-not-exist.bin").string(), "No such file"});
}

TEST_F(CliTest, BinarySizeNotAMultipleOfFour) {
  write_file(path("odd.bin"), std::string(4001, 'x'));
  const RunResult r = run("scan --type u32 --in " + shell_quote(path("odd.bin").string()) + " --out " +
                          shell_quote(path("out.bin").string()));
  expect_failure(r, 1, {"gpuscan: error: " + path("odd.bin").string(), "4001", "not a multiple of 4"});
}

TEST_F(CliTest, UnwritableOutput) {
  write_file(path("in.bin"), std::string(8, '\0'));
  const RunResult r = run("scan --type u32 --in " + shell_quote(path("in.bin").string()) + " --out " +
                          shell_quote(path("no-such-dir/out.bin").string()));
  expect_failure(r, 1, {"gpuscan: error: cannot open", "no-such-dir/out.bin"});
}

TEST_F(CliTest, UnknownDevice) {
  const RunResult r = run("--device no-such-gpu-anywhere info");
  EXPECT_EQ(r.exit_code, 1) << r;
  EXPECT_NE(r.err.find("gpuscan: error: "), std::string::npos) << r;
  EXPECT_NE(r.out.find("[0] "), std::string::npos) << "info still lists the devices\n" << r;
}

TEST_F(CliTest, InvalidWorkgroupSizeIsALibraryError) {
  write_file(path("in.bin"), std::string(8, '\0'));
  const RunResult r = run("scan --type u32 -w 100 --in " + shell_quote(path("in.bin").string()) + " --out " +
                          shell_quote(path("out.bin").string()));
  expect_failure(r, 1, {"gpuscan: error: ", "100"});
}

// The guard every other test relies on: a validation-layer message must fail the run. The
// best-practices checks (enabled through the layer's environment variable) warn about
// VK_EXT_debug_utils, which --validate enables, so this run gets at least one warning.
TEST_F(CliTest, ValidationMessagesFailTheRun) {
  const RunResult r = run("info", "", "VK_LAYER_ENABLES=VK_VALIDATION_FEATURE_ENABLE_BEST_PRACTICES_EXT");
  EXPECT_EQ(r.exit_code, 3) << r;
  EXPECT_NE(r.err.find("gpuscan: validation warning: "), std::string::npos) << r;
  EXPECT_NE(r.err.find("the validation layer reported"), std::string::npos) << r;
}

// --- info, demo, --version ---------------------------------------------------------------------------

TEST_F(CliTest, VersionPrintsTheVersion) {
  const RunResult r = run("--version");
  EXPECT_EQ(r.exit_code, 0) << r;
  EXPECT_EQ(r.out, std::string("gpuscan ") + gpuscan::version + "\n");
}

TEST_F(CliTest, InfoListsAndMarksADevice) {
  const RunResult r = run("info");
  ASSERT_EQ(r.exit_code, 0) << r;
  EXPECT_NE(r.out.find("* ["), std::string::npos) << "no device marked as picked\n" << r;
  for (const char* field : {"subgroup operations", "push descriptors", "single-pass capable",
                            "max workgroup invocations", "max storage buffer range", "timestamp period",
                            "gpuscan picks:", "\ntuning profile: ", "\nalgorithm: ", "\nreconvergence: "})
    EXPECT_NE(r.out.find(field), std::string::npos) << field << "\n" << r;
  // The profile the defaults come from, by name, and where its numbers came from.
  const size_t profile = r.out.find("\ntuning profile: ") + 17;
  const std::string profile_name = r.out.substr(profile, r.out.find(' ', profile) - profile);
  EXPECT_TRUE(profile_name == "nvidia-h200" || profile_name == "nvidia-h100" || profile_name == "lavapipe" ||
              profile_name == "conservative")
      << profile_name << '\n' << r;
  EXPECT_EQ(r.out.compare(profile + profile_name.size(), 5, " — "), 0) << r;
  // One of the three guarantees, and on a device that offers neither (lavapipe) why none.
  const size_t at = r.out.find("\nreconvergence: ");
  const std::string guarantee = r.out.substr(at + 16, r.out.find(' ', at + 16) - at - 16);
  EXPECT_TRUE(guarantee == "maximal" || guarantee == "subgroup-uniform" || guarantee == "none") << guarantee << '\n' << r;
  if (guarantee == "none") EXPECT_NE(r.out.find("reconvergence: none (the device offers"), std::string::npos) << r;
  // Without --n the choice is described for 2^24 elements; no plan is printed.
  EXPECT_NE(r.out.find(" for 16777216 elements"), std::string::npos) << r;
  EXPECT_EQ(r.out.find("plan for n"), std::string::npos) << r;
  EXPECT_TRUE(r.err.empty()) << r;
}

TEST_F(CliTest, InfoPrintsThePlanForN) {
  const RunResult r = run("info --n 100000 --type f32 --inclusive --algorithm multipass -a blelloch --workgroup-size 64");
  ASSERT_EQ(r.exit_code, 0) << r;
  EXPECT_NE(r.out.find("algorithm: multipass for 100000 elements"), std::string::npos) << r;
  EXPECT_NE(r.out.find("plan for n = 100000 (f32, inclusive, tiles of 128 elements; temp buffer "), std::string::npos)
      << r;
  EXPECT_NE(r.out.find("multipass (blelloch workgroup scan), W = 64\n"), std::string::npos) << r;
  EXPECT_NE(r.out.find("addressing: bindings"), std::string::npos) << r;  // one binding holds 100000 f32
  EXPECT_NE(r.out.find("scan_local"), std::string::npos) << r;
  EXPECT_NE(r.out.find("uniform_add"), std::string::npos) << r;
  EXPECT_TRUE(r.err.empty()) << r;
}

// Counts are whole decimal numbers that fit 64 bits: a larger one is a usage error, not a count clamped to
// 2^64 - 1 (whose plan once grew until the process was killed), and leading zeros do not make it octal.
// A count that fits 64 bits but no device's memory is the library's too_large, at once.
TEST_F(CliTest, CountsPast64BitsAreUsageErrors) {
  for (const std::string command : {"info", "demo"})
    for (const std::string n : {"99999999999999999999", "18446744073709551616"})
      expect_failure(run(command + " --n " + n), 2, {"usage error", "'" + n + "'", "18446744073709551615"});
  expect_failure(run("info --n 4 -w 99999999999"), 2, {"usage error", "99999999999", "4294967295"});
  const RunResult octal = run("info --n 010 --algorithm multipass");
  ASSERT_EQ(octal.exit_code, 0) << octal;
  EXPECT_NE(octal.out.find("plan for n = 10 "), std::string::npos) << octal;
  const RunResult most = run("info --n 18446744073709551615");
  EXPECT_EQ(most.exit_code, 1) << most;
  EXPECT_NE(most.err.find("gpuscan: error: a scan of 18446744073709551615 elements"), std::string::npos) << most;
  EXPECT_NE(most.err.find("64-bit"), std::string::npos) << most;
  const RunResult huge = run("info --n 1125899906842624");
  EXPECT_EQ(huge.exit_code, 1) << huge;
  EXPECT_NE(huge.err.find("a scan of 1125899906842624 elements of 4 bytes"), std::string::npos) << huge;
  EXPECT_NE(huge.err.find("largest memory heap"), std::string::npos) << huge;
}

// The automatic choice for a million elements: single-pass where the device can (lavapipe can), with
// its plan: the look-back state zeroed, then one dispatch.
TEST_F(CliTest, InfoChoosesSinglePassForAMillionElements) {
  const RunResult r = run("info --n 1000000");
  ASSERT_EQ(r.exit_code, 0) << r;
  const size_t picked = r.out.find("* [");
  ASSERT_NE(picked, std::string::npos) << r;
  const std::string name = r.out.substr(picked, r.out.find('\n', picked) - picked);
  const size_t capable_at = r.out.find("single-pass capable", picked);
  ASSERT_NE(capable_at, std::string::npos) << r;
  const bool capable =
      r.out.substr(capable_at, r.out.find('\n', capable_at) - capable_at).find("yes") != std::string::npos;
  if (is_lavapipe(name)) EXPECT_TRUE(capable) << "lavapipe has what the single-pass scan needs\n" << r;
  if (!capable) GTEST_SKIP() << name << " is not single-pass capable";
  EXPECT_NE(r.out.find("\nalgorithm: single-pass for 1000000 elements"), std::string::npos) << r;
  EXPECT_NE(r.out.find("(automatic: "), std::string::npos) << r;
  EXPECT_NE(r.out.find("plan for n = 1000000 (u32, exclusive, tiles of 4096 elements; temp buffer "),
            std::string::npos)
      << r;
  EXPECT_NE(r.out.find("single-pass, W = 256, 4 vectors per lane"), std::string::npos) << r;
  EXPECT_NE(r.out.find("fill zero"), std::string::npos) << r;
  EXPECT_NE(r.out.find("single_pass"), std::string::npos) << r;
  EXPECT_EQ(r.out.find("scan_local"), std::string::npos) << r;
  EXPECT_TRUE(r.err.empty()) << r;
}

TEST_F(CliTest, InfoWithAnExplicitAlgorithm) {
  const PickedDevice device = picked_device();
  if (!device.subgroup_arithmetic) GTEST_SKIP() << device.name << " has no subgroup arithmetic";
  const RunResult r = run("info --n 1000000 --algorithm reduce-then-scan --vectors-per-lane 2");
  ASSERT_EQ(r.exit_code, 0) << r;
  EXPECT_NE(r.out.find("algorithm: reduce-then-scan for 1000000 elements"), std::string::npos) << r;
  EXPECT_NE(r.out.find("tiles of 2048 elements"), std::string::npos) << r;
  EXPECT_NE(r.out.find("reduce_tiles"), std::string::npos) << r;
  EXPECT_NE(r.out.find("scan_tiles"), std::string::npos) << r;
  EXPECT_EQ(r.out.find("(automatic: "), std::string::npos) << r;
}

// Float single-pass scans take the ordered look-back unless --nondeterministic asks for the unordered
// one: `info` names the look-back, and a scan with either checks out against the CPU.
TEST_F(CliTest, NondeterministicSelectsTheUnorderedLookBack) {
  const PickedDevice device = picked_device();
  if (!device.single_pass) GTEST_SKIP() << device.name << " is not single-pass capable";
  const RunResult ordered = run("info --n 1000000 --type f32 --algorithm single-pass");
  ASSERT_EQ(ordered.exit_code, 0) << ordered;
  EXPECT_NE(ordered.out.find("; ordered look-back (the same bits on every run"), std::string::npos) << ordered;
  const RunResult unordered = run("info --n 1000000 --type f32 --algorithm single-pass --nondeterministic");
  ASSERT_EQ(unordered.exit_code, 0) << unordered;
  EXPECT_NE(unordered.out.find("; unordered look-back (the last bits may differ"), std::string::npos) << unordered;
  EXPECT_EQ(unordered.out.find("; ordered look-back"), std::string::npos) << unordered;
  const auto in = random_words(DataType::f32, 300007, 11);
  write_file(path("in.bin"), to_file_content(in, DataType::f32, false));
  for (const std::string flag : {"", " --nondeterministic"}) {
    const RunResult r = run("scan --algorithm single-pass -t f32 --inclusive --verify" + flag + " -i " +
                            shell_quote(path("in.bin").string()) + " -o " + shell_quote(path("out.bin").string()));
    ASSERT_EQ(r.exit_code, 0) << r;
  }
}

// Every algorithm, exclusive and inclusive, or a note saying why the device cannot run it.
TEST_F(CliTest, DemoPasses) {
  const RunResult r = run("demo --n 100000");
  ASSERT_EQ(r.exit_code, 0) << r;
  EXPECT_NE(r.out.find("seed "), std::string::npos) << r;
  const bool lavapipe = r.out.find("device: llvmpipe") != std::string::npos;
  int rows = 0;
  for (const std::string name : {"single-pass", "reduce-then-scan", "multipass-subgroup", "multipass-blelloch"}) {
    char label[32];
    std::snprintf(label, sizeof label, "  %-18s  ", name.c_str());
    if (r.out.find(label + std::string("skipped: ")) != std::string::npos) {
      EXPECT_FALSE(lavapipe || name == "multipass-blelloch") << name << " skipped\n" << r;
      continue;
    }
    for (const std::string kind : {"exclusive", "inclusive"}) {
      const size_t row = r.out.find(label + kind + "  GPU ");
      ASSERT_NE(row, std::string::npos) << name << " " << kind << "\n" << r;
      const std::string line = r.out.substr(row, r.out.find('\n', row) - row);
      EXPECT_TRUE(line.ends_with("  OK")) << line;
      EXPECT_NE(line.find("Melem/s"), std::string::npos) << line;
      ++rows;
    }
  }
  EXPECT_NE(r.out.find("all " + std::to_string(rows) + " scans match the CPU reference"), std::string::npos) << r;
  EXPECT_EQ(r.out.find("MISMATCH"), std::string::npos) << r;
  EXPECT_TRUE(r.err.empty()) << r;
}

TEST_F(CliTest, DemoWithOneAlgorithm) {
  const RunResult r = run("demo --n 20000 --algorithm blelloch -w 64");
  ASSERT_EQ(r.exit_code, 0) << r;
  EXPECT_NE(r.out.find("running multipass-blelloch only"), std::string::npos) << r;
  EXPECT_NE(r.out.find("  multipass-blelloch  exclusive  GPU "), std::string::npos) << r;
  EXPECT_NE(r.out.find("  multipass-blelloch  inclusive  GPU "), std::string::npos) << r;
  for (const char* other : {"  single-pass  ", "  reduce-then-scan  ", "  multipass-subgroup  "})
    EXPECT_EQ(r.out.find(other), std::string::npos) << other << "\n" << r;
  EXPECT_NE(r.out.find("all 2 scans match the CPU reference"), std::string::npos) << r;
  EXPECT_TRUE(r.err.empty()) << r;
}

// The experimental look-ahead scan runs in the demo only when named (a plain demo leaves it out).
TEST_F(CliTest, DemoRunsTheLookAheadScanOnlyWhenNamed) {
  const RunResult r = run("demo --n 20000 --algorithm look-ahead");
  if (r.exit_code == 0) {
    EXPECT_NE(r.out.find("  look-ahead          exclusive  GPU "), std::string::npos) << r;
    EXPECT_NE(r.out.find("all 2 scans match the CPU reference"), std::string::npos) << r;
  } else {
    SKIP_IF_DEVICE_CANNOT(r, "look-ahead");
    FAIL() << r;
  }
  const RunResult every = run("demo --n 2000");
  ASSERT_EQ(every.exit_code, 0) << every;
  EXPECT_EQ(every.out.find("look-ahead"), std::string::npos) << every;
}

TEST_F(CliTest, DemoF32WithSeedIsRepeatable) {
  const RunResult a = run("demo --n 5000 --type f32 --seed 1234");
  ASSERT_EQ(a.exit_code, 0) << a;
  EXPECT_NE(a.out.find("seed 1234 "), std::string::npos) << a;
  EXPECT_NE(a.out.find("random f32 values"), std::string::npos) << a;
}

// More elements than one binding holds (lavapipe binds 128 MiB: 2^25 u32) scan in windows chained on
// the GPU, or through device addresses, as every scan of that size does; the demo says which.
TEST_F(CliTest, DemoPastOneBinding) {
  const RunResult r = run("demo --n 34000000 --algorithm reduce-then-scan");
  ASSERT_EQ(r.exit_code, 0) << r;
  EXPECT_NE(r.out.find("\naddressing: "), std::string::npos) << r;
  EXPECT_NE(r.out.find("  reduce-then-scan    exclusive  GPU "), std::string::npos) << r;
  EXPECT_NE(r.out.find("all 2 scans match the CPU reference"), std::string::npos) << r;
  EXPECT_TRUE(r.err.empty()) << r;
}

// Every command's --help ends with examples, and the top-level help documents the exit codes.
TEST_F(CliTest, HelpOfEveryCommandShowsExamples) {
  for (const std::string command : {"", "info ", "scan ", "reduce ", "compact ", "unique ", "demo "}) {
    const RunResult r = run(command + "--help");
    ASSERT_EQ(r.exit_code, 0) << command << r;
    const size_t examples = r.out.find("\nExamples:\n  ");
    EXPECT_NE(examples, std::string::npos) << command << r;
    // An example runs the command (reduce's first one pipes seq into it).
    EXPECT_NE(r.out.find("gpuscan " + command, examples), std::string::npos) << command << r;
    EXPECT_NE(r.out.find("Exit codes: 0 success; 1 error"), std::string::npos) << command << r;
  }
}

TEST_F(CliTest, HelpDocumentsTheExitCodesMainReturns) {
  const RunResult r = run("--help");
  ASSERT_EQ(r.exit_code, 0) << r;
  for (const char* code : {"0 success", "1 error", "2 usage error", "3 validation-layer messages"})
    EXPECT_NE(r.out.find(code), std::string::npos) << code << "\n" << r;
  // ... and they are the codes the tool returns (3 is covered by ValidationMessagesFailTheRun).
  EXPECT_EQ(run("no-such-command").exit_code, 2);
  EXPECT_EQ(run("--device no-such-device-anywhere info").exit_code, 1);
}

// `python3 -m json.tool` accepts the document and a Python check finds its parts; skipped without python3.
bool have_python() { return std::system("python3 -c '' >/dev/null 2>&1") == 0; }

TEST_F(CliTest, InfoJsonIsValidJson) {
  if (!have_python()) GTEST_SKIP() << "python3 not found";
  const RunResult r = run("info --json");
  ASSERT_EQ(r.exit_code, 0) << r;
  EXPECT_TRUE(r.err.empty()) << r;
  write_file(path("info.json"), r.out);
  const std::string file = shell_quote(path("info.json").string());
  EXPECT_EQ(std::system(("python3 -m json.tool " + file + " >/dev/null").c_str()), 0) << r;
  const std::string check =
      "import json, sys\n"
      "d = json.load(open(sys.argv[1]))\n"
      "assert d['gpuscan_version'] == sys.argv[2], d['gpuscan_version']\n"
      "assert len(d['devices']) >= 1\n"
      "picked = [x for x in d['devices'] if x['picked']]\n"
      "assert len(picked) == 1 and picked[0]['index'] == d['picked']['index'], picked\n"
      "assert picked[0]['name'] == d['picked']['name']\n"
      "assert isinstance(picked[0]['subgroup_operations'], list)\n"
      "assert len(picked[0]['max_workgroup_count']) == 3\n"
      "assert d['picked']['reconvergence'] in ('maximal', 'subgroup-uniform', 'none'), d['picked']\n"
      "assert isinstance(picked[0]['maximal_reconvergence'], bool)\n"
      "c = d['choice']\n"
      "assert c['n'] == 16777216 and c['type'] == 'u32' and c['kind'] == 'exclusive', c\n"
      "assert c['algorithm'] in ('single-pass', 'reduce-then-scan', 'multipass'), c\n"
      "assert c['description'].startswith(c['algorithm'] + ' for 16777216 elements'), c\n"
      "assert 'plan' not in c and 'error' not in d\n"
      "p = d['tuning_profile']\n"
      "assert p['name'] in ('nvidia-h200', 'nvidia-h100', 'lavapipe', 'conservative') and p['source'], p\n";
  write_file(path("check.py"), check);
  EXPECT_EQ(std::system(("python3 " + shell_quote(path("check.py").string()) + " " + file + " " +
                         shell_quote(std::string(gpuscan::version)))
                            .c_str()),
            0)
      << r;
}

TEST_F(CliTest, InfoJsonWithPlan) {
  if (!have_python()) GTEST_SKIP() << "python3 not found";
  const RunResult r = run("info --json --n 100000 --type f32 --inclusive --algorithm multipass -a blelloch -w 64");
  ASSERT_EQ(r.exit_code, 0) << r;
  write_file(path("info.json"), r.out);
  const std::string check =
      "import json, sys\n"
      "c = json.load(open(sys.argv[1]))['choice']\n"
      "assert (c['n'], c['type'], c['kind'], c['algorithm']) == (100000, 'f32', 'inclusive', 'multipass'), c\n"
      "assert c['workgroup_algorithm'] == 'blelloch' and c['workgroup_size'] == 64, c\n"
      "assert c['tile_elements'] == 128, c\n"
      "assert any('scan_local' in line for line in c['plan']), c['plan']\n";
  write_file(path("check.py"), check);
  EXPECT_EQ(std::system(("python3 " + shell_quote(path("check.py").string()) + " " +
                         shell_quote(path("info.json").string()))
                            .c_str()),
            0)
      << r;
}

// No device matches: still a whole document (devices listed, nothing picked, the error named), exit 1.
TEST_F(CliTest, InfoJsonForAnUnknownDevice) {
  if (!have_python()) GTEST_SKIP() << "python3 not found";
  const RunResult r = run("--device no-such-device-anywhere info --json");
  EXPECT_EQ(r.exit_code, 1) << r;
  EXPECT_NE(r.err.find("no-such-device-anywhere"), std::string::npos) << r;
  write_file(path("info.json"), r.out);
  write_file(path("check.py"),
             "import json, sys\n"
             "d = json.load(open(sys.argv[1]))\n"
             "assert d['picked'] is None and d['choice'] is None and d['tuning_profile'] is None, d\n"
             "assert not any(x['picked'] for x in d['devices'])\n"
             "assert 'no-such-device-anywhere' in d['error']['message'], d['error']\n");
  EXPECT_EQ(std::system(("python3 " + shell_quote(path("check.py").string()) + " " +
                         shell_quote(path("info.json").string()))
                            .c_str()),
            0)
      << r;
}

// Progress lines appear on a terminal only. Without one (every other test) stderr stays empty; under
// script(1), which gives the command a pseudo-terminal, there is one line per algorithm that runs.
TEST_F(CliTest, DemoShowsProgressOnlyOnATerminal) {
  const RunResult plain = run("demo --n 3000 --seed 7");
  ASSERT_EQ(plain.exit_code, 0) << plain;
  EXPECT_EQ(plain.err.find("gpuscan demo: ["), std::string::npos) << plain;
  EXPECT_EQ(plain.out.find("gpuscan demo: ["), std::string::npos) << plain;
  if (std::system("script --version >/dev/null 2>&1") != 0) GTEST_SKIP() << "script(1) not found";

  const std::string inner = shell_quote(GPUSCAN_CLI_PATH) + " --validate demo --n 3000 --seed 7";
  const fs::path log = path("tty.log");
  const int status = std::system(("script -qec " + shell_quote(inner) + " /dev/null </dev/null >" +
                                  shell_quote(log.string()) + " 2>&1")
                                     .c_str());
  const std::string tty = read_file(log);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << tty;
  int skipped = 0;
  for (size_t at = tty.find("skipped: "); at != std::string::npos; at = tty.find("skipped: ", at + 1)) ++skipped;
  int lines = 0;
  for (size_t at = tty.find("gpuscan demo: ["); at != std::string::npos; at = tty.find("gpuscan demo: [", at + 1))
    ++lines;
  EXPECT_EQ(lines + skipped, 4) << tty;
  EXPECT_NE(tty.find("gpuscan demo: [4/4] multipass-blelloch: "), std::string::npos) << tty;
  EXPECT_NE(tty.find("scans match the CPU reference"), std::string::npos) << tty;
}


// --- Custom operators (--op-file) ------------------------------------------------------------------

// Affine maps x -> a*x + b on u32, composed f first: not commutative. Each element is two u32 values.
const char* affine_op = R"(struct Affine { uint a; uint b; };
#define T Affine
T identity() { return Affine(1u, 0u); }
T combine(T f, T g) { return Affine(g.a * f.a, g.a * f.b + g.b); }
)";

std::vector<uint32_t> affine_reference(const std::vector<uint32_t>& in, ScanKind kind) {
  std::vector<uint32_t> out(in.size());
  uint32_t a = 1, b = 0;
  for (size_t i = 0; i + 1 < in.size(); i += 2) {
    if (kind == ScanKind::exclusive) out[i] = a, out[i + 1] = b;
    const uint32_t ga = in[i], gb = in[i + 1];
    b = ga * b + gb;
    a = ga * a;
    if (kind == ScanKind::inclusive) out[i] = a, out[i + 1] = b;
  }
  return out;
}

// The operator file read, its element size checked and named, and values taken two to an element, in both
// formats. The operators' scans themselves (kinds, sizes, element layouts) are the GPU suites' (CustomOpTest.*).
TEST_F(CliTest, CustomOperatorFromAFile) {
  write_file(path("affine.glsl"), affine_op);
  const auto in = random_words(DataType::u32, 2 * 70001, 11);
  write_file(path("in.bin"), to_file_content(in, DataType::u32, false));
  const RunResult r = run("scan --type u32 --op-file " + shell_quote(path("affine.glsl").string()) +
                          " --element-size 8 -w 32 -i " + shell_quote(path("in.bin").string()) + " -o " +
                          shell_quote(path("out.bin").string()));
  ASSERT_EQ(r.exit_code, 0) << r;
  EXPECT_NE(r.err.find("70001 8-byte elements (multipass (blelloch workgroup scan), W = 32"), std::string::npos) << r;
  EXPECT_EQ(from_file_content(read_file(path("out.bin")), DataType::u32, false),
            affine_reference(in, ScanKind::exclusive));
  // The example of docs/scan.md, in the text format: two values an element.
  write_file(path("in.txt"), "2\n1\n3\n0\n1\n5\n");
  const RunResult text = run("scan -t u32 -f text --inclusive --op-file " + shell_quote(path("affine.glsl").string()) +
                             " -i " + shell_quote(path("in.txt").string()) + " -o -");
  ASSERT_EQ(text.exit_code, 0) << text;
  EXPECT_EQ(text.out, "2\n1\n6\n3\n6\n8\n");
}

TEST_F(CliTest, CustomOperatorErrors) {
  write_file(path("bad.glsl"), "#define T uint\nT identity() { return 0u; }\nT combine(T a, T b) { return a + oops; }\n");
  write_file(path("affine.glsl"), affine_op);
  write_file(path("in.bin"), std::string(12, '\0'));  // three u32 values: not whole affine maps
  const std::string io = " -i " + shell_quote(path("in.bin").string()) + " -o " + shell_quote(path("out.bin").string());
  const std::string affine = " --op-file " + shell_quote(path("affine.glsl").string());
  expect_failure(run("scan -t u32 --op-file " + shell_quote(path("bad.glsl").string()) + io), 1,
                 {"gpuscan: error: ", "did not compile", "custom_op.glsl:3", "oops"});
  expect_failure(run("scan -t u32" + affine + io), 1, {"holds 3 u32 values", "2 values (8 bytes)"});
  expect_failure(run("scan -t u32 --element-size 12" + affine + io), 1, {"element_size is 12", "takes 8 bytes"});
  expect_failure(run("scan -t u32 --verify" + affine + io), 2, {"usage error: --verify", "no CPU reference"});
  expect_failure(run("scan -t u32 --op add" + affine + io), 2, {"--op"});
  expect_failure(run("scan -t u32 --element-size 8" + io), 2, {"--op-file"});
  expect_failure(run("scan -t u32 --op-file " + shell_quote(path("missing.glsl").string()) + io), 1,
                 {"cannot read the operator file"});
}

}  // namespace

// --- compact: predicates, flags, --partition, both paths, against a CPU reference --------------------

namespace compact_e2e {

float as_float(uint32_t w) { return std::bit_cast<float>(w); }

struct PredCase {
  DataType type;
  std::string pred;
  std::function<bool(uint32_t)> keep;  // on the element's bit pattern
};

// One predicate a run, over the types; the four runs take each --path and --format and both with and
// without --partition. Every predicate family at every density, size and path is the GPU suites'
// (CompactTest.EveryPredicateAndDensityMatchesCopyIf, CompactTest.PartitionEveryPredicateAndDensityMatchesStablePartition),
// and the parsing of every --pred form predicate_text_test.cpp's (PredicateText.EveryFormInItsType).
std::vector<PredCase> pred_cases() {
  return {
      {DataType::u32, "range:1000:3000000000", [](uint32_t w) { return 1000u <= w && w <= 3000000000u; }},
      {DataType::i32, "lt:0", [](uint32_t w) { return static_cast<int32_t>(w) < 0; }},
      {DataType::f32, "gt:12.5", [](uint32_t w) { return as_float(w) > 12.5f; }},
      {DataType::u32, "bit:0x10", [](uint32_t w) { return (w & 0x10u) != 0; }},
  };
}

// What gpuscan compact must write: the kept words, then (with partition) the rejected ones, in order.
std::vector<uint32_t> reference(const std::vector<uint32_t>& in, const std::function<bool(uint32_t)>& keep,
                                bool partition, size_t& kept) {
  std::vector<uint32_t> out, rejected;
  for (uint32_t w : in) (keep(w) ? out : rejected).push_back(w);
  kept = out.size();
  if (partition) out.insert(out.end(), rejected.begin(), rejected.end());
  return out;
}

// `unique` keeps the first of each run (numbers compare as numbers: -0 == 0, NaN starts its own run), and
// with --partition puts the repeats after; the same on GL. Every type, size and path is the GPU suites'
// (CompactTest.RunStartsMatchUniqueCopy).
TEST_F(CliTest, UniqueKeepsTheFirstOfEachRun) {
  write_file(path("runs.txt"), "3\n-0\n0\nnan\nnan\n7\n7\n-2.5\n");
  const std::string io = " --format text -i " + shell_quote(path("runs.txt").string()) + " -o -";
  for (const std::string api : {"", " --api gl"}) {
    RunResult r = run("unique --type f32" + api + io);
    ASSERT_EQ(r.exit_code, 0) << api << r;
    EXPECT_EQ(r.out, "3\n-0\nnan\nnan\n7\n-2.5\n") << api;
    EXPECT_NE(r.err.find("kept 6 of 8 f32 elements (predicate run-start)"), std::string::npos) << r;
    r = run("unique --type f32 --partition" + api + io);
    ASSERT_EQ(r.exit_code, 0) << api << r;
    EXPECT_EQ(r.out, "3\n-0\nnan\nnan\n7\n-2.5\n0\n7\n") << api;
  }
  write_file(path("ids.txt"), "18446744073709551615\n18446744073709551615\n1\n1\n18446744073709551615\n");
  const RunResult r = run("unique --type u64 --algorithm three-pass --format text -i " +
                          shell_quote(path("ids.txt").string()) + " -o -");
  ASSERT_EQ(r.exit_code, 0) << r;
  EXPECT_EQ(r.out, "18446744073709551615\n1\n18446744073709551615\n");
}

// `unique --sort` sorts first: the distinct values in ascending order (std::sort + std::unique), on both
// APIs, for random 64-bit inputs with few distinct values (so runs are long and the sort's digits repeat);
// the seed is drawn fresh (GPUSCAN_SEED replays it). --partition does not combine with it.
TEST_F(CliTest, UniqueSortWritesTheDistinctValues) {
  const char* fixed = std::getenv("GPUSCAN_SEED");
  const uint64_t seed = fixed ? std::strtoull(fixed, nullptr, 0) : std::random_device{}();
  SCOPED_TRACE("GPUSCAN_SEED=" + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const size_t n = std::uniform_int_distribution<size_t>(0, 5000)(rng);
  std::vector<int64_t> pool(std::uniform_int_distribution<size_t>(1, 40)(rng));
  for (int64_t& v : pool) v = static_cast<int64_t>(rng());
  std::vector<int64_t> in(n);
  std::string text;
  for (int64_t& v : in) {
    v = pool[rng() % pool.size()];
    text += std::to_string(v) + "\n";
  }
  write_file(path("ids.txt"), text);
  std::vector<int64_t> want = in;
  std::sort(want.begin(), want.end());
  want.erase(std::unique(want.begin(), want.end()), want.end());
  std::string expected;
  for (int64_t v : want) expected += std::to_string(v) + "\n";
  const std::string io = " --format text -i " + shell_quote(path("ids.txt").string()) + " -o -";
  for (const std::string api : {"", " --api gl"}) {
    const RunResult r = run("unique --type i64 --sort" + api + io);
    ASSERT_EQ(r.exit_code, 0) << api << r;
    EXPECT_EQ(r.out, expected) << api << " n=" << n;
    EXPECT_NE(r.err.find("kept " + std::to_string(want.size()) + " of " + std::to_string(n) + " i64 elements"),
              std::string::npos) << r;
  }
  expect_failure(run("unique --type i64 --sort --partition" + io), 2, {"--sort writes the distinct values"});
}

TEST_F(CliTest, RleWritesEachRunAndItsLength) {
  write_file(path("runs.txt"), "3\n-0\n0\nnan\nnan\n7\n7\n7\n-2.5\n");
  const std::string in = " --format text -i " + shell_quote(path("runs.txt").string());
  RunResult r = run("rle --type f32" + in + " --values " + shell_quote(path("v.txt").string()) + " --lengths -");
  ASSERT_EQ(r.exit_code, 0) << r;
  EXPECT_EQ(r.out, "1\n2\n1\n1\n3\n1\n");
  EXPECT_EQ(read_file(path("v.txt")), "3\n-0\nnan\nnan\n7\n-2.5\n");
  EXPECT_NE(r.err.find("6 runs in 9 f32 elements"), std::string::npos) << r;
  r = run("rle --type f32 --non-trivial" + in + " --offsets - --lengths " + shell_quote(path("l.txt").string()));
  ASSERT_EQ(r.exit_code, 0) << r;
  EXPECT_EQ(r.out, "1\n5\n");
  EXPECT_EQ(read_file(path("l.txt")), "2\n3\n");
  r = run("rle --type f32 --non-trivial" + in + " --values -");
  EXPECT_EQ(r.exit_code, 2) << r;
  EXPECT_NE(r.err.find("--non-trivial writes --offsets and --lengths"), std::string::npos) << r;
  r = run("rle --type f32" + in + " --offsets -");
  EXPECT_EQ(r.exit_code, 2) << r;
  EXPECT_NE(r.err.find("rle writes --values and --lengths, not --offsets"), std::string::npos) << r;
  r = run("rle --type f32" + in);
  EXPECT_EQ(r.exit_code, 2) << r;
  EXPECT_NE(r.err.find("give --values FILE and/or --lengths FILE"), std::string::npos) << r;
  r = run("rle --type f32 --algorithm four-pass" + in + " --lengths -");
  EXPECT_EQ(r.exit_code, 2) << r;
  EXPECT_NE(r.err.find("unknown algorithm 'four-pass'; valid algorithms: auto, three-pass, single-pass"),
            std::string::npos)
      << r;
  // Every algorithm and ranking path finds the same runs; OpenGL too.
  for (const std::string shape : {" --algorithm three-pass", " --algorithm single-pass", " --path shared-memory",
                                  " --path ballot --algorithm three-pass", " --api gl"}) {
    r = run("rle --type f32" + shape + in + " --lengths -");
    ASSERT_EQ(r.exit_code, 0) << shape << r;
    EXPECT_EQ(r.out, "1\n2\n1\n1\n3\n1\n") << shape;
  }
  r = run("rle --help");
  ASSERT_EQ(r.exit_code, 0) << r;
  EXPECT_NE(r.out.find("with --non-trivial: write where each run starts (u32)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("not with --non-trivial: write the first element of each run"), std::string::npos) << r.out;
}

// --- Operators, 64-bit types and `reduce` -----------------------------------------------------------

TEST_F(CliTest, ScanWithOperatorAndSixtyFourBitType) {
  write_file(path("t.txt"), "-40\n12\n7\n-3\n25\n0\n");
  RunResult r = run("scan --type i64 --op max --inclusive --format text --verify -i " + shell_quote(path("t.txt").string()) +
                    " -o -");
  ASSERT_EQ(r.exit_code, 0) << r;
  EXPECT_EQ(r.out, "-40\n12\n12\n12\n25\n25\n");
  EXPECT_NE(r.err.find("inclusive max scan of 6 i64 elements"), std::string::npos) << r;
  r = run("scan --type i64 --op min --format text -i " + shell_quote(path("t.txt").string()) + " -o -");
  ASSERT_EQ(r.exit_code, 0) << r;
  EXPECT_EQ(r.out, "9223372036854775807\n-40\n-40\n-40\n-40\n-40\n") << "the exclusive min starts at the identity";
  write_file(path("u.txt"), "18446744073709551615\n1\n");
  r = run("scan --type u64 --inclusive --format text -i " + shell_quote(path("u.txt").string()) + " -o -");
  ASSERT_EQ(r.exit_code, 0) << r;
  EXPECT_EQ(r.out, "18446744073709551615\n0\n") << "u64 sums wrap";
}

// Each type and each operator once, through `scan --verify` and `reduce --verify` on random text: the
// --type and --op names reach the library, each type's text is read, and the CLI's check agrees with the
// GPU. Every (type, operator) pair on every algorithm is the GPU suites' (OpsTest.EveryTypeAndOperator,
// ReduceTest.EveryTypeAndOperatorAroundLevelBoundaries); add runs in most other tests here.
TEST_F(CliTest, EachTypeAndOperatorVerifies) {
  std::mt19937_64 rng(12345);
  const std::pair<DataType, std::string> pairs[] = {{DataType::u32, "xor"}, {DataType::i32, "and"},
                                                    {DataType::f32, "max"}, {DataType::u64, "or"},
                                                    {DataType::i64, "mul"}, {DataType::f64, "min"}};
  for (const auto& [type, op] : pairs) {
    const std::string type_name(gpuscan::to_string(type));
    SCOPED_TRACE(type_name + " " + op);
    const bool floating = type == DataType::f32 || type == DataType::f64;
    std::string text;
    for (int i = 0; i < 5000; ++i) {
      const uint64_t r = rng();
      if (floating) text += std::to_string(static_cast<int>(r % 2001) - 1000) + "." + std::to_string(r % 7) + "\n";
      else if (type == DataType::u32) text += std::to_string(static_cast<uint32_t>(r)) + "\n";
      else if (type == DataType::i32) text += std::to_string(static_cast<int32_t>(r)) + "\n";
      else if (type == DataType::u64) text += std::to_string(r) + "\n";
      else text += std::to_string(static_cast<int64_t>(r)) + "\n";
    }
    write_file(path("in.txt"), text);
    const std::string common =
        "--type " + type_name + " --op " + op + " --format text --verify -i " + shell_quote(path("in.txt").string());
    const RunResult s = run("scan " + common + " -o " + shell_quote(path("out.txt").string()));
    EXPECT_EQ(s.exit_code, 0) << s;
    EXPECT_NE(s.err.find(" " + op + " scan of 5000 " + type_name + " elements"), std::string::npos) << s;
    EXPECT_NE(s.err.find("verified against the CPU reference"), std::string::npos) << s;
    const RunResult r = run("reduce " + common);
    EXPECT_EQ(r.exit_code, 0) << r;
    EXPECT_NE(r.err.find(op + " reduction of 5000 " + type_name + " elements"), std::string::npos) << r;
    EXPECT_NE(r.err.find("verified against the CPU reference"), std::string::npos) << r;
  }
}

TEST_F(CliTest, ReduceCommand) {
  write_file(path("seq.txt"), [] {
    std::string s;
    for (int i = 1; i <= 100; ++i) s += std::to_string(i) + "\n";
    return s;
  }());
  RunResult r = run("reduce --type u32 --format text -i " + shell_quote(path("seq.txt").string()));
  ASSERT_EQ(r.exit_code, 0) << r;
  EXPECT_EQ(r.out, "5050\n");
  EXPECT_NE(r.err.find("add reduction of 100 u32 elements"), std::string::npos) << r;
  r = run("reduce --type f64 --op max --format text -i " + shell_quote(path("seq.txt").string()) + " -o " +
          shell_quote(path("max.bin").string()));
  ASSERT_EQ(r.exit_code, 0) << r;
  EXPECT_EQ(read_file(path("max.bin")), "100\n") << "--out writes in --format";
  write_file(path("empty.txt"), "");
  r = run("reduce --type i32 --op and --format text -i " + shell_quote(path("empty.txt").string()));
  ASSERT_EQ(r.exit_code, 0) << r;
  EXPECT_EQ(r.out, "-1\n") << "an empty input reduces to the identity";
  expect_failure(run("reduce --type f32 --op xor --format text -i " + shell_quote(path("seq.txt").string())), 2,
                 {"usage error: --op xor applies to integer types only, not to --type f32"});
  expect_failure(run("reduce --type u32 --op nand -i x"), 2, {"unknown operator 'nand'", "add, min, max, mul"});
  expect_failure(run("reduce --type u32"), 2, {"--in"});
}

// --- Data larger than the memory budget: streamed through the GPU in chunks -------------------------

// A binary file about eight times the budget (128 KiB: chunks of ~5000 elements, two in flight),
// streamed from file to file and from stdin to stdout, checked against the CPU reference computed here.
// Two cases: the chunking is the CLI's reading and writing; every type and kind in chunks is the GPU
// suites' (StreamTest.EveryTypeAroundChunkBoundaries).
TEST_F(CliTest, StreamsABinaryFileSeveralTimesLargerThanTheBudget) {
  constexpr size_t n = 262'147;  // 1 MiB + 12 bytes of u32
  for (const auto& [type, kind] :
       {std::pair(DataType::u32, ScanKind::exclusive), std::pair(DataType::f32, ScanKind::inclusive)}) {
    const std::string type_name(gpuscan::to_string(type));
    SCOPED_TRACE(type_name + " " + std::string(gpuscan::to_string(kind)));
    const auto in = random_words(type, n, 101 + static_cast<uint64_t>(type) * 2 + static_cast<uint64_t>(kind));
    write_file(path("big.bin"), to_file_content(in, type, false));
    const std::string args = "scan --device-memory-budget 128K --type " + type_name +
                             (kind == ScanKind::inclusive ? " --inclusive" : "");
    RunResult r = run(args + " --in " + shell_quote(path("big.bin").string()) + " --out " +
                      shell_quote(path("out.bin").string()));
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_NE(r.err.find(std::to_string(n) + " " + type_name + " elements ("), std::string::npos) << r;
    EXPECT_NE(r.err.find(" chunks of "), std::string::npos) << "the summary says how the data was cut\n" << r;
    expect_scan_of(in, from_file_content(read_file(path("out.bin")), type, false), type, kind);
    r = run(args + " --in - --out -", path("big.bin").string());
    ASSERT_EQ(r.exit_code, 0) << r;
    expect_scan_of(in, from_file_content(r.out, type, false), type, kind);
  }
}

// The same stream on OpenGL, a reduction in chunks, and --verify on a chunked scan.
TEST_F(CliTest, StreamedGlScanReductionAndVerify) {
  constexpr size_t n = 200'003;
  const auto in = random_words(DataType::u32, n, 77);
  write_file(path("big.bin"), to_file_content(in, DataType::u32, false));
  const std::string big = shell_quote(path("big.bin").string());
  RunResult r = run("scan --api gl --device-memory-budget 96K -t u32 --in " + big + " --out " +
                    shell_quote(path("gl.bin").string()));
  ASSERT_EQ(r.exit_code, 0) << r;
  EXPECT_NE(r.err.find(" chunks of "), std::string::npos) << r;
  expect_scan_of(in, from_file_content(read_file(path("gl.bin")), DataType::u32, false), DataType::u32,
                 ScanKind::exclusive);
  r = run("scan --device-memory-budget 100K -t u32 --inclusive --verify --in " + big + " --out " +
          shell_quote(path("v.bin").string()));
  ASSERT_EQ(r.exit_code, 0) << r;
  EXPECT_NE(r.err.find(" chunks of "), std::string::npos) << r;
  EXPECT_NE(r.err.find("verified against the CPU reference"), std::string::npos) << r;
  r = run("reduce --device-memory-budget 100K -t u32 --in " + big);
  ASSERT_EQ(r.exit_code, 0) << r;
  EXPECT_EQ(r.out, std::to_string(gpuscan::cpu::reduce<uint32_t>(in)) + "\n") << r;
  EXPECT_NE(r.err.find(" chunks of "), std::string::npos) << r;
}

TEST_F(CliTest, MemoryBudgetMisuse) {
  write_file(path("in.bin"), to_file_content(random_words(DataType::u32, 10, 1), DataType::u32, false));
  const std::string in = shell_quote(path("in.bin").string());
  // Two chunks in flight of one 4096-element tile each (staging, input, output) need 96 KiB.
  expect_failure(run("scan -t u32 --device-memory-budget 64K --in " + in + " --out " +
                     shell_quote(path("out.bin").string())),
                 1, {"cannot hold one tile of a u32 scan", "98304 bytes"});
  EXPECT_FALSE(fs::exists(path("out.bin"))) << "a scan that never ran leaves no output file";
  expect_failure(run("reduce -t u32 --device-memory-budget 1K --in " + in), 1, {"cannot hold one tile"});
  expect_failure(run("scan -t u32 --device-memory-budget 12Q --in " + in + " --out -"), 2, {"'12Q' is not a size"});
  expect_failure(run("scan -t u32 --device-memory-budget -5 --in " + in + " --out -"), 2, {"is not a size"});
}

// --- --api gl: the OpenGL backend through a headless EGL context ---------------------------------
// (with --validate a debug context: KHR_debug errors and warnings make the exit code 3)

TEST_F(CliTest, GlInfoReportsTheContextAndThePick) {
  const RunResult r = run("--api gl info --n 100000");
  ASSERT_EQ(r.exit_code, 0) << r;
  for (const char* fragment : {"on OpenGL (EGL", "  renderer  ", "  subgroup operations  ", "\ntuning profile: ", "\nalgorithm: ",
                               "\ncompaction: the ", "plan for n = 100000:", "uniform_add"})
    EXPECT_NE(r.out.find(fragment), std::string::npos) << fragment << "\n" << r;
  const RunResult json = run("info --json --api gl");
  ASSERT_EQ(json.exit_code, 0) << json;
  EXPECT_NE(json.out.find("\"api\": \"gl\""), std::string::npos) << json;
  EXPECT_NE(json.out.find("\"tuning_profile\": {"), std::string::npos) << json;
}

// --api gl reaches the GL backend for scans and compaction; each GL scan's type, kind and size is the GL
// suite's (GlScanTest.*).
TEST_F(CliTest, GlScanAndCompactMatchTheCpu) {
  for (const auto& [type, kind] :
       {std::pair(DataType::i32, ScanKind::exclusive), std::pair(DataType::f32, ScanKind::inclusive)}) {
    const std::string type_name(gpuscan::to_string(type));
    SCOPED_TRACE(type_name + " " + std::string(gpuscan::to_string(kind)));
    const auto in = random_words(type, 100003, 17 + static_cast<uint64_t>(type));
    write_file(path("in"), to_file_content(in, type, false));
    const RunResult r = run("scan --api gl --type " + type_name + (kind == ScanKind::inclusive ? " --inclusive" : "") +
                            " --verify --in " + shell_quote(path("in").string()) + " --out " +
                            shell_quote(path("out").string()));
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_NE(r.err.find("[OpenGL "), std::string::npos) << r;
    expect_scan_of(in, from_file_content(read_file(path("out")), type, false), type, kind);
  }
  write_file(path("c.txt"), "5\n0\n200\n7\n101\n");
  const RunResult c = run("compact --api gl --type u32 --pred gt:100 --format text --in " +
                          shell_quote(path("c.txt").string()) + " --out -");
  ASSERT_EQ(c.exit_code, 0) << c;
  EXPECT_EQ(c.out, "200\n101\n") << c;
}

TEST_F(CliTest, GlDemoAndTheSinglePassRefusal) {
  const RunResult r = run("demo --api gl --n 50000");
  ASSERT_EQ(r.exit_code, 0) << r;
  EXPECT_NE(r.out.find("  single-pass         skipped: not offered on OpenGL"), std::string::npos) << r;
  EXPECT_NE(r.out.find("  multipass-blelloch  inclusive  GPU "), std::string::npos) << r;
  EXPECT_EQ(r.out.find("MISMATCH"), std::string::npos) << r;
  write_file(path("in"), to_file_content(random_words(DataType::u32, 10, 1), DataType::u32, false));
  expect_failure(run("scan --api gl --algorithm single-pass --type u32 --in " + shell_quote(path("in").string()) +
                     " --out " + shell_quote(path("o").string())),
                 2, {"usage error: --algorithm single-pass is not offered with --api gl"});
  write_file(path("t.txt"), "3\n-1\n7\n");
  const RunResult op = run("scan --api gl --type i32 --op max --inclusive --format text --verify --in " +
                           shell_quote(path("t.txt").string()) + " --out -");
  ASSERT_EQ(op.exit_code, 0) << op;
  EXPECT_EQ(op.out, "3\n3\n7\n") << op;
  expect_failure(run("--api metal info"), 2, {"--api"});
  expect_failure(run("info", "", "GPUSCAN_API=metal"), 2, {"GPUSCAN_API"});
}

// Reductions, the 64-bit types and custom operators on GL, checked by --verify or against known results.
TEST_F(CliTest, GlReduceWideTypesAndCustomOperators) {
  const RunResult info = run("--api gl info");
  ASSERT_EQ(info.exit_code, 0) << info;
  EXPECT_NE(info.out.find("  64-bit types  "), std::string::npos) << info;
  EXPECT_NE(info.out.find("  reductions  "), std::string::npos) << info;
  // Every type and operator of GL reductions is the GL suite's (GlTest.ReduceEveryTypeAndOperatorAroundLevelBoundaries).
  for (const auto& [type, op] : {std::pair(DataType::u32, "add"), std::pair(DataType::i64, "max")}) {
    const std::string type_name(gpuscan::to_string(type));
    write_file(path("in"), to_file_content(random_words(type, 70002, 5), type, false));  // i64: pairs of words
    const RunResult r = run("reduce --api gl --verify --type " + type_name + " --op " + op + " --in " +
                            shell_quote(path("in").string()));
    ASSERT_EQ(r.exit_code, 0) << type_name << " " << op << "\n" << r;
    EXPECT_NE(r.err.find("[OpenGL "), std::string::npos) << r;
  }
  write_file(path("t.txt"), "3\n-1\n7\n");
  const RunResult sum = run("reduce --api gl --type i64 --format text --in " + shell_quote(path("t.txt").string()));
  ASSERT_EQ(sum.exit_code, 0) << sum;
  EXPECT_EQ(sum.out, "9\n") << sum;
  write_file(path("d.txt"), "1.5\n-2.25\n8\n");
  const RunResult dsum = run("reduce --api gl --verify --type f64 --format text --in " + shell_quote(path("d.txt").string()));
  ASSERT_EQ(dsum.exit_code, 0) << dsum;
  EXPECT_EQ(dsum.out, "7.25\n") << dsum;
  const RunResult wide = run("scan --api gl --type i64 --format text --verify --in " +
                             shell_quote(path("t.txt").string()) + " --out -");
  ASSERT_EQ(wide.exit_code, 0) << wide;
  EXPECT_EQ(wide.out, "0\n3\n2\n") << wide;
  write_file(path("affine.glsl"), affine_op);
  write_file(path("maps.txt"), "2\n1\n3\n0\n1\n5\n");
  const RunResult custom = run("scan --api gl -t u32 -f text --inclusive --op-file " +
                               shell_quote(path("affine.glsl").string()) + " -i " + shell_quote(path("maps.txt").string()) +
                               " -o -");
  ASSERT_EQ(custom.exit_code, 0) << custom;
  EXPECT_EQ(custom.out, "2\n1\n6\n3\n6\n8\n") << custom;
  write_file(path("bad.glsl"), "#define T uint\nT identity() { return 0u; }\nT combine(T a, T b) { return a + oops; }\n");
  expect_failure(run("scan --api gl -t u32 --op-file " + shell_quote(path("bad.glsl").string()) + " -i " +
                     shell_quote(path("maps.txt").string()) + " -f text -o -"),
                 1, {"did not compile", "source string 1", ":3(", "oops"});
}

// --- Segmented scans: scan --segments FILE / --keys FILE -------------------------------------------

// On both APIs (GL: the subgroup-free segmented kernels).
TEST_F(CliTest, SegmentedScanByFlagsAndByKey) {
  write_file(path("v.txt"), "3\n1\n7\n0\n4\n1\n6\n3\n");
  write_file(path("f.txt"), "1\n0\n0\n1\n0\n1\n0\n0\n");
  write_file(path("k.txt"), "9\n9\n9\n4\n4\n9\n9\n9\n");
  write_file(path("t.txt"), "-40\n12\n7\n-3\n25\n0\n");
  write_file(path("d.txt"), "1\n1\n1\n2\n2\n2\n");
  const std::string v = " --in " + shell_quote(path("v.txt").string());
  for (const std::string api : {"", " --api gl"}) {
    SCOPED_TRACE("api:" + api);
    RunResult r = run("scan --type u32 --format text --verify --out -" + api + v + " --segments " +
                      shell_quote(path("f.txt").string()));
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_EQ(r.out, "0\n3\n4\n0\n0\n0\n1\n7\n") << "exclusive: each segment starts at the identity";
    EXPECT_NE(r.err.find("exclusive segmented scan of 8 u32 elements (segments from flags"), std::string::npos) << r;
    EXPECT_NE(r.err.find("verified against the CPU reference"), std::string::npos) << r;
    for (const char* key_type : {"u32", "u64"}) {
      r = run("scan --type u32 --inclusive --format text --verify --out -" + api + v + " --keys " +
              shell_quote(path("k.txt").string()) + " --key-type " + key_type);
      ASSERT_EQ(r.exit_code, 0) << r;
      EXPECT_EQ(r.out, "3\n4\n11\n0\n4\n1\n7\n10\n") << key_type;
    }
    r = run("scan --type i64 --op max --inclusive --format text --verify --out -" + api + " --in " +
            shell_quote(path("t.txt").string()) + " --keys " + shell_quote(path("d.txt").string()));
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_EQ(r.out, "-40\n12\n12\n-3\n25\n25\n");
  }
}

// Binary heads files: exclusive add on u32 with flags, inclusive max on f64 with u64 keys, on random data
// checked by --verify (and u32 against the CPU reference here too). Every type and operator of segmented
// scans is the GPU suites' (SegmentedTest.EveryTypeAndOperator, GlTest.SegmentedEveryTypeAndOperator).
TEST_F(CliTest, SegmentedScanOfBinaryFilesVerifies) {
  std::mt19937_64 rng(777);
  const size_t n = 10007;
  std::string flags, keys;
  std::vector<uint8_t> starts(n);
  uint64_t key = 5;
  for (size_t i = 0; i < n; ++i) {
    starts[i] = i == 0 || rng() % 37 == 0;
    const uint32_t f = starts[i] ? static_cast<uint32_t>(rng() | 1) : 0;
    if (i > 0 && starts[i]) key += uint64_t{1} << 32;
    flags.append(reinterpret_cast<const char*>(&f), 4);
    keys.append(reinterpret_cast<const char*>(&key), 8);
  }
  write_file(path("flags.bin"), flags);
  write_file(path("keys.bin"), keys);
  for (const DataType type : {DataType::u32, DataType::f64}) {
    const bool by_key = type == DataType::f64;
    const ScanKind kind = by_key ? ScanKind::inclusive : ScanKind::exclusive;
    const char* op = by_key ? "max" : "add";
    const std::string type_name(gpuscan::to_string(type));
    SCOPED_TRACE(type_name + " " + op + " " + std::string(gpuscan::to_string(kind)) + (by_key ? " keys" : " flags"));
    // u32: random_words; f64: values in [-100, 100).
    std::string in_bytes;
    if (type == DataType::f64) {
      for (size_t i = 0; i < n; ++i) {
        const double d = std::uniform_real_distribution<double>(-100, 100)(rng);
        in_bytes.append(reinterpret_cast<const char*>(&d), 8);
      }
    } else {
      in_bytes = to_file_content(random_words(DataType::u32, n, rng()), DataType::u32, false);
    }
    write_file(path("in"), in_bytes);
    const RunResult r = run("scan --type " + type_name + " --op " + op +
                            (kind == ScanKind::inclusive ? " --inclusive" : "") + " --verify --in " +
                            shell_quote(path("in").string()) + " --out " + shell_quote(path("out").string()) +
                            (by_key ? " --keys " + shell_quote(path("keys.bin").string()) + " --key-type u64"
                                    : " --segments " + shell_quote(path("flags.bin").string())));
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_NE(r.err.find("verified against the CPU reference"), std::string::npos) << r;
    if (type == DataType::u32) {
      std::vector<uint32_t> values(n), got(n);
      const std::string bytes = read_file(path("out"));
      ASSERT_EQ(bytes.size(), n * 4);
      std::memcpy(values.data(), in_bytes.data(), n * 4);
      std::memcpy(got.data(), bytes.data(), n * 4);
      EXPECT_EQ(got, gpuscan::cpu::segmented_scan<uint32_t>(values, starts, kind, gpuscan::Op::add));
    }
  }
}

// reduce --offsets FILE: one result per segment, the identity for an empty one; on OpenGL too.
TEST_F(CliTest, SegmentedReduceByOffsets) {
  write_file(path("v.txt"), "3\n1\n7\n0\n4\n1\n6\n3\n");
  write_file(path("o.txt"), "0\n3\n3\n5\n8\n");
  write_file(path("bad.txt"), "0\n5\n3\n");
  const std::string v = " --format text --verify --in " + shell_quote(path("v.txt").string()) + " --offsets ";
  RunResult r = run("reduce --type u32" + v + shell_quote(path("o.txt").string()));
  ASSERT_EQ(r.exit_code, 0) << r;
  EXPECT_EQ(r.out, "11\n0\n4\n10\n");
  EXPECT_NE(r.err.find("segmented reduction of 8 u32 elements in 4 segments"), std::string::npos) << r;
  EXPECT_NE(r.err.find("verified against the CPU reference"), std::string::npos) << r;
  r = run("reduce --type i64 --op max" + v + shell_quote(path("o.txt").string()));
  ASSERT_EQ(r.exit_code, 0) << r;
  EXPECT_EQ(r.out, "7\n-9223372036854775808\n4\n6\n");
  expect_failure(run("reduce --type u32" + v + shell_quote(path("bad.txt").string())), 1,
                 {"offsets decrease at index 2"});
  r = run("reduce --api gl --type u32" + v + shell_quote(path("o.txt").string()));
  ASSERT_EQ(r.exit_code, 0) << r;
  EXPECT_EQ(r.out, "11\n0\n4\n10\n");
  EXPECT_NE(r.err.find("OpenGL"), std::string::npos) << r;
}

TEST_F(CliTest, SegmentedScanErrors) {
  write_file(path("v.txt"), "3\n1\n7\n0\n");
  write_file(path("f3.txt"), "1\n0\n0\n");
  const std::string v = " --format text --out - --in " + shell_quote(path("v.txt").string());
  expect_failure(run("scan --type u32" + v + " --segments " + shell_quote(path("f3.txt").string())), 1,
                 {"segments file", "holds 3 flags, fewer than the 4 values"});
  expect_failure(run("scan --type u32" + v + " --keys " + shell_quote(path("f3.txt").string()) + " --segments " +
                     shell_quote(path("f3.txt").string())),
                 2, {"usage error", "--segments excludes --keys"});
  expect_failure(run("scan --type u32 --key-type u64" + v), 2, {"--key-type applies to --keys only"});
  write_file(path("f.txt"), "1\n0\n0\n1\n");
  // Segmented scans (and custom operators) are not streamed: a memory budget cannot bound them, so it is
  // refused rather than ignored.
  for (const std::string heads : {" --segments ", " --keys "})
    for (const std::string budget : {"1", "64M"})
      expect_failure(run("scan --type u32" + v + heads + shell_quote(path("f.txt").string()) +
                         " --device-memory-budget " + budget),
                     2, {"usage error", "--device-memory-budget", "segmented scans"});
  write_file(path("affine.glsl"), affine_op);
  expect_failure(run("scan --type u32" + v + " --op-file " + shell_quote(path("affine.glsl").string()) +
                     " --device-memory-budget 1"),
                 2, {"usage error", "--device-memory-budget does not apply to --op-file"});
  expect_failure(run("scan --type u32 --algorithm single-pass" + v + " --segments " + shell_quote(path("f.txt").string())),
                 2, {"usage error: segmented scans (--segments) run as reduce-then-scan only"});
  expect_failure(run("scan --type f32 --op xor" + v + " --segments " + shell_quote(path("f.txt").string())), 2,
                 {"usage error: --op xor applies to integer types only"});
  expect_failure(run("scan --api gl --type u32 --algorithm multipass" + v + " --segments " +
                     shell_quote(path("f.txt").string())),
                 2, {"usage error: segmented scans (--segments) run as reduce-then-scan only"});
}

}  // namespace compact_e2e

TEST_F(CliTest, CompactPredicatesPathsAndFormatsMatchCpuReference) {
  using namespace compact_e2e;
  const std::vector<PredCase> cases = pred_cases();
  std::string skipped;  // runs the device cannot do: the test is then a skip, after the others have run
  for (size_t round = 0; round < cases.size(); ++round) {
    const PredCase& c = cases[round];
    const bool text = round % 2 == 1;
    const bool partition = round == 1 || round == 2;
    const std::string p = round % 2 == 0 ? "shared-memory" : "ballot";
    const size_t n = std::vector<size_t>{1, 1000, 4097, 20000}[round];
    const std::vector<uint32_t> in = random_words(c.type, n, 1000 + round);
    const std::string type(gpuscan::to_string(c.type));
    write_file(path("in"), to_file_content(in, c.type, text));
    const std::string what = c.pred + " " + type + " n=" + std::to_string(n) + (text ? " text" : " binary") +
                             (partition ? " partition " : " ") + p;
    SCOPED_TRACE(what);
    const RunResult r = run("compact --type " + type + " --pred " + shell_quote(c.pred) + " --in " +
                            shell_quote(path("in").string()) + " --out " + shell_quote(path("out").string()) +
                            " --path " + p + (text ? " --format text" : "") + (partition ? " --partition" : ""));
    if (p == "ballot" && r.exit_code == 1 && r.err.find("subgroup ballots") != std::string::npos) {
      skipped += "; " + what;
      continue;
    }
    ASSERT_EQ(r.exit_code, 0) << r;
    size_t kept = 0;
    const auto want = reference(in, c.keep, partition, kept);
    EXPECT_EQ(from_file_content(read_file(path("out")), c.type, text), want);
    EXPECT_NE(r.err.find("kept " + std::to_string(kept) + " of " + std::to_string(n)), std::string::npos) << r;
  }
  if (!skipped.empty()) GTEST_SKIP() << "no subgroup ballots on this device" << skipped;
}

TEST_F(CliTest, CompactWithAFlagsFileAndPartition) {
  using namespace compact_e2e;
  const size_t n = 3001;
  const std::vector<uint32_t> in = random_words(DataType::i32, n, 77);
  std::vector<uint32_t> flags = random_words(DataType::u32, n + 5, 78);  // longer than needed is fine
  for (auto& f : flags) f = f % 3 == 0 ? f : 0;
  write_file(path("in.bin"), to_file_content(in, DataType::i32, false));
  write_file(path("flags.bin"), to_file_content(flags, DataType::u32, false));
  for (const bool partition : {false, true}) {
    const RunResult r = run("compact --type i32 --flags " + shell_quote(path("flags.bin").string()) + " --in " +
                            shell_quote(path("in.bin").string()) + " --out " + shell_quote(path("out.bin").string()) +
                            (partition ? " --partition" : ""));
    ASSERT_EQ(r.exit_code, 0) << r;
    std::vector<uint32_t> want, rejected;
    for (size_t i = 0; i < n; ++i) (flags[i] ? want : rejected).push_back(in[i]);
    const size_t kept = want.size();
    if (partition) want.insert(want.end(), rejected.begin(), rejected.end());
    EXPECT_EQ(from_file_content(read_file(path("out.bin")), DataType::i32, false), want);
    EXPECT_NE(r.err.find("kept " + std::to_string(kept) + " of " + std::to_string(n)), std::string::npos) << r;
  }
}

TEST_F(CliTest, CompactAlgorithms) {
  using namespace compact_e2e;
  const size_t n = 9001;
  const std::vector<uint32_t> in = random_words(DataType::u32, n, 79);
  write_file(path("in.bin"), to_file_content(in, DataType::u32, false));
  std::vector<uint32_t> want;
  std::copy_if(in.begin(), in.end(), std::back_inserter(want), [](uint32_t v) { return v > 0x80000000u; });
  std::string skipped;
  for (const char* algorithm : {"auto", "three-pass", "single-pass"}) {
    const RunResult r = run("compact --type u32 --pred gt:2147483648 --algorithm " + std::string(algorithm) +
                            " --in " + shell_quote(path("in.bin").string()) + " --out " +
                            shell_quote(path("out.bin").string()));
    if (std::string(algorithm) == "single-pass" && r.exit_code == 1 && r.err.find("single-pass") != std::string::npos) {
      skipped = r.err;  // a device without the look-back's features: a skip, after the checks below
      continue;
    }
    ASSERT_EQ(r.exit_code, 0) << algorithm << "\n" << r;
    EXPECT_EQ(from_file_content(read_file(path("out.bin")), DataType::u32, false), want) << algorithm;
  }
  const RunResult partition = run("compact --type u32 --pred nonzero --algorithm single-pass --partition --in " +
                                  shell_quote(path("in.bin").string()) + " --out " +
                                  shell_quote(path("out.bin").string()));
  EXPECT_EQ(partition.exit_code, 2) << partition;
  EXPECT_NE(partition.err.find("--algorithm three-pass"), std::string::npos) << partition;
  const RunResult bad = run("compact --type u32 --pred nonzero --algorithm two-pass --in " +
                            shell_quote(path("in.bin").string()) + " --out -");
  EXPECT_EQ(bad.exit_code, 2) << bad;
  if (!skipped.empty()) GTEST_SKIP() << "--algorithm single-pass cannot run here: " << skipped;
}

// The 64-bit types, whose constants need their high words: u64 ids above 2^32, i64 below -2^32, f64
// beyond f32's range, and a 64-bit mask; text in and out, partition too.
TEST_F(CliTest, CompactSixtyFourBitTypes) {
  const struct {
    const char* type;
    const char* pred;
    const char* in;
    const char* want;
    bool partition;
  } cases[] = {
      {"u64", "ge:0x100000000", "4294967296\n5\n18446744073709551615\n4294967295\n0\n",
       "4294967296\n18446744073709551615\n", false},
      {"u64", "bit:0x8000000000000000", "1\n9223372036854775808\n9223372036854775807\n",
       "9223372036854775808\n1\n9223372036854775807\n", true},
      {"i64", "lt:-4294967296", "-5\n-4294967297\n7\n-9223372036854775808\n-4294967296\n",
       "-4294967297\n-9223372036854775808\n", false},
      {"i64", "range:-1:4294967296", "-2\n4294967296\n4294967297\n-1\n", "4294967296\n-1\n-2\n4294967297\n",
       true},
      {"f64", "gt:1e300", "1e+308\n-1e+308\n1e+200\n3e+300\n", "1e+308\n3e+300\n", false},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(std::string(c.type) + " " + c.pred);
    write_file(path("in.txt"), c.in);
    const RunResult r = run(std::string("compact --type ") + c.type + " --pred " + c.pred + " --format text --in " +
                            shell_quote(path("in.txt").string()) + " --out -" + (c.partition ? " --partition" : ""));
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_EQ(r.out, c.want) << r;
  }
}

TEST_F(CliTest, CompactOfAnEmptyFileKeepsNothing) {
  write_file(path("in.txt"), "");
  const RunResult r = run("compact --type u32 --pred nonzero --format text --in " +
                          shell_quote(path("in.txt").string()) + " --out -");
  ASSERT_EQ(r.exit_code, 0) << r;
  EXPECT_TRUE(r.out.empty()) << r;
  EXPECT_NE(r.err.find("kept 0 of 0"), std::string::npos) << r;
}

TEST_F(CliTest, CompactStdinToStdoutText) {
  write_file(path("in.txt"), "5\n0\n150\n101\n100\n7\n");
  const RunResult r = run("compact --type u32 --pred gt:100 --format text --in - --out - --partition", path("in.txt").string());
  ASSERT_EQ(r.exit_code, 0) << r;
  EXPECT_EQ(r.out, "150\n101\n5\n0\n100\n7\n");
  EXPECT_NE(r.err.find("kept 2 of 6"), std::string::npos) << r;
}

TEST_F(CliTest, CompactUnknownOrMalformedPredicateIsAUsageError) {
  write_file(path("in.bin"), std::string(16, '\0'));
  const std::string io = " --in " + shell_quote(path("in.bin").string()) + " --out " + shell_quote(path("o").string());
  for (const std::string& pred : {"big:3", "gt:abc", "gt:", "lt", "range:1", "range:a:2", "bit:0xZZ", "nonzero:1",
                                  "eq:1.5", "ge:-1"}) {
    const RunResult r = run("compact --type u32 --pred " + shell_quote(pred) + io);
    expect_failure(r, 2, {"usage error", pred, "nonzero, eq:C, ne:C, lt:C, le:C, gt:C, ge:C, bit:MASK, range:LO:HI"});
  }
  // Valid for f32 and i32, though not for u32.
  EXPECT_EQ(run("compact --type f32 --pred eq:1.5" + io).exit_code, 0);
  EXPECT_EQ(run("compact --type i32 --pred ge:-1" + io).exit_code, 0);
  expect_failure(run("compact --type u32" + io), 2, {"usage error", "--pred or --flags"});
  expect_failure(run("compact --type u32 --pred nonzero --path warp" + io), 2, {"usage error"});
}

TEST_F(CliTest, CompactFlagsFileShorterThanValuesIsAnError) {
  write_file(path("in.bin"), std::string(40, '\1'));
  write_file(path("flags.bin"), std::string(36, '\1'));
  const RunResult r = run("compact --type u32 --flags " + shell_quote(path("flags.bin").string()) + " --in " +
                          shell_quote(path("in.bin").string()) + " --out " + shell_quote(path("o").string()));
  expect_failure(r, 1, {"flags file", "holds 9 flags, fewer than the 10 values"});
  EXPECT_FALSE(fs::exists(path("o")));
}

// `gpuscan sort`: keys, values, argsort, descending, bit ranges, --verify, and its usage errors.
TEST_F(CliTest, SortKeysValuesAndIndices) {
  write_file(path("k.txt"), "-0.0\nnan\n1.5\n0.0\n-inf\n-nan\n");
  RunResult r = run("sort --type f32 --format text --in - --out - --indices-out " + shell_quote(path("i.txt").string()) +
                        " --verify",
                    path("k.txt").string());
  ASSERT_EQ(r.exit_code, 0) << r;
  EXPECT_EQ(r.out, "-inf\n-0\n0\n1.5\nnan\n-nan\n");  // numpy's order: -0.0 == +0.0, NaNs last, input order kept
  EXPECT_EQ(read_file(path("i.txt")), "4\n0\n3\n2\n1\n5\n");
  EXPECT_NE(r.err.find("verified"), std::string::npos) << r;
  write_file(path("k.txt"), "2\n1\n2\n1\n");
  write_file(path("v.txt"), "5\n6\n7\n8\n");
  r = run("sort --type i64 --format text --descending --in - --out - --values " + shell_quote(path("v.txt").string()) +
              " --values-type f64 --values-out " + shell_quote(path("vo.txt").string()) + " --verify",
          path("k.txt").string());
  ASSERT_EQ(r.exit_code, 0) << r;
  EXPECT_EQ(r.out, "2\n2\n1\n1\n");
  EXPECT_EQ(read_file(path("vo.txt")), "5\n7\n6\n8\n");
  r = run("sort --type i64 --format text --algorithm onesweep --in - --out - --verify", path("k.txt").string());
  if (r.exit_code == 0) EXPECT_EQ(r.out, "1\n1\n2\n2\n");
  else expect_failure(r, 1, {"64-bit buffer atomics"});  // a device without them refuses Onesweep
  write_file(path("k.txt"), "258\n513\n1\n");  // bits [0, 8): 2, 1, 1
  r = run("sort --type u32 --bits 8 --format text --in - --out -", path("k.txt").string());
  ASSERT_EQ(r.exit_code, 0) << r;
  EXPECT_EQ(r.out, "513\n1\n258\n");
}

// An empty bit range (0, 0:0, B:B, W:W at the key's width W) sorts on no bits: every key equal, so keys,
// values and positions stay in input order, ascending or descending, with either algorithm and API. (The
// library reads end_bit 0 as the key's full width: 0 and 0:0 must not sort on every bit.)
TEST_F(CliTest, SortOnAnEmptyBitRangeKeepsTheInputOrder) {
  const uint64_t seed = 20261206;
  SCOPED_TRACE("seed " + std::to_string(seed));
  const size_t n = 3001;  // more than one tile
  const auto keys = random_words(DataType::u32, 2 * n, seed);  // u64 keys: pairs of words
  const auto values = random_words(DataType::u32, 2 * n, seed + 1);
  std::vector<uint32_t> positions(n);
  for (size_t i = 0; i < n; ++i) positions[i] = static_cast<uint32_t>(i);
  const std::string positions_bytes(reinterpret_cast<const char*>(positions.data()), n * 4);
  // Every variant (API and algorithm, direction, values or positions) for a third of the (type, range)
  // pairs, in turn: each variant meets every range and every type.
  struct Variant {
    const char* api;
    const char* algorithm;
    bool descending, indices;
  };
  std::vector<Variant> variants;
  const bool onesweep = picked_device().single_pass;
  for (const auto& [api, algorithm] : {std::pair("", "multipass"), std::pair("", "onesweep"), std::pair("--api gl ", "multipass")})
    for (const bool descending : {false, true})
      for (const bool indices : {false, true})
        if (std::string(algorithm) != "onesweep" || onesweep) variants.push_back({api, algorithm, descending, indices});
  size_t turn = 0;
  for (const char* type : {"u32", "f32", "i64"}) {
    const bool wide = type[1] == '6';
    const std::string key_bytes(reinterpret_cast<const char*>(keys.data()), (wide ? 8 : 4) * n);
    const std::string value_bytes(reinterpret_cast<const char*>(values.data()), 4 * n);
    write_file(path("k.bin"), key_bytes);
    write_file(path("v.bin"), value_bytes);
    const std::string width = wide ? "64" : "32";
    for (const std::string& bits : std::vector<std::string>{"0", "0:0", "5:5", width + ":" + width}) {
      ++turn;
      for (size_t v = turn % 3; v < variants.size(); v += 3) {
        const Variant& x = variants[v];
        const std::string args = std::string(x.api) + "sort --type " + type + " --bits " + bits + " --algorithm " +
                                 x.algorithm + (x.descending ? " --descending" : "") + " --verify --in " +
                                 shell_quote(path("k.bin").string()) + " --out " + shell_quote(path("o.bin").string()) +
                                 (x.indices ? " --indices-out " + shell_quote(path("i.bin").string())
                                            : " --values " + shell_quote(path("v.bin").string()) + " --values-out " +
                                                  shell_quote(path("vo.bin").string()));
        SCOPED_TRACE(args);
        const RunResult r = run(args);
        ASSERT_EQ(r.exit_code, 0) << r;
        EXPECT_NE(r.err.find("in 1 passes"), std::string::npos) << r;
        EXPECT_NE(r.err.find("verified"), std::string::npos) << r;
        EXPECT_TRUE(read_file(path("o.bin")) == key_bytes);
        if (x.indices) EXPECT_TRUE(read_file(path("i.bin")) == positions_bytes);
        else EXPECT_TRUE(read_file(path("vo.bin")) == value_bytes);
      }
    }
  }
}

TEST_F(CliTest, SortUsageErrors) {
  write_file(path("k.bin"), std::string(16, '\0'));
  const std::string io = " --in " + shell_quote(path("k.bin").string()) + " --out " + shell_quote(path("o").string());
  expect_failure(run("sort --type u32 --bits 9:8" + io), 2, {"usage error", "--bits"});
  expect_failure(run("sort --type u32 --values " + shell_quote(path("k.bin").string()) + io), 2,
                 {"usage error", "--values-out"});
  expect_failure(run("sort --type u32 --values-type u16" + io), 2, {"--values-type"});
  expect_failure(run("sort --type u32 --algorithm quick" + io), 2, {"usage error", "--algorithm"});
  // Past the key's bits is a usage error like any malformed --bits (the type is known before running).
  expect_failure(run("sort --type u32 --bits 40" + io), 2, {"usage error", "--bits", "0 <= B <= E <= 32", "not '40'"});
}
