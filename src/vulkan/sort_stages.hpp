// The radix sort cut short, for the benchmark's per-stage times (bench/sort_bench.cpp): what
// record_sort / record_sort_pairs record up to a stage of the first pass. Internal; the result is not a sort.
#pragma once

#include "gpuscan/vulkan/sort.hpp"

namespace gpuscan::vk {

enum class SortStages {  // core::SortStop's values
  counts,           // multipass: pass 1's tile digit counts; onesweep: every pass's digit counts
  counts_and_scan,  // and their exclusive scan
  all,              // the whole sort
};

// record_sort_pairs' arguments; config.value_bytes 0 records a keys-only sort (values ignored).
void record_sort_stages(const Context& ctx, VkCommandBuffer cmd, const SortPairsArgs& args, SortStages stages);

}  // namespace gpuscan::vk
