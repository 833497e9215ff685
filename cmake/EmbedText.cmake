# cmake -DIN=file -DOUT=file -P EmbedText.cmake: writes IN as a C++ raw string literal to OUT, without the
# lines a GL driver would reject -- glslc's #line directives (they name files) and the include
# extension -- and without blank lines. With -DVERBATIM=ON the text is kept as it is (the shader sources
# compiled at run time with their #includes, src/vulkan/custom_op.cpp), so compiler messages keep their
# line numbers.
file(READ "${IN}" text)
if(NOT VERBATIM)
  string(REGEX REPLACE "#line [^\n]*\n" "" text "${text}")
  string(REGEX REPLACE "#extension GL_GOOGLE_include_directive[^\n]*\n" "" text "${text}")
  string(REGEX REPLACE "\n([ \t]*\n)+" "\n" text "${text}")
endif()
file(WRITE "${OUT}" "R\"gpuscan_glsl(${text})gpuscan_glsl\"")
