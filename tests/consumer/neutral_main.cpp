// A translation unit that uses only gpuscan's neutral headers, the way a program sharing configurations
// between backends (or building them without a GPU API at hand) would. neutral_headers_check.cmake
// compiles it and fails if any header it reaches is a graphics API's (Vulkan, GL, EGL, KHR).
#include <gpuscan/compact.hpp>
#include <gpuscan/error.hpp>
#include <gpuscan/message.hpp>
#include <gpuscan/reduce.hpp>
#include <gpuscan/segmented.hpp>
#include <gpuscan/stream.hpp>
#include <gpuscan/testing.hpp>
#include <gpuscan/types.hpp>
#include <gpuscan/version.hpp>

#include <system_error>
#include <type_traits>

static_assert(std::is_base_of_v<std::system_error, gpuscan::Error>);

int main() {
  gpuscan::ScanConfig scan;
  scan.type = gpuscan::DataType::f32;
  gpuscan::CompactConfig compact;
  compact.algorithm = gpuscan::CompactAlgorithm::three_pass;
  const gpuscan::ReduceConfig reduce{.type = gpuscan::DataType::i64, .op = gpuscan::Op::max};
  const gpuscan::StreamOptions stream{.device_memory_budget = 1 << 20};
  const gpuscan::TestHooks hooks{.max_binding_bytes = 20000};
  const gpuscan::MessageCallback callback = [](gpuscan::MessageSeverity, std::string_view) {};
  const gpuscan::Predicate greater = gpuscan::Predicate::greater(1.5f);
  try {
    throw gpuscan::Error(gpuscan::Errc::invalid_argument, "checked");
  } catch (const std::system_error& e) {
    const bool ok = e.code() == gpuscan::Errc::invalid_argument && greater(2.0f) && !greater(1.0f) &&
                    scan.kind == gpuscan::ScanKind::exclusive && reduce.op == gpuscan::Op::max &&
                    stream.double_buffer && hooks.prefix_stride == 0 && callback &&
                    gpuscan::SegmentHeads::flags != gpuscan::SegmentHeads::keys_u32;
    return ok ? 0 : 1;
  }
}
