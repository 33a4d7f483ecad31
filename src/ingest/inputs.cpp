#include "ingest/inputs.hpp"

#include <fnmatch.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <string_view>
#include <system_error>
#include <utility>

#include "ingest/archive_reader.hpp"
#include "ingest/path_hints.hpp"

namespace faultline::ingest {
namespace fs = std::filesystem;

namespace {

struct Globs {
  const std::vector<std::string>& include;
  const std::vector<std::string>& exclude;
};

// A glob with a '/' is matched against the whole relative path, one without against the name.
bool matches_any(const std::vector<std::string>& globs, const std::string& relative,
                 const std::string& file_name) {
  return std::any_of(globs.begin(), globs.end(), [&](const std::string& glob) {
    const std::string& subject = glob.find('/') == std::string::npos ? file_name : relative;
    return ::fnmatch(glob.c_str(), subject.c_str(), 0) == 0;
  });
}

// Why a file found in a directory is not read as a log, judged by its extension: source code
// that may quote an error message word for word, and model weights whose JSON header would
// read as text. Empty for anything else.
std::string not_a_log(const std::string& file_name) {
  static constexpr std::pair<std::string_view, std::string_view> kKinds[] = {
      {".py", "source code"},     {".pyi", "source code"},    {".pyx", "source code"},
      {".ipynb", "source code"},  {".c", "source code"},      {".cc", "source code"},
      {".cpp", "source code"},    {".cxx", "source code"},    {".h", "source code"},
      {".hh", "source code"},     {".hpp", "source code"},    {".hxx", "source code"},
      {".cu", "source code"},     {".cuh", "source code"},    {".rs", "source code"},
      {".go", "source code"},     {".java", "source code"},   {".js", "source code"},
      {".ts", "source code"},     {".pyc", "compiled code"},  {".so", "compiled code"},
      {".o", "compiled code"},    {".a", "compiled code"},    {".safetensors", "model weights"},
      {".pt", "model weights"},   {".pth", "model weights"},  {".ckpt", "model weights"},
      {".onnx", "model weights"}, {".gguf", "model weights"}, {".npy", "array data"},
      {".npz", "array data"},     {".pkl", "pickled data"},   {".whl", "a Python wheel"},
  };
  size_t dot = file_name.rfind('.');
  if (dot == std::string::npos || dot == 0) return "";
  std::string extension = file_name.substr(dot);
  for (char& c : extension) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const auto& [suffix, kind] : kKinds) {
    if (extension == suffix) return std::string(kind) + " (" + extension + "), not a log";
  }
  return "";
}

void add_directory(const fs::path& root, const Globs& globs, InputList& out) {
  std::vector<std::string> found;
  std::error_code error;
  fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, error);
  if (error) {
    out.skipped.push_back({root.string(), error.message()});
    return;
  }
  for (const fs::recursive_directory_iterator end; it != end; it.increment(error)) {
    if (error) {
      out.skipped.push_back({printable_name(it->path().string()), error.message()});
      error.clear();
      continue;
    }
    const fs::path& path = it->path();
    std::string relative = path.lexically_relative(root).generic_string();
    std::string file_name = path.filename().string();
    std::error_code status_error;
    auto status = it->status(status_error);
    if (status_error) {
      out.skipped.push_back({printable_name(path.string()), status_error.message()});
    } else if (fs::is_regular_file(status)) {
      if (!globs.include.empty() && !matches_any(globs.include, relative, file_name)) continue;
      if (matches_any(globs.exclude, relative, file_name)) continue;
      // A file an --include glob asks for by name is read whatever its extension.
      if (std::string reason = not_a_log(file_name); !reason.empty() && globs.include.empty()) {
        out.skipped.push_back({printable_name(path.string()), reason});
        continue;
      }
      found.push_back(path.string());
    } else if (fs::is_directory(status)) {
      if (it->is_symlink(status_error)) {  // not followed, so loops cannot occur
        out.skipped.push_back({printable_name(path.string()), "symbolic link to a directory, not followed"});
        continue;
      }
      if (matches_any(globs.exclude, relative, file_name)) {
        it.disable_recursion_pending();
      } else if (::access(path.c_str(), R_OK | X_OK) != 0) {
        // The iterator would skip it without a word (skip_permission_denied).
        out.skipped.push_back({printable_name(path.string()), "directory not readable"});
        it.disable_recursion_pending();
      }
    } else {
      out.skipped.push_back({printable_name(path.string()), "not a regular file"});
    }
  }
  std::sort(found.begin(), found.end());
  out.files.insert(out.files.end(), found.begin(), found.end());
}

}  // namespace

InputList expand_inputs(const std::vector<std::string>& paths) {
  return expand_inputs(paths, {}, {});
}

InputList expand_inputs(const std::vector<std::string>& paths, const std::vector<std::string>& include_globs,
                        const std::vector<std::string>& exclude_globs) {
  InputList out;
  Globs globs{include_globs, exclude_globs};
  for (const auto& path : paths) {
    std::error_code error;
    if (path != "-" && fs::is_directory(path, error)) {
      add_directory(path, globs, out);
    } else {
      out.files.push_back(path);  // opening reports what is wrong with it, by name
    }
  }
  return out;
}

void for_each_source(const std::string& path, const SourceVisitor& visit, const SkipVisitor& skip,
                     const ExpansionLimits& limits, bool torchrun_layout_is_global) {
  std::string name = path == "-" ? "<stdin>" : printable_name(path);
  auto raw = open_file(path);
  if (!raw) {
    skip({name, raw.status().message()});
    return;
  }
  std::optional<int> rank_hint;
  if (path != "-") rank_hint = rank_from_path(path, torchrun_layout_is_global);
  read_input(name, rank_hint, **raw, limits, visit, skip);
}

}  // namespace faultline::ingest
