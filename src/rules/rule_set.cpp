#include "rules/rule_set.hpp"

#include <algorithm>
#include <filesystem>

#include "rules/embedded_packs.hpp"
#include "rules/pack_codec.hpp"

namespace faultline::rules {

const char* to_string(Role role) {
  switch (role) {
    case Role::kRootCause:
      return "root_cause";
    case Role::kSymptom:
      return "symptom";
    case Role::kRecovery:
      return "recovery";
    case Role::kFact:
      return "fact";
  }
  return "root_cause";
}

const char* to_string(Scope scope) {
  switch (scope) {
    case Scope::kMessage:
      return "message";
    case Scope::kEvent:
      return "event";
    case Scope::kLine:
      return "line";
  }
  return "message";
}

RuleSet RuleSet::shipped() {
  // The packs were loaded from YAML and validated when faultline was built (src/rules/packc.cpp),
  // their patterns compiled and checked there: here each pattern waits for its first use, and
  // decoding is copying text (about a millisecond for every pack).
  RuleSet set;
  set.prebuilt_literals_ = shipped_rule_literals();
  for (const auto& pack : embedded_packs()) {
    auto rules = decode_rules(pack.encoded, PatternCompile::kOnFirstUse);
    if (!rules) {
      set.errors_.push_back(std::string(pack.name) +
                            " (compiled into faultline): " + rules.status().message());
      continue;
    }
    set.add_rules(std::move(*rules));
  }
  return set;
}

void RuleSet::add_directory(const std::string& directory) {
  namespace fs = std::filesystem;
  std::error_code error;
  std::vector<std::string> files;
  if (fs::is_regular_file(directory, error)) {
    files.push_back(directory);
  } else if (fs::is_directory(directory, error)) {
    for (const auto& entry : fs::directory_iterator(directory, error)) {
      auto extension = entry.path().extension();
      if (extension == ".yaml" || extension == ".yml") files.push_back(entry.path().string());
    }
    std::sort(files.begin(), files.end());
  } else {
    errors_.push_back(directory + ": no such rule directory or file");
    return;
  }
  for (const auto& file : files) {
    auto rules = load_pack_file(file);
    if (!rules) {
      errors_.push_back(rules.status().message());
      continue;
    }
    add_rules(std::move(*rules));
  }
}

void RuleSet::add_rules(std::vector<Rule> rules) {
  for (auto& rule : rules) {
    storage_.push_back(std::move(rule));
    const Rule* added = &storage_.back();
    auto same_id =
        std::find_if(order_.begin(), order_.end(), [&](const Rule* r) { return r->id == added->id; });
    if (same_id != order_.end()) {
      *same_id = added;
    } else {
      order_.push_back(added);
    }
  }
}

const Rule* RuleSet::find(std::string_view id) const {
  for (const Rule* rule : order_) {
    if (rule->id == id) return rule;
  }
  return nullptr;
}

}  // namespace faultline::rules
