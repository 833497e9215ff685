# cmake -DIN=file -DOUT=file -P EmbedText.cmake: writes IN, as it is, as a C++ raw string literal to OUT (the
# shader sources compiled at run time, cmake/Shaders.cmake), so compiler messages keep their line numbers.
file(READ "${IN}" text)
file(WRITE "${OUT}" "R\"gpuscan_glsl(${text})gpuscan_glsl\"")
