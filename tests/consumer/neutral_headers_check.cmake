# cmake -DCXX=<C++ compiler> -DSOURCE=<gpuscan source dir> -DGENERATED=<dir holding gpuscan/version.hpp>
#       -DWORK=<dir> -P neutral_headers_check.cmake
# The layering of the headers (ctest: neutral_headers). Fails if any of these reaches a header of a graphics
# API (a dependency path with a vulkan/, GL/, EGL/ or KHR/ directory), by the compiler's full dependency
# list (-M: system headers too, which is where <vulkan/vulkan_core.h> lives), and unless each compiles:
#   - neutral_main.cpp, which uses the neutral headers together;
#   - every neutral header alone (types, error, message, compact, reduce, segmented, stream, testing,
#     version, plan, signature), and gl.hpp, which shares them with the OpenGL backend and needs no GL header either;
#   - every source of src/core, the backend-neutral planning code, with the library's own include paths
#     (dependencies only: the library's build compiles them).
# A control proves the check can fail: gpuscan/vulkan.hpp must be caught.
cmake_minimum_required(VERSION 3.21)
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
set(flags -std=c++20 "-I${SOURCE}/include" "-I${GENERATED}" "-I${SOURCE}/src")
set(graphics_regex "(^|/)(vulkan|GL|EGL|KHR)/")

# graphics_headers(SOURCE_FILE OUT): the graphics-API headers SOURCE_FILE reaches (paths inside the gpuscan
# source tree relative to it, so that where the tree lies cannot match).
function(graphics_headers file out)
  execute_process(COMMAND "${CXX}" ${flags} -M "${file}" RESULT_VARIABLE rc OUTPUT_VARIABLE deps ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${CXX} -M ${file} failed (${rc}):\n${err}")
  endif()
  string(REPLACE "\\\n" " " deps "${deps}")
  string(REGEX REPLACE "^[^:]*:" "" deps "${deps}")   # the make rule's target
  string(REGEX REPLACE "[ \t\r\n]+" ";" deps "${deps}")
  list(LENGTH deps count)
  if(count LESS 2)
    message(FATAL_ERROR "${CXX} -M ${file} listed no headers: ${deps}")
  endif()
  set(found "")
  foreach(dep IN LISTS deps)
    string(REPLACE "${SOURCE}/" "" dep "${dep}")
    if(dep MATCHES "${graphics_regex}")
      list(APPEND found "${dep}")
    endif()
  endforeach()
  set(${out} "${found}" PARENT_SCOPE)
endfunction()

# check(NAME SOURCE_FILE [COMPILE]): no graphics header, and with COMPILE it compiles.
set(failures 0)
function(check name file)
  graphics_headers("${file}" found)
  if(found)
    string(REPLACE ";" "\n  " found "${found}")
    message(SEND_ERROR "${name} includes graphics API headers:\n  ${found}")
    math(EXPR failures "${failures} + 1")
    set(failures ${failures} PARENT_SCOPE)
    return()
  endif()
  if(NOT "COMPILE" IN_LIST ARGN)
    message(STATUS "${name}: no graphics API header")
    return()
  endif()
  execute_process(COMMAND "${CXX}" ${flags} -c "${file}" -o "${WORK}/${name}.o" RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(SEND_ERROR "${name} does not compile (${rc}):\n${err}")
    math(EXPR failures "${failures} + 1")
    set(failures ${failures} PARENT_SCOPE)
    return()
  endif()
  message(STATUS "${name}: no graphics API header, compiles")
endfunction()

# The control: a header that does include Vulkan is caught.
file(WRITE "${WORK}/control.cpp" "#include <gpuscan/vulkan.hpp>\n")
graphics_headers("${WORK}/control.cpp" found)
if(NOT found)
  message(FATAL_ERROR "the check finds no graphics header behind gpuscan/vulkan.hpp: it could not fail")
endif()

check(neutral_main "${CMAKE_CURRENT_LIST_DIR}/neutral_main.cpp" COMPILE)
set(headers types error message compact reduce segmented stream testing version plan signature gl)
foreach(header IN LISTS headers)
  file(WRITE "${WORK}/${header}_alone.cpp" "#include <gpuscan/${header}.hpp>\n")
  check(${header}.hpp "${WORK}/${header}_alone.cpp" COMPILE)
endforeach()
file(GLOB core_sources "${SOURCE}/src/core/*.cpp")
if(NOT core_sources)
  message(FATAL_ERROR "no sources in ${SOURCE}/src/core")
endif()
foreach(file IN LISTS core_sources)
  cmake_path(GET file FILENAME name)
  check(src/core/${name} "${file}")
endforeach()
list(LENGTH core_sources core_count)
list(LENGTH headers header_count)
message(STATUS "${failures} failure(s); checked neutral_main.cpp, ${header_count} headers and ${core_count} src/core sources")
