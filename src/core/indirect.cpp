#include "core/indirect.hpp"

#include <algorithm>
#include <variant>

#include "gpuscan/error.hpp"

namespace gpuscan::core {

Plan plan_indirect(const Plan& plan, uint32_t element_size, IndirectRegion* region) {
  IndirectRegion r;
  r.levels = plan.levels;
  r.first = (plan.temp_elements + temp_level_alignment - 1) / temp_level_alignment * temp_level_alignment;
  const uint64_t words = uint64_t{indirect_words_per_level} * std::max<uint32_t>(r.levels, 1);
  r.elements = (words * 4 + element_size - 1) / element_size;

  Plan out;
  Dispatch prepare;
  prepare.kernel = Kernel::indirect_count;
  prepare.blocks = 1;
  prepare.groups_x = 1;
  prepare.groups_y = 1;
  prepare.aux = {Slot::temp, r.first, r.elements};
  prepare.src = prepare.aux;
  prepare.dst = prepare.aux;
  out.steps.emplace_back(prepare);
  out.steps.emplace_back(Barrier{});
  for (Step s : plan.steps) {
    if (auto* d = std::get_if<Dispatch>(&s)) {
      if (d->carry_from_temp)
        throw Error(Errc::too_large, "a scan with its count in GPU memory must fit one binding: its upper bound "
                                     "spans several windows");
      d->dynamic = true;
    }
    out.steps.push_back(s);
  }
  out.temp_elements = r.first + r.elements;
  out.levels = plan.levels;
  if (region) *region = r;
  return out;
}

}  // namespace gpuscan::core
