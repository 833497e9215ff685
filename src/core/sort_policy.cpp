#include "core/sort_policy.hpp"

namespace gpuscan::core {

SortAlgorithm choose_sort(const TuningProfile& profile, SortAlgorithm requested) {
  return requested == SortAlgorithm::automatic ? profile.sort.automatic : requested;
}

}  // namespace gpuscan::core
