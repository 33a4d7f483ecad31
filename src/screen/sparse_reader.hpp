// SparseReader: ingest::RecordReader ─▶ the records worth parsing, each with the owners whose
// literals it holds. The sparse read of large logs: past a dense head read line by line, one
// literal scan of each raw block (Screens) says which of its lines may matter, and the lines
// between are passed over unread, keeping a few before each line that may open something. Knows
// no Rule, Line or Event: what a hit asks for is its literal's Stop, who it is for its owners.
//
// The contract: a line that some stage's need could hold is handed on. A hit may be a false
// positive, never a false negative; so a sparse read gives exactly the full read's report, as long
// as every stage declares a literal for every line it must see and says, through `holding`, when
// it must see the next line whatever it holds (a traceback open, a hard-wrapped line).
//
// After the job's stages, before: ingest (the reader's raw blocks and skips). The reader and the
// Screens must outlive it; not thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include "ingest/record.hpp"
#include "ingest/record_reader.hpp"
#include "screen/screens.hpp"

namespace faultline::screen {

struct SparseSettings {
  // Bytes of the source read line by line before lines may be skipped; UINT64_MAX reads every
  // line and screens none (--read-every-line, and the check of the sparse read).
  uint64_t dense_head_bytes = uint64_t{1} << 20;
  // Bytes of the job read (bytes_before and this source's) before a block is screened with the
  // sampled screen rather than the prebuilt one.
  uint64_t sampled_screen_bytes = uint64_t{2} << 20;
  uint64_t bytes_before = 0;  // the job's bytes read before this source
};

// One record handed on.
struct SparseRead {
  enum class Kind : uint8_t {
    kUnscreened,  // its block is not screened (no screen, an envelope, an escape sequence in it)
    kOutside,     // a record that is not a substring of the screened block: nothing is known of it
    kCandidate,   // screened: `owners` are those with a literal in it (none for a line of the head)
  };
  Kind kind = Kind::kUnscreened;
  ingest::Record record;
  // kCandidate: the owners hit in the record, sorted, each once.
  std::vector<uint32_t> owners;
  // kCandidate with a kRead hit after lines were skipped: the lines kept before it, to be read
  // first (no literal stands in them). Views into the block, valid until the next call.
  std::vector<ingest::Record> lookback;
  bool opens = false;  // kCandidate: a kRead hit stands in the record
  // The first record handed on from a new block, and that block (the reader's raw bytes).
  bool new_block = false;
  std::string_view block;
};

// For a kLesson hit, the stretch of its line that says what the line teaches, given the line cut
// at the literal's end (`before` from the line's start, `after` to its end, adjacent): a line
// whose stretch was handed on already is passed over. nullopt: the line always teaches, and what
// it teaches makes the stretches remembered stale (they are forgotten).
using LessonStretch =
    std::function<std::optional<std::string_view>(std::string_view before, std::string_view after)>;

// For a kRead hit of a literal with owners, whether the owners may want `line` (the line as the
// log holds it): a false lets the read pass over the line. Without it, every such hit is read.
using Confirm = std::function<bool(std::span<const uint32_t> owners, std::string_view line)>;

class SparseReader {
 public:
  // `screens` null: every record comes as kUnscreened. `holding`: whether some stage must see
  // the next line whatever it holds; asked before lines are skipped. `lesson_stretch`: without
  // it, a lesson's stretch is its whole line.
  SparseReader(ingest::RecordReader& reader, const Screens* screens, SparseSettings settings,
               std::function<bool()> holding, LessonStretch lesson_stretch = {}, Confirm confirm = {});

  // False at the end of the input (the reader's status() says why it ended).
  bool next(SparseRead& read);

  // The lines before `record` in its block that were not handed on, nearest first: back to
  // `stop` (the first byte of a line of the block, or its start), passing over at most
  // `max_lines` lines, those handed on counted with the rest. `visit` says whether to stop, or
  // to go on with the line counted, or not counted (it told the line apart without cost).
  enum class Walk : uint8_t { kStop, kCounted, kUncounted };
  void unread_lines_before(const ingest::Record& record, const char* stop, size_t max_lines,
                           const std::function<Walk(const ingest::Record&)>& visit) const;

  // Lines before each line that matters, kept to give it its rank's latest time and the head
  // of a record it may continue.
  static constexpr size_t kLookbackLines = 8;

 private:
  void start_block(SparseRead& read);
  bool screened_read(SparseRead& read);
  void note_read(const char* begin, size_t size);
  size_t lookback_for(size_t first) const;
  bool repeats_a_lesson(const LiteralScreen::Hit& hit, bool remember);
  bool confirmed(const LiteralScreen::Hit& hit, std::string_view line) const;

  ingest::RecordReader& reader_;
  const Screens* screens_;
  SparseSettings settings_;
  std::function<bool()> holding_;
  LessonStretch lesson_stretch_;
  Confirm confirm_;
  const Declarations* literals_ = nullptr;
  uint64_t refills_seen_ = 0;
  bool pending_new_block_ = false;
  bool block_screened_ = false;
  bool past_head_ = false;
  std::string_view block_;
  std::vector<LiteralScreen::Hit> hits_;  // of block_, by end offset
  size_t next_hit_ = 0;
  std::vector<ingest::Record>
      skipped_;  // the lines passed over since the last one read, at most kLookbackLines
  // Stretches of lines that taught a stage (kLesson), remembered so that a log repeating them is
  // not re-read; a bounded number.
  std::unordered_set<uint64_t> lessons_;
  // Runs of lines handed on with no skip between them, in block order: [begin, next) holds
  // `lines` lines, `next` being the first byte after the last one's newline.
  struct ReadRun {
    const char* begin;
    const char* next;
    uint64_t lines;
  };
  std::vector<ReadRun> read_runs_;
  std::vector<std::pair<const char*, size_t>> to_note_;  // handed on, not yet in read_runs_
};

}  // namespace faultline::screen
