// Archives and compressed inputs (src/ingest/inputs.hpp for_each_source, expand_inputs):
// tar, tar.gz, tar.zst and zip read member by member from archives built here with
// libarchive's write API; nesting, damaged archives, expansion limits, and directory walks
// with include/exclude globs.
#include <archive.h>
#include <archive_entry.h>
#include <doctest/doctest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "ingest/byte_source.hpp"
#include "ingest/inputs.hpp"
#include "ingest/path_hints.hpp"

namespace fs = std::filesystem;
using faultline::ingest::ExpansionLimits;

namespace {

struct Member {
  std::string path;
  std::string content;
  bool symlink = false;
};

class TempDir {
 public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "faultline-archive-XXXXXX").string();
    path_ = ::mkdtemp(pattern.data());
  }
  ~TempDir() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string operator/(const std::string& name) const { return (path_ / name).string(); }

 private:
  fs::path path_;
};

// format: "tar" or "zip"; filter: "none", "gzip", "zstd", "xz", "bzip2".
std::string make_archive(const std::vector<Member>& members, const std::string& format,
                         const std::string& filter) {
  struct archive* archive = archive_write_new();
  if (format == "zip") {
    archive_write_set_format_zip(archive);
  } else {
    archive_write_set_format_pax_restricted(archive);
  }
  if (filter == "gzip") archive_write_add_filter_gzip(archive);
  if (filter == "zstd") archive_write_add_filter_zstd(archive);
  if (filter == "xz") archive_write_add_filter_xz(archive);
  if (filter == "bzip2") archive_write_add_filter_bzip2(archive);
  std::string bytes(64 << 20, '\0');
  size_t used = 0;
  REQUIRE(archive_write_open_memory(archive, bytes.data(), bytes.size(), &used) == ARCHIVE_OK);
  for (const auto& member : members) {
    struct archive_entry* entry = archive_entry_new();
    archive_entry_set_pathname(entry, member.path.c_str());
    archive_entry_set_perm(entry, 0644);
    if (member.symlink) {
      archive_entry_set_filetype(entry, AE_IFLNK);
      archive_entry_set_symlink(entry, member.content.c_str());
      archive_entry_set_size(entry, 0);
    } else if (member.path.ends_with("/")) {
      archive_entry_set_filetype(entry, AE_IFDIR);
      archive_entry_set_size(entry, 0);
    } else {
      archive_entry_set_filetype(entry, AE_IFREG);
      archive_entry_set_size(entry, static_cast<la_int64_t>(member.content.size()));
    }
    REQUIRE(archive_write_header(archive, entry) == ARCHIVE_OK);
    if (!member.symlink && !member.content.empty()) {
      REQUIRE(archive_write_data(archive, member.content.data(), member.content.size()) ==
              static_cast<la_ssize_t>(member.content.size()));
    }
    archive_entry_free(entry);
  }
  REQUIRE(archive_write_close(archive) == ARCHIVE_OK);
  archive_write_free(archive);
  bytes.resize(used);
  return bytes;
}

// One compressed stream, no archive structure: what `gzip file` makes. `level` is the
// filter's compression-level option ("1": bzip2's 100 kB blocks), when not empty.
std::string compress(const std::string& content, const std::string& filter, const std::string& level = "") {
  struct archive* archive = archive_write_new();
  archive_write_set_format_raw(archive);
  if (filter == "gzip") archive_write_add_filter_gzip(archive);
  if (filter == "zstd") archive_write_add_filter_zstd(archive);
  if (filter == "xz") archive_write_add_filter_xz(archive);
  if (filter == "bzip2") archive_write_add_filter_bzip2(archive);
  if (!level.empty())
    REQUIRE(archive_write_set_filter_option(archive, nullptr, "compression-level", level.c_str()) ==
            ARCHIVE_OK);
  std::string bytes(content.size() + 65536, '\0');
  size_t used = 0;
  REQUIRE(archive_write_open_memory(archive, bytes.data(), bytes.size(), &used) == ARCHIVE_OK);
  struct archive_entry* entry = archive_entry_new();
  archive_entry_set_filetype(entry, AE_IFREG);
  archive_entry_set_pathname(entry, "data");
  REQUIRE(archive_write_header(archive, entry) == ARCHIVE_OK);
  archive_write_data(archive, content.data(), content.size());
  archive_entry_free(entry);
  REQUIRE(archive_write_close(archive) == ARCHIVE_OK);
  archive_write_free(archive);
  bytes.resize(used);
  return bytes;
}

