// `faultline scan` and `faultline merge` over a generated directory of many jobs: every input
// accounted for, the summary matches the generator's truth, shards merge into the single
// run, threads change nothing but the order of the lines, and corrupt files are named.
#include <doctest/doctest.h>
#include <simdjson.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include "messages.hpp"
#include "run_binary.hpp"
#include "scratch.hpp"

namespace fs = std::filesystem;
using namespace faultline::testing;

extern char** environ;

#ifndef FAULTLINE_GENJOBS  // a build without tools (-DFAULTLINE_TOOLS=OFF) has no generator
#define FAULTLINE_GENJOBS ""
#endif

namespace {

constexpr bool kNoGenerator = sizeof(FAULTLINE_GENJOBS) == 1;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream stream(text);
  for (std::string line; std::getline(stream, line);) {
    if (!line.empty()) lines.push_back(line);
  }
  return lines;
}

std::string str(simdjson::dom::element value) {
  std::string_view text;
  if (value.get_string().get(text)) return "<null>";
  return std::string(text);
}

struct ScanOutput {
  std::map<std::string, std::string> cause_by_job;  // "<null>" when none
  std::set<std::string> analysed;                   // report inputs, by source name
  std::map<std::string, std::string> skipped;       // source -> reason (jobs' and loose ones)
  uint64_t entries = 0;                             // inputs + skipped, as written
  std::string summary;                              // the last line
  uint64_t job_lines = 0;
  bool parsed = true;
};

ScanOutput read_scan(const std::string& out) {
  ScanOutput result;
  simdjson::dom::parser parser;
  auto lines = lines_of(out);
  for (size_t i = 0; i < lines.size(); ++i) {
    simdjson::dom::element line;
    if (parser.parse(lines[i]).get(line)) {
      result.parsed = false;
      continue;
    }
    std::string type = str(line["type"]);
    if (type == "summary") {
      if (i + 1 == lines.size())
        result.summary = lines[i];
      else
        result.parsed = false;  // the summary must be last
    } else if (type == "skipped") {
      result.skipped[str(line["source"])] = str(line["reason"]);
      ++result.entries;
    } else if (type == "job") {
      ++result.job_lines;
      result.cause_by_job[str(line["job"])] = str(line["cause"]);
      for (auto input : simdjson::dom::array(line["report"]["inputs"])) {
        result.analysed.insert(str(input["source"]));
        ++result.entries;
      }
      for (auto item : simdjson::dom::array(line["report"]["skipped"])) {
        result.skipped[str(item["source"])] = str(item["reason"]);
        ++result.entries;
      }
    } else {
      result.parsed = false;
    }
  }
  return result;
}

struct Truth {
  std::map<std::string, std::string> cause_by_job;  // relative to logs/
  uint64_t entries = 0;
};

// A generated set of jobs, made once per test binary and removed at exit.
struct GeneratedJobs {
  fs::path root;
  std::string logs;
  Truth truth;
  int generator_exit = -1;
  RunResult full;  // scan -j 2 of all of it

  explicit GeneratedJobs(int jobs, int attempts = 1) {
    root = fs::temp_directory_path() / ("faultline-scan-" + std::to_string(jobs) + "x" +
                                        std::to_string(attempts) + "-" + std::to_string(::getpid()));
    fs::remove_all(root);
    fs::create_directories(root);
    logs = (root / "logs").string();
    std::string count = std::to_string(jobs), out_dir = root.string(), tries = std::to_string(attempts);
    std::vector<char*> argv = {const_cast<char*>(FAULTLINE_GENJOBS),
                               const_cast<char*>("--jobs"),
                               count.data(),
                               const_cast<char*>("--out-dir"),
                               out_dir.data(),
                               const_cast<char*>("--attempts"),
                               tries.data(),
                               nullptr};
    pid_t pid = 0;
    if (posix_spawn(&pid, FAULTLINE_GENJOBS, nullptr, nullptr, argv.data(), environ) == 0) {
      int status = 0;
      ::waitpid(pid, &status, 0);
      generator_exit = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    }
    std::ifstream file(root / "truth.jsonl");
    simdjson::dom::parser parser;
    for (std::string line; std::getline(file, line);) {
      simdjson::dom::element item;
      if (parser.parse(line).get(item)) continue;
      truth.cause_by_job[str(item["job"])] = str(item["cause"]);
      truth.entries += uint64_t(item["entries"]);
    }
    full = run_faultline({"scan", "-j", "2", logs});
  }
  ~GeneratedJobs() { fs::remove_all(root); }
};

