#include "vulkan/shader_table.hpp"

#include <algorithm>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>

#include "core/xz.hpp"
#include "gpuscan/error.hpp"

namespace gpuscan::vk {
namespace {

struct Unpacked {
  const uint8_t* archive;
  std::shared_ptr<const std::vector<uint8_t>> tar;
};

// The tar of `shader`'s archive, from a cache of the last few unpacked (a group holds at most 0.9 MB).
std::shared_ptr<const std::vector<uint8_t>> unpacked_tar(const EmbeddedShader& shader) {
  static std::mutex mutex;
  static std::vector<Unpacked> recent;  // most recent last
  constexpr size_t kept = 4;
  {
    std::lock_guard lock(mutex);
    auto it = std::find_if(recent.begin(), recent.end(), [&](const Unpacked& u) { return u.archive == shader.archive; });
    if (it != recent.end()) {
      Unpacked hit = *it;
      recent.erase(it);
      recent.push_back(hit);
      return hit.tar;
    }
  }
  constexpr size_t max_archive_bytes = size_t(256) << 20;
  auto tar = std::make_shared<const std::vector<uint8_t>>(
      core::unxz({shader.archive, shader.archive_bytes}, max_archive_bytes));
  std::lock_guard lock(mutex);
  if (recent.size() == kept) recent.erase(recent.begin());
  recent.push_back({shader.archive, tar});
  return tar;
}

}  // namespace

std::vector<uint32_t> spirv_words(const EmbeddedShader& shader) {
  const std::string what = std::string("embedded shader ") + shader.name;
  std::shared_ptr<const std::vector<uint8_t>> tar;
  std::vector<core::TarMember> members;
  try {
    tar = unpacked_tar(shader);
    members = core::tar_members(*tar);
  } catch (const Error& e) {
    throw Error(Errc::invalid_argument, what + " is corrupt: " + e.what());
  }
  auto member = std::find_if(members.begin(), members.end(),
                             [&](const core::TarMember& m) { return m.name == shader.member; });
  if (member == members.end()) throw Error(Errc::invalid_argument, what + " is missing from its archive");
  constexpr uint32_t spirv_magic = 0x07230203u;
  std::vector<uint32_t> words(member->data.size() / 4);
  if (!words.empty()) std::memcpy(words.data(), member->data.data(), words.size() * 4);
  if (member->data.size() % 4 != 0 || words.size() < 5 || words[0] != spirv_magic)
    throw Error(Errc::invalid_argument, what + " is not a SPIR-V module");
  return words;
}

}  // namespace gpuscan::vk
