#include "pipeline_cache.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <system_error>

namespace gpuscan::cli {
namespace {

std::string hex_digits(const uint8_t* bytes, size_t n) {
  std::string text;
  char digits[3];
  for (size_t i = 0; i < n; ++i) {
    std::snprintf(digits, sizeof digits, "%02x", bytes[i]);
    text += digits;
  }
  return text;
}

std::vector<std::byte> read_cache_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  std::vector<char> chars((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return {};
  std::vector<std::byte> bytes(chars.size());
  if (!chars.empty()) std::memcpy(bytes.data(), chars.data(), chars.size());
  return bytes;
}

}  // namespace

std::filesystem::path pipeline_cache_path(const DeviceInfo& device) {
  std::filesystem::path dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && std::filesystem::path(xdg).is_absolute())
    dir = xdg;
  else if (const char* home = std::getenv("HOME"); home && *home)
    dir = std::filesystem::path(home) / ".cache";
  else
    return {};
  char ids[32];
  std::snprintf(ids, sizeof ids, "%04x-%04x-", device.vendor_id, device.device_id);
  return dir / "gpuscan" /
         ("pipelines-" + std::string(ids) + hex_digits(device.pipeline_cache_uuid.data(), VK_UUID_SIZE) + ".bin");
}

std::vector<std::byte> load_pipeline_cache(const DeviceInfo& device) noexcept {
  try {
    const std::filesystem::path path = pipeline_cache_path(device);
    if (path.empty()) return {};
    std::vector<std::byte> data = read_cache_file(path);
    return pipeline_cache_fits(data, device) ? data : std::vector<std::byte>{};
  } catch (...) {
    return {};
  }
}

void save_pipeline_cache(const Context& ctx) noexcept {
  try {
    const std::filesystem::path path = pipeline_cache_path(ctx.device_info());
    if (path.empty()) return;
    const std::vector<std::byte> data = ctx.pipeline_cache_data();
    if (data.empty() || data == read_cache_file(path)) return;
    std::error_code ec;
    std::filesystem::create_directories(path.parent_path(), ec);
    if (ec) return;
    std::filesystem::path temp = path;
    temp += ".tmp" + std::to_string(::getpid());
    {
      std::ofstream out(temp, std::ios::binary | std::ios::trunc);
      out.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size()));
      if (!out.flush()) {
        out.close();
        std::filesystem::remove(temp, ec);
        return;
      }
    }
    std::filesystem::rename(temp, path, ec);
    if (ec) std::filesystem::remove(temp, ec);
  } catch (...) {
  }
}

}  // namespace gpuscan::cli
