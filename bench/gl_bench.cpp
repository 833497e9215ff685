// gpuscan's OpenGL benchmark: GPU time of the scans the GL backend offers (reduce-then-scan and the
// multipass scans; no single-pass on GL) beside the GLSL copy roofline (where the driver has
// GL_KHR_shader_subgroup, which copy.comp's layout uses), in the CSV of gpuscan_bench
// (impl "gpuscan-gl", "glsl-copy-gl"), so bench/scripts/compare.py reads both.
//
// Each case is first checked against the CPU reference on a poisoned output. Then at least `warmup`
// runs and `--warmup-ms` of them (as gpuscan_bench: the GPU's clock comes up only after a while), and
// `runs` timed runs are issued back to back, each between two GL_TIMESTAMP queries (glQueryCounter)
// and separated by glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT), so runs do not overlap; the median
// is reported. The context is gpuscan's own headless EGL context (--platform).
#include <EGL/egl.h>
#include <GL/glcorearb.h>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <random>
#include <string>

#include "bench_common.hpp"
#include "gpuscan/gpuscan.hpp"
#include "gpuscan/gl.hpp"
#include "gpuscan/testing.hpp"

namespace gs = gpuscan;
namespace gl = gpuscan::gl;
using gpuscan::bench::BatchWarmup;
using gpuscan::bench::csv_row;
using gpuscan::bench::default_warmup_ms;
using gpuscan::bench::Stats;
using gpuscan::bench::summarize;
using gpuscan::bench::warmed_up_runs;

