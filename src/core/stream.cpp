#include "core/stream.hpp"

#include <algorithm>
#include <cstring>

#include "gpuscan/reference.hpp"
#include "gpuscan/error.hpp"

namespace gpuscan::core {

uint64_t chunk_elements_for_budget(uint64_t budget, uint32_t in_flight, uint64_t bytes_per_element,
                                   const std::function<uint64_t(uint64_t)>& temp_bytes, uint64_t min_elements,
                                   uint64_t max_elements, const std::string& what) {
  const auto slot_bytes = [&](uint64_t n) { return n * bytes_per_element + temp_bytes(n); };
  const uint64_t per_slot = budget / in_flight;
  if (min_elements > max_elements || slot_bytes(min_elements) > per_slot)
    throw Error(Errc::invalid_argument,
                "a memory budget of " + std::to_string(budget) + " bytes cannot hold one tile of " + what + ": " +
                    std::to_string(in_flight) + " chunk(s) in flight x (" + std::to_string(min_elements) +
                    " elements x " + std::to_string(bytes_per_element) + " bytes + " +
                    std::to_string(temp_bytes(min_elements)) + " bytes of temp) need at least " +
                    std::to_string(in_flight * slot_bytes(min_elements)) + " bytes");
  // Temp grows more slowly than the data: start from the data alone and step down until both fit.
  uint64_t n = std::min(max_elements, per_slot / bytes_per_element);
  while (n > min_elements && slot_bytes(n) > per_slot) {
    const uint64_t excess = slot_bytes(n) - per_slot;
    n = std::max(min_elements, n - (excess + bytes_per_element - 1) / bytes_per_element);
  }
  return n;
}

uint64_t stream_budget(const StreamOptions& options) {
  return options.device_memory_budget ? options.device_memory_budget : default_stream_budget;
}

uint32_t chunks_in_flight(const StreamOptions& options) { return options.double_buffer ? 2 : 1; }

uint64_t ChunkFiller::fill(std::span<std::byte> dest) {
  uint64_t got = 0;
  while (!ended_ && got < dest.size()) {
    const size_t n = read_(dest.subspan(got));
    if (n > dest.size() - got)
      throw Error(Errc::io_error, "the stream's reader returned " + std::to_string(n) + " bytes for a buffer of " +
                                      std::to_string(dest.size() - got));
    if (n == 0) ended_ = true;
    got += n;
  }
  total_ += got;
  const uint32_t esize = element_size(type_);
  if (ended_ && total_ % esize != 0)
    throw Error(Errc::invalid_argument, "the stream ended after " + std::to_string(total_) +
                                            " bytes, not a whole number of " + std::string(to_string(type_)) +
                                            " elements");
  return got;
}

uint64_t element_bits_at(std::span<const std::byte> bytes, DataType type, uint64_t index) {
  uint64_t bits = 0;  // little-endian hosts (as the GPU): the low bytes hold a 4-byte element
  std::memcpy(&bits, bytes.data() + index * element_size(type), element_size(type));
  return bits;
}

uint64_t combine_bits(DataType type, Op op, uint64_t a, uint64_t b) {
  return visit_type(type, [&](auto tag) {
    using T = decltype(tag);
    using U = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
    const T x = std::bit_cast<T>(static_cast<U>(a));
    const T y = std::bit_cast<T>(static_cast<U>(b));
    return element_bits(cpu::combine(op, x, y));
  });
}

void RunningTotal::advance(uint64_t last_output, uint64_t last_input) {
  bits_ = config_.kind == ScanKind::inclusive ? last_output
                                              : combine_bits(config_.type, config_.op, last_output, last_input);
}

}  // namespace gpuscan::core
