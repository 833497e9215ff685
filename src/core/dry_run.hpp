// Recording without issuing anything, for what a plan must know of its records before there are buffers:
// the kernels to build when it is made (`build`), and the programs a record would execute, to list them
// (`list`). While a DryRun lives on a thread, the executors (vk::execute, gl::execute) build or collect
// each program instead of issuing it, and the record calls skip the checks of the caller's buffers (the
// plan records over stand-in views). Programs are core data, so a listing is the same on every backend.
#pragma once

#include <string>
#include <vector>

#include "core/program.hpp"

namespace gpuscan::core {

class DryRun {
 public:
  enum class Mode { build, list };
  explicit DryRun(Mode mode) : mode_(mode), outer_(active_) { active_ = this; }
  DryRun(const DryRun&) = delete;
  DryRun& operator=(const DryRun&) = delete;
  ~DryRun() { active_ = outer_; }

  // The innermost DryRun of this thread; nullptr while none lives.
  static DryRun* active() noexcept { return active_; }
  Mode mode() const noexcept { return mode_; }
  void collect(const Program& program) { programs_.push_back(program); }
  const std::vector<Program>& programs() const noexcept { return programs_; }

 private:
  Mode mode_;
  DryRun* outer_;
  std::vector<Program> programs_;
  static thread_local DryRun* active_;
};

// One line per command: a dispatch's kernel, W and grid (or "indirect"), a barrier, a fill or update
// with its size; buffers by their Program::buffer_names ("temp"), else by index.
std::string list_program(const Program& program);
// The programs of one record, in order ("step k:" before each where there are several).
std::string list_programs(const std::vector<Program>& programs);

}  // namespace gpuscan::core
