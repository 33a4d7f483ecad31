// The literals the rules declare for the literal screen (src/screen): for every rule pattern, a
// set of words one of which each of its matches holds, owned by the rules whose patterns need
// them (owner = the rule's index in the list given). A word only of rules that match inside a
// traceback (message rules with `frames`) or of catch-all rules (priority kCatchAllPriority or
// lower) does not stop the sparse read (screen::Stop::kPass): it picks their candidates in an
// event's message, but the traceback's header, an event opener, makes the read stop there. So
// past a file's dense head a bare exception line with no traceback is found only where another
// rule's word stands on it: the catch-all's `Error` is in too many healthy lines to stop at each.
//
// Planning needs re2::FilteredRE2 on every pattern: tens of milliseconds that a pasted log should
// not wait for. So the build plans the shipped rules once (faultline-packc) and embeds the plan;
// at run time decode_rule_literals takes it when the rules are still those it was made from (same
// ids, scopes and patterns, in the same order). Otherwise the caller plans afresh.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rules/rule.hpp"
#include "screen/screens.hpp"

namespace faultline::rules {

// Rules of this priority or lower are catch-alls (the `unrecognised` rules).
inline constexpr int kCatchAllPriority = -100;

// nullopt when some pattern holds no word every match of it must hold (then no screen can
// stand for it, and every line is read).
std::optional<screen::Declarations> plan_rule_literals(const std::vector<const Rule*>& rules);

// Each pattern that holds no such word, as "RULE_ID: PATTERN": what keeps the rules unplanned.
std::vector<std::string> patterns_without_literals(const std::vector<const Rule*>& rules);

// The plan as bytes, naming the rules it was made for; empty when the rules cannot be planned.
std::string encode_rule_literals(const std::vector<const Rule*>& rules);
// nullopt when `bytes` were made from other rules, or are not such a plan at all.
std::optional<screen::Declarations> decode_rule_literals(std::string_view bytes,
                                                         const std::vector<const Rule*>& rules);

}  // namespace faultline::rules
