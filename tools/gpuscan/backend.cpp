#include "backend.hpp"

#include "format.hpp"
#include "options.hpp"

namespace gpuscan::cli {
namespace {

// One overloaded function object per question, for std::visit.
template <class... F>
struct Overloaded : F... {
  using F::operator()...;
};
template <class... F>
Overloaded(F...) -> Overloaded<F...>;

}  // namespace

std::string Backend::describe_device() const {
  return visit(Overloaded{
      [](const Context& c) { return cli::describe_device(c.device_info()); },
#if GPUSCAN_WITH_GL
      [](const gl::Context& c) {
        return c.info().renderer + " [OpenGL " + std::to_string(c.info().major) + "." + std::to_string(c.info().minor) +
               ", " + c.info().platform + "]";
      },
#endif
  });
}

Algorithm Backend::resolve(const ScanConfig& config, uint64_t count) const {
  return visit([&](const auto& c) { return c.resolve(config, count); });
}

uint32_t Backend::workgroup_size(const ScanConfig& config, uint64_t count) const {
  return visit(Overloaded{
      [&](const Context& c) { return c.workgroup_size(config, count); },
#if GPUSCAN_WITH_GL
      [&](const gl::Context&) { return effective_workgroup_size(config); },
#endif
  });
}

uint32_t Backend::vectors_per_lane(const ScanConfig& config, uint64_t count) const {
  return visit(Overloaded{
      [&](const Context& c) { return c.vectors_per_lane(config, count); },
#if GPUSCAN_WITH_GL
      [&](const gl::Context&) { return effective_vectors_per_lane(config); },
#endif
  });
}

WorkgroupAlgorithm Backend::resolve(WorkgroupAlgorithm workgroup, DataType type) const {
  return visit(Overloaded{
      [&](const Context& c) { return c.resolve(workgroup, type); },
#if GPUSCAN_WITH_GL
      [&](const gl::Context& c) { return c.resolve(workgroup, type); },
#endif
  });
}

StreamPlan Backend::plan_scan_stream(const ScanConfig& config, const StreamOptions& options) const {
  return visit(Overloaded{
      [&](const Context& c) { return gpuscan::plan_scan_stream(c, config, options); },
#if GPUSCAN_WITH_GL
      [&](const gl::Context& c) { return gpuscan::gl::plan_scan_stream(c, config, options); },
#endif
  });
}

StreamStats Backend::scan_stream(const ScanConfig& config, const StreamReader& read, const StreamWriter& write,
                                 const StreamOptions& options) const {
  return visit(Overloaded{
      [&](const Context& c) { return gpuscan::scan_stream(c, config, read, write, options); },
#if GPUSCAN_WITH_GL
      [&](const gl::Context& c) { return gpuscan::gl::scan_stream(c, config, read, write, options); },
#endif
  });
}

bool Backend::single_pass_available() const {
  const Context* c = vulkan();
  return c && c->single_pass_available();
}

bool Backend::subgroup_arithmetic() const {
  return visit(Overloaded{
      [](const Context& c) { return c.device_info().has_subgroup_arithmetic(); },
#if GPUSCAN_WITH_GL
      [](const gl::Context& c) { return c.info().subgroup_arithmetic; },
#endif
  });
}

uint32_t Backend::compile_custom_op(const CustomOp& op) const {
  return visit(Overloaded{
      [&](const Context& c) { return gpuscan::compile_custom_op(c, op); },
#if GPUSCAN_WITH_GL
      [&](const gl::Context& c) { return gpuscan::gl::compile_custom_op(c, op); },
#endif
  });
}

uint32_t Backend::subgroup_size() const {
  return visit(Overloaded{
      [](const Context& c) { return c.device_info().subgroup_size; },
#if GPUSCAN_WITH_GL
      [](const gl::Context& c) { return c.info().subgroup_size; },
#endif
  });
}

std::string Backend::describe_addressing(DataType type, uint64_t count) const {
  return visit(Overloaded{
      [&](const Context& c) { return c.describe_addressing(type, count); },
#if GPUSCAN_WITH_GL
      [&](const gl::Context& c) {
        const uint64_t binding = c.info().max_shader_storage_block_size;
        const std::string bindings = "bindings of at most " + format_bytes(binding) + " (GL_MAX_SHADER_STORAGE_BLOCK_SIZE)";
        if (count <= binding / element_size(type)) return bindings + ": " + std::to_string(count) + " elements fit one";
        return bindings + ": " + std::to_string(count) + " elements run in windows chained on the GPU";
      },
#endif
  });
}

bool Backend::has_gpu_timer() const {
  const Context* c = vulkan();
  return !c || c->device_info().timestamp_period_ns > 0;
}

}  // namespace gpuscan::cli
