// The GLSL a GL program is compiled from: a variant of shaders::gl_variants() assembled from the embedded
// files (core/glsl_assemble.hpp) with GPUSCAN_GL and the pipeline key's constants as #defines.
#pragma once

#include <array>
#include <optional>
#include <string_view>

#include "core/glsl_assemble.hpp"
#include "core/pipeline_key.hpp"

namespace gpuscan::gl {

using Constants = std::array<uint32_t, PipelineKey::constant_count>;

// `name` is a gl_variants() name ("scan_local.u32.add.blelloch", "custom.scan_local"); a "custom.*" one needs
// the caller's `snippet`. Throws Errc::unsupported for a name the backend was not built with.
core::AssembledGlsl program_source(std::string_view name, const Constants& constants,
                                   std::optional<std::string_view> snippet = std::nullopt);

}  // namespace gpuscan::gl
