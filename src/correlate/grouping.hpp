// Grouping, for correlate: the findings of one job in tiers (root causes rules know, errors no
// rule knows, symptoms), each ordered by first report and folded across ranks into
// FindingGroups. correlate.cpp names the initiating failure from them. Pure: no I/O.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "correlate/clock_skew.hpp"
#include "correlate/diagnosis.hpp"
#include "rules/finding.hpp"

namespace faultline::correlate {

// The cause of the rules that catch errors no rule knows (rules/unrecognised.yaml).
constexpr std::string_view kUnrecognisedCause = "unrecognised";

// Most severe first, then earliest: by timestamp when every finding has one, otherwise by
// input order. With host clock offsets, times are compared on the job's common clock, in
// whole seconds.
void sort_by_first_seen(std::vector<const rules::Finding*>& findings, const HostOffsets& offsets = {});

// What tells identical errors apart across ranks: the cause and the matched text up to
// numbers, or for an error no rule knows, its template (fingerprint.hpp).
std::string print_of(const rules::Finding& finding);

// Folds findings (in the order sort_by_first_seen gives) into groups of one rule and one
// fingerprint, in the order of their first report.
std::vector<FindingGroup> fold(const std::vector<const rules::Finding*>& ordered,
                               const HostOffsets& offsets = {});

// The job's findings in tiers, ordered and folded. `roots` and `root_groups` hold the root causes
// rules know, then the errors no rule knows (unless a collective had already timed out before
// them: then they are the hang's collateral and are dropped); `symptoms` and `symptom_groups`
// the symptoms. Recoveries and facts are in neither. The pointers point into the findings.
struct Tiers {
  std::vector<const rules::Finding*> roots, symptoms;
  std::vector<FindingGroup> root_groups, symptom_groups;
  // The root-cause groups the diagnosis weighs itself against: the known root causes', or, when
  // only errors no rule knows lead, theirs.
  size_t rival_groups = 0;

  bool empty() const { return root_groups.empty() && symptom_groups.empty(); }
};
Tiers fold_tiers(const std::vector<rules::Finding>& findings, const HostOffsets& offsets);

}  // namespace faultline::correlate
