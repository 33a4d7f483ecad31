#include "ingest/line_reader.hpp"

#include <algorithm>
#include <cstring>

#include "base/text.hpp"
#ifdef __SSE2__
#include <emmintrin.h>
#endif

namespace faultline::ingest {

LineReader::LineReader(ByteSource& source, uint32_t source_index, size_t block_bytes, size_t max_line_bytes)
    : source_(source), source_index_(source_index), block_bytes_(block_bytes), max_line_(max_line_bytes) {
  if (source.consumed() == 0) lent_ = source.in_memory();
  if (!lent_.empty()) return;
  capacity_ = std::max<size_t>(block_bytes_, kBinaryCheckBytes) + max_line_;
  buffer_.reset(new char[capacity_]);
}

namespace {

bool is_continuation(unsigned char byte) {
  return (byte & 0xc0) == 0x80;
}

// The length of the valid UTF-8 sequence at the start of `text` (a byte of 0x80 or more), or 0.
size_t utf8_sequence(std::string_view text) {
  auto lead = static_cast<unsigned char>(text[0]);
  size_t length = lead >= 0xc2 && lead <= 0xdf   ? 2
                  : lead >= 0xe0 && lead <= 0xef ? 3
                  : lead >= 0xf0 && lead <= 0xf4 ? 4
                                                 : 0;
  if (length == 0 || text.size() < length) return 0;
  for (size_t i = 1; i < length; ++i) {
    if (!is_continuation(static_cast<unsigned char>(text[i]))) return 0;
  }
  return length;
}

// The first carriage return or NUL byte in `text` (NUL only when `nul` says one may be there).
size_t find_separator(std::string_view text, bool nul) {
  const void* cr = std::memchr(text.data(), '\r', text.size());
  size_t at = cr ? static_cast<size_t>(static_cast<const char*>(cr) - text.data()) : text.size();
  if (nul) {
    const void* zero = std::memchr(text.data(), '\0', at);
    if (zero) at = static_cast<size_t>(static_cast<const char*>(zero) - text.data());
  }
  return at;
}

// The last carriage return or NUL byte in `text`, or npos.
size_t rfind_separator(std::string_view text) {
  const void* cr = memrchr(text.data(), '\r', text.size());
  const void* zero = memrchr(text.data(), '\0', text.size());
  const void* last = cr > zero ? cr : zero;
  return last ? static_cast<size_t>(static_cast<const char*>(last) - text.data()) : std::string_view::npos;
}

uint64_t count_newlines(std::string_view text);

}  // namespace

std::string LineReader::binary_reason(std::string_view head) {
  size_t nuls = 0;
  size_t bad = 0;
  for (size_t i = 0; i < head.size(); ++i) {
    auto byte = static_cast<unsigned char>(head[i]);
    if (byte == 0) {
      ++nuls;
    } else if (byte >= 0x80) {
      size_t length = utf8_sequence(head.substr(i));
      if (length == 0) {
        ++bad;
      } else {
        i += length - 1;
      }
    } else if ((byte < 0x20 && byte != '\t' && byte != '\n' && byte != '\r' && byte != '\f' && byte != '\v' &&
                byte != '\b' && byte != 0x1b) ||
               byte == 0x7f) {
      ++bad;
    }
  }
  size_t others = head.size() - nuls;
  if (others == 0 || bad * 10 <= others) return "";
  return "binary file (" + std::to_string(bad) + " of the " + std::to_string(others) +
         " bytes other than NUL in its first " + std::to_string(head.size()) +
         " are control bytes or invalid UTF-8), not a log";
}

// For lent bytes, which are all there: the binary windows at the start are passed over at once.
bool LineReader::check_head(std::string_view all) {
  if (checked_head_) return true;
  checked_head_ = true;
  std::string reason = binary_reason(all.substr(0, kBinaryCheckBytes));
  if (reason.empty()) return true;
  size_t start = 0;
  for (size_t window = 1;; ++window) {
    start += kBinaryCheckBytes;
    if (start >= all.size() || window == kBinaryHeadWindows) {
      status_ = Status::error(reason);
      return false;
    }
    if (binary_reason(all.substr(start, kBinaryCheckBytes)).empty()) break;
  }
  // The line that began in the binary is not read: reading starts after its end.
  const void* newline = std::memchr(all.data() + start, '\n', all.size() - start);
  size_t resume = newline ? static_cast<size_t>(static_cast<const char*>(newline) - all.data()) + 1 : start;
  stretches_.scan(all.substr(0, resume), 0);
  line_number_ = count_newlines(all.substr(0, resume));
  begin_ = end_ = window_ = resume;
  bytes_ = resume;
  return true;
}

// For copied bytes: the first `have` bytes of the buffer are the input's first; windows are
// passed over, the buffer refilled behind them, until one of text.
bool LineReader::pass_binary_head(std::string reason, size_t have) {
  char* buffer = buffer_.get();
  uint64_t lines_passed = 0;
  for (size_t window = 1;; ++window) {
    size_t passed = std::min<size_t>(have, kBinaryCheckBytes);
    stretches_.scan(std::string_view(buffer, passed), bytes_);
    lines_passed += count_newlines(std::string_view(buffer, passed));
    bytes_ += passed;
    std::memmove(buffer, buffer + passed, have - passed);
    have -= passed;
    while (have < kBinaryCheckBytes && !at_eof_ && status_) {
      auto n = source_.read(std::span<char>(buffer + have, kBinaryCheckBytes - have));
      if (!n) {
        status_ = Status::error(n.status().message());
      } else if (*n == 0) {
        at_eof_ = true;
      } else {
        have += *n;
      }
    }
    if (have == 0 || window == kBinaryHeadWindows) {
      if (status_) status_ = Status::error(reason);
      bytes_ = 0;  // none read as text, as when the bytes are lent
      return false;
    }
    if (binary_reason(std::string_view(buffer, std::min<size_t>(have, kBinaryCheckBytes))).empty()) break;
  }
  const void* newline = std::memchr(buffer, '\n', have);
  size_t resume = newline ? static_cast<size_t>(static_cast<const char*>(newline) - buffer) + 1 : 0;
  stretches_.scan(std::string_view(buffer, resume), bytes_);
  lines_passed += newline ? 1 : 0;
  bytes_ += resume;
  line_number_ = lines_passed;
  std::memmove(buffer, buffer + resume, have - resume);
  begin_ = 0;
  end_ = have - resume;
  note_nuls(0, end_);
  stretches_.scan(std::string_view(buffer, end_), bytes_);
  bytes_ += end_;
  ++refills_;
  return true;
}

void LineReader::note_nuls(size_t from, size_t to) {
  const char* base = data();
  const void* first = std::memchr(base + from, '\0', to - from);
  if (!first) return;
  size_t at = static_cast<size_t>(static_cast<const char*>(first) - base);
  if (first_nul_offset_ == UINT64_MAX) first_nul_offset_ = bytes_ + (at - from);
  nul_bytes_ += static_cast<uint64_t>(std::count(base + at, base + to, '\0'));
  last_nul_ = static_cast<size_t>(static_cast<const char*>(memrchr(base + at, '\0', to - at)) - base);
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
  if (!check_head(lent_)) return false;
  if (end_ == lent_.size()) {  // the binary head passed over ended in a line with no end
    at_eof_ = true;
    return false;
  }
  size_t n = std::min(block_bytes_, lent_.size() - end_);
  window_ = begin_;
  note_nuls(end_, end_ + n);
  stretches_.scan(std::string_view(lent_.data() + end_, n), bytes_);
  end_ += n;
  bytes_ += n;
  ++refills_;
  return true;
}

bool LineReader::fill() {
  if (at_eof_ || !status_) return false;
  if (!lent_.empty()) return lend();
  if (begin_ > 0) {
    std::memmove(buffer_.get(), buffer_.get() + begin_, end_ - begin_);
    last_nul_ = may_hold_nul(begin_) ? last_nul_ - begin_ : kNone;
    end_ -= begin_;
    begin_ = 0;
    ++refills_;  // the buffered bytes moved, even if nothing more is read
  }
  // The first block holds the whole head (kBinaryCheckBytes), however small the reads are, so
  // that whether the input is binary does not depend on how its bytes arrive.
  size_t want = std::min(capacity_ - end_,
                         checked_head_ ? block_bytes_ : std::max<size_t>(block_bytes_, kBinaryCheckBytes));
  size_t got = 0;
  while (got < want) {
    auto n = source_.read(std::span<char>(buffer_.get() + end_ + got, want - got));
    if (!n) {  // the bytes got before the error are read all the same
      status_ = Status::error(n.status().message());
      break;
    }
    if (*n == 0) {
      at_eof_ = true;  // never read again: a terminal gives one end of file per Ctrl-D
      break;
    }
    got += *n;
    if (checked_head_ || end_ + got >= kBinaryCheckBytes) break;
  }
  if (got == 0) return false;
  if (!checked_head_) {
    checked_head_ = true;
    std::string reason =
        binary_reason(std::string_view(buffer_.get(), std::min<size_t>(got, kBinaryCheckBytes)));
    if (!reason.empty()) return pass_binary_head(std::move(reason), got);
  }
  note_nuls(end_, end_ + got);
  stretches_.scan(std::string_view(buffer_.get() + end_, got), bytes_);
  end_ += got;
  bytes_ += got;
  ++refills_;
  return true;
}

bool LineReader::take_segment(Record& record) {
  while (!segments_.empty()) {
    if (segments_nul_ && segments_.front() == '\0') {
      segments_.remove_prefix(leading_nuls(segments_));
      continue;
    }
    size_t length = find_separator(segments_, segments_nul_);
    std::string_view segment = segments_.substr(0, length);
    segments_ = length < segments_.size() ? segments_.substr(length + 1) : std::string_view();
    if (segment.empty() && !segments_.empty()) continue;
    if (segment.size() > max_line_) {
      segment = segment.substr(0, max_line_);
      ++lines_cut_;
    }
    record = {segment, source_index_, line_number_, {}, 0, {}};
    return true;
  }
  return false;
}

bool LineReader::next(Record& record) {
  if (take_segment(record)) return true;
  for (;;) {
    const char* start = data() + begin_;
    size_t offset = begin_;
    size_t available = end_ - begin_;
    const void* newline = std::memchr(start, '\n', available);
    std::string_view line;
    bool ends_line = true;
    if (newline) {
      size_t length = static_cast<size_t>(static_cast<const char*>(newline) - start);
      begin_ += length + 1;
      line = std::string_view(start, length);
    } else if (available > max_line_) {
      // Too long so far: hand on its segments up to the last separator, and the line goes on.
      // Without one, the first max_line_ bytes are the line and the rest is skipped up to the
      // next separator or newline.
      ends_line = false;
      size_t last = rfind_separator(std::string_view(start, available));
      if (last != std::string_view::npos) {
        line = std::string_view(start, last + 1);  // the separator ends the last segment
        begin_ += last + 1;
      } else if (skipping_cut_line_) {
        begin_ += available;
        continue;
      } else {
        line = std::string_view(start, max_line_);
        begin_ += available;
        skipping_cut_line_ = true;
        ++lines_cut_;
        if (!continuing_) ++line_number_;
        continuing_ = true;
        record = {line, source_index_, line_number_, {}, 0, {}};
        return true;
      }
    } else if (fill()) {
      continue;
    } else if (end_ > begin_) {
      // The last line has no newline, or reading stopped in it (the bytes before damage are
      // read too). fill() may have moved the bytes: read them afresh.
      offset = begin_;
      line = std::string_view(data() + begin_, end_ - begin_);
      begin_ = end_;
    } else {
      return false;
    }
    bool continued = continuing_;
    if (!continuing_) ++line_number_;
    continuing_ = !ends_line;
    if (ends_line && !line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (continued && line.empty()) continue;  // the line was all handed on already
    bool nul = may_hold_nul(offset) && std::memchr(line.data(), '\0', line.size()) != nullptr;
    if (skipping_cut_line_) {  // the line starts with the rest of a segment cut before: skip it
      size_t separator = find_separator(line, nul);
      if (separator >= line.size()) {
        skipping_cut_line_ = skipping_cut_line_ && !ends_line;
        continue;
      }
      skipping_cut_line_ = false;
      line.remove_prefix(separator + 1);
    }
    if (!nul && line.size() <= max_line_ && std::memchr(line.data(), '\r', line.size()) == nullptr) {
      record = {line, source_index_, line_number_, {}, 0, {}};
      return true;
    }
    segments_ = line;
    segments_nul_ = nul;
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
  if (!segments_.empty() || skipping_cut_line_ || continuing_ || offset <= begin_) return 0;
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
