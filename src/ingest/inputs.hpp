// Inputs: turns the paths a user names into the list of sources of one job. A directory is
// read recursively (regular files, sorted by path, symbolic links to directories not
// followed, so loops cannot occur); whatever cannot be read is listed with its reason. In a
// directory, source code (*.py, *.cpp, *.h, ...), compiled code and model weights are not
// logs: they are listed as skipped with the reason, unless an --include glob names them. A
// file named on the command line is always read.
// Archives (tar, compressed or not, and zip, recognised by their bytes) are read member by
// member, streaming, without extracting anything to disk.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ingest/byte_source.hpp"
#include "ingest/record.hpp"

namespace faultline::ingest {

struct Skipped {
  Skipped() = default;
  Skipped(std::string source_name, std::string why, std::optional<uint64_t> damage_offset = std::nullopt)
      : source(std::move(source_name)), reason(std::move(why)), offset(damage_offset) {}

  std::string source;
  std::string reason;
  std::optional<uint64_t> offset;  // the byte where damage stopped the reading (a damaged archive)
};

struct InputList {
  std::vector<std::string> files;  // "-" stands for stdin
  std::vector<Skipped> skipped;
};

InputList expand_inputs(const std::vector<std::string>& paths);
// The same, keeping only the files found in a directory whose path relative to that
// directory matches one of `include_globs` (all of them when empty) and none of
// `exclude_globs` (fnmatch; a glob without '/' is matched against the file name alone, so
// '*.log' finds logs at any depth). A directory matching an exclude glob is not entered.
// Files named directly are always kept.
InputList expand_inputs(const std::vector<std::string>& paths, const std::vector<std::string>& include_globs,
                        const std::vector<std::string>& exclude_globs);

// What reading an archive or a compressed stream may expand to, against decompression bombs.
// Over a limit, the member being read stops with an error naming the limit; over the total,
// the rest of the input is skipped too.
struct ExpansionLimits {
  uint64_t max_total_bytes = uint64_t{16} << 30;   // all members of one input, decompressed
  uint64_t max_ratio = 1000;                       // decompressed bytes per compressed byte
  uint64_t ratio_grace_bytes = uint64_t{1} << 20;  // the ratio is checked only past this
};

// Every source one input path holds, in order: the file itself (decompressed), or each regular
// member of an archive, named "run.tar.zst:attempt_0/3/stderr.log", with its rank hint from
// the member's path. A member that is itself an archive is read too, one level deep
// ("outer.tar:inner.tar.gz:3/stderr.log"); a compressed member is decompressed. `visit` is
// called once per source, synchronously; the source is valid only during that call. A read
// error or a limit shows as the source's read error (the caller names the source); what was
// read before it counts. Whatever is not read goes to `skip` with its reason ("-" is stdin):
// a file that cannot be opened, links and special members, a damaged archive header.
using SourceVisitor = std::function<void(SourceInfo info, ByteSource& source)>;
using SkipVisitor = std::function<void(Skipped skipped)>;
// `torchrun_layout_is_global`: whether a torchrun --log-dir path's `attempt_K/N/` names rank N
// (false when the inputs span nodes: torchrun_layouts_span_nodes, path_hints.hpp).
void for_each_source(const std::string& path, const SourceVisitor& visit, const SkipVisitor& skip,
                     const ExpansionLimits& limits = {}, bool torchrun_layout_is_global = true);

}  // namespace faultline::ingest
