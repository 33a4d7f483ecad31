// The sparse read of large logs (JobRunner past its dense head): it must find what reading every
// line finds. Each case is read twice, once line by line and once sparsely from its first byte.
#include <doctest/doctest.h>

#include <filesystem>
#include <sstream>

#include "../e2e/scratch.hpp"
#include "../skip_unless.hpp"
#include "ingest/inputs.hpp"
#include "ingest/line_reader.hpp"
#include "ingest/mapped_file.hpp"
#include "job/job_runner.hpp"
#include "pipeline_helpers.hpp"
#include "report/story.hpp"
#include "rules/rule_set.hpp"
#include "screen/literal_screen.hpp"

namespace fs = std::filesystem;
using faultline::job::JobRunner;
using faultline::screen::Screens;

namespace {

const faultline::rules::Engine& engine() {
  return faultline::testing::shipped_engine();
}

// The screens of the shipped engine, shared by the tests as a scan's jobs share them.
const std::shared_ptr<const Screens>& screens() {
  static const std::shared_ptr<const Screens> shared = faultline::job::make_screens(engine());
  return shared;
}

// What a reader of the report sees: the diagnosis, when it happened, and every finding group
// with its ranks, occurrences and first evidence line.
std::string summary(const faultline::correlate::JobAnalysis& analysis) {
  std::ostringstream out;
  if (analysis.diagnosis) {
    const auto& diagnosis = *analysis.diagnosis;
    out << "diagnosis " << diagnosis.cause << " rank "
        << (diagnosis.initiating_rank ? std::to_string(*diagnosis.initiating_rank) : "none") << " at "
        << diagnosis.first_seen.to_string() << "\n";
    for (const auto& line : diagnosis.story) out << "  " << faultline::report::story_text(line) << "\n";
  }
  for (const auto& group : analysis.findings) {
    out << group.rule->id << " x" << group.occurrences << " ranks";
    for (int rank : group.ranks) out << " " << rank;
    if (!group.evidence.empty()) out << " line " << group.evidence.front().line;
    out << " at " << group.first_time.to_string() << "\n";
  }
  return out.str();
}

struct Reads {
  std::string full;
  std::string sparse;
  std::string sparse_prebuilt;
  uint64_t lines = 0;
  uint64_t parsed_sparsely = 0;
};

// Reads the files in full, then sparsely two ways: with `shared` screens, whose sampled screen
// the test may have built already, and with screens of their own that read on with the prebuilt
// screen and never build one from a sample (as a job under 2 MiB does). Both sparse reads must
// equal the full one.
Reads read_both_ways(const std::vector<std::string>& files,
                     const std::shared_ptr<const Screens>& shared = screens()) {
  Reads reads;
  for (bool sparse : {false, true}) {
    JobRunner runner(engine(), shared);
    runner.set_dense_head_bytes(sparse ? 0 : UINT64_MAX);
    runner.set_sampled_screen_bytes(0);
    for (const auto& file : files) runner.add_path(file);
    if (sparse) {
      for (const auto& source : runner.sources()) {
        reads.lines += source.lines;
        reads.parsed_sparsely += source.lines_parsed;
      }
    }
    (sparse ? reads.sparse : reads.full) = summary(runner.finish("job"));
  }
  JobRunner runner(engine());
  runner.set_dense_head_bytes(0);
  runner.set_sampled_screen_bytes(UINT64_MAX);
  for (const auto& file : files) runner.add_path(file);
  reads.sparse_prebuilt = summary(runner.finish("job"));
  CHECK(runner.screens().prebuilt() != nullptr);
  CHECK_FALSE(runner.screens().sampled_built());
  return reads;
}

void check_corpus(const fs::path& corpus) {
  size_t cases = 0;
  for (const auto& entry : fs::directory_iterator(corpus)) {
    if (!entry.is_directory()) continue;
    auto inputs = faultline::ingest::expand_inputs({entry.path().string()}, {}, {"expected.yaml", "*.md"});
    if (inputs.files.empty()) continue;
    ++cases;
    Reads reads = read_both_ways(inputs.files);
    INFO("case " << entry.path().filename().string());
    CHECK(reads.sparse == reads.full);
    CHECK(reads.sparse_prebuilt == reads.full);
  }
  CHECK(cases > 0);
}

// The sparse read needs Hyperscan; a build without it reads every line and has none to check.
doctest::skip with_hyperscan() {
  return faultline::testing::skip_unless(faultline::screen::LiteralScreen::built_in(),
                                         "built without Hyperscan: no sparse read");
}

fs::path real_corpus() {
  return fs::path(FAULTLINE_TEST_SOURCE_DIR).parent_path() / "shared" / "corpus-real";
}

std::string two_digits(int value) {
  return (value < 10 ? "0" : "") + std::to_string(value);
}

}  // namespace

TEST_CASE("a sparse read diagnoses every corpus case as a full read does" * with_hyperscan()) {
  REQUIRE(screens()->sampled());
  check_corpus(fs::path(FAULTLINE_TEST_SOURCE_DIR) / "corpus");
}

