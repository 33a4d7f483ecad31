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
if(FAULTLINE_UBSAN)
  target_compile_options(faultline_flags INTERFACE -fsanitize=undefined -fno-sanitize-recover=undefined)
  target_link_options(faultline_flags INTERFACE -fsanitize=undefined)
endif()
