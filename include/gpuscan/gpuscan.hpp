// The umbrella header: everything gpuscan offers.
#pragma once

#include "gpuscan/error.hpp"
#include "gpuscan/types.hpp"
#include "gpuscan/vulkan.hpp"

namespace gpuscan {
inline constexpr const char* version = GPUSCAN_VERSION;
}
