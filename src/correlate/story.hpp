// The story, for correlate: what happened, in order, as data (StoryItem): the initiating
// failure, then one item per other cause with every rank that reported it, what they did and how
// long after, on the job's common clock. report/story.hpp says it in words. Pure: no I/O.
#pragma once

#include <vector>

#include "correlate/diagnosis.hpp"

namespace faultline::correlate {

// `groups`: the job's groups, the diagnosis' first.
std::vector<StoryItem> tell_story(const Diagnosis& diagnosis, const std::vector<FindingGroup>& groups);

}  // namespace faultline::correlate
