# cmake -DIN=<file> -DOUT=<header> -DNAME=<identifier> -P embed_text.cmake: writes <header> with
# `static const char NAME[]`, the file's bytes and a terminating NUL, so that an installed
# program carries the text without the source tree.
file(READ ${IN} hex HEX)
string(LENGTH "${hex}" n)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," body "${hex}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n" body "${body}")
get_filename_component(src ${IN} NAME)
file(WRITE ${OUT} "/* ${src}, embedded by bench/embed_text.cmake. Do not edit. */\nstatic const char ${NAME}[] = {\n${body}0x00};\n")
