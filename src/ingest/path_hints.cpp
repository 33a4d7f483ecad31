#include "ingest/path_hints.hpp"

#include <set>
#include <vector>

#include "base/text.hpp"

namespace faultline::ingest {
namespace {

std::vector<std::string_view> split_path(std::string_view path) {
  std::vector<std::string_view> parts;
  while (!path.empty()) {
    size_t slash = path.find_first_of("/:");
    std::string_view part = path.substr(0, slash);
    if (!part.empty()) parts.push_back(part);
    if (slash == std::string_view::npos) break;
    path.remove_prefix(slash + 1);
  }
  return parts;
}

// attempt_<n>/<rank>/{stdout,stderr}.log or error.json
std::optional<int> from_torchrun_layout(const std::vector<std::string_view>& parts) {
  if (parts.size() < 3) return std::nullopt;
  std::string_view file = parts[parts.size() - 1];
  std::string_view rank_dir = parts[parts.size() - 2];
  std::string_view attempt_dir = parts[parts.size() - 3];
  if (file != "stdout.log" && file != "stderr.log" && file != "error.json") return std::nullopt;
  if (!attempt_dir.starts_with("attempt_")) return std::nullopt;
  auto rank = parse_integer(rank_dir);
  if (!rank) return std::nullopt;
  return static_cast<int>(*rank);
}

// rank3.log, rank_3.out, worker-rank-03.txt
std::optional<int> from_rank_word(std::string_view file) {
  for (size_t at = file.find("rank"); at != std::string_view::npos; at = file.find("rank", at + 1)) {
    if (at > 0 && is_alpha(file[at - 1])) continue;
    std::string_view rest = file.substr(at + 4);
    if (!rest.empty() && (rest.front() == '_' || rest.front() == '-')) rest.remove_prefix(1);
    if (auto rank = take_integer(rest);
        rank && (rest.empty() || !is_word(rest.front()) || rest.front() == '_')) {
      return static_cast<int>(*rank);
    }
  }
  return std::nullopt;
}

// slurm-<job>-<task>.out (srun --output=slurm-%j-%t.out)
std::optional<int> from_slurm_name(std::string_view file) {
  if (!file.starts_with("slurm-")) return std::nullopt;
  std::string_view rest = file.substr(6);
  if (!take_integer(rest) || rest.empty() || rest.front() != '-') return std::nullopt;
  rest.remove_prefix(1);
  auto task = take_integer(rest);
  if (!task || !rest.starts_with(".")) return std::nullopt;
  return static_cast<int>(*task);
}

}  // namespace

std::optional<int> rank_from_path(std::string_view path, bool torchrun_layout_is_global) {
  auto parts = split_path(path);
  if (parts.empty()) return std::nullopt;
  if (auto rank = from_torchrun_layout(parts)) {
    if (!torchrun_layout_is_global) return std::nullopt;
    return rank;
  }
  std::string_view file = parts.back();
  if (auto rank = from_slurm_name(file)) return rank;
  return from_rank_word(file);
}

bool torchrun_layouts_span_nodes(const std::vector<std::string>& paths) {
  std::set<std::string> roots;
  for (const auto& path : paths) {
    auto parts = split_path(path);
    if (!from_torchrun_layout(parts)) continue;
    std::string root;
    for (size_t i = 0; i + 3 < parts.size(); ++i) root.append(parts[i]).push_back('/');
    roots.insert(std::move(root));
  }
  return roots.size() > 1;
}

std::string printable_name(std::string_view name) {
  std::string out;
  out.reserve(name.size());
  auto escape = [&](unsigned char byte) {
    static constexpr char kHex[] = "0123456789abcdef";
    out += "\\x";
    out += kHex[byte >> 4];
    out += kHex[byte & 15];
  };
  for (size_t i = 0; i < name.size(); ++i) {
    auto byte = static_cast<unsigned char>(name[i]);
    if (byte < 0x20 || byte == 0x7f) {
      escape(byte);
    } else if (byte == 0xc2 && i + 1 < name.size() && static_cast<unsigned char>(name[i + 1]) >= 0x80 &&
               static_cast<unsigned char>(name[i + 1]) <= 0x9f) {
      escape(byte);  // U+0080-U+009F, which some terminals act on
      escape(static_cast<unsigned char>(name[++i]));
    } else {
      out += name[i];
    }
  }
  return out;
}

}  // namespace faultline::ingest