GeneratedJobs& thousand_jobs() {
  static GeneratedJobs jobs(1000);
  return jobs;
}

// A crash archive (issue 16): every job failed 300 times, so most lines match rules.
GeneratedJobs& crash_archive() {
  static GeneratedJobs jobs(24, 300);
  return jobs;
}

simdjson::dom::element parse(simdjson::dom::parser& parser, const std::string& json) {
  simdjson::dom::element element;
  REQUIRE(parser.parse(json).get(element) == simdjson::SUCCESS);
  return element;
}

constexpr const char* kHeadsLine =
    "ValueError: Total number of attention heads (40) must be divisible by tensor parallel size (6).\n";

}  // namespace

TEST_CASE("scan of 1000 generated jobs accounts for every input and matches the generator's truth" *
          doctest::skip(kNoGenerator)) {
  GeneratedJobs& jobs = thousand_jobs();
  REQUIRE(jobs.generator_exit == 0);
  REQUIRE(jobs.truth.cause_by_job.size() == 1000);
  CHECK(jobs.full.exit_code == 2);  // the corrupt files are input errors
  ScanOutput scan = read_scan(jobs.full.out);
  REQUIRE(scan.parsed);
  CHECK(scan.job_lines == 1000);

  // Every job as the generator meant it: same names, same causes.
  std::map<std::string, std::string> expected;
  for (const auto& [job, cause] : jobs.truth.cause_by_job) expected[jobs.logs + "/" + job] = cause;
  CHECK(scan.cause_by_job == expected);

  // Nothing lost: every file on disk is analysed, skipped, or an archive whose members are.
  CHECK(scan.entries == jobs.truth.entries);
  uint64_t unaccounted = 0;
  for (const auto& entry : fs::recursive_directory_iterator(jobs.logs)) {
    if (!entry.is_regular_file()) continue;
    std::string file = entry.path().string();
    auto member = scan.analysed.lower_bound(file + ":");
    bool has_member = member != scan.analysed.end() && member->rfind(file + ":", 0) == 0;
    if (!scan.analysed.count(file) && !scan.skipped.count(file) && !has_member) {
      ++unaccounted;
      MESSAGE("not accounted for: " << file);
    }
  }
  CHECK(unaccounted == 0);

  // The summary says the same.
  simdjson::dom::parser parser;
  auto summary = parse(parser, scan.summary);
  std::map<std::string, uint64_t> truth_causes;
  uint64_t truth_negative = 0;
  for (const auto& [job, cause] : jobs.truth.cause_by_job) {
    if (cause == "<null>")
      ++truth_negative;
    else
      ++truth_causes[cause];
  }
  std::map<std::string, uint64_t> summary_causes;
  for (auto item : simdjson::dom::array(summary["causes"]))
    summary_causes[str(item["cause"])] = uint64_t(item["jobs"]);
  CHECK(summary_causes == truth_causes);
  CHECK(uint64_t(summary["totals"]["jobs"]) == 1000);
  CHECK(uint64_t(summary["totals"]["no_diagnosis"]) == truth_negative);
  CHECK(uint64_t(summary["totals"]["failed"]) == 0);
  CHECK(uint64_t(summary["totals"]["inputs"]) + uint64_t(summary["totals"]["skipped"]) == jobs.truth.entries);
  CHECK(simdjson::dom::array(summary["no_diagnosis"]).size() == truth_negative);
  // The text summary on stderr leads with the totals.
  CHECK(jobs.full.err.rfind("scan: 1000 jobs: " + std::to_string(1000 - truth_negative) + " diagnosed", 0) ==
        0);
}

