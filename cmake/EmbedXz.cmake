# cmake -DFILES=a,b,... -DOUT=file -P EmbedXz.cmake, run where the files are: packs FILES into a tar archive
# compressed with xz (LZMA2, level 9; no time stamps, so the bytes depend on the contents only) and writes it
# to OUT as a C initializer list of bytes. The library unpacks it where it is used (src/core/xz.hpp).
string(REPLACE "," ";" files "${FILES}")
file(ARCHIVE_CREATE OUTPUT "${OUT}.tar.xz" PATHS ${files} FORMAT gnutar COMPRESSION XZ COMPRESSION_LEVEL 9 MTIME 0)
file(READ "${OUT}.tar.xz" hex HEX)
file(REMOVE "${OUT}.tar.xz")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
file(WRITE "${OUT}" "{${bytes}}")
