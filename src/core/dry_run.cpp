#include "core/dry_run.hpp"

#include <sstream>
#include <variant>

namespace gpuscan::core {

thread_local DryRun* DryRun::active_ = nullptr;

std::string list_program(const Program& program) {
  auto name = [&](uint8_t b) {
    return b < program.buffer_names.size() ? std::string(program.buffer_names[b]) : "buffer " + std::to_string(b);
  };
  std::ostringstream out;
  for (const Command& c : program.commands) {
    if (const auto* d = std::get_if<cmd::Dispatch>(&c)) {
      out << "  dispatch " << d->key.variant << ", W = " << d->key.workgroup_size;
      if (d->indirect) out << ", groups from " << name(d->indirect->buffer) << " (indirect)";
      else
        out << ", " << d->groups_x << (d->groups_y > 1 ? " x " + std::to_string(d->groups_y) : "")
            << (d->groups_x * d->groups_y == 1 ? " group" : " groups");
      out << '\n';
    } else if (std::holds_alternative<cmd::Barrier>(c)) {
      out << "  barrier\n";
    } else if (const auto* f = std::get_if<cmd::Fill>(&c)) {
      out << "  fill " << f->bytes << " bytes of " << name(f->buffer) << " with " << f->value << '\n';
    } else if (const auto* u = std::get_if<cmd::Update>(&c)) {
      out << "  update " << u->words.size() * 4 << " bytes of " << name(u->buffer) << '\n';
    }
  }
  return out.str();
}

std::string list_programs(const std::vector<Program>& programs) {
  std::string text;
  for (size_t i = 0; i < programs.size(); ++i)
    text += (programs.size() > 1 ? "step " + std::to_string(i + 1) + ":\n" : std::string()) + list_program(programs[i]);
  return text;
}

}  // namespace gpuscan::core
