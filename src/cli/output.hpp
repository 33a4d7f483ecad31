// Output: where commands write. stdout and stderr in the binary, strings in tests. A closed
// pipe (`faultline ... | head`) is not an error: writing stops quietly.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace faultline::cli {

class Output {
 public:
  virtual ~Output() = default;
  virtual void out(std::string_view text) = 0;
  virtual void err(std::string_view text) = 0;
  virtual bool out_is_terminal() const { return false; }
  virtual bool in_is_terminal() const { return false; }
  virtual bool err_is_terminal() const { return false; }
  // Hosts the job's analysis knows, told before its report is written: a redacting output
  // (redacting_output.hpp) masks them; others ignore them.
  virtual void learn_hosts(const std::vector<std::string>& /*hosts*/) {}
};

class StringOutput final : public Output {
 public:
  void out(std::string_view text) override { stdout_text += text; }
  void err(std::string_view text) override { stderr_text += text; }
  std::string stdout_text;
  std::string stderr_text;
};

}  // namespace faultline::cli
