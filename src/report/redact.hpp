// Redaction (`--redact`): takes the final text of a report (any format, stdout or stderr) and
// gives it back with hostnames, IP and MAC addresses, user names in home paths, e-mail addresses
// and tokens or secrets masked. It comes after the renderers and before the terminal: the cli's
// Output wraps it, so that nothing printed escapes it.
//
// Replacements are plain ASCII without quotes, backslashes, ampersands or angle brackets
// (`host-1`, `IP-2`, `MAC-1`, `USER`, `EMAIL`, `REDACTED`), so a redacted JSON, SARIF or HTML
// report stays well formed. Hosts, IPs and MACs get aliases numbered in order of first
// appearance, the same address always the same alias within one Redactor, so a report still
// tells hosts apart. Plain numbers (ranks, sizes, SeqNums, pids) are never masked.
//
// A Redactor is not thread-safe; its compiled patterns are shared and built once.
#pragma once

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace faultline::report {

class Redactor {
 public:
  // Names the job's analysis knows as hosts (JobShape::hosts, finding hosts): masked wherever
  // they appear as a whole word. Names that are too short or all digits are ignored.
  void add_hosts(const std::vector<std::string>& hosts);
  std::string redact(std::string_view text);

  // The alias of `name` ("host-1"), assigning the next one on first use.
  const std::string& host_alias(const std::string& name);

 private:
  const std::string& alias(std::map<std::string, std::string>& aliases, const std::string& prefix,
                           const std::string& name);
  // The steps of redact() after the secrets, in its order: each masks what it knows and learns
  // the user names and hosts that mask_words then masks everywhere.
  std::string mask_people(std::string text);
  std::string mask_addresses(std::string text);
  std::string mask_host_assignments(std::string text);
  std::string mask_words(std::string_view text);

  std::set<std::string> hosts_;
  std::set<std::string> user_names_;  // learned from /home/NAME and /Users/NAME
  std::map<std::string, std::string> host_aliases_;
  std::map<std::string, std::string> ip_aliases_;
  std::map<std::string, std::string> mac_aliases_;
};

}  // namespace faultline::report
