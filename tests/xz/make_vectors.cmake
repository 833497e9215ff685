# cmake -DDIR=dir -P make_vectors.cmake: writes the xz decoder's test vectors to DIR (src/core/xz.hpp): texts,
# each beside its .xz made by CMake's own encoder (libarchive's liblzma) at levels 0 and 9, and a tar of some.
# "noise" packs to more than one LZMA2 chunk; "packed" is already compressed, so LZMA2 stores it uncompressed.
file(MAKE_DIRECTORY "${DIR}")
set(paragraph "Pass 1 scans blocks of B elements and writes each block's total; pass 2 scans those totals; pass 3 adds them back.\n")
string(REPEAT "${paragraph}" 3 three)
string(RANDOM LENGTH 200000 RANDOM_SEED 20261206 noise)
string(RANDOM LENGTH 300 ALPHABET "ab" RANDOM_SEED 7 two_letters)
string(REPEAT "${two_letters}${paragraph}" 900 long_text)
set(empty "")
set(one "x")
set(names empty one three noise long_text)
foreach(name IN LISTS names)
  file(WRITE "${DIR}/${name}.txt" "${${name}}")
endforeach()
file(ARCHIVE_CREATE OUTPUT "${DIR}/packed.txt" PATHS "${DIR}/noise.txt" FORMAT raw COMPRESSION XZ COMPRESSION_LEVEL 0)
list(APPEND names packed)
foreach(name IN LISTS names)
  foreach(level 0 9)
    file(ARCHIVE_CREATE OUTPUT "${DIR}/${name}.${level}.xz" PATHS "${DIR}/${name}.txt" FORMAT raw COMPRESSION XZ
         COMPRESSION_LEVEL ${level} MTIME 0)
  endforeach()
endforeach()
# A tar of three of them under their names, as cmake/EmbedXz.cmake makes the shader archives.
execute_process(COMMAND ${CMAKE_COMMAND} -E tar cf "${DIR}/some.tar" --format=gnutar --mtime=1970-01-01 one.txt three.txt empty.txt
                WORKING_DIRECTORY "${DIR}" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "tar failed: ${rc}")
endif()
