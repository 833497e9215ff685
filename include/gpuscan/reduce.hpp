// Device-wide reduction: the combination of all elements of a buffer under one operator, for every
// type and operator a scan has (types.hpp). The result is left in the caller's GPU buffer (recording
// API) or returned (convenience calls). docs/reduce.md is the guide. This header holds ReduceConfig,
// which every backend shares, and names no graphics API; the calls are in gpuscan/vulkan/reduce.hpp
// (included by gpuscan/vulkan.hpp) and gpuscan/gl.hpp.
//
// It reuses the tile kernels of the scans: each workgroup reduces one tile of B = W·K·4 elements
// (shaders/reduce_tiles.comp), the tile totals are reduced again, and so on until one tile is left
// (core::plan_reduce). It moves N bytes once (plus N/B for the totals) and combines in a fixed tree
// that depends only on n, W, K and the device's subgroup size, so float results are the same, bit
// for bit, on every run on one device. It needs subgroup arithmetic in compute shaders (and, for
// u64/i64, shaderSubgroupExtendedTypes): Errc::unsupported otherwise.
#pragma once

#include <cstdint>

#include "gpuscan/types.hpp"

namespace gpuscan {

struct ReduceConfig {
  DataType type = DataType::u32;
  Op op = Op::add;
  uint32_t workgroup_size = 0;    // W, as ScanConfig::workgroup_size (0 = 256)
  uint32_t vectors_per_lane = 0;  // K, as ScanConfig::vectors_per_lane (0 = 4, or 2 for 8-byte types)
};

}  // namespace gpuscan
