# cmake -DGLSLC=glslc -DDIR=<build>/generated/gl_shaders -DWORK=<dir> -P check_gl_sources.cmake
# Compiles every embedded OpenGL source with glslang's OpenGL rules (glslc --target-env=opengl4.5), with
# two sets of constants as src/gl/programs.cpp would define them. llvmpipe has no GL_KHR_shader_subgroup,
# so the subgroup variants (reduce-then-scan, subgroup workgroup scans, ballot compaction, the copy
# roofline) are never compiled by a GL driver in CI; this at least proves them valid GLSL for GL.
file(GLOB sources "${DIR}/*.glsl")
list(LENGTH sources count)
if(count EQUAL 0)
  message(FATAL_ERROR "no OpenGL sources in ${DIR}")
endif()
file(MAKE_DIRECTORY "${WORK}")
set(failures 0)
foreach(source IN LISTS sources)
  file(READ "${source}" text)
  string(FIND "${text}" "\n" first_newline)
  string(SUBSTRING "${text}" 0 ${first_newline} version_line)
  math(EXPR rest_start "${first_newline} + 1")
  string(SUBSTRING "${text}" ${rest_start} -1 rest)
  # A custom operator's kernel (custom.*) gets a sample snippet where src/gl/custom_op.cpp puts the caller's.
  string(REPLACE "void gpuscan_custom_op_snippet();"
         "#define T uvec2\nT identity() { return T(0u); }\nT combine(T a, T b) { return a + b; }" rest "${rest}")
  # Ids 0-13 (src/core/pipeline_key.hpp); the last is the operator: add in one set, max in the other.
  foreach(constants "256;1u;1u;4u;0u;64u;3u;0u;1u;0u;0u;1u;1u;0u" "32;0u;0u;1u;1u;64u;0u;0u;2u;0u;0u;1u;1u;2u")
    set(defines "")
    set(id 0)
    foreach(value IN LISTS constants)
      string(APPEND defines "#define GPUSCAN_SPEC_${id} ${value}\n")
      math(EXPR id "${id} + 1")
    endforeach()
    get_filename_component(name "${source}" NAME_WE)
    set(probe "${WORK}/${name}.comp")
    file(WRITE "${probe}" "${version_line}\n${defines}${rest}")
    execute_process(COMMAND ${GLSLC} --target-env=opengl4.5 --target-spv=spv1.3 -fshader-stage=compute
                            "${probe}" -o "${WORK}/${name}.spv"
                    RESULT_VARIABLE result ERROR_VARIABLE errors)
    if(NOT result EQUAL 0)
      message(SEND_ERROR "${name} with constants ${constants}:\n${errors}")
      math(EXPR failures "${failures} + 1")
    endif()
  endforeach()
endforeach()
message(STATUS "${count} OpenGL sources checked with two sets of constants, ${failures} failure(s)")
