#include "ingest/archive_reader.hpp"

#include <archive.h>
#include <archive_entry.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <vector>

#include "ingest/path_hints.hpp"
#include "ingest/stream_decoder.hpp"

namespace faultline::ingest {
namespace {

constexpr size_t kSniffBytes = size_t{64} << 10;
// Reads from an archive's input go in blocks this large; a member's compressed size is known
// only to this granularity, so ratios are computed against at least one block.
constexpr size_t kReadBlock = size_t{64} << 10;

std::string describe_size(uint64_t bytes) {
  if (bytes >= (uint64_t{1} << 30) && bytes % (uint64_t{1} << 30) == 0)
    return std::to_string(bytes >> 30) + " GiB";
  if (bytes >= (uint64_t{1} << 20) && bytes % (uint64_t{1} << 20) == 0)
    return std::to_string(bytes >> 20) + " MiB";
  return std::to_string(bytes) + " bytes";
}

// What one input may still expand to; shared by all its members, nested ones included.
struct Budget {
  const ExpansionLimits& limits;
  uint64_t expanded = 0;
  std::string exhausted;  // why nothing more of the input is read
};

// The limit that `expanded` bytes produced from `consumed` compressed ones break, or "".
// Each produced byte must already be added to budget.expanded.
std::string check_limits(Budget& budget, uint64_t expanded, uint64_t consumed) {
  const ExpansionLimits& limits = budget.limits;
  if (budget.expanded > limits.max_total_bytes) {
    budget.exhausted = "expanded size over the " + describe_size(limits.max_total_bytes) + " limit";
    return budget.exhausted;
  }
  if (expanded > limits.ratio_grace_bytes &&
      expanded / std::max<uint64_t>(consumed, kReadBlock) >= limits.max_ratio) {
    return "expansion ratio over " + std::to_string(limits.max_ratio) + ":1 (zip bomb?)";
  }
  return {};
}

// Counts the bytes read through it.
class CountingSource final : public ByteSource {
 public:
  explicit CountingSource(ByteSource& inner) : inner_(inner) {}
  Result<size_t> read(std::span<char> buffer) override {
    auto n = inner_.read(buffer);
    if (n) bytes_ += *n;
    return n;
  }
  std::string format() const override { return inner_.format(); }
  uint64_t bytes() const { return bytes_; }  // through read(): not what a reader took as a view
  // The inner source's bytes, when everything taken from it came through here.
  std::string_view in_memory() const override {
    return inner_.consumed() == bytes_ ? inner_.in_memory() : std::string_view();
  }
  uint64_t consumed() const override { return bytes_; }
  void release_before(uint64_t offset) override { inner_.release_before(offset); }
  std::string in_memory_error() const override { return inner_.in_memory_error(); }
  std::optional<uint64_t> damage_offset() const override { return inner_.damage_offset(); }

 private:
  ByteSource& inner_;
  uint64_t bytes_ = 0;
};

// A decompressed stream held to the limits; `raw` counts the compressed bytes under it.
class LimitedSource final : public ByteSource {
 public:
  LimitedSource(std::unique_ptr<ByteSource> decoded, const CountingSource& raw, Budget& budget)
      : decoded_(std::move(decoded)), raw_(raw), budget_(budget) {}
  Result<size_t> read(std::span<char> buffer) override {
    if (!error_.empty()) return Status::error(error_);
    auto n = decoded_->read(buffer);
    if (!n) return n;
    expanded_ += *n;
    budget_.expanded += *n;
    error_ = check_limits(budget_, expanded_, raw_.bytes());
    if (!error_.empty()) return Status::error(error_);
    return n;
  }
  std::string format() const override { return decoded_->format(); }
  std::optional<uint64_t> damage_offset() const override { return decoded_->damage_offset(); }

 private:
  std::unique_ptr<ByteSource> decoded_;
  const CountingSource& raw_;
  Budget& budget_;
  uint64_t expanded_ = 0;
  std::string error_;
};

// libarchive's reading side of one archive: its input, and what came in and out of it.
struct ArchiveInput {
  explicit ArchiveInput(ByteSource& input) : source(input), block(kReadBlock) {}

