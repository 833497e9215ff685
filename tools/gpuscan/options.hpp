// Options that several subcommands take, with the names checked against the library's own parsers
// (gpuscan::parse_data_type, parse_algorithm, parse_workgroup_algorithm) so that a bad name is a usage
// error listing the valid ones.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <CLI/CLI.hpp>

#include "backend.hpp"
#include "gpuscan/types.hpp"
#include "io.hpp"

namespace gpuscan::cli {

// Accepts only decimal digits of a number up to `max` (a usage error names the number and `max`), and
// drops leading zeros. Pass it to ->transform(), which lets it rewrite the text: CLI11 alone would read
// "-5" into an unsigned option as 2^64 - 5, "010" as octal 8 and a number past 2^64 - 1 as 2^64 - 1.
CLI::Validator unsigned_integer(uint64_t max = UINT64_MAX);

CLI::Option* add_type_option(CLI::App& app, DataType& type);         // --type
CLI::Option* add_op_option(CLI::App& app, Op& op);                  // --op
CLI::Option* add_format_option(CLI::App& app, FileFormat& format);  // --format
// --format and --out-format: `out_format` stays nullopt unless given (the outputs then take --format).
void add_format_options(CLI::App& app, FileFormat& format, std::optional<FileFormat>& out_format);

// "" when `op` is defined on `type`; otherwise the usage error ("--op xor applies to integer types only, ...").
std::string op_conflict(Op op, DataType type);
// A file option as given on the command line: its name ("--out") and path ("" = not given).
struct FileOption {
  std::string option;
  std::string path;
};
// "" unless two of `inputs` are "-" (standard input can be read only once) or two of `outputs` name one
// file (same_path: "-" twice, or one file however spelt); otherwise the usage error. An output may be an
// input's file: inputs are read before any output lands (output.hpp).
std::string file_conflict(const std::vector<FileOption>& inputs, const std::vector<FileOption>& outputs);

// --device-memory-budget SIZE: how much memory a command's chunked stream may use (gpuscan/stream.hpp,
// StreamOptions::device_memory_budget); 0 = the library's default.
CLI::Option* add_memory_budget_option(CLI::App& app, uint64_t& budget);

// What --algorithm names: the library's algorithms, plus `blelloch`, which is the multipass scan with
// Blelloch workgroup scans (the algorithm gpuscan started with).
enum class AlgorithmName : uint8_t { automatic, single_pass, reduce_then_scan, multipass, blelloch, look_ahead };
inline constexpr AlgorithmName all_algorithm_names[] = {AlgorithmName::automatic,        AlgorithmName::single_pass,
                                                        AlgorithmName::reduce_then_scan, AlgorithmName::multipass,
                                                        AlgorithmName::blelloch,         AlgorithmName::look_ahead};
std::string_view to_string(AlgorithmName name) noexcept;  // "auto", "single-pass", ..., "blelloch"
std::optional<AlgorithmName> parse_algorithm_name(std::string_view name) noexcept;
std::string algorithm_names();  // "auto, single-pass, reduce-then-scan, multipass, blelloch"

// How to scan, as given on the command line: --algorithm, --workgroup-algorithm, --workgroup-size,
// --vectors-per-lane and --nondeterministic. An option not given stays nullopt / 0 / false (the
// library's default).
struct AlgorithmOptions {
  std::optional<AlgorithmName> algorithm;
  std::optional<WorkgroupAlgorithm> workgroup;
  uint32_t workgroup_size = 0;
  uint32_t vectors_per_lane = 0;
  bool nondeterministic = false;  // floats: the unordered look-back (ScanConfig::deterministic = false)

  // "" when the options agree; otherwise the usage error. --workgroup-algorithm applies to the
  // multipass scan only, so it conflicts with --algorithm single-pass or reduce-then-scan, and
  // --algorithm blelloch conflicts with --workgroup-algorithm subgroup.
  std::string conflict() const;
  // The same against the API (`api_option` says how it was chosen, "--api gl" or "GPUSCAN_API=gl"):
  // --algorithm single-pass, which GL does not offer.
  std::string conflict_with(Api api, const std::string& api_option) const;
  // Sets config.algorithm, workgroup, workgroup_size, vectors_per_lane and deterministic (true unless
  // --nondeterministic: float single-pass scans take the ordered look-back). --workgroup-algorithm
  // blelloch|subgroup without --algorithm selects the multipass scan (as before there was a choice);
  // with --algorithm auto it applies where auto picks multipass.
  void apply(ScanConfig& config) const;
};

// A ScanConfig of `type`, inclusive or exclusive, with `algorithm` applied (AlgorithmOptions::apply).
ScanConfig scan_config(DataType type, bool inclusive, const AlgorithmOptions& algorithm);

// --workgroup-size / -w and --vectors-per-lane / -k; `tiles_note` ends W's help, `k_applies_to`
// starts K's ("" or e.g. "single-pass and reduce-then-scan: ").
void add_tile_shape_options(CLI::App& app, uint32_t& workgroup_size, uint32_t& vectors_per_lane,
                            const std::string& tiles_note, const std::string& k_applies_to = "");

// Adds the five options above, and a check (run when the command line has been parsed) that turns a
// conflict() into a usage error.
void add_algorithm_options(CLI::App& app, AlgorithmOptions& options);

// Tile size in elements of the (resolved, not automatic) algorithm `algorithm` under `config`:
// 2·W for multipass, W · K · 4 for single-pass and reduce-then-scan, K being `k` if given, else config's
// or the default (which for large scans may differ from the library's: Backend::vectors_per_lane).
// Elements per tile of `algorithm` with W = `w` and K = `k` (0: the config's or the defaults).
uint64_t tile_elements(const ScanConfig& config, Algorithm algorithm, uint32_t k = 0, uint32_t w = 0);
uint32_t effective_workgroup_size(const ScanConfig& config);    // W: config's or the default
uint32_t effective_vectors_per_lane(const ScanConfig& config);  // K: config's or the default

}  // namespace gpuscan::cli
