// Golden reports: a change that is not meant to change what faultline reports must leave every
// report as it was. For each corpus/ case tests/golden/corpus/<case>.txt holds the text report
// and <case>.json the JSON report without its `story` and `confidence_reasons` (those two may
// change shape while they become values); for ../shared/corpus-real, whose logs stay out of the
// repository, tests/golden/corpus-real.sha256 holds only a SHA-256 of each. faultline runs in
// the source folder on relative paths, with --color never, so no report names this machine.
// FAULTLINE_UPDATE_GOLDEN=1 rewrites the stored files from the reports instead of comparing.
#include <doctest/doctest.h>
#include <simdjson.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "../skip_unless.hpp"
#include "run_binary.hpp"

#ifdef FAULTLINE_HAVE_NETTLE
#include <nettle/sha2.h>
#endif

namespace fs = std::filesystem;
using namespace faultline::testing;

namespace {

bool updating() {
  const char* value = std::getenv("FAULTLINE_UPDATE_GOLDEN");
  return value && std::string_view(value) == "1";
}

fs::path golden_dir() {
  return fs::path(source_dir()) / "tests" / "golden";
}

std::string read_text(const fs::path& path) {
  std::ifstream file(path, std::ios::binary);
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

void write_text(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

std::vector<std::string> case_names(const fs::path& root) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(root)) {
    if (entry.is_directory()) names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

// The inputs of case `name` of the corpus at `root` (a path relative to the source folder),
// sorted (corpus/README's order), as paths relative to the source folder: the report names
// them as given, whichever folder holds the checkout and wherever `root` links to.
std::vector<std::string> case_inputs(const fs::path& root, const std::string& name) {
  fs::path dir = fs::path(source_dir()) / root / name;
  std::vector<std::string> files;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    auto file = entry.path().filename().string();
    if (entry.is_regular_file() && file != "expected.yaml" && file != "meta.yaml")
      files.push_back((root / name / entry.path().lexically_relative(dir)).string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

void append_escaped(std::string& out, std::string_view text) {
  out += '"';
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      char buffer[8];
      std::snprintf(buffer, sizeof buffer, "\\u%04x", c);
      out += buffer;
    } else {
      out += static_cast<char>(c);
    }
  }
  out += '"';
}

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    size_t end = text.find('\n');
    lines.push_back(text.substr(0, end));
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
  }
  return lines;
}

// A short unified-style diff of the first stretch where `expected` and `actual` differ: up to
// two lines of context before it and ten lines from each side.
std::string first_difference(std::string_view expected, std::string_view actual) {
  auto before = split_lines(expected), after = split_lines(actual);
  size_t same = 0;
  while (same < before.size() && same < after.size() && before[same] == after[same]) ++same;
  size_t tail = 0;
  while (tail + same < before.size() && tail + same < after.size() &&
         before[before.size() - 1 - tail] == after[after.size() - 1 - tail])
    ++tail;
  size_t from = same >= 2 ? same - 2 : 0;
  size_t removed = before.size() - same - tail, added = after.size() - same - tail;
  constexpr size_t kShown = 10;
  std::string out = "--- stored\n+++ now\n@@ -" + std::to_string(from + 1) + "," +
                    std::to_string(same - from + removed) + " +" + std::to_string(from + 1) + "," +
                    std::to_string(same - from + added) + " @@\n";
  for (size_t i = from; i < same; ++i) out += " " + std::string(before[i]) + "\n";
  for (size_t i = 0; i < std::min(removed, kShown); ++i) out += "-" + std::string(before[same + i]) + "\n";
  if (removed > kShown) out += "-… " + std::to_string(removed - kShown) + " more lines\n";
  for (size_t i = 0; i < std::min(added, kShown); ++i) out += "+" + std::string(after[same + i]) + "\n";
  if (added > kShown) out += "+… " + std::to_string(added - kShown) + " more lines\n";
  if (removed == 0 && added == 0) out += "(the same lines; the bytes differ, e.g. a final newline)\n";
  return out;
}

bool left_out(std::string_view key) {
  return key == "story" || key == "confidence_reasons";
}

// One value per line, two spaces an indent, keys in the report's order and numbers in their
// shortest exact form: a layout that only the values decide, so a diff names the value.
void write_canonical(simdjson::dom::element value, int depth, std::string& out) {
  std::string indent(static_cast<size_t>(depth) * 2 + 2, ' ');
  switch (value.type()) {
    case simdjson::dom::element_type::OBJECT: {
      out += '{';
      bool first = true;
      for (auto field : simdjson::dom::object(value)) {
        if (left_out(field.key)) continue;
        out += first ? "\n" : ",\n";
        first = false;
        out += indent;
        append_escaped(out, field.key);
        out += ": ";
        write_canonical(field.value, depth + 1, out);
      }
      if (!first) out += "\n" + indent.substr(2);
      out += '}';
      break;
    }
    case simdjson::dom::element_type::ARRAY: {
      out += '[';
      bool first = true;
      for (auto item : simdjson::dom::array(value)) {
        out += first ? "\n" : ",\n";
        first = false;
        out += indent;
        write_canonical(item, depth + 1, out);
      }
      if (!first) out += "\n" + indent.substr(2);
      out += ']';
      break;
    }
    case simdjson::dom::element_type::STRING:
      append_escaped(out, std::string_view(value));
      break;
    case simdjson::dom::element_type::INT64:
      out += std::to_string(int64_t(value));
      break;
    case simdjson::dom::element_type::UINT64:
      out += std::to_string(uint64_t(value));
      break;
    case simdjson::dom::element_type::DOUBLE: {
      char buffer[32];
      auto [end, error] = std::to_chars(buffer, buffer + sizeof buffer, double(value));
      out.append(buffer, error == std::errc() ? end : buffer);
      break;
    }
    case simdjson::dom::element_type::BOOL:
      out += bool(value) ? "true" : "false";
      break;
    case simdjson::dom::element_type::NULL_VALUE:
      out += "null";
      break;
  }
}

// The JSON report without its story and confidence reasons, or the parse error.
std::string canonical_json(const std::string& report) {
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  if (auto error = parser.parse(report).get(root))
    return std::string("unparsable JSON: ") + error_message(error);
  std::string out;
  write_canonical(root, 0, out);
  return out + "\n";
}

struct Reports {
  std::string text;
  std::string json;
  std::string problem;  // a crash or an exit code past 1, with stderr
};

Reports reports_of(const std::vector<std::string>& inputs) {
  Reports reports;
  std::vector<std::string> arguments = {"diagnose", "--color", "never"};
  arguments.insert(arguments.end(), inputs.begin(), inputs.end());
  RunResult text = run_faultline_in(source_dir(), arguments);
  arguments.insert(arguments.begin() + 1, {"--format", "json"});
  RunResult json = run_faultline_in(source_dir(), arguments);
  for (const RunResult* run : {&text, &json}) {
    if (run->exit_code < 0 || run->exit_code > 1)
      reports.problem = "exit " + std::to_string(run->exit_code) + ", signal " + std::to_string(run->signal) +
                        ": " + run->err;
  }
  reports.text = text.out;
  reports.json = canonical_json(json.out);
  return reports;
}

// Stored goldens whose case is gone: they would never be compared again.
std::vector<std::string> stale_goldens(const fs::path& folder, const std::vector<std::string>& cases) {
  std::vector<std::string> stale;
  if (!fs::is_directory(folder)) return stale;
  for (const auto& entry : fs::directory_iterator(folder)) {
    std::string stem = entry.path().stem().string();
    if (!std::binary_search(cases.begin(), cases.end(), stem)) stale.push_back(entry.path().string());
  }
  std::sort(stale.begin(), stale.end());
  return stale;
}

#ifdef FAULTLINE_HAVE_NETTLE
std::string sha256(const std::string& bytes) {
  sha256_ctx context;
  sha256_init(&context);
  sha256_update(&context, bytes.size(), reinterpret_cast<const uint8_t*>(bytes.data()));
  uint8_t digest[SHA256_DIGEST_SIZE];
  sha256_digest(&context, SHA256_DIGEST_SIZE, digest);
  std::string hex;
  for (uint8_t byte : digest) {
    char buffer[3];
    std::snprintf(buffer, sizeof buffer, "%02x", byte);
    hex += buffer;
  }
  return hex;
}
constexpr bool kHaveSha256 = true;
#else
std::string sha256(const std::string&) {
  return "";
}
constexpr bool kHaveSha256 = false;
#endif

// corpus-real.sha256: one line a case, "<case> <text sha256> <json sha256>".
std::map<std::string, std::string> read_digests(const fs::path& path) {
  std::map<std::string, std::string> digests;
  std::istringstream lines(read_text(path));
  std::string name, text, json;
  while (lines >> name >> text >> json) digests[name] = text + " " + json;
  return digests;
}

const std::string kUpdateHint =
    "if the change is meant: FAULTLINE_UPDATE_GOLDEN=1 build/tests/faultline_e2e_tests -tc='golden*'";

}  // namespace

