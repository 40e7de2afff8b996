# Writes a C++ source defining `std::string_view <FUNCTION>()` that returns
# the bytes of INPUT, as a byte array (any content is safe, unlike a raw
# string literal). Run with:
#   cmake -DINPUT=... -DOUTPUT=... -DFUNCTION=... -P embed_file.cmake
file(READ "${INPUT}" hex HEX)
string(LENGTH "${hex}" hex_length)
math(EXPR size "${hex_length} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n" bytes "${bytes}")
file(WRITE "${OUTPUT}" "// Generated from ${INPUT} by cmake/embed_file.cmake; do not edit.\n"
  "#include <string_view>\n\nnamespace arbiter::server {\nnamespace {\n"
  "constexpr unsigned char kBytes[] = {\n${bytes}0};\n}  // namespace\n\n"
  "std::string_view ${FUNCTION}() { return std::string_view(reinterpret_cast<const char*>(kBytes), ${size}); }\n\n}  // namespace arbiter::server\n")
