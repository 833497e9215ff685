// End-to-end tests of how gpuscan writes: every write checked (standard output included), outputs whole or
// absent (a full disk, kill -9, a failed streamed run), two outputs never to one file, standard input read
// once, symbolic links written through, the umask respected, and a pipeline cache path that is not a file.
// The rules are tools/gpuscan/output.hpp's; the README's command-line section states them.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "cli_e2e_fixture.hpp"

namespace {

class CliOutput;
bool signal_while_writing(const CliOutput& test, int signal);

class CliOutput : public CliTest {
  friend bool signal_while_writing(const CliOutput& test, int signal);

 protected:
  // `n` random u32 values (seed printed by the test's name and the value here), as a binary file.
  std::vector<uint32_t> write_random(const std::string& name, size_t n, uint64_t seed) const {
    std::mt19937_64 rng(seed);
    std::vector<uint32_t> v(n);
    for (auto& x : v) x = static_cast<uint32_t>(rng());
    write_file(path(name), std::string(reinterpret_cast<const char*>(v.data()), v.size() * 4));
    return v;
  }
  std::string q(const std::string& name) const { return shell_quote(path(name).string()); }
  // The names in the test's directory that look like gpuscan's temporaries (".NAME.gpuscan-XXXXXX").
  std::vector<std::string> temporaries(const fs::path& dir) const {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(dir))
      if (entry.path().filename().string().find(".gpuscan-") != std::string::npos)
        names.push_back(entry.path().filename().string());
    return names;
  }
};

std::vector<uint32_t> words_of(const std::string& bytes) {
  std::vector<uint32_t> v(bytes.size() / 4);
  if (!v.empty()) std::memcpy(v.data(), bytes.data(), v.size() * 4);
  return v;
}

std::vector<uint32_t> exclusive_sums(const std::vector<uint32_t>& in) {
  std::vector<uint32_t> out(in.size());
  uint32_t sum = 0;
  for (size_t i = 0; i < in.size(); ++i) {
    out[i] = sum;
    sum += in[i];
  }
  return out;
}

// Every command that writes standard output reports a failed write (here /dev/full) with exit code 1 and
// a message naming standard output; none exits 0 with its output lost.
TEST_F(CliOutput, AFailedWriteToStandardOutputIsAnError) {
  const std::vector<uint32_t> v = write_random("v.bin", 1000, 11);
  std::string text;
  for (uint32_t x : v) text += std::to_string(x) + "\n";
  write_file(path("v.txt"), text);
  write_file(path("o.txt"), "0\n500\n1000\n");
  const std::string in = " --in " + q("v.bin");
  const char* cases[] = {
      "histogram -t u32 --bins 4 --lower 0 --upper 4294967296",
      "reduce -t u32",
      "reduce -t u32 --offsets OFFSETS",
      "scan -t u32 --out -",
      "sort -t u32 --out -",
      "compact -t u32 --pred nonzero --out -",
      "unique -t u32 --out -",
      "rle -t u32 --lengths -",
      "info",
      "info --json",
      "--help",
  };
  for (std::string args : cases) {
    if (const size_t at = args.find("OFFSETS"); at != std::string::npos)
      args.replace(at, 7, q("o.txt") + " --format text --in " + q("v.txt"));
    else if (!args.starts_with("info") && !args.starts_with("--"))
      args += in;
    SCOPED_TRACE(args);
    const RunResult r = run_with("", args, " >/dev/full");
    EXPECT_EQ(r.exit_code, 1) << r;
    EXPECT_NE(r.err.find("gpuscan: error: cannot write standard output: No space left on device"), std::string::npos)
        << r;
  }
  // --out naming a device that fails is reported the same way, by its name.
  const RunResult r = run("sort -t u32" + in + " --out /dev/full");
  EXPECT_EQ(r.exit_code, 1) << r;
  EXPECT_NE(r.err.find("cannot write '/dev/full': No space left on device"), std::string::npos) << r;
  EXPECT_EQ(run("sort -t u32" + in + " --out /dev/null").exit_code, 0);
}

