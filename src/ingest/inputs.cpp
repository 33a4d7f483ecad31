#include "ingest/inputs.hpp"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "ingest/path_hints.hpp"

namespace faultline::ingest {
namespace fs = std::filesystem;

namespace {

void add_directory(const fs::path& root, InputList& out) {
  std::vector<std::string> found;
  std::error_code error;
  fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, error);
  if (error) {
    out.skipped.push_back({root.string(), error.message()});
    return;
  }
  for (const fs::recursive_directory_iterator end; it != end; it.increment(error)) {
    if (error) {
      out.skipped.push_back({it->path().string(), error.message()});
      error.clear();
      continue;
    }
    std::error_code status_error;
    auto status = it->status(status_error);
    if (status_error) {
      out.skipped.push_back({it->path().string(), status_error.message()});
    } else if (fs::is_regular_file(status)) {
      found.push_back(it->path().string());
    } else if (!fs::is_directory(status)) {
      out.skipped.push_back({it->path().string(), "not a regular file"});
    }
  }
  std::sort(found.begin(), found.end());
  out.files.insert(out.files.end(), found.begin(), found.end());
}

}  // namespace

InputList expand_inputs(const std::vector<std::string>& paths) {
  InputList out;
  for (const auto& path : paths) {
    std::error_code error;
    if (path != "-" && fs::is_directory(path, error)) {
      add_directory(path, out);
    } else {
      out.files.push_back(path);  // opening reports what is wrong with it, by name
    }
  }
  return out;
}

void for_each_source(const std::string& path, const SourceVisitor& visit, const SkipVisitor& skip) {
  std::string name = path == "-" ? "<stdin>" : path;
  auto source = open_path(path);
  if (!source) {
    skip({name, source.status().message()});
    return;
  }
  SourceInfo info;
  info.name = name;
  if (path != "-") info.rank_hint = rank_from_path(path);
  visit(std::move(info), **source);
}

}  // namespace faultline::ingest
