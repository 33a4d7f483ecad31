// Runs the binary on every labelled case: corpus/ (ours, must all pass) and, when present,
// ../shared/corpus-real (real logs: tp.* and pp.* must pass, nothing may crash, and no other
// case may be diagnosed as a tensor-parallel failure).
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>

#include "../skip_unless.hpp"
#include "report_reader.hpp"
#include "run_binary.hpp"

namespace fs = std::filesystem;
using namespace faultline::testing;

namespace {

std::vector<fs::path> case_dirs(const fs::path& root) {
  std::vector<fs::path> dirs;
  for (const auto& entry : fs::directory_iterator(root)) {
    if (entry.is_directory()) dirs.push_back(entry.path());
  }
  std::sort(dirs.begin(), dirs.end());
  return dirs;
}

std::vector<std::string> input_files(const fs::path& dir) {
  std::vector<std::string> files;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    auto name = entry.path().filename().string();
    if (entry.is_regular_file() && name != "expected.yaml" && name != "meta.yaml")
      files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

bool is_tensor_parallel(const std::string& cause) {
  return cause.starts_with("tp.") || cause.starts_with("pp.");
}

}  // namespace

TEST_CASE("every corpus/ case gets its expected cause, initiating rank and facts") {
  auto dirs = case_dirs(fs::path(source_dir()) / "corpus");
  CHECK(dirs.size() >= 25);
  for (const auto& dir : dirs) {
    INFO("case ", dir.filename().string());
    Outcome expected = outcome_from_yaml((dir / "expected.yaml").string());
    REQUIRE_MESSAGE(expected.parsed, expected.error);
    std::vector<std::string> arguments = {"diagnose", "--format", "json"};
    auto files = input_files(dir);
    REQUIRE(!files.empty());
    arguments.insert(arguments.end(), files.begin(), files.end());
    RunResult run = run_faultline(arguments);
    CHECK_MESSAGE(run.exit_code == (expected.cause == "negative" ? 0 : 1), run.err);
    Outcome actual = outcome_from_report(run.out);
    REQUIRE_MESSAGE(actual.parsed, actual.error);
    CHECK(actual.cause == expected.cause);
    CHECK(actual.initiating_rank == expected.initiating_rank);
    for (const auto& fact : expected.facts) {
      INFO("fact ", fact.first);
      CHECK(actual.facts[fact.first] == fact.second);
    }
  }
}

TEST_CASE("shared/corpus-real: tp and pp cases pass, nothing crashes, nothing else is called a TP failure" *
          skip_unless(fs::is_directory(fs::path(source_dir()) / ".." / "shared" / "corpus-real"),
                      "no ../shared/corpus-real")) {
  fs::path root = fs::path(source_dir()) / ".." / "shared" / "corpus-real";
  size_t total = 0, correct = 0, tp_total = 0, tp_correct = 0;
  for (const auto& dir : case_dirs(root)) {
    INFO("case ", dir.filename().string());
    Outcome expected = outcome_from_yaml((dir / "meta.yaml").string());
    REQUIRE_MESSAGE(expected.parsed, expected.error);
    RunResult run = run_faultline({"diagnose", "--format", "json", (dir / "log.txt").string()});
    CHECK_MESSAGE(run.signal == 0, "crashed with signal ", run.signal);
    CHECK(run.exit_code >= 0);
    CHECK(run.exit_code <= 2);
    Outcome actual = outcome_from_report(run.out);
    REQUIRE_MESSAGE(actual.parsed, actual.error);
    ++total;
    bool right = actual.cause == expected.cause || (expected.cause == "other" && actual.cause == "negative");
    correct += right;
    if (is_tensor_parallel(expected.cause)) {
      ++tp_total;
      tp_correct += right;
      CHECK(actual.cause == expected.cause);
    } else {
      CHECK_FALSE(is_tensor_parallel(actual.cause));
    }
  }
  MESSAGE("corpus-real accuracy: ", correct, "/", total, " (tp/pp: ", tp_correct, "/", tp_total, ")");
  CHECK(total > 0);
}