// Two outputs to one file are a usage error, however the path is spelt; so are two to standard output.
TEST_F(CliOutput, TwoOutputsToOneFileAreUsageErrors) {
  write_random("k.bin", 100, 12);
  write_random("v.bin", 100, 13);
  write_file(path("o.bin"), "old");
  fs::create_directories(path("sub"));
  fs::create_symlink(path("o.bin"), path("link.bin"));
  const std::string sort = "sort -t u32 --in " + q("k.bin");
  const std::string rle = "rle -t u32 --in " + q("k.bin");
  const std::pair<std::string, std::string> cases[] = {
      {sort + " --out " + q("o.bin") + " --indices-out " + q("o.bin"), "--out and --indices-out name one file"},
      {sort + " --out " + q("o.bin") + " --indices-out " + q("sub/../o.bin"), "--out and --indices-out name one file"},
      {sort + " --out " + q("link.bin") + " --indices-out " + q("o.bin"), "--out and --indices-out name one file"},
      {sort + " --out " + q("new.bin") + " --indices-out " + q("./sub/../new.bin"),
       "--out and --indices-out name one file"},
      {sort + " --values " + q("v.bin") + " --out " + q("o.bin") + " --values-out " + q("o.bin"),
       "--out and --values-out name one file"},
      {sort + " --out - --indices-out -", "--out - and --indices-out - both go to standard output"},
      {rle + " --values " + q("o.bin") + " --lengths " + q("o.bin"), "--values and --lengths name one file"},
      {rle + " --non-trivial --offsets - --lengths -", "--lengths - and --offsets - both go to standard output"},
  };
  for (const auto& [args, message] : cases) {
    SCOPED_TRACE(args);
    const RunResult r = run(args);
    EXPECT_EQ(r.exit_code, 2) << r;
    EXPECT_NE(r.err.find("gpuscan: usage error: " + message), std::string::npos) << r;
    EXPECT_TRUE(r.out.empty()) << r;
  }
  EXPECT_EQ(read_file(path("o.bin")), "old");
  EXPECT_FALSE(fs::exists(path("new.bin")));
  EXPECT_TRUE(temporaries(dir_).empty());
}

// Standard input can be read once: at most one input of any command is "-".
TEST_F(CliOutput, StandardInputIsReadOnce) {
  write_file(path("empty"), "");
  const std::pair<std::string, std::string> cases[] = {
      {"sort -t u32 --in - --out " + q("o") + " --values - --values-out " + q("vo"),
       "--in - and --values - both name standard input"},
      {"histogram -t f32 --edges - --in -", "--in - and --edges - both name standard input"},
      {"reduce -t u32 --in - --offsets -", "--in - and --offsets - both name standard input"},
  };
  for (const auto& [args, message] : cases) {
    SCOPED_TRACE(args);
    const RunResult r = run(args, path("empty").string());
    EXPECT_EQ(r.exit_code, 2) << r;
    EXPECT_NE(r.err.find("gpuscan: usage error: " + message), std::string::npos) << r;
  }
}

// A full disk: the write fails with exit code 1, and the target is the old file (or absent), never the
// part that fit; no temporary is left. The file system is a 256 KiB tmpfs (mounting needs root).
TEST_F(CliOutput, AFullDiskLeavesTheOldFileOrNone) {
  fs::create_directories(path("full"));
  if (std::system(("mount -t tmpfs -o size=256k tmpfs " + q("full") + " 2>/dev/null").c_str()) != 0)
    GTEST_SKIP() << "cannot mount a tmpfs here (mounting needs root; CI runs as root)";
  struct Unmount {
    std::string dir;
    ~Unmount() { (void)std::system(("umount " + dir).c_str()); }
  } unmount{q("full")};
  const std::vector<uint32_t> keys = write_random("k.bin", 1 << 20, 14);  // 4 MiB
  write_file(path("full/o.bin"), "old keys");
  const RunResult r = run("sort -t u32 --in " + q("k.bin") + " --out " + q("full/o.bin"));
  EXPECT_EQ(r.exit_code, 1) << r;
  EXPECT_NE(r.err.find("gpuscan: error: cannot write '" + path("full/o.bin").string() + "': No space left on device"),
            std::string::npos)
      << r;
  EXPECT_EQ(read_file(path("full/o.bin")), "old keys");
  const RunResult fresh = run("sort -t u32 --in " + q("k.bin") + " --out " + q("full/new.bin"));
  EXPECT_EQ(fresh.exit_code, 1) << fresh;
  EXPECT_FALSE(fs::exists(path("full/new.bin")));
  // Two outputs, the second one failing: neither lands.
  const RunResult two = run("sort -t u32 --in " + q("k.bin") + " --out " + q("keys.bin") + " --indices-out " +
                            q("full/order.bin"));
  EXPECT_EQ(two.exit_code, 1) << two;
  EXPECT_FALSE(fs::exists(path("keys.bin")));
  EXPECT_FALSE(fs::exists(path("full/order.bin")));
  EXPECT_TRUE(temporaries(path("full")).empty());
  EXPECT_TRUE(temporaries(dir_).empty());
}

