// gpuscan: the command-line face of the library.
//
//   gpuscan [--api vulkan|gl] [--device SEL] [--validate] COMMAND ...   (global flags may follow the command)
//   gpuscan [--device SEL] [--validate] info [--n N] ...   devices, the pick, the algorithm, the plan
//   gpuscan [--device SEL] [--validate] scan --type T --in FILE --out FILE [--format binary|text] ...
//   gpuscan [--device SEL] [--validate] compact --type T --pred PRED|--flags FILE --in FILE --out FILE ...
//   gpuscan [--device SEL] [--validate] unique --type T --in FILE --out FILE ...
//   gpuscan [--device SEL] [--validate] demo [--n N] [--type T] [--algorithm A] ...
//
// scan, info and demo share --algorithm auto|single-pass|reduce-then-scan|multipass|blelloch|look-ahead,
// --workgroup-algorithm, --workgroup-size and --vectors-per-lane (options.hpp).
//
// This file holds the command table, the global flags and the mapping from failures to exit codes:
//   0 success; 1 a gpuscan::Error (bad file, no device, Vulkan failure, a failed write, standard output
//   included) or a scan that does not match the CPU reference; 2 a usage error (unknown command, type or
//   option, options that conflict); 3 the validation layer reported warnings or errors (with --validate or
//   GPUSCAN_VALIDATE) though the command succeeded; with --api gl, KHR_debug errors and warnings of
//   gpuscan's debug context count as such.
// Everything the commands write goes through process_outputs() (output.hpp), std::cout included; main()
// commits it once the command has returned 0 (or 3), and discards it otherwise.
#include <cstdlib>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "commands.hpp"
#include "global_flags.hpp"
#include "gpuscan/gpuscan.hpp"
#include "output.hpp"
#include "primitive_command.hpp"

namespace {

constexpr int exit_error = 1;
constexpr int exit_usage = 2;
constexpr int exit_validation = 3;

bool env_flag(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' && std::string(value) != "0";
}

std::string usage_message(const CLI::App*, const CLI::Error& e) {
  return "gpuscan: usage error: " + std::string(e.what()) +
         "\nRun 'gpuscan --help' or 'gpuscan COMMAND --help' for usage.\n";
}

// "" when exactly one known command was given and nothing unexpected; otherwise what is wrong.
template <size_t N>
std::string check_command(const CLI::App& app, const gpuscan::cli::Command (&commands)[N]) {
  std::string names;
  bool parsed = false;
  for (const auto& command : commands) {
    names += (names.empty() ? "" : ", ") + command.app->get_name();
    parsed = parsed || command.app->parsed();
  }
  const std::vector<std::string> extras = app.remaining();
  if (!parsed && !extras.empty() && !extras.front().starts_with('-'))
    return "unknown command '" + extras.front() + "'; commands: " + names;
  if (!extras.empty()) {
    std::string list;
    for (const auto& extra : extras) list += (list.empty() ? "'" : " '") + extra + "'";
    return "unexpected argument" + std::string(extras.size() == 1 ? " " : "s ") + list;
  }
  if (!parsed) return "no command given; commands: " + names;
  return {};
}

// std::cout writes into the process's OutputSet while it lives, so that printed text (help included)
// commits with the files; restored before the set and std::cout are destroyed.
class StdoutCapture {
 public:
  explicit StdoutCapture(gpuscan::cli::OutputSet& outputs) : saved_(std::cout.rdbuf(&outputs.stdout_buffer())) {}
  StdoutCapture(const StdoutCapture&) = delete;
  StdoutCapture& operator=(const StdoutCapture&) = delete;
  ~StdoutCapture() { std::cout.rdbuf(saved_); }

 private:
  std::streambuf* saved_;
};

int run_gpuscan(int argc, char** argv);

}  // namespace

// Every output commits here, once the command has returned: whole when it succeeded (exit code 0, or 3
// for validation messages), not at all when it failed. A failed write is an error (exit code 1).
int main(int argc, char** argv) {
  gpuscan::cli::OutputSet& outputs = gpuscan::cli::process_outputs();
  gpuscan::cli::remove_temporaries_on_signals();
  StdoutCapture capture(outputs);
  int code = run_gpuscan(argc, argv);
  std::cout.flush();
  try {
    if (code == 0 || code == exit_validation) outputs.commit();
    else outputs.discard();
  } catch (const std::exception& e) {
    std::cerr << "gpuscan: error: " << e.what() << '\n';
    code = exit_error;
  }
  return code;
}

