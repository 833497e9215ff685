// The umbrella header: the neutral types and the Vulkan backend (gpuscan/vulkan.hpp). gl.hpp (the OpenGL
// backend), mpi.hpp (gpuscan::mpi), testing.hpp and vulkan/testing.hpp (unstable: for gpuscan's own tests
// and benchmarks) are included on their own.
#pragma once

#include "gpuscan/compact.hpp"
#include "gpuscan/error.hpp"
#include "gpuscan/message.hpp"
#include "gpuscan/reduce.hpp"
#include "gpuscan/segmented.hpp"
#include "gpuscan/stream.hpp"
#include "gpuscan/types.hpp"
#include "gpuscan/version.hpp"
#include "gpuscan/vulkan.hpp"
