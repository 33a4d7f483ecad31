#include "rules/engine.hpp"

#include <re2/re2.h>
#include <re2/set.h>

#include <algorithm>
#include <map>

#include "base/text.hpp"
#include "rules/rule_literals.hpp"
#include "rules/template_match.hpp"

namespace faultline::rules {

namespace {

RE2::Options set_options() {
  RE2::Options options;
  options.set_log_errors(false);
  options.set_max_mem(int64_t{64} << 20);
  return options;
}

// Whether a pattern holds ^ or $ outside a character class and unescaped: such a pattern
// may match a line's cleaned text without matching the raw block.
bool is_anchored(std::string_view pattern) {
  bool in_class = false;
  for (size_t i = 0; i < pattern.size(); ++i) {
    char c = pattern[i];
    if (c == '\\') {
      ++i;
    } else if (in_class) {
      in_class = c != ']';
    } else if (c == '[') {
      in_class = true;
      if (i + 1 < pattern.size() && pattern[i + 1] == '^') ++i;
      if (i + 1 < pattern.size() && pattern[i + 1] == ']') ++i;
    } else if (c == '^' || c == '$') {
      return true;
    }
  }
  return false;
}

}  // namespace

struct Engine::LineScreen {
  RE2::Set line_set{set_options(), RE2::UNANCHORED};   // every line-rule pattern, per line
  RE2::Set block_set{set_options(), RE2::UNANCHORED};  // the screenable ones, per block
  std::vector<const Rule*> rule_of_line_pattern;
  std::vector<const Rule*> rule_of_block_pattern;
  std::vector<const Rule*> unscreenable;  // rules with an anchored pattern
  bool line_compiled = false;
  bool block_compiled = false;
};

namespace {

// The frame's `FILE in FUNCTION`: what stays when code above it moves.
std::string frame_site(std::string_view frame) {
  std::string_view header = frame.substr(0, frame.find('\n'));
  size_t file_begin = header.find('"');
  size_t file_end = file_begin == std::string_view::npos ? file_begin : header.find('"', file_begin + 1);
  size_t in = header.rfind(", in ");
  if (file_end == std::string_view::npos || in == std::string_view::npos) return std::string(header);
  std::string_view file = header.substr(file_begin + 1, file_end - file_begin - 1);
  return std::string(file) + " in " + std::string(header.substr(in + 5));
}

TemplateCache& template_cache() {
  thread_local TemplateCache cache;
  return cache;
}

// Runs `pattern` on `text`; a pattern that treats every digit alike reuses its result on the
// text's template where this thread met that template before (template_match.hpp).
bool match_groups(const Pattern& pattern, std::string_view text, std::vector<re2::StringPiece>& groups) {
  const RE2& regex = pattern.regex();
  groups.assign(static_cast<size_t>(regex.NumberOfCapturingGroups()) + 1, re2::StringPiece());
  re2::StringPiece input(text.data(), text.size());
  if (!pattern.digit_uniform()) {
    return regex.Match(input, 0, input.size(), RE2::UNANCHORED, groups.data(),
                       static_cast<int>(groups.size()));
  }
  TemplateCache& cache = template_cache();
  if (const TemplateCache::Result* cached = cache.find(pattern.serial(), text)) {
    if (!cached->matched) return false;
    for (size_t i = 0; i < groups.size() && i < cached->groups.size(); ++i) {
      const auto& span = cached->groups[i];
      if (span.begin >= 0)
        groups[i] = re2::StringPiece(text.data() + span.begin, static_cast<size_t>(span.size));
    }
    return true;
  }
  TemplateCache::Result result;
  result.matched =
      regex.Match(input, 0, input.size(), RE2::UNANCHORED, groups.data(), static_cast<int>(groups.size()));
  if (result.matched) {
    for (const auto& group : groups) {
      if (group.data() == nullptr) {
        result.groups.push_back({});
      } else {
        result.groups.push_back(
            {static_cast<int32_t>(group.data() - text.data()), static_cast<int32_t>(group.size())});
      }
    }
  }
  bool matched = result.matched;
  cache.store(pattern.serial(), text, std::move(result));
  return matched;
}

// Whether `pattern` matches anywhere in `text` (an `unless` veto): no groups, so RE2 needs no
// submatch engine; cached as match_groups is, under a key of its own (no groups kept).
bool matches_anywhere(const Pattern& pattern, std::string_view text) {
  re2::StringPiece input(text.data(), text.size());
  if (!pattern.digit_uniform()) return RE2::PartialMatch(input, pattern.regex());
  constexpr uint64_t kWithoutGroups = uint64_t{1} << 63;
  TemplateCache& cache = template_cache();
  if (const TemplateCache::Result* cached = cache.find(pattern.serial() | kWithoutGroups, text))
    return cached->matched;
  TemplateCache::Result result;
  result.matched = RE2::PartialMatch(input, pattern.regex());
  cache.store(pattern.serial() | kWithoutGroups, text, result);
  return result.matched;
}

bool captures_into(const Pattern& pattern, std::string_view text, Facts& facts, size_t* offset = nullptr,
                   std::string_view* matched = nullptr) {
  thread_local std::vector<re2::StringPiece> groups;
  if (!match_groups(pattern, text, groups)) return false;
  if (offset) *offset = static_cast<size_t>(groups[0].data() - text.data());
  if (matched) *matched = std::string_view(groups[0].data(), groups[0].size());
  for (const auto& [name, index] : pattern.captures) {
    const auto& group = groups[static_cast<size_t>(index)];
    if (group.data() == nullptr) continue;  // optional group that did not take part
    set_fact(facts, name, value_from_capture(std::string_view(group.data(), group.size())));
  }
  return true;
}

// The nearest frame that one of the rule's frame patterns matches, its captures added to `match`.
// Frames that skip_frames names are passed by, unless no other frame matches.
bool match_frames(const Rule& rule, const std::vector<std::string>& frames, RuleMatch& match) {
  for (bool skipping : {true, false}) {
    for (size_t index = 0; index < frames.size(); ++index) {
      const std::string& frame = frames[index];
      bool skipped = skipping &&
                     std::any_of(rule.skip_frames.begin(), rule.skip_frames.end(),
                                 [&](const Pattern& skip) { return RE2::PartialMatch(frame, skip.regex()); });
      if (skipped) continue;
      for (const auto& pattern : rule.frames) {
        if (!captures_into(pattern, frame, match.facts)) continue;
        match.frame = index;
        match.frame_site = frame_site(frame);
        return true;
      }
    }
    if (rule.skip_frames.empty()) break;
  }
  return false;
}

using assemble::is_frame_header;

}  // namespace

LinePriorities::LinePriorities(const std::vector<Finding>& findings) {
  highest_.reserve(findings.size());
  for (const auto& finding : findings) {
    // A fact the line states (`tp_size=4`) is data, not a diagnosis: it outranks no rule there.
    if (finding.evidence.empty() || finding.rule->role == Role::kFact) continue;
    const Evidence& first = finding.evidence.front();
    highest_.push_back({{first.source, first.line}, finding.rule->priority});
  }
  // By line, the highest priority first: the first entry of each line is the one kept.
  std::sort(highest_.begin(), highest_.end(), [](const Held& a, const Held& b) {
    return a.first != b.first ? a.first < b.first : a.second > b.second;
  });
  highest_.erase(std::unique(highest_.begin(), highest_.end(),
                             [](const Held& a, const Held& b) { return a.first == b.first; }),
                 highest_.end());
}

// A catch-all over a whole event yields to a line rule that knew the event's message line.
bool LinePriorities::yields(const Finding& finding) const {
  if (finding.rule->role == Role::kFact) return false;
  return std::any_of(finding.evidence.begin(), finding.evidence.end(), [&](const Evidence& evidence) {
    std::pair<uint32_t, uint64_t> line{evidence.source, evidence.line};
    auto it = std::lower_bound(highest_.begin(), highest_.end(), line,
                               [](const Held& held, const auto& key) { return held.first < key; });
    return it != highest_.end() && it->first == line && finding.rule->priority < it->second;
  });
}

void keep_highest_priority(std::vector<Finding>& findings) {
  LinePriorities priorities(findings);
  std::erase_if(findings, [&](const Finding& finding) { return priorities.yields(finding); });
}

namespace {

// Python's "^^^^" / "~~~^^^" under a code line.
bool is_marker(std::string_view text) {
  return !text.empty() && text.find_first_not_of("^~ ") == std::string_view::npos;
}

// A line of source code: indented, and no header, marker or traceback header.
bool is_code_line(std::string_view line) {
  std::string_view text = trim(line);
  return !line.empty() && is_space(line.front()) && !text.empty() && !is_marker(text) &&
         !is_frame_header(text) && !text.starts_with("Traceback ");
}

}  // namespace

std::vector<std::string> traceback_frames(const assemble::Event& event) {
  std::vector<std::string> frames;
  size_t end = event.message.empty() ? event.lines.size() : std::min(event.message_line, event.lines.size());
  for (size_t i = 0; i < end; ++i) {
    std::string_view text = trim(event.lines[i].text);
    // The code line of a frame whose header a paste cut off above it: a frame of source alone.
    if (i == 0 && is_code_line(event.lines[i].text)) {
      frames.push_back("\n" + std::string(text));
      continue;
    }
    if (!is_frame_header(text)) continue;
    std::string frame(text);
    size_t next = i + 1;
    // Its source line, indented or not (a paste may have lost the indentation).
    if (std::string_view source = next < end ? trim(event.lines[next].text) : std::string_view();
        !source.empty() && !is_marker(source) && !is_frame_header(source) &&
        !source.starts_with("Traceback ")) {
      frame += '\n';
      frame += source;
      ++next;
    }
    frames.push_back(std::move(frame));
    // More code lines under one frame: the frames below it whose headers the paste lost, each a
    // frame of source alone (an assert under its caller's line).
    for (; next < end && !is_frame_header(trim(event.lines[next].text)); ++next) {
      std::string_view line = event.lines[next].text;
      if (is_code_line(line)) {
        frames.push_back("\n" + std::string(trim(line)));
      } else if (!is_marker(trim(line))) {
        break;
      }
    }
    i = next - 1;
  }
  std::reverse(frames.begin(), frames.end());
  return frames;
}

std::optional<RuleMatch> match_rule(const Rule& rule, std::string_view text,
                                    const std::vector<std::string>& frames) {
  for (const auto& pattern : rule.match) {
    RuleMatch match;
    if (!captures_into(pattern, text, match.facts, &match.offset, &match.text)) continue;
    bool vetoed = std::any_of(rule.unless.begin(), rule.unless.end(),
                              [&](const Pattern& veto) { return matches_anywhere(veto, text); });
    if (vetoed) return std::nullopt;
    if (!rule.frames.empty() && !match_frames(rule, frames, match)) return std::nullopt;
    for (const auto& [name, expression] : rule.derive) {
      if (auto value = expression.evaluate(match.facts)) set_fact(match.facts, name, std::move(*value));
    }
    if (rule.when) {
      auto condition = rule.when->evaluate(match.facts);
      // A condition that needs a fact this pattern did not capture does not veto; a false
      // one lets the rule's other patterns try.
      if (condition && !is_true(*condition)) continue;
    }
    return match;
  }
  return std::nullopt;
}

namespace {

Finding make_finding(const Rule& rule, RuleMatch&& match, int rank, int local_rank, std::string host,
                     int64_t pid, const Timestamp& time, uint64_t sequence) {
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
    if (const Value* named = find_fact(finding.facts, "rank");
        named && std::holds_alternative<int64_t>(*named)) {
      finding.rank = static_cast<int>(std::get<int64_t>(*named));
    }
  }
  return finding;
}

size_t line_index_at(const std::string& text, size_t offset) {
  return static_cast<size_t>(
      std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(offset), '\n'));
}

}  // namespace

