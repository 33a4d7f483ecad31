// Reads what the tests need from a `--format json` report and from a case's expected.yaml.
#pragma once

#include <map>
#include <optional>
#include <string>

namespace faultline::testing {

struct Outcome {
  std::string cause;  // "negative" when the report has no diagnosis
  std::optional<int> initiating_rank;
  std::map<std::string, std::string> facts;  // values as displayed ("1, 2, 4")
  bool parsed = false;
  std::string error;
};

Outcome outcome_from_report(const std::string& json_text);
// expected.yaml (corpus/) or meta.yaml (shared/corpus-real).
Outcome outcome_from_yaml(const std::string& path);

}  // namespace faultline::testing
