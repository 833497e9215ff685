// Custom operators (CustomOp, include/gpuscan/types.hpp): the caller's GLSL snippet is compiled at run time
// with shaderc into the kernels of shaders/variants.cmake's GPUSCAN_CUSTOM_OP_VARIANTS, from the embedded
// shader sources (shaders/embedded_sources.hpp), with the snippet as "custom_op.glsl". The modules go into
// the Context's module map under "custom<id>.<kernel>", so Context::Impl::pipeline builds and caches their
// pipelines like any other; the snippet text keys the cache.
//
// shaderc is linked statically (CMakeLists.txt: Debian's libshaderc.so.1 does not load on its own), and is
// optional: without it, custom operators throw Errc::unsupported.
#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/plan.hpp"
#include "core/scan_shape.hpp"
#include "shaders/embedded_sources.hpp"
#include "vulkan/check.hpp"
#include "vulkan/context_impl.hpp"

#if GPUSCAN_WITH_SHADERC
#include <shaderc/shaderc.h>
#endif

namespace gpuscan {
namespace {

#if GPUSCAN_WITH_SHADERC

// The file name the snippet has in compiler messages, and the name ops.glsl includes it by.
constexpr const char* snippet_name = "custom_op.glsl";

// Resolves the shaders' #includes against the embedded sources as glslc -I shaders does: relative to the
// including file first, then to shaders/; "custom_op.glsl" is the snippet.
struct Includer {
  const std::string& snippet;
  struct Result {
    shaderc_include_result result{};
    std::string name, content;
  };

  static const char* find(const std::string& path) {
    for (const shaders::SourceFile& f : shaders::source_files())
      if (path == f.path) return f.text;
    return nullptr;
  }

  static shaderc_include_result* resolve(void* self, const char* requested, int, const char* requesting, size_t) {
    const auto& includer = *static_cast<Includer*>(self);
    auto r = std::make_unique<Result>();
    const std::string from(requesting);
    const std::string dir = from.find('/') == std::string::npos ? "" : from.substr(0, from.rfind('/') + 1);
    if (std::strcmp(requested, snippet_name) == 0) {
      r->name = snippet_name;
      r->content = includer.snippet;
    } else if (const char* text = find(dir + requested)) {
      r->name = dir + requested;
      r->content = text;
    } else if (const char* top = find(requested)) {
      r->name = requested;
      r->content = top;
    } else {
      r->content = std::string("no embedded shader source ") + requested;  // empty name: a failed include
    }
    r->result = {r->name.c_str(), r->name.size(), r->content.c_str(), r->content.size(), r.get()};
    return &r.release()->result;
  }

