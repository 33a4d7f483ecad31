// LineReader: splits a ByteSource into Records. Input is read in large blocks and split with
// memchr; a Record's text is a view into the block, valid until the next call to next(). When
// the source lends its bytes (ByteSource::in_memory: a mapped file), the blocks are views of
// them rather than copies.
//
// Memory is bounded by the block size plus the longest line kept. A carriage return inside a
// line (progress bars rewriting themselves) or a run of NUL bytes (the zeroed tail of a log
// whose node crashed) separates segments that come out as Records of the same line number;
// a trailing CR (CRLF) is dropped. A line past the cap is split at those separators first, so
// the message glued after a 5 MB progress bar survives; a segment still past the cap is cut
// there, the rest of it skipped up to the next separator, and the cut counted.
//
// Only an input that is binary through and through is refused. It is judged in windows of
// 64 KiB from its start: a window (or the input's rest, if shorter) is binary when, NUL bytes
// aside, more than 10% of it are control bytes or invalid UTF-8. Binary windows at the start are
// passed over (their lines counted, not read) up to the first window of text, where reading
// starts at the first line that begins in it; an input binary in all of its first 16 windows, or
// to its end, is refused with the first window's reason. The verdict is the same however the
// bytes arrive. NUL bytes in a text input are counted
// (nul_bytes(), first_nul_offset()), and its stretches of NUL bytes or binary data are noted
// with their offsets (binary_stretches()) while it is read around them.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "base/status.hpp"
#include "ingest/binary_stretches.hpp"
#include "ingest/byte_source.hpp"
#include "ingest/record.hpp"
#include "ingest/record_reader.hpp"

namespace faultline::ingest {

class LineReader final : public RecordReader {
 public:
  static constexpr size_t kBlockBytes = size_t{1} << 17;
  static constexpr size_t kMaxLineBytes = size_t{256} << 10;
  static constexpr uint64_t kBinaryCheckBytes = uint64_t{64} << 10;
  static constexpr size_t kBinaryHeadWindows = 16;

  LineReader(ByteSource& source, uint32_t source_index, size_t block_bytes = kBlockBytes,
             size_t max_line_bytes = kMaxLineBytes);

  // False at the end of the input or when reading failed (status() says why).
  bool next(Record& record) override;

  // The bytes in the reader's buffer: every Record returned since the last refill is a
  // substring of them. `refills()` changes whenever they do, so a caller can screen each
  // buffer once (rules::Engine::screen_block).
  std::string_view buffered() const override { return std::string_view(data() + window_, end_ - window_); }
  uint64_t refills() const override { return refills_; }
  // Nothing is skipped inside a line split at carriage returns or one being cut.
  uint64_t skip_lines_before(size_t offset, size_t keep) override;

  const Status& status() const override { return status_; }
  uint64_t bytes() const override { return bytes_; }
  uint64_t lines() const override { return line_number_; }
  uint64_t lines_cut() const override { return lines_cut_; }
  std::string format() const override { return "text"; }
  // NUL bytes met in the input's blocks, and the offset of the first (UINT64_MAX when none).
  uint64_t nul_bytes() const { return nul_bytes_; }
  uint64_t first_nul_offset() const { return first_nul_offset_; }
  const BinaryStretches* binary_stretches() const override { return &stretches_; }

  // Why `head` (an input's first bytes) is binary and not a log, or "" when it is text.
  static std::string binary_reason(std::string_view head);

 private:
  bool fill();
  bool lend();  // fill() from the source's own bytes
  bool take_segment(Record& record);
  bool check_head(std::string_view all);  // false (and status_ set) for a binary input
  // Past binary windows at the start of the buffered bytes: false (status_ set) when the input
  // is binary through and through.
  bool pass_binary_head(std::string reason, size_t have);
  void note_nuls(size_t from, size_t to);   // counts the NUL bytes of data()[from, to)
  bool may_hold_nul(size_t offset) const {  // whether data() may hold a NUL at or past offset
    return last_nul_ != kNone && last_nul_ >= offset;
  }
  const char* data() const { return lent_.empty() ? buffer_.get() : lent_.data(); }

  static constexpr size_t kNone = SIZE_MAX;

  ByteSource& source_;
  uint32_t source_index_;
  size_t block_bytes_;
  size_t max_line_;
  // Not zero-filled: a scan of many small files would spend its time clearing buffers.
  std::unique_ptr<char[]> buffer_;
  size_t capacity_ = 0;
  // Offsets into data(): the next line starts at begin_, the bytes end at end_, and the
  // current block (buffered()) starts at window_ (always 0 for a copied block).
  size_t begin_ = 0;
  size_t end_ = 0;
  size_t window_ = 0;
  std::string_view lent_;  // the source's bytes, when it lends them
  size_t released_ = 0;    // bytes before this handed back to the source
  bool at_eof_ = false;
  bool checked_head_ = false;
  bool skipping_cut_line_ = false;  // past a cut segment: skip up to the next separator
  bool continuing_ = false;         // the bytes at begin_ continue the last line's number
  std::string_view segments_;       // rest of the current line after a separator
  bool segments_nul_ = false;       // whether segments_ may hold NUL bytes
  size_t last_nul_ = kNone;         // offset in data() of the last NUL byte seen
  uint64_t nul_bytes_ = 0;
  uint64_t first_nul_offset_ = UINT64_MAX;
  BinaryStretches stretches_;
  uint64_t line_number_ = 0;
  uint64_t bytes_ = 0;
  uint64_t lines_cut_ = 0;
  uint64_t refills_ = 0;
  Status status_;
};

}  // namespace faultline::ingest
