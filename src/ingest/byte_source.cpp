#include "ingest/byte_source.hpp"

#include <archive.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string_view>
#include <vector>

#include "ingest/mapped_file.hpp"

namespace faultline::ingest {
namespace {

class FileSource final : public ByteSource {
 public:
  FileSource(int fd, bool owned) : fd_(fd), owned_(owned), mapped_(MappedFile::map(fd)) {}
  ~FileSource() override {
    mapped_.reset();
    if (owned_) ::close(fd_);
  }
  FileSource(const FileSource&) = delete;
  FileSource& operator=(const FileSource&) = delete;

  Result<size_t> read(std::span<char> buffer) override {
    if (mapped_) {
      std::string_view rest = mapped_->bytes().substr(consumed_);
      size_t n = std::min(buffer.size(), rest.size());
      std::memcpy(buffer.data(), rest.data(), n);
      if (mapped_->shrank()) return Status::error(in_memory_error());  // the copy may hold zeros
      consumed_ += n;
      return n;
    }
    // After an end of file, never read again: a terminal gives one per Ctrl-D, and a paste
    // must end at the first (the format sniff meets it before the line reader does).
    if (at_eof_) return size_t{0};
    for (;;) {
      ssize_t n = ::read(fd_, buffer.data(), buffer.size());
      if (n >= 0) {
        consumed_ += static_cast<uint64_t>(n);
        at_eof_ = n == 0 && buffer.size() > 0;
        return static_cast<size_t>(n);
      }
      if (errno != EINTR) return Status::error(std::strerror(errno));
    }
  }
  std::string_view in_memory() const override { return mapped_ ? mapped_->bytes() : std::string_view(); }
  uint64_t consumed() const override { return consumed_; }
  void release_before(uint64_t offset) override {
    if (mapped_) mapped_->release_before(offset);
  }
  std::string in_memory_error() const override {
    if (!mapped_ || !mapped_->shrank()) return "";
    return "the file could not be read to its end (it shrank from " +
           std::to_string(mapped_->bytes().size()) + " to " + std::to_string(MappedFile::size_now(fd_)) +
           " bytes while it was read, or the disk failed); bytes from there on read as zeros";
  }

 private:
  int fd_;
  bool owned_;
  std::unique_ptr<MappedFile> mapped_;
  uint64_t consumed_ = 0;
  bool at_eof_ = false;
};

class MemorySource final : public ByteSource {
 public:
  MemorySource(std::string_view bytes, bool lend) : whole_(bytes), bytes_(bytes), lend_(lend) {}
  Result<size_t> read(std::span<char> buffer) override {
    size_t n = std::min(buffer.size(), bytes_.size());
    std::memcpy(buffer.data(), bytes_.data(), n);
    bytes_.remove_prefix(n);
    return n;
  }
  std::string_view in_memory() const override { return lend_ ? whole_ : std::string_view(); }
  uint64_t consumed() const override { return whole_.size() - bytes_.size(); }

 private:
  std::string_view whole_;
  std::string_view bytes_;
  bool lend_;
};

// Replays bytes already read (to sniff the format), then reads on from the rest, which it
// owns when it is given ownership and otherwise only borrows.
class ReplaySource final : public ByteSource {
 public:
  ReplaySource(std::string prefix, ByteSource& rest) : prefix_(std::move(prefix)), rest_(rest) {}
  ReplaySource(std::string prefix, std::unique_ptr<ByteSource> owned)
      : prefix_(std::move(prefix)), owned_(std::move(owned)), rest_(*owned_) {}
  Result<size_t> read(std::span<char> buffer) override {
    if (offset_ < prefix_.size()) {
      size_t n = std::min(buffer.size(), prefix_.size() - offset_);
      std::memcpy(buffer.data(), prefix_.data() + offset_, n);
      offset_ += n;
      return n;
    }
    auto n = rest_.read(buffer);
    if (n) forwarded_ += *n;
    return n;
  }
  std::string format() const override { return rest_.format(); }
  // The rest's bytes, when the prefix is exactly what was taken from their start.
  std::string_view in_memory() const override {
    std::string_view whole = rest_.in_memory();
    if (whole.empty() || rest_.consumed() != prefix_.size() + forwarded_ || !whole.starts_with(prefix_))
      return {};
    return whole;
  }
  uint64_t consumed() const override { return offset_ + forwarded_; }
  void release_before(uint64_t offset) override { rest_.release_before(offset); }
  std::string in_memory_error() const override { return rest_.in_memory_error(); }

 private:
  std::string prefix_;
  std::unique_ptr<ByteSource> owned_;
  ByteSource& rest_;
  size_t offset_ = 0;
  uint64_t forwarded_ = 0;  // bytes read from the rest after the prefix
};

// Decodes a compressed stream with libarchive's filters ("raw" format: one stream, no
// archive structure). Reads its input through a ReplaySource.
class DecompressingSource final : public ByteSource {
 public:
  DecompressingSource(std::unique_ptr<ByteSource> inner, std::string format)
      : inner_(std::move(inner)), format_(std::move(format)), archive_(archive_read_new()) {
    archive_read_support_filter_all(archive_);
    archive_read_support_format_raw(archive_);
    input_.resize(1 << 16);
  }
  ~DecompressingSource() override { archive_read_free(archive_); }
  DecompressingSource(const DecompressingSource&) = delete;
  DecompressingSource& operator=(const DecompressingSource&) = delete;

