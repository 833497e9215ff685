// Unit tests of staged outputs (tools/gpuscan/output.*): nothing lands before commit(), a discard leaves
// old files and no temporaries, two outputs to one file are refused, paths compare however spelt, and
// replace_file leaves what is not a regular file alone.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <span>
#include <sstream>
#include <string>

#include "gpuscan/error.hpp"
#include "output.hpp"

namespace gpuscan::cli {
namespace {

namespace fs = std::filesystem;

class CliOutputSet : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::path(::testing::TempDir()) / ("gpuscan_cli_output_" + std::to_string(::getpid()) + "_" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  static std::string read(const std::string& file) {
    std::ifstream in(file, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
  }
  static void write(const std::string& file, const std::string& content) {
    std::ofstream(file, std::ios::binary) << content;
  }
  // Every file in the directory but `keep`: the temporaries.
  size_t others(std::initializer_list<std::string> keep) const {
    size_t n = 0;
    for (const auto& entry : fs::directory_iterator(dir_))
      if (std::find(keep.begin(), keep.end(), entry.path().filename().string()) == keep.end()) ++n;
    return n;
  }
  // Random printable bytes (seed given by the caller, so a failure can be replayed).
  static std::string random_text(size_t n, uint32_t seed) {
    std::mt19937 rng(seed);
    std::string s(n, ' ');
    for (char& c : s) c = static_cast<char>('a' + rng() % 26);
    return s;
  }

  fs::path dir_;
};

TEST_F(CliOutputSet, NothingLandsBeforeCommit) {
  const std::string data = random_text(100000, 1);
  write(path("old.bin"), "old");
  OutputSet outputs;
  outputs.open(path("old.bin")).write(data.substr(0, 50000));
  outputs.open(path("new.bin")).write(data);
  EXPECT_EQ(read(path("old.bin")), "old");
  EXPECT_FALSE(fs::exists(path("new.bin")));
  EXPECT_EQ(others({"old.bin"}), 2u) << "two temporaries";
  outputs.commit();
  EXPECT_EQ(read(path("old.bin")), data.substr(0, 50000));
  EXPECT_EQ(read(path("new.bin")), data);
  EXPECT_EQ(others({"old.bin", "new.bin"}), 0u);
}

TEST_F(CliOutputSet, DiscardKeepsOldFilesAndRemovesTemporaries) {
  write(path("old.bin"), "old");
  {
    OutputSet outputs;
    outputs.open(path("old.bin")).write(random_text(1000, 2));
    outputs.open(path("new.bin")).write(random_text(1000, 3));
    outputs.discard();
  }
  EXPECT_EQ(read(path("old.bin")), "old");
  EXPECT_FALSE(fs::exists(path("new.bin")));
  EXPECT_EQ(others({"old.bin"}), 0u);
  {
    OutputSet outputs;  // destroyed without a commit: the same
    outputs.open(path("new.bin")).write(random_text(1000, 4));
  }
  EXPECT_FALSE(fs::exists(path("new.bin")));
  EXPECT_EQ(others({"old.bin"}), 0u);
}

TEST_F(CliOutputSet, TemporariesHaveARecognisableNameAndTheUmasksMode) {
  OutputSet outputs;
  StagedOutput& out = outputs.open(path("o.bin"));
  const std::string name = out.temporary().filename().string();
  EXPECT_TRUE(name.starts_with(".o.bin.gpuscan-")) << name;
  EXPECT_EQ(out.temporary().parent_path(), dir_);
  const mode_t mask = ::umask(0);
  ::umask(mask);
  struct stat st{};
  ASSERT_EQ(::stat(out.temporary().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0666 & ~mask);
  outputs.discard();
}

TEST_F(CliOutputSet, TwoOutputsToOneFileAreRefused) {
  OutputSet outputs;
  outputs.open(path("o.bin"));
  for (const std::string& other : {path("o.bin"), (dir_ / "." / "o.bin").string(), path("x/../o.bin")}) {
    try {
      outputs.open(other);
      ADD_FAILURE() << other << " was accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), Errc::invalid_argument);
      EXPECT_NE(std::string(e.what()).find("two outputs name one file"), std::string::npos) << e.what();
    }
  }
  // Standard output may take several writes: text and data append to one buffer.
  EXPECT_EQ(&outputs.open("-"), &outputs.open("-"));
  outputs.discard();
}

TEST_F(CliOutputSet, SamePathHoweverSpelt) {
  write(path("a"), "a");
  write(path("b"), "b");
  fs::create_directories(path("d"));
  fs::create_symlink(path("a"), path("link"));
  EXPECT_TRUE(same_path("-", "-"));
  EXPECT_FALSE(same_path("-", path("a")));
  EXPECT_TRUE(same_path(path("a"), path("d/../a")));
  EXPECT_TRUE(same_path(path("a"), path("link")));
  EXPECT_FALSE(same_path(path("a"), path("b")));
  EXPECT_TRUE(same_path(path("new"), path("d/../new")));  // neither exists yet
  EXPECT_FALSE(same_path(path("new"), path("d/new")));
  const fs::path cwd = fs::current_path();
  fs::current_path(dir_);
  EXPECT_TRUE(same_path("new", "./new"));
  EXPECT_TRUE(same_path("new", path("new")));
  fs::current_path(cwd);
}

TEST_F(CliOutputSet, ReplaceFileWritesWholeAndLeavesOtherThanFilesAlone) {
  const std::string data = random_text(5000, 5);
  replace_file(path("cache.bin"), std::as_bytes(std::span(data.data(), data.size())));
  EXPECT_EQ(read(path("cache.bin")), data);
  ASSERT_EQ(::mkfifo(path("fifo").c_str(), 0600), 0);
  EXPECT_THROW(replace_file(path("fifo"), std::as_bytes(std::span(data.data(), data.size()))), Error);
  EXPECT_TRUE(fs::is_fifo(path("fifo")));
  EXPECT_EQ(others({"cache.bin", "fifo"}), 0u);
}

}  // namespace
}  // namespace gpuscan::cli
