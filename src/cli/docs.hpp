// The files of the source tree made from the command and option tables, as the help is
// (help.hpp): docs/faultline.1 (man_page.cpp) and tools/completions/_faultline and
// faultline.fish (completions.cpp). A unit test (tests/unit/command_table_test.cpp) keeps the
// files equal to what these functions return; FAULTLINE_UPDATE_DOCS=1 rewrites them.
#pragma once

#include <string>

namespace faultline::cli {

// docs/faultline.1, the man page.
std::string man_page();
// The zsh and fish completions: each command, its options with their help, and the values of
// the options that have few.
std::string zsh_completion();
std::string fish_completion();

}  // namespace faultline::cli
