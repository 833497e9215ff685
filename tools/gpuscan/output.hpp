// Where everything gpuscan writes goes: its output files and standard output. Results land whole or not
// at all, and every write (flush and close included) is checked.
//
//   a regular file (or a path that does not exist yet) is written to a temporary file beside it,
//     ".NAME.gpuscan-XXXXXX" in the same directory, created with the permissions the file would get
//     (an existing file's mode, else 0666 less the umask), and renamed over it only at commit(). A
//     symbolic link is written through: the file it points to is replaced and the link kept. A failed
//     command removes its temporaries and leaves any old file untouched, and so does one stopped by
//     SIGINT, SIGTERM, SIGHUP or SIGPIPE (remove_temporaries_on_signals); a process killed outright
//     (kill -9) may leave its temporary behind, never a partial target.
//   standard output ("-") is held in memory and written at commit(), so a failed command prints no
//     partial data; a failed write to it is an error like any other.
//   anything else (a character device such as /dev/null, a FIFO, a socket) cannot be renamed over, so it
//     is written as results come; commit() checks the flush and close.
//
// A command's outputs commit together: first every file is flushed and closed (where a full disk shows),
// then standard output is written, then the temporaries are renamed. Failures throw gpuscan::Error
// (Errc::io_error) naming the output.
#pragma once

#include <cstddef>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace gpuscan::cli {

// One output of a command, open until its set commits or discards it.
class StagedOutput {
 public:
  // Opens `path` ("-" = standard output, whose bytes go to `stdout_buffer`); Errc::io_error if the
  // file (or its temporary) cannot be created.
  StagedOutput(const std::string& path, std::stringbuf& stdout_buffer);
  StagedOutput(const StagedOutput&) = delete;
  StagedOutput& operator=(const StagedOutput&) = delete;
  ~StagedOutput();  // discards what was not committed

  void write(std::span<const std::byte> bytes);
  void write(std::string_view text);

  const std::string& path() const { return path_; }
  // The file the data finally lands in: `path` with symbolic links resolved; empty for standard output.
  const std::filesystem::path& target() const { return target_; }
  // The temporary file's path; empty unless the target is renamed over.
  const std::filesystem::path& temporary() const { return temporary_; }

  // Commit in two steps (OutputSet::commit): close() flushes and closes the file; publish() renames
  // the temporary over the target.
  void close();
  void publish();
  // Closes without checking and removes the temporary; never throws.
  void discard() noexcept;

 private:
  [[noreturn]] void fail(const std::string& what, int err) const;
  std::string path_;
  std::filesystem::path target_;
  std::filesystem::path temporary_;
  std::FILE* file_ = nullptr;              // the temporary or the non-regular file; nullptr for stdout
  std::stringbuf* stdout_buffer_ = nullptr;  // standard output's bytes
};

// The outputs of one command.
class OutputSet {
 public:
  OutputSet() = default;
  OutputSet(const OutputSet&) = delete;
  OutputSet& operator=(const OutputSet&) = delete;
  ~OutputSet() { discard(); }

  // Opens an output ("-" = standard output, which may be opened more than once: text and data append
  // to one buffer). Two outputs to one file throw Errc::invalid_argument (commands refuse that as a
  // usage error before they run: distinct_outputs_conflict in options.hpp).
  StagedOutput& open(const std::string& path);
  // What standard output holds until commit(); main() points std::cout at it, so that printed text
  // commits with the files.
  std::stringbuf& stdout_buffer() { return stdout_; }

  // Publishes every output: closes the files, writes standard output, renames the temporaries.
  // On failure, throws after discarding what was not yet published.
  void commit();
  // Writes what standard output holds now and empties it, whatever the command does next: for a report
  // that is whole though the command fails (info's device list when no device can be picked).
  void commit_stdout();
  // Drops standard output's buffer and every file not yet published; never throws.
  void discard() noexcept;

 private:
  std::stringbuf stdout_;
  std::vector<std::unique_ptr<StagedOutput>> files_;
};

// Installs handlers of SIGINT, SIGTERM, SIGHUP and SIGPIPE (those not ignored) that remove every
// temporary and then let the signal end the process as it would have.
void remove_temporaries_on_signals();

// The set every output of this process goes through (write_values, BinaryWriter, std::cout in main).
OutputSet& process_outputs();

// Whether `a` and `b` name one file: both "-", or the same file however spelt (std::filesystem::equivalent
// when both exist, else their weakly canonical forms, symbolic links resolved).
bool same_path(const std::string& a, const std::string& b);

// Replaces `target` with `bytes` whole (a temporary beside it, renamed over it), on its own, outside any
// OutputSet; a symbolic link is written through. Errc::io_error on failure, the old file then untouched.
void replace_file(const std::filesystem::path& target, std::span<const std::byte> bytes);

}  // namespace gpuscan::cli
