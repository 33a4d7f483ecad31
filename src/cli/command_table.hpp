// The table of commands, as ninja's table of tools: one row per command of `faultline ...` with
// its name, synopsis, help, options, examples, exit codes, what it demands of its words, and the
// function that runs it. Parsing (options.cpp), the help (help.cpp), the man page
// (man_page.cpp), the shell completions (completions.cpp) and dispatch (commands.cpp) are all
// made from it, so a command is added in one row. The table is built once, on first use, and
// read only after: rows may be pointed to for the life of the process, from any thread.
#pragma once

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.hpp"
#include "cli/options.hpp"

namespace faultline::cli {

class Output;

// An option as one command takes it; `help` words it for that command when not empty.
struct CommandOption {
  std::string_view name;
  std::string_view help = {};
};

// What the words after a command's name are, for the shell completions to offer.
enum class Operands { kNone, kFiles, kRuleId, kCommandName };

// One row of the command table.
struct CommandInfo {
  std::string_view name;       // "diagnose", "rules list"
  std::string_view arguments;  // "[FILE|DIR...]"
  std::string_view summary;    // one line, for `faultline help`
  std::string_view details;    // more lines for `faultline CMD --help`, or empty
  std::vector<CommandOption> options;
  std::vector<std::string_view> examples;
  std::string_view exit_codes;  // this command's own, one per line; empty for kExitCodes
  Operands operands = Operands::kNone;
  // What the command demands of its words (options.inputs) and options once they are parsed,
  // and the defaults that depend on what was given; nullptr when it takes what it is given.
  // `given` holds the long names of the options on the command line.
  Status (*check)(Options& options, const std::set<std::string>& given) = nullptr;
  // Runs the command; returns the exit code (commands.hpp).
  int (*run)(const Options& options, Output& out) = nullptr;
};

// The exit codes of the commands that read logs, as `--help` and the README state them.
inline constexpr std::string_view kExitCodes =
    "  0  no failure found\n"
    "  1  a failure diagnosed (in any job, even when some input was skipped: it is named on stderr)\n"
    "  2  a usage error, or an input error that left nothing diagnosed\n";

const std::vector<CommandInfo>& command_table();
// The row of that name ("rules list"), or nullptr.
const CommandInfo* find_command(std::string_view name);
// `faultline --version`: a command of its own that the table, and so the help, does not list.
const CommandInfo& version_command();

// The second words of the `rules` commands ("list", "test" ...), in the table's order.
std::vector<std::string> rules_subcommands();

}  // namespace faultline::cli