Engine::Engine(const RuleSet& rules) : prebuilt_literals_(rules.prebuilt_literals()) {
  for (const Rule* rule : rules.rules()) {
    all_rules_.push_back(rule);
    switch (rule->scope) {
      case Scope::kMessage:
        message_rules_.push_back(rule);
        break;
      case Scope::kEvent:
        event_rules_.push_back(rule);
        break;
      case Scope::kLine:
        line_rules_.push_back(rule);
        break;
    }
  }
}

// The RE2 sets are compiled when first needed: a read screened by literals never needs them.
const Engine::LineScreen& Engine::line_screen() const {
  std::call_once(line_screen_once_, [this] {
    line_screen_ = std::make_unique<LineScreen>();
    LineScreen& screen = *line_screen_;
    for (const Rule* rule : line_rules_) {
      bool anchored = false;
      for (const auto& pattern : rule->match) {
        std::string error;
        if (screen.line_set.Add(pattern.text, &error) >= 0) screen.rule_of_line_pattern.push_back(rule);
        anchored = anchored || is_anchored(pattern.text);
      }
      if (anchored) {
        screen.unscreenable.push_back(rule);
        continue;
      }
      for (const auto& pattern : rule->match) {
        std::string error;
        if (screen.block_set.Add(pattern.text, &error) >= 0) screen.rule_of_block_pattern.push_back(rule);
      }
    }
    if (!line_rules_.empty()) {
      screen.line_compiled = screen.line_set.Compile();
      screen.block_compiled = !screen.rule_of_block_pattern.empty() && screen.block_set.Compile();
    }
  });
  return *line_screen_;
}

