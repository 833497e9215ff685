// A CPU executor of core::Program (src/core/program.hpp) for the tests: the same programs the Vulkan and
// OpenGL executors record, run over byte buffers by CPU models of the kernels -- the scans' scan_local,
// uniform_add, reduce_tiles, scan_tiles, single_pass, carry_save and carry_update with the add operator
// on unsigned elements of a binding's unit (1 to 8 bytes, wrapping), and compaction's compact_count,
// compact_scatter, compact_partition and compact_single_pass by u32 flags (select_flagged's predicate),
// and the segmented scans' seg_reduce_tiles and seg_scan_tiles by flags or keys.
//
// It is adversarial where a GPU may be: bindings start at `alignment`-byte boundaries at or before their
// ranges (so every offset word is exercised), dispatches between two barriers run in reverse order and
// the workgroups of one in reverse too, and it reports (errors(), first_error()):
//   - a read of a byte never written (scratch and outputs start poisoned and unwritten);
//   - a read or write outside a binding's bound range, or a write to a read-only buffer (the input);
//   - a race: two dispatches with no barrier between them where one writes a byte the other reads or
//     writes;
//   - a dispatch of a kernel it does not model.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/program.hpp"

namespace gpuscan::test {

class ProgramInterpreter {
 public:
  struct Buffer {
    std::vector<std::byte> bytes;
    bool read_only = false;  // the caller's input: written before the program, never by it
  };

  // `block_size`: the elements of one workgroup's block or tile, as the plan was made for.
  ProgramInterpreter(std::vector<Buffer> buffers, uint64_t block_size, uint64_t alignment = 64);
  // Kernels whose variant starts with `prefix` take blocks of `block_size` elements instead (a
  // compaction's tiles beside its counts' scan).
  void set_block_size(const std::string& prefix, uint64_t block_size) { blocks_.push_back({prefix, block_size}); }
  // The operator of every kernel: add, or affine maps x -> m·x + c, the two halves of an element (m high,
  // c low, each wrapping), composed left first -- associative but not commutative, so an offset combined
  // on the wrong side or from the wrong tile shows.
  enum class Operator { add, affine };
  void set_operator(Operator op) { op_ = op; }
  uint64_t identity(uint32_t unit) const;
  uint64_t combine(uint64_t a, uint64_t b, uint32_t unit) const;  // truncated to `unit` bytes where written

  void run(const core::Program& program);

  const std::vector<std::byte>& bytes(size_t buffer) const { return buffers_.at(buffer).bytes; }
  // Whether every byte of [offset, offset + count) of `buffer` was written.
  bool written(size_t buffer, uint64_t offset, uint64_t count) const;
  uint64_t errors() const { return errors_; }
  const std::string& first_error() const { return first_error_; }

 private:
  struct View;  // a dispatch's binding: the bound range of a buffer
  void fail(const std::string& what);
  void dispatch(const core::cmd::Dispatch& d, size_t index);
  uint64_t read(const View& v, uint64_t element);
  void write(const View& v, uint64_t element, uint64_t value);
  void single_pass(const core::cmd::Dispatch& d, const std::vector<View>& views, const std::vector<uint32_t>& p);
  void compaction(const std::string& kernel, const std::vector<View>& views, const std::vector<uint32_t>& p,
                  uint64_t block);
  void clear_state(const View& state, uint64_t slots);
  void segmented(const core::cmd::Dispatch& d, const std::string& kernel, const std::vector<View>& views,
                 const std::vector<uint32_t>& p, uint64_t block);

  std::vector<Buffer> buffers_;
  std::vector<std::vector<char>> written_;
  // Per byte: the epoch (barriers passed) and dispatch of the last write and the last read.
  std::vector<std::vector<uint32_t>> write_epoch_, write_by_, read_epoch_, read_by_;
  uint64_t block_;
  Operator op_ = Operator::add;
  std::vector<std::pair<std::string, uint64_t>> blocks_;
  uint64_t alignment_;
  uint32_t epoch_ = 1;
  uint32_t current_ = 0;  // 1 + the index of the running dispatch
  uint64_t errors_ = 0;
  std::string first_error_;
};

}  // namespace gpuscan::test
