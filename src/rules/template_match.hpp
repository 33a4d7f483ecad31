// Template matching: the repeated lines of a dense log (a serving loop's OOM every few
// milliseconds, an NCCL dump) differ from one another mostly in their digits. A pattern that
// treats every digit alike (no digit of its own, no class holding some digits but not all)
// matches two such texts at the same offsets, with the same groups: its result on one is its
// result on the other. TemplateCache keeps, per pattern, the results on a few recent templates
// (the text with every digit read as '0'), so that a repeat costs a comparison, not a regex.
// The result equals RE2's on the text itself: the cache holds the template whole and compares it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace faultline::rules {

// Whether RE2 `regex` treats all ten digits alike: it names no digit itself (outside a
// repetition count and a group's name) and each of its classes holds all of 0-9 or none. False
// for what this cannot tell (an escape by code point, a Unicode class, \Q...\E).
bool digit_uniform(std::string_view regex);

// One thread's cache of match results by (pattern, template): direct-mapped, a later template
// taking the slot of an earlier one, so at most kSlots templates of at most kMaxText bytes.
class TemplateCache {
 public:
  struct Span {
    int32_t begin = -1;  // offset into the text; -1 for a group that did not take part
    int32_t size = 0;
  };
  struct Result {
    bool matched = false;
    std::vector<Span> groups;  // group 0 (the whole match) first
  };

  // The result cached for `pattern` on the template of `text`, or null.
  const Result* find(uint64_t pattern, std::string_view text);
  // Keeps `result` for `pattern` on the template of `text` (texts over kMaxText bytes are not kept).
  void store(uint64_t pattern, std::string_view text, Result result);

  static constexpr size_t kMaxText = 1024;
  static constexpr size_t kSlots = 4096;  // a power of two

 private:
  struct Entry {
    uint64_t pattern = 0;  // Pattern::serial(), from 1
    uint64_t hash = 0;
    std::string text;  // the template
    Result result;
  };
  // The last text met and its template, with the template's hash.
  struct Prepared {
    std::string source;
    std::string text;
    uint64_t hash = 0;
  };
  const Prepared& prepare(std::string_view text);
  static uint64_t slot_hash(uint64_t pattern, uint64_t text_hash);
  std::vector<Entry> slots_ = std::vector<Entry>(kSlots);
  Prepared prepared_;
};

}  // namespace faultline::rules