  static la_ssize_t read_callback(struct archive*, void* self_ptr, const void** data) {
    auto* self = static_cast<ArchiveInput*>(self_ptr);
    auto n = self->source.read(self->block);
    if (!n) {
      self->error = n.status().message();
      return -1;
    }
    self->consumed += *n;
    *data = self->block.data();
    return static_cast<la_ssize_t>(*n);
  }

  std::string error_text(struct archive* archive) const {
    if (!error.empty()) return error;
    const char* text = archive_error_string(archive);
    std::string what = text ? text : "unreadable archive";
    while (!what.empty() && std::isspace(static_cast<unsigned char>(what.back()))) what.pop_back();
    return what + " at byte " + std::to_string(damage_offset(archive)) +
           (compressed ? " of the decompressed archive" : "");
  }
  // Where libarchive stopped: the input's own damage (a compressed archive's stream), or the
  // byte of the archive it had read up to when its format went wrong.
  uint64_t damage_offset(struct archive* archive) const {
    if (!error.empty()) return source.damage_offset().value_or(consumed);
    return static_cast<uint64_t>(std::max<la_int64_t>(archive_filter_bytes(archive, 0), 0));
  }

  ByteSource& source;
  std::vector<char> block;
  uint64_t consumed = 0;  // bytes libarchive took from `source`
  uint64_t expanded = 0;  // bytes of all members, as read
  std::string error;      // the input's own read error
  std::string stopped;    // why the rest of the archive is not read
  std::string format = "archive";
  const CountingSource* compressed = nullptr;  // the stream `source` decodes, if any

  // The bytes read of the input as stored, against which expansion is measured.
  uint64_t stored_bytes() const { return compressed ? compressed->bytes() : consumed; }
};

// One member, read straight out of the archive, block by block: archive_read_data would drop
// the bytes it had copied in a call whose next block fails, and damage must cost only what
// lies after it.
class MemberSource final : public ByteSource {
 public:
  MemberSource(struct archive* archive, ArchiveInput& input, Budget& budget)
      : archive_(archive), input_(input), budget_(budget), consumed_at_start_(input.stored_bytes()) {}
  Result<size_t> read(std::span<char> buffer) override {
    if (!error_.empty()) return Status::error(error_);
    while (hole_ == 0 && block_.empty()) {
      if (!damage_.empty()) {
        error_ = damage_;
        return Status::error(error_);
      }
      if (ended_) return size_t{0};
      next_block();
    }
    size_t n = 0;
    if (hole_ > 0) {
      n = static_cast<size_t>(std::min<uint64_t>(buffer.size(), hole_));
      std::memset(buffer.data(), 0, n);
      hole_ -= n;
    } else {
      n = std::min(buffer.size(), block_.size());
      std::memcpy(buffer.data(), block_.data(), n);
      block_.remove_prefix(n);
    }
    position_ += n;
    auto produced = static_cast<uint64_t>(n);
    expanded_ += produced;
    input_.expanded += produced;
    budget_.expanded += produced;
    error_ = check_limits(budget_, expanded_, input_.stored_bytes() - consumed_at_start_);
    if (!error_.empty()) {
      input_.expanded -= expanded_;  // rejected: it must not make the next members look like bombs
    } else {
      std::string whole = check_limits(budget_, input_.expanded, input_.stored_bytes());
      if (!whole.empty()) error_ = input_.stopped = whole;
    }
    if (!error_.empty()) return Status::error(error_);
    return n;
  }
  std::string format() const override { return input_.format; }
  std::optional<uint64_t> damage_offset() const override { return damage_offset_; }
  bool failed() const { return !error_.empty(); }

