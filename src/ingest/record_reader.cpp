#include "ingest/record_reader.hpp"

#include "ingest/line_reader.hpp"

namespace faultline::ingest {

std::unique_ptr<RecordReader> open_records(ByteSource& source, uint32_t source_index) {
  return std::make_unique<LineReader>(source, source_index);
}

}  // namespace faultline::ingest