// A streamed scan whose standard input ends in a partial element fails after writing chunks; the old
// output is kept as it was.
TEST_F(CliOutput, AFailedStreamedScanKeepsTheOldOutput) {
  std::string data = read_file(path("unused"));
  write_random("v.bin", 300000, 15);
  data = read_file(path("v.bin")) + "xyz";  // three bytes: not a whole u32
  write_file(path("tail.bin"), data);
  write_file(path("o.bin"), "old output");
  const RunResult r = run_with("cat " + q("tail.bin") + " |",
                               "scan -t u32 --device-memory-budget 256K --in - --out " + q("o.bin"), "");
  EXPECT_EQ(r.exit_code, 1) << r;
  EXPECT_NE(r.err.find("not a multiple of 4"), std::string::npos) << r;
  EXPECT_EQ(read_file(path("o.bin")), "old output");
  EXPECT_TRUE(temporaries(dir_).empty());
}

// `scan --in f --out f` streams f through the GPU in chunks and replaces it with its scan.
TEST_F(CliOutput, AStreamedScanIntoItsInputFile) {
  const std::vector<uint32_t> in = write_random("f.bin", 300000, 16);
  const RunResult r = run("scan -t u32 --device-memory-budget 256K --in " + q("f.bin") + " --out " + q("f.bin"));
  ASSERT_EQ(r.exit_code, 0) << r;
  EXPECT_NE(r.err.find(" chunks"), std::string::npos) << "expected a chunked run\n" << r;
  EXPECT_EQ(words_of(read_file(path("f.bin"))), exclusive_sums(in));
}

