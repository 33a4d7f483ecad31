#include "ingest/binary_stretches.hpp"

#include <algorithm>
#include <cstring>

#include "base/text.hpp"
#ifdef __SSE2__
#include <emmintrin.h>
#endif

namespace faultline::ingest {
namespace {

bool is_continuation(unsigned char byte) {
  return (byte & 0xc0) == 0x80;
}

// The length a UTF-8 lead byte (0x80 or more) announces, or 0 when it leads nothing.
size_t sequence_length(unsigned char lead) {
  return lead >= 0xc2 && lead <= 0xdf   ? 2
         : lead >= 0xe0 && lead <= 0xef ? 3
         : lead >= 0xf0 && lead <= 0xf4 ? 4
                                        : 0;
}

// Control bytes that text uses: tab, newline, carriage return, escape (ANSI colours), and the
// rarer backspace, form feed and vertical tab.
bool is_text_control(unsigned char byte) {
  return byte == '\t' || byte == '\n' || byte == '\r' || byte == 0x1b || byte == '\b' || byte == '\f' ||
         byte == '\v';
}

}  // namespace

void BinaryStretches::scan(std::string_view block, uint64_t offset) {
  size_t i = 0;
  // The end of a UTF-8 sequence that began in the last block.
  while (continuation_owed_ > 0 && i < block.size()) {
    if (!is_continuation(static_cast<unsigned char>(block[i]))) {
      binary_byte(owed_lead_, false);
      continuation_owed_ = 0;
      break;
    }
    ++i;
    --continuation_owed_;
  }
  // Looks at the byte at i and returns where to look next.
  auto classify = [&](size_t at) -> size_t {
    auto byte = static_cast<unsigned char>(block[at]);
    if ((byte >= 0x20 && byte < 0x7f) || is_text_control(byte)) return at + 1;
    if (byte == 0) {
      size_t run = leading_nuls(block.substr(at));
      binary_run(offset + at, run);
      return at + run;
    }
    size_t length = byte >= 0x80 ? sequence_length(byte) : 0;
    if (length == 0) {
      binary_byte(offset + at, false);
      return at + 1;
    }
    size_t have = std::min(length, block.size() - at);
    for (size_t k = 1; k < have; ++k) {
      if (!is_continuation(static_cast<unsigned char>(block[at + k]))) {
        binary_byte(offset + at, false);
        return at + 1;
      }
    }
    if (have < length) {
      continuation_owed_ = length - have;
      owed_lead_ = offset + at;
    }
    return at + have;
  };
#ifdef __SSE2__
  // 16 bytes at a time: only a block with a byte below 0x20 (other than tab, newline, CR, ESC),
  // DEL, or one of 0x80 and above is looked at byte by byte. (A signed compare with 0x20 finds
  // both the control bytes and the high ones.)
  const __m128i space = _mm_set1_epi8(0x20);
  const __m128i zero = _mm_setzero_si128();
  while (i + 16 <= block.size()) {
    __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(block.data() + i));
    __m128i text_controls = _mm_or_si128(
        _mm_or_si128(_mm_cmpeq_epi8(bytes, _mm_set1_epi8('\n')), _mm_cmpeq_epi8(bytes, _mm_set1_epi8('\t'))),
        _mm_or_si128(_mm_cmpeq_epi8(bytes, _mm_set1_epi8('\r')), _mm_cmpeq_epi8(bytes, _mm_set1_epi8(0x1b))));
    __m128i flagged = _mm_or_si128(_mm_andnot_si128(text_controls, _mm_cmpgt_epi8(space, bytes)),
                                   _mm_cmpeq_epi8(bytes, _mm_set1_epi8(0x7f)));
    if (_mm_movemask_epi8(flagged) == 0) {
      i += 16;
      continue;
    }
    if (_mm_movemask_epi8(_mm_cmpeq_epi8(bytes, zero)) == 0xffff) {
      size_t run = leading_nuls(block.substr(i));
      binary_run(offset + i, run);
      i += run;
      continue;
    }
    for (size_t stop = i + 16; i < stop;) i = classify(i);
  }
#endif
  while (i < block.size()) i = classify(i);
}

void BinaryStretches::binary_byte(uint64_t at, bool nul) {
  if (open_binary_ > 0 && at <= open_.offset + open_.length + kBridge) {
    open_.length = std::max(open_.length, at + 1 - open_.offset);
    open_.nul = open_.nul && nul;
    ++open_binary_;
    return;
  }
  close();
  open_ = {at, 1, nul};
  open_binary_ = 1;
}

void BinaryStretches::binary_run(uint64_t at, uint64_t length) {
  if (length == 0) return;
  binary_byte(at, true);
  open_.length = std::max(open_.length, at + length - open_.offset);
  open_binary_ += length - 1;
}

void BinaryStretches::close() {
  if (open_counts()) {
    ++count_;
    bytes_ += open_.length;
    if (kept_.size() < kKept) kept_.push_back(open_);
  }
  open_binary_ = 0;
}

std::vector<ByteStretch> BinaryStretches::first() const {
  std::vector<ByteStretch> out = kept_;
  if (open_counts() && out.size() < kKept) out.push_back(open_);
  return out;
}

}  // namespace faultline::ingest
