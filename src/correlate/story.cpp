#include "correlate/story.hpp"

#include <algorithm>
#include <cmath>
#include <set>

namespace faultline::correlate {
namespace {

// Whole seconds from group a's first report to group b's, on the job's common clock (each
// group's first time less its host's clock offset), when both times can be compared that way.
// `raw` gets the difference of the printed times, to tell when the offsets changed it.
std::optional<int64_t> seconds_between(const FindingGroup& a, const FindingGroup& b, int64_t& raw) {
  if (!a.first_time.valid || !b.first_time.valid) return std::nullopt;
  if (a.first_time.year && b.first_time.year && a.first_time.year != b.first_time.year) return std::nullopt;
  raw = b.first_time.seconds_in_year() - a.first_time.seconds_in_year();
  return raw - std::llround(b.first_clock_offset - a.first_clock_offset);
}

std::string what_they_did(const FindingGroup& group) {
  if (group.rule->narrative) {
    if (auto text = group.rule->narrative->render(group.facts)) return *text;
  }
  return "reported " + group.rule->cause + " (" + group.rule->title + ")";
}

}  // namespace

const char* to_string(StoryItem::Kind kind) {
  return kind == StoryItem::Kind::kFailedFirst ? "failed_first" : "others";
}

std::vector<StoryItem> tell_story(const Diagnosis& diagnosis, const std::vector<FindingGroup>& groups) {
  std::vector<StoryItem> story;
  const FindingGroup& first = groups.front();
  StoryItem failed;
  failed.kind = StoryItem::Kind::kFailedFirst;
  if (diagnosis.initiating_rank) failed.ranks = {*diagnosis.initiating_rank};
  failed.cause = diagnosis.cause;
  failed.title = diagnosis.title;
  failed.at = diagnosis.first_seen;
  story.push_back(std::move(failed));
  // One item per cause, in the order the groups come (root causes, then symptoms).
  std::vector<std::string> causes;
  for (size_t i = 1; i < groups.size(); ++i) {
    if (std::find(causes.begin(), causes.end(), groups[i].rule->cause) == causes.end())
      causes.push_back(groups[i].rule->cause);
  }
  for (const auto& cause : causes) {
    std::set<int> ranks;
    const FindingGroup* lead = nullptr;  // the first group of the cause; one with a narrative if any
    std::optional<int64_t> delay;        // to the earliest report of the cause
    int64_t raw_delay = 0;
    for (size_t i = 1; i < groups.size(); ++i) {
      if (groups[i].rule->cause != cause) continue;
      ranks.insert(groups[i].ranks.begin(), groups[i].ranks.end());
      if (!lead || (!lead->rule->narrative && groups[i].rule->narrative)) lead = &groups[i];
      int64_t raw = 0;
      if (auto seconds = seconds_between(first, groups[i], raw); seconds && (!delay || *seconds < *delay)) {
        delay = seconds;
        raw_delay = raw;
      }
    }
    StoryItem item;
    item.kind = StoryItem::Kind::kOthers;
    item.ranks.assign(ranks.begin(), ranks.end());
    item.cause = cause;
    item.did = what_they_did(*lead);
    if (delay && *delay > 0) {
      item.seconds_later = delay;
      if (*delay != raw_delay) item.printed_seconds_later = raw_delay;
    }
    item.collateral = !lead->collateral_of.empty();
    story.push_back(std::move(item));
  }
  return story;
}

}  // namespace faultline::correlate