void write_file(const std::string& path, const std::string& bytes) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

struct Visited {
  std::string name;
  std::optional<int> rank_hint;
  std::string content;
  std::string error;  // the source's read error, "" when it read to the end
  std::string format;
  std::optional<uint64_t> damage;  // the source's damage_offset() after its last read
};

struct Walked {
  std::vector<Visited> sources;
  std::vector<std::string> skipped;  // "name: reason"

  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& source : sources) out.push_back(source.name);
    return out;
  }
};

Walked walk(const std::string& path, const ExpansionLimits& limits = {}) {
  Walked walked;
  faultline::ingest::for_each_source(
      path,
      [&](faultline::ingest::SourceInfo info, faultline::ingest::ByteSource& source) {
        Visited visited{info.name, info.rank_hint, {}, {}, source.format(), {}};
        std::vector<char> buffer(4096);
        for (;;) {
          auto n = source.read(buffer);
          if (!n) {
            visited.error = n.status().message();
            break;
          }
          if (*n == 0) break;
          visited.content.append(buffer.data(), *n);
        }
        visited.damage = source.damage_offset();
        walked.sources.push_back(std::move(visited));
      },
      [&](faultline::ingest::Skipped skipped) {
        walked.skipped.push_back(skipped.source + ": " + skipped.reason);
      },
      limits);
  return walked;
}

std::string numbered_lines(int count, const std::string& text) {
  std::string out;
  for (int i = 0; i < count; ++i)
    out += "[rank3]: line " + std::to_string(i * 7919 % 100003) + " " + text + "\n";
  return out;
}

const std::string kHeadsError =
    "[rank3]: ValueError: Total number of attention heads (32) must be divisible by tensor parallel size "
    "(6).\n";

using Names = std::vector<std::string>;

}  // namespace

TEST_CASE("archive: a tar.gz is read member by member, named and ranked from the member's path") {
  TempDir dir;
  std::string path = dir / "run.tar.gz";
  write_file(path, make_archive({{"attempt_0/", ""},
                                 {"attempt_0/0/stderr.log", "[rank0]: waiting\n"},
                                 {"attempt_0/3/stderr.log", kHeadsError},
                                 {"console.log", "torchrun console\n"}},
                                "tar", "gzip"));
  auto walked = walk(path);
  CHECK(walked.names() ==
        Names{path + ":attempt_0/0/stderr.log", path + ":attempt_0/3/stderr.log", path + ":console.log"});
  REQUIRE(walked.sources.size() == 3);
  CHECK(walked.sources[1].rank_hint == std::optional<int>(3));
  CHECK(walked.sources[1].content == kHeadsError);
  CHECK(walked.sources[1].error == "");
  CHECK(walked.sources[1].format == "tar.gz");
  CHECK(walked.sources[2].rank_hint == std::nullopt);
  CHECK(walked.skipped.empty());
}

TEST_CASE("archive: tar.zst, tar.xz, tar.bz2 and zip are recognised by content, not by name") {
  TempDir dir;
  struct Packing {
    const char* format;
    const char* filter;
    const char* expected;  // the format ingest names
  };
  for (const Packing& packing :
       {Packing{"tar", "zstd", "tar.zst"}, Packing{"tar", "xz", "tar.xz"}, Packing{"tar", "bzip2", "tar.bz2"},
        Packing{"zip", "none", "zip"}, Packing{"tar", "none", "tar"}}) {
    const char* expected = packing.expected;
    CAPTURE(expected);
    std::string path = dir / (std::string("misnamed-") + expected + ".log");
    write_file(path, make_archive({{"logs/rank3.log", kHeadsError}, {"slurm-77-5.out", "task 5\n"}},
                                  packing.format, packing.filter));
    auto walked = walk(path);
    CHECK(walked.names() == Names{path + ":logs/rank3.log", path + ":slurm-77-5.out"});
    REQUIRE(walked.sources.size() == 2);
    CHECK(walked.sources[0].content == kHeadsError);
    CHECK(walked.sources[0].rank_hint == std::optional<int>(3));
    CHECK(walked.sources[1].rank_hint == std::optional<int>(5));
    CHECK(walked.sources[0].format == expected);
  }
}

