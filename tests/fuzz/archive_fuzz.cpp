// Fuzz target: the archive reader (ingest::read_input: the sniff, libarchive's tar, zip and
// compressed streams, nested archives one level deep) under small expansion limits, every
// source it visits read to its end.
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "ingest/archive_reader.hpp"
#include "ingest/byte_source.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace faultline::ingest;
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto raw = memory_source(bytes, /*lend=*/false);
  ExpansionLimits limits;
  limits.max_total_bytes = uint64_t{64} << 20;
  limits.max_ratio = 200;
  limits.ratio_grace_bytes = uint64_t{1} << 20;
  auto visit = [](SourceInfo /*info*/, ByteSource& source) {
    std::array<char, 64 * 1024> buffer;
    while (true) {
      auto got = source.read(buffer);
      if (!got || *got == 0) break;
    }
  };
  auto skip = [](Skipped /*skipped*/) {};
  read_input("fuzz.tar", std::nullopt, *raw, limits, visit, skip);
  return 0;
}
