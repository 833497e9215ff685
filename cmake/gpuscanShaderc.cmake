# shaderc, and the archives it needs, as the imported target gpuscan_private::shaderc (custom operators).
# Included by gpuscan's build and, where libgpuscan is static, by the installed package: a static library
# cannot carry its dependencies, so the consumer's configure finds them again by name, and the package
# holds no paths of the machine that built it. Threads::Threads must be defined first.
#
# Debian's libshaderc.so.1 leaves glslang's and SPIRV-Tools' symbols unresolved, and its
# libshaderc_combined.a holds shaderc alone, so glslang's and SPIRV-Tools' archives follow it, in link
# order (those not found are assumed to be inside libshaderc_combined, as upstream builds it).
# Sets GPUSCAN_SHADERC_LINK_NAMES to the libraries found, as -l names, in link order (for gpuscan.pc).
find_library(GPUSCAN_SHADERC_LIBRARY NAMES libshaderc_combined.a shaderc_combined)
set(GPUSCAN_SHADERC_LINK_NAMES "")
if(GPUSCAN_SHADERC_LIBRARY)
  set(_gpuscan_shaderc_libraries ${GPUSCAN_SHADERC_LIBRARY})
  list(APPEND GPUSCAN_SHADERC_LINK_NAMES shaderc_combined)
  foreach(_lib SPIRV glslang MachineIndependent GenericCodeGen OGLCompiler OSDependent SPIRV-Tools-opt SPIRV-Tools)
    find_library(GPUSCAN_SHADERC_${_lib}_LIBRARY NAMES lib${_lib}.a)
    if(GPUSCAN_SHADERC_${_lib}_LIBRARY)
      list(APPEND _gpuscan_shaderc_libraries ${GPUSCAN_SHADERC_${_lib}_LIBRARY})
      list(APPEND GPUSCAN_SHADERC_LINK_NAMES ${_lib})
    endif()
  endforeach()
  if(NOT TARGET gpuscan_private::shaderc)
    add_library(gpuscan_private::shaderc INTERFACE IMPORTED)
    set_target_properties(gpuscan_private::shaderc PROPERTIES
      INTERFACE_LINK_LIBRARIES "${_gpuscan_shaderc_libraries};Threads::Threads")
  endif()
  unset(_gpuscan_shaderc_libraries)
endif()