TEST_CASE("archive: plain and single-stream compressed files are read as before") {
  TempDir dir;
  write_file(dir / "rank2.log", "plain\n");
  write_file(dir / "rank2.log.zst", compress(kHeadsError, "zstd"));
  auto plain = walk(dir / "rank2.log");
  REQUIRE(plain.sources.size() == 1);
  CHECK(plain.sources[0].content == "plain\n");
  CHECK(plain.sources[0].rank_hint == std::optional<int>(2));
  auto compressed = walk(dir / "rank2.log.zst");
  REQUIRE(compressed.sources.size() == 1);
  CHECK(compressed.sources[0].name == dir / "rank2.log.zst");
  CHECK(compressed.sources[0].content == kHeadsError);
  CHECK(compressed.sources[0].format == "zstd");
}

TEST_CASE("archive: members that are archives or compressed files are read one level deep") {
  TempDir dir;
  std::string inner = make_archive({{"attempt_0/2/stderr.log", "inner rank 2\n"}}, "tar", "gzip");
  std::string innermost = make_archive({{"deep.log", "too deep\n"}}, "tar", "none");
  std::string middle = make_archive({{"innermost.tar", innermost}}, "zip", "none");
  std::string path = dir / "outer.tar";
  write_file(path, make_archive({{"inner.tar.gz", inner},
                                 {"rank5.log.gz", compress("rank five\n", "gzip")},
                                 {"middle.zip", middle},
                                 {"link.log", "attempt_0/2/stderr.log", true}},
                                "tar", "none"));
  auto walked = walk(path);
  CHECK(walked.names() == Names{path + ":inner.tar.gz:attempt_0/2/stderr.log", path + ":rank5.log.gz"});
  REQUIRE(walked.sources.size() == 2);
  CHECK(walked.sources[0].content == "inner rank 2\n");
  CHECK(walked.sources[0].rank_hint == std::optional<int>(2));
  CHECK(walked.sources[1].content == "rank five\n");
  CHECK(walked.sources[1].rank_hint == std::optional<int>(5));
  CHECK(walked.skipped == Names{path + ":middle.zip:innermost.tar: archive inside an archive inside an "
                                       "archive, not read (one level of "
                                       "nesting is)",
                                path + ":link.log: symbolic link, not followed"});
}

TEST_CASE("archive: a truncated tar.gz keeps what was read and names the member in error") {
  TempDir dir;
  std::string big = numbered_lines(40000, "filler that does not compress to nothing");
  std::string bytes = make_archive(
      {{"0/stderr.log", "rank 0 is fine\n"}, {"3/stderr.log", big}, {"4/stderr.log", "x\n"}}, "tar", "gzip");
  std::string path = dir / "run.tar.gz";
  std::string cut = bytes.substr(0, bytes.size() / 2);
  write_file(path, cut);
  auto walked = walk(path);
  CHECK(walked.names() == Names{path + ":0/stderr.log", path + ":3/stderr.log"});
  REQUIRE(walked.sources.size() == 2);
  CHECK(walked.sources[0].error == "");
  CHECK(walked.sources[1].error == "gzip stream truncated at byte " + std::to_string(cut.size()));
  CHECK(walked.sources[1].damage == cut.size());
  CHECK(walked.sources[1].content.size() > 100000);
  CHECK(big.starts_with(walked.sources[1].content));
  CHECK(walked.skipped.empty());  // the member has said why; nothing is reported twice
}

namespace {

const std::string kOomLine =
    "[rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 3 has a total "
    "capacity of 79.10 GiB of which 1.20 GiB is free.\n";

// A log whose OOM line comes early, then `after` lines that do not compress to nothing.
std::string log_with_early_oom(int after) {
  return numbered_lines(10, "before the failure") + kOomLine + numbered_lines(after, "after the failure");
}

// What walk() read of one damaged single-stream file holding `log`: the bytes before the
// damage, the OOM line among them, and the error "<error_start> at byte <damage_offset()><tail>".
void check_salvaged(const Walked& walked, const std::string& log, const std::string& error_start,
                    const std::string& tail = "") {
  REQUIRE(walked.sources.size() == 1);
  const Visited& source = walked.sources[0];
  REQUIRE(source.damage.has_value());
  CHECK(source.error == error_start + " at byte " + std::to_string(*source.damage) + tail);
  CHECK(log.starts_with(source.content));
  CHECK(source.content.find(kOomLine) != std::string::npos);
  CHECK(walked.skipped.empty());
}

}  // namespace