// Runs a streamed scan of 32 MiB into "o.bin" (which holds "old output") and sends it `signal` once its
// temporary holds part of the output; false if the run ended first.
bool signal_while_writing(const CliOutput& test, int signal) {
  const pid_t child = fork();
  if (child < 0) return false;
  if (child == 0) {
    const int null = ::open("/dev/null", O_WRONLY);
    ::dup2(null, STDOUT_FILENO);
    ::dup2(null, STDERR_FILENO);
    ::setenv("XDG_CACHE_HOME", test.path("cache").c_str(), 1);
    ::execl(GPUSCAN_CLI_PATH, "gpuscan", "scan", "-t", "u32", "--device-memory-budget", "1M", "--in",
            test.path("v.bin").c_str(), "--out", test.path("o.bin").c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  bool caught = false;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (!caught && std::chrono::steady_clock::now() < deadline) {
    for (const auto& entry : fs::directory_iterator(test.path(""))) {
      std::error_code ec;
      if (entry.path().filename().string().starts_with(".o.bin.gpuscan-") && fs::file_size(entry.path(), ec) > 0 && !ec)
        caught = true;
    }
    if (!caught) {
      if (::waitpid(child, nullptr, WNOHANG) == child) return false;  // finished first
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  }
  ::kill(child, signal);
  int status = 0;
  ::waitpid(child, &status, 0);
  return caught && WIFSIGNALED(status) && WTERMSIG(status) == signal;
}

// Killed while the output is being written: the target is the old file, never part of the new one.
// kill -9 may leave the temporary behind (nothing can remove it), under its recognisable name; SIGTERM
// and SIGINT remove it.
TEST_F(CliOutput, KilledWhileWritingLeavesTheOldFile) {
  write_random("v.bin", 1 << 23, 17);  // streamed in chunks of at most 1 MiB
  for (const int signal : {SIGKILL, SIGTERM, SIGINT}) {
    SCOPED_TRACE(strsignal(signal));
    for (const std::string& name : temporaries(dir_)) fs::remove(path(name));
    write_file(path("o.bin"), "old output");
    ASSERT_TRUE(signal_while_writing(*this, signal)) << "the run ended (or took 120 s) before its temporary held anything";
    EXPECT_EQ(read_file(path("o.bin")), "old output");
    const std::vector<std::string> left = temporaries(dir_);
    if (signal == SIGKILL) {
      ASSERT_EQ(left.size(), 1u);
      EXPECT_TRUE(left[0].starts_with(".o.bin.gpuscan-")) << left[0];
    } else {
      EXPECT_TRUE(left.empty()) << left.front();
    }
  }
}

// A symbolic link as --out is written through: the file it points to is replaced, the link stays.
// New files get 0666 less the umask; a replaced file keeps its mode.
TEST_F(CliOutput, LinksAreWrittenThroughAndModesKept) {
  const std::vector<uint32_t> keys = write_random("k.bin", 1000, 18);
  write_file(path("target.bin"), "old");
  fs::create_symlink("target.bin", path("link.bin"));
  const RunResult r = run("sort -t u32 --in " + q("k.bin") + " --out " + q("link.bin"));
  ASSERT_EQ(r.exit_code, 0) << r;
  EXPECT_TRUE(fs::is_symlink(path("link.bin")));
  std::vector<uint32_t> sorted = keys;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(words_of(read_file(path("target.bin"))), sorted);

  const RunResult masked = run_with("umask 027;", "sort -t u32 --in " + q("k.bin") + " --out " + q("new.bin"), "");
  ASSERT_EQ(masked.exit_code, 0) << masked;
  EXPECT_EQ(fs::status(path("new.bin")).permissions() & fs::perms::all, fs::perms(0640));
  fs::permissions(path("target.bin"), fs::perms(0600));
  ASSERT_EQ(run("sort -t u32 --in " + q("k.bin") + " --out " + q("target.bin")).exit_code, 0);
  EXPECT_EQ(fs::status(path("target.bin")).permissions() & fs::perms::all, fs::perms(0600));
  EXPECT_TRUE(temporaries(dir_).empty());
}

// What cannot be renamed over is written directly: a FIFO that another process reads, /dev/null.
TEST_F(CliOutput, AFifoOutputIsWrittenDirectly) {
  const std::vector<uint32_t> keys = write_random("k.bin", 5000, 20);
  ASSERT_EQ(::mkfifo(path("fifo").c_str(), 0600), 0);
  const RunResult r =
      run_with("cat " + q("fifo") + " >" + q("got.bin") + " &", "sort -t u32 --in " + q("k.bin") + " --out " + q("fifo"),
               "; status=$?; wait; exit $status");
  ASSERT_EQ(r.exit_code, 0) << r;
  std::vector<uint32_t> sorted = keys;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(words_of(read_file(path("got.bin"))), sorted);
  EXPECT_TRUE(fs::is_fifo(path("fifo")));
  EXPECT_TRUE(temporaries(dir_).empty());
}

// A FIFO (or anything but a regular file) where the pipeline cache goes: the run neither waits on it
// nor replaces it, and says so.
TEST_F(CliOutput, APipelineCachePathThatIsNotAFileIsIgnored) {
  write_file(path("in.txt"), "3\n1\n7\n");
  const std::string scan = "scan -t u32 --format text --in " + q("in.txt") + " --out -";
  ASSERT_EQ(run(scan).exit_code, 0);
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(path("cache/gpuscan"))) files.push_back(entry.path());
  ASSERT_EQ(files.size(), 1u);
  fs::remove(files[0]);
  ASSERT_EQ(::mkfifo(files[0].c_str(), 0600), 0);
  const RunResult r = run_with("timeout 120", scan, "");
  EXPECT_EQ(r.exit_code, 0) << r;
  EXPECT_EQ(r.out, "0\n3\n4\n") << r;
  EXPECT_NE(r.err.find("gpuscan: warning: the pipeline cache"), std::string::npos) << r;
  EXPECT_NE(r.err.find("is not a regular file; it is ignored"), std::string::npos) << r;
  EXPECT_TRUE(fs::is_fifo(files[0]));
}

// --out-format: binary in, text out (and the other way); histogram --out in either format, with the
// --counts type; reduce to standard output in binary.
TEST_F(CliOutput, OutputFormatsAndHistogramOut) {
  const std::vector<uint32_t> in = write_random("v.bin", 1000, 19);
  const RunResult text = run("scan -t u32 --in " + q("v.bin") + " --out - --out-format text");
  ASSERT_EQ(text.exit_code, 0) << text;
  std::string want;
  for (uint32_t x : exclusive_sums(in)) want += std::to_string(x) + "\n";
  EXPECT_EQ(text.out, want);
  write_file(path("v.txt"), "5\n6\n");
  const RunResult binary = run("scan -t u32 -f text --in " + q("v.txt") + " --out - --out-format binary");
  ASSERT_EQ(binary.exit_code, 0) << binary;
  EXPECT_EQ(words_of(binary.out), (std::vector<uint32_t>{0, 5}));

  uint64_t sum = 0;
  for (uint32_t x : in) sum += x;
  const RunResult reduce = run("reduce -t u32 --in " + q("v.bin") + " --out-format binary");
  ASSERT_EQ(reduce.exit_code, 0) << reduce;
  EXPECT_EQ(words_of(reduce.out), std::vector<uint32_t>{static_cast<uint32_t>(sum)});

  std::vector<uint32_t> counts(4);
  for (uint32_t x : in) ++counts[x >> 30];
  const std::string bins = "histogram -t u32 --bins 4 --lower 0 --upper 4294967296 --verify --in " + q("v.bin");
  ASSERT_EQ(run(bins + " --out " + q("h.bin")).exit_code, 0);
  EXPECT_EQ(words_of(read_file(path("h.bin"))), counts);
  const RunResult h_text = run(bins + " --out " + q("h.txt") + " --out-format text");
  ASSERT_EQ(h_text.exit_code, 0) << h_text;
  EXPECT_EQ(read_file(path("h.txt")), std::to_string(counts[0]) + "\n" + std::to_string(counts[1]) + "\n" +
                                          std::to_string(counts[2]) + "\n" + std::to_string(counts[3]) + "\n");
  const RunResult h64 = run(bins + " --counts u64 --out " + q("h64.bin"));
  if (h64.exit_code == 0) {  // u64 counts need shaderBufferInt64Atomics
    const std::string bytes = read_file(path("h64.bin"));
    ASSERT_EQ(bytes.size(), 32u);
    for (size_t i = 0; i < 4; ++i) {
      uint64_t c = 0;
      std::memcpy(&c, bytes.data() + 8 * i, 8);
      EXPECT_EQ(c, counts[i]) << i;
    }
  } else {
    EXPECT_EQ(h64.exit_code, 1) << h64;
    EXPECT_FALSE(fs::exists(path("h64.bin")));
  }
  const RunResult h_default = run(bins);  // no --out: text on standard output, as before --out existed
  ASSERT_EQ(h_default.exit_code, 0) << h_default;
  EXPECT_EQ(h_default.out, read_file(path("h.txt")));
}

// 64-bit samples, counted and checked (--verify) where the device has shaderInt64 / shaderFloat64; a device
// without them is refused with a message naming the feature (exit code 1, nothing on standard output).
TEST_F(CliOutput, HistogramOfSixtyFourBitSamples) {
  write_file(path("v.txt"), "1\n2\n3\n9\n9007199254740993\n");
  for (const char* type : {"u64", "i64", "f64"}) {
    SCOPED_TRACE(type);
    const RunResult r = run(std::string("histogram -t ") + type +
                            " --bins 2 --lower 0 --upper 10 --verify -f text --in " + q("v.txt"));
    if (r.exit_code == 0) {
      EXPECT_EQ(r.out, "3\n1\n") << r;
    } else {
      EXPECT_EQ(r.exit_code, 1) << r;
      EXPECT_NE(r.err.find(type[0] == 'f' ? "shaderFloat64" : "shaderInt64"), std::string::npos) << r;
      EXPECT_TRUE(r.out.empty()) << r;
    }
  }
}

// A closed last bin holds the samples at or below its upper edge, also where that edge lies between two
// sample values (a fractional edge for integers, a double just below a float, 2^53 + 1 beside the double
// edge 2^53, which a comparison in double would count), and --verify agrees.
TEST_F(CliOutput, HistogramClosedLastBinStopsAtItsEdge) {
  struct Case {
    const char* samples;
    const char* args;
    const char* counts;
  };
  const Case cases[] = {
      {"0\n0\n1\n5\n", "-t u32 --bins 1 --lower 0 --upper 0.5 --closed", "2\n"},
      {"0\n1\n2\n3\n", "-t i32 --bins 2 --lower 0 --upper 2.5 --closed", "2\n1\n"},
      {"0.1\n0.05\n", "-t f32 --bins 1 --lower 0 --upper 0.1 --closed", "1\n"},
      {"0.1\n0.05\n", "-t f32 --bins 1 --lower 0 --upper 0.1", "1\n"},
      {"0\n1\n2\n3\n4\n5\n9007199254740993\n", "-t i64 --bins 1 --lower 0 --upper 9007199254740992 --closed",
       "6\n"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.args);
    write_file(path("s.txt"), c.samples);
    const RunResult r = run(std::string("histogram ") + c.args + " --verify -f text --in " + q("s.txt"));
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_EQ(r.out, c.counts) << r;
  }
}

// An error found while running (here: no memory heap holds 2^40 elements) goes to stderr only; standard
// output gets none of the report begun before it.
TEST_F(CliOutput, InfoErrorsLeaveStandardOutputEmpty) {
  const RunResult r = run("info --n 1099511627776");
  if (r.exit_code == 0) GTEST_SKIP() << "this device holds 2^40 elements";
  EXPECT_EQ(r.exit_code, 1) << r;
  EXPECT_NE(r.err.find("gpuscan: error: "), std::string::npos) << r;
  EXPECT_TRUE(r.out.empty()) << r;
}

}  // namespace
