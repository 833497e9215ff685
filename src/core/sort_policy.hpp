// The sort policy: which algorithm a radix sort runs with, from the profile's sort section
// (core/profile.hpp). The backends refuse an algorithm their device cannot run (Onesweep's 64-bit
// atomics) after this choice, with their own messages; OpenGL, which has no Onesweep, always runs multipass.
#pragma once

#include "core/profile.hpp"
#include "gpuscan/sort.hpp"

namespace gpuscan::core {

// `automatic`: the profile's choice (multipass on every profile until Onesweep is measured against it);
// an explicit algorithm is kept.
SortAlgorithm choose_sort(const TuningProfile& profile, SortAlgorithm requested);

}  // namespace gpuscan::core
