// `diagnose --verify`: takes a diagnosis' verify command (the rule's `verify` template with the
// facts filled in) and, when it is a `faultline preflight` or `faultline repro` command, runs it
// inside this process; gives a report::Verification that the report renders after the
// diagnosis. Any other command (nvidia-smi, NCCL tests, a launcher) is the user's to run:
// the Verification then says so instead of running it. Nothing here goes through a shell.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/status.hpp"
#include "report/report.hpp"
#include "rules/rule_set.hpp"

namespace faultline::cli {

// Splits a command line into words as a POSIX shell does for a simple command, without
// expanding anything: blanks separate words; single quotes keep every character; double
// quotes keep every character but \" and \\ (and \$, \`); a backslash outside quotes keeps
// the next character; `#` at the start of a word begins a comment. A command that needs the
// shell is refused with the character and its column (1-based): an operator (; | & > < ( ) or
// a newline), an expansion ($ or ` outside single quotes) or a glob (* ?), and an
// unterminated quote.
Result<std::vector<std::string>> split_command(std::string_view command);

// Runs `command` when it is `faultline preflight ...` or `faultline repro ...` (the CPU
// backend), with this process's rules; its stdout and stderr are captured, not printed.
// Refused, with the reason in `output`: other programs, other faultline commands, commands
// that need the shell, `--backend cuda`, and a --config or --gpus file that does not exist
// (said plainly, rather than left to fail inside the command).
report::Verification run_verify(const std::string& command, const rules::RuleSet& rules);

}  // namespace faultline::cli
