# cmake -DSOURCE=<gpuscan source> -DWORK=<dir> -DGENERATOR=<generator> -P parts_check.cmake
# The optional parts (cmake/Parts.cmake) on a machine without their packages, simulated by disabling CMake's
# search for them: a configure with the defaults (AUTO) succeeds and says what it skipped; one that
# requires a part (=ON) stops and says what is missing.
set(hide -DCMAKE_DISABLE_FIND_PACKAGE_OpenGL=ON -DCMAKE_DISABLE_FIND_PACKAGE_MPI=ON
         -DCMAKE_DISABLE_FIND_PACKAGE_pybind11=ON)
set(lean -DGPUSCAN_BUILD_TESTS=OFF -DGPUSCAN_BUILD_BENCH=OFF -DGPUSCAN_BUILD_EXAMPLES=OFF)
set(failures 0)

function(configure name expect_ok)
  file(REMOVE_RECURSE "${WORK}/${name}")
  execute_process(COMMAND ${CMAKE_COMMAND} -S "${SOURCE}" -B "${WORK}/${name}" -G "${GENERATOR}" ${ARGN}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  set(output "${out}${err}" PARENT_SCOPE)
  if(expect_ok AND NOT rc EQUAL 0)
    message(SEND_ERROR "${name}: configure failed (${rc}):\n${out}${err}")
  elseif(NOT expect_ok AND rc EQUAL 0)
    message(SEND_ERROR "${name}: configure succeeded but should have stopped:\n${out}${err}")
  endif()
endfunction()

include(${CMAKE_CURRENT_LIST_DIR}/expect.cmake)

configure(auto TRUE ${hide} ${lean})
expect(auto "${output}" "gpuscan: skipping the OpenGL backend: EGL/GL headers or libEGL/libOpenGL not found")
expect(auto "${output}" "gpuscan: skipping gpuscan::mpi: no MPI C++ compiler wrapper and library found")
expect(auto "${output}" "gpuscan: skipping the Python module: pybind11 not found")
expect(auto "${output}" "gpuscan part: the OpenGL backend: skipped")

configure(off TRUE -DGPUSCAN_WITH_GL=OFF -DGPUSCAN_BUILD_MPI=OFF -DGPUSCAN_BUILD_PYTHON=OFF ${lean})
expect(off "${output}" "gpuscan part: the OpenGL backend: off (GPUSCAN_WITH_GL=OFF)")
expect(off "${output}" "gpuscan part: gpuscan::mpi: off (GPUSCAN_BUILD_MPI=OFF)")

foreach(part GPUSCAN_WITH_GL GPUSCAN_BUILD_MPI GPUSCAN_BUILD_PYTHON)
  configure(required_${part} FALSE ${hide} ${lean} -D${part}=ON)
  expect(required_${part} "${output}" "gpuscan: ${part}=ON, but")
endforeach()

configure(bad_value FALSE ${lean} -DGPUSCAN_WITH_GL=maybe)
expect(bad_value "${output}" "GPUSCAN_WITH_GL is 'maybe'; it takes AUTO, ON or OFF")
file(REMOVE_RECURSE "${WORK}")
