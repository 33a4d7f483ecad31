// `--redact`: an Output that passes everything written through it to another Output after the
// Redactor (report/redact.hpp) has masked it. One Redactor serves the whole run, so a host keeps
// its alias from stderr to stdout and from one scan line to the next. Thread-safe: writes and
// learn_hosts take a lock; the wrapped Output must outlive this one.
#pragma once

#include <mutex>

#include "cli/output.hpp"
#include "report/redact.hpp"

namespace faultline::cli {

class RedactingOutput final : public Output {
 public:
  explicit RedactingOutput(Output& inner) : inner_(inner) {}
  void out(std::string_view text) override {
    std::lock_guard lock(mutex_);
    inner_.out(redactor_.redact(text));
  }
  void err(std::string_view text) override {
    std::lock_guard lock(mutex_);
    inner_.err(redactor_.redact(text));
  }
  bool out_is_terminal() const override { return inner_.out_is_terminal(); }
  bool in_is_terminal() const override { return inner_.in_is_terminal(); }
  bool err_is_terminal() const override { return inner_.err_is_terminal(); }
  void learn_hosts(const std::vector<std::string>& hosts) override {
    std::lock_guard lock(mutex_);
    redactor_.add_hosts(hosts);
  }

 private:
  Output& inner_;
  std::mutex mutex_;
  report::Redactor redactor_;
};

}  // namespace faultline::cli
