// RuleSet: the rules of one run. The packs compiled into the binary, then the packs of each
// `--rules DIR`, where a rule with the id of an earlier one replaces it. A pack with errors
// is rejected whole and its errors kept, so the run goes on with the rest.
#pragma once

#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.hpp"
#include "rules/rule.hpp"

namespace faultline::rules {

// Parses and validates one pack. `origin` names it in errors ("rules/x.yaml"). Errors, one
// per line, read "rules/x.yaml:12:7: unknown key 'severty'".
Result<std::vector<Rule>> load_pack(std::string_view yaml_text, const std::string& origin);
Result<std::vector<Rule>> load_pack_file(const std::string& path);

class RuleSet {
 public:
  // The shipped packs, as faultline-packc compiled them from rules/*.yaml when faultline was
  // built: no YAML is parsed. A pack that fails to decode is a build defect; its errors are
  // kept like any other.
  static RuleSet shipped();

  // Adds every *.yaml in `directory` (or the file itself), replacing rules by id.
  void add_directory(const std::string& directory);
  void add_rules(std::vector<Rule> rules);

  // In load order; pointers stay valid for the RuleSet's lifetime.
  const std::vector<const Rule*>& rules() const { return order_; }
  const Rule* find(std::string_view id) const;
  const std::vector<std::string>& errors() const { return errors_; }
  // The shipped rules' planned literals (rules/rule_literals.hpp; rules::Engine takes them only
  // while the rules are still those); empty for a set not made by shipped().
  std::string_view prebuilt_literals() const { return prebuilt_literals_; }

 private:
  std::deque<Rule> storage_;  // stable addresses
  std::vector<const Rule*> order_;
  std::vector<std::string> errors_;
  std::string_view prebuilt_literals_;
};

}  // namespace faultline::rules
