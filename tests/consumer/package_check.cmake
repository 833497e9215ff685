# cmake -DBUILD=<gpuscan build dir> -DWORK=<dir> -DGENERATOR=<generator> [-DMPI_LAUNCHER=<a|b|c>]
#       -P package_check.cmake
# The installed CMake package and its components (ctest: package_consumers). Installs BUILD into WORK, then:
#   - no installed package file (the CMake package, gpuscan.pc) holds an absolute path: they hold no paths
#     of the machine that built gpuscan, and the package finds its dependencies again where it is used;
#   - a consumer that asks for no component configures with MPI's search disabled, builds and scans
#     (a Vulkan program needs no MPI, even from a gpuscan built with gpuscan::mpi);
#   - COMPONENTS gl and COMPONENTS mpi build and run their programs where the install has them (mpi under
#     MPI_LAUNCHER, '|'-separated, when given), and otherwise stop configure with a message that says so;
#   - a required mpi without MPI stops configure, an optional one does not; an unknown component stops it.
# Every program scans on the default device (lavapipe in CI).
cmake_minimum_required(VERSION 3.21)
set(prefix "${WORK}/install")
file(REMOVE_RECURSE "${WORK}")
execute_process(COMMAND ${CMAKE_COMMAND} --install "${BUILD}" --prefix "${prefix}"
                RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install ${BUILD} failed (${rc}):\n${err}")
endif()

# No absolute path: one starts a word, a quoted string, a list element or a variable's value.
file(GLOB_RECURSE package_files "${prefix}/*.cmake" "${prefix}/*.pc")
if(NOT package_files)
  message(SEND_ERROR "no package files under ${prefix}")
endif()
set(absolute 0)
foreach(file IN LISTS package_files)
  file(STRINGS "${file}" lines)
  foreach(line IN LISTS lines)
    if(line MATCHES "(^|[ \t\"';=(:])/[A-Za-z0-9_.+-]+/")
      message(SEND_ERROR "${file} holds an absolute path:\n  ${line}")
      math(EXPR absolute "${absolute} + 1")
    endif()
  endforeach()
endforeach()
list(LENGTH package_files count)
message(STATUS "absolute paths: ${absolute} in the ${count} package files")

set(consumer_source "${CMAKE_CURRENT_LIST_DIR}")
set(no_mpi -DCMAKE_DISABLE_FIND_PACKAGE_MPI=ON)

# consumer(NAME EXPECT_OK ARGS...): configures tests/consumer against the install (and builds it if the
# configure is to succeed); sets `output` to what configure said.
function(consumer name expect_ok)
  set(dir "${WORK}/${name}")
  execute_process(COMMAND ${CMAKE_COMMAND} -S "${consumer_source}" -B "${dir}" -G "${GENERATOR}"
                          -DCMAKE_BUILD_TYPE=Release "-DCMAKE_PREFIX_PATH=${prefix}" ${ARGN}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  set(output "${out}${err}" PARENT_SCOPE)
  if(NOT expect_ok)
    if(rc EQUAL 0)
      message(SEND_ERROR "${name}: configure succeeded but should have stopped:\n${out}${err}")
    endif()
    return()
  endif()
  if(NOT rc EQUAL 0)
    message(SEND_ERROR "${name}: configure failed (${rc}):\n${out}${err}")
    return()
  endif()
  execute_process(COMMAND ${CMAKE_COMMAND} --build "${dir}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(SEND_ERROR "${name}: build failed (${rc}):\n${out}${err}")
  endif()
endfunction()

# run(NAME PROGRAM [LAUNCHER...]): runs a consumer's program, which exits 0 only if its scan is right (if it
# was built: consumer() has said why not).
function(run name program)
  if(NOT EXISTS "${WORK}/${name}/${program}")
    return()
  endif()
  execute_process(COMMAND ${ARGN} "${WORK}/${name}/${program}"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(rc EQUAL 0)
    string(STRIP "${out}" out)
    message(STATUS "${name}: ${out}")
  else()
    message(SEND_ERROR "${name}: ${program} failed (${rc}):\n${out}${err}")
  endif()
endfunction()

include(${CMAKE_CURRENT_LIST_DIR}/../configure/expect.cmake)

# The core alone, where MPI cannot be found.
consumer(core_without_mpi TRUE ${no_mpi})
run(core_without_mpi gpuscan_consumer)

set(not_built "was built without component")
if(EXISTS "${prefix}/include/gpuscan/gl.hpp")
  consumer(gl TRUE -DGPUSCAN_CONSUMER_COMPONENTS=gl ${no_mpi})
  run(gl gpuscan_gl_consumer)
else()
  consumer(gl_not_built FALSE -DGPUSCAN_CONSUMER_COMPONENTS=gl)
  expect(gl_not_built "${output}" "${not_built} 'gl' (GPUSCAN_WITH_GL was OFF")
endif()

if(EXISTS "${prefix}/include/gpuscan/mpi.hpp")
  consumer(mpi TRUE -DGPUSCAN_CONSUMER_COMPONENTS=mpi)
  string(REPLACE "|" ";" launcher "${MPI_LAUNCHER}")
  run(mpi gpuscan_mpi_consumer ${launcher})
  consumer(mpi_without_mpi FALSE -DGPUSCAN_CONSUMER_COMPONENTS=mpi ${no_mpi})
  expect(mpi_without_mpi "${output}" "for module MPI called with REQUIRED")
  consumer(mpi_optional_without_mpi TRUE -DGPUSCAN_CONSUMER_OPTIONAL_COMPONENTS=mpi ${no_mpi})
  expect(mpi_optional_without_mpi "${output}" "gpuscan component mpi: not found")
else()
  consumer(mpi_not_built FALSE -DGPUSCAN_CONSUMER_COMPONENTS=mpi)
  expect(mpi_not_built "${output}" "${not_built} 'mpi' (GPUSCAN_BUILD_MPI was OFF")
  consumer(mpi_optional_not_built TRUE -DGPUSCAN_CONSUMER_OPTIONAL_COMPONENTS=mpi)
  expect(mpi_optional_not_built "${output}" "gpuscan component mpi: not found")
endif()

consumer(unknown_component FALSE -DGPUSCAN_CONSUMER_COMPONENTS=vulkan_rt)
expect(unknown_component "${output}" "gpuscan has no component 'vulkan_rt'")
