#include "report/source_notes.hpp"

#include <algorithm>

namespace faultline::report {
namespace {

// The first three stretches, then how many more.
std::string binary_note(const ingest::SourceInfo& source) {
  constexpr size_t kShown = 3;
  uint64_t count = source.binary_stretch_count;
  std::string out = source.name + ": read around " +
                    (count == 1 ? std::string("a stretch") : std::to_string(count) + " stretches") +
                    " of binary data";
  if (count > 1) out += " (" + std::to_string(source.binary_bytes) + " bytes)";
  out += ":";
  for (size_t i = 0; i < source.binary_stretches.size() && i < kShown; ++i) {
    const ingest::ByteStretch& stretch = source.binary_stretches[i];
    out += std::string(i ? ", " : " ") + std::to_string(stretch.length) +
           (stretch.nul ? " NUL bytes" : " binary bytes") + " at byte " + std::to_string(stretch.offset);
  }
  size_t shown = std::min(source.binary_stretches.size(), kShown);
  if (count > shown) out += ", and " + std::to_string(count - shown) + " more";
  return out;
}

}  // namespace

std::vector<std::string> source_notes(const ingest::SourceInfo& source) {
  std::vector<std::string> notes;
  if (source.lines_cut)
    notes.push_back(source.name + ": " + std::to_string(source.lines_cut) + " overlong line(s) cut");
  if (source.binary_stretch_count) notes.push_back(binary_note(source));
  if (source.error_offset) {
    notes.push_back(source.name + ": read stopped: " + source.error + "; the " +
                    std::to_string(source.bytes) + " bytes before it were analysed");
  }
  return notes;
}

}  // namespace faultline::report
