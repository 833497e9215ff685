# cmake -DGLSLC=glslc -DDUMP=<dump_gl_sources> -DWORK=<dir> -P check_gl_sources.cmake
# Compiles every OpenGL variant, as the GL backend assembles it at run time with two sets of constants
# (tests/gl/dump_gl_sources.cpp), with glslang's OpenGL rules (glslc --target-env=opengl4.5). llvmpipe has no
# GL_KHR_shader_subgroup, so the subgroup variants (reduce-then-scan, subgroup workgroup scans, ballot
# compaction, the copy roofline) are never compiled by a GL driver in CI; this at least proves them valid
# GLSL for GL.
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
execute_process(COMMAND "${DUMP}" "${WORK}" RESULT_VARIABLE result ERROR_VARIABLE errors)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "the OpenGL sources did not assemble:\n${errors}")
endif()
file(GLOB sources "${WORK}/*.comp")
list(LENGTH sources count)
if(count EQUAL 0)
  message(FATAL_ERROR "no OpenGL sources in ${WORK}")
endif()
set(failures 0)
foreach(source IN LISTS sources)
  execute_process(COMMAND ${GLSLC} --target-env=opengl4.5 --target-spv=spv1.3 -fshader-stage=compute
                          "${source}" -o "${source}.spv"
                  RESULT_VARIABLE result ERROR_VARIABLE errors)
  if(NOT result EQUAL 0)
    get_filename_component(name "${source}" NAME)
    message(SEND_ERROR "${name}:\n${errors}")
    math(EXPR failures "${failures} + 1")
  endif()
endforeach()
message(STATUS "${count} OpenGL sources (every variant with two sets of constants) checked, ${failures} failure(s)")