Engine::BlockScreen Engine::screen_block(std::string_view block) const {
  BlockScreen screen;
  if (line_rules_.empty()) {
    screen.all = false;
    return screen;
  }
  const LineScreen& sets = line_screen();
  if (!sets.block_compiled) return screen;
  std::vector<int> hits;
  RE2::Set::ErrorInfo error{};
  bool matched = sets.block_set.Match(re2::StringPiece(block.data(), block.size()), &hits, &error);
  if (!matched && error.kind != RE2::Set::kNoError) return screen;  // out of DFA memory: check per line
  screen.all = false;
  screen.rules = sets.unscreenable;
  for (int hit : hits) screen.rules.push_back(sets.rule_of_block_pattern[static_cast<size_t>(hit)]);
  std::sort(screen.rules.begin(), screen.rules.end());
  screen.rules.erase(std::unique(screen.rules.begin(), screen.rules.end()), screen.rules.end());
  return screen;
}

Engine::~Engine() = default;

void Engine::match_event(const assemble::Event& event, std::vector<Finding>& out,
                         const OwnerFinder* find_owners) const {
  if (event.lines.empty()) return;
  auto evidence_at = [&](size_t index) {
    const auto& line = event.lines[std::min(index, event.lines.size() - 1)];
    return Evidence{line.source, line.number, event.rank, line.display};
  };
  auto finding_of = [&](const Rule& rule, RuleMatch&& match) {
    std::string matched(match.text);
    // A rule that names a frame tells failures apart by where they happened too.
    if (!match.frame_site.empty()) matched += " @ " + match.frame_site;
    Finding finding = make_finding(rule, std::move(match), event.rank, event.local_rank, event.host,
                                   event.pid, event.time, event.sequence);
    finding.time_inherited = event.time_inherited;
    finding.device = event.device;
    finding.matched = std::move(matched);
    finding.logged_at = event.logged_at;
    return finding;
  };
  struct Found {
    Finding finding;
    size_t frame = 0;  // of a rule with `frames`
  };
  std::vector<Found> found;
  std::optional<std::vector<std::string>> frames;  // read once, for the first rule with `frames`
  auto candidates =
      event.message.empty() || !find_owners ? std::nullopt : event_candidates(event.message, *find_owners);
  for (const Rule* rule : message_rules_) {
    if (event.message.empty()) break;
    if (candidates && !std::binary_search(candidates->begin(), candidates->end(), rule)) continue;
    if (rule->logged_error && event.logged_at != 'E' && event.logged_at != 'F') continue;
    if (!rule->frames.empty() && !frames) frames = traceback_frames(event);
    auto match =
        match_rule(*rule, event.message, rule->frames.empty() ? std::vector<std::string>{} : *frames);
    if (!match) continue;
    size_t frame = match->frame;
    Finding finding = finding_of(*rule, std::move(*match));
    finding.evidence.push_back(evidence_at(event.message_line));
    found.push_back({std::move(finding), frame});
  }
  if (!event_rules_.empty()) {
    std::string text = event.full_text();
    candidates = find_owners ? event_candidates(text, *find_owners) : std::nullopt;
    for (const Rule* rule : event_rules_) {
      if (candidates && !std::binary_search(candidates->begin(), candidates->end(), rule)) continue;
      auto match = match_rule(*rule, text);
      if (!match) continue;
      size_t index = line_index_at(text, match->offset);
      Finding finding = finding_of(*rule, std::move(*match));
      finding.evidence.push_back(evidence_at(index));
      if (!event.message.empty() && event.message_line != index)
        finding.evidence.push_back(evidence_at(event.message_line));
      found.push_back({std::move(finding), 0});
    }
  }
  if (found.empty()) return;
  // Only the highest priority keeps its findings; among its rules with `frames`, only those that
  // named the frame nearest the exception.
  int top = std::max_element(found.begin(), found.end(), [](const Found& a, const Found& b) {
              return a.finding.rule->priority < b.finding.rule->priority;
            })->finding.rule->priority;
  size_t nearest = SIZE_MAX;
  for (const auto& item : found) {
    if (item.finding.rule->priority == top && !item.finding.rule->frames.empty())
      nearest = std::min(nearest, item.frame);
  }
  for (auto& item : found) {
    const Rule& rule = *item.finding.rule;
    if (rule.priority != top || (!rule.frames.empty() && item.frame != nearest)) continue;
    out.push_back(std::move(item.finding));
  }
}

