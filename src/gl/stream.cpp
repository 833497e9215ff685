// Chunked scan streams on OpenGL (gl::scan_stream): each chunk goes through gl::scan_bytes, one at a
// time, with the running total as its carry-in. GL has no staging buffers of gpuscan's to reuse (the
// driver uploads from host memory), so the budget covers the GL input, output and temp buffers.
#include <vector>

#include "core/scan_shape.hpp"
#include "core/stream.hpp"
#include "gl/context_impl.hpp"
#include "gpuscan/gl.hpp"

namespace gpuscan::gl {
namespace {

struct GlStreamPlan {
  StreamPlan plan;
  ScanConfig chunk_config;  // the algorithm pinned to a full chunk's
};

GlStreamPlan plan_scan(const Context& ctx, const ScanConfig& config, const StreamOptions& options) {
  if (config.custom_op)  // chunks chain through carry-ins, which custom operators do not take
    throw Error(Errc::unsupported, "streamed scans take no custom operator (ScanConfig::custom_op); use scan_bytes");
  scan_temp_requirements(ctx, 1, config);  // validates the type, operator, tile shape and algorithm
  const uint64_t esize = element_size(config.type);
  const uint64_t cap = std::min<uint64_t>(ctx.info().max_shader_storage_block_size / esize, uint64_t{1} << 31);
  const auto pinned = [&](uint64_t n) {
    ScanConfig c = config;
    c.algorithm = ctx.resolve(config, n);
    return c;
  };
  const core::TileShape shape =
      core::tile_shape(config.workgroup_size, config.vectors_per_lane, core::workgroup_limits(ctx.info()),
                       element_size(config.type));
  const uint64_t tile = pinned(cap).algorithm == Algorithm::multipass
                            ? 2 * uint64_t{shape.workgroup_size}
                            : uint64_t{shape.workgroup_size} * shape.vectors_per_lane * 4;
  uint64_t chunk = core::chunk_elements_for_budget(
      core::stream_budget(options), 1, 2 * esize,  // input, output
      [&](uint64_t n) { return scan_temp_requirements(ctx, n, pinned(n)).size; }, tile, cap,
      "a " + std::string(to_string(config.type)) + " scan");
  if (options.size_hint) chunk = std::min(chunk, std::max<uint64_t>(1, (*options.size_hint + esize - 1) / esize));
  GlStreamPlan p;
  p.chunk_config = pinned(chunk);
  p.plan.chunk_elements = chunk;
  p.plan.chunks_in_flight = 1;
  p.plan.memory_bytes = 2 * esize * chunk + scan_temp_requirements(ctx, chunk, p.chunk_config).size;
  p.plan.algorithm = p.chunk_config.algorithm;
  return p;
}

}  // namespace

StreamPlan plan_scan_stream(const Context& ctx, const ScanConfig& config, const StreamOptions& options) {
  return plan_scan(ctx, config, options).plan;
}

StreamStats scan_stream(const Context& ctx, const ScanConfig& config, const StreamReader& read, const StreamWriter& write,
                        const StreamOptions& options, std::optional<uint64_t> initial_bits) {
  impl_of(ctx).check_current();
  const GlStreamPlan p = plan_scan(ctx, config, options);
  StreamStats stats;
  static_cast<StreamPlan&>(stats) = p.plan;
  const DataType type = config.type;
  const uint64_t esize = element_size(type);
  core::ChunkFiller filler(read, type);
  core::RunningTotal total(config, initial_bits);
  std::vector<std::byte> chunk(p.plan.chunk_elements * esize);
  while (!filler.ended()) {
    const uint64_t bytes = filler.fill(chunk);
    if (bytes == 0) break;
    const std::span<const std::byte> input = std::span(chunk).first(bytes);
    double ns = 0;
    const std::vector<std::byte> out = scan_bytes(ctx, input, p.chunk_config, &ns, total.carry());
    const uint64_t last = bytes / esize - 1;
    total.advance(core::element_bits_at(out, type, last), core::element_bits_at(input, type, last));
    write(out);
    stats.gpu_ns += ns;
    stats.count += bytes / esize;
    ++stats.chunks;
  }
  return stats;
}

}  // namespace gpuscan::gl