  static void release(void*, shaderc_include_result* result) {
    delete static_cast<Result*>(result->user_data);
  }
};

// Compiles one kernel with the snippet; throws Errc::compile_error with shaderc's message.
std::vector<uint32_t> compile_kernel(const shaders::Variant& variant, const std::string& snippet) {
  const char* source = Includer::find(variant.source);
  if (!source) throw Error(Errc::unsupported, std::string("no embedded shader source ") + variant.source);

  std::unique_ptr<shaderc_compiler, decltype(&shaderc_compiler_release)> compiler(shaderc_compiler_initialize(),
                                                                                  &shaderc_compiler_release);
  std::unique_ptr<shaderc_compile_options, decltype(&shaderc_compile_options_release)> options(
      shaderc_compile_options_initialize(), &shaderc_compile_options_release);
  if (!compiler || !options) throw Error(Errc::unsupported, "shaderc could not be initialised");
  std::string defines = variant.defines;
  for (size_t start = 0; start < defines.size();) {
    size_t end = defines.find(',', start);
    if (end == std::string::npos) end = defines.size();
    shaderc_compile_options_add_macro_definition(options.get(), defines.data() + start, end - start, nullptr, 0);
    start = end + 1;
  }
  // As the manifest's build-time variants: Vulkan 1.1, optimised (glslc --target-env=vulkan1.1 -O).
  shaderc_compile_options_set_target_env(options.get(), shaderc_target_env_vulkan, shaderc_env_version_vulkan_1_1);
  shaderc_compile_options_set_optimization_level(options.get(), shaderc_optimization_level_performance);
  Includer includer{snippet};
  shaderc_compile_options_set_include_callbacks(options.get(), &Includer::resolve, &Includer::release, &includer);

  std::unique_ptr<shaderc_compilation_result, decltype(&shaderc_result_release)> result(
      shaderc_compile_into_spv(compiler.get(), source, std::strlen(source), shaderc_compute_shader, variant.source,
                          "main", options.get()),
      &shaderc_result_release);
  if (!result) throw Error(Errc::unsupported, "shaderc could not be initialised");
  if (shaderc_result_get_compilation_status(result.get()) != shaderc_compilation_status_success) {
    std::string message = shaderc_result_get_error_message(result.get());
    while (!message.empty() && message.back() == '\n') message.pop_back();
    throw Error(Errc::compile_error, "the custom operator's GLSL did not compile (into the " + std::string(variant.name) +
                                         " kernel): " + message);
  }
  const size_t bytes = shaderc_result_get_length(result.get());
  std::vector<uint32_t> words(bytes / 4);
  std::memcpy(words.data(), shaderc_result_get_bytes(result.get()), words.size() * 4);
  return words;
}

// What a compiled kernel tells the host: the std430 stride of the arrays of T it binds (g_src, g_dst, g_aux
// at bindings 0 to 2, those the kernel uses; binding 3 also aliases uint words) and its capabilities.
struct ModuleFacts {
  std::vector<uint32_t> strides;
  std::vector<uint32_t> capabilities;
};

ModuleFacts inspect(const std::vector<uint32_t>& spirv) {
  constexpr uint32_t op_capability = 17, op_type_runtime_array = 29, op_type_struct = 30, op_type_pointer = 32,
                     op_variable = 59, op_decorate = 71, array_stride = 6, binding = 33;
  ModuleFacts facts;
  std::map<uint32_t, uint32_t> stride_of, first_member, pointee, type_of_variable, binding_of;
  std::vector<uint32_t> runtime_arrays;
  for (size_t i = 5; i < spirv.size();) {
    const uint32_t count = spirv[i] >> 16, opcode = spirv[i] & 0xffffu;
    if (count == 0 || i + count > spirv.size()) break;
    const uint32_t* w = &spirv[i + 1];
    if (opcode == op_capability && count >= 2) facts.capabilities.push_back(w[0]);
    if (opcode == op_decorate && count >= 4 && w[1] == array_stride) stride_of[w[0]] = w[2];
    if (opcode == op_decorate && count >= 4 && w[1] == binding) binding_of[w[0]] = w[2];
    if (opcode == op_type_runtime_array && count >= 3) runtime_arrays.push_back(w[0]);
    if (opcode == op_type_struct && count >= 3) first_member[w[0]] = w[1];
    if (opcode == op_type_pointer && count >= 4) pointee[w[0]] = w[2];
    if (opcode == op_variable && count >= 4) type_of_variable[w[1]] = w[0];
    i += count;
  }
  for (const auto& [variable, slot] : binding_of) {
    if (slot > 2 || !type_of_variable.count(variable)) continue;
    const uint32_t block = pointee[type_of_variable[variable]];
    const uint32_t array = first_member.count(block) ? first_member[block] : 0;
    if (std::find(runtime_arrays.begin(), runtime_arrays.end(), array) != runtime_arrays.end() && stride_of.count(array))
      facts.strides.push_back(stride_of[array]);
  }
  return facts;
}

// Why a module with these capabilities cannot run on `impl`'s device ("" if it can).
std::string capability_obstacle(const Context::Impl& impl, const std::vector<uint32_t>& capabilities) {
  constexpr uint32_t shader = 1, float16 = 9, float64 = 10, int64 = 11, int16 = 22, int8 = 39;
  for (uint32_t c : capabilities) {
    if (c == shader) continue;
    if (c == int64 && impl.int64_enabled) continue;
    if (c == float64 && impl.float64_enabled) continue;
    const std::string name = c == int64     ? "Int64 (shaderInt64)"
                             : c == float64 ? "Float64 (shaderFloat64)"
                             : c == float16 ? "Float16"
                             : c == int16   ? "Int16"
                             : c == int8    ? "Int8"
                                            : "SPIR-V capability " + std::to_string(c);
    return "the custom operator's shader needs " + name + ", which gpuscan's device (" + impl.info.name +
           ") does not have enabled";
  }
  return "";
}

#endif  // GPUSCAN_WITH_SHADERC

}  // namespace

const Context::Impl::CompiledCustomOp& Context::Impl::custom_op(const CustomOp& op) {
  if (op.glsl.find_first_not_of(" \t\r\n") == std::string::npos)
    throw Error(Errc::invalid_argument, "the custom operator's GLSL is empty: it must define T, identity() and combine(a, b)");
  std::lock_guard lock(pipelines_mutex);
  auto found = custom_ops.find(op.glsl);
  if (found == custom_ops.end()) {
#if GPUSCAN_WITH_SHADERC
    const uint32_t id = next_custom_op_id++;  // never reused: a failed compile may have left modules
    CompiledCustomOp compiled{"custom" + std::to_string(id) + ".", 0};
    std::vector<std::pair<std::string, std::vector<uint32_t>>> kernels;
    for (const shaders::Variant& variant : shaders::custom_op_variants()) {
      std::vector<uint32_t> spirv = compile_kernel(variant, op.glsl);
      ++custom_op_compilations;
      const ModuleFacts facts = inspect(spirv);
      if (const std::string why = capability_obstacle(*this, facts.capabilities); !why.empty())
        throw Error(Errc::unsupported, why);
      for (uint32_t stride : facts.strides) {
        if (compiled.element_size != 0 && stride != compiled.element_size)
          throw Error(Errc::unsupported, "the custom operator's element type has two array strides (" +
                                             std::to_string(stride) + " and " + std::to_string(compiled.element_size) +
                                             " bytes) in the " + variant.name + " kernel");
        compiled.element_size = stride;
      }
      kernels.emplace_back(compiled.prefix + variant.name, std::move(spirv));
    }
    if (compiled.element_size == 0)
      throw Error(Errc::unsupported, "the custom operator's element size could not be read from its compiled shader");
    for (auto& [name, spirv] : kernels)
      modules[name] = create_module(spirv);  // destroyed with the Context's other modules
    found = custom_ops.emplace(op.glsl, std::move(compiled)).first;
#else
    throw Error(Errc::unsupported, "this gpuscan was built without shaderc (libshaderc-dev), which custom operators "
                                   "need to compile their GLSL");
#endif
  }
  const CompiledCustomOp& compiled = found->second;
  core::check_custom_element_size(op, compiled.element_size);
  return compiled;
}

uint32_t compile_custom_op(const Context& ctx, const CustomOp& op) { return impl_of(ctx).custom_op(op).element_size; }

}  // namespace gpuscan
