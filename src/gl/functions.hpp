// The GL entry points gpuscan calls, loaded through eglGetProcAddress once per Context (no link-time
// dependency on libGL or libOpenGL). With GLVND the pointers dispatch to whichever context is current.
#pragma once

#include <GL/glcorearb.h>

namespace gpuscan::gl {

#define GPUSCAN_GL_FUNCTIONS(X)                                                                       \
  X(PFNGLGETSTRINGPROC, GetString)                                                                    \
  X(PFNGLGETSTRINGIPROC, GetStringi)                                                                  \
  X(PFNGLGETINTEGERVPROC, GetIntegerv)                                                                \
  X(PFNGLGETINTEGER64VPROC, GetInteger64v)                                                            \
  X(PFNGLGETINTEGERI_VPROC, GetIntegeri_v)                                                            \
  X(PFNGLGETERRORPROC, GetError)                                                                      \
  X(PFNGLENABLEPROC, Enable)                                                                          \
  X(PFNGLDEBUGMESSAGECALLBACKPROC, DebugMessageCallback)                                              \
  X(PFNGLCREATESHADERPROC, CreateShader)                                                              \
  X(PFNGLSHADERSOURCEPROC, ShaderSource)                                                              \
  X(PFNGLCOMPILESHADERPROC, CompileShader)                                                            \
  X(PFNGLGETSHADERIVPROC, GetShaderiv)                                                                \
  X(PFNGLGETSHADERINFOLOGPROC, GetShaderInfoLog)                                                      \
  X(PFNGLDELETESHADERPROC, DeleteShader)                                                              \
  X(PFNGLCREATEPROGRAMPROC, CreateProgram)                                                            \
  X(PFNGLATTACHSHADERPROC, AttachShader)                                                              \
  X(PFNGLLINKPROGRAMPROC, LinkProgram)                                                                \
  X(PFNGLGETPROGRAMIVPROC, GetProgramiv)                                                              \
  X(PFNGLGETPROGRAMINFOLOGPROC, GetProgramInfoLog)                                                    \
  X(PFNGLDELETEPROGRAMPROC, DeleteProgram)                                                            \
  X(PFNGLGETPROGRAMINTERFACEIVPROC, GetProgramInterfaceiv)                                            \
  X(PFNGLGETPROGRAMRESOURCENAMEPROC, GetProgramResourceName)                                          \
  X(PFNGLGETPROGRAMRESOURCEIVPROC, GetProgramResourceiv)                                              \
  X(PFNGLUSEPROGRAMPROC, UseProgram)                                                                  \
  X(PFNGLBINDBUFFERRANGEPROC, BindBufferRange)                                                        \
  X(PFNGLDISPATCHCOMPUTEPROC, DispatchCompute)                                                        \
  X(PFNGLDISPATCHCOMPUTEINDIRECTPROC, DispatchComputeIndirect)                                        \
  X(PFNGLBINDBUFFERPROC, BindBuffer)                                                                  \
  X(PFNGLMEMORYBARRIERPROC, MemoryBarrier)                                                            \
  X(PFNGLISBUFFERPROC, IsBuffer)                                                                      \
  X(PFNGLCREATEBUFFERSPROC, CreateBuffers)                                                            \
  X(PFNGLDELETEBUFFERSPROC, DeleteBuffers)                                                            \
  X(PFNGLNAMEDBUFFERSTORAGEPROC, NamedBufferStorage)                                                  \
  X(PFNGLNAMEDBUFFERDATAPROC, NamedBufferData)                                                        \
  X(PFNGLNAMEDBUFFERSUBDATAPROC, NamedBufferSubData)                                                  \
  X(PFNGLCLEARNAMEDBUFFERSUBDATAPROC, ClearNamedBufferSubData)                                        \
  X(PFNGLCOPYNAMEDBUFFERSUBDATAPROC, CopyNamedBufferSubData)                                          \
  X(PFNGLGETNAMEDBUFFERSUBDATAPROC, GetNamedBufferSubData)                                            \
  X(PFNGLGETNAMEDBUFFERPARAMETERI64VPROC, GetNamedBufferParameteri64v)                                \
  X(PFNGLCREATEQUERIESPROC, CreateQueries)                                                            \
  X(PFNGLDELETEQUERIESPROC, DeleteQueries)                                                            \
  X(PFNGLQUERYCOUNTERPROC, QueryCounter)                                                              \
  X(PFNGLGETQUERYOBJECTUI64VPROC, GetQueryObjectui64v)

struct Functions {
#define GPUSCAN_GL_MEMBER(type, name) type name = nullptr;
  GPUSCAN_GL_FUNCTIONS(GPUSCAN_GL_MEMBER)
#undef GPUSCAN_GL_MEMBER
};

// GL_KHR_shader_subgroup's tokens (not in every glcorearb.h).
inline constexpr GLenum subgroup_size_khr = 0x9532;
inline constexpr GLenum subgroup_supported_stages_khr = 0x9533;
inline constexpr GLenum subgroup_supported_features_khr = 0x9534;
inline constexpr GLint subgroup_feature_basic = 0x1;
inline constexpr GLint subgroup_feature_arithmetic = 0x4;
inline constexpr GLint subgroup_feature_ballot = 0x8;

}  // namespace gpuscan::gl
