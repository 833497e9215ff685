// gpuscan on Vulkan: everything the Vulkan backend offers. Every declaration that names a Vulkan type
// is in gpuscan/vulkan/ (this header includes all of it but vulkan/testing.hpp, which is not part of the
// stable API: see gpuscan/testing.hpp):
//   vulkan/error.hpp      VulkanError (a gpuscan::Error with the VkResult), vk_result_name
//   vulkan/context.hpp    Context, ContextCreateInfo, AdoptInfo, DeviceInfo, BufferView, TempRequirements
//   vulkan/scan.hpp       record_scan, scan, scan_bytes, custom operators
//   vulkan/reduce.hpp     record_reduce, reduce          vulkan/segmented.hpp  record_segmented_scan, ...
//   vulkan/segmented_reduce.hpp  record_segmented_reduce, segmented_reduce (segments by offsets)
//   vulkan/compact.hpp    record_select_if, select_if, partition, unique_by_key, ...
//   vulkan/run_length.hpp record_run_length_encode, run_length_encode, non_trivial_runs
//   vulkan/sort.hpp       record_sort, record_sort_pairs, sort, argsort, sort_pairs, sort_bytes (radix)
//   vulkan/histogram.hpp  record_histogram, histogram, histogram_bytes
//   vulkan/stream.hpp     scan_stream, reduce_stream, scan_chunked, reduce_chunked
//   vulkan/indirect_args.hpp  record_indirect_args (dispatch commands from a count on the GPU)
// The types the backends share (ScanConfig, CompactConfig, Predicate, HistogramBins, SortConfig, ...) are
// in the neutral headers (gpuscan/types.hpp, compact.hpp, reduce.hpp, segmented.hpp, sort.hpp,
// histogram.hpp, stream.hpp, message.hpp, error.hpp), which include no graphics API header.
#pragma once

#include "gpuscan/vulkan/compact.hpp"
#include "gpuscan/vulkan/context.hpp"
#include "gpuscan/vulkan/error.hpp"
#include "gpuscan/vulkan/histogram.hpp"
#include "gpuscan/vulkan/indirect_args.hpp"
#include "gpuscan/vulkan/plan.hpp"
#include "gpuscan/vulkan/reduce.hpp"
#include "gpuscan/vulkan/run_length.hpp"
#include "gpuscan/vulkan/scan.hpp"
#include "gpuscan/vulkan/segmented.hpp"
#include "gpuscan/vulkan/segmented_reduce.hpp"
#include "gpuscan/vulkan/sort.hpp"
#include "gpuscan/vulkan/stream.hpp"
