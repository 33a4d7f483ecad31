// The help made from the command and option tables (command_table.hpp, options.hpp):
// `faultline help`, `faultline CMD --help`, and the lines that follow a usage error. Each
// function returns the whole text, ending with a newline; commands.cpp writes it.
#pragma once

#include <string>

#include "cli/command_table.hpp"

namespace faultline::cli {

// `faultline help`: every command with its one-line help, the common options, exit codes.
std::string usage();
// `faultline` with nothing after it: a few lines on stderr.
std::string short_usage();
// `faultline CMD --help`: the command's synopsis, options, examples and exit codes.
std::string command_help(const CommandInfo& command);
// The line that follows a usage error: where to read the help of the command the words name.
std::string help_hint(int argc, const char* const* argv);

}  // namespace faultline::cli
