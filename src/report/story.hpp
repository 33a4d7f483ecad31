// The words of a job's story (correlate::StoryItem): "rank 3 failed first at …: TITLE (CAUSE)",
// "ranks 0-2,4-7 timed out in ALLREDUCE (SeqNum 4), 600 s later (collateral)". Every renderer
// says a story item with these words; the JSON carries them beside the item's fields.
#pragma once

#include <string>

#include "correlate/diagnosis.hpp"

namespace faultline::report {

std::string story_text(const correlate::StoryItem& item);

}  // namespace faultline::report
