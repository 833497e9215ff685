#include "vulkan/reconvergence.hpp"

#include <algorithm>
#include <cstdio>
#include <string>
#include <string_view>

namespace gpuscan {

std::string_view to_string(Reconvergence guarantee) noexcept {
  switch (guarantee) {
    case Reconvergence::maximal: return "maximal";
    case Reconvergence::subgroup_uniform: return "subgroup-uniform";
    default: return "none";
  }
}

namespace vk {

Reconvergence strongest_reconvergence(const DeviceInfo& d, bool maximal_allowed, bool subgroup_uniform_allowed) {
  if (maximal_allowed && d.maximal_reconvergence) return Reconvergence::maximal;
  if (subgroup_uniform_allowed && d.subgroup_uniform_control_flow) return Reconvergence::subgroup_uniform;
  return Reconvergence::none;
}

namespace {

constexpr uint32_t spirv_magic = 0x07230203;
constexpr uint32_t header_words = 5;
constexpr uint32_t op_extension = 10, op_entry_point = 15, op_execution_mode = 16, op_capability = 17;
constexpr uint32_t model_gl_compute = 5;

// The words of a literal string operand: UTF-8, nul-terminated, zero-padded to whole words, first byte lowest.
std::vector<uint32_t> literal_string(std::string_view text) {
  std::vector<uint32_t> words(text.size() / 4 + 1, 0);
  for (size_t i = 0; i < text.size(); ++i)
    words[i / 4] |= uint32_t{static_cast<unsigned char>(text[i])} << (8 * (i % 4));
  return words;
}

std::string hex(uint32_t word) {
  char text[11];
  std::snprintf(text, sizeof text, "0x%08x", word);
  return text;
}

Error malformed(const std::string& why) {
  return Error(Errc::invalid_argument, "cannot add a reconvergence guarantee to the SPIR-V module: " + why);
}

}  // namespace

std::vector<uint32_t> with_reconvergence(std::span<const uint32_t> spirv, Reconvergence guarantee) {
  std::vector<uint32_t> out(spirv.begin(), spirv.end());
  if (guarantee == Reconvergence::none) return out;
  if (spirv.size() < header_words)
    throw malformed("it has " + std::to_string(spirv.size()) + " words, fewer than the 5 of a SPIR-V header");
  if (spirv[0] != spirv_magic)
    throw malformed("its first word is " + hex(spirv[0]) + ", not the SPIR-V magic number 0x07230203" +
                    (spirv[0] == 0x03022307 ? " (it is byte-swapped)" : ""));

  const bool maximal = guarantee == Reconvergence::maximal;
  const std::vector<uint32_t> extension =
      literal_string(maximal ? "SPV_KHR_maximal_reconvergence" : "SPV_KHR_subgroup_uniform_control_flow");
  const uint32_t mode = maximal ? spirv_maximally_reconverges : spirv_subgroup_uniform_control_flow;

  // One walk over the instructions (word count in the high half-word, opcode in the low): where the new
  // ones go, and what the module declares already.
  size_t after_capabilities = header_words, after_entry_points = 0;
  bool has_extension = false;
  std::vector<uint32_t> entries, entries_with_mode;
  for (size_t i = header_words; i < spirv.size();) {
    const uint32_t count = spirv[i] >> 16, opcode = spirv[i] & 0xffffu;
    if (count == 0 || count > spirv.size() - i)
      throw malformed("the instruction at word " + std::to_string(i) + " has a word count of " +
                      std::to_string(count) + ", past the module's end (" + std::to_string(spirv.size() - i) +
                      (spirv.size() - i == 1 ? " word left)" : " words left)"));
    const std::span<const uint32_t> operands = spirv.subspan(i + 1, count - 1);
    if (opcode == op_capability) after_capabilities = i + count;
    if (opcode == op_extension && std::ranges::equal(operands, extension)) has_extension = true;
    if (opcode == op_entry_point && operands.size() >= 2) {
      if (operands[0] == model_gl_compute) entries.push_back(operands[1]);
      after_entry_points = i + count;
    }
    if (opcode == op_execution_mode && operands.size() >= 2 && operands[1] == mode)
      entries_with_mode.push_back(operands[0]);
    i += count;
  }
  if (entries.empty()) throw malformed("it has no GLCompute entry point");
  if (after_entry_points < after_capabilities) throw malformed("an OpCapability follows its OpEntryPoint");

  // Inserted back to front, so that the earlier position stays valid.
  std::vector<uint32_t> modes;
  for (uint32_t entry : entries)
    if (std::ranges::find(entries_with_mode, entry) == entries_with_mode.end())
      modes.insert(modes.end(), {(3u << 16) | op_execution_mode, entry, mode});
  out.insert(out.begin() + static_cast<ptrdiff_t>(after_entry_points), modes.begin(), modes.end());
  if (!has_extension) {
    std::vector<uint32_t> instruction{static_cast<uint32_t>(extension.size() + 1) << 16 | op_extension};
    instruction.insert(instruction.end(), extension.begin(), extension.end());
    out.insert(out.begin() + static_cast<ptrdiff_t>(after_capabilities), instruction.begin(), instruction.end());
  }
  return out;
}

}  // namespace vk
}  // namespace gpuscan
