// `--redact` as a user runs it: a log holding an address, host prefixes, a home path, a token
// and an e-mail address; none of them may reach stdout or stderr in any format, and the
// diagnosis must not change.
#include <doctest/doctest.h>
#include <simdjson.h>

#include <string>
#include <vector>

#include "report_reader.hpp"
#include "run_binary.hpp"
#include "scratch.hpp"

using namespace faultline::testing;

namespace {

const std::string kToken = "hf_Q7xT2mR9kLp4Wv8NzB3cYd6F";
const std::vector<std::string> kSecrets = {"gpu-node-07", "10.11.12.13", "alice", kToken,
                                           "alice.ml@example.com"};

// The evidence line carries every secret; the log lies under a home folder, so its name does too.
std::string secret_log() {
  return "gpu-node-07:48213:48213 [3] NCCL INFO Bootstrap : Using eth0:10.11.12.13<0>\n"
         "[rank0]:[W1129 10:22:30.000000000 ProcessGroupNCCL.cpp:1479] Warning: something benign\n"
         "gpu-node-07: [rank3]: Traceback (most recent call last):\n"
         "gpu-node-07: [rank3]:   File \"/home/alice/project/serve.py\", line 12, in <module>\n"
         "gpu-node-07: [rank3]: ValueError: Total number of attention heads (40) must be divisible by tensor "
         "parallel "
         "size (6). Ask alice.ml@example.com; store 10.11.12.13:9000; HF_TOKEN=" +
         kToken + "\n";
}

// The secrets `text` still holds.
std::vector<std::string> leaked(const std::string& text) {
  std::vector<std::string> found;
  for (const auto& secret : kSecrets) {
    if (text.find(secret) != std::string::npos) found.push_back(secret);
  }
  return found;
}

bool parses_as_json(const std::string& text) {
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  return parser.parse(text).get(root) == simdjson::SUCCESS;
}

}  // namespace

TEST_CASE("without --redact the report shows the log's hosts, addresses, paths and secrets") {
  Scratch scratch;
  RunResult run =
      run_faultline({"diagnose", "--color", "never", scratch.write("home/alice/job.log", secret_log())});
  CHECK(run.exit_code == 1);
  CHECK(leaked(run.out + run.err) == kSecrets);  // so the test below is not vacuous
}

TEST_CASE("diagnose --redact masks them in text and keeps the diagnosis") {
  Scratch scratch;
  RunResult run = run_faultline(
      {"diagnose", "--redact", "--color", "never", scratch.write("home/alice/job.log", secret_log())});
  CHECK(run.exit_code == 1);
  CHECK(leaked(run.out + run.err).empty());
  CHECK(run.out.find("Diagnosis: tp.heads_not_divisible") != std::string::npos);
  CHECK(run.out.find("initiating rank: 3") != std::string::npos);
  CHECK(run.out.find("home/USER/job.log:5  [rank 3]  host-1: [rank3]: ValueError") != std::string::npos);
  CHECK(run.out.find("Ask EMAIL; store IP-1:9000; HF_TOKEN=REDACTED") != std::string::npos);
}

TEST_CASE("diagnose --redact --format json masks them and the JSON still parses to the same outcome") {
  Scratch scratch;
  std::string log = scratch.write("home/alice/job.log", secret_log());
  RunResult plain = run_faultline({"diagnose", "--format", "json", log});
  RunResult run = run_faultline({"diagnose", "--redact", "--format", "json", log});
  CHECK(run.exit_code == 1);
  CHECK(leaked(run.out + run.err).empty());
  Outcome outcome = outcome_from_report(run.out);
  CHECK(outcome.parsed);
  CHECK(outcome.cause == "tp.heads_not_divisible");
  CHECK(outcome.initiating_rank == 3);
  CHECK(outcome.facts == outcome_from_report(plain.out).facts);
}

TEST_CASE("diagnose --redact masks them in every other format, and SARIF and JSONL still parse") {
  Scratch scratch;
  std::string log = scratch.write("home/alice/job.log", secret_log());
  for (std::string format : {"jsonl", "markdown", "html", "sarif"}) {
    CAPTURE(format);
    RunResult run = run_faultline({"diagnose", "--redact", "--format", format, log});
    CHECK(run.exit_code == 1);
    CHECK(leaked(run.out + run.err).empty());
    CHECK(run.out.find("heads_not_divisible") != std::string::npos);
    if (format == "sarif") CHECK(parses_as_json(run.out));
    if (format == "jsonl") CHECK(parses_as_json(run.out.substr(0, run.out.find('\n'))));
  }
}

