// Engine: Event ─▶ Finding, and Line ─▶ Finding for `scope: line` rules. Built once from a
// RuleSet, which must outlive it. Matching is const and thread-safe.
//
// Line rules are screened a block at a time: one RE2::Set pass over the raw bytes of a block
// of lines says which line rules can match anywhere in it, and only those run on its lines
// (usually none). This is sound because a line's cleaned text is a substring of its raw
// bytes (prefixes are cut from the front; \r segments and Markdown bold are substrings), so
// an unanchored pattern that matches the cleaned text matches the block. Where that does not
// hold (ANSI escapes, which are removed from the middle of lines: the caller does not ask;
// anchored patterns), each line goes through a per-line RE2::Set instead. The sparse read
// (src/screen) gives a line its candidates from the literals the rules declare instead
// (screen_literals, screen_for_owners), and an event's (OwnerFinder).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <vector>

#include "assemble/event.hpp"
#include "parse/line.hpp"
#include "rules/finding.hpp"
#include "rules/rule_set.hpp"
#include "screen/screens.hpp"

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

  // Which line rules may match a line of `block`. Cheap to copy.
  struct BlockScreen {
    bool all = true;                 // no screening: check every line rule
    std::vector<const Rule*> rules;  // when !all: the only candidates, sorted
    bool for_one_line = false;       // the candidates of one line's literals, not of a block's
  };
  // Sound only for a block whose lines' cleaned texts are substrings of it (not one holding ANSI
  // escapes, which the parser removes from the middle of lines).
  BlockScreen screen_block(std::string_view block) const;

  // The literals the rules need screened (rule_literals.hpp), their owners indices into rules():
  // the shipped plan when the rules are still those it was made for, else planned afresh on
  // first call. Null when some pattern has no literal to stand for it.
  const screen::Declarations* screen_literals() const;
  // Whether screen_literals() is the build's plan (then it costs nothing to take).
  bool screen_literals_prebuilt() const;
  const std::vector<const Rule*>& rules() const { return all_rules_; }
  // Whether the rules `owners` (indices into rules()) may match the line `text` as the log holds
  // it, prefixes and all: one of them is not a line rule, or one of its patterns matches there or
  // is anchored and cannot be tried on it. A sparse read passes over a line none may match.
  bool line_rules_may_match(std::span<const uint32_t> owners, std::string_view text) const;
  // The screen a line gets from the owners whose literals it holds (sorted): the line rules among them.
  BlockScreen screen_for_owners(std::span<const uint32_t> owners) const;

  // Says which rules (owners of screen_literals()) have a literal in `text`; false when it
  // cannot tell, and then every rule runs.
  using OwnerFinder = std::function<bool(std::string_view text, std::vector<uint32_t>& owners)>;
  // With `find_owners`, only the message and event rules it names in the event's text run;
  // without, every one does (--read-every-line, the check of the screen).
  void match_event(const assemble::Event& event, std::vector<Finding>& out,
                   const OwnerFinder* find_owners = nullptr) const;
  void match_line(const parse::Line& line, uint64_t sequence, std::vector<Finding>& out) const;
  void match_line(const parse::Line& line, uint64_t sequence, const BlockScreen& screen,
                  std::vector<Finding>& out) const;

  // Every pattern of every rule, one per line (for `faultline rules patterns`).
  std::vector<std::string> patterns() const;

 private:
  struct LineScreen;
  const LineScreen& line_screen() const;
  // The message or event rules with a literal in `text`, sorted; nullopt when `find_owners`
  // cannot tell (then every rule runs).
  std::optional<std::vector<const Rule*>> event_candidates(std::string_view text,
                                                           const OwnerFinder& find_owners) const;

  std::vector<const Rule*> message_rules_;
  std::vector<const Rule*> event_rules_;
  std::vector<const Rule*> line_rules_;
  std::vector<const Rule*> all_rules_;
  mutable std::once_flag line_screen_once_;
  mutable std::unique_ptr<LineScreen> line_screen_;
  std::string_view prebuilt_literals_;
  mutable std::once_flag literals_once_;
  mutable std::optional<screen::Declarations> literals_;
  mutable std::once_flag prebuilt_once_;
  mutable std::optional<screen::Declarations> prebuilt_;
};

// Runs one rule against a text: captures, `unless`, the traceback's frames (a rule with
// `frames`), `derive`, then `when`. Returns the facts when it matches, with the offset of the
// match in `text`.
struct RuleMatch {
  Facts facts;
  size_t offset = 0;
  std::string_view text;   // what the pattern matched, a view into the searched text
  size_t frame = 0;        // with `frames`: which frame matched, counted from the innermost
  std::string frame_site;  // that frame's `FILE in FUNCTION`, without its line number
};
// `frames`: the event's traceback frames, innermost first, as traceback_frames gives them. A rule
// with `frames` never matches without one.
std::optional<RuleMatch> match_rule(const Rule& rule, std::string_view text,
                                    const std::vector<std::string>& frames = {});

// Priority across scopes: a finding's priority holds on its first evidence line (an event's
// message line, a line rule's line), and a finding yields to a higher priority held on any of its
// evidence lines.
class LinePriorities {
 public:
  explicit LinePriorities(const std::vector<Finding>& findings);
  bool yields(const Finding& finding) const;

 private:
  using Held = std::pair<std::pair<uint32_t, uint64_t>, int>;  // (source, line), highest priority there
  std::vector<Held> highest_;                                  // sorted by line, one entry each
};

// Removes the findings that yield (LinePriorities); match_event applies priority within one event
// already, this also weighs line rules against event rules. Keeps the order of what stays.
void keep_highest_priority(std::vector<Finding>& findings);

// The frames of an event's traceback, innermost (nearest the exception) first: each one is
// `File "PATH", line N, in FUNCTION`, then '\n' and its source line when the traceback shows one.
std::vector<std::string> traceback_frames(const assemble::Event& event);

}  // namespace faultline::rules
