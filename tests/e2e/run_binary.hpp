// Runs the faultline binary as a user would, capturing stdout, stderr and the exit code.
#pragma once

#include <string>
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

std::string source_dir();
std::string binary_dir();

}  // namespace faultline::testing
