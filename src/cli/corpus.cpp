#include "cli/corpus.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>

namespace faultline::cli {
namespace fs = std::filesystem;

namespace {

Result<CorpusCase> load_case(const fs::path& folder, const fs::path& label) {
  CorpusCase item;
  item.name = folder.filename().string();
  try {
    YAML::Node root = YAML::LoadFile(label.string());
    item.cause = root["cause"] ? root["cause"].as<std::string>() : "";
    if (root["initiating_rank"] && !root["initiating_rank"].IsNull()) {
      item.initiating_rank = root["initiating_rank"].as<int>();
    }
    if (root["evidence"] && root["evidence"].IsSequence()) {
      for (const auto& line : root["evidence"]) item.evidence.push_back(line.as<std::string>());
    }
    item.low_confidence = root["confidence"] && root["confidence"].as<std::string>() == "low";
  } catch (const YAML::Exception& e) {
    return Status::error(label.string() + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
  if (item.cause.empty()) return Status::error(label.string() + ": no 'cause'");
  for (const auto& entry : fs::recursive_directory_iterator(folder)) {
    auto name = entry.path().filename().string();
    if (entry.is_regular_file() && name != "expected.yaml" && name != "meta.yaml") {
      item.files.push_back(entry.path().string());
    }
  }
  std::sort(item.files.begin(), item.files.end());
  return item;
}

}  // namespace

Result<std::vector<CorpusCase>> load_corpus(const std::string& directory) {
  std::error_code error;
  if (!fs::is_directory(directory, error)) return Status::error(directory + ": not a directory");
  std::vector<fs::path> folders;
  for (const auto& entry : fs::directory_iterator(directory, error)) {
    if (entry.is_directory()) folders.push_back(entry.path());
  }
  std::sort(folders.begin(), folders.end());
  std::vector<CorpusCase> cases;
  for (const auto& folder : folders) {
    fs::path label = folder / "expected.yaml";
    if (!fs::exists(label)) label = folder / "meta.yaml";
    if (!fs::exists(label)) continue;
    auto item = load_case(folder, label);
    if (!item) return item.status();
    cases.push_back(std::move(*item));
  }
  return cases;
}

}  // namespace faultline::cli
