// The API a command runs on (--api vulkan|gl): a gpuscan::Context or a gpuscan::gl::Context, with what the
// commands ask of either. Every primitive runs through run(), a plan of either API; visit() reaches the
// rest, its generic lambdas picking the backend's function by argument-dependent lookup.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "gpuscan/gpuscan.hpp"
#if GPUSCAN_WITH_GL
#include "gpuscan/gl.hpp"
#include "gpuscan/gl/plan.hpp"
#endif

namespace gpuscan::cli {

enum class Api : uint8_t { vulkan, gl };

class Backend {
 public:
#if GPUSCAN_WITH_GL
  using Variant = std::variant<Context, gl::Context>;
#else
  using Variant = std::variant<Context>;
#endif
  // `on_close`: called with the Vulkan context when the Backend is destroyed (the CLI saves its pipeline
  // cache so); it must not throw.
  explicit Backend(Variant context, void (*on_close)(const Context&) noexcept = nullptr)
      : context_(std::move(context)), on_close_(on_close) {}
  Backend(const Backend&) = delete;
  Backend& operator=(const Backend&) = delete;
  ~Backend() {
    if (const Context* c = vulkan(); c && on_close_) on_close_(*c);
  }

  template <class F>
  decltype(auto) visit(F&& f) const {
    return std::visit(std::forward<F>(f), context_);
  }
  // Runs a primitive on host data through a one-shot plan of either API (gpuscan::Plan, gpuscan::gl::Plan):
  // what every command computes goes through here. `count`: the input's elements (the plan's max_count).
  template <class P>
  typename P::Output run(const P& description, const typename P::Input& input, uint64_t count,
                         double* gpu_ns = nullptr) const {
    const PlanLimits limits{.max_count = count, .prepare = false};
    return visit([&](const auto& ctx) {
      if constexpr (std::is_same_v<std::decay_t<decltype(ctx)>, Context>)
        return gpuscan::Plan<P>(ctx, description, limits).run(input, gpu_ns);
#if GPUSCAN_WITH_GL
      else
        return gl::Plan<P>(ctx, description, limits).run(input, gpu_ns);
#endif
    });
  }

  // The Vulkan context; nullptr on GL.
  const Context* vulkan() const { return std::get_if<Context>(&context_); }
#if GPUSCAN_WITH_GL
  // The GL context; nullptr on Vulkan.
  const gl::Context* gl() const { return std::get_if<gl::Context>(&context_); }
#endif

  // "llvmpipe (LLVM 15.0.6, 256 bits) [device 0, CPU]" or "llvmpipe (...) [OpenGL 4.5, EGL surfaceless]".
  std::string describe_device() const;
  Algorithm resolve(const ScanConfig& config, uint64_t count) const;
  // The workgroup size (W) and vectors per lane (K) a scan of `count` elements runs with
  // (Context::workgroup_size, vectors_per_lane; on GL the config's or the defaults).
  uint32_t workgroup_size(const ScanConfig& config, uint64_t count) const;
  uint32_t vectors_per_lane(const ScanConfig& config, uint64_t count) const;
  // Multipass's workgroup algorithm for scans of `type` (it may depend on it: 64-bit types take Blelloch on GL).
  WorkgroupAlgorithm resolve(WorkgroupAlgorithm workgroup, DataType type = DataType::u32) const;
  // The custom operator's element size (compile_custom_op of either API).
  uint32_t compile_custom_op(const CustomOp& op) const;
  // Chunked streams (gpuscan/stream.hpp) on either API.
  StreamPlan plan_scan_stream(const ScanConfig& config, const StreamOptions& options) const;
  StreamStats scan_stream(const ScanConfig& config, const StreamReader& read, const StreamWriter& write,
                          const StreamOptions& options) const;
  bool single_pass_available() const;
  bool subgroup_arithmetic() const;
  uint32_t subgroup_size() const;        // 0 where the API does not say (GL without GL_KHR_shader_subgroup)
  // How a scan of `count` elements of `type` reaches its buffers: in one binding, or in windows past it
  // (Context::describe_addressing on Vulkan).
  std::string describe_addressing(DataType type, uint64_t count) const;
  bool has_gpu_timer() const;            // timestamps / GL_TIME_ELAPSED

 private:
  Variant context_;
  void (*on_close_)(const Context&) noexcept = nullptr;
};

}  // namespace gpuscan::cli
