// Fuzz target: bytes ─▶ records (ingest::open_records, which sniffs envelopes and splits lines)
// ─▶ LineParser, every piece of every record, with and without a rank hint from the path.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "ingest/byte_source.hpp"
#include "ingest/record_reader.hpp"
#include "parse/line_parser.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace faultline;
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto source = ingest::memory_source(bytes);
  auto records = ingest::open_records(*source, 0);
  parse::LineParser parser;
  std::optional<int> rank_hint;
  if (!bytes.empty() && bytes.front() % 2) rank_hint = 3;
  ingest::Record record;
  while (records->next(record)) {
    auto peeked = parser.peek(record, rank_hint);
    if (record.line % 7 == 0) parser.remember_time(record.source, peeked);
    parse::Line line = parser.parse(record, rank_hint);
    while (parser.next_piece(line)) {
    }
  }
  return 0;
}
