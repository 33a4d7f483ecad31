// The reports as a person reads them: the text report's first lines, Also seen folded per cause,
// one error from several files shown once, durations and timestamps as people write them, errors no
// rule knows, the HTML timeline's sections, SARIF's rendered help, and the README's example.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "run_binary.hpp"
#include "scratch.hpp"

namespace fs = std::filesystem;
using namespace faultline::testing;

namespace {

std::string key_case() {
  return corpus_log("001-torchrun-rank-vllm-heads-32-tp6-rank3");
}

size_t count(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

// An ISO-timestamped job: rank 1 fails, rank 0 times out ten minutes later.
constexpr const char* kTimedLog =
    "2026-03-02T10:00:00.000Z [rank0]: step 1\n"
    "2026-03-02T10:00:00.000Z [rank1]: step 1\n"
    "2026-03-02T10:00:01.500Z [rank1]: ValueError: Total number of attention heads (40) must be divisible by "
    "tensor parallel size (6).\n"
    "2026-03-02T10:10:02.000Z [rank0]: [E302 10:10:02.000000000 ProcessGroupNCCL.cpp:629] [Rank 0] Watchdog "
    "caught collective operation timeout: WorkNCCL(SeqNum=2, OpType=BROADCAST, NumelIn=1, NumelOut=1, "
    "Timeout(ms)=600000) ran for 600093 milliseconds before timing out.\n";

}  // namespace

TEST_CASE(
    "the text report's Also seen has one line per cause and role, with ranks, count and first evidence") {
  RunResult run = run_faultline({"diagnose", "--color", "never", key_case()});
  CHECK(run.exit_code == 1);
  size_t also = run.out.find("\nAlso seen\n");
  REQUIRE(also != std::string::npos);
  std::string section = run.out.substr(also, run.out.find("\n\nConfidence") - also);
  CHECK(count(section, "\n  - ") == 3);
  CHECK(count(section, "nccl.remote_rank_failed") == 1);
  CHECK(section.find("\n  - nccl.watchdog_timeout (symptom) on ranks 0-2,4-7, ") != std::string::npos);
  CHECK(section.find(" times, collateral of tp.heads_not_divisible\n") != std::string::npos);
  CHECK(section.find("log.txt:82  [rank 5]") != std::string::npos);
  CHECK(section.find("rank unknown") == std::string::npos);
}

TEST_CASE("the text report names the diagnosis in its first lines") {
  RunResult run = run_faultline({"diagnose", "--color", "never", key_case()});
  CHECK(
      run.out.find("Diagnosis: tp.heads_not_divisible  Attention heads not divisible by the tensor-parallel "
                   "size (vLLM)\n  initiating rank: 3   host: gpu-a100-017   confidence: 0.90\n  rule: "
                   "tp.heads_not_divisible.vllm   "
                   "seen on rank 3\n") == 0);
}

TEST_CASE("one error in stderr.log, error.json and the console is shown once, its other files counted") {
  std::string job =
      (fs::path(source_dir()) / "corpus" / "007-torchrun-logdir-attempt0-ckpt-tp2-into-tp4-rank2").string();
  RunResult run = run_faultline({"diagnose", "--color", "never", job});
  CHECK(run.exit_code == 1);
  std::string evidence = run.out.substr(run.out.find("\nEvidence\n"));
  evidence = evidence.substr(0, evidence.find("\n\n", 1));
  CHECK(count(evidence, "size mismatch for decoder.layers.0.") == 1);
  CHECK(evidence.find("\n      (also in error.json:1, console.log:38)") != std::string::npos);
}

TEST_CASE("durations read as people say them, and timestamps keep the year the log gives") {
  Scratch scratch;
  RunResult run = run_faultline({"diagnose", "--color", "never", scratch.write("job.log", kTimedLog)});
  CHECK(run.exit_code == 1);
  CHECK(run.out.find("   first seen: 2026-03-02 10:00:01.500   ") != std::string::npos);
  RunResult key = run_faultline({"diagnose", "--color", "never", key_case()});
  CHECK(key.out.find(" after 10 min (collateral)\n") != std::string::npos);
  CHECK(key.out.find("600000 ms (collateral)") == std::string::npos);
}

TEST_CASE("an error no rule knows is said plainly, with its exception, innermost frame and rank") {
  Scratch scratch;
  std::string log = scratch.write("job.log",
                                  "[rank0]: step 1\n"
                                  "[rank1]: Traceback (most recent call last):\n"
                                  "[rank1]:   File \"/app/train.py\", line 42, in step\n"
                                  "[rank1]:     frob(x)\n"
                                  "[rank1]: ZorkError: the widget went sideways\n");
  RunResult run = run_faultline({"diagnose", "--color", "never", log});
  CHECK(run.exit_code == 1);
  CHECK(run.out.find("Diagnosis: unrecognised  An error that no rule knows\n"
                     "  initiating rank: 1   confidence: ") == 0);
  CHECK(run.out.find("\n  No rule knows this error; faultline shows it as the log gives it.\n"
                     "  exception: ZorkError: the widget went sideways\n"
                     "  raised at: /app/train.py:42, in step\n"
                     "             frob(x)\n"
                     "  rank:      1\n") != std::string::npos);
}

TEST_CASE("control bytes of the log do not reach the terminal") {
  Scratch scratch;
  std::string log =
      scratch.write("job.log",
                    "[rank3]: ValueError: Total number of attention heads (40) must be divisible by "
                    "tensor parallel size (6).\x07\xc2\x9b\n");
  RunResult run = run_faultline({"diagnose", "--color", "never", log});
  CHECK(run.exit_code == 1);
  CHECK(run.out.find('\x07') == std::string::npos);
  CHECK(run.out.find("\xc2\x9b") == std::string::npos);
}

TEST_CASE(
    "the html report orders by timestamp when lines carry them, lists each cause once, and has every "
    "section") {
  Scratch scratch;
  RunResult timed = run_faultline({"diagnose", "--format", "html", scratch.write("job.log", kTimedLog)});
  CHECK(timed.exit_code == 1);
  CHECK(timed.out.find("time since the first report, by timestamp") != std::string::npos);
  CHECK(timed.out.find("order in the logs") == std::string::npos);
  RunResult run = run_faultline({"diagnose", "--format", "html", key_case()});
  std::string legend = run.out.substr(run.out.find("<ul class=\"legend\">"));
  legend = legend.substr(0, legend.find("</ul>"));
  CHECK(count(legend, "(nccl.watchdog_timeout, collateral") == 1);
  CHECK(count(legend, "(nccl.remote_rank_failed, collateral") == 1);
  for (const char* section : {"<h3>Confirm</h3>", "<h3>Also seen</h3>", "<h3>Coverage</h3>"}) {
    INFO(section);
    CHECK(run.out.find(section) != std::string::npos);
  }
}

TEST_CASE("sarif names its version, renders the rules' help, and gives stdin a proper artifact uri") {
  std::ifstream file(key_case(), std::ios::binary);
  std::ostringstream log;
  log << file.rdbuf();
  RunResult run = run_faultline({"diagnose", "--format", "sarif"}, log.str());
  CHECK(run.exit_code == 1);
  CHECK(run.out.find("\"name\": \"faultline\",\n          \"version\": \"") != std::string::npos);
  CHECK(run.out.find("- Use a tensor-parallel size that divides 32: 1, 2, 4, 8, 16, 32.") !=
        std::string::npos);
  CHECK(run.out.find("{divisors(") == std::string::npos);
  CHECK(run.out.find("\"uri\": \"stdin\"") != std::string::npos);
  CHECK(run.out.find("<stdin>") == std::string::npos);
}

TEST_CASE("the README's example is the binary's output for corpus case 001") {
  std::ifstream file(fs::path(source_dir()) / "README.md", std::ios::binary);
  std::ostringstream readme;
  readme << file.rdbuf();
  const std::string command =
      "$ faultline diagnose corpus/001-torchrun-rank-vllm-heads-32-tp6-rank3/log.txt\n";
  size_t start = readme.str().find(command);
  REQUIRE(start != std::string::npos);
  start += command.size();
  std::string shown = readme.str().substr(start, readme.str().find("```", start) - start);
  auto [status, output] =
      shell("cd " + source_dir() + " && " + FAULTLINE_BINARY +
            " diagnose --color never corpus/001-torchrun-rank-vllm-heads-32-tp6-rank3/log.txt");
  INFO("regenerate README.md's example with: build/faultline diagnose corpus/001-*/log.txt");
  CHECK(shown == output);
}

namespace {

// A 256-rank job on 32 hosts of 8: every rank's NCCL init line names its host, rank 3 fails at
// 10:24:39, the others time out 13 minutes later (c10 glog timestamps, no year).
std::string large_job_log() {
  std::string log;
  for (int rank = 0; rank < 256; ++rank) {
    std::string host = "node" + std::to_string(rank / 8 + 1), pid = std::to_string(40000 + rank);
    log += "[rank" + std::to_string(rank) + "]:" + host + ":" + pid + ":" + pid + " [" +
           std::to_string(rank % 8) + "] NCCL INFO comm 0x5e1f0 rank " + std::to_string(rank) +
           " nranks 256 cudaDev " + std::to_string(rank % 8) + " busId 1b000 - Init COMPLETE\n";
  }
  log += "[rank3]:[W1129 10:24:39.128000000 ProcessGroupNCCL.cpp:1250] Warning: about to fail\n";
  log +=
      "[rank3]: ValueError: Total number of attention heads (32) must be divisible by tensor parallel size "
      "(6).\n";
  for (int rank = 0; rank < 256; ++rank) {
    if (rank == 3) continue;
    std::string r = std::to_string(rank);
    log +=
        "[rank" + r +
        "]:[E1129 10:37:28.035833417 ProcessGroupNCCL.cpp:1664] [PG ID 0 PG GUID 0(default_pg) Rank " + r +
        "] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=3886, OpType=ALLREDUCE, NumelIn=1, "
        "NumelOut=1, Timeout(ms)=600000) ran for 600023 milliseconds before timing out.\n";
  }
  return log;
}

}  // namespace

TEST_CASE("the html report folds a 256-rank job to one lane per host, the failing host open") {
  Scratch scratch;
  RunResult run = run_faultline({"diagnose", "--format", "html", scratch.write("job.log", large_job_log())});
  CHECK(run.exit_code == 1);
  CHECK(run.out.find("<p class=\"fold-note\" id=\"fold-note\">256 ranks on 32 hosts: one lane per host, its "
                     "ranks' marks on it; open a host for a lane per rank.</p>") != std::string::npos);
  CHECK(count(run.out, "<details class=\"host\"") == 32);
  CHECK(count(run.out, " open>") == 1);
  CHECK(run.out.find("<details class=\"host\" data-host=\"node1\" data-ranks=\"0-7\" open>") !=
        std::string::npos);
  CHECK(run.out.find("<details class=\"host\" data-host=\"node2\" data-ranks=\"8-15\">") !=
        std::string::npos);
  CHECK(run.out.find(">node32 · ranks 248-255</text>") != std::string::npos);
  CHECK(run.out.find("class=\"mark host-mark initiating\" data-rank=\"3\"") != std::string::npos);
  CHECK(run.out.find("class=\"mark initiating\" data-rank=\"3\"") != std::string::npos);
  CHECK(run.out.find("time since the first report, by timestamp") != std::string::npos);
  CHECK(run.out.find("+13 min") != std::string::npos);
  // The same job's text sections.
  for (const char* section :
       {"<h3>What happened</h3>", "<h3>Evidence</h3>", "<h3>Fix</h3>", "<h3>Also seen</h3>",
        "<h3>Coverage</h3>", "<p id=\"rule\">rule <code>tp.heads_not_divisible",
        "first seen <span id=\"first-seen\">Nov 29 10:24:39</span>"}) {
    INFO(section);
    CHECK(run.out.find(section) != std::string::npos);
  }
  // A small job keeps a lane per rank.
  RunResult small = run_faultline({"diagnose", "--format", "html", key_case()});
  CHECK(small.out.find("<details") == std::string::npos);
  CHECK(small.out.find("<svg id=\"timeline\"") != std::string::npos);
}
