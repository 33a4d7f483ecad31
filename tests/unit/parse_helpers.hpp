// Helpers shared by the parse and assemble tests: Lines copied out of the parser (their views
// die with its next call), and text run through LineReader, LineParser and Assembler the way
// the pipeline runs it (every piece of a line that holds several).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "assemble/assembler.hpp"
#include "ingest/byte_source.hpp"
#include "ingest/line_reader.hpp"
#include "parse/line_parser.hpp"

namespace faultline::testing {

struct Parsed {
  std::string text;
  std::string display;
  int rank = -1;
  int local_rank = -1;
  bool rank_from_prefix = false;
  bool rank_from_pid = false;
  std::string host;
  int64_t pid = 0;
  Timestamp time;
  bool time_inherited = false;
  char severity = 0;
  uint64_t number = 0;
  int repeated = 0;
  bool continues_previous = false;
  bool continues_record = false;
  bool text_rebuilt = false;
};

inline Parsed copy(const parse::Line& line) {
  Parsed out;
  out.text = std::string(line.text);
  out.display = std::string(line.display);
  out.rank = line.rank;
  out.local_rank = line.local_rank;
  out.rank_from_prefix = line.rank_from_prefix;
  out.rank_from_pid = line.rank_from_pid;
  out.host = std::string(line.host);
  out.pid = line.pid;
  out.time = line.time;
  out.time_inherited = line.time_inherited;
  out.severity = line.severity;
  out.number = line.number;
  out.repeated = line.repeated;
  out.continues_previous = line.continues_previous;
  out.continues_record = line.continues_record;
  out.text_rebuilt = line.text_rebuilt;
  return out;
}

// Calls `each` for every Line (and every piece of a Line) of `text`, through one parser.
template <typename Each>
void for_each_line(std::string_view text, std::optional<int> rank_hint, Each each) {
  parse::LineParser parser;
  auto source = ingest::memory_source(text);
  ingest::LineReader reader(*source, 0);
  ingest::Record record;
  while (reader.next(record)) {
    auto line = parser.parse(record, rank_hint);
    do {
      each(line);
    } while (parser.next_piece(line));
  }
}

inline std::vector<assemble::Event> assemble_text(std::string_view text,
                                                  std::optional<int> rank_hint = std::nullopt) {
  std::vector<assemble::Event> events;
  assemble::Assembler assembler([&](assemble::Event&& event) { events.push_back(std::move(event)); });
  uint64_t sequence = 0;
  for_each_line(text, rank_hint, [&](const parse::Line& line) { assembler.push(line, sequence++); });
  assembler.finish();
  return events;
}

}  // namespace faultline::testing
