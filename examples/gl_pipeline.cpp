// The OpenGL backend on the application's own buffer objects: gpuscan makes a headless GL context
// (EGL, surfaceless), the application creates buffers in it, and gpuscan issues a scan and a compaction
// on them with glMemoryBarrier between its passes. The application places the barrier for its own
// next use (here: reading back with glGetNamedBufferSubData).
#include <EGL/egl.h>
#include <GL/glcorearb.h>

#include <cstdint>
#include <iostream>
#include <span>
#include <vector>

#include <gpuscan/gl.hpp>

template <class F>
F load(const char* name) {
  return reinterpret_cast<F>(eglGetProcAddress(name));
}

void print(const char* label, const std::vector<uint32_t>& values) {
  std::cout << label;
  for (uint32_t v : values) std::cout << ' ' << v;
  std::cout << '\n';
}

int main() try {
  auto ctx = gpuscan::gl::Context::create();  // current on this thread from now on
  std::cout << "GL " << ctx.info().version << " on " << ctx.info().renderer << "\n";
  auto create_buffers = load<PFNGLCREATEBUFFERSPROC>("glCreateBuffers");
  auto storage = load<PFNGLNAMEDBUFFERSTORAGEPROC>("glNamedBufferStorage");
  auto read = load<PFNGLGETNAMEDBUFFERSUBDATAPROC>("glGetNamedBufferSubData");
  auto memory_barrier = load<PFNGLMEMORYBARRIERPROC>("glMemoryBarrier");
  auto delete_buffers = load<PFNGLDELETEBUFFERSPROC>("glDeleteBuffers");

  const std::vector<uint32_t> in = {3, 1, 7, 0, 4, 1, 6, 3};
  const uint64_t n = in.size();
  const gpuscan::ScanConfig scan_config{};  // u32, exclusive, automatic
  const gpuscan::CompactConfig compact_config{};
  const uint64_t temp_bytes = std::max(gpuscan::gl::scan_temp_requirements(ctx, n, scan_config).size,
                                       gpuscan::gl::compact_temp_requirements(ctx, n, compact_config).size);
  GLuint buffers[4];  // input, scan output, compaction output, count + scratch
  create_buffers(4, buffers);
  storage(buffers[0], n * 4, in.data(), 0);
  storage(buffers[1], n * 4, nullptr, 0);
  storage(buffers[2], n * 4, nullptr, 0);
  storage(buffers[3], 16 + temp_bytes, nullptr, 0);

  // Exclusive scan of buffers[0] into buffers[1].
  gpuscan::gl::record_scan(ctx, {scan_config, n, {buffers[0]}, {buffers[1]}, {buffers[3], 16}});
  // Both calls use the scratch in buffers[3]: GL orders the second call's stores after the first's loads
  // only with a barrier.
  memory_barrier(GL_SHADER_STORAGE_BARRIER_BIT);
  // The elements greater than 2, in order, into buffers[2]; their number into the first word of buffers[3].
  gpuscan::gl::record_select_if(ctx, {compact_config, n, {buffers[0]}, {}, gpuscan::Predicate::greater(2u),
                                      {buffers[2]}, {buffers[3], 0}, {buffers[3], 16}});
  memory_barrier(GL_BUFFER_UPDATE_BARRIER_BIT);  // shader writes -> glGetNamedBufferSubData

  std::vector<uint32_t> scanned(n), selected(n);
  uint32_t kept = 0;
  read(buffers[1], 0, n * 4, scanned.data());
  read(buffers[3], 0, 4, &kept);
  read(buffers[2], 0, kept * 4, selected.data());
  selected.resize(kept);
  print("scan result:       ", scanned);
  print("scan expected:     ", {0, 3, 4, 11, 11, 15, 16, 22});
  print("select_if result:  ", selected);
  print("select_if expected:", {3, 7, 4, 6, 3});
  delete_buffers(4, buffers);
} catch (const gpuscan::Error& e) {
  std::cerr << "gl_pipeline: " << e.what() << '\n';
  return 1;
}