TEST_CASE("four shards merged give the summary of one unsharded scan" * doctest::skip(kNoGenerator)) {
  GeneratedJobs& jobs = thousand_jobs();
  ScanOutput whole = read_scan(jobs.full.out);
  REQUIRE(!whole.summary.empty());
  Scratch scratch;
  std::vector<std::string> results;
  std::set<std::string> seen;
  uint64_t job_lines = 0;
  for (int shard = 0; shard < 4; ++shard) {
    RunResult run =
        run_faultline({"scan", "-j", "2", "-q", "--shard", std::to_string(shard) + "/4", jobs.logs});
    CHECK(run.err.empty());  // -q: no text summary
    ScanOutput part = read_scan(run.out);
    job_lines += part.job_lines;
    for (const auto& [job, cause] : part.cause_by_job) CHECK(seen.insert(job).second);  // exactly one shard
    CHECK(part.job_lines > 150);                                                        // a fair share
    results.push_back(scratch.write("shard" + std::to_string(shard) + ".jsonl", run.out));
  }
  CHECK(job_lines == 1000);
  std::vector<std::string> merge = {"merge"};
  merge.insert(merge.end(), results.begin(), results.end());
  RunResult merged = run_faultline(merge);
  CHECK(merged.exit_code == jobs.full.exit_code);
  CHECK(merged.out == whole.summary + "\n");

  // A shard run twice is counted once, with a word.
  merge.push_back(results.front());
  RunResult twice = run_faultline(merge);
  CHECK(twice.out == whole.summary + "\n");
  CHECK(twice.err == repeated_jobs_warning(results.front()) + merged.err);
}

TEST_CASE("scan with one thread and with two writes the same job lines" * doctest::skip(kNoGenerator)) {
  GeneratedJobs& jobs = thousand_jobs();
  std::string part = jobs.logs + "/slurm";  // 166 jobs in one folder
  RunResult one = run_faultline({"scan", "-j", "1", part});
  RunResult two = run_faultline({"scan", "-j", "2", part});
  auto one_lines = lines_of(one.out), two_lines = lines_of(two.out);
  CHECK(one_lines.size() > 100);
  std::sort(one_lines.begin(), one_lines.end());
  std::sort(two_lines.begin(), two_lines.end());
  CHECK(one_lines == two_lines);
  CHECK(one.exit_code == two.exit_code);
}

TEST_CASE("a corrupt file is skipped with its reason and the other jobs are diagnosed") {
  Scratch scratch;
  scratch.write("runs/good/rank0.log", std::string("step 1 | loss 2.0\n") + kHeadsLine);
  std::string garbage = scratch.write("runs/bad/core.bin", std::string("\x7f"
                                                                       "ELF\x02\x01\x01\0\0\0\0",
                                                                       12) +
                                                               "junk");
  std::string good_log = scratch.write("runs/bad/rank1.log", kHeadsLine);
  RunResult run = run_faultline({"scan", "-j", "2", scratch.path("runs")});
  CHECK(run.exit_code == 2);
  ScanOutput scan = read_scan(run.out);
  REQUIRE(scan.parsed);
  CHECK(scan.cause_by_job[scratch.path("runs/good")] == "tp.heads_not_divisible");
  CHECK(scan.cause_by_job[scratch.path("runs/bad")] == "tp.heads_not_divisible");
  const std::string reason =
      "binary file (4 of the 11 bytes other than NUL in its first 16 are control bytes or invalid UTF-8), "
      "not a "
      "log";
  CHECK(scan.skipped[garbage] == reason);
  CHECK(scan.analysed.count(good_log) == 1);
  CHECK(run.err.ends_with("skipped inputs: 1\n  " + garbage + ": " + reason + "\n"));
}

