// The step format a primitive's planner emits and a backend's executor runs (src/vulkan/execute.hpp,
// src/gl/execute.hpp): dispatches, barriers, fills and updates over the call's buffers, as plain data.
// A planner decides everything here -- kernels and their constants, which ranges each binding covers,
// the parameter words, grids -- and a backend only maps buffers and commands to its API, so the same
// program runs on Vulkan and OpenGL, and a CPU interpreter can run it in the tests.
//
// Buffers are named by their index in the list the executor is given: each primitive states its own
// order (histogram: input, counts, temp, count words, status). Ranges count elements of `unit` bytes,
// since a backend starts a binding at an aligned offset at or before the range and the kernel adds the
// remainder, in elements, back (Param::offset).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/pipeline_key.hpp"

namespace gpuscan::core {

// `count` elements of `unit` bytes from element `first` of buffer `buffer` (a backend binds at least one).
struct Bind {
  uint8_t buffer = 0;
  uint64_t first = 0;
  uint64_t count = 1;
  uint32_t unit = 4;
  friend bool operator==(const Bind&, const Bind&) = default;
};

// A parameter word, as the executor resolves it once the dispatch's bindings are bound:
//   word:          `value`;
//   offset:        `value` + scale x (where binding `binding`'s first element sits inside the range the
//                  backend bound, in that binding's elements);
//   address_low/
//   address_high:  the low / high 32 bits of the device address of element `at.first` of buffer `at.buffer`
//                  (Vulkan's buffer device addresses; other backends refuse such a program).
struct Param {
  enum class Kind : uint8_t { word, offset, address_low, address_high };
  Kind kind = Kind::word;
  uint32_t value = 0;
  uint8_t binding = 0;
  uint8_t scale = 1;
  Bind at;
  static Param word(uint32_t v) { return {Kind::word, v}; }
  static Param offset(int binding, uint8_t scale = 1, uint32_t plus = 0) {
    return {Kind::offset, plus, static_cast<uint8_t>(binding), scale};
  }
  static Param address(const Bind& at, bool high) {
    return {high ? Kind::address_high : Kind::address_low, 0, 0, 1, at};
  }
  friend bool operator==(const Param&, const Param&) = default;
};

namespace cmd {

// A dispatch of `key`'s kernel with `bindings` as storage bindings 0.. and `params` as its parameter
// words (push constants on Vulkan, the uniform block on OpenGL), over a groups_x x groups_y grid -- or,
// with `indirect`, over the grid of the dispatch command at byte `indirect->offset` of that buffer.
struct Dispatch {
  PipelineKey key;
  std::vector<Bind> bindings;
  std::vector<Param> params;
  uint32_t groups_x = 1;
  uint32_t groups_y = 1;
  struct Indirect {
    uint8_t buffer = 0;
    uint64_t offset = 0;  // bytes
  };
  std::optional<Indirect> indirect;
  // Where non-empty, key.vector_aligned is whether every listed parameter word (resolved) times `scale`
  // is a multiple of `modulus`: the kernels load whole vectors only from ranges that start on one.
  struct Aligned {
    uint8_t param = 0;
    uint8_t scale = 1;
    uint8_t modulus = 4;
  };
  std::vector<Aligned> vector_aligned_if;
  // A binding the kernel addresses from its first element (a look-back state): Errc::misaligned, naming
  // `state_name`, unless the backend could bind it there.
  int8_t state_binding = -1;
  const char* state_name = "";
};

// Everything written before (by dispatches, fills and updates) is visible to everything after: shader
// reads and writes, indirect commands, transfers. Executors make it as narrow as the commands around it
// allow. `after_earlier`: it also orders the dispatches recorded before the program (a program that
// continues another primitive's work, such as run-length encoding's lengths pass after its compaction).
struct Barrier {
  bool after_earlier = false;
};

// `bytes` bytes from byte `offset` of `buffer` set to the 32-bit `value` (offset and bytes multiples of 4).
struct Fill {
  uint8_t buffer = 0;
  uint64_t offset = 0;
  uint64_t bytes = 0;
  uint32_t value = 0;
};

// `words` written to `buffer` from byte `offset` (a multiple of 4): data the host computed, such as a
// histogram's edge table.
struct Update {
  uint8_t buffer = 0;
  uint64_t offset = 0;
  std::vector<uint32_t> words;
};

}  // namespace cmd

using Command = std::variant<cmd::Dispatch, cmd::Barrier, cmd::Fill, cmd::Update>;

struct Program {
  std::vector<Command> commands;
  // The names of the primitive's buffers, by index (its buffer enum's), for listings ("temp").
  std::vector<std::string_view> buffer_names;
  // Appends, dropping a barrier with nothing to order before it (none yet, or another barrier last).
  void dispatch(cmd::Dispatch d) { commands.emplace_back(std::move(d)); }
  void barrier();
  void fill(uint8_t buffer, uint64_t offset, uint64_t bytes, uint32_t value = 0);
  void update(uint8_t buffer, uint64_t offset, std::vector<uint32_t> words);

  size_t dispatch_count() const;
};

// What an executor issues for a dispatch once it has bound its bindings (element_offsets[k]: where
// binding k's first element sits inside its bound range): the parameter words and the key, its
// vector_aligned settled. `address(at)` gives a device address (Param::address); null where the backend
// has none (Errc::unsupported then).
struct ResolvedDispatch {
  PipelineKey key;
  std::vector<uint32_t> params;
};
ResolvedDispatch resolve_dispatch(const cmd::Dispatch& d, std::span<const uint32_t> element_offsets,
                                  const std::function<uint64_t(const Bind&)>& address);

// The executor's view of a program's buffer `i` (throws Errc::invalid_argument, a gpuscan bug, when the
// program names one it was not given).
void check_buffer_index(size_t buffers, uint8_t i);
template <class View>
const View& buffer_at(std::span<const View> buffers, uint8_t i) {
  check_buffer_index(buffers.size(), i);
  return buffers[i];
}

// Where a part's buffer lies in the whole's: buffer `buffer` from byte `offset` on.
struct Place {
  uint8_t buffer = 0;
  uint64_t offset = 0;
};
// Program `part` appended to `program` with its buffer i placed at at[i] (another primitive's program
// run as a step of this one's, such as a scan over arrays in this one's temp); a leading barrier of
// `part` merges with one that ends `program`. Throws Errc::invalid_argument (a gpuscan bug) where a
// place's offset is not a whole number of a range's elements.
void append_placed(Program& program, Program part, std::span<const Place> at);

// What a barrier at commands[i] orders, for the executors: the kinds of command since the previous
// barrier (the writers; earlier ones the previous barrier made visible) and after it (the readers: every
// later kind, not only those before the next barrier, so that no ordering rests on chained barriers).
struct BarrierScope {
  bool after_dispatch = false, after_transfer = false;    // fills and updates are transfers
  bool before_dispatch = false, before_indirect = false, before_transfer = false;
};
BarrierScope barrier_scope(const Program& program, size_t i);
// Every command's (meaningful at the barriers), in two passes over the program: what executors use.
std::vector<BarrierScope> barrier_scopes(const Program& program);


}  // namespace gpuscan::core
