// BinaryStretches: where a text input holds NUL bytes (the zeroed tail of a log whose node
// crashed) or binary data (control bytes that text does not use, invalid UTF-8: a core dump or
// a disk's garbage inside a log). The line reader hands it every block in order and reads on
// around what it finds; the report names the stretches (offset, length). Binary bytes closer
// than kBridge bytes belong to one stretch. A stretch of NUL bytes is always one; one of other
// binary bytes holds at least kMinBinaryBytes of them, so a stray BEL in a message is none.
// Memory: the first kKept stretches and counts. Not thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "ingest/record.hpp"

namespace faultline::ingest {

class BinaryStretches {
 public:
  static constexpr size_t kKept = 8;
  static constexpr uint64_t kBridge = 8;
  static constexpr uint64_t kMinBinaryBytes = 4;

  // `block` is the input's bytes from `offset` on; blocks come in order, each where the last ended.
  void scan(std::string_view block, uint64_t offset);

  // The first kKept stretches, how many there are and the bytes they span, counting the one
  // still open at the end of the bytes scanned.
  std::vector<ByteStretch> first() const;
  uint64_t count() const { return count_ + (open_counts() ? 1 : 0); }
  uint64_t bytes() const { return bytes_ + (open_counts() ? open_.length : 0); }

 private:
  void binary_byte(uint64_t at, bool nul);
  void binary_run(uint64_t at, uint64_t length);  // `length` NUL bytes from `at`
  bool open_counts() const { return open_binary_ > 0 && (open_.nul || open_binary_ >= kMinBinaryBytes); }
  void close();

  std::vector<ByteStretch> kept_;
  uint64_t count_ = 0;
  uint64_t bytes_ = 0;
  ByteStretch open_;              // valid while open_binary_ > 0
  uint64_t open_binary_ = 0;      // binary bytes in open_
  size_t continuation_owed_ = 0;  // continuation bytes a UTF-8 sequence split over blocks still needs
  uint64_t owed_lead_ = 0;        // where that sequence began
};

}  // namespace faultline::ingest