TEST_CASE("golden: every corpus/ case's text report and JSON (less story and reasons) are as stored") {
  fs::path stored = golden_dir() / "corpus";
  auto cases = case_names(fs::path(source_dir()) / "corpus");
  REQUIRE(cases.size() >= 25);
  size_t differing = 0;
  for (const auto& name : cases) {
    INFO("case ", name);
    Reports reports = reports_of(case_inputs("corpus", name));
    CHECK_MESSAGE(reports.problem.empty(), reports.problem);
    fs::path text_path = stored / (name + ".txt"), json_path = stored / (name + ".json");
    if (updating()) {
      // A run that failed (the binary relinked under it, a crash) leaves the stored report alone.
      if (!reports.problem.empty()) continue;
      write_text(text_path, reports.text);
      write_text(json_path, reports.json);
      continue;
    }
    for (auto [path, actual] : {std::pair{text_path, &reports.text}, std::pair{json_path, &reports.json}}) {
      if (!fs::exists(path)) {
        ++differing;
        FAIL_CHECK("no stored report ", path.string(), "; ", kUpdateHint);
        continue;
      }
      std::string expected = read_text(path);
      if (expected == *actual) continue;
      ++differing;
      FAIL_CHECK(path.filename().string(), " differs from the report:\n",
                 first_difference(expected, *actual));
    }
  }
  auto stale = stale_goldens(stored, cases);
  if (updating()) {
    for (const auto& path : stale) fs::remove(path);
  } else {
    for (const auto& path : stale) FAIL_CHECK("stored report of no corpus case: ", path, "; ", kUpdateHint);
  }
  if (differing) MESSAGE(differing, " stored reports differ; ", kUpdateHint);
}

