#include "ingest/byte_source.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string_view>

#include "ingest/mapped_file.hpp"
#include "ingest/stream_decoder.hpp"

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
  std::optional<uint64_t> damage_offset() const override { return rest_.damage_offset(); }

 private:
  std::string prefix_;
  std::unique_ptr<ByteSource> owned_;
  ByteSource& rest_;
  size_t offset_ = 0;
  uint64_t forwarded_ = 0;  // bytes read from the rest after the prefix
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
  return decoding_source(std::move(prefixed), compression);
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