 private:
  // The member's next block from libarchive, valid until the archive is called again (only this
  // source calls it meanwhile). A damaged one is given as far as libarchive gave it, then fails.
  void next_block() {
    const void* data = nullptr;
    size_t size = 0;
    la_int64_t offset = 0;
    int status = archive_read_data_block(archive_, &data, &size, &offset);
    if (status == ARCHIVE_EOF) {
      ended_ = true;
      return;
    }
    if (status == ARCHIVE_OK || status == ARCHIVE_WARN) {
      // A sparse member's hole reads as zeros.
      if (offset > 0 && static_cast<uint64_t>(offset) > position_)
        hole_ = static_cast<uint64_t>(offset) - position_;
      if (data) block_ = std::string_view(static_cast<const char*>(data), size);
    }
    if (status != ARCHIVE_OK) {
      damage_ = input_.error_text(archive_);
      damage_offset_ = input_.damage_offset(archive_);
    }
  }

  struct archive* archive_;
  ArchiveInput& input_;
  Budget& budget_;
  uint64_t consumed_at_start_;
  uint64_t expanded_ = 0;
  uint64_t position_ = 0;   // bytes of the member given
  uint64_t hole_ = 0;       // zeros to give before block_
  std::string_view block_;  // what is left of libarchive's last block
  bool ended_ = false;
  std::string damage_;  // why the member cannot be read past block_
  std::string error_;
  std::optional<uint64_t> damage_offset_;  // not set for a limit
};

struct ArchiveDeleter {
  void operator()(struct archive* archive) const { archive_read_free(archive); }
};
using ArchivePtr = std::unique_ptr<struct archive, ArchiveDeleter>;

// The first bytes of a compressed stream, decompressed (as many as `prefix` yields, up to 512).
std::string decompressed_head(const std::string& prefix) {
  auto decoded = decoding_source(memory_source(prefix, false), compression_of(prefix));
  std::string head(512, '\0');
  size_t filled = 0;
  while (filled < head.size()) {
    auto n = decoded->read(std::span<char>(head.data() + filled, head.size() - filled));
    if (!n || *n == 0) break;
    filled += *n;
  }
  head.resize(filled);
  return head;
}

enum class Content { plain, compressed, archive };

Content classify(const std::string& prefix) {
  auto is_tar = [](std::string_view head) { return head.size() >= 262 && head.substr(257, 5) == "ustar"; };
  std::string_view head = prefix;
  if (head.starts_with("PK\x03\x04") || head.starts_with("PK\x05\x06") || head.starts_with("PK\x07\x08")) {
    return Content::archive;
  }
  if (is_tar(head)) return Content::archive;
  if (compression_of(head).empty()) return Content::plain;
  return is_tar(decompressed_head(prefix)) ? Content::archive : Content::compressed;
}

// "tar", "zip", "tar.gz", ...: `compression` is the stream the archive was decoded from, or "".
std::string short_format_name(struct archive* archive, std::string_view compression) {
  std::string format =
      (archive_format(archive) & ARCHIVE_FORMAT_BASE_MASK) == ARCHIVE_FORMAT_ZIP ? "zip" : "tar";
  if (compression == "gzip") return format + ".gz";
  if (compression == "zstd") return format + ".zst";
  if (compression == "xz") return format + ".xz";
  if (compression == "bzip2") return format + ".bz2";
  return format;
}

struct Walk {
  const SourceVisitor& visit;
  const SkipVisitor& skip;
  Budget budget;
};

void read_stream(const std::string& name, std::optional<int> rank_hint, ByteSource& raw, int depth,
                 Walk& walk);

// `source` holds the archive's own bytes; when they were decoded from a compressed stream,
// `compressed` counts that stream's bytes. libarchive reads the format only, so that damage in a
// compressed stream costs only what lies after it (stream_decoder.hpp).
void read_archive(const std::string& name, std::optional<int> rank_hint, ByteSource& source,
                  const CountingSource* compressed, int depth, Walk& walk) {
  ArchiveInput input(source);
  input.compressed = compressed;
  std::string compression = compressed ? source.format() : "";
  ArchivePtr archive(archive_read_new());
  archive_read_support_format_tar(archive.get());
  archive_read_support_format_zip_streamable(archive.get());
  if (archive_read_open(archive.get(), &input, nullptr, &ArchiveInput::read_callback, nullptr) !=
      ARCHIVE_OK) {
    walk.skip({name, input.error_text(archive.get()), input.damage_offset(archive.get())});
    return;
  }
  std::string last_member;
  bool last_failed = false;
  uint64_t members = 0;
  for (;;) {
    struct archive_entry* entry = nullptr;
    int status = archive_read_next_header(archive.get(), &entry);
    if (status == ARCHIVE_EOF) break;
    if (status != ARCHIVE_OK && status != ARCHIVE_WARN) {
      // A member that failed has said why already; the archive cannot go on after it.
      if (!last_failed) {
        std::string where = last_member.empty() ? "" : " (after " + last_member + ")";
        walk.skip({name, input.error_text(archive.get()) + where, input.damage_offset(archive.get())});
      }
      return;
    }
    if (members == 0) input.format = short_format_name(archive.get(), compression);
    const char* path = archive_entry_pathname_utf8(entry);
    if (!path) path = archive_entry_pathname(entry);
    std::string raw_member_path = path ? path : "";
    std::string member_path = printable_name(raw_member_path);
    std::string member_name = name + ":" + member_path;
    auto type = archive_entry_filetype(entry);
    if (type == AE_IFDIR) continue;
    if (const char* target = archive_entry_hardlink(entry)) {
      walk.skip({member_name, "hard link to " + printable_name(target) + ", not read twice"});
      continue;
    }
    if (type != AE_IFREG) {
      walk.skip({member_name, type == AE_IFLNK ? "symbolic link, not followed" : "not a regular file"});
      continue;
    }
    ++members;
    last_member = member_path;
    MemberSource member(archive.get(), input, walk.budget);
    auto member_hint = rank_from_path(raw_member_path);
    read_stream(member_name, member_hint ? member_hint : rank_hint, member, depth, walk);
    last_failed = member.failed();
    std::string stopped = !walk.budget.exhausted.empty() ? walk.budget.exhausted : input.stopped;
    if (!stopped.empty()) {
      walk.skip({name, stopped + "; the members after " + member_path + " were not read"});
      return;
    }
  }
  if (members == 0) walk.skip({name, "archive holds no files"});
}

// `depth` counts the archives `raw` is inside of.
void read_stream(const std::string& name, std::optional<int> rank_hint, ByteSource& raw, int depth,
                 Walk& walk) {
  CountingSource counted(raw);
  std::string prefix(kSniffBytes, '\0');
  size_t filled = 0;
  while (filled < prefix.size()) {
    // A read error ends the sniffing; whoever reads on meets it again and reports it.
    auto n = counted.read(std::span<char>(prefix.data() + filled, prefix.size() - filled));
    if (!n || *n == 0) break;
    filled += *n;
  }
  prefix.resize(filled);
  Content content = classify(prefix);
  std::string replayed_head = prefix.substr(0, 8);
  auto replayed = replay_source(std::move(prefix), counted);
  if (content == Content::archive) {
    if (depth >= 2) {
      walk.skip({name, "archive inside an archive inside an archive, not read (one level of nesting is)"});
      return;
    }
    std::string_view compression = compression_of(replayed_head);
    if (compression.empty()) {
      read_archive(name, rank_hint, *replayed, nullptr, depth + 1, walk);
      return;
    }
    auto decoded = decoding_source(std::move(replayed), compression);
    read_archive(name, rank_hint, *decoded, &counted, depth + 1, walk);
    return;
  }
  SourceInfo info;
  info.name = name;
  info.rank_hint = rank_hint;
  if (content == Content::compressed) {
    auto decoded = decode(std::move(replayed));
    if (!decoded) {
      walk.skip({name, decoded.status().message()});
      return;
    }
    LimitedSource limited(std::move(*decoded), counted, walk.budget);
    walk.visit(std::move(info), limited);
    return;
  }
  walk.visit(std::move(info), *replayed);
}

}  // namespace

void read_input(const std::string& name, std::optional<int> rank_hint, ByteSource& raw,
                const ExpansionLimits& limits, const SourceVisitor& visit, const SkipVisitor& skip) {
  Walk walk{visit, skip, Budget{limits, 0, {}}};
  read_stream(name, rank_hint, raw, 0, walk);
}

}  // namespace faultline::ingest
