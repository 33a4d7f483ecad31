// The notes a report gives beside its diagnosis on how an input was read (src/report/source_notes):
// overlong lines cut, binary stretches read around (three shown, then how many more), and damage
// that stopped the reading with the bytes analysed before it.
#include "report/source_notes.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

using faultline::ingest::ByteStretch;
using faultline::ingest::SourceInfo;
using faultline::report::source_notes;
using Notes = std::vector<std::string>;

namespace {

SourceInfo source_named(const std::string& name) {
  SourceInfo source;
  source.name = name;
  return source;
}

ByteStretch stretch(uint64_t offset, uint64_t length, bool nul) {
  ByteStretch out;
  out.offset = offset;
  out.length = length;
  out.nul = nul;
  return out;
}

}  // namespace

TEST_CASE("source notes: a source read whole and clean has none") {
  CHECK(source_notes(source_named("rank3.log")).empty());
}

TEST_CASE("source notes: overlong lines cut are counted") {
  SourceInfo source = source_named("rank3.log");
  source.lines_cut = 2;
  CHECK(source_notes(source) == Notes{"rank3.log: 2 overlong line(s) cut"});
}

TEST_CASE("source notes: one binary stretch is 'a stretch', without a byte total") {
  SourceInfo source = source_named("rank3.log");
  source.binary_stretch_count = 1;
  source.binary_bytes = 48;
  source.binary_stretches = {stretch(2890, 48, false)};
  CHECK(source_notes(source) ==
        Notes{"rank3.log: read around a stretch of binary data: 48 binary bytes at byte 2890"});
}

TEST_CASE("source notes: several stretches give the total, NUL runs named as such") {
  SourceInfo source = source_named("rank3.log");
  source.binary_stretch_count = 2;
  source.binary_bytes = 48 + 1048576;
  source.binary_stretches = {stretch(2890, 48, false), stretch(3080, 1048576, true)};
  CHECK(source_notes(source) ==
        Notes{"rank3.log: read around 2 stretches of binary data (" + std::to_string(48 + 1048576) +
              " bytes): 48 binary bytes at byte 2890, 1048576 NUL bytes at byte 3080"});
}

TEST_CASE("source notes: past three stretches, the rest are counted, also those not kept") {
  SourceInfo source = source_named("core.log");
  source.binary_stretch_count = 7;  // more than the source kept the offsets of
  source.binary_bytes = 700;
  for (uint64_t i = 0; i < 5; ++i) source.binary_stretches.push_back(stretch(1000 * (i + 1), 100, false));
  CHECK(source_notes(source) ==
        Notes{"core.log: read around 7 stretches of binary data (700 bytes): 100 binary bytes at byte 1000, "
              "100 binary bytes at byte 2000, 100 binary bytes at byte 3000, and 4 more"});
}

TEST_CASE("source notes: damage that stopped the reading names the error and the bytes analysed") {
  SourceInfo source = source_named("run.log.gz");
  source.error = "gzip stream truncated at byte 434";
  source.error_offset = 434;
  source.bytes = 765;
  CHECK(source_notes(source) == Notes{"run.log.gz: read stopped: gzip stream truncated at byte 434; the 765 "
                                      "bytes before it were analysed"});
}

TEST_CASE("source notes: an error without an offset is not a damage note") {
  SourceInfo source = source_named("rank3.log");
  source.error = "Permission denied";
  CHECK(source_notes(source).empty());
}

TEST_CASE("source notes: every kind at once, in the order cut, binary, damage") {
  SourceInfo source = source_named("r.log.zst");
  source.lines_cut = 1;
  source.binary_stretch_count = 1;
  source.binary_bytes = 16;
  source.binary_stretches = {stretch(0, 16, true)};
  source.error = "zstd stream damaged at byte 8116: Restored data doesn't match checksum";
  source.error_offset = 8116;
  source.bytes = 20000;
  CHECK(source_notes(source) ==
        Notes{"r.log.zst: 1 overlong line(s) cut",
              "r.log.zst: read around a stretch of binary data: 16 NUL bytes at byte 0",
              "r.log.zst: read stopped: zstd stream damaged at byte 8116: Restored data "
              "doesn't match checksum; the 20000 bytes before it were analysed"});
}
