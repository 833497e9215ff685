// The embedded SPIR-V modules (src/vulkan/shader_table.hpp) unpacked, and
// vk::with_reconvergence (src/vulkan/reconvergence.hpp) on every SPIR-V module embedded in gpuscan: exactly one
// OpExtension and one OpExecutionMode more, in their places, everything else unchanged; spirv-val accepts the
// result. No device needed: lavapipe offers neither guarantee, so the GPU tests never patch.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "vulkan/reconvergence.hpp"
#include "vulkan/shader_table.hpp"

namespace gpuscan::test {
namespace {

using Words = std::vector<uint32_t>;
constexpr uint32_t op_extension = 10, op_entry_point = 15, op_execution_mode = 16, op_capability = 17;

Words words_of(const vk::EmbeddedShader& s) { return vk::spirv_words(s); }

// The instructions after the header, each as its words.
std::vector<Words> instructions(const Words& module) {
  std::vector<Words> out;
  for (size_t i = 5; i < module.size();) {
    const uint32_t count = module[i] >> 16;
    if (count == 0 || i + count > module.size()) {
      ADD_FAILURE() << "malformed instruction at word " << i;
      break;
    }
    out.emplace_back(module.begin() + i, module.begin() + i + count);
    i += count;
  }
  return out;
}

uint32_t opcode(const Words& instruction) { return instruction[0] & 0xffffu; }

std::string literal(const Words& operands) {
  std::string text;
  for (uint32_t w : operands)
    for (int b = 0; b < 4; ++b)
      if (const char c = static_cast<char>(w >> (8 * b))) text += c;
      else return text;
  return text;
}

struct Expected {
  Reconvergence guarantee;
  const char* extension;
  uint32_t mode;
};
const Expected maximal{Reconvergence::maximal, "SPV_KHR_maximal_reconvergence", 6023};
const Expected uniform{Reconvergence::subgroup_uniform, "SPV_KHR_subgroup_uniform_control_flow", 4421};

// `patched` is `original` with the extension right after the last OpCapability and the execution mode for its
// one GLCompute entry point right after the last OpEntryPoint; "" if so, else what differs.
std::string check_patch(const Words& original, const Words& patched, const Expected& e) {
  if (!std::equal(original.begin(), original.begin() + 5, patched.begin())) return "the header changed";
  std::vector<Words> before = instructions(original), after = instructions(patched);
  if (after.size() != before.size() + 2) return "not exactly two more instructions";
  size_t last_capability = 0, last_entry = 0;
  uint32_t entry = 0;
  for (size_t i = 0; i < before.size(); ++i) {
    if (opcode(before[i]) == op_capability) last_capability = i;
    if (opcode(before[i]) == op_entry_point) last_entry = i, entry = before[i][2];
  }
  const Words& extension = after[last_capability + 1];
  if (opcode(extension) != op_extension || literal(Words(extension.begin() + 1, extension.end())) != e.extension)
    return "no OpExtension \"" + std::string(e.extension) + "\" after the last OpCapability";
  const Words& mode = after[last_entry + 2];  // one further down: the extension came before
  if (mode != Words{(3u << 16) | op_execution_mode, entry, e.mode})
    return "no OpExecutionMode %" + std::to_string(entry) + " " + std::to_string(e.mode) + " after the last OpEntryPoint";
  after.erase(after.begin() + static_cast<ptrdiff_t>(last_entry + 2));
  after.erase(after.begin() + static_cast<ptrdiff_t>(last_capability + 1));
  return after == before ? "" : "other instructions changed";
}

// The embedded archives give back, byte for byte, the SPIR-V glslc wrote into the build tree, for every module.
TEST(EmbeddedShaders, EveryModuleUnpacksToWhatGlslcWrote) {
  ASSERT_FALSE(vk::embedded_shaders().empty());
  for (const vk::EmbeddedShader& s : vk::embedded_shaders()) {
    const std::string path = std::string(GPUSCAN_SHADER_BUILD_DIR) + "/" + s.member;
    std::ifstream in(path, std::ios::binary);
    ASSERT_TRUE(in.good()) << path;
    const std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const Words words = words_of(s);
    ASSERT_EQ(bytes.size(), words.size() * 4) << s.name;
    EXPECT_EQ(std::memcmp(bytes.data(), words.data(), bytes.size()), 0) << s.name;
  }
}

TEST(Reconvergence, PatchAddsOneExtensionAndOneModeToEveryEmbeddedModule) {
  ASSERT_FALSE(vk::embedded_shaders().empty());
  for (const Expected& e : {maximal, uniform})
    for (const vk::EmbeddedShader& s : vk::embedded_shaders()) {
      const Words original = words_of(s);
      const Words patched = vk::with_reconvergence(original, e.guarantee);
      EXPECT_EQ(check_patch(original, patched, e), "") << s.name << ", " << to_string(e.guarantee);
      // A module that has the guarantee already is left as it is.
      EXPECT_EQ(vk::with_reconvergence(patched, e.guarantee), patched) << s.name;
    }
}

TEST(Reconvergence, NoneLeavesTheModuleAsItIs) {
  const Words original = words_of(vk::embedded_shaders().front());
  EXPECT_EQ(vk::with_reconvergence(original, Reconvergence::none), original);
  EXPECT_EQ(to_string(Reconvergence::none), "none");
  EXPECT_EQ(to_string(Reconvergence::subgroup_uniform), "subgroup-uniform");
  EXPECT_EQ(to_string(Reconvergence::maximal), "maximal");
}

// spirv-val's verdict on `module` under Vulkan 1.2 rules: "" if it accepts it, else its message.
std::string spirv_val(const Words& module, const std::string& name) {
  const std::filesystem::path file = std::filesystem::temp_directory_path() / ("gpuscan_reconvergence_" + name + ".spv");
  std::ofstream(file, std::ios::binary).write(reinterpret_cast<const char*>(module.data()),
                                               static_cast<std::streamsize>(module.size() * 4));
  const std::string command = std::string(GPUSCAN_SPIRV_VAL) + " --target-env vulkan1.2 " + file.string() + " 2>&1";
  std::string message;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return "could not run " + command;
  char buffer[512];
  while (fgets(buffer, sizeof buffer, pipe)) message += buffer;
  const int status = pclose(pipe);
  std::filesystem::remove(file);
  return status == 0 ? "" : message.empty() ? "exit status " + std::to_string(status) : message;
}

TEST(Reconvergence, SpirvValAcceptsSubgroupUniformControlFlow) {
  if (std::string(GPUSCAN_SPIRV_VAL).empty()) GTEST_SKIP() << "spirv-val not found (Debian: spirv-tools)";
  for (const vk::EmbeddedShader& s : vk::embedded_shaders())
    EXPECT_EQ(spirv_val(vk::with_reconvergence(words_of(s), Reconvergence::subgroup_uniform), s.name), "") << s.name;
}

TEST(Reconvergence, SpirvValAcceptsMaximalReconvergence) {
  if (std::string(GPUSCAN_SPIRV_VAL).empty()) GTEST_SKIP() << "spirv-val not found (Debian: spirv-tools)";
  const auto& modules = vk::embedded_shaders();
  const std::string first = spirv_val(vk::with_reconvergence(words_of(modules.front()), Reconvergence::maximal), "max");
  // Debian 12's spirv-val (SPIRV-Tools 2023.1) predates SPV_KHR_maximal_reconvergence.
  if (first.find("Invalid execution mode operand: 6023") != std::string::npos)
    GTEST_SKIP() << "this spirv-val does not know MaximallyReconvergesKHR: " << first;
  for (const vk::EmbeddedShader& s : modules)
    EXPECT_EQ(spirv_val(vk::with_reconvergence(words_of(s), Reconvergence::maximal), s.name), "") << s.name;
}

// The device's offer, what is allowed (the caller's switch, the validation layer's age, an adopted device's
// flags), and the strongest of both.
TEST(Reconvergence, TheStrongestAllowedGuaranteeTheDeviceOffersIsChosen) {
  DeviceInfo neither, uniform_only, both;
  uniform_only.subgroup_uniform_control_flow = both.subgroup_uniform_control_flow = both.maximal_reconvergence = true;
  using R = Reconvergence;
  EXPECT_EQ(to_string(vk::strongest_reconvergence(neither, true, true)), "none");
  EXPECT_EQ(to_string(vk::strongest_reconvergence(uniform_only, true, true)), "subgroup-uniform");
  EXPECT_EQ(to_string(vk::strongest_reconvergence(uniform_only, true, false)), "none");
  EXPECT_EQ(to_string(vk::strongest_reconvergence(both, true, true)), to_string(R::maximal));
  EXPECT_EQ(to_string(vk::strongest_reconvergence(both, false, true)), to_string(R::subgroup_uniform));
  EXPECT_EQ(to_string(vk::strongest_reconvergence(both, true, false)), to_string(R::maximal));
  EXPECT_EQ(to_string(vk::strongest_reconvergence(both, false, false)), "none");
  // Debian 12's validation layer predates maximal reconvergence; later ones know it.
  EXPECT_FALSE(vk::layer_knows_maximal_reconvergence(VK_MAKE_API_VERSION(0, 1, 3, 239)));
  EXPECT_TRUE(vk::layer_knows_maximal_reconvergence(VK_MAKE_API_VERSION(0, 1, 4, 309)));
}

void expect_malformed(const Words& module, const std::string& fragment) {
  for (Reconvergence r : {Reconvergence::maximal, Reconvergence::subgroup_uniform}) {
    try {
      vk::with_reconvergence(module, r);
      ADD_FAILURE() << "a malformed module was patched; expected: " << fragment;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), Errc::invalid_argument) << e.what();
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
  }
}

TEST(Reconvergence, MalformedModulesAreRefused) {
  const Words good = words_of(vk::embedded_shaders().front());
  expect_malformed({}, "0 words, fewer than the 5 of a SPIR-V header");
  expect_malformed(Words(good.begin(), good.begin() + 4), "4 words");
  Words wrong = good;
  wrong[0] = 0x12345678;
  expect_malformed(wrong, "0x12345678, not the SPIR-V magic number");
  wrong[0] = 0x03022307;
  expect_malformed(wrong, "byte-swapped");
  // Cut inside the first instruction (an OpCapability, 2 words): its word count runs past the end.
  expect_malformed(Words(good.begin(), good.begin() + 6), "has a word count of 2, past the module's end (1 word left)");
  wrong = good;
  wrong[5] &= 0xffffu;  // word count 0
  expect_malformed(wrong, "the instruction at word 5 has a word count of 0");
  // The entry point made a Vertex one.
  wrong = good;
  for (size_t i = 5; i < wrong.size(); i += wrong[i] >> 16)
    if ((wrong[i] & 0xffffu) == op_entry_point) wrong[i + 1] = 0;
  expect_malformed(wrong, "no GLCompute entry point");
}

}  // namespace
}  // namespace gpuscan::test