namespace {

template <class F>
F load(const char* name) {
  const F f = reinterpret_cast<F>(eglGetProcAddress(name));
  if (!f) throw gs::Error(gs::Errc::unsupported, std::string("the GL driver has no ") + name);
  return f;
}

// The GL entry points the benchmark calls itself (gpuscan loads its own), through libEGL.
struct GlFunctions {
  PFNGLCREATEBUFFERSPROC CreateBuffers = load<PFNGLCREATEBUFFERSPROC>("glCreateBuffers");
  PFNGLNAMEDBUFFERSTORAGEPROC NamedBufferStorage = load<PFNGLNAMEDBUFFERSTORAGEPROC>("glNamedBufferStorage");
  PFNGLNAMEDBUFFERSUBDATAPROC NamedBufferSubData = load<PFNGLNAMEDBUFFERSUBDATAPROC>("glNamedBufferSubData");
  PFNGLGETNAMEDBUFFERSUBDATAPROC GetNamedBufferSubData =
      load<PFNGLGETNAMEDBUFFERSUBDATAPROC>("glGetNamedBufferSubData");
  PFNGLDELETEBUFFERSPROC DeleteBuffers = load<PFNGLDELETEBUFFERSPROC>("glDeleteBuffers");
  PFNGLCREATEQUERIESPROC CreateQueries = load<PFNGLCREATEQUERIESPROC>("glCreateQueries");
  PFNGLQUERYCOUNTERPROC QueryCounter = load<PFNGLQUERYCOUNTERPROC>("glQueryCounter");
  PFNGLGETQUERYOBJECTUI64VPROC GetQueryObjectui64v = load<PFNGLGETQUERYOBJECTUI64VPROC>("glGetQueryObjectui64v");
  PFNGLDELETEQUERIESPROC DeleteQueries = load<PFNGLDELETEQUERIESPROC>("glDeleteQueries");
  PFNGLMEMORYBARRIERPROC MemoryBarrier = load<PFNGLMEMORYBARRIERPROC>("glMemoryBarrier");
  PFNGLGETERRORPROC GetError = load<PFNGLGETERRORPROC>("glGetError");
};

// A device buffer of the GL context.
struct Buffer {
  const GlFunctions& f;
  GLuint name = 0;
  Buffer(const GlFunctions& functions, uint64_t bytes) : f(functions) {
    f.CreateBuffers(1, &name);
    f.NamedBufferStorage(name, static_cast<GLsizeiptr>(std::max<uint64_t>(bytes, 4)), nullptr, GL_DYNAMIC_STORAGE_BIT);
  }
  ~Buffer() { f.DeleteBuffers(1, &name); }
};

// Issues warmup + runs repetitions of `issue`, the timed ones between two timestamps; returns their ms.
std::vector<double> time_runs_once(const GlFunctions& f, uint32_t warmup, uint32_t runs, const std::function<void()>& issue) {
  std::vector<GLuint> queries(2 * runs);
  f.CreateQueries(GL_TIMESTAMP, static_cast<GLsizei>(queries.size()), queries.data());
  for (uint32_t i = 0; i < warmup + runs; ++i) {
    const bool timed = i >= warmup;
    if (timed) f.QueryCounter(queries[2 * (i - warmup)], GL_TIMESTAMP);
    issue();
    if (timed) f.QueryCounter(queries[2 * (i - warmup) + 1], GL_TIMESTAMP);
    f.MemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
  }
  std::vector<double> ms(runs);
  for (uint32_t i = 0; i < runs; ++i) {
    GLuint64 begin = 0, end = 0;
    f.GetQueryObjectui64v(queries[2 * i], GL_QUERY_RESULT, &begin);
    f.GetQueryObjectui64v(queries[2 * i + 1], GL_QUERY_RESULT, &end);
    ms[i] = static_cast<double>(end - begin) * 1e-6;
  }
  f.DeleteQueries(static_cast<GLsizei>(queries.size()), queries.data());
  return ms;
}

double g_warmup_ms = 2000;

// time_runs_once after at least g_warmup_ms of warm-up work (warmed_up_runs, bench_common.hpp).
std::vector<double> time_runs(const GlFunctions& f, uint32_t warmup, uint32_t runs, const std::function<void()>& issue) {
  const double warmup_ms = BatchWarmup::ms(g_warmup_ms);
  std::vector<double> ms =
      warmed_up_runs([&](uint32_t w, uint32_t r) { return time_runs_once(f, w, r, issue); }, warmup, runs, warmup_ms);
  BatchWarmup::batch_ended();
  return ms;
}

// The GLSL copy roofline: shaders/copy.comp (the tile kernels' layout), issued as gpuscan issues its passes.
void issue_copy(const gl::Context& ctx, GLuint in, GLuint out, uint64_t n, uint32_t w, uint32_t k) {
  const uint64_t tile = uint64_t{w} * k * 4;
  const uint64_t blocks = (n + tile - 1) / tile;
  const uint32_t gx = static_cast<uint32_t>(std::min<uint64_t>(blocks, ctx.info().max_workgroup_count[0]));
  const uint32_t gy = static_cast<uint32_t>((blocks + gx - 1) / gx);
  const gs::testkit::GlBinding bindings[3] = {{in, 0, n * 4}, {out, 0, n * 4}, {out, 0, n * 4}};
  const uint32_t params[6] = {static_cast<uint32_t>(n), 0, 0, 0, gx, static_cast<uint32_t>(blocks)};
  gs::testkit::dispatch_kernel(ctx, "copy.u32", {.workgroup_size = w, .vectors_per_lane = k}, bindings, params, gx, gy);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"gpuscan OpenGL benchmark: GPU time of the GL backend's scans beside the GLSL copy roofline"};
  int min_log2 = 10, max_log2 = 26, step = 2;
  uint32_t runs = 30, warmup = 20;
  std::vector<std::string> algorithms = {"reduce-then-scan", "multipass-subgroup", "multipass-blelloch"};
  std::vector<std::string> types = {"u32", "f32"};
  std::vector<std::string> kinds = {"exclusive"};
  std::string csv_path, platform = "auto";
  bool verify = true;
  app.add_option("--min-log2", min_log2, "smallest size 2^k (default 10)");
  app.add_option("--max-log2", max_log2, "largest size 2^k (default 26; at most GL_MAX_SHADER_STORAGE_BLOCK_SIZE)");
  app.add_option("--step", step, "exponent step (default 2)");
  app.add_option("--runs", runs, "timed runs per case (default 30)");
  app.add_option("--warmup", warmup, "untimed runs first (default 20)");
  double warmup_ms = -1;
  app.add_option("--warmup-ms", warmup_ms, "and at least this much warm-up work (default 2000 on a GPU, 200 on llvmpipe)");
  app.add_option("--algorithms", algorithms, "reduce-then-scan, multipass-subgroup, multipass-blelloch")->delimiter(',');
  app.add_option("--types", types, "u32, i32, f32")->delimiter(',');
  app.add_option("--kinds", kinds, "exclusive, inclusive")->delimiter(',');
  app.add_option("--csv", csv_path, "write CSV here (default stdout)");
  app.add_option("--platform", platform, "EGL platform: auto, surfaceless or device")
      ->check(CLI::IsMember({"auto", "surfaceless", "device"}));
  app.add_flag("!--no-verify", verify, "skip the CPU check of each case");
  CLI11_PARSE(app, argc, argv);

