// The cause ids compiled into faultline (src/rules/causes) are those of ../shared/causes.md,
// the contract reports and corpus expectations rely on, and find_cause looks them up.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "../skip_unless.hpp"
#include "rules/rule.hpp"

namespace fs = std::filesystem;
using faultline::rules::find_cause;
using faultline::rules::is_known_cause;
using faultline::rules::known_causes;

namespace {

fs::path causes_md() {
  return fs::path(FAULTLINE_TEST_SOURCE_DIR) / ".." / "shared" / "causes.md";
}

// The ids of causes.md's table ("| id | meaning |").
std::vector<std::string> documented_ids() {
  std::ifstream file(causes_md());
  std::vector<std::string> ids;
  std::string line;
  while (std::getline(file, line)) {
    if (!line.starts_with("| ") || line.starts_with("| id ")) continue;
    size_t end = line.find(" |", 2);
    if (end == std::string::npos) continue;
    ids.push_back(line.substr(2, end - 2));
  }
  return ids;
}

}  // namespace

TEST_CASE("causes: ids are unique, each with a meaning, and found by find_cause") {
  std::set<std::string_view> seen;
  for (const auto& cause : known_causes()) {
    CAPTURE(cause.id);
    CHECK(seen.insert(cause.id).second);
    CHECK_FALSE(cause.meaning.empty());
    const auto* found = find_cause(cause.id);
    REQUIRE(found);
    CHECK(found == &cause);
    CHECK(is_known_cause(cause.id));
  }
  CHECK(seen.contains("negative"));
  CHECK(seen.contains("unrecognised"));
}

TEST_CASE("causes: a rule id, a prefix or another spelling is not a cause") {
  CHECK(find_cause("tp.heads_not_divisible.vllm") == nullptr);  // a rule's id, not its cause
  CHECK(find_cause("tp.") == nullptr);
  CHECK(find_cause("TP.HEADS_NOT_DIVISIBLE") == nullptr);
  CHECK(find_cause("unrecognized") == nullptr);
  CHECK_FALSE(is_known_cause(""));
}

TEST_CASE("causes: the compiled ids are those of shared/causes.md, no more and no fewer" *
          faultline::testing::skip_unless(fs::exists(causes_md()),
                                          "no ../shared/causes.md to compare with")) {
  std::vector<std::string> listed = documented_ids();
  std::set<std::string> documented(listed.begin(), listed.end());
  CHECK(documented.size() == listed.size());  // each id once in the table
  std::set<std::string> compiled;
  for (const auto& cause : known_causes()) compiled.emplace(cause.id);
  std::vector<std::string> undocumented, not_compiled;
  for (const auto& id : compiled)
    if (!documented.contains(id)) undocumented.push_back(id);
  for (const auto& id : documented)
    if (!compiled.contains(id)) not_compiled.push_back(id);
  CHECK(undocumented == std::vector<std::string>{});
  CHECK(not_compiled == std::vector<std::string>{});
  CHECK(compiled.size() > 30);  // the table was read
}
