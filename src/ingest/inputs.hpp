// Inputs: turns the paths a user names into the list of sources of one job. A directory is
// read recursively (regular files, sorted by path, symbolic links to directories not
// followed, so loops cannot occur); whatever cannot be read is listed with its reason.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "ingest/byte_source.hpp"
#include "ingest/record.hpp"

namespace faultline::ingest {

struct Skipped {
  std::string source;
  std::string reason;
};

struct InputList {
  std::vector<std::string> files;  // "-" stands for stdin
  std::vector<Skipped> skipped;
};

InputList expand_inputs(const std::vector<std::string>& paths);

// Every source one input path holds: the file itself (decompressed), or each member of an
// archive, named "run.tar.zst:attempt_0/3/stderr.log", with its rank hint from the path.
// A source that cannot be opened goes to `skip` with its reason; "-" is stdin.
using SourceVisitor = std::function<void(SourceInfo info, ByteSource& source)>;
using SkipVisitor = std::function<void(Skipped skipped)>;
void for_each_source(const std::string& path, const SourceVisitor& visit, const SkipVisitor& skip);

}  // namespace faultline::ingest
