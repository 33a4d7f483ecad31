// ScreenPlan: the literals of the engine's literal screens (Engine::sparse_screen) and what each
// one stands for: a word of some rule pattern (one of the words each of its matches holds), a
// line that may open an event, a line the process table learns from, or an escape introducer.
//
// Planning needs re2::FilteredRE2 on every pattern, and the screen a Hyperscan compile: tens of
// milliseconds that a pasted log should not wait for. So the build plans the shipped rules once
// (prebuild_screen, run by faultline-packc) and embeds the plan with the compiled screen of its
// literals; at run time load_prebuilt_screen takes it when the rules are still those it was made
// from (same ids, scopes and patterns, in the same order) and the Hyperscan library and CPU
// accept the database. Otherwise the caller plans afresh.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rules/literal_screen.hpp"
#include "rules/rule.hpp"

namespace faultline::rules {

// Rules of this priority or lower are catch-alls (the `unrecognised` rules).
inline constexpr int kCatchAllPriority = -100;

struct ScreenPlan {
  // kInTraceback: a word only of rules that match inside a traceback (message rules with
  // `frames`), or of catch-all rules (priority kCatchAllPriority or lower). It picks their
  // candidates in an event's message, but a line holding it need not be read for it: the
  // traceback's header, an event opener, makes the read stop there. So past a file's dense head a
  // bare exception line with no traceback is found only where another rule's word stands on it:
  // the catch-all's `Error` is in too many healthy lines to stop at each.
  enum class Role : uint8_t { kRule, kEventOpener, kPidRankSource, kEscape, kInTraceback };
  std::vector<LiteralScreen::Literal> literals;
  std::vector<Role> roles;                            // by literal
  std::vector<std::vector<const Rule*>> rules;        // by literal: the line rules it may let match, sorted
  std::vector<std::vector<const Rule*>> event_rules;  // by literal: the message and event rules, sorted
};

// nullopt when some pattern holds no word every match of it must hold (then no screen can
// stand for it, and every line is read).
std::optional<ScreenPlan> plan_screen(const std::vector<const Rule*>& rules);

// The plan and a screen of its literals (each literal its own anchor), as bytes; empty when the
// rules cannot be planned or the build has no Hyperscan.
std::string prebuild_screen(const std::vector<const Rule*>& rules);

// A plan with the screen of its literals.
struct PlannedScreen : ScreenPlan {
  std::unique_ptr<LiteralScreen> screen;  // null when a prebuilt database does not load here
};
// nullopt when `bytes` were made from other rules, or are not a prebuilt screen at all.
std::optional<PlannedScreen> load_prebuilt_screen(std::string_view bytes,
                                                  const std::vector<const Rule*>& rules);

}  // namespace faultline::rules
