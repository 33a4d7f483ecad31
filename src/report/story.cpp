#include "report/story.hpp"

#include "base/text.hpp"

namespace faultline::report {

std::string story_text(const correlate::StoryItem& item) {
  if (item.kind == correlate::StoryItem::Kind::kFailedFirst) {
    std::string who = ranks_phrase(item.ranks, "a rank the logs do not name");
    std::string when = item.at.valid ? " at " + item.at.to_string() : "";
    return who + " failed first" + when + ": " + item.title + " (" + item.cause + ")";
  }
  std::string line = ranks_phrase(item.ranks, "a process with no rank") + " " + item.did;
  if (item.seconds_later) {
    line += ", " + std::to_string(*item.seconds_later) + " s later";
    if (item.printed_seconds_later)
      line += " (host clocks aligned; " + std::to_string(*item.printed_seconds_later) +
              " s by the printed times)";
  }
  if (item.collateral) line += " (collateral)";
  return line;
}

}  // namespace faultline::report
