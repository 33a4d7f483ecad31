// LiteralScreen: with a sample it looks for fewer strings (anchors) and confirms each hit, and it
// must report exactly the hits of a screen that looks for every literal itself.
#include "screen/literal_screen.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "../skip_unless.hpp"

namespace fs = std::filesystem;
using faultline::screen::LiteralScreen;

namespace {

std::vector<std::pair<uint32_t, uint32_t>> hits_of(const LiteralScreen& screen, std::string_view text) {
  std::vector<LiteralScreen::Hit> hits;
  std::vector<std::pair<uint32_t, uint32_t>> all;
  constexpr size_t kBlock = 64 << 10;
  for (size_t offset = 0; offset < text.size(); offset += kBlock) {
    std::string_view block = text.substr(offset, kBlock);
    REQUIRE(screen.scan(block, hits));
    for (const auto& hit : hits) all.emplace_back(static_cast<uint32_t>(offset) + hit.end, hit.literal);
  }
  std::sort(all.begin(), all.end());
  return all;
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// Words as rules and the event assembler give them: caseless ones sharing substrings, and
// case-sensitive ones (an anchor for these may be caseless; the confirmation keeps the case).
const std::vector<LiteralScreen::Literal> kLiterals = {
    {"cuda error", true},
    {"cuda out of memory", true},
    {"out of memory", true},
    {"nccl error", true},
    {"ncclinternalerror", true},
    {"watchdog caught collective", true},
    {"illegal memory access", true},
    {"must be divisible by", true},
    {"is not divisible by", true},
    {"timed out", true},
    {"sigkill", true},
    {"Traceback", false},
    {"Error", false},
    {"Exit", false},
    {"comm 0x", false},
    {"\x1b", false},
    {"^[[", false},
    {"a", true},
};

}  // namespace

TEST_CASE("anchors cover every literal, each once, at an offset where it occurs") {
  std::string sample =
      "iteration 10 | loss 2.3 | memory allocated 44 GB\nNCCL INFO comm 0x55 rank 1 nranks 8\n";
  auto anchors = LiteralScreen::choose_anchors(kLiterals, sample);
  std::vector<int> covered(kLiterals.size(), 0);
  for (const auto& anchor : anchors) {
    for (const auto& member : anchor.members) {
      ++covered[member.literal];
      const auto& literal = kLiterals[member.literal];
      std::string part = literal.text.substr(member.offset, anchor.text.size());
      if (anchor.caseless) {
        std::transform(part.begin(), part.end(), part.begin(),
                       [](char c) { return static_cast<char>(std::tolower(c)); });
      } else {
        CHECK_FALSE(literal.caseless);  // a caseless literal never gets a case-sensitive anchor
      }
      CHECK(part == anchor.text);
    }
  }
  for (size_t i = 0; i < covered.size(); ++i) {
    INFO("literal " << kLiterals[i].text);
    CHECK(covered[i] == 1);
  }
  CHECK(anchors.size() < kLiterals.size());  // shared substrings ("memory", "error") serve several
}

TEST_CASE("a screen with anchors finds exactly the hits of one without, in every corpus log" *
          faultline::testing::skip_unless(faultline::screen::LiteralScreen::built_in(),
                                          "built without Hyperscan")) {
  LiteralScreen plain(kLiterals);
  REQUIRE(plain.available());
  size_t logs = 0;
  size_t total_hits = 0;
  std::string previous = "NCCL INFO comm 0x7f rank 0 nranks 8 - Init COMPLETE\n";
  for (const auto& entry : fs::recursive_directory_iterator(fs::path(FAULTLINE_TEST_SOURCE_DIR) / "corpus")) {
    if (!entry.is_regular_file() ||
        (entry.path().extension() != ".log" && entry.path().extension() != ".txt"))
      continue;
    std::string text = read_file(entry.path());
    // The sample is another log: anchors chosen for one text must be exact on any other.
    LiteralScreen anchored(kLiterals, previous);
    REQUIRE(anchored.available());
    CHECK(anchored.anchor_count() < kLiterals.size());
    auto expected = hits_of(plain, text);
    INFO("log " << entry.path().string());
    CHECK(hits_of(anchored, text) == expected);
    total_hits += expected.size();
    previous = std::move(text);
    ++logs;
  }
  CHECK(logs > 20);
  CHECK(total_hits > 1000);
}

TEST_CASE("an anchor's hit near the start or end of a block confirms only literals inside it") {
  LiteralScreen plain(kLiterals);
  if (!plain.available()) return;
  LiteralScreen anchored(kLiterals, "out of memory\ncuda out of memory\n");
  for (std::string text : {"of memory", "cuda out of mem", "out of memory", "CUDA Out Of Memory", "Erro",
                           "rror", "xTracebackx", "traceback", "EXIT Exit"}) {
    INFO("text " << text);
    CHECK(hits_of(anchored, text) == hits_of(plain, text));
  }
}
