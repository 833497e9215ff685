// Names of the shader variants a plan's dispatches run, as shaders/variants.cmake spells them. Both
// backends look programs up by these names, so a variant added to the manifest reaches both.
#pragma once

#include <string>

#include "core/plan.hpp"
#include "gpuscan/types.hpp"

namespace gpuscan::core {

// Scan and reduction kernels: "<kernel>.<type>[.<workgroup algorithm>]", e.g. "scan_local.u32.blelloch",
// "scan_tiles.i64", where the operator is the pipeline's OP constant (op_constant); the single-pass scan,
// built per operator, as "single_pass.<type>.<op>".
std::string scan_variant_name(Kernel kernel, DataType type, Op op, WorkgroupAlgorithm workgroup);

// The value of specialization constant OP (PipelineKey::op, shaders/common/ops.glsl) for `op`.
constexpr uint32_t op_constant(Op op) { return static_cast<uint32_t>(op); }

// A custom operator's kernel, as GPUSCAN_CUSTOM_OP_VARIANTS in the manifest names it: "scan_local",
// "uniform_add", "window_carry" (both carry kernels).
std::string custom_variant_name(Kernel kernel);

// A dispatch of a compaction plan: the compaction kernels as "<kernel>.<type>.<ballot|shared>", the
// scan of the tile counts as the u32 scan kernels (Blelloch where the counts' plan is multipass).
std::string compact_variant_name(Kernel kernel, DataType type, bool ballot);

}  // namespace gpuscan::core
