// The OpenGL backend of core::execute_program (core/execute.hpp): issues a program's commands.
#pragma once

#include <span>

#include "core/program.hpp"
#include "gl/context_impl.hpp"

namespace gpuscan::gl {

// Builds the programs `program` dispatches (execute does too; this is for a primitive that issues other
// work before it). `either_alignment`: where a dispatch's vector_aligned depends on where its ranges are
// bound, both builds (what a plan made with prepare needs, knowing no buffers yet).
void build_programs(Context::Impl& impl, const core::Program& program, bool either_alignment = false);

// Binds every range and builds every program `program` dispatches (so that an error leaves nothing
// issued), then issues its commands with its buffer i bound to buffers[i]: a barrier after dispatches is
// glMemoryBarrier with the bits its readers need (GL orders fills and updates, buffer commands, by
// itself). With `gpu_ns`, the GPU time between its first and last command (timestamp queries; waits
// for them).
void execute(Context::Impl& impl, const core::Program& program, std::span<const BufferView> buffers,
             double* gpu_ns = nullptr);

}  // namespace gpuscan::gl
