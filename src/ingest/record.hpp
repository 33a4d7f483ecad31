// Record: what ingest hands to parse. One physical log line (without its terminator) and
// where it came from. The text is a view into the reader's block and stays valid only until
// the reader's next call; whoever keeps it copies it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/timestamp.hpp"

namespace faultline::ingest {

struct Record {
  std::string_view text;
  uint32_t source = 0;  // index into the job's SourceTable
  uint64_t line = 0;    // 1-based line number within the source (the envelope's record number)
  // What a log envelope (docker json-file, CRI, journald, JSON lines) said about the line;
  // empty for plain text. Views live as long as `text`.
  std::string_view host;
  int64_t pid = 0;
  Timestamp time;
};

// A stretch of NUL bytes or binary data inside a text input (binary_stretches.hpp).
struct ByteStretch {
  uint64_t offset = 0;  // in the decoded bytes
  uint64_t length = 0;
  bool nul = false;  // NUL bytes only
};

// What ingest knows about one input of a job.
struct SourceInfo {
  std::string name;              // as the user named it: path, "<stdin>", "run.tar:3/stderr.log"
  std::optional<int> rank_hint;  // from the path (attempt_0/3/stderr.log, rank3.log, ...)
  std::string format = "text";   // "text", "gzip", ...
  uint64_t bytes = 0;            // decompressed bytes read
  uint64_t lines = 0;
  uint64_t lines_parsed = 0;   // lines parsed: all but those a sparse read skipped
  uint64_t lines_cut = 0;      // lines longer than the limit, cut and counted
  uint64_t bad_lines = 0;      // envelope records that could not be decoded, skipped
  std::string first_bad_line;  // "17: not valid JSON, line skipped"
  std::string error;           // set when reading stopped early
  // When damage stopped it (a truncated or corrupt compressed stream, a damaged archive member):
  // the byte of the damaged stream where it lies (ByteSource::damage_offset).
  std::optional<uint64_t> error_offset;
  // Stretches of NUL bytes or binary data the input was read around: the first few, how many
  // in all and the bytes they span (BinaryStretches).
  std::vector<ByteStretch> binary_stretches;
  uint64_t binary_stretch_count = 0;
  uint64_t binary_bytes = 0;
};

}  // namespace faultline::ingest