TEST_CASE("a sparse read diagnoses every real log as a full read does" *
          faultline::testing::skip_unless(faultline::screen::LiteralScreen::built_in() &&
                                              fs::is_directory(real_corpus()),
                                          "built without Hyperscan, or no ../shared/corpus-real")) {
  REQUIRE(screens()->sampled());
  check_corpus(real_corpus());
}

TEST_CASE("a sparse read parses few lines and still dates an untimed traceback by its rank's last time" *
          with_hyperscan()) {
  REQUIRE(screens()->sampled());
  // 8 ranks logging timestamped steps; rank 5 raises an untimed traceback; the others time out.
  std::string log;
  int second = 0;
  for (int step = 0; step < 4000; ++step) {
    int rank = step % 8;
    second = step / 8;
    log += "[rank" + std::to_string(rank) + "]: [2026-11-29 10:" + two_digits(second / 60 % 60) + ":" +
           two_digits(second % 60) + "] iteration " + std::to_string(step) +
           " | lm loss: 2.31 | grad norm: 0.9\n";
    log += "[rank" + std::to_string(rank) + "]: data_loader: fetched batch " + std::to_string(step) + "\n";
  }
  log +=
      "[rank5]: Traceback (most recent call last):\n"
      "[rank5]:   File \"train.py\", line 12, in <module>\n"
      "[rank5]: ValueError: Total number of attention heads (32) must be divisible by tensor parallel size "
      "(6).\n";
  for (int rank = 0; rank < 8; ++rank) {
    if (rank == 5) continue;
    log += "[rank" + std::to_string(rank) +
           "]:[E1129 11:30:00.000000000 ProcessGroupNCCL.cpp:1664] [PG ID 0 Rank " + std::to_string(rank) +
           "] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=9, OpType=ALLREDUCE, NumelIn=1, "
           "NumelOut=1, Timeout(ms)=600000) ran for 600001 milliseconds before timing out.\n";
  }
  faultline::testing::Scratch scratch;
  Reads reads = read_both_ways({scratch.write("steps.log", log)});
  CHECK(reads.sparse == reads.full);
  CHECK(reads.sparse_prebuilt == reads.full);
  CHECK(reads.full.find("diagnosis tp.heads_not_divisible rank 5") != std::string::npos);
  CHECK(reads.full.find("at 2026-11-29T10:08:19") != std::string::npos);  // rank 5's last step
  CHECK(reads.lines > 8000);
  CHECK(reads.parsed_sparsely < reads.lines / 20);
}

TEST_CASE("a sparse read of a large log whose last line has no newline reads that line" * with_hyperscan()) {
  REQUIRE(screens()->sampled());
  // Several reader blocks of steps with NCCL lines among them, and the error as the last line with
  // no newline after it: a reader copying blocks moves it to the front of its buffer to look for
  // the rest, and the screen of the old buffer must not be applied to the moved bytes. The file
  // is large enough to be mapped (the reader takes views of it); the same bytes are also read
  // sparsely by copying.
  std::string log;
  for (int step = 0; step < 30000; ++step) {
    int rank = step % 8;
    log += "[rank" + std::to_string(rank) + "]: iteration " + std::to_string(step) + " | lm loss: 2.31\n";
    if (step % 50 == 0) {
      log += "node1:" + std::to_string(9000 + rank) + ":9100 [" + std::to_string(rank) +
             "] NCCL INFO comm 0x55d5ca1f" + std::to_string(rank) + "f30 rank " + std::to_string(rank) +
             " nranks 8 cudaDev " + std::to_string(rank) + " - Init COMPLETE\n";
    }
  }
  log += "[rank3]: RuntimeError: CUDA error: an illegal memory access was encountered";
  REQUIRE(log.size() > 3 * faultline::ingest::LineReader::kBlockBytes);
  REQUIRE(log.size() > faultline::ingest::MappedFile::kMapFrom);  // read as views of a mapping
  faultline::testing::Scratch scratch;
  std::string file = scratch.write("last-line.log", log);
  // Screens of their own, whose sampled screen the sparse read builds from this log's first
  // block, so that it looks for anchors rather than for each literal.
  auto fresh = faultline::job::make_screens(engine());
  Reads reads = read_both_ways({file}, fresh);
  JobRunner copying(engine(), fresh);
  copying.set_dense_head_bytes(0);
  copying.set_sampled_screen_bytes(0);
  auto copied = faultline::ingest::memory_source(log, false);
  copying.add_source(*copied, faultline::ingest::SourceInfo{});
  CHECK(summary(copying.finish("job")) == reads.full);
  REQUIRE(fresh->sampled() != nullptr);
  CHECK(fresh->sampled()->anchor_count() < fresh->literals()->size());
  CHECK(reads.sparse == reads.full);
  CHECK(reads.sparse_prebuilt == reads.full);
  CHECK(reads.full.find("rank 3") != std::string::npos);
}
