# Fails if the static libgpuscan leaves any Vulkan function (vk*) for the linker to resolve: gpuscan loads
# every one at run time (src/vulkan/functions.hpp). The control: the archive must leave dlopen undefined
# (it opens the system loader with it), which proves nm read the undefined symbols at all.
execute_process(COMMAND ${NM} -u ${LIBRARY} OUTPUT_VARIABLE undefined RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${NM} -u ${LIBRARY} failed (${rc})")
endif()
if(NOT undefined MATCHES "U dlopen")
  message(FATAL_ERROR "nm -u lists no dlopen in ${LIBRARY}: the check could not see undefined symbols")
endif()
string(REGEX MATCHALL "U vk[A-Za-z0-9_]+" vulkan "${undefined}")
if(vulkan)
  list(REMOVE_DUPLICATES vulkan)
  message(FATAL_ERROR "libgpuscan calls Vulkan by link-time symbol: ${vulkan}")
endif()
message(STATUS "no vk* symbol undefined in ${LIBRARY}")
