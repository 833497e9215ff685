// LD_PRELOADed into the sanitizer test run (scripts/test.sh): keeps the Vulkan driver (lavapipe), the
// validation layer and Mesa's GL driver loaded for the whole process. The Vulkan loader dlcloses the
// first two at vkDestroyInstance, EGL the GL driver at eglTerminate; LeakSanitizer runs at exit, after
// that, so blocks the unloaded libraries still pointed to from their globals look leaked and their allocation stacks point into unmapped (or since reused) addresses, which
// no suppression can name. Kept loaded, such blocks stay reachable and real leaks inside them are named
// by library (tests/sanitizers/lsan.supp). RTLD_LOCAL: nothing of theirs interposes on the application's
// symbols (the layer exports vkGetInstanceProcAddr). Built without sanitizers; changes nothing else.
#include <dlfcn.h>

#include <initializer_list>

namespace {
__attribute__((constructor)) void keep_vulkan_modules() {
  // The GL tests' driver too: Mesa's DRI driver (llvmpipe), unloaded by eglTerminate (Debian's multiarch path).
  for (const char* name : {"libvulkan_lvp.so", "libVkLayer_khronos_validation.so",
                           "/usr/lib/x86_64-linux-gnu/dri/swrast_dri.so"})
    dlopen(name, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
}
}  // namespace
