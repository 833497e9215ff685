// The fixture of the end-to-end tests of the gpuscan binary (cli_e2e_test.cpp, cli_output_e2e_test.cpp):
// each test in a directory of its own, the real executable run with --validate, its exit code, stdout and
// stderr captured. The binary's path comes from CMake (GPUSCAN_CLI_PATH = $<TARGET_FILE:gpuscan_cli>).
#pragma once

#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <sstream>
#include <string>
#include <vector>

#include "gpuscan/types.hpp"

#ifndef GPUSCAN_CLI_PATH
#error "GPUSCAN_CLI_PATH must name the gpuscan executable"
#endif

namespace {

namespace fs = std::filesystem;
using gpuscan::DataType;
using gpuscan::ScanKind;

struct RunResult {
  int exit_code = -1;
  std::string out;  // stdout
  std::string err;  // stderr
};

inline std::ostream& operator<<(std::ostream& os, const RunResult& r) {
  return os << "exit code " << r.exit_code << "\n--- stdout ---\n" << r.out.substr(0, 2000)
            << "\n--- stderr ---\n" << r.err.substr(0, 2000);
}

inline std::string shell_quote(const std::string& s) {
  std::string quoted = "'";
  for (char c : s) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

inline std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline void write_file(const fs::path& path, const std::string& content) {
  std::ofstream(path, std::ios::binary) << content;
}

// Each test gets its own directory (kept if the test fails, for a look at the files).
class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name = std::string(info->test_suite_name()) + "_" + info->name();
    for (char& c : name)
      if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    dir_ = fs::path(::testing::TempDir()) / ("gpuscan_cli_e2e_" + std::to_string(::getpid()) + "_" + name);
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);
  }

  fs::path path(const std::string& name) const { return dir_ / name; }

  // Runs `gpuscan --validate <args>` (args are shell words, already quoted where needed), with
  // `stdin_file` as standard input if given and `env` (NAME=value ...) added to the environment.
  RunResult run(const std::string& args, const std::string& stdin_file = "", const std::string& env = "") const {
    return run_with(env, args, stdin_file.empty() ? "" : " <" + shell_quote(stdin_file));
  }

  // The same as one shell command line: `before` (environment assignments, or commands ahead of gpuscan:
  // "cat x |", "umask 027;", "cat fifo >got &") and `after` (redirections, where one of stdout replaces
  // the capture, or commands after it: "; status=$?; wait; exit $status") around it.
  RunResult run_with(const std::string& before, const std::string& args, const std::string& after) const {
    const fs::path out = path("stdout.log");
    const fs::path err = path("stderr.log");
    // The pipeline cache goes to the test's directory unless `before` says otherwise.
    const std::string cache = "XDG_CACHE_HOME=" + shell_quote(path("cache").string()) + " ";
    const bool piped = before.find_first_of("|;&") != std::string::npos;
    std::string command = (piped ? before + " " + cache : cache + before + " ") + shell_quote(GPUSCAN_CLI_PATH) +
                          " --validate " + args + " >" + shell_quote(out.string()) + " 2>" +
                          shell_quote(err.string()) + after;
    const int status = std::system(command.c_str());
    RunResult r;
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    r.out = read_file(out);
    r.err = read_file(err);
    return r;
  }

  // Expects a clean failure: `exit_code`, a message containing each fragment, no validation message.
  void expect_failure(const RunResult& r, int exit_code, std::initializer_list<std::string> fragments) const {
    EXPECT_EQ(r.exit_code, exit_code) << r;
    for (const auto& fragment : fragments)
      EXPECT_NE(r.err.find(fragment), std::string::npos) << "expected '" << fragment << "' in stderr\n" << r;
    EXPECT_EQ(r.err.find("validation"), std::string::npos) << r;
    EXPECT_TRUE(r.out.empty()) << r;
  }

  // What `gpuscan info` says about the device gpuscan picks.
  struct PickedDevice {
    std::string name;
    bool subgroup_arithmetic = false;
    bool single_pass = false;
  };
  PickedDevice picked_device() const {
    const RunResult info = run("info");
    EXPECT_EQ(info.exit_code, 0) << info;
    PickedDevice d;
    // The picked device's block starts with "* [" and ends where the next device or "gpuscan picks" starts.
    const size_t begin = info.out.find("* [");
    if (begin == std::string::npos) {
      ADD_FAILURE() << "no device marked as picked\n" << info;
      return d;
    }
    const size_t end = std::min(info.out.find("\n  [", begin), info.out.find("\ngpuscan picks", begin));
    const std::string block = info.out.substr(begin, end - begin);
    const auto line = [&block](const std::string& label) {
      const size_t at = block.find(label);
      return at == std::string::npos ? std::string() : block.substr(at, block.find('\n', at) - at);
    };
    d.name = block.substr(0, block.find('\n'));
    d.subgroup_arithmetic = line("subgroup operations").find("arithmetic") != std::string::npos;
    const std::string single_pass = line("single-pass capable");
    EXPECT_FALSE(single_pass.empty()) << info;
    d.single_pass = single_pass.find("yes") != std::string::npos;
    return d;
  }

  fs::path dir_;
};

inline bool is_lavapipe(const std::string& device_name) { return device_name.find("llvmpipe") != std::string::npos; }

}  // namespace
