// `faultline diagnose --verify`: the diagnosis' verify command, run and reported, as a user
// meets it on the key corpus case and on rules whose verify faultline cannot run itself.
#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "run_binary.hpp"

namespace fs = std::filesystem;
using namespace faultline::testing;

namespace {

std::string corpus_log(const std::string& name) {
  return (fs::path(source_dir()) / "corpus" / name / "log.txt").string();
}

const std::string kKeyCase = "001-torchrun-rank-vllm-heads-32-tp6-rank3";

// A folder of user rules replacing the shipped vLLM heads rule with one whose verify is `verify`.
struct RulePack {
  explicit RulePack(const std::string& verify)
      : path(fs::temp_directory_path() /
             ("faultline-verify-" + std::to_string(::getpid()) + "-" + std::to_string(counter++))) {
    fs::create_directories(path);
    std::ofstream(path / "override.yaml")
        << "rules:\n"
           "  - id: tp.heads_not_divisible.vllm\n"
           "    cause: tp.heads_not_divisible\n"
           "    title: Attention heads not divisible by the tensor-parallel size\n"
           "    match: 'attention heads \\((?P<heads>\\d+)\\) must be divisible by tensor parallel size "
           "\\((?P<tp>\\d+)\\)'\n"
           "    verify: '"
        << verify << "'\n";
  }
  ~RulePack() { fs::remove_all(path); }
  static inline int counter = 0;
  fs::path path;
};

}  // namespace

TEST_CASE("diagnose --verify runs the key case's verify command, and TP 4 passes") {
  RunResult run = run_faultline({"diagnose", "--verify", "--color", "never", corpus_log(kKeyCase)});
  CHECK(run.exit_code == 1);  // the diagnosis' own exit code
  CHECK(run.out.find("Diagnosis: tp.heads_not_divisible") != std::string::npos);
  CHECK(run.out.find("\nverify: faultline repro --heads 32 --tp 4\n") != std::string::npos);
  CHECK(run.out.find("  repro of TP 4 on the cpu backend: 32 heads") != std::string::npos);
  CHECK(
      run.out.find("  TP 4: [CPU_EMULATION] ran; sharded matches the unsharded double-precision reference") !=
      std::string::npos);
  CHECK(run.out.find("\nverify passed (exit code 0)\n") != std::string::npos);
  RunResult markdown = run_faultline({"diagnose", "--verify", "--format", "markdown", corpus_log(kKeyCase)});
  CHECK(markdown.out.find(
            "\n**Verification**: passed (exit code 0)\n\n```text\n$ faultline repro --heads 32 --tp 4\n"
            "repro of TP 4") != std::string::npos);
}

TEST_CASE("diagnose --verify puts a verification object in the JSON diagnosis") {
  RunResult run = run_faultline({"diagnose", "--verify", "--format", "json", corpus_log(kKeyCase)});
  CHECK(run.exit_code == 1);
  size_t at = run.out.find("\"verification\": {");
  REQUIRE(at != std::string::npos);
  std::string verification = run.out.substr(at, run.out.find('}', at) - at);
  CHECK(verification.find("\"command\": \"faultline repro --heads 32 --tp 4\",") != std::string::npos);
  CHECK(verification.find("\"ran\": true,") != std::string::npos);
  CHECK(verification.find("\"exit_code\": 0,") != std::string::npos);
  CHECK(verification.find("\"passed\": true,") != std::string::npos);
  CHECK(verification.find("\"output\": \"repro of TP 4 on the cpu backend") != std::string::npos);
  RunResult without = run_faultline({"diagnose", "--format", "json", corpus_log(kKeyCase)});
  CHECK(without.out.find("\"verification\"") == std::string::npos);

  fs::path validator = fs::path(source_dir()) / "tests" / "schema";
  if (!fs::exists(validator / "node_modules")) {
    MESSAGE("schema check skipped: run `npm install` in tests/schema (tools/test.sh does)");
    return;
  }
  fs::path file = fs::temp_directory_path() / ("faultline-verify-" + std::to_string(::getpid()) + ".json");
  std::ofstream(file) << run.out;
  std::string command = "node " + (validator / "validate-report.js").string() + " " + file.string() + " 2>&1";
  FILE* pipe = ::popen(command.c_str(), "r");
  REQUIRE(pipe);
  std::string output;
  char buffer[4096];
  while (size_t n = std::fread(buffer, 1, sizeof buffer, pipe)) output.append(buffer, n);
  int status = ::pclose(pipe);
  fs::remove(file);
  INFO(output);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
}

