#include "ingest/envelope_reader.hpp"

#include <cstring>

#include "base/text.hpp"

namespace faultline::ingest {

EnvelopeReader::EnvelopeReader(std::unique_ptr<ByteSource> source, uint32_t source_index, std::string format)
    : source_(std::move(source)),
      source_index_(source_index),
      physical_(*source_, source_index, LineReader::kBlockBytes, kMaxRecordBytes),
      format_(std::move(format)) {}

bool EnvelopeReader::next(Record& record) {
  while (pending_next_ == pending_count_) {
    pending_next_ = pending_count_ = 0;
    if (!refill()) return false;
  }
  const Pending& line = pending_[pending_next_++];
  record.text = line.text;
  record.source = source_index_;
  record.line = line.line;
  record.host = line.host;
  record.pid = line.pid;
  record.time = line.time;
  return true;
}

// Decodes physical lines until something is pending or the input ends. LineReader hands out a
// line with carriage returns as several Records of one line number; they are joined again,
// since only the first segment carries the envelope's header.
bool EnvelopeReader::refill() {
  Record physical;
  while (pending_count_ == 0 && physical_.next(physical)) {
    if (holding_ && physical.line == held_number_) {
      if (held_.size() + 1 + physical.text.size() > kMaxRecordBytes) {
        held_cut_ = true;
        continue;
      }
      held_ += '\r';
      held_ += physical.text;
      continue;
    }
    bool had_one = holding_;
    uint64_t number = held_number_;
    if (had_one) std::swap(held_, decoding_);
    if (held_cut_) ++lines_cut_;
    held_cut_ = false;
    held_.assign(physical.text);
    held_number_ = physical.line;
    holding_ = true;
    if (had_one && !trim(decoding_).empty()) decode(decoding_, number);
  }
  if (pending_count_ > 0) return true;
  if (holding_) {
    holding_ = false;
    if (held_cut_) ++lines_cut_;
    held_cut_ = false;
    if (!trim(held_).empty()) decode(held_, held_number_);
  }
  if (!finished_) {
    finished_ = true;
    finish();
  }
  return pending_count_ > 0;
}

void EnvelopeReader::emit(std::string_view text, const LineInfo& info) {
  for (;;) {
    size_t newline = text.find('\n');
    std::string_view line = text.substr(0, newline);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find('\r') == std::string_view::npos) {
      push(line, info);
    } else {
      while (!line.empty()) {
        size_t cr = line.find('\r');
        std::string_view segment = line.substr(0, cr);
        line = cr == std::string_view::npos ? std::string_view() : line.substr(cr + 1);
        if (!segment.empty() || line.empty()) push(segment, info);
      }
    }
    if (newline == std::string_view::npos) return;
    text.remove_prefix(newline + 1);
  }
}

void EnvelopeReader::push(std::string_view text, const LineInfo& info) {
  if (text.size() > LineReader::kMaxLineBytes) {
    text = text.substr(0, LineReader::kMaxLineBytes);
    ++lines_cut_;
  }
  if (pending_count_ == pending_.size()) pending_.emplace_back();
  Pending& line = pending_[pending_count_++];
  line.text.assign(text);
  line.host.assign(info.host);
  line.line = info.record;
  line.pid = info.pid;
  line.time = info.time;
  ++lines_;
}

void EnvelopeReader::add_piece(PartialLine& partial, std::string_view piece, const LineInfo& info) {
  if (!partial.open) {
    partial.open = true;
    partial.cut = false;
    partial.text.clear();
    partial.info = info;
  }
  size_t room = LineReader::kMaxLineBytes - std::min(partial.text.size(), LineReader::kMaxLineBytes);
  if (piece.size() > room) {
    piece = piece.substr(0, room);
    partial.cut = true;
  }
  partial.text.append(piece);
}

void EnvelopeReader::end_line(PartialLine& partial) {
  if (!partial.open) return;
  partial.open = false;
  if (partial.cut) ++lines_cut_;
  emit(partial.text, partial.info);
}

void EnvelopeReader::bad_record(uint64_t record_number, std::string_view reason) {
  if (bad_lines_++ == 0) first_bad_line_ = std::to_string(record_number) + ": " + std::string(reason);
}

}  // namespace faultline::ingest