std::optional<std::vector<const Rule*>> Engine::event_candidates(std::string_view text,
                                                                 const OwnerFinder& find_owners) const {
  thread_local std::vector<uint32_t> owners;
  owners.clear();
  if (!find_owners(text, owners)) return std::nullopt;
  std::vector<const Rule*> candidates;
  candidates.reserve(owners.size());
  for (uint32_t owner : owners) {
    if (owner < all_rules_.size()) candidates.push_back(all_rules_[owner]);
  }
  std::sort(candidates.begin(), candidates.end());
  candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
  return candidates;
}

void Engine::match_line(const parse::Line& line, uint64_t sequence, std::vector<Finding>& out) const {
  match_line(line, sequence, BlockScreen{}, out);
}

void Engine::match_line(const parse::Line& line, uint64_t sequence, const BlockScreen& screen,
                        std::vector<Finding>& out) const {
  // A line the parser mended (a hard wrap, a glued progress bar) is not a substring of the
  // block: the screen cannot speak for it.
  if (line.text_rebuilt && !screen.all) return match_line(line, sequence, BlockScreen{}, out);
  if (line.text.empty() || (!screen.all && screen.rules.empty())) return;
  thread_local std::vector<const Rule*> flagged;
  flagged.clear();
  if (!screen.all && screen.for_one_line) {
    flagged = screen.rules;  // this line's own candidates, few: each runs its pattern
  } else {
    // One RE2::Set pass over the line says which line rules match it at all; only those run
    // their full pattern for captures. When the block screen named candidates, keep only those.
    const LineScreen& sets = line_screen();
    if (!sets.line_compiled) return;
    thread_local std::vector<int> hits;
    hits.clear();
    if (!sets.line_set.Match(re2::StringPiece(line.text.data(), line.text.size()), &hits)) return;
    for (int hit : hits) {
      const Rule* rule = sets.rule_of_line_pattern[static_cast<size_t>(hit)];
      if (!screen.all && !std::binary_search(screen.rules.begin(), screen.rules.end(), rule)) continue;
      flagged.push_back(rule);
    }
  }
  // A line's findings in the order of their rules' ids: not of where the rules lie in memory, which
  // moves when a pack is added, so what a line states (its facts) reads in the same order. Ids are
  // unique, so a rule hit by two of its patterns lies next to itself.
  std::sort(flagged.begin(), flagged.end(), [](const Rule* a, const Rule* b) { return a->id < b->id; });
  flagged.erase(std::unique(flagged.begin(), flagged.end()), flagged.end());
  for (const Rule* rule : flagged) {
    auto match = match_rule(*rule, line.text);
    if (!match) continue;
    std::string matched(match->text);
    Finding finding = make_finding(*rule, std::move(*match), line.rank, line.local_rank,
                                   std::string(line.host), line.pid, line.time, sequence);
    finding.time_inherited = line.time_inherited;
    finding.device = line.device;
    finding.matched = std::move(matched);
    finding.evidence.push_back({line.source, line.number, finding.rank, std::string(line.display)});
    out.push_back(std::move(finding));
  }
}

