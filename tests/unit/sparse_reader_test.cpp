// The sparse reader and its screens on hand-made blocks: what a line's hits ask for (Stop), the
// owners it names, the lines kept before a stop, and its one contract: a line holding a literal
// is always handed on (false positives allowed, never a false negative).
#include "screen/sparse_reader.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <random>
#include <set>
#include <tuple>

#include "../skip_unless.hpp"
#include "ingest/byte_source.hpp"
#include "parse/process_lessons.hpp"

using faultline::screen::Declarations;
using faultline::screen::LiteralScreen;
using faultline::screen::Screens;
using faultline::screen::SparseRead;
using faultline::screen::SparseReader;
using faultline::screen::SparseSettings;
using faultline::screen::Stop;

namespace {

doctest::skip with_hyperscan() {
  return faultline::testing::skip_unless(LiteralScreen::built_in(),
                                         "built without Hyperscan: no literal screen");
}

Screens screens_of(Declarations literals, std::string_view prebuilt = {}) {
  return Screens([literals] { return std::optional<Declarations>(literals); }, prebuilt);
}

// What the reader handed on, line by line: a record's text, and the read it came in.
struct Handed {
  std::string text;
  SparseRead::Kind kind;
  std::vector<uint32_t> owners;
  bool lookback = false;  // kept before a stop
};

std::vector<Handed> read_all(std::string_view text, const Screens* screens,
                             SparseSettings settings = {0, 0, 0}, std::function<bool()> holding = {}) {
  auto source = faultline::ingest::memory_source(text);
  auto records = faultline::ingest::open_records(*source, 0);
  SparseReader reader(*records, screens, settings, std::move(holding));
  std::vector<Handed> out;
  SparseRead read;
  while (reader.next(read)) {
    for (const auto& before : read.lookback) out.push_back({std::string(before.text), read.kind, {}, true});
    out.push_back({std::string(read.record.text), read.kind, read.owners, false});
  }
  return out;
}

std::string numbered_lines(int count, std::string_view word = "step") {
  std::string text;
  for (int i = 0; i < count; ++i) text += std::string(word) + " " + std::to_string(i) + " ok\n";
  return text;
}

const Handed* find(const std::vector<Handed>& handed, std::string_view text) {
  for (const auto& item : handed) {
    if (item.text == text) return &item;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("a line holding a stopping literal is handed on with its owners and the lines before it" *
          with_hyperscan()) {
  Screens screens = screens_of({{{"boom", true}, Stop::kRead, {7, 3}}});
  std::string text = numbered_lines(50) + "a BOOM here\n" + numbered_lines(50, "after");
  auto handed = read_all(text, &screens);
  REQUIRE(handed.size() == SparseReader::kLookbackLines + 1);
  for (size_t i = 0; i < SparseReader::kLookbackLines; ++i) {
    CHECK(handed[i].lookback);
    CHECK(handed[i].text == "step " + std::to_string(50 - SparseReader::kLookbackLines + i) + " ok");
  }
  CHECK(handed.back().text == "a BOOM here");
  CHECK(handed.back().kind == SparseRead::Kind::kCandidate);
  CHECK(handed.back().owners == std::vector<uint32_t>{3, 7});
}

TEST_CASE("a passing literal does not stop the skip, but names its owners in a line read for another" *
          with_hyperscan()) {
  Screens screens =
      screens_of({{{"inside", false}, Stop::kPass, {1}}, {{"Traceback", false}, Stop::kRead, {}}});
  std::string text = numbered_lines(30) + "inside alone\n" + numbered_lines(30, "more") +
                     "Traceback inside it\n" + numbered_lines(5, "tail");
  auto handed = read_all(text, &screens);
  CHECK(find(handed, "inside alone") == nullptr);
  const Handed* stop = find(handed, "Traceback inside it");
  REQUIRE(stop);
  CHECK(stop->owners == std::vector<uint32_t>{1});
}

TEST_CASE("a lesson is read alone, and a repeat of the same stretch is passed over" * with_hyperscan()) {
  Screens screens = screens_of({{{"comm 0x", false}, Stop::kLesson, {}}});
  std::string lesson = "node1:42:43 [0] NCCL INFO comm 0x55d5 rank 0 nranks 8";
  std::string text = numbered_lines(20) + lesson + "\n" + numbered_lines(20, "more") + lesson + "\n" +
                     numbered_lines(20, "last");
  auto handed = read_all(text, &screens);
  REQUIRE(handed.size() == 1);
  CHECK(handed[0].text == lesson);
  CHECK_FALSE(handed[0].lookback);
}

TEST_CASE("a block holding a whole-block literal is handed on line by line, unscreened" * with_hyperscan()) {
  Screens screens =
      screens_of({{{"boom", false}, Stop::kRead, {}}, {{"\x1b", false}, Stop::kWholeBlock, {}}});
  std::string text = numbered_lines(10) + "\x1b[31mred\x1b[0m\n" + numbered_lines(10, "more");
  auto handed = read_all(text, &screens);
  CHECK(handed.size() == 21);
  CHECK(std::all_of(handed.begin(), handed.end(),
                    [](const Handed& item) { return item.kind == SparseRead::Kind::kUnscreened; }));
}

TEST_CASE("without screens every line is handed on unscreened") {
  std::string text = numbered_lines(25);
  auto handed = read_all(text, nullptr);
  CHECK(handed.size() == 25);
  CHECK(std::all_of(handed.begin(), handed.end(),
                    [](const Handed& item) { return item.kind == SparseRead::Kind::kUnscreened; }));
}

TEST_CASE("the dense head is read line by line, each line with the owners it holds" * with_hyperscan()) {
  // In the head the prebuilt screen serves (the sampled one is built only past it).
  const Declarations literals = {{{"boom", false}, Stop::kRead, {4}}};
  std::string prebuilt = Screens::prebuild(literals);
  Screens screens = screens_of(literals, prebuilt);
  std::string text = numbered_lines(10) + "boom\n" + numbered_lines(10, "more");
  auto handed = read_all(text, &screens, {uint64_t{1} << 20, 0, 0});
  REQUIRE(handed.size() == 21);
  for (const auto& item : handed) {
    CHECK(item.kind == SparseRead::Kind::kCandidate);
    CHECK(item.owners == (item.text == "boom" ? std::vector<uint32_t>{4} : std::vector<uint32_t>{}));
  }
}

TEST_CASE("while a stage is holding, the next line is read whatever it holds" * with_hyperscan()) {
  Screens screens = screens_of({{{"Traceback", false}, Stop::kRead, {}}});
  std::string text = numbered_lines(20) + "Traceback (most recent call last):\n" + "  continued 1\n" +
                     "  continued 2\n" + "end of it\n" + numbered_lines(20, "after");
  // Holding from the traceback's header until "end of it" has been handed on.
  bool open = false;
  std::vector<std::string> seen;
  auto source = faultline::ingest::memory_source(text);
  auto records = faultline::ingest::open_records(*source, 0);
  SparseReader reader(*records, &screens, {0, 0, 0}, [&] { return open; });
  SparseRead read;
  while (reader.next(read)) {
    seen.emplace_back(read.record.text);
    if (read.record.text.starts_with("Traceback")) open = true;
    if (read.record.text == "end of it") open = false;
  }
  CHECK(seen == std::vector<std::string>{"Traceback (most recent call last):", "  continued 1",
                                         "  continued 2", "end of it"});
}

TEST_CASE("every line holding a literal is handed on with its owners: never a false negative" *
          with_hyperscan()) {
  const Declarations literals = {
      {{"Error", false}, Stop::kRead, {0}},    {{"out of memory", true}, Stop::kRead, {1, 2}},
      {{"nccl warn", true}, Stop::kPass, {3}}, {{"comm 0x", false}, Stop::kLesson, {}},
      {{"Fault", false}, Stop::kRead, {4}},
  };
  const std::vector<std::string> pieces = {
      "step",     "loss 2.3", "Error", "OUT OF MEMORY", "Out of Memory", "NCCL WARN",
      "comm 0x1", "Fau",      "lt",    "Fault",         "error",         "ok"};
  std::mt19937 random(12);
  std::string text;
  for (int line = 0; line < 20000; ++line) {
    int words = 1 + static_cast<int>(random() % 4);
    for (int w = 0; w < words; ++w) {
      // Mostly healthy words, so that most lines are skipped.
      size_t piece = random() % 50 < 46 ? random() % 2 + (random() % 2 ? 10 : 0) : random() % pieces.size();
      text += (w ? " " : "") + pieces[piece];
    }
    text += "\n";
  }
  for (bool sampled : {false, true}) {
    Screens screens = screens_of(literals);
    // A sample makes the screen look for anchors; the hits must be the same.
    if (sampled) REQUIRE(screens.sampled(std::string_view(text).substr(0, 4096)));
    auto handed = read_all(text, &screens);
    std::map<std::string, std::set<uint32_t>> owners_handed;
    size_t lines_handed = 0;
    for (const auto& item : handed) {
      if (!item.lookback) ++lines_handed;
      owners_handed[item.text].insert(item.owners.begin(), item.owners.end());
    }
    CHECK(lines_handed < 20000);
    size_t at = 0;
    size_t checked = 0;
    while (at < text.size()) {
      size_t end = text.find('\n', at);
      std::string line = text.substr(at, end - at);
      at = end + 1;
      std::string folded = line;
      for (char& c : folded) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      std::set<uint32_t> expected;
      bool stops = false;
      for (const auto& declared : literals) {
        bool holds = declared.literal.caseless ? folded.find(declared.literal.text) != std::string::npos
                                               : line.find(declared.literal.text) != std::string::npos;
        if (!holds) continue;
        expected.insert(declared.owners.begin(), declared.owners.end());
        stops = stops || declared.stop == Stop::kRead;
      }
      if (!stops) continue;
      ++checked;
      CAPTURE(line);
      REQUIRE(owners_handed.contains(line));
      const auto& got = owners_handed[line];
      CHECK(std::includes(got.begin(), got.end(), expected.begin(), expected.end()));
    }
    CHECK(checked > 100);
  }
}

TEST_CASE("the lines before a stop are walked back nearest first, passing over those handed on" *
          with_hyperscan()) {
  Screens screens = screens_of({{{"boom", false}, Stop::kRead, {}}});
  std::string text = numbered_lines(40) + "boom one\n" + numbered_lines(40, "middle") + "boom two\n";
  auto source = faultline::ingest::memory_source(text);
  auto records = faultline::ingest::open_records(*source, 0);
  SparseReader reader(*records, &screens, {0, 0, 0}, {});
  SparseRead read;
  std::vector<std::string> walked;
  while (reader.next(read)) {
    if (read.record.text != "boom two") continue;
    reader.unread_lines_before(
        read.record, read.block.data(), 60, [&](const faultline::ingest::Record& line) {
          walked.emplace_back(line.text);
          return walked.size() == 50 ? SparseReader::Walk::kStop : SparseReader::Walk::kCounted;
        });
  }
  // Every line from "middle 39" back: the kept lookback of "boom two" too (not yet read when the
  // walk runs), then past "boom one" and its lookback, read, counted and not visited.
  REQUIRE(walked.size() >= 41);
  CHECK(walked.front() == "middle 39 ok");
  CHECK(walked[39] == "middle 0 ok");
  CHECK(std::find(walked.begin(), walked.end(), "boom one") == walked.end());
  CHECK(std::find(walked.begin(), walked.end(), "step 39 ok") == walked.end());
  CHECK(walked[40] == "step " + std::to_string(39 - SparseReader::kLookbackLines) + " ok");
}

TEST_CASE("a prebuilt screen serves only the literals it was made for, with the same hits" *
          with_hyperscan()) {
  const Declarations literals = {{{"boom", true}, Stop::kRead, {1}}, {{"comm 0x", false}, Stop::kLesson, {}}};
  std::string bytes = Screens::prebuild(literals);
  REQUIRE_FALSE(bytes.empty());
  Screens same = screens_of(literals, bytes);
  REQUIRE(same.prebuilt());
  std::string text = "x BOOM y comm 0x12 boom\n";
  std::vector<LiteralScreen::Hit> prebuilt_hits;
  std::vector<LiteralScreen::Hit> sampled_hits;
  REQUIRE(same.prebuilt()->scan(text, prebuilt_hits));
  REQUIRE(same.sampled(text)->scan(text, sampled_hits));
  auto key = [](const auto& a, const auto& b) {
    return std::tie(a.end, a.literal) < std::tie(b.end, b.literal);
  };
  std::sort(prebuilt_hits.begin(), prebuilt_hits.end(), key);
  std::sort(sampled_hits.begin(), sampled_hits.end(), key);
  CHECK(prebuilt_hits.size() == 3);
  CHECK(std::equal(prebuilt_hits.begin(), prebuilt_hits.end(), sampled_hits.begin(), sampled_hits.end(),
                   [](const auto& a, const auto& b) { return a.end == b.end && a.literal == b.literal; }));
  Declarations other = literals;
  other[0].stop = Stop::kPass;
  CHECK(screens_of(other, bytes).prebuilt() == nullptr);
  Declarations more = literals;
  more.push_back({{"third", false}, Stop::kRead, {}});
  CHECK(screens_of(more, bytes).prebuilt() == nullptr);
  CHECK(screens_of(literals, std::string_view(bytes).substr(0, bytes.size() - 1)).prebuilt() == nullptr);
  // Owners are not part of the database: the same literals owned otherwise take it.
  Declarations owned_otherwise = literals;
  owned_otherwise[0].owners = {9};
  CHECK(screens_of(owned_otherwise, bytes).prebuilt() != nullptr);
}

TEST_CASE("a lesson's stretch decides what repeats; a line that always teaches is read and forgets the rest" *
          with_hyperscan()) {
  Screens screens = screens_of({{{"comm 0x", false}, Stop::kLesson, {}}});
  // The stretch is what stands before " NCCL ": the prefix; a line naming a rank always teaches.
  faultline::screen::LessonStretch stretch = [](std::string_view before,
                                                std::string_view after) -> std::optional<std::string_view> {
    if (after.find(" rank ") != std::string_view::npos) return std::nullopt;
    return before.substr(0, before.find(" NCCL "));
  };
  std::string text = numbered_lines(10) + "node1:42 NCCL INFO AllGather comm 0x1 opCount 1\n" +
                     numbered_lines(10, "a") + "node1:42 NCCL INFO AllGather comm 0x1 opCount 2\n" +
                     numbered_lines(10, "b") + "node1:42 NCCL INFO comm 0x1 rank 3 nranks 8\n" +
                     numbered_lines(10, "c") + "node1:42 NCCL INFO comm 0x1 rank 3 nranks 8\n" +
                     numbered_lines(10, "d") + "node1:42 NCCL INFO AllGather comm 0x1 opCount 3\n" +
                     numbered_lines(10, "e");
  auto source = faultline::ingest::memory_source(text);
  auto records = faultline::ingest::open_records(*source, 0);
  SparseReader reader(*records, &screens, {0, 0, 0}, {}, stretch);
  SparseRead read;
  std::vector<std::string> seen;
  while (reader.next(read)) seen.emplace_back(read.record.text);
  CHECK(seen == std::vector<std::string>{"node1:42 NCCL INFO AllGather comm 0x1 opCount 1",
                                         "node1:42 NCCL INFO comm 0x1 rank 3 nranks 8",
                                         "node1:42 NCCL INFO comm 0x1 rank 3 nranks 8",
                                         "node1:42 NCCL INFO AllGather comm 0x1 opCount 3"});
}

TEST_CASE("an NCCL line teaches its prefix less its thread id, unless it names a rank or an address") {
  auto stretch = [](std::string_view line) {
    size_t end = line.find("comm 0x") + 7;
    return faultline::parse::lesson_stretch(line.substr(0, end), line.substr(end));
  };
  std::string_view collective = "[default3]:node5:9279:9533 [3] NCCL INFO AllGather: opCount 4 comm 0x55d5";
  // The thread id aside: a process prints from several threads.
  CHECK(stretch(collective) == std::optional<std::string_view>("[default3]:node5:9279 [3]"));
  CHECK_FALSE(stretch("node5:9279:9533 [3] NCCL INFO comm 0x55d5 rank 3 nranks 8 - Init COMPLETE"));
  CHECK_FALSE(stretch("node5:9279:9533 [3] NCCL INFO NET/IB : Using [0]mlx5_0 comm 0x55d5"));
  // Any other line: the 96 bytes before the literal's end and the 64 after.
  std::string other = std::string(120, 'x') + "comm 0x" + std::string(100, 'y');
  auto got = stretch(other);
  REQUIRE(got);
  CHECK(*got == std::string(89, 'x') + "comm 0x" + std::string(64, 'y'));
}

TEST_CASE("a walk back goes past the lines it tells apart without cost, counting only the others" *
          with_hyperscan()) {
  Screens screens = screens_of({{{"boom", false}, Stop::kRead, {}}});
  std::string text = numbered_lines(40, "middle") + "boom\n";
  auto source = faultline::ingest::memory_source(text);
  auto records = faultline::ingest::open_records(*source, 0);
  SparseReader reader(*records, &screens, {0, 0, 0}, {});
  SparseRead read;
  size_t visited = 0;
  while (reader.next(read)) {
    if (read.record.text != "boom") continue;
    // Ten lines counted at most; the odd ones are passed uncounted.
    reader.unread_lines_before(
        read.record, read.block.data(), 10, [&](const faultline::ingest::Record& line) {
          ++visited;
          int number = std::stoi(std::string(line.text.substr(line.text.find(' ') + 1)));
          bool odd = number % 2 == 1;
          return odd ? SparseReader::Walk::kUncounted : SparseReader::Walk::kCounted;
        });
  }
  CHECK(visited == 20);  // ten even lines, and the ten odd ones between them
}

TEST_CASE("a read hit its owners do not confirm is passed over; one they confirm is read" *
          with_hyperscan()) {
  Screens screens = screens_of({{{"sendb", true}, Stop::kRead, {7}}, {{"fatal", false}, Stop::kRead, {}}});
  std::string text = numbered_lines(30) + "AllReduce sendbuff 0x7f\n" + numbered_lines(30, "middle") +
                     "3SendB0 action\n" + "fatal: stop\n";
  auto source = faultline::ingest::memory_source(text);
  auto records = faultline::ingest::open_records(*source, 0);
  std::vector<std::string> asked;
  SparseReader reader(*records, &screens, {0, 0, 0}, {}, {},
                      [&](std::span<const uint32_t> owners, std::string_view line) {
                        REQUIRE(owners.size() == 1);
                        CHECK(owners[0] == 7);
                        asked.emplace_back(line);
                        return line.find("SendB") != std::string_view::npos;
                      });
  std::vector<std::string> handed;
  SparseRead read;
  while (reader.next(read)) {
    if (read.kind == SparseRead::Kind::kCandidate && read.opens) handed.emplace_back(read.record.text);
  }
  CHECK(handed == std::vector<std::string>{"3SendB0 action", "fatal: stop"});
  CHECK(std::find(asked.begin(), asked.end(), "AllReduce sendbuff 0x7f") != asked.end());
}
