#include "ingest/line_reader.hpp"

#include <algorithm>
#include <cstring>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

namespace faultline::ingest {

LineReader::LineReader(ByteSource& source, uint32_t source_index, size_t block_bytes)
    : source_(source), source_index_(source_index), block_bytes_(block_bytes) {
  if (source.consumed() == 0) lent_ = source.in_memory();
  if (!lent_.empty()) return;
  capacity_ = block_bytes_ + kMaxLineBytes;
  buffer_.reset(new char[capacity_]);
}

// The next block is the next block_bytes_ of the lent bytes; the current line's start begins it.
bool LineReader::lend() {
  // Bytes before the current block are never looked at again: let the source drop them, a few
  // MiB at a time.
  constexpr size_t kReleaseBytes = size_t{4} << 20;
  if (begin_ >= released_ + kReleaseBytes) {
    source_.release_before(begin_);
    released_ = begin_;
  }
  if (end_ == lent_.size()) {
    if (std::string error = source_.in_memory_error(); !error.empty()) status_ = Status::error(error);
    at_eof_ = true;
    return false;
  }
  size_t n = std::min(block_bytes_, lent_.size() - end_);
  if (is_binary(lent_.data() + end_, n)) return false;
  window_ = begin_;
  end_ += n;
  bytes_ += n;
  ++refills_;
  return true;
}

// Whether the next `size` bytes of the input, at `bytes`, hold a NUL byte within the first
// kBinaryCheckBytes of the input, however the reads fell; sets status_ when they do.
bool LineReader::is_binary(const char* bytes, size_t size) {
  if (bytes_ >= kBinaryCheckBytes) return false;
  size_t checked = std::min<uint64_t>(size, kBinaryCheckBytes - bytes_);
  const void* nul = std::memchr(bytes, '\0', checked);
  if (!nul) return false;
  uint64_t offset = bytes_ + static_cast<uint64_t>(static_cast<const char*>(nul) - bytes);
  status_ = Status::error("binary file (NUL byte at offset " + std::to_string(offset) + "), not a log");
  return true;
}

bool LineReader::fill() {
  if (at_eof_ || !status_) return false;
  if (!lent_.empty()) return lend();
  if (begin_ > 0) {
    std::memmove(buffer_.get(), buffer_.get() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
    ++refills_;  // the buffered bytes moved, even if nothing more is read
  }
  size_t room = capacity_ - end_;
  auto n = source_.read(std::span<char>(buffer_.get() + end_, std::min(room, block_bytes_)));
  if (!n) {
    status_ = Status::error(n.status().message());
    return false;
  }
  if (*n == 0) {
    at_eof_ = true;
    return false;
  }
  if (is_binary(buffer_.get() + end_, *n)) return false;
  end_ += *n;
  bytes_ += *n;
  ++refills_;
  return true;
}

bool LineReader::take_segment(Record& record) {
  while (!segments_.empty()) {
    const void* cr = std::memchr(segments_.data(), '\r', segments_.size());
    size_t length =
        cr ? static_cast<size_t>(static_cast<const char*>(cr) - segments_.data()) : segments_.size();
    std::string_view segment = segments_.substr(0, length);
    segments_ = cr ? segments_.substr(length + 1) : std::string_view();
    if (segment.empty() && !segments_.empty()) continue;
    record = {segment, source_index_, line_number_, {}, 0, {}};
    return true;
  }
  return false;
}

bool LineReader::next(Record& record) {
  if (take_segment(record)) return true;
  for (;;) {
    const char* start = data() + begin_;
    size_t available = end_ - begin_;
    const void* newline = std::memchr(start, '\n', available);
    std::string_view line;
    if (newline) {
      size_t length = static_cast<size_t>(static_cast<const char*>(newline) - start);
      begin_ += length + 1;
      if (skipping_cut_line_) {
        skipping_cut_line_ = false;
        continue;
      }
      line = std::string_view(start, length);
      if (line.size() > kMaxLineBytes && !(line.size() == kMaxLineBytes + 1 && line.back() == '\r')) {
        line = line.substr(0, kMaxLineBytes);
        ++lines_cut_;
      }
    } else if (available > kMaxLineBytes) {
      // Too long: keep the first kMaxLineBytes as the line, skip the rest of it.
      begin_ += available;
      if (skipping_cut_line_) continue;
      line = std::string_view(start, kMaxLineBytes);
      skipping_cut_line_ = true;
      ++lines_cut_;
    } else if (fill()) {
      continue;
    } else if (end_ > begin_ && !skipping_cut_line_ && status_) {
      // The last line has no newline. fill() may have moved the bytes: read them afresh.
      line = std::string_view(data() + begin_, end_ - begin_);
      begin_ = end_;
    } else {
      return false;
    }
    ++line_number_;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (std::memchr(line.data(), '\r', line.size()) == nullptr) {
      record = {line, source_index_, line_number_, {}, 0, {}};
      return true;
    }
    segments_ = line;
    if (take_segment(record)) return true;
  }
}

namespace {

// Newlines in `text`. With SSE2 (every x86-64): 16 bytes at a time, each compare adding 1 to a
// byte counter per newline, the counters summed (psadbw) before they can overflow. Elsewhere
// eight bytes at a time: a byte of `word ^ kNewlines` is zero where `word` has a newline,
// ((x & 0x7f..) + 0x7f..) | x sets the top bit of exactly the non-zero bytes, and a multiply by
// 0x0101.. adds up those bits in the top byte.
uint64_t count_newlines(std::string_view text) {
  uint64_t count = 0;
  size_t i = 0;
#ifdef __SSE2__
  const __m128i newlines = _mm_set1_epi8('\n');
  while (i + 16 <= text.size()) {
    __m128i counters = _mm_setzero_si128();
    for (int round = 0; round < 255 && i + 16 <= text.size(); ++round, i += 16) {
      __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(text.data() + i));
      counters = _mm_sub_epi8(counters, _mm_cmpeq_epi8(bytes, newlines));
    }
    __m128i sums = _mm_sad_epu8(counters, _mm_setzero_si128());
    count += static_cast<uint64_t>(_mm_cvtsi128_si64(sums)) +
             static_cast<uint64_t>(_mm_cvtsi128_si64(_mm_unpackhi_epi64(sums, sums)));
  }
#else
  constexpr uint64_t kNewlines = 0x0a0a0a0a0a0a0a0aull;
  constexpr uint64_t kLow7 = 0x7f7f7f7f7f7f7f7full;
  constexpr uint64_t kHigh = 0x8080808080808080ull;
  for (; i + 8 <= text.size(); i += 8) {
    uint64_t word;
    std::memcpy(&word, text.data() + i, 8);
    uint64_t x = word ^ kNewlines;
    uint64_t nonzero = (((x & kLow7) + kLow7) | x) & kHigh;
    count += 8 - (((nonzero >> 7) * 0x0101010101010101ull) >> 56);
  }
#endif
  for (; i < text.size(); ++i) count += text[i] == '\n';
  return count;
}

}  // namespace

uint64_t LineReader::skip_lines_before(size_t offset, size_t keep) {
  offset += window_;  // from the start of buffered() to an offset into data()
  if (!segments_.empty() || skipping_cut_line_ || offset <= begin_) return 0;
  offset = std::min(offset, end_);
  const char* base = data();
  auto line_start_before = [&](size_t position) {  // the start of the line holding position - 1
    const void* newline = memrchr(base + begin_, '\n', position - begin_);
    return newline ? static_cast<size_t>(static_cast<const char*>(newline) - base) + 1 : begin_;
  };
  size_t stop = line_start_before(offset);
  for (size_t kept = 0; kept < keep && stop > begin_; ++kept) stop = line_start_before(stop - 1);
  if (stop <= begin_) return 0;
  uint64_t skipped = count_newlines(std::string_view(base + begin_, stop - begin_));
  line_number_ += skipped;
  begin_ = stop;
  return skipped;
}

}  // namespace faultline::ingest