TEST_CASE("diagnose --verify says it cannot run a verify command that is not faultline's") {
  RunResult run = run_faultline({"diagnose", "--verify", "--color", "never",
                                 corpus_log("104-nccl-socket-message-truncated-two-nodes")});
  CHECK(run.exit_code == 1);
  size_t at = run.out.find("\nverify: ");
  REQUIRE(at != std::string::npos);
  std::string section = run.out.substr(at);
  CHECK(section.find("\n  not a faultline command: run it yourself where the job ran") != std::string::npos);
  CHECK(section.find("\nverify not run\n") != std::string::npos);

  RunResult json = run_faultline({"diagnose", "--verify", "--format", "json",
                                  corpus_log("104-nccl-socket-message-truncated-two-nodes")});
  size_t verification = json.out.find("\"verification\": {");
  REQUIRE(verification != std::string::npos);
  CHECK(json.out.find("\"ran\": false,", verification) != std::string::npos);
  CHECK(json.out.find("\"exit_code\": null,", verification) != std::string::npos);
  CHECK(json.out.find("\"passed\": false,", verification) != std::string::npos);
}

TEST_CASE("diagnose --verify keeps the diagnosis' exit code when the verify command fails") {
  RulePack rules("faultline preflight --heads {heads} --tp {tp}");
  RunResult run = run_faultline(
      {"diagnose", "--verify", "--color", "never", "--rules", rules.path.string(), corpus_log(kKeyCase)});
  CHECK(run.exit_code == 1);
  CHECK(run.out.find("\nverify: faultline preflight --heads 32 --tp 6\n") != std::string::npos);
  CHECK(run.out.find("\nverify failed (exit code 1)\n") != std::string::npos);
}

TEST_CASE("diagnose --verify says plainly when the verify command's config file is not here") {
  RulePack rules("faultline preflight --config no-such-model/config.json --tp {tp}");
  RunResult run = run_faultline(
      {"diagnose", "--verify", "--color", "never", "--rules", rules.path.string(), corpus_log(kKeyCase)});
  CHECK(run.exit_code == 1);
  CHECK(run.out.find("\n  the command reads 'no-such-model/config.json', which is not here: run it where the "
                     "model's config.json is") != std::string::npos);
  CHECK(run.out.find("\nverify not run\n") != std::string::npos);
}

TEST_CASE("--verify belongs to diagnose") {
  RunResult run = run_faultline({"rules", "list", "--verify"});
  CHECK(run.exit_code == 2);
  CHECK(run.err.find("faultline: --verify is for 'diagnose'\n") == 0);
}

TEST_CASE("preflight takes the model's sizes as options, without a config file") {
  RunResult pass = run_faultline({"preflight", "--heads", "32", "--kv-heads", "8", "--tp", "4"});
  CHECK(pass.exit_code == 0);
  CHECK(pass.out.find("preflight of the sizes given\n  model: 32 heads, 8 KV heads\n") == 0);
  RunResult fail = run_faultline({"preflight", "--heads", "32", "--kv-heads", "8", "--tp", "6"});
  CHECK(fail.exit_code == 1);
  CHECK(fail.out.find("1, 2, 4, 8") != std::string::npos);
  RunResult layers = run_faultline({"preflight", "--layers", "30", "--pp", "4"});
  CHECK(layers.exit_code == 1);
  RunResult nothing = run_faultline({"preflight", "--tp", "4"});
  CHECK(nothing.exit_code == 2);
  CHECK(nothing.err.find("faultline: 'preflight' needs --config config.json, or sizes (--heads N") == 0);
}
