// Engine: Event ─▶ Finding, and Line ─▶ Finding for `scope: line` rules. Built once from a
// RuleSet, which must outlive it. Line rules are screened together with one RE2::Set pass
// per line; only the rules the set flags run their full pattern for captures. Matching is
// const and thread-safe.
#pragma once

#include <memory>
#include <vector>

#include "assemble/event.hpp"
#include "parse/line.hpp"
#include "rules/finding.hpp"
#include "rules/rule_set.hpp"

namespace re2 {
class RE2;
}

namespace faultline::rules {

class Engine {
 public:
  explicit Engine(const RuleSet& rules);
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  void match_event(const assemble::Event& event, std::vector<Finding>& out) const;
  void match_line(const parse::Line& line, uint64_t sequence, std::vector<Finding>& out) const;

  // Every pattern of every rule, one per line (for `faultline rules patterns`).
  std::vector<std::string> patterns() const;

 private:
  struct LineScreen;

  std::vector<const Rule*> message_rules_;
  std::vector<const Rule*> event_rules_;
  std::vector<const Rule*> line_rules_;
  std::vector<const Rule*> all_rules_;
  std::unique_ptr<LineScreen> line_screen_;
};

// Runs one rule against a text: captures, `unless`, `when`, then `derive`. Returns the facts
// when it matches, with the offset of the match in `text`.
struct RuleMatch {
  Facts facts;
  size_t offset = 0;
  std::string_view text;  // what the pattern matched, a view into the searched text
};
std::optional<RuleMatch> match_rule(const Rule& rule, std::string_view text);

}  // namespace faultline::rules