TEST_CASE("the generated corrupt files are named with their reasons, and their jobs keep their causes" *
          doctest::skip(kNoGenerator)) {
  GeneratedJobs& jobs = thousand_jobs();
  ScanOutput scan = read_scan(jobs.full.out);
  std::string core = jobs.logs + "/job-0003/core.bin";
  CHECK_MESSAGE(is_binary_file_reason(scan.skipped[core]), scan.skipped[core]);
  CHECK(scan.cause_by_job[jobs.logs + "/job-0003"] == jobs.truth.cause_by_job["job-0003"]);
  std::string truncated, why;
  for (const auto& [source, reason] : scan.skipped) {
    if (source.rfind(jobs.logs + "/job-0001/", 0) == 0) std::tie(truncated, why) = std::pair{source, reason};
  }
  REQUIRE(truncated.ends_with(".log.gz"));
  CHECK(why == "gzip stream truncated at byte " + std::to_string(std::filesystem::file_size(truncated)));
  CHECK(scan.cause_by_job[jobs.logs + "/job-0001"] == jobs.truth.cause_by_job["job-0001"]);
}

TEST_CASE("scan groups torchrun attempts, Slurm outputs and archives into jobs; --job-by changes that") {
  Scratch scratch;
  scratch.write("r/run-a/attempt_0/0/stderr.log", kHeadsLine);
  scratch.write("r/run-a/attempt_1/1/stderr.log", "step 1\n");
  scratch.write("r/slurm-77.out", kHeadsLine);
  scratch.write("r/slurm-77-1.out", "step 1\n");
  scratch.write("r/slurm-78_3.out", "step 1\n");
  scratch.write("r/notes.txt", "nothing\n");
  std::string root = scratch.path("r");
  auto jobs_of = [&](std::vector<std::string> arguments) {
    RunResult run = run_faultline(arguments);
    std::set<std::string> names;
    for (const auto& [job, cause] : read_scan(run.out).cause_by_job) names.insert(job.substr(root.size()));
    return names;
  };
  CHECK(jobs_of({"scan", root}) == std::set<std::string>{"", "/run-a", "/slurm-77", "/slurm-78_3"});
  CHECK(jobs_of({"scan", "--job-by", "dir", root}) ==
        std::set<std::string>{"", "/run-a/attempt_0/0", "/run-a/attempt_1/1"});
  CHECK(jobs_of({"scan", "--job-by", "file", root}).size() == 6);
  RunResult archives = run_faultline({"scan", "--job-by", "archive", root});
  ScanOutput scan = read_scan(archives.out);
  CHECK(scan.job_lines == 0);
  CHECK(scan.skipped.size() == 6);
  CHECK(scan.skipped[root + "/notes.txt"] == "not an archive (--job-by archive)");
}

TEST_CASE("scan and merge refuse bad arguments") {
  CHECK(run_faultline({"scan"}).exit_code == 2);
  RunResult shard = run_faultline({"scan", "--shard", "4/4", "."});
  CHECK(shard.exit_code == 2);
  CHECK(shard.err ==
        "faultline: --shard '4/4' must be I/N with 0 <= I < N (0-based, as Slurm array and Kubernetes "
        "indexes are)\n");
  RunResult merge = run_faultline({"merge", "/nonexistent/results.jsonl"});
  CHECK(merge.exit_code == 2);
  CHECK(merge.err ==
        "faultline: /nonexistent/results.jsonl: cannot be read\n"
        "scan: 0 jobs: 0 diagnosed, 0 with no diagnosis, 0 failed\n"
        "inputs: 0 files (0 archive members), 0 sources analysed, 0 skipped, 0 with read errors; 0.0 MB, 0 "
        "lines\n");
}

TEST_CASE("scan of a dense crash archive (each job failed 300 times) matches the generator's truth" *
          doctest::skip(kNoGenerator)) {
  GeneratedJobs& jobs = crash_archive();
  REQUIRE(jobs.generator_exit == 0);
  REQUIRE(jobs.truth.cause_by_job.size() == 24);
  ScanOutput scan = read_scan(jobs.full.out);
  REQUIRE(scan.parsed);
  CHECK(scan.job_lines == 24);
  std::map<std::string, std::string> expected;
  for (const auto& [job, cause] : jobs.truth.cause_by_job) expected[jobs.logs + "/" + job] = cause;
  CHECK(scan.cause_by_job == expected);
  CHECK(scan.entries == jobs.truth.entries);
}
