// gl::Context: a headless EGL context gpuscan creates, or the caller's current one; the GL entry points
// and what the context offers (GlInfo); KHR_debug output routed to the caller's callback.
#include <dlfcn.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
#include <numeric>
#include <sstream>
#include <vector>

#include "core/compact_policy.hpp"
#include "core/scan_policy.hpp"
#include "core/scan_shape.hpp"
#include "core/tuning.hpp"
#include "gl/context_impl.hpp"
#include "gl/egl.hpp"
#include "gpuscan/testing.hpp"

namespace gpuscan::gl {

const Egl& egl() {
  static const Egl loaded = [] {
    Egl e;
    void* lib = dlopen("libEGL.so.1", RTLD_NOW | RTLD_LOCAL);  // kept open for the process's lifetime
    if (!lib) return e;
    e.GetProcAddress = reinterpret_cast<PFNEGLGETPROCADDRESSPROC>(dlsym(lib, "eglGetProcAddress"));
#define GPUSCAN_EGL(name) e.name = reinterpret_cast<decltype(e.name)>(dlsym(lib, "egl" #name))
    GPUSCAN_EGL(GetError);
    GPUSCAN_EGL(QueryString);
    GPUSCAN_EGL(Initialize);
    GPUSCAN_EGL(Terminate);
    GPUSCAN_EGL(BindAPI);
    GPUSCAN_EGL(ChooseConfig);
    GPUSCAN_EGL(CreatePbufferSurface);
    GPUSCAN_EGL(DestroySurface);
    GPUSCAN_EGL(CreateContext);
    GPUSCAN_EGL(DestroyContext);
    GPUSCAN_EGL(MakeCurrent);
    GPUSCAN_EGL(GetCurrentContext);
    GPUSCAN_EGL(GetCurrentDisplay);
    GPUSCAN_EGL(ReleaseThread);
#undef GPUSCAN_EGL
    if (e.GetProcAddress) {
      e.GetPlatformDisplayEXT =
          reinterpret_cast<PFNEGLGETPLATFORMDISPLAYEXTPROC>(e.GetProcAddress("eglGetPlatformDisplayEXT"));
      e.QueryDevicesEXT = reinterpret_cast<PFNEGLQUERYDEVICESEXTPROC>(e.GetProcAddress("eglQueryDevicesEXT"));
      e.QueryDeviceStringEXT =
          reinterpret_cast<PFNEGLQUERYDEVICESTRINGEXTPROC>(e.GetProcAddress("eglQueryDeviceStringEXT"));
    }
    return e;
  }();
  if (!loaded.GetProcAddress || !loaded.Initialize || !loaded.CreateContext || !loaded.MakeCurrent)
    throw Error(Errc::no_device, "libEGL.so.1 could not be loaded (install libegl1 and a GL driver, e.g. Mesa)");
  return loaded;
}

namespace {

// EGL displays are per process: one Terminate would end every context on it. Count our users.
std::mutex display_mutex;
std::map<EGLDisplay, int> display_users;

void release_display(EGLDisplay display) {
  std::lock_guard lock(display_mutex);
  if (--display_users[display] == 0) {
    display_users.erase(display);
    egl().Terminate(display);
  }
}

bool has_word(const char* list, const char* word) {
  if (!list) return false;
  const size_t n = std::strlen(word);
  for (const char* p = std::strstr(list, word); p; p = std::strstr(p + 1, word))
    if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0')) return true;
  return false;
}

std::string egl_error_text(const char* what) {
  std::ostringstream s;
  s << what << " failed (EGL error 0x" << std::hex << egl().GetError() << ")";
  return s.str();
}

// The EGL devices (EGL_EXT_device_enumeration), hardware ones first: Mesa lists a software device
// (EGL_MESA_device_software, llvmpipe) beside the GPUs of any vendor.
std::vector<EGLDeviceEXT> devices_hardware_first(const Egl& e, const char* client) {
  std::vector<EGLDeviceEXT> devices;
  if (!e.QueryDevicesEXT || !has_word(client, "EGL_EXT_platform_device")) return devices;
  EGLint count = 0;
  if (!e.QueryDevicesEXT(0, nullptr, &count) || count <= 0) return devices;
  devices.resize(static_cast<size_t>(count));
  if (!e.QueryDevicesEXT(count, devices.data(), &count)) return {};
  devices.resize(static_cast<size_t>(count));
  auto software = [&](EGLDeviceEXT d) {
    return e.QueryDeviceStringEXT && has_word(e.QueryDeviceStringEXT(d, EGL_EXTENSIONS), "EGL_MESA_device_software");
  };
  std::stable_partition(devices.begin(), devices.end(), [&](EGLDeviceEXT d) { return !software(d); });
  return devices;
}

// Platform::automatic: the first hardware EGL device (a GPU, whoever's driver), else the surfaceless
// platform (Mesa: llvmpipe without a GPU), else any device. The surfaceless platform is not first
// because with GLVND it belongs to Mesa even on a machine whose GPU is NVIDIA's.
EGLDisplay open_display(Platform platform, std::string& platform_name) {
  const Egl& e = egl();
  const char* client = e.QueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
  if (!e.GetPlatformDisplayEXT || !has_word(client, "EGL_EXT_platform_base"))
    throw Error(Errc::no_device, "EGL lacks EGL_EXT_platform_base, needed for a display without a window system");
  const bool surfaceless = has_word(client, "EGL_MESA_platform_surfaceless");
  const std::vector<EGLDeviceEXT> devices = devices_hardware_first(e, client);
  auto hardware = [&] {
    return !devices.empty() && !(e.QueryDeviceStringEXT && has_word(e.QueryDeviceStringEXT(devices[0], EGL_EXTENSIONS),
                                                                    "EGL_MESA_device_software"));
  };
  if (platform == Platform::automatic)
    platform = hardware() || !surfaceless ? Platform::device : Platform::surfaceless;
  if (platform == Platform::surfaceless) {
    if (!surfaceless) throw Error(Errc::no_device, "EGL lacks EGL_MESA_platform_surfaceless");
    platform_name = "EGL surfaceless";
    return e.GetPlatformDisplayEXT(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, nullptr);
  }
  if (devices.empty())
    throw Error(Errc::no_device, "EGL reports no devices (EGL_EXT_platform_device, EGL_EXT_device_enumeration)");
  platform_name = "EGL device";
  return e.GetPlatformDisplayEXT(EGL_PLATFORM_DEVICE_EXT, devices[0], nullptr);
}

void APIENTRY debug_message(GLenum source, GLenum type, GLuint, GLenum severity, GLsizei, const GLchar* message,
                            const void* user) {
  const auto* impl = static_cast<const Context::Impl*>(user);
  if (!impl->on_message) return;
  MessageSeverity s = MessageSeverity::info;
  // The shader compiler's messages stay info: a failed compile throws (Errc::compile_error for a custom
  // operator's snippet) with the same log, and is no misuse of GL.
  if (source == GL_DEBUG_SOURCE_SHADER_COMPILER) s = MessageSeverity::info;
  else if (type == GL_DEBUG_TYPE_ERROR || type == GL_DEBUG_TYPE_UNDEFINED_BEHAVIOR) s = MessageSeverity::error;
  else if (type == GL_DEBUG_TYPE_PERFORMANCE || type == GL_DEBUG_TYPE_PORTABILITY ||
           type == GL_DEBUG_TYPE_DEPRECATED_BEHAVIOR || severity == GL_DEBUG_SEVERITY_HIGH)
    s = MessageSeverity::warning;
  else if (severity == GL_DEBUG_SEVERITY_NOTIFICATION) s = MessageSeverity::verbose;
  impl->on_message(s, message);
}

// Everything a new Context does once its GL context is current.
std::unique_ptr<Context::Impl> finish(std::unique_ptr<Context::Impl> impl, const ContextCreateInfo& info) {
  impl->gl = load_functions();
  impl->info = query_info(impl->gl);
  impl->profile = &core::select_gl_profile(impl->info.vendor, impl->info.renderer);
  impl->on_message = info.on_message;
  impl->max_groups_x = impl->info.max_workgroup_count[0];
  impl->max_binding_bytes = impl->info.max_shader_storage_block_size;
  if (info.debug && impl->info.khr_debug) {
    impl->gl.Enable(GL_DEBUG_OUTPUT);
    impl->gl.Enable(GL_DEBUG_OUTPUT_SYNCHRONOUS);  // the callback runs inside the failing call
    impl->gl.DebugMessageCallback(debug_message, impl.get());
  }
  impl->gl.CreateBuffers(1, &impl->params_buffer);
  impl->check_error("creating gpuscan's parameter buffer");
  return impl;
}

}  // namespace

Functions load_functions() {
  const Egl& e = egl();
  Functions f;
  std::string missing;
#define GPUSCAN_GL_LOAD(type, name)                                          \
  f.name = reinterpret_cast<type>(e.GetProcAddress("gl" #name));             \
  if (!f.name) missing += " gl" #name;
  GPUSCAN_GL_FUNCTIONS(GPUSCAN_GL_LOAD)
#undef GPUSCAN_GL_LOAD
  if (!missing.empty()) throw Error(Errc::unsupported, "the GL driver lacks entry points gpuscan needs:" + missing);
  return f;
}

GlInfo query_info(const Functions& gl) {
  GlInfo info;
  auto text = [&](GLenum name) {
    const GLubyte* s = gl.GetString(name);
    return s ? std::string(reinterpret_cast<const char*>(s)) : std::string();
  };
  info.version = text(GL_VERSION);
  info.renderer = text(GL_RENDERER);
  info.vendor = text(GL_VENDOR);
  GLint major = 0, minor = 0;
  gl.GetIntegerv(GL_MAJOR_VERSION, &major);
  gl.GetIntegerv(GL_MINOR_VERSION, &minor);
  info.major = major;
  info.minor = minor;
  if (major < 4 || (major == 4 && minor < 5))
    throw Error(Errc::unsupported, "gpuscan needs OpenGL 4.5 (compute shaders and direct state access); the context "
                                   "is " + info.version);
  GLint extensions = 0;
  gl.GetIntegerv(GL_NUM_EXTENSIONS, &extensions);
  bool khr_subgroup = false;
  for (GLint i = 0; i < extensions; ++i) {
    const std::string name(reinterpret_cast<const char*>(gl.GetStringi(GL_EXTENSIONS, static_cast<GLuint>(i))));
    khr_subgroup |= name == "GL_KHR_shader_subgroup";
    info.arb_shader_ballot |= name == "GL_ARB_shader_ballot";
    info.khr_debug |= name == "GL_KHR_debug";
    info.gpu_shader_int64 |= name == "GL_ARB_gpu_shader_int64";
  }
  info.gpu_shader_fp64 = true;  // core since 4.0; query_info refuses anything below 4.5
  if (khr_subgroup) {
    GLint stages = 0, features = 0, size = 0;
    gl.GetIntegerv(subgroup_supported_stages_khr, &stages);
    gl.GetIntegerv(subgroup_supported_features_khr, &features);
    gl.GetIntegerv(subgroup_size_khr, &size);
    const bool compute = (stages & GL_COMPUTE_SHADER_BIT) != 0;
    info.subgroup_basic = compute && (features & subgroup_feature_basic);
    info.subgroup_arithmetic = info.subgroup_basic && (features & subgroup_feature_arithmetic);
    info.subgroup_ballot = info.subgroup_basic && (features & subgroup_feature_ballot);
    info.subgroup_size = static_cast<uint32_t>(size);
  }
  GLint value = 0;
  gl.GetIntegerv(GL_MAX_COMPUTE_WORK_GROUP_INVOCATIONS, &value);
  info.max_workgroup_invocations = static_cast<uint32_t>(value);
  for (GLuint i = 0; i < 3; ++i) {
    gl.GetIntegeri_v(GL_MAX_COMPUTE_WORK_GROUP_COUNT, i, &value);
    info.max_workgroup_count[i] = static_cast<uint32_t>(value);
  }
  GLint64 block = 0;
  gl.GetInteger64v(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &block);
  info.max_shader_storage_block_size = static_cast<uint64_t>(block);
  gl.GetIntegerv(GL_SHADER_STORAGE_BUFFER_OFFSET_ALIGNMENT, &value);
  info.shader_storage_offset_alignment = static_cast<uint64_t>(value);
  gl.GetIntegerv(GL_MAX_COMPUTE_SHARED_MEMORY_SIZE, &value);
  info.max_shared_memory_bytes = static_cast<uint32_t>(value);
  return info;
}

Context::Impl::~Impl() {
  const bool current = !context || egl().GetCurrentContext() == context;
  if (current && gl.DeleteProgram) {  // otherwise the objects go with the GL context
    for (const auto& [key, program] : programs) gl.DeleteProgram(program);
    if (params_buffer) gl.DeleteBuffers(1, &params_buffer);
  }
  if (owns_context) {
    const Egl& e = egl();
    if (current) e.MakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    e.DestroyContext(display, context);
    if (surface) e.DestroySurface(display, surface);
    e.ReleaseThread();
    release_display(display);
  }
}

uint64_t Context::Impl::binding_alignment(uint32_t esize) const {
  return std::lcm<uint64_t>(std::max<uint64_t>(16, info.shader_storage_offset_alignment), esize);
}

void Context::Impl::check_current() const {
  if (context && egl().GetCurrentContext() != context)
    throw Error(Errc::invalid_argument, "this gpuscan::gl::Context's GL context is not current on the calling thread" +
                                            std::string(owns_context ? "; call make_current() first" : ""));
}

void Context::Impl::check_error(const char* what) const {
  const GLenum error = gl.GetError();
  if (error == GL_NO_ERROR) return;
  while (gl.GetError() != GL_NO_ERROR) {
  }
  std::ostringstream s;
  s << what << ": GL error 0x" << std::hex << error;
  throw Error(Errc::gl_error, s.str());
}

Context Context::create(const ContextCreateInfo& info) {
  const Egl& e = egl();
  auto impl = std::make_unique<Impl>();
  std::string platform_name;
  EGLDisplay display = open_display(info.platform, platform_name);
  if (display == EGL_NO_DISPLAY) throw Error(Errc::no_device, egl_error_text("eglGetPlatformDisplayEXT"));
  {
    std::lock_guard lock(display_mutex);
    EGLint major = 0, minor = 0;
    if (!e.Initialize(display, &major, &minor)) throw Error(Errc::no_device, egl_error_text("eglInitialize"));
    ++display_users[display];
  }
  EGLContext context = EGL_NO_CONTEXT;
  EGLSurface surface = EGL_NO_SURFACE;
  try {
    // Mesa has both extensions; NVIDIA's headless EGL is classically used with a config and a pbuffer,
    // so fall back to those where an extension is missing.
    const char* extensions = e.QueryString(display, EGL_EXTENSIONS);
    const bool no_config = has_word(extensions, "EGL_KHR_no_config_context");
    const bool surfaceless_context = has_word(extensions, "EGL_KHR_surfaceless_context");
    EGLConfig config = EGL_NO_CONFIG_KHR;
    if (!no_config || !surfaceless_context) {
      const EGLint wanted[] = {EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_NONE};
      EGLint found = 0;
      if (!e.ChooseConfig(display, wanted, &config, 1, &found) || found < 1)
        throw Error(Errc::unsupported, "the EGL display has no OpenGL config with pbuffers (and lacks "
                                       "EGL_KHR_no_config_context or EGL_KHR_surfaceless_context)");
    }
    if (!e.BindAPI(EGL_OPENGL_API)) throw Error(Errc::unsupported, egl_error_text("eglBindAPI(EGL_OPENGL_API)"));
    const EGLint attributes[] = {EGL_CONTEXT_MAJOR_VERSION, 4, EGL_CONTEXT_MINOR_VERSION, 5,
                                 EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
                                 EGL_CONTEXT_OPENGL_DEBUG, info.debug ? EGL_TRUE : EGL_FALSE, EGL_NONE};
    context = e.CreateContext(display, config, EGL_NO_CONTEXT, attributes);
    if (context == EGL_NO_CONTEXT)
      throw Error(Errc::unsupported, egl_error_text("eglCreateContext (OpenGL 4.5 core profile)"));
    if (!surfaceless_context) {
      const EGLint size[] = {EGL_WIDTH, 1, EGL_HEIGHT, 1, EGL_NONE};
      surface = e.CreatePbufferSurface(display, config, size);
      if (surface == EGL_NO_SURFACE) throw Error(Errc::unsupported, egl_error_text("eglCreatePbufferSurface"));
    }
    if (!e.MakeCurrent(display, surface, surface, context))
      throw Error(Errc::unsupported, egl_error_text("eglMakeCurrent"));
  } catch (...) {
    if (surface != EGL_NO_SURFACE) e.DestroySurface(display, surface);
    if (context != EGL_NO_CONTEXT) e.DestroyContext(display, context);
    release_display(display);
    throw;
  }
  impl->display = display;
  impl->context = context;
  impl->surface = surface;
  impl->owns_context = true;  // from here on ~Impl releases the context and the display
  impl = finish(std::move(impl), info);
  impl->info.platform = platform_name;
  return Context(std::move(impl));
}

Context Context::adopt_current() {
  const Egl& e = egl();
  auto impl = std::make_unique<Impl>();
  EGLContext current = e.GetCurrentContext();
  if (current != EGL_NO_CONTEXT) {
    impl->display = e.GetCurrentDisplay();
    impl->context = current;
  }
  impl->gl = load_functions();
  if (!impl->gl.GetString(GL_VERSION))
    throw Error(Errc::unsupported, "no GL context is current on this thread");
  impl = finish(std::move(impl), {});
  impl->info.platform = "adopted";
  return Context(std::move(impl));
}

Context::Context(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Context::Context(Context&&) noexcept = default;
Context& Context::operator=(Context&&) noexcept = default;
Context::~Context() = default;

const GlInfo& Context::info() const noexcept { return impl_->info; }
std::string_view Context::tuning_profile() const noexcept { return impl_->profile->name; }
std::string_view Context::tuning_profile_source() const noexcept { return impl_->profile->source; }

void Context::make_current() const {
  if (!impl_->owns_context)
    throw Error(Errc::invalid_argument, "make_current() is for contexts gpuscan created; make the adopted one "
                                        "current with the API that created it");
  if (!egl().MakeCurrent(impl_->display, impl_->surface, impl_->surface, impl_->context))
    throw Error(Errc::invalid_argument, egl_error_text("eglMakeCurrent") + " (is it current on another thread?)");
}

namespace {

bool wide(DataType type) { return element_size(type) == 8; }

}  // namespace

void Context::Impl::check_type(DataType type) const {
  const bool integer64 = type == DataType::u64 || type == DataType::i64;
  if (integer64 && !info.gpu_shader_int64)
    throw Error(Errc::unsupported, info.renderer + " lacks GL_ARB_gpu_shader_int64, which " +
                                       std::string(to_string(type)) + " elements need on OpenGL");
  if (type == DataType::f64 && !info.gpu_shader_fp64)
    throw Error(Errc::unsupported, info.renderer + " lacks GL_ARB_gpu_shader_fp64, which f64 elements need");
}

WorkgroupAlgorithm Context::resolve(WorkgroupAlgorithm requested, DataType type) const {
  const bool has = impl_->info.subgroup_arithmetic && !wide(type);
  if (requested == WorkgroupAlgorithm::automatic) return has ? WorkgroupAlgorithm::subgroup : WorkgroupAlgorithm::blelloch;
  if (requested == WorkgroupAlgorithm::subgroup && !has)
    throw Error(Errc::unsupported,
                wide(type) ? "the subgroup workgroup scan is not offered for " + std::string(to_string(type)) +
                                 " on OpenGL (GL's GLSL has no subgroup arithmetic on 64-bit types); use blelloch"
                           : impl_->info.renderer + " has no GL_KHR_shader_subgroup arithmetic in compute shaders; use "
                                                    "the blelloch workgroup algorithm (or automatic)");
  return requested;
}

Algorithm Context::resolve(const ScanConfig& config, uint64_t count) const {
  // GL does not say how much memory the device has: only counts past 64-bit byte offsets are refused.
  core::check_count_fits(count, std::max<uint32_t>(core::element_bytes(config), 1), 0, "scan");
  if (config.custom_op) {
    if (config.algorithm != Algorithm::automatic && config.algorithm != Algorithm::multipass)
      throw Error(Errc::unsupported, "custom operators run the multipass scan with Blelloch workgroup scans only (no "
                                     "subgroup operation implements them); use multipass or automatic");
    return Algorithm::multipass;
  }
  core::check_op(config.op, config.type);
  impl_->check_type(config.type);
  switch (config.algorithm) {
    case Algorithm::automatic: return core::choose_scan(impl_->caps(config.type), *impl_->profile, config, count).algorithm;
    case Algorithm::look_ahead:
      throw Error(Errc::unsupported, "the look-ahead scan is not offered on OpenGL (it needs what the single-pass "
                                     "scan needs); use reduce-then-scan or multipass (or automatic)");
    case Algorithm::single_pass:
      throw Error(Errc::unsupported,
                  "the single-pass scan is not offered on OpenGL: its look-back needs 64-bit buffer atomics and "
                  "GL_KHR_shader_subgroup ballots, and the GL backend builds no look-back kernels; use "
                  "reduce-then-scan or multipass (or automatic)");
    case Algorithm::reduce_then_scan:
      if (wide(config.type))
        throw Error(Errc::unsupported, "reduce-then-scan is not offered for " + std::string(to_string(config.type)) +
                                           " on OpenGL (GL's GLSL has no subgroup arithmetic on 64-bit types); use "
                                           "multipass");
      if (!impl_->caps(config.type).subgroup_arithmetic)
        throw Error(Errc::unsupported, "reduce-then-scan: " + impl_->info.renderer +
                                           " has no GL_KHR_shader_subgroup arithmetic in compute shaders; use multipass");
      return Algorithm::reduce_then_scan;
    case Algorithm::multipass: return Algorithm::multipass;
  }
  return Algorithm::multipass;
}

core::DeviceCaps Context::Impl::caps(DataType type) const {
  return {core::workgroup_limits(info), info.subgroup_arithmetic && !wide(type), false};
}

bool Context::Impl::reduce_without_subgroups(DataType type) const {
  check_type(type);
  return !info.subgroup_arithmetic || wide(type);
}

CompactPath Context::resolve(CompactPath requested) const {
  return core::choose_compact_path(requested, impl_->info.subgroup_ballot, impl_->no_ballots());
}

std::string Context::describe_choice(const ScanConfig& config, uint64_t count) const {
  const Algorithm algorithm = resolve(config, count);
  const uint32_t w = core::workgroup_size_or_default(config.workgroup_size, core::workgroup_limits(impl_->info));
  const uint32_t k =
      config.vectors_per_lane ? config.vectors_per_lane : core::default_vectors_per_lane_for(element_size(config.type));
  std::ostringstream s;
  s << to_string(algorithm) << " for " << count << " elements";
  if (algorithm == Algorithm::reduce_then_scan)
    s << ": reduce tiles, scan their totals, rescan tiles with offsets, 3N bytes moved, tiles of " << w * k * 4
      << " elements";
  else
    s << ": scan blocks, scan block sums recursively, add offsets, 4N bytes moved, tiles of " << 2 * w
      << " elements, workgroup scan "
      << (config.custom_op ? "blelloch (custom operator)" : to_string(resolve(config.workgroup, config.type)));
  if (config.algorithm == Algorithm::automatic)
    s << (impl_->info.subgroup_arithmetic
              ? " (automatic: GL_KHR_shader_subgroup arithmetic is there; single-pass is not offered on GL"
              : " (automatic: no GL_KHR_shader_subgroup arithmetic, so Blelloch workgroup scans")
      << "; profile " << impl_->profile->name << ": " << impl_->profile->source << ")";
  return s.str();
}

Context create_context_for_tests(const ContextCreateInfo& info, const TestHooks& hooks) {
  Context ctx = Context::create(info);
  Context::Impl& impl = impl_of(ctx);
  if (hooks.max_binding_bytes != 0) impl.max_binding_bytes = std::min(impl.max_binding_bytes, hooks.max_binding_bytes);
  if (hooks.max_workgroup_count_x != 0) impl.max_groups_x = std::min(impl.max_groups_x, hooks.max_workgroup_count_x);
  return ctx;
}

}  // namespace gpuscan::gl
