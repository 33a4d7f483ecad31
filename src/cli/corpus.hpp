// A labelled corpus: one folder per job, its inputs beside an expected.yaml (corpus/) or a
// meta.yaml (shared/corpus-real), each naming the cause, the initiating rank and, optionally,
// the evidence lines. yaml-cpp's exceptions stop here.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/status.hpp"

namespace faultline::cli {

struct CorpusCase {
  std::string name;                // the folder name
  std::vector<std::string> files;  // inputs, sorted by path
  std::string cause;               // a causes.md id, "negative" or "other"
  std::optional<int> initiating_rank;
  std::vector<std::string> evidence;  // "log.txt:49": lines the diagnosis should point at
  bool low_confidence = false;        // meta.yaml's confidence: low
};

// Every case under `directory`; folders without a label are skipped. Errors name the file.
Result<std::vector<CorpusCase>> load_corpus(const std::string& directory);

}  // namespace faultline::cli
