// The subcommands. Each add_*_command adds its subcommand and options to the top-level app and
// returns the Command that main() runs when that subcommand was given on the command line.
#pragma once

#include <functional>
#include <string>

#include <CLI/CLI.hpp>

#include "global_flags.hpp"

namespace gpuscan::cli {

struct Command {
  CLI::App* app = nullptr;              // the subcommand, to ask whether it was parsed
  std::function<int(GlobalFlags&)> run;  // returns the exit code; may throw gpuscan::Error
  // "" when the command's options agree with each other and with the global flags (--api may come from
  // GPUSCAN_API, so this cannot run while CLI11 parses); otherwise the usage error, in the options' own
  // words. main() asks before run(), so a conflict opens no file and no device.
  std::function<std::string(const GlobalFlags&)> conflict;
};

// The last line of each command's --help footer (main.cpp's footer has the details).
inline constexpr const char* exit_codes_help =
    "Exit codes: 0 success; 1 error; 2 usage error; 3 validation-layer messages (details: gpuscan --help).";

Command add_info_command(CLI::App& app);  // info.cpp: devices, the pick, the algorithm, the plan
Command add_scan_command(CLI::App& app);  // scan.cpp: scan a file into a file
Command add_reduce_command(CLI::App& app);   // reduce.cpp: reduce a file to one value
Command add_compact_command(CLI::App& app);  // compact.cpp: select_if / select_flagged / partition on a file
Command add_unique_command(CLI::App& app);   // compact.cpp: the first of each run of equal elements
Command add_demo_command(CLI::App& app);     // demo.cpp: random data, every variant, checked and timed
Command add_histogram_command(CLI::App& app);  // histogram.cpp: count a file's samples into bins
Command add_sort_command(CLI::App& app);       // sort.cpp: sort a file of keys (and values)

}  // namespace gpuscan::cli
