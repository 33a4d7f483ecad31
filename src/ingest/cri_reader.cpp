// CRI container logs (containerd, CRI-O): `<RFC 3339 time> <stdout|stderr> <P|F> <text>` per
// line, where P marks a partial line that the next records of the same stream continue until
// an F. Parsed without JSON.
#include <array>

#include "ingest/envelope_reader.hpp"
#include "ingest/envelope_time.hpp"

namespace faultline::ingest {
namespace {

class CriReader final : public EnvelopeReader {
 public:
  CriReader(std::unique_ptr<ByteSource> source, uint32_t source_index)
      : EnvelopeReader(std::move(source), source_index, "cri") {}

 private:
  void decode(std::string_view text, uint64_t record_number) override {
    size_t time_end = text.find(' ');
    Timestamp time = parse_rfc3339(text.substr(0, time_end));
    if (!time.valid) return bad_record(record_number, "not a CRI log line, line skipped");
    text.remove_prefix(time_end + 1);
    size_t stream;
    if (text.starts_with("stdout ")) {
      stream = 0;
    } else if (text.starts_with("stderr ")) {
      stream = 1;
    } else {
      return bad_record(record_number, "not a CRI log line, line skipped");
    }
    text.remove_prefix(7);
    // The tag is P or F, possibly followed by more ':'-separated tags in later versions.
    size_t tag_end = text.find(' ');
    std::string_view tag = text.substr(0, tag_end);
    if (tag.empty() || (tag.front() != 'P' && tag.front() != 'F')) {
      return bad_record(record_number, "not a CRI log line, line skipped");
    }
    text = tag_end == std::string_view::npos ? std::string_view() : text.substr(tag_end + 1);
    add_piece(partial_[stream], text, {record_number, time, {}, 0});
    if (tag.front() == 'F') end_line(partial_[stream]);
  }

  // A dangling P at the end (the container stopped mid-line) is still a line.
  void finish() override {
    for (auto& partial : partial_) end_line(partial);
  }

  std::array<PartialLine, 2> partial_;  // stdout, stderr
};

}  // namespace

std::unique_ptr<RecordReader> make_cri_reader(std::unique_ptr<ByteSource> source, uint32_t source_index) {
  return std::make_unique<CriReader>(std::move(source), source_index);
}

}  // namespace faultline::ingest
