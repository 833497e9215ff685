#include "output.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <system_error>

#include "gpuscan/error.hpp"

namespace gpuscan::cli {
namespace fs = std::filesystem;
namespace {

// The umask, read once before any thread starts (umask() can only be read by setting it).
const mode_t process_umask = [] {
  const mode_t mask = ::umask(0);
  ::umask(mask);
  return mask;
}();

std::string describe(const std::string& path) { return path == "-" ? "standard output" : "'" + path + "'"; }

[[noreturn]] void io_failure(const std::string& what, int err) {
  throw Error(Errc::io_error, what + ": " + std::generic_category().message(err));
}

// `path` with every symbolic link along its last component followed (the directories above it may stay
// links: the temporary goes beside the file, and a rename within one directory is what matters).
fs::path follow_links(const std::string& path) {
  fs::path p = path;
  for (int hops = 0; hops < 40; ++hops) {
    std::error_code ec;
    if (!fs::is_symlink(fs::symlink_status(p, ec))) return p;
    const fs::path link = fs::read_symlink(p, ec);
    if (ec) io_failure("cannot open " + describe(path) + " for writing", ec.value());
    p = link.is_absolute() ? link : p.parent_path() / link;
  }
  io_failure("cannot open " + describe(path) + " for writing", ELOOP);
}

// The temporaries that exist now, for the signal handler to remove: each slot holds a malloc'ed copy of a
// path or nullptr. Lock-free atomics are what a handler may read.
constexpr size_t max_tracked_temporaries = 64;
std::atomic<char*> tracked_temporaries[max_tracked_temporaries];

void track(const fs::path& temporary) {
  char* copy = ::strdup(temporary.c_str());
  for (auto& slot : tracked_temporaries) {
    char* empty = nullptr;
    if (copy && slot.compare_exchange_strong(empty, copy)) return;
  }
  std::free(copy);  // more than 64 at once: that one is left to discard()
}

void untrack(const fs::path& temporary) {
  for (auto& slot : tracked_temporaries) {
    char* path = slot.load();
    if (path && temporary == path && slot.compare_exchange_strong(path, nullptr)) return std::free(path);
  }
}

// SIGINT, SIGTERM, SIGHUP, SIGPIPE: remove the temporaries (unlink is async-signal-safe), then die of the
// signal as if not caught.
extern "C" void remove_temporaries_and_die(int signal) {
  for (auto& slot : tracked_temporaries)
    if (char* path = slot.exchange(nullptr)) ::unlink(path);
  std::signal(signal, SIG_DFL);
  ::raise(signal);
}

// Writes all of `data` to file descriptor `fd`; false (errno set) on failure.
bool write_fd(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = EIO;
      return false;
    }
    data.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

}  // namespace

StagedOutput::StagedOutput(const std::string& path, std::stringbuf& stdout_buffer) : path_(path) {
  if (path == "-") {
    stdout_buffer_ = &stdout_buffer;
    return;
  }
  target_ = follow_links(path);
  struct stat st{};
  const bool exists = ::stat(target_.c_str(), &st) == 0;
  if (!exists && errno != ENOENT) io_failure("cannot open " + describe(path) + " for writing", errno);
  if (exists && S_ISDIR(st.st_mode)) io_failure("cannot open " + describe(path) + " for writing", EISDIR);
  if (exists && !S_ISREG(st.st_mode)) {  // a device, FIFO or socket: written directly
    file_ = std::fopen(target_.c_str(), "wb");
    if (!file_) io_failure("cannot open " + describe(path) + " for writing", errno);
    return;
  }
  const fs::path dir = target_.has_parent_path() ? target_.parent_path() : fs::path(".");
  std::string name = (dir / ("." + target_.filename().string() + ".gpuscan-XXXXXX")).string();
  const int fd = ::mkstemp(name.data());
  if (fd < 0) io_failure("cannot open " + describe(path) + " for writing", errno);
  temporary_ = name;
  track(temporary_);
  const mode_t mode = exists ? (st.st_mode & 07777) : (0666 & ~process_umask);
  if (::fchmod(fd, mode) != 0 || !(file_ = ::fdopen(fd, "wb"))) {
    const int err = errno;
    ::close(fd);
    discard();
    io_failure("cannot open " + describe(path) + " for writing", err);
  }
}

StagedOutput::~StagedOutput() { discard(); }

void StagedOutput::fail(const std::string& what, int err) const { io_failure(what + " " + describe(path_), err); }

void StagedOutput::write(std::span<const std::byte> bytes) {
  write(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
}

void StagedOutput::write(std::string_view text) {
  if (text.empty()) return;  // an empty view may hold a null pointer, which fwrite must not get
  if (stdout_buffer_) {
    stdout_buffer_->sputn(text.data(), static_cast<std::streamsize>(text.size()));
    return;
  }
  if (!file_) fail("cannot write", EBADF);  // closed already
  if (std::fwrite(text.data(), 1, text.size(), file_) != text.size()) fail("cannot write", errno ? errno : EIO);
}

void StagedOutput::close() {
  if (!file_) return;
  std::FILE* file = file_;
  file_ = nullptr;
  const bool flushed = std::fflush(file) == 0;
  const int flush_error = errno;
  const bool closed = std::fclose(file) == 0;
  if (!flushed) fail("cannot write", flush_error ? flush_error : EIO);
  if (!closed) fail("cannot write", errno ? errno : EIO);
}

void StagedOutput::publish() {
  close();
  if (temporary_.empty()) return;
  if (::rename(temporary_.c_str(), target_.c_str()) != 0)
    io_failure("cannot replace " + describe(path_) + " with its temporary '" + temporary_.string() + "'", errno);
  untrack(temporary_);
  temporary_.clear();
}

void StagedOutput::discard() noexcept {
  if (file_) std::fclose(file_);
  file_ = nullptr;
  if (!temporary_.empty()) {
    ::unlink(temporary_.c_str());
    untrack(temporary_);
  }
  temporary_.clear();
}

StagedOutput& OutputSet::open(const std::string& path) {
  for (const auto& file : files_)
    if (same_path(file->path(), path)) {
      if (path == "-") return *file;
      throw Error(Errc::invalid_argument, "two outputs name one file, " + describe(path) + " and " +
                                              describe(file->path()) + "; give each its own");
    }
  files_.push_back(std::make_unique<StagedOutput>(path, stdout_));
  return *files_.back();
}

void OutputSet::commit() {
  try {
    for (const auto& file : files_) file->close();
    commit_stdout();
    for (const auto& file : files_) file->publish();
  } catch (...) {
    discard();
    throw;
  }
  files_.clear();
}

void OutputSet::commit_stdout() {
  const std::string_view data = stdout_.view();
  const bool written = write_fd(STDOUT_FILENO, data);
  const int err = errno;
  stdout_.str({});
  if (!written) io_failure("cannot write standard output", err);
}

void OutputSet::discard() noexcept {
  for (const auto& file : files_) file->discard();
  files_.clear();
  stdout_.str({});
}

void remove_temporaries_on_signals() {
  for (const int signal : {SIGINT, SIGTERM, SIGHUP, SIGPIPE}) {
    struct sigaction action{};
    action.sa_handler = remove_temporaries_and_die;
    sigemptyset(&action.sa_mask);
    struct sigaction old{};
    if (::sigaction(signal, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;  // nohup & co.
    ::sigaction(signal, &action, nullptr);
  }
}

OutputSet& process_outputs() {
  static OutputSet outputs;
  return outputs;
}

bool same_path(const std::string& a, const std::string& b) {
  if (a == "-" || b == "-") return a == b;
  try {
    std::error_code ec;
    if (fs::exists(a, ec) && fs::exists(b, ec)) return fs::equivalent(a, b, ec) && !ec;
    const fs::path ca = fs::weakly_canonical(fs::absolute(follow_links(a)), ec);
    if (ec) return a == b;
    const fs::path cb = fs::weakly_canonical(fs::absolute(follow_links(b)), ec);
    return ec ? a == b : ca == cb;
  } catch (const Error&) {  // a loop of symbolic links: compare as spelt
    return a == b;
  }
}

void replace_file(const fs::path& target, std::span<const std::byte> bytes) {
  struct stat st{};
  if (::stat(target.c_str(), &st) == 0 && !S_ISREG(st.st_mode))  // opening a FIFO would wait for a reader
    throw Error(Errc::io_error, "'" + target.string() + "' is not a regular file");
  std::stringbuf unused;
  StagedOutput output(target.string(), unused);
  output.write(bytes);
  output.publish();
}

}  // namespace gpuscan::cli
