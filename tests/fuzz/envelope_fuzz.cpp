// Fuzz target: the envelope readers (CRI, docker json-file, journald JSON, JSON lines,
// torchelastic error.json), each over the same bytes, and the sniffing reader that picks one.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

#include "ingest/byte_source.hpp"
#include "ingest/envelope_reader.hpp"
#include "ingest/record_reader.hpp"

namespace {

using namespace faultline::ingest;

void drain(RecordReader& reader) {
  Record record;
  while (reader.next(record)) {
  }
  reader.bad_lines();
  reader.first_bad_line();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  drain(*make_cri_reader(memory_source(bytes), 0));
  for (JsonEnvelope kind : {JsonEnvelope::docker, JsonEnvelope::journald, JsonEnvelope::json_lines,
                            JsonEnvelope::torchelastic_error}) {
    drain(*make_json_reader(kind, memory_source(bytes), 0));
  }
  // Not lent: the readers copy from read() as they do from stdin.
  auto source = memory_source(bytes, /*lend=*/false);
  drain(*open_records(*source, 0));
  return 0;
}
