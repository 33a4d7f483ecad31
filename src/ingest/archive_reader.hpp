// Reading one input that may be an archive: sniffs its first bytes (tar, zip, a compressed
// tar, a single compressed stream, plain text), walks archive members with libarchive, and
// guards every decompression with the ExpansionLimits. for_each_source (inputs.hpp) is the
// public entry; this header exists for it alone.
#pragma once

#include <optional>
#include <string>

#include "ingest/byte_source.hpp"
#include "ingest/inputs.hpp"

namespace faultline::ingest {

// Visits every source `raw` holds, naming them after `name`. `rank_hint` is the rank the
// input's own path names, used for members whose paths name none.
void read_input(const std::string& name, std::optional<int> rank_hint, ByteSource& raw,
                const ExpansionLimits& limits, const SourceVisitor& visit, const SkipVisitor& skip);

}  // namespace faultline::ingest
