// gpuscan::testkit on OpenGL (gpuscan/testing.hpp): the GL executor's dispatch, reached from outside the
// library by the benchmarks.
#include "gpuscan/testing.hpp"

#include <vector>

#include "gl/context_impl.hpp"

namespace gpuscan::testkit {

void dispatch_kernel(const gl::Context& ctx, const std::string& name, const KernelConstants& constants,
                     std::span<const GlBinding> buffers, std::span<const uint32_t> params, uint32_t groups_x,
                     uint32_t groups_y) {
  gl::Context::Impl& impl = gl::impl_of(ctx);
  impl.check_current();
  if (params.empty()) throw Error(Errc::invalid_argument, "testkit::dispatch_kernel: " + name + " without parameters");
  PipelineKey key;
  key.variant = name;
  key.workgroup_size = constants.workgroup_size;
  key.use_aux = constants.aux;
  key.vectors_per_lane = constants.vectors_per_lane;
  std::vector<gl::Binding> bindings;
  bindings.reserve(buffers.size());
  for (const GlBinding& b : buffers) bindings.push_back({b.buffer, b.offset, b.size, 0});
  impl.dispatch(key, bindings, params, groups_x, groups_y);
}

}  // namespace gpuscan::testkit
