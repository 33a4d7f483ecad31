#include "rules/engine.hpp"

#include <re2/re2.h>
#include <re2/set.h>

#include <algorithm>

namespace faultline::rules {

struct Engine::LineScreen {
  RE2::Set set{RE2::Options(), RE2::UNANCHORED};
  std::vector<const Rule*> rule_of_pattern;
  bool compiled = false;
};

std::optional<RuleMatch> match_rule(const Rule& rule, std::string_view text) {
  re2::StringPiece input(text.data(), text.size());
  for (const auto& pattern : rule.match) {
    const RE2& regex = *pattern.regex;
    std::vector<re2::StringPiece> groups(static_cast<size_t>(regex.NumberOfCapturingGroups()) + 1);
    if (!regex.Match(input, 0, input.size(), RE2::UNANCHORED, groups.data(), static_cast<int>(groups.size()))) {
      continue;
    }
    bool vetoed = std::any_of(rule.unless.begin(), rule.unless.end(),
                              [&](const Pattern& veto) { return RE2::PartialMatch(input, *veto.regex); });
    if (vetoed) return std::nullopt;
    RuleMatch match;
    match.offset = static_cast<size_t>(groups[0].data() - input.data());
    match.text = std::string_view(groups[0].data(), groups[0].size());
    for (const auto& [name, index] : pattern.captures) {
      const auto& group = groups[static_cast<size_t>(index)];
      if (group.data() == nullptr) continue;  // optional group that did not take part
      set_fact(match.facts, name, value_from_capture(std::string_view(group.data(), group.size())));
    }
    for (const auto& [name, expression] : rule.derive) {
      if (auto value = expression.evaluate(match.facts)) set_fact(match.facts, name, std::move(*value));
    }
    if (rule.when) {
      auto condition = rule.when->evaluate(match.facts);
      // A condition that needs a fact this pattern did not capture does not veto.
      if (condition && !is_true(*condition)) return std::nullopt;
    }
    return match;
  }
  return std::nullopt;
}

namespace {

Finding make_finding(const Rule& rule, RuleMatch&& match, int rank, int local_rank,
                     std::string host, int64_t pid, const Timestamp& time, uint64_t sequence) {
  Finding finding;
  finding.rule = &rule;
  finding.rank = rank;
  finding.local_rank = local_rank;
  finding.host = std::move(host);
  finding.pid = pid;
  finding.time = time;
  finding.sequence = sequence;
  finding.facts = std::move(match.facts);
  // A rule may capture the rank a message names ("Shard 0 failed", "[Rank 3]").
  if (finding.rank < 0) {
    if (const Value* named = find_fact(finding.facts, "rank"); named && std::holds_alternative<int64_t>(*named)) {
      finding.rank = static_cast<int>(std::get<int64_t>(*named));
    }
  }
  return finding;
}

size_t line_index_at(const std::string& text, size_t offset) {
  return static_cast<size_t>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(offset), '\n'));
}

}  // namespace

Engine::Engine(const RuleSet& rules) : line_screen_(std::make_unique<LineScreen>()) {
  for (const Rule* rule : rules.rules()) {
    all_rules_.push_back(rule);
    switch (rule->scope) {
      case Scope::kMessage: message_rules_.push_back(rule); break;
      case Scope::kEvent: event_rules_.push_back(rule); break;
      case Scope::kLine:
        line_rules_.push_back(rule);
        for (const auto& pattern : rule->match) {
          std::string error;
          if (line_screen_->set.Add(pattern.text, &error) >= 0) {
            line_screen_->rule_of_pattern.push_back(rule);
          }
        }
        break;
    }
  }
  if (!line_rules_.empty()) line_screen_->compiled = line_screen_->set.Compile();
}

Engine::~Engine() = default;

void Engine::match_event(const assemble::Event& event, std::vector<Finding>& out) const {
  if (event.lines.empty()) return;
  auto evidence_at = [&](size_t index) {
    const auto& line = event.lines[std::min(index, event.lines.size() - 1)];
    return Evidence{line.source, line.number, event.rank, line.display};
  };
  for (const Rule* rule : message_rules_) {
    if (event.message.empty()) break;
    auto match = match_rule(*rule, event.message);
    if (!match) continue;
    std::string matched(match->text);
    Finding finding = make_finding(*rule, std::move(*match), event.rank, event.local_rank, event.host,
                                   event.pid, event.time, event.sequence);
    finding.time_inherited = event.time_inherited;
    finding.matched = std::move(matched);
    finding.evidence.push_back(evidence_at(event.message_line));
    out.push_back(std::move(finding));
  }
  if (event_rules_.empty()) return;
  std::string text = event.full_text();
  for (const Rule* rule : event_rules_) {
    auto match = match_rule(*rule, text);
    if (!match) continue;
    size_t index = line_index_at(text, match->offset);
    std::string matched(match->text);
    Finding finding = make_finding(*rule, std::move(*match), event.rank, event.local_rank, event.host,
                                   event.pid, event.time, event.sequence);
    finding.time_inherited = event.time_inherited;
    finding.matched = std::move(matched);
    finding.evidence.push_back(evidence_at(index));
    if (!event.message.empty() && event.message_line != index) finding.evidence.push_back(evidence_at(event.message_line));
    out.push_back(std::move(finding));
  }
}

void Engine::match_line(const parse::Line& line, uint64_t sequence, std::vector<Finding>& out) const {
  if (!line_screen_->compiled || line.text.empty()) return;
  std::vector<int> hits;
  if (!line_screen_->set.Match(re2::StringPiece(line.text.data(), line.text.size()), &hits)) return;
  std::vector<const Rule*> flagged;
  for (int hit : hits) flagged.push_back(line_screen_->rule_of_pattern[static_cast<size_t>(hit)]);
  std::sort(flagged.begin(), flagged.end());
  flagged.erase(std::unique(flagged.begin(), flagged.end()), flagged.end());
  for (const Rule* rule : flagged) {
    auto match = match_rule(*rule, line.text);
    if (!match) continue;
    std::string matched(match->text);
    Finding finding = make_finding(*rule, std::move(*match), line.rank, line.local_rank,
                                   std::string(line.host), line.pid, line.time, sequence);
    finding.time_inherited = line.time_inherited;
    finding.matched = std::move(matched);
    finding.evidence.push_back({line.source, line.number, finding.rank, std::string(line.display)});
    out.push_back(std::move(finding));
  }
}

std::vector<std::string> Engine::patterns() const {
  std::vector<std::string> out;
  for (const Rule* rule : all_rules_) {
    for (const auto& pattern : rule->match) out.push_back(pattern.text);
  }
  return out;
}

}  // namespace faultline::rules
