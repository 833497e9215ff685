# The optional parts of the build (the OpenGL backend, custom operators through shaderc, gpuscan::mpi, the
# Python module). Each has a cache setting:
#   AUTO (the default)  built when what it needs is found; otherwise skipped, with a line saying why
#   ON                  required: configure stops, saying what is missing
#   OFF                 not built, and what it needs is not looked for
# The older boolean spellings still work (TRUE/YES/1 as ON, FALSE/NO/0 as OFF).
# Configure ends with one line per part (gpuscan_parts_summary), so a build log says what it holds.

# gpuscan_part(SETTING "description"): declares SETTING; sets SETTING_WANTED in the caller's scope
# (FALSE when OFF: skip the search).
macro(gpuscan_part setting description)
  set(${setting} AUTO CACHE STRING "${description}: AUTO, ON or OFF")
  set_property(CACHE ${setting} PROPERTY STRINGS AUTO ON OFF)
  string(TOUPPER "${${setting}}" _gpuscan_part_value)
  if(_gpuscan_part_value MATCHES "^(OFF|FALSE|NO|0|N)$")
    set(${setting}_WANTED FALSE)
  elseif(_gpuscan_part_value MATCHES "^(AUTO|ON|TRUE|YES|1|Y)$")
    set(${setting}_WANTED TRUE)
  else()
    message(FATAL_ERROR "gpuscan: ${setting} is '${${setting}}'; it takes AUTO, ON or OFF")
  endif()
endmacro()

# gpuscan_part_resolve(SETTING FOUND "description" "what is missing, and how to get it" OUT): sets OUT
# to whether the part is built, and says so.
function(gpuscan_part_resolve setting found description missing out)
  string(TOUPPER "${${setting}}" value)
  if(NOT ${setting}_WANTED)
    set(line "off (${setting}=OFF)")
    set(built FALSE)
  elseif(found)
    set(line "yes")
    set(built TRUE)
  elseif(value MATCHES "^(ON|TRUE|YES|1|Y)$")
    message(FATAL_ERROR "gpuscan: ${setting}=ON, but ${description} cannot be built: ${missing}")
  else()
    set(line "skipped: ${missing} (-D${setting}=ON makes it required)")
    set(built FALSE)
    message(STATUS "gpuscan: skipping ${description}: ${missing}")
  endif()
  set_property(GLOBAL APPEND PROPERTY GPUSCAN_PARTS "${description}: ${line}")
  set(${out} ${built} PARENT_SCOPE)
endfunction()

function(gpuscan_parts_summary)
  get_property(parts GLOBAL PROPERTY GPUSCAN_PARTS)
  foreach(part IN LISTS parts)
    message(STATUS "gpuscan part: ${part}")
  endforeach()
endfunction()
