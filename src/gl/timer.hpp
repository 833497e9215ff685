// The GPU time of GL commands: two GL_TIMESTAMP queries around them (not GL_TIME_ELAPSED: llvmpipe answers
// 1 ns for that). Waits for the queries.
#pragma once

#include "gl/context_impl.hpp"

namespace gpuscan::gl {

// Issues `issue()`; with `gpu_ns`, stores the GPU time between its first and last command there.
template <class F>
void timed(Context::Impl& impl, double* gpu_ns, F&& issue) {
  if (!gpu_ns) return issue();
  GLuint queries[2] = {0, 0};
  impl.gl.CreateQueries(GL_TIMESTAMP, 2, queries);
  try {
    impl.gl.QueryCounter(queries[0], GL_TIMESTAMP);
    issue();
  } catch (...) {
    impl.gl.DeleteQueries(2, queries);
    throw;
  }
  impl.gl.QueryCounter(queries[1], GL_TIMESTAMP);
  GLuint64 begin = 0, end = 0;
  impl.gl.GetQueryObjectui64v(queries[0], GL_QUERY_RESULT, &begin);
  impl.gl.GetQueryObjectui64v(queries[1], GL_QUERY_RESULT, &end);
  impl.gl.DeleteQueries(2, queries);
  *gpu_ns = end > begin ? static_cast<double>(end - begin) : 0.0;
}

}  // namespace gpuscan::gl
