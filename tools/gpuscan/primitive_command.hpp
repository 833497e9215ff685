// A subcommand made from a primitive's signature (gpuscan/signature.hpp): its settings become options
// (the element type is --type, a choice --NAME CHOICE, a flag --NAME), its first input --in and any
// other input --NAME FILE, each output --NAME FILE; --format and --out-format as everywhere. It reads the
// inputs, runs the primitive through Backend::run on either API, writes the outputs asked for and says
// what it found on stderr ("gpuscan: 6 runs in 9 f32 elements"). Offering a primitive on the command line
// is one line in main.cpp's command table: add_primitive_command<gpuscan::primitive::RunLength>(app).
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include "backend.hpp"
#include "commands.hpp"
#include "gpuscan/signature.hpp"

namespace gpuscan::cli {

// A signature with its description held behind type erasure, so that the command itself is written once.
struct SignatureCommand {
  std::string_view name, summary, notes;
  // Of the one description the command's options write into (settings() binds to it).
  std::function<std::vector<Setting>()> settings;
  std::function<std::vector<ArraySpec>()> inputs, outputs;
  // Every output any form of the primitive writes, in order (the options made before parsing), and
  // when it is written ("with --non-trivial"; "" by default).
  std::vector<std::pair<ArraySpec, std::string>> every_output;
  struct Result {
    std::vector<std::vector<std::byte>> outputs;  // as outputs()
    std::string words;                            // Signature::result
  };
  std::function<Result(const Backend&, std::span<const std::span<const std::byte>>, uint64_t count)> run;
};

Command add_signature_command(CLI::App& app, std::shared_ptr<SignatureCommand> command);

namespace detail {
template <class P>
bool writes(const P& d, std::string_view output) {
  for (const ArraySpec& a : Signature<P>::outputs(d))
    if (a.name == output) return true;
  return false;
}

// The union of outputs(): of the default description and with each flag set alone; and for each, when
// it is written: "" (by default), "with --FLAG" or "not with --FLAG".
template <class P>
std::vector<std::pair<ArraySpec, std::string>> every_output() {
  using S = Signature<P>;
  std::vector<std::pair<ArraySpec, std::string>> all;
  const P base;
  for (const ArraySpec& a : S::outputs(base)) all.push_back({a, ""});
  P probe;
  std::vector<std::string_view> flags;
  for (const Setting& s : S::settings(probe))
    if (s.flag) flags.push_back(s.name);
  for (std::string_view flag : flags) {
    P one;
    for (const Setting& t : S::settings(one))
      if (t.name == flag) *t.flag = true;
    for (const ArraySpec& a : S::outputs(one)) {
      bool seen = false;
      for (const auto& b : all) seen = seen || b.first.name == a.name;
      if (!seen) all.push_back({a, "with --" + std::string(flag)});
    }
    for (auto& [a, when] : all)
      if (when.empty() && !writes(one, a.name)) when = "not with --" + std::string(flag);
  }
  return all;
}
}  // namespace detail

template <class P>
Command add_primitive_command(CLI::App& app) {
  using S = Signature<P>;
  auto description = std::make_shared<P>();
  auto command = std::make_shared<SignatureCommand>();
  command->name = S::name;
  command->summary = S::summary;
  command->notes = S::notes;
  command->settings = [description] { return S::settings(*description); };
  command->inputs = [description] { return S::inputs(*description); };
  command->outputs = [description] { return S::outputs(*description); };
  command->every_output = detail::every_output<P>();
  command->run = [description](const Backend& backend, std::span<const std::span<const std::byte>> arrays,
                               uint64_t count) {
    typename P::Output out = backend.run(*description, S::input(*description, arrays), count);
    SignatureCommand::Result result;
    result.words = S::result(*description, out);
    result.outputs = S::output(*description, std::move(out));
    return result;
  };
  return add_signature_command(app, std::move(command));
}

}  // namespace gpuscan::cli