TEST_CASE("damage: a truncated .gz gives every byte decoded before the cut, and the cut's offset") {
  TempDir dir;
  std::string log = log_with_early_oom(200);  // 20 kB: less than one of libarchive's blocks
  std::string gz = compress(log, "gzip");
  std::string cut = gz.substr(0, gz.size() - 12);  // the trailer and the end of the last block
  write_file(dir / "rank3.log.gz", cut);
  auto walked = walk(dir / "rank3.log.gz");
  check_salvaged(walked, log, "gzip stream truncated");
  CHECK(walked.sources[0].damage == cut.size());
  // Only what the missing bytes held is lost: deflate gives out what it has decoded as it goes.
  CHECK(walked.sources[0].content.size() + 1024 > log.size());
}

TEST_CASE("damage: a .zst frame with a bad checksum gives all it decoded, then the checksum error") {
  TempDir dir;
  std::string log = log_with_early_oom(200);
  ZSTD_CCtx* context = ZSTD_createCCtx();
  REQUIRE(!ZSTD_isError(ZSTD_CCtx_setParameter(context, ZSTD_c_checksumFlag, 1)));
  std::string zst(ZSTD_compressBound(log.size()), '\0');
  size_t size = ZSTD_compress2(context, zst.data(), zst.size(), log.data(), log.size());
  ZSTD_freeCCtx(context);
  REQUIRE(!ZSTD_isError(size));
  zst.resize(size);
  zst.back() = static_cast<char>(zst.back() ^ 0x5a);  // the frame's checksum ends it
  write_file(dir / "rank3.log.zst", zst);
  auto walked = walk(dir / "rank3.log.zst");
  check_salvaged(walked, log, "zstd stream damaged", ": Restored data doesn't match checksum");
  CHECK(walked.sources[0].content == log);
  CHECK(walked.sources[0].damage == zst.size() - 4);  // where the checksum starts
}

TEST_CASE("damage: a truncated .xz and a truncated .bz2 give their blocks before the cut") {
  TempDir dir;
  std::string log = log_with_early_oom(6000);  // bzip2 at level 1 cuts 100 kB blocks: several
  struct Compression {
    const char* filter;
    const char* level;
    const char* name;
  };
  for (const Compression& compression :
       {Compression{"xz", "", "rank3.log.xz"}, Compression{"bzip2", "1", "rank3.log.bz2"}}) {
    const auto& [filter, level, name] = compression;
    CAPTURE(compression.filter);
    std::string bytes = compress(log, filter, level);
    std::string cut = bytes.substr(0, bytes.size() * 3 / 5);
    write_file(dir / name, cut);
    auto walked = walk(dir / name);
    check_salvaged(walked, log, std::string(filter) + " stream truncated");
    CHECK(walked.sources[0].damage == cut.size());
    CHECK(walked.sources[0].format == filter);
  }
}

TEST_CASE(
    "damage: concatenated streams read as one; NUL padding after them is passed over, other bytes named") {
  TempDir dir;
  std::string first = log_with_early_oom(100);
  std::string second = numbered_lines(100, "second stream");
  for (const char* filter : {"gzip", "zstd", "xz", "bzip2"}) {
    CAPTURE(filter);
    std::string bytes = compress(first, filter) + compress(second, filter);
    write_file(dir / "padded", bytes + std::string(1024, '\0'));
    auto padded = walk(dir / "padded");
    REQUIRE(padded.sources.size() == 1);
    CHECK(padded.sources[0].content == first + second);
    CHECK(padded.sources[0].error == "");
    if (std::string(filter) == "xz" || std::string(filter) == "zstd")
      continue;  // their libraries judge what follows
    write_file(dir / "junk", bytes + "junk after the streams");
    auto junk = walk(dir / "junk");
    REQUIRE(junk.sources.size() == 1);
    CHECK(junk.sources[0].content == first + second);
    CHECK(junk.sources[0].damage == bytes.size());
    CHECK(junk.sources[0].error == std::string(filter) + " stream damaged at byte " +
                                       std::to_string(bytes.size()) +
                                       ": what follows the end of a stream is not " + filter + ", not read");
  }
}

