#include "pipeline_cache.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <system_error>

#include "output.hpp"

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

// Says once per run that the cache path holds something other than a regular file, which is then
// neither read nor replaced.
void warn_not_regular(const std::filesystem::path& path) {
  static bool warned = false;
  if (warned) return;
  warned = true;
  std::cerr << "gpuscan: warning: the pipeline cache " << path
            << " is not a regular file; it is ignored (remove it, or use --no-pipeline-cache)\n";
}

// The file's bytes; nothing when it is missing, unreadable or not a regular file. Opened without
// blocking and checked before reading: opening a FIFO for reading would wait for a writer forever.
std::vector<std::byte> read_cache_file(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return {};
  std::vector<std::byte> bytes;
  struct stat st{};
  const bool opened = ::fstat(fd, &st) == 0;
  if (!opened || !S_ISREG(st.st_mode)) {
    if (opened) warn_not_regular(path);
    ::close(fd);
    return {};
  }
  std::byte buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) bytes.clear();
    if (n <= 0) break;
    bytes.insert(bytes.end(), buffer, buffer + n);
  }
  ::close(fd);
  return bytes;
}

bool is_other_than_regular(const std::filesystem::path& path) {
  struct stat st{};
  return ::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode);
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
    if (is_other_than_regular(path)) return warn_not_regular(path);
    const std::vector<std::byte> data = ctx.pipeline_cache_data();
    if (data.empty() || data == read_cache_file(path)) return;
    std::error_code ec;
    std::filesystem::create_directories(path.parent_path(), ec);
    if (ec) return;
    replace_file(path, data);  // whole or not at all, so that concurrent runs never leave a torn file
  } catch (...) {
  }
}

}  // namespace gpuscan::cli