bool Engine::screen_literals_prebuilt() const {
  std::call_once(prebuilt_once_, [this] {
    if (!prebuilt_literals_.empty()) prebuilt_ = decode_rule_literals(prebuilt_literals_, all_rules_);
  });
  return prebuilt_.has_value();
}

const screen::Declarations* Engine::screen_literals() const {
  if (screen_literals_prebuilt()) return &*prebuilt_;
  std::call_once(literals_once_, [this] { literals_ = plan_rule_literals(all_rules_); });
  return literals_ ? &*literals_ : nullptr;
}

bool Engine::line_rules_may_match(std::span<const uint32_t> owners, std::string_view text) const {
  for (uint32_t owner : owners) {
    if (owner >= all_rules_.size() || all_rules_[owner]->scope != Scope::kLine) return true;
    for (const auto& pattern : all_rules_[owner]->match) {
      if (is_anchored(pattern.text) || matches_anywhere(pattern, text)) return true;
    }
  }
  return false;
}

Engine::BlockScreen Engine::screen_for_owners(std::span<const uint32_t> owners) const {
  BlockScreen screen;
  screen.all = false;
  screen.for_one_line = true;
  for (uint32_t owner : owners) {
    if (owner < all_rules_.size() && all_rules_[owner]->scope == Scope::kLine)
      screen.rules.push_back(all_rules_[owner]);
  }
  if (screen.rules.size() > 1) std::sort(screen.rules.begin(), screen.rules.end());
  return screen;
}

std::vector<std::string> Engine::patterns() const {
  std::vector<std::string> out;
  for (const Rule* rule : all_rules_) {
    for (const auto& pattern : rule->match) out.push_back(pattern.text);
  }
  return out;
}

}  // namespace faultline::rules
