# Writes the bytes of IN as a C initializer list (0x.., 0x..) to OUT: the builtins header goes
# into libvmgpu-opencl.so, so an installed ICD needs no file beside it.
file(READ "${IN}" hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," body "${hex}")
string(REGEX REPLACE ",$" "" body "${body}")
file(WRITE "${OUT}" "${body}\n")
