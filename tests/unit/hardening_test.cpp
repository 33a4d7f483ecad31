// Hostile inputs to the rule loader and the line repairer (issue 18): refused or handled in
// bounded time and memory, with file:line:col where the input is at fault.
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>

#include "parse/paste_repair.hpp"
#include "parse_helpers.hpp"
#include "rules/rule_set.hpp"

namespace {

// A pack whose rule's fix list repeats one anchored string `references` times.
std::string alias_bomb(size_t anchored_bytes, size_t references) {
  std::string yaml =
      "rules:\n  - id: bomb.rule\n    title: t\n    category: c\n    severity: error\n"
      "    match: ['Bomb (?P<n>\\d+)']\n    explain: &big '" +
      std::string(anchored_bytes, 'x') + "'\n    fix:\n";
  for (size_t i = 0; i < references; ++i) yaml += "      - *big\n";
  return yaml;
}

}  // namespace

TEST_CASE("YAML alias bombs: a pack whose aliases expand past the limit is refused at file:line:col") {
  auto start = std::chrono::steady_clock::now();
  auto loaded = faultline::rules::load_pack(alias_bomb(size_t{1} << 20, 20'000), "user/bomb.yaml");
  REQUIRE_FALSE(loaded);
  CHECK(loaded.status().message() ==
        "user/bomb.yaml:13:9: YAML aliases expand the pack past 5 MiB; a rule pack may expand to at most its "
        "own "
        "size plus 4 MiB");
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(10));
}

TEST_CASE("YAML alias bombs: nested aliases (billion laughs) are refused without expanding them") {
  std::string yaml = "a0: &a0 ['lol', 'lol', 'lol', 'lol', 'lol', 'lol', 'lol', 'lol', 'lol', 'lol']\n";
  for (int level = 1; level < 12; ++level) {
    yaml += "a" + std::to_string(level) + ": &a" + std::to_string(level) + " [";
    for (int i = 0; i < 10; ++i) yaml += std::string(i ? ", " : "") + "*a" + std::to_string(level - 1);
    yaml += "]\n";
  }
  yaml += "rules: []\n";
  auto loaded = faultline::rules::load_pack(yaml, "laughs.yaml");
  REQUIRE_FALSE(loaded);
  // The whole message; only the position where the expansion passed the limit is read from it.
  const std::string& message = loaded.status().message();
  const std::string refusal =
      ": YAML aliases expand the pack past 4 MiB; a rule pack may expand to at most its own "
      "size plus 4 MiB";
  size_t position_end = message.find(": ");
  REQUIRE(position_end != std::string::npos);
  std::string position = message.substr(0, position_end);
  CHECK(message == position + refusal);
  int line = 0, column = 0;
  CHECK(std::sscanf(position.c_str(), "laughs.yaml:%d:%d", &line, &column) == 2);
  CHECK(position == "laughs.yaml:" + std::to_string(line) + ":" + std::to_string(column));
  CHECK(line >= 1);
  CHECK(line <= 13);  // a line of the pack
}

TEST_CASE("YAML aliases within the limit still load") {
  std::string yaml =
      "rules:\n  - id: small.alias\n    cause: cuda.oom\n    title: t\n    category: c\n    severity: error\n"
      "    match: ['Small (?P<n>\\d+)']\n    explain: &why 'because'\n    confirm: [*why, *why]\n";
  auto loaded = faultline::rules::load_pack(yaml, "ok.yaml");
  CHECK_MESSAGE(loaded, (loaded ? "" : loaded.status().message()));
}

TEST_CASE("hex-digest lines: mending hard wraps on unbroken lines of one width stays linear") {
  // 1 MB of 120-column hex lines, each ending mid-token at the longest width: every line is a
  // wrap head and the next its tail. Joined without a bound, it took 9 s for 0.5 MB.
  std::string text;
  uint64_t state = 1;
  while (text.size() < (size_t{1} << 20)) {
    for (int i = 0; i < 120; ++i) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      text += "0123456789abcdef"[(state >> 60) & 15];
    }
    text += '\n';
  }
  auto start = std::chrono::steady_clock::now();
  size_t longest = 0, lines = 0;
  faultline::testing::for_each_line(text, std::nullopt, [&](const faultline::parse::Line& line) {
    longest = std::max(longest, line.text.size());
    ++lines;
  });
  CHECK(lines == text.size() / 121);
  CHECK(longest <= faultline::parse::kMaxMendedLineBytes);
  CHECK(longest > 1000);  // wraps are still mended, up to the bound
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(5));
}
