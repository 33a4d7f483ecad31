# faultline_setup(target): warnings and sanitizers shared by every target of the project.
add_library(faultline_flags INTERFACE)
target_compile_options(faultline_flags INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion
  -Wnon-virtual-dtor -Wold-style-cast -Woverloaded-virtual -Wimplicit-fallthrough)
if(FAULTLINE_WERROR)
  target_compile_options(faultline_flags INTERFACE -Werror)
endif()
if(FAULTLINE_ASAN)
  target_compile_options(faultline_flags INTERFACE -fsanitize=address -fno-omit-frame-pointer)
  target_link_options(faultline_flags INTERFACE -fsanitize=address)
endif()
# UBSan stops at its first report (-fno-sanitize-recover=all), so a test or a corpus run that trips
# it fails instead of printing and going on. GCC leaves float-cast-overflow out of 'undefined'
# (clang has it in): it is named, as an out-of-range double to integer is as undefined as the rest.
if(FAULTLINE_UBSAN)
  set(faultline_ubsan -fsanitize=undefined)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    list(APPEND faultline_ubsan -fsanitize=float-cast-overflow)
  endif()
  target_compile_options(faultline_flags INTERFACE ${faultline_ubsan} -fno-sanitize-recover=all)
  target_link_options(faultline_flags INTERFACE ${faultline_ubsan})
endif()
# The fuzz targets (tests/fuzz) link libFuzzer; the code they reach is built with its coverage.
if(FAULTLINE_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "FAULTLINE_FUZZ needs clang (-DCMAKE_CXX_COMPILER=clang++-14): libFuzzer is clang's")
  endif()
  target_compile_options(faultline_flags INTERFACE -fsanitize=fuzzer-no-link)
endif()
