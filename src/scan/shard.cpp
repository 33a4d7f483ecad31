#include "scan/shard.hpp"

#include <system_error>

#include "base/text.hpp"

namespace faultline::scan {
namespace fs = std::filesystem;

namespace {

fs::path absolute_normal(const std::string& path) {
  std::error_code error;
  fs::path absolute = fs::absolute(path, error);
  return (error ? fs::path(path) : absolute).lexically_normal();
}

// The folder a root stands for: a directory itself, a file (an archive) its folder.
fs::path folder_of(const std::string& root) {
  fs::path path = absolute_normal(root);
  std::error_code error;
  if (!fs::is_directory(path, error)) path = path.parent_path();
  if (!path.empty() && path.filename().empty()) path = path.parent_path();  // "logs/" -> "logs"
  return path;
}

}  // namespace

ShardKeys::ShardKeys(const std::vector<std::string>& roots) {
  bool first = true;
  for (const auto& root : roots) {
    if (root == "-") continue;
    fs::path folder = folder_of(root);
    if (first) {
      parent_ = folder;
      first = false;
      continue;
    }
    fs::path common;
    for (auto a = parent_.begin(), b = folder.begin(); a != parent_.end() && b != folder.end() && *a == *b;
         ++a, ++b)
      common /= *a;
    parent_ = common;
  }
}

std::string ShardKeys::key(const std::string& path) const {
  std::string relative = absolute_normal(path).lexically_relative(parent_).generic_string();
  if (relative.empty()) return ".";
  while (relative.size() > 1 && relative.back() == '/') relative.pop_back();
  return relative;
}

bool Shard::holds(std::string_view key) const {
  return count <= 1 || fnv1a(key) % count == index;
}

Result<Shard> parse_shard(std::string_view text) {
  auto bad = [&] {
    return Status::error(
        "--shard '" + std::string(text) +
        "' must be I/N with 0 <= I < N (0-based, as Slurm array and Kubernetes indexes are)");
  };
  auto slash = text.find('/');
  if (slash == std::string_view::npos) return bad();
  auto index = parse_integer(text.substr(0, slash));
  auto count = parse_integer(text.substr(slash + 1));
  if (!index || !count || *count < 1 || *count > 1'000'000 || *index < 0 || *index >= *count) return bad();
  return Shard{static_cast<uint32_t>(*index), static_cast<uint32_t>(*count)};
}

}  // namespace faultline::scan