  try {
    gl::ContextCreateInfo info;
    info.platform = platform == "surfaceless" ? gl::Platform::surfaceless
                    : platform == "device"    ? gl::Platform::device
                                              : gl::Platform::automatic;
    const gl::Context ctx = gl::Context::create(info);
    const GlFunctions f;
    const gl::GlInfo& d = ctx.info();
    g_warmup_ms = warmup_ms >= 0 ? warmup_ms : default_warmup_ms(d.renderer.find("llvmpipe") != std::string::npos);

    std::ofstream file;
    std::ostream& out = csv_path.empty() ? std::cout : (file.open(csv_path), file);
    out << "# device: " << d.renderer << "\n# opengl: " << d.version << " (" << d.platform << ")\n# subgroup size: "
        << d.subgroup_size << "\n# gpuscan: " << gs::version << "\n# timing: GL_TIMESTAMP queries around each run, median of "
        << runs << " after at least " << warmup << " warm-up runs and " << g_warmup_ms
        << " ms of warm-up work (at most " << BatchWarmup::kShortWarmupMs << " ms for a case that follows another within "
        << BatchWarmup::kIdle.count() << " ms)\n"
        << "impl,algorithm,type,kind,n,median_ms,min_ms,max_ms,runs,gbps\n";

    const uint64_t max_n = uint64_t{1} << max_log2;
    if (max_n * 4 > d.max_shader_storage_block_size)
      throw gs::Error(gs::Errc::too_large, "--max-log2 " + std::to_string(max_log2) +
                                               " exceeds GL_MAX_SHADER_STORAGE_BLOCK_SIZE of " +
                                               std::to_string(d.max_shader_storage_block_size) + " bytes");
    uint64_t temp_bytes = 16;
    for (const auto& t : types)
      for (auto a : {gs::Algorithm::reduce_then_scan, gs::Algorithm::multipass}) {
        gs::ScanConfig c;
        c.type = *gs::parse_data_type(t);
        c.algorithm = a;
        try {
          temp_bytes = std::max(temp_bytes, gl::scan_temp_requirements(ctx, max_n, c).size);
        } catch (const gs::Error&) {  // not offered here: skipped below
        }
      }
    Buffer in(f, max_n * 4), result(f, max_n * 4), temp(f, temp_bytes);
    std::mt19937_64 rng(std::random_device{}());
    int failures = 0;
    for (int e = min_log2; e <= max_log2; e += step) {
      const uint64_t n = uint64_t{1} << e;
      // copy.comp uses the tile layout, which needs GL_KHR_shader_subgroup (not on llvmpipe).
      Stats copy{};
      if (d.subgroup_basic) {
        copy = summarize(time_runs(f, warmup, runs, [&] { issue_copy(ctx, in.name, result.name, n, 256, 4); }));
        std::cerr << "copy n=2^" << e << ": " << copy.median_ms << " ms\n";
      }
      for (const auto& type_name : types) {
        const gs::DataType type = *gs::parse_data_type(type_name);
        std::vector<uint32_t> bits(n);
        if (type == gs::DataType::f32) {
          std::uniform_real_distribution<float> u(-1.0f, 1.0f);
          for (auto& x : bits) { const float v = u(rng); std::memcpy(&x, &v, 4); }
        } else {
          for (auto& x : bits) x = static_cast<uint32_t>(rng());
        }
        f.MemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);  // earlier shaders' accesses before this update
        f.NamedBufferSubData(in.name, 0, static_cast<GLsizeiptr>(n * 4), bits.data());
        for (const auto& kind_name : kinds) {
          const gs::ScanKind kind = kind_name == "inclusive" ? gs::ScanKind::inclusive : gs::ScanKind::exclusive;
          for (const auto& alg : algorithms) {
            gs::ScanConfig c;
            c.type = type;
            c.kind = kind;
            if (alg == "reduce-then-scan") c.algorithm = gs::Algorithm::reduce_then_scan;
            else if (alg == "multipass-subgroup") c.algorithm = gs::Algorithm::multipass, c.workgroup = gs::WorkgroupAlgorithm::subgroup;
            else if (alg == "multipass-blelloch") c.algorithm = gs::Algorithm::multipass, c.workgroup = gs::WorkgroupAlgorithm::blelloch;
            else throw gs::Error(gs::Errc::invalid_argument, "unknown algorithm " + alg + " (single-pass is not offered on GL)");
            const gl::ScanArgs args{c, n, {in.name}, {result.name}, {temp.name}};
            try {
              ctx.resolve(c, n);
              if (c.algorithm == gs::Algorithm::multipass) ctx.resolve(c.workgroup);
            } catch (const gs::Error& err) {
              std::cerr << alg << ": skipped: " << err.what() << "\n";
              continue;
            }
            if (verify) {
              const std::vector<uint32_t> poison(n, 0xA5A5A5A5u);
              f.MemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
              f.NamedBufferSubData(result.name, 0, static_cast<GLsizeiptr>(n * 4), poison.data());
              gl::record_scan(ctx, args);
              f.MemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
              std::vector<uint32_t> got(n);
              f.GetNamedBufferSubData(result.name, 0, static_cast<GLsizeiptr>(n * 4), got.data());
              if (const int64_t bad = gpuscan::bench::first_mismatch_bits(type, bits, got.data(), kind); bad >= 0) {
                ++failures;
                std::cerr << "MISMATCH " << alg << " " << type_name << " " << kind_name << " n=" << n << " at index " << bad << "\n";
                out << "# MISMATCH " << alg << " " << type_name << " " << kind_name << " n=" << n << "\n";
                continue;
              }
            }
            const Stats s = summarize(time_runs(f, warmup, runs, [&] { gl::record_scan(ctx, args); }));
            std::cerr << alg << " " << type_name << " " << kind_name << " n=2^" << e << ": " << s.median_ms << " ms\n";
            out << csv_row("gpuscan-gl", alg, type_name, kind_name, n, s, runs, 4) << "\n" << std::flush;
          }
        }
      }
      if (d.subgroup_basic) out << csv_row("glsl-copy-gl", "copy", "u32", "copy", n, copy, runs, 4) << "\n" << std::flush;
    }
    if (f.GetError() != GL_NO_ERROR) throw gs::Error(gs::Errc::gl_error, "a GL error is pending after the benchmark");
    if (failures) std::cerr << failures << " case(s) failed verification\n";
    return failures ? 1 : 0;
  } catch (const gs::Error& e) {
    std::cerr << "gpuscan_gl_bench: error: " << e.what() << "\n";
    return 1;
  }
}
