// The OpenGL radix sort as gpuscan::gl::Plan<primitive::Sort> runs it (src/gl/plan.cpp). The free calls of
// gpuscan/gl.hpp (record_sort, record_sort_pairs, sort_temp_requirements, describe_sort_plan) are
// conveniences over that plan.
#pragma once

#include <cstdint>
#include <string>

#include "gpuscan/gl/plan.hpp"

namespace gpuscan::gl {

using SortBuffers = Plan<primitive::Sort>::Buffers;

// Temp for up to `max_count` keys (a count from GPU memory with `indirect`); checks the config.
TempRequirements sort_temp(const Context& ctx, const primitive::Sort& s, uint64_t max_count, bool indirect);
// The passes and tile shape of a sort of `count` keys, with the count scan's plan.
std::string sort_describe(const Context& ctx, const primitive::Sort& s, uint64_t count);
// The caller's buffers checked, then the sort issued: keys only, or pairs where s.config.value_bytes is
// not 0.
void sort_issue(const Context& ctx, const primitive::Sort& s, const SortBuffers& b);

}  // namespace gpuscan::gl
