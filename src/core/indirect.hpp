// Indirect counts: a scan whose element count sits in GPU memory, written by an earlier GPU
// pass (a compaction's count, say), runs without a trip through the host. The plan is made for a
// caller-given upper bound; a first one-invocation dispatch (shaders/indirect_count.comp) reads the count,
// clamps it to the bound (reporting that in an optional status word), and writes every level's
// (n, blocks, groups_x) and dispatch command into temp; every other dispatch is marked `dynamic`: it
// reads its parameters from there (binding 3) and is issued with vkCmdDispatchIndirect /
// glDispatchComputeIndirect, so only the workgroups the real count needs run.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "core/plan.hpp"
#include "core/program.hpp"

namespace gpuscan::core {

// Words per plan level in the indirect region: n, blocks, groups_x, then the command (x, y, 1).
inline constexpr uint32_t indirect_words_per_level = 6;
inline constexpr uint32_t indirect_command_word = 3;  // where the dispatch command starts within a level

// Where the words are: temp elements [first, first + elements) of the plan's element size.
struct IndirectRegion {
  uint64_t first = 0;
  uint64_t elements = 0;
  uint32_t levels = 0;
};

// The region for `levels` levels' words, after `temp_elements` elements of scratch (elements of
// `element_size` bytes), and the indirect_count dispatch that writes it (aux = src = dst = the region).
IndirectRegion indirect_region(uint64_t temp_elements, uint32_t levels, uint32_t element_size);
Dispatch indirect_count_dispatch(const IndirectRegion& region);

// `plan` (made for the upper bound, with every level's tiles of `block_size` elements) with an
// indirect_count dispatch and a barrier in front, its other dispatches marked dynamic, and the word
// region appended to its temp. Throws Errc::too_large for a windowed plan, scan or reduction (the bound
// must fit one binding).
Plan plan_indirect(const Plan& plan, uint32_t element_size, IndirectRegion* region = nullptr);

// A dynamic dispatch of `level`: its `dynamic` parameter word (1 + the index of its level's words in a
// binding whose word `words_offset` is the region's first word), and where its dispatch command sits, in
// bytes from temp element 0 (elements of `element_size` bytes).
uint32_t dynamic_param(uint32_t words_offset, uint32_t level);
uint64_t indirect_command_offset(const IndirectRegion& region, uint32_t element_size, uint32_t level);

// What indirect_count.comp is told (its IndirectParams), in the backends' bindings: binding 0 the count,
// 1 the plan's words, 2 the status word.
struct IndirectCountParams {
  uint32_t count_offset = 0;   // word index of the count in binding 0
  bool is_64bit = false;
  uint64_t bound = 0;          // the upper bound the plan was made for (it fits one binding: < 2^32)
  uint32_t block_size = 0;     // elements per workgroup at every level ...
  uint32_t level0_block_size = 0;  // ... but level 0 where it differs (a compaction's tiles); 0 = block_size
  uint32_t levels = 0;         // IndirectRegion::levels
  uint32_t max_groups_x = 0;
  uint32_t level0_max_groups = 0;  // level 0's grid at most this (the look-ahead scan's G); 0 = one per block
  uint32_t words_offset = 0;   // word index of the plan's words in binding 1
  std::optional<uint32_t> status_offset;  // word index of the status word in binding 2; none = no status
  bool command_only = false;   // level 0's dispatch command alone, at word words_offset (record_indirect_args)
};
inline constexpr uint32_t indirect_count_param_words = 12;
// The push-constant words. Throws Errc::too_large for a bound of 2^32 or more.
std::array<uint32_t, indirect_count_param_words> indirect_count_words(const IndirectCountParams& params);

// record_indirect_args (both backends): one indirect_count dispatch that writes a VkDispatchIndirectCommand
// for ceil(min(count, bound) / per_workgroup) workgroups, laid out as (x, y, 1) with x <= max_groups_x (y
// rows once x would pass it; (0, 0, 1) for none) to buffer indirect_args_command, and the status word
// (1: the count was above the bound) where `status`. Errc::invalid_argument for per_workgroup 0;
// Errc::too_large for a bound of 2^32 or more.
enum IndirectArgsBuffer : uint8_t { indirect_args_count, indirect_args_command, indirect_args_status };
inline constexpr std::string_view indirect_args_buffer_names[] = {"count", "command", "status"};
Program indirect_args_program(bool count_64bit, bool status, uint64_t bound, uint32_t per_workgroup,
                              uint32_t max_groups_x);

// A byte range of a backend's buffer (a VkBuffer's handle bits, a GL buffer name), for the checks that
// both backends make alike.
struct ByteRange {
  uint64_t buffer = 0;
  uint64_t offset = 0;
  uint64_t bytes = 0;  // 0: no range (overlaps nothing)
};
bool overlaps(const ByteRange& a, const ByteRange& b);

// Throws Errc::invalid_argument when the count in GPU memory, or its status word (bytes 0 = none),
// overlaps a range the call writes (`written`, named by `written_names` in the message: "the output or
// temp range"), or the status word overlaps the count.
void check_indirect_count(const ByteRange& count, const ByteRange& status, std::span<const ByteRange> written,
                          const char* written_names);

}  // namespace gpuscan::core