TEST_CASE("damage: a truncated .tar gives the members before the cut and the cut member's head") {
  TempDir dir;
  std::string big = numbered_lines(20000, "filler");
  std::string bytes = make_archive(
      {{"3/stderr.log", kOomLine}, {"4/stderr.log", big}, {"5/stderr.log", "x\n"}}, "tar", "none");
  std::string cut = bytes.substr(0, bytes.size() / 2);
  write_file(dir / "run.tar", cut);
  auto walked = walk(dir / "run.tar");
  REQUIRE(walked.sources.size() == 2);
  CHECK(walked.sources[0].content == kOomLine);
  CHECK(walked.sources[0].error == "");
  const Visited& damaged = walked.sources[1];
  REQUIRE(damaged.damage.has_value());
  CHECK(*damaged.damage == cut.size());
  CHECK(damaged.error == "Truncated tar archive at byte " + std::to_string(cut.size()));
  // Every byte of the member before the cut: the cut less the member's data offset.
  CHECK(damaged.content == big.substr(0, cut.size() - (bytes.find("4/stderr.log") + 512)));
}

TEST_CASE("damage: a zip whose member is damaged keeps the members around it and names the damage") {
  TempDir dir;
  std::string big = numbered_lines(20000, "filler");
  std::string bytes = make_archive(
      {{"3/stderr.log", kOomLine}, {"4/stderr.log", big}, {"5/stderr.log", "x\n"}}, "zip", "none");
  size_t middle = bytes.find("4/stderr.log") + 4096;  // inside the second member's deflate data
  for (size_t i = 0; i < 64; ++i) bytes[middle + i] = static_cast<char>(bytes[middle + i] ^ 0xa5);
  write_file(dir / "run.zip", bytes);
  auto walked = walk(dir / "run.zip");
  REQUIRE(walked.sources.size() >= 2);
  CHECK(walked.sources[0].content == kOomLine);
  CHECK(walked.sources[0].error == "");
  const Visited& damaged = walked.sources[1];
  REQUIRE(damaged.damage.has_value());
  CHECK(*damaged.damage > middle);  // found at the member's end, where its size and checksum are
  // All it decoded is given, then the size that betrays the damage.
  CHECK(damaged.error == "ZIP uncompressed data is wrong size (read " +
                             std::to_string(damaged.content.size()) + ", expected " +
                             std::to_string(big.size()) + ") at byte " + std::to_string(*damaged.damage));
  // Deflate decodes damaged data to wrong bytes until the member's end tells: what came before the
  // damage is right, what follows it may not be.
  size_t same = 0;
  while (same < damaged.content.size() && damaged.content[same] == big[same]) ++same;
  CHECK(same >= 4000);
  REQUIRE(walked.sources.size() == 3);
  CHECK(walked.sources[2].content == "x\n");
}

TEST_CASE("archive: a member over the expansion ratio stops with the reason, the next one is read") {
  TempDir dir;
  std::string bomb(8 << 20, 'a');
  std::string path = dir / "bomb.tar.gz";
  write_file(path, make_archive({{"bomb.log", bomb}, {"rank3.log", kHeadsError}}, "tar", "gzip"));
  ExpansionLimits limits;
  limits.max_ratio = 50;
  limits.ratio_grace_bytes = 256 << 10;
  limits.max_total_bytes = 64 << 20;
  auto walked = walk(path, limits);
  REQUIRE(walked.sources.size() == 2);
  CHECK(walked.sources[0].error == "expansion ratio over 50:1 (zip bomb?)");
  CHECK(walked.sources[0].content.size() < bomb.size());
  CHECK(walked.sources[1].content == kHeadsError);
  CHECK(walked.sources[1].error == "");
}

TEST_CASE("archive: a single compressed stream is held to the ratio too") {
  TempDir dir;
  std::string path = dir / "rank1.log.gz";
  write_file(path, compress(std::string(8 << 20, '\n'), "gzip"));
  ExpansionLimits limits;
  limits.max_ratio = 50;
  limits.ratio_grace_bytes = 256 << 10;
  auto walked = walk(path, limits);
  REQUIRE(walked.sources.size() == 1);
  CHECK(walked.sources[0].error == "expansion ratio over 50:1 (zip bomb?)");
}

TEST_CASE("archive: past the total expanded size the member stops and the rest is skipped") {
  TempDir dir;
  std::string path = dir / "run.tar";
  write_file(path, make_archive({{"a.log", std::string(3000, 'a')}, {"b.log", "b\n"}}, "tar", "none"));
  ExpansionLimits limits;
  limits.max_total_bytes = 1000;
  auto walked = walk(path, limits);
  REQUIRE(walked.sources.size() == 1);
  CHECK(walked.sources[0].error == "expanded size over the 1000 bytes limit");
  CHECK(walked.skipped ==
        Names{path + ": expanded size over the 1000 bytes limit; the members after a.log were not read"});
}