TEST_CASE("scan --redact masks them in its JSONL lines and its summary") {
  Scratch scratch;
  scratch.write("runs/job-a/home/alice/rank3.log", secret_log());
  RunResult run = run_faultline({"scan", "--redact", "-j", "1", scratch.path("runs")});
  CHECK(run.exit_code == 1);
  CHECK(leaked(run.out + run.err).empty());
  CHECK(run.out.find("heads_not_divisible") != std::string::npos);
  size_t start = 0;
  while (start < run.out.size()) {
    size_t end = run.out.find('\n', start);
    if (end == std::string::npos) end = run.out.size();
    CHECK(parses_as_json(run.out.substr(start, end - start)));
    start = end + 1;
  }
}

namespace {

// Every kind of secret the issue found leaking, each on the evidence line, at its start, in its
// middle and at its end.
const std::vector<std::string> kMoreSecrets = {
    "hunter2",
    "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "glpat-Zq8Lm2Np4Qr6St8Uv0Wx",
    "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW",
    "corp-internal",
    "carol",
    "dave",
    "eyJzdWIiOiIxMjM0NTY3ODkwIn0"};

std::string more_secrets_log() {
  return "gpu-node-07.corp-internal.example: [rank3]: Traceback (most recent call last):\n"
         "gpu-node-07.corp-internal.example: [rank3]:   File \"C:\\Users\\carol\\serve.py\", line 12\n"
         "gpu-node-07.corp-internal.example: [rank3]: ValueError: Total number of attention heads (40) must "
         "be "
         "divisible by tensor parallel size (6). --password hunter2 log C:\\Users\\carol\\run.log "
         "aws_secret_access_key=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY "
         "https://glpat-Zq8Lm2Np4Qr6St8Uv0Wx@gitlab.corp-internal.example/x.git ~dave/cache "
         "-----BEGIN OPENSSH PRIVATE KEY----- "
         "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW -----END OPENSSH PRIVATE "
         "KEY----- "
         "jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U\n";
}

std::vector<std::string> more_leaked(const std::string& text) {
  std::vector<std::string> found;
  for (const auto& secret : kMoreSecrets) {
    if (text.find(secret) != std::string::npos) found.push_back(secret);
  }
  return found;
}

}  // namespace

TEST_CASE(
    "every secret kind is masked in every format: passwords, cloud keys, URL tokens, keys, FQDNs, users") {
  Scratch scratch;
  std::string log = scratch.write("job.log", more_secrets_log());
  RunResult plain = run_faultline({"diagnose", "--format", "json", log});
  CHECK(more_leaked(plain.out) == kMoreSecrets);  // so the checks below are not vacuous
  for (std::string format : {"text", "json", "jsonl", "markdown", "html", "sarif"}) {
    CAPTURE(format);
    RunResult run = run_faultline({"diagnose", "--redact", "--color", "never", "--format", format, log});
    CHECK(run.exit_code == 1);
    CHECK(more_leaked(run.out + run.err).empty());
    CHECK(run.out.find("heads_not_divisible") != std::string::npos);
    if (format == "json" || format == "sarif") CHECK(parses_as_json(run.out));
  }
}

TEST_CASE("every secret kind is masked in scan and in merge") {
  Scratch scratch;
  scratch.write("runs/job-a/rank3.log", more_secrets_log());
  RunResult plain = run_faultline({"scan", "-q", "-j", "1", scratch.path("runs")});
  std::string results = scratch.write("shard.jsonl", plain.out);
  RunResult scan = run_faultline({"scan", "--redact", "-j", "1", scratch.path("runs")});
  CHECK(more_leaked(scan.out + scan.err).empty());
  RunResult merge = run_faultline({"merge", "--redact", results});
  CHECK(more_leaked(merge.out + merge.err).empty());
  CHECK(merge.out.find("heads_not_divisible") != std::string::npos);
}