namespace {

int run_gpuscan(int argc, char** argv) {
  using namespace gpuscan::cli;

  CLI::App app{"gpuscan " + std::string(gpuscan::version) + ": prefix scans on the GPU with Vulkan", "gpuscan"};
  app.failure_message(usage_message);  // before the subcommands, which copy it
  app.set_version_flag("--version", "gpuscan " + std::string(gpuscan::version), "print the version and exit");
  app.require_subcommand(0, 1);  // "no command" and "unknown command" are reported below, by name
  app.fallthrough();  // global flags may also follow the command: `gpuscan scan ... --validate`
  app.footer(
      "Examples:\n"
      "  gpuscan info                                   devices, the pick, the algorithm it would use\n"
      "  gpuscan info --json                            the same as JSON\n"
      "  gpuscan scan --type u32 --in a.bin --out b.bin --verify\n"
      "  gpuscan compact --type u32 --pred gt:100 --in a.bin --out b.bin [--partition]\n"
      "  gpuscan unique --type u64 --in sorted.bin --out distinct.bin\n"
      "  gpuscan --device llvmpipe demo --n 1000000\n"
      "  gpuscan --api gl info                          the OpenGL backend: GL version, subgroups, the pick\n"
      "  gpuscan COMMAND --help                         a command's options and examples\n"
      "Environment: GPUSCAN_DEVICE selects the device like --device (Vulkan only); GPUSCAN_VALIDATE=1 acts like\n"
      "             --validate; GPUSCAN_API=gl acts like --api gl; GPUSCAN_TIMEOUT_MS: how long to wait for the\n"
      "             GPU (Vulkan; default 60000); GPUSCAN_PIPELINE_STATS=1 prints each Vulkan pipeline's compiler\n"
      "             statistics to stderr as it is built. Vulkan pipelines are cached between runs in\n"
      "             $XDG_CACHE_HOME/gpuscan (else ~/.cache/gpuscan), one file per device.\n"
      "Outputs: a file lands whole once the command succeeded (written to .NAME.gpuscan-XXXXXX beside it,\n"
      "         then renamed over it) or not at all; standard output ('-') is written at the end too.\n"
      "Exit codes: 0 success; 1 error (I/O, standard output included, malformed data, no device, Vulkan\n"
      "            failure, result mismatch); 2 usage error; 3 validation-layer messages reported.");

  GlobalFlags globals;
  app.add_option("--device,-d", globals.device_selector,
                 "Vulkan device to use: an index from `gpuscan info` or a case-insensitive part of its name "
                 "(default: GPUSCAN_DEVICE, else the first discrete GPU, integrated, virtual, CPU). Not with "
                 "--api gl, which runs on the device EGL offers first");
  app.add_option_function<std::string>(
         "--api", [&globals](const std::string& name) { globals.api = name == "gl" ? Api::gl : Api::vulkan; },
         "graphics API: vulkan (default) or gl (OpenGL 4.5 through a headless EGL context; default: "
         "GPUSCAN_API, else vulkan)")
      ->check(CLI::IsMember({"vulkan", "gl"}))
      ->type_name("API");
  app.add_flag("!--no-pipeline-cache", globals.pipeline_cache,
               "neither read nor write the Vulkan pipeline cache kept between runs ($XDG_CACHE_HOME/gpuscan, "
               "else ~/.cache/gpuscan)");
  app.add_flag("--validate", globals.validate,
               "run with the Khronos validation layer (synchronization checks included); any warning or "
               "error it reports is printed and makes the exit code non-zero");

  // The command table.
  const Command commands[] = {add_info_command(app), add_scan_command(app), add_reduce_command(app),
                              add_compact_command(app), add_unique_command(app), add_demo_command(app),
                              add_histogram_command(app), add_sort_command(app),
                              add_primitive_command<gpuscan::primitive::RunLength>(app)};
  // Unknown words land in app.remaining() (subcommands fall through to here), so that an unknown
  // command can be named as such instead of CLI11's "A subcommand is required".
  app.allow_extras();

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version arrive here too, with exit code 0.
    const int code = app.exit(e);
    return code == 0 ? 0 : exit_usage;
  }
  if (const auto usage = check_command(app, commands); !usage.empty()) {
    std::cerr << usage_message(&app, CLI::Error("usage", usage, CLI::ExitCodes::ExtrasError));
    return exit_usage;
  }
  if (env_flag("GPUSCAN_VALIDATE")) globals.validate = true;
  if (const char* api = std::getenv("GPUSCAN_API"); api && app.count("--api") == 0) {
    if (std::string(api) != "gl" && std::string(api) != "vulkan") {
      std::cerr << "gpuscan: usage error: GPUSCAN_API is '" << api << "'; use vulkan or gl\n";
      return exit_usage;
    }
    globals.api = std::string(api) == "gl" ? Api::gl : Api::vulkan;
    globals.api_from_environment = true;
  }
  std::string conflict = globals.conflict();
  for (const Command& command : commands)
    if (conflict.empty() && command.app->parsed() && command.conflict) conflict = command.conflict(globals);
  if (!conflict.empty()) {
    std::cerr << usage_message(&app, CLI::Error("usage", conflict, CLI::ExitCodes::ValidationError));
    return exit_usage;
  }

  int code = exit_error;
  try {
    for (const Command& command : commands)
      if (command.app->parsed()) code = command.run(globals);
  } catch (const gpuscan::Error& e) {
    std::cerr << "gpuscan: error: " << e.what();
    if (const auto* vk = dynamic_cast<const gpuscan::VulkanError*>(&e))
      std::cerr << " (" << gpuscan::vk_result_name(vk->result()) << ')';
    std::cerr << '\n';
    code = exit_error;
  } catch (const std::exception& e) {
    std::cerr << "gpuscan: error: " << e.what() << '\n';
    code = exit_error;
  }

  if (const size_t messages = globals.validation_log.count(); messages > 0) {
    std::cerr << "gpuscan: the validation layer reported " << messages << " warning"
              << (messages == 1 ? "" : "s") << " or error" << (messages == 1 ? "" : "s") << '\n';
    if (code == 0) code = exit_validation;
  }
  return code;
}

}  // namespace
