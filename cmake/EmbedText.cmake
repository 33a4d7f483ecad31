# Writes OUTPUT, a C++ source defining `const std::string_view SYMBOL` (in namespace faultline)
# that holds the bytes of INPUT, so that data shipped in the repository is compiled in.
# Run as: cmake -DINPUT=... -DOUTPUT=... -DSYMBOL=... -P EmbedText.cmake
file(READ "${INPUT}" text HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "'\\\\x\\1'," bytes "${text}")
file(WRITE "${OUTPUT}" "// Generated from ${INPUT} by cmake/EmbedText.cmake; do not edit.\n#include <string_view>\nnamespace faultline {\nnamespace {\nconstexpr char kBytes[] = {${bytes} 0};\n}\nextern const std::string_view ${SYMBOL}(kBytes, sizeof kBytes - 1);\n}  // namespace faultline\n")