TEST_CASE("archive: a file that cannot be opened, damaged headers and an empty archive are skipped by name") {
  TempDir dir;
  CHECK(walk(dir / "missing.tar").skipped == Names{dir / "missing.tar" + ": No such file or directory"});
  std::string tar = make_archive({{"a.log", "a\n"}, {"b.log", "b\n"}}, "tar", "none");
  tar.replace(1024 + 148, 8, "garbage!");  // b.log's header checksum
  write_file(dir / "damaged.tar", tar);
  auto damaged = walk(dir / "damaged.tar");
  CHECK(damaged.names() == Names{dir / "damaged.tar:a.log"});
  REQUIRE(damaged.skipped.size() == 1);
  // libarchive's words, where it stopped (read from the message: libarchive decides it) and the
  // last member read.
  const std::string start = dir / "damaged.tar: Damaged tar archive at byte ", end = " (after a.log)";
  REQUIRE(damaged.skipped[0].starts_with(start));
  REQUIRE(damaged.skipped[0].ends_with(end));
  std::string offset =
      damaged.skipped[0].substr(start.size(), damaged.skipped[0].size() - start.size() - end.size());
  CHECK(!offset.empty());
  CHECK(offset.find_first_not_of("0123456789") == std::string::npos);
  CHECK(damaged.skipped[0] == start + offset + end);
  write_file(dir / "empty.zip", make_archive({}, "zip", "none"));
  CHECK(walk(dir / "empty.zip").skipped == Names{dir / "empty.zip: archive holds no files"});
}

TEST_CASE("archive: directories recurse with include and exclude globs; special files are skipped by name") {
  TempDir dir;
  write_file(dir / "job/attempt_0/0/stderr.log", "x\n");
  write_file(dir / "job/attempt_0/3/stderr.log", "x\n");
  write_file(dir / "job/attempt_0/3/stdout.log", "x\n");
  write_file(dir / "job/console.txt", "x\n");
  write_file(dir / "job/checkpoints/rank0.log", "x\n");
  fs::create_directory_symlink(dir / "job", dir / "job/loop");
  fs::create_symlink(dir / "job/nowhere", dir / "job/dangling.log");
  REQUIRE(::mkfifo((dir / "job/pipe.log").c_str(), 0600) == 0);

  auto all = faultline::ingest::expand_inputs({dir / "job"});
  CHECK(all.files.size() == 5);
  std::vector<std::string> skipped;
  for (const auto& entry : all.skipped) skipped.push_back(entry.source + ": " + entry.reason);
  std::sort(skipped.begin(), skipped.end());
  CHECK(skipped == Names{dir / "job/dangling.log: No such file or directory",
                         dir / "job/loop: symbolic link to a directory, not followed",
                         dir / "job/pipe.log: not a regular file"});

  auto logs =
      faultline::ingest::expand_inputs({dir / "job"}, {"*.log"}, {"checkpoints", "attempt_0/*/stdout.log"});
  CHECK(logs.files == Names{dir / "job/attempt_0/0/stderr.log", dir / "job/attempt_0/3/stderr.log"});
  auto named = faultline::ingest::expand_inputs({dir / "job/console.txt"}, {"*.log"}, {});
  CHECK(named.files == Names{dir / "job/console.txt"});
}

TEST_CASE("archive: member names holding ESC, OSC, CR and LF are escaped, so they cannot reach a terminal") {
  TempDir dir;
  std::string path = dir / "hostile.zip";
  write_file(path, make_archive({{"3/\x1b[2J\x1b]0;pwned\x07\rfake\nline.log", kHeadsError},
                                 {"ok/\xc2\x9b"
                                  "31m.log",
                                  "x\n"}},
                                "zip", "none"));
  auto walked = walk(path);
  CHECK(walked.names() ==
        Names{path + ":3/\\x1b[2J\\x1b]0;pwned\\x07\\x0dfake\\x0aline.log", path + ":ok/\\xc2\\x9b31m.log"});
  REQUIRE(walked.sources.size() == 2);
  CHECK(walked.sources[0].content == kHeadsError);
}

TEST_CASE("printable_name keeps UTF-8 and backslashes, escapes control bytes") {
  CHECK(faultline::ingest::printable_name("logs/r\xc3\xa9sum\xc3\xa9\\x.log") ==
        "logs/r\xc3\xa9sum\xc3\xa9\\x.log");
  CHECK(faultline::ingest::printable_name(std::string("a\0b\x7f", 4)) == "a\\x00b\\x7f");
}
