// Runs the faultline binary as a user would, capturing stdout, stderr and the exit code.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace faultline::testing {

struct RunResult {
  int exit_code = -1;  // -1 when the process did not exit normally (a crash)
  int signal = 0;
  std::string out;
  std::string err;
};

// `arguments` follow the binary; `stdin_text` is fed to its standard input.
RunResult run_faultline(const std::vector<std::string>& arguments, const std::string& stdin_text = "");
// The same, with `directory` as the binary's working directory (relative paths in `arguments`
// are then read from there, and the report names them as given).
RunResult run_faultline_in(const std::string& directory, const std::vector<std::string>& arguments,
                           const std::string& stdin_text = "");

std::string source_dir();
std::string binary_dir();
// tests/schema's validators are installed (`npm install` there; tools/test.sh does it).
bool have_schema_validators();

// The log of corpus case `name` (a folder of corpus/).
std::string corpus_log(const std::string& name);
// Runs a shell command; returns its exit status (-1 when it did not exit normally) and stdout.
std::pair<int, std::string> shell(const std::string& command);

}  // namespace faultline::testing
