// Engine: Event ─▶ Finding, and Line ─▶ Finding for `scope: line` rules. Built once from a
// RuleSet, which must outlive it. Matching is const and thread-safe.
//
// Line rules are screened a block at a time: one RE2::Set pass over the raw bytes of a block
// of lines says which line rules can match anywhere in it, and only those run on its lines
// (usually none). This is sound because a line's cleaned text is a substring of its raw
// bytes (prefixes are cut from the front; \r segments and Markdown bold are substrings), so
// an unanchored pattern that matches the cleaned text matches the block. Where that does not
// hold (ANSI escapes, which are removed from the middle of lines; anchored patterns), the
// screen answers "all" and each line goes through a per-line RE2::Set instead.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "assemble/event.hpp"
#include "parse/line.hpp"
#include "rules/finding.hpp"
#include "rules/literal_screen.hpp"
#include "rules/rule_set.hpp"
#include "rules/screen_plan.hpp"

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
  BlockScreen screen_block(std::string_view block) const;

  // With `by_literals`, only the message and event rules whose words the literal screen finds in
  // the event's text run; without, every one does (--read-every-line, the check of the screen).
  void match_event(const assemble::Event& event, std::vector<Finding>& out, bool by_literals = true) const;
  void match_line(const parse::Line& line, uint64_t sequence, std::vector<Finding>& out) const;
  void match_line(const parse::Line& line, uint64_t sequence, const BlockScreen& screen,
                  std::vector<Finding>& out) const;

  // The sparse read of a large log (job/job_runner.cpp): one literal scan of a block says which of
  // its lines may matter, and only those (with a few lines before them) are parsed. The
  // literals (ScreenPlan): for every rule pattern, a set of words one of which each of its
  // matches holds; the assembler's event openers; the lines the process table learns from; and the
  // escape introducers (a block holding one is read in full). Built on first use, then shared;
  // null when the build has no Hyperscan or a pattern has no such words (then every line is
  // read). The first caller's `sample`, text like the text to come, lets the screen look for
  // fewer strings (LiteralScreen); it changes only the speed. Null, too, while another thread
  // builds it: a job of a scan then reads on with prebuilt_screen().
  using SparseScreen = PlannedScreen;
  const SparseScreen* sparse_screen(std::string_view sample = {}) const;
  // Whether the screen was built already: then sparse_screen() costs nothing.
  bool sparse_screen_built() const { return sparse_state_.load(std::memory_order_acquire) == kBuilt; }
  // The same screen looking for each literal itself, when the build made it for these rules
  // (RuleSet::prebuilt_screen): ready at once, so that even a short log's lines take their
  // candidate rules from literals rather than from the RE2 sets. Else null.
  const SparseScreen* prebuilt_screen() const;
  // The screen a line gets from the literal hits inside it: the line rules they may let match.
  static BlockScreen screen_for_hits(const SparseScreen& sparse, const LiteralScreen::Hit* begin,
                                     const LiteralScreen::Hit* end);

  // Every pattern of every rule, one per line (for `faultline rules patterns`).
  std::vector<std::string> patterns() const;

 private:
  struct LineScreen;
  const LineScreen& line_screen() const;
  // The message or event rules with a literal in `text`, sorted; nullopt when no literal screen
  // is at hand (then every rule runs).
  std::optional<std::vector<const Rule*>> event_candidates(std::string_view text) const;

  std::vector<const Rule*> message_rules_;
  std::vector<const Rule*> event_rules_;
  std::vector<const Rule*> line_rules_;
  std::vector<const Rule*> all_rules_;
  mutable std::once_flag line_screen_once_;
  mutable std::unique_ptr<LineScreen> line_screen_;
  std::string_view prebuilt_bytes_;
  mutable std::once_flag prebuilt_once_;
  mutable std::unique_ptr<SparseScreen> prebuilt_;  // its plan, even where its database does not load
  void build_sparse_screen(std::string_view sample) const;
  enum SparseState : int { kUnbuilt, kBuilding, kBuilt };
  mutable std::atomic<int> sparse_state_{kUnbuilt};
  mutable std::unique_ptr<SparseScreen> sparse_;
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
  std::map<std::pair<uint32_t, uint64_t>, int> highest_;  // (source, line) -> highest priority held there
};

// Removes the findings that yield (LinePriorities); match_event applies priority within one event
// already, this also weighs line rules against event rules. Keeps the order of what stays.
void keep_highest_priority(std::vector<Finding>& findings);

// The frames of an event's traceback, innermost (nearest the exception) first: each one is
// `File "PATH", line N, in FUNCTION`, then '\n' and its source line when the traceback shows one.
std::vector<std::string> traceback_frames(const assemble::Event& event);

}  // namespace faultline::rules
