// `faultline diagnose --verify`: the diagnosis' verify command, run and reported, as a user
// meets it on the key corpus case and on rules whose verify faultline cannot run itself.
#include <doctest/doctest.h>

#include <filesystem>

#include "../skip_unless.hpp"
#include "run_binary.hpp"
#include "scratch.hpp"

namespace fs = std::filesystem;
using namespace faultline::testing;

namespace {

const std::string kKeyCase = "001-torchrun-rank-vllm-heads-32-tp6-rank3";

// A rule pack replacing the shipped vLLM heads rule with one whose verify is `verify`.
std::string override_pack(const std::string& verify) {
  return "rules:\n"
         "  - id: tp.heads_not_divisible.vllm\n"
         "    cause: tp.heads_not_divisible\n"
         "    title: Attention heads not divisible by the tensor-parallel size\n"
         "    match: 'attention heads \\((?P<heads>\\d+)\\) must be divisible by tensor parallel size "
         "\\((?P<tp>\\d+)\\)'\n"
         "    verify: '" +
         verify + "'\n";
}

}  // namespace

TEST_CASE("diagnose --verify runs the key case's verify command, and the suggested TP 8 passes") {
  RunResult run = run_faultline({"diagnose", "--verify", "--color", "never", corpus_log(kKeyCase)});
  CHECK(run.exit_code == 1);  // the diagnosis' own exit code
  CHECK(run.out.find("Diagnosis: tp.heads_not_divisible") != std::string::npos);
  CHECK(run.out.find("\nverify: faultline repro --heads 32 --tp 8\n") != std::string::npos);
  CHECK(run.out.find("  repro of TP 8 on the cpu backend: 32 heads") != std::string::npos);
  CHECK(
      run.out.find("  TP 8: [CPU_EMULATION] ran; sharded matches the unsharded double-precision reference") !=
      std::string::npos);
  CHECK(run.out.find("\nverify passed (exit code 0)\n") != std::string::npos);
  RunResult markdown = run_faultline({"diagnose", "--verify", "--format", "markdown", corpus_log(kKeyCase)});
  CHECK(markdown.out.find(
            "\n**Verification**: passed (exit code 0)\n\n```text\n$ faultline repro --heads 32 --tp 8\n"
            "repro of TP 8") != std::string::npos);
}

TEST_CASE("diagnose --verify puts a verification object in the JSON diagnosis") {
  RunResult run = run_faultline({"diagnose", "--verify", "--format", "json", corpus_log(kKeyCase)});
  CHECK(run.exit_code == 1);
  size_t at = run.out.find("\"verification\": {");
  REQUIRE(at != std::string::npos);
  std::string verification = run.out.substr(at, run.out.find('}', at) - at);
  CHECK(verification.find("\"command\": \"faultline repro --heads 32 --tp 8\",") != std::string::npos);
  CHECK(verification.find("\"ran\": true,") != std::string::npos);
  CHECK(verification.find("\"exit_code\": 0,") != std::string::npos);
  CHECK(verification.find("\"passed\": true,") != std::string::npos);
  CHECK(verification.find("\"output\": \"repro of TP 8 on the cpu backend") != std::string::npos);
  RunResult without = run_faultline({"diagnose", "--format", "json", corpus_log(kKeyCase)});
  CHECK(without.out.find("\"verification\"") == std::string::npos);
}

TEST_CASE("the JSON of diagnose --verify follows docs/report.schema.json" *
          skip_unless(have_schema_validators(),
                      "no schema validators: run `npm install` in tests/schema (tools/test.sh does)")) {
  RunResult run = run_faultline({"diagnose", "--verify", "--format", "json", corpus_log(kKeyCase)});
  fs::path validator = fs::path(source_dir()) / "tests" / "schema";
  Scratch scratch;
  std::string file = scratch.write("verify.json", run.out);
  auto check = shell("node " + (validator / "validate-report.js").string() + " " + file + " 2>&1");
  INFO(check.second);  // no structured binding: INFO captures it in a lambda
  CHECK(check.first == 0);
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
  Scratch rules;
  rules.write("override.yaml", override_pack("faultline preflight --heads {heads} --tp {tp}"));
  RunResult run = run_faultline(
      {"diagnose", "--verify", "--color", "never", "--rules", rules.path(), corpus_log(kKeyCase)});
  CHECK(run.exit_code == 1);
  CHECK(run.out.find("\nverify: faultline preflight --heads 32 --tp 6\n") != std::string::npos);
  CHECK(run.out.find("\nverify failed (exit code 1)\n") != std::string::npos);
}

TEST_CASE("diagnose --verify says plainly when the verify command's config file is not here") {
  Scratch rules;
  rules.write("override.yaml",
              override_pack("faultline preflight --config no-such-model/config.json --tp {tp}"));
  RunResult run = run_faultline(
      {"diagnose", "--verify", "--color", "never", "--rules", rules.path(), corpus_log(kKeyCase)});
  CHECK(run.exit_code == 1);
  CHECK(run.out.find("\n  the command reads 'no-such-model/config.json', which is not here: run it where the "
                     "model's config.json is") != std::string::npos);
  CHECK(run.out.find("\nverify not run\n") != std::string::npos);
}

TEST_CASE("--verify belongs to diagnose") {
  RunResult run = run_faultline({"rules", "list", "--verify"});
  CHECK(run.exit_code == 2);
  CHECK(run.err ==
        "faultline: --verify is for 'diagnose'\n"
        "Run 'faultline rules list --help' for its options.\n");
}

TEST_CASE("preflight takes the model's sizes as options, without a config file") {
  RunResult pass = run_faultline({"preflight", "--heads", "32", "--kv-heads", "8", "--tp", "4"});
  CHECK(pass.exit_code == 0);
  CHECK(pass.out.find("preflight of the sizes given\n  model: 32 heads, 8 KV heads\n") == 0);
  RunResult fail = run_faultline({"preflight", "--heads", "32", "--kv-heads", "8", "--tp", "6"});
  CHECK(fail.exit_code == 1);
  CHECK(fail.out.find("1, 2, 4, 8") != std::string::npos);
  RunResult layers =
      run_faultline({"preflight", "--layers", "30", "--pp", "4", "--require", "layers-divisible"});
  CHECK(layers.exit_code == 1);
  RunResult nothing = run_faultline({"preflight", "--tp", "4"});
  CHECK(nothing.exit_code == 2);
  CHECK(nothing.err ==
        "faultline: 'preflight' needs --config config.json, or sizes (--heads N, --kv-heads N, --hidden N, "
        "--ffn N, "
        "--vocab N, --layers N, --experts N) or --gpus\n"
        "Run 'faultline preflight --help' for its options.\n");
}
