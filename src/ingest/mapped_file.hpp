// MappedFile: a regular file mapped into memory read-only, so that a reader can take views of
// its bytes instead of copying them out of the kernel (for a large log, the copy was a seventh
// of the time). Used by the file source for files of at least kMapFrom bytes.
//
// A file that shrinks while it is mapped (a log rotated by copytruncate) would kill the process
// with SIGBUS at the first access past its new end. A SIGBUS handler, installed with the first
// mapping, puts zero-filled pages over the rest of such a mapping instead and marks it shrunk,
// and the reader reports the file; a SIGBUS anywhere else keeps its default action.
//
// A file that grows while mapped is read up to its size when it was opened.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>

namespace faultline::ingest {

class MappedFile {
 public:
  static constexpr uint64_t kMapFrom = uint64_t{1} << 20;

  // Null when `fd` is not a regular file of at least kMapFrom bytes at offset 0, or cannot be
  // mapped (then read it). The file descriptor stays the caller's.
  static std::unique_ptr<MappedFile> map(int fd);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  std::string_view bytes() const { return {static_cast<const char*>(address_), size_}; }
  // Drops the pages before `offset` from this process's memory (they are read again if touched),
  // which keeps the resident size bounded while a large file is read from start to end.
  void release_before(uint64_t offset);
  // Whether a read of the mapping failed (SIGBUS: the file shrank under it, or an I/O error):
  // the bytes from that page on read as zeros.
  bool shrank() const;
  // The size of the file open as `fd` now, for the report of a shrunk one.
  static uint64_t size_now(int fd);

 private:
  MappedFile(void* address, uint64_t size, size_t slot) : address_(address), size_(size), slot_(slot) {}
  void* address_;
  uint64_t size_;
  size_t slot_;  // in the table the SIGBUS handler reads
  uint64_t released_ = 0;
};

}  // namespace faultline::ingest
