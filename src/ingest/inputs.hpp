// Inputs: turns the paths a user names into the list of sources of one job. A directory is
// read recursively (regular files, sorted by path, symbolic links to directories not
// followed, so loops cannot occur); whatever cannot be read is listed with its reason.
#pragma once

#include <string>
#include <vector>

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

}  // namespace faultline::ingest