  Status open() {
    if (archive_read_open(archive_, this, nullptr, &DecompressingSource::read_callback, nullptr) !=
            ARCHIVE_OK ||
        archive_read_next_header(archive_, &entry_) != ARCHIVE_OK) {
      return Status::error(error_text());
    }
    return Status::ok();
  }

  Result<size_t> read(std::span<char> buffer) override {
    la_ssize_t n = archive_read_data(archive_, buffer.data(), buffer.size());
    if (n < 0) {
      return Status::error(error_text() + " after " + std::to_string(produced_) +
                           " bytes of decompressed data");
    }
    produced_ += static_cast<uint64_t>(n);
    return static_cast<size_t>(n);
  }

  std::string format() const override { return format_; }

 private:
  static la_ssize_t read_callback(struct archive*, void* self_ptr, const void** block) {
    auto* self = static_cast<DecompressingSource*>(self_ptr);
    auto n = self->inner_->read(self->input_);
    if (!n) {
      self->inner_error_ = n.status().message();
      return -1;
    }
    *block = self->input_.data();
    return static_cast<la_ssize_t>(*n);
  }

  std::string error_text() const {
    if (!inner_error_.empty()) return inner_error_;
    const char* text = archive_error_string(archive_);
    return std::string(format_) + " stream: " + (text ? text : "unreadable");
  }

  std::unique_ptr<ByteSource> inner_;
  std::string format_;
  struct archive* archive_;
  struct archive_entry* entry_ = nullptr;
  std::vector<char> input_;
  std::string inner_error_;
  uint64_t produced_ = 0;
};

}  // namespace

std::string_view compression_of(std::string_view head) {
  auto starts = [&](std::string_view magic) { return head.starts_with(magic); };
  if (starts("\x1f\x8b")) return "gzip";
  if (starts("\x28\xb5\x2f\xfd")) return "zstd";
  if (starts("\xfd"
             "7zXZ"))
    return "xz";
  if (starts("BZh") && head.size() > 3 && head[3] >= '1' && head[3] <= '9') return "bzip2";
  return {};
}

std::unique_ptr<ByteSource> memory_source(std::string_view bytes, bool lend) {
  return std::make_unique<MemorySource>(bytes, lend);
}

std::unique_ptr<ByteSource> replay_source(std::string prefix, ByteSource& rest) {
  return std::make_unique<ReplaySource>(std::move(prefix), rest);
}

Result<std::unique_ptr<ByteSource>> decode(std::unique_ptr<ByteSource> raw) {
  std::string head(6, '\0');
  size_t filled = 0;
  while (filled < head.size()) {
    auto n = raw->read(std::span<char>(head.data() + filled, head.size() - filled));
    if (!n) return n.status();
    if (*n == 0) break;
    filled += *n;
  }
  head.resize(filled);
  std::string_view compression = compression_of(head);
  auto prefixed = std::make_unique<ReplaySource>(std::move(head), std::move(raw));
  if (compression.empty()) return std::unique_ptr<ByteSource>(std::move(prefixed));
  auto decoder = std::make_unique<DecompressingSource>(std::move(prefixed), std::string(compression));
  if (Status status = decoder->open(); !status) return status;
  return std::unique_ptr<ByteSource>(std::move(decoder));
}

Result<std::unique_ptr<ByteSource>> open_path(const std::string& path) {
  auto raw = open_file(path);
  if (!raw) return raw.status();
  return decode(std::move(*raw));
}

Result<std::unique_ptr<ByteSource>> open_file(const std::string& path) {
  if (path == "-") return std::unique_ptr<ByteSource>(std::make_unique<FileSource>(STDIN_FILENO, false));
  // Without O_NONBLOCK, opening a FIFO waits for a writer, perhaps forever, and every input
  // after it waits too. Once open, a FIFO with no writer reads as empty, and one with a writer
  // (a shell's <(zcat run.log.gz)) is read as it comes.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return Status::error(std::strerror(errno));
  struct stat info {};
  if (::fstat(fd, &info) != 0) {
    int error = errno;
    ::close(fd);
    return Status::error(std::strerror(error));
  }
  const char* refused = S_ISDIR(info.st_mode)    ? "is a directory"
                        : S_ISCHR(info.st_mode)  ? "is a character device, not a log"
                        : S_ISBLK(info.st_mode)  ? "is a block device, not a log"
                        : S_ISSOCK(info.st_mode) ? "is a socket, not a log"
                                                 : nullptr;
  if (refused) {
    ::close(fd);
    return Status::error(refused);
  }
  int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0) ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  if (S_ISREG(info.st_mode)) ::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
  return std::unique_ptr<ByteSource>(std::make_unique<FileSource>(fd, true));
}

}  // namespace faultline::ingest
