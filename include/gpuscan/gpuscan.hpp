// The umbrella header: everything gpuscan offers.
#pragma once

#include "gpuscan/compact.hpp"
#include "gpuscan/error.hpp"
#include "gpuscan/reduce.hpp"
#include "gpuscan/segmented.hpp"
#include "gpuscan/stream.hpp"
#include "gpuscan/types.hpp"
#include "gpuscan/version.hpp"
#include "gpuscan/vulkan.hpp"
