// Threads that touched a dlopen'd module's TLS and are still alive when the process exits, as
// llvmpipe's worker threads are when a gpuscan process that ran OpenGL returns from main: LeakSanitizer
// then stops them and scans each one's stack and TLS (dtls_tracer_check.sh).
#include <dlfcn.h>
#include <pthread.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

using Touch = char* (*)();
Touch touch = nullptr;
pthread_barrier_t started;

void* worker(void*) {
  touch();
  pthread_barrier_wait(&started);
  for (;;) pause();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) return std::fprintf(stderr, "usage: %s MODULE THREADS\n", argv[0]), 2;
  const int threads = std::atoi(argv[2]);
  void* module = dlopen(argv[1], RTLD_NOW);
  if (!module) return std::fprintf(stderr, "%s\n", dlerror()), 2;
  touch = reinterpret_cast<Touch>(dlsym(module, "touch_tls"));
  pthread_barrier_init(&started, nullptr, threads + 1);
  std::vector<pthread_t> ids(threads);
  for (pthread_t& id : ids) pthread_create(&id, nullptr, worker, nullptr);
  pthread_barrier_wait(&started);
  std::printf("%d threads hold the module's TLS\n", threads);
  return 0;  // LeakSanitizer runs now, the threads alive
}
