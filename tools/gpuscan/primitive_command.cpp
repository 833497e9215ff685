// add_signature_command: the one subcommand every signature-registered primitive shares
// (primitive_command.hpp).
#include "primitive_command.hpp"

#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "io.hpp"
#include "options.hpp"

namespace gpuscan::cli {
namespace {

struct Files {
  std::vector<std::string> inputs;   // as SignatureCommand::inputs() of the default description
  std::vector<std::string> outputs;  // as every_output
  FileFormat format = FileFormat::binary;
  std::optional<FileFormat> out_format;
};

std::string joined(const std::vector<std::string>& words, const char* last) {
  std::string out;
  for (size_t i = 0; i < words.size(); ++i)
    out += (i == 0 ? "" : i + 1 == words.size() ? last : ", ") + words[i];
  return out;
}

std::string input_option(const ArraySpec& input, size_t index) {
  return index == 0 ? "--in" : "--" + std::string(input.name);
}

// "--non-trivial" for the flags set, else the command's name: who writes which outputs, in messages.
std::string form_of(const SignatureCommand& command) {
  std::vector<std::string> flags;
  for (const Setting& s : command.settings())
    if (s.flag && *s.flag) flags.push_back("--" + std::string(s.name));
  return flags.empty() ? std::string(command.name) : joined(flags, " ");
}

// "" when the options agree; otherwise the usage error.
std::string conflict(const SignatureCommand& command, const Files& files) {
  std::vector<std::string> writes;
  for (const ArraySpec& a : command.outputs()) writes.push_back("--" + std::string(a.name));
  std::vector<FileOption> outputs;
  for (size_t i = 0; i < command.every_output.size(); ++i) {
    const std::string option = "--" + std::string(command.every_output[i].first.name);
    if (files.outputs[i].empty()) continue;
    bool written = false;
    for (const std::string& w : writes) written = written || w == option;
    if (!written) return form_of(command) + " writes " + joined(writes, " and ") + ", not " + option;
    outputs.push_back({option, files.outputs[i]});
  }
  if (outputs.empty()) {
    std::vector<std::string> give;
    for (const std::string& w : writes) give.push_back(w + " FILE");
    return "give " + joined(give, " and/or ");
  }
  std::vector<FileOption> inputs;
  const std::vector<ArraySpec> in = command.inputs();
  for (size_t i = 0; i < in.size(); ++i) inputs.push_back({input_option(in[i], i), files.inputs.at(i)});
  return file_conflict(inputs, outputs);
}

int run(const SignatureCommand& command, const Files& files, GlobalFlags& globals) {
  const FileFormat out_format = files.out_format.value_or(files.format);
  const std::vector<ArraySpec> in = command.inputs();
  std::vector<std::vector<std::byte>> arrays;
  for (size_t i = 0; i < in.size(); ++i) arrays.push_back(read_values(files.inputs.at(i), in[i].type, files.format));
  const std::vector<std::span<const std::byte>> spans(arrays.begin(), arrays.end());
  const uint64_t count = arrays.empty() ? 0 : arrays[0].size() / element_size(in[0].type);
  const Backend backend = globals.open_backend();
  const SignatureCommand::Result result = command.run(backend, spans, count);
  const std::vector<ArraySpec> out = command.outputs();
  for (size_t i = 0; i < out.size(); ++i)
    for (size_t j = 0; j < command.every_output.size(); ++j)
      if (command.every_output[j].first.name == out[i].name && !files.outputs[j].empty())
        write_values(files.outputs[j], result.outputs[i], out[i].type, out_format);
  std::cerr << "gpuscan: " << result.words << " in " << count << ' '
            << (in.empty() ? "" : std::string(to_string(in[0].type)) + " ") << "elements\n";
  return 0;
}

}  // namespace

Command add_signature_command(CLI::App& app, std::shared_ptr<SignatureCommand> command) {
  auto files = std::make_shared<Files>();
  CLI::App* sub = app.add_subcommand(std::string(command->name), std::string(command->summary));
  std::string example = "gpuscan " + std::string(command->name);
  for (const Setting& s : command->settings()) {
    const std::string help(s.help);
    if (s.flag) {
      sub->add_flag("--" + std::string(s.name), *s.flag, help);
      continue;
    }
    std::vector<std::string> choices(s.choices.begin(), s.choices.end());
    const std::string names = joined(choices, ", ");
    const std::string what = s.element_type ? "type" : std::string(s.name);
    CLI::Option* option =
        sub->add_option_function<std::string>(s.element_type ? "--type,-t" : "--" + std::string(s.name),
                                              [choose = s.choose](const std::string& v) { choose(v); },
                                              help + ": " + names)
            ->check(CLI::Validator(
                [choices, what, names](std::string& v) -> std::string {
                  for (const std::string& c : choices)
                    if (c == v) return {};
                  return "unknown " + what + " '" + v + "'; valid " + what + "s: " + names;
                },
                "", what))
            ->type_name(s.element_type ? "TYPE" : "NAME");
    if (s.element_type) {
      option->required();
      example += " --type u32";
    } else {
      option->default_str(choices.front());
    }
  }
  const std::vector<ArraySpec> inputs = command->inputs();
  files->inputs.resize(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    const std::string name = i == 0 ? "--in,-i" : "--" + std::string(inputs[i].name);
    sub->add_option(name, files->inputs[i], std::string(inputs[i].help) + " ('-' = standard input)")
        ->required()
        ->type_name("FILE");
    example += " " + input_option(inputs[i], i) + " " + (i == 0 ? std::string("a") : std::string(inputs[i].name)) + ".bin";
  }
  files->outputs.resize(command->every_output.size());
  const std::vector<ArraySpec> first_form = command->outputs();
  for (size_t i = 0; i < command->every_output.size(); ++i) {
    const auto& [a, when] = command->every_output[i];
    std::string help = (when.empty() ? "" : when + ": ") + "write " + std::string(a.help);
    if (a.role == ArrayRole::positions) help += " (u32)";
    sub->add_option("--" + std::string(a.name), files->outputs[i], help + " here ('-' = standard output)")
        ->type_name("FILE");
    for (const ArraySpec& f : first_form)
      if (f.name == a.name) example += " --" + std::string(a.name) + " " + std::string(a.name) + ".bin";
  }
  add_format_options(*sub, files->format, files->out_format);
  sub->footer(std::string(command->notes) + "\nExample:\n  " + example + "\nWhat it found goes to stderr.\n" +
              exit_codes_help);
  return {sub, [command, files](GlobalFlags& globals) { return run(*command, *files, globals); },
          [command, files](const GlobalFlags&) { return conflict(*command, *files); }};
}

}  // namespace gpuscan::cli
