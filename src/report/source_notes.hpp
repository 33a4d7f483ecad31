// What the reports say about how an input was read, beside its diagnosis: overlong lines cut,
// stretches of binary data read around, damage that stopped the reading. One sentence per note,
// without the "note: " the renderers put before it; the text and HTML reports share them.
#pragma once

#include <string>
#include <vector>

#include "ingest/record.hpp"

namespace faultline::report {

// "rank3.log: 2 overlong line(s) cut", "rank3.log: read around 2 stretches of binary data
// (1048624 bytes): 48 binary bytes at byte 2890, 1048576 NUL bytes at byte 3080", "run.log.gz:
// read stopped: gzip stream truncated at byte 434; the 765 bytes before it were analysed".
std::vector<std::string> source_notes(const ingest::SourceInfo& source);

}  // namespace faultline::report