TEST_CASE("golden: every shared/corpus-real report hashes as stored" *
          skip_unless(fs::is_directory(fs::path(source_dir()) / ".." / "shared" / "corpus-real"),
                      "no ../shared/corpus-real: its reports' hashes are not compared") *
          skip_unless(kHaveSha256,
                      "built without nettle (nettle-dev): corpus-real's report hashes are not compared")) {
  fs::path root = fs::path("..") / "shared" / "corpus-real";
  fs::path stored = golden_dir() / "corpus-real.sha256";
  auto expected = read_digests(stored);
  std::string rewritten;
  std::vector<std::string> differing;
  bool any_problem = false;  // then an update writes nothing: a failed run's hashes are not reports'
  for (const auto& name : case_names(fs::path(source_dir()) / root)) {
    Reports reports = reports_of(case_inputs(root, name));
    INFO("case ", name);
    CHECK_MESSAGE(reports.problem.empty(), reports.problem);
    if (!reports.problem.empty()) any_problem = true;
    std::string digests = sha256(reports.text) + " " + sha256(reports.json);
    rewritten += name + " " + digests + "\n";
    auto found = expected.find(name);
    if (found == expected.end() || found->second != digests) differing.push_back(name);
    if (found != expected.end()) expected.erase(found);
  }
  if (updating()) {
    if (!any_problem) write_text(stored, rewritten);
    return;
  }
  std::string names;
  for (const auto& name : differing) names += " " + name;
  CHECK_MESSAGE(differing.empty(), "corpus-real cases whose report differs (or has no stored hash):", names,
                "; ", kUpdateHint);
  for (const auto& gone : expected)
    FAIL_CHECK("stored hash of no corpus-real case: ", gone.first, "; ", kUpdateHint);
}
