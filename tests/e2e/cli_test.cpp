// The command line as a user meets it: bad inputs, stdin, formats, user rule packs, exit codes.
#include <doctest/doctest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "../skip_unless.hpp"
#include "report_reader.hpp"
#include "run_binary.hpp"
#include "scratch.hpp"

namespace fs = std::filesystem;
using namespace faultline::testing;

namespace {

constexpr const char* kHeadsLog =
    "[rank0]:[W1129 10:22:30.000000000 ProcessGroupNCCL.cpp:1479] Warning: something benign\n"
    "[rank3]: Traceback (most recent call last):\n"
    "[rank3]:   File \"/app/serve.py\", line 12, in <module>\n"
    "[rank1]: iteration 5 | loss 2.1\n"
    "[rank3]:     engine = LLMEngine.from_engine_args(args)\n"
    "[rank3]: ValueError: Total number of attention heads (40) must be divisible by tensor parallel size "
    "(6).\n";

}  // namespace

TEST_CASE("diagnose names the cause, the initiating rank, the computed fix and a verify command") {
  Scratch scratch;
  RunResult run = run_faultline({"diagnose", "--color", "never", scratch.write("job.log", kHeadsLog)});
  CHECK(run.exit_code == 1);
  CHECK(run.out.find("Diagnosis: tp.heads_not_divisible") != std::string::npos);
  CHECK(run.out.find("initiating rank: 3") != std::string::npos);
  CHECK(run.out.find("1, 2, 4, 5, 8, 10, 20, 40") != std::string::npos);  // divisors of 40
  // The remedy keeps the job's 6 GPUs (TP 2 × DP 3), and its verify runs that TP.
  CHECK(run.out.find("Use TP 2 × PP 1 × DP 3 (keeps the job's 6 GPUs)") != std::string::npos);
  CHECK(run.out.find("Verify\n  $ faultline repro --heads 40 --tp 2\n") != std::string::npos);
  CHECK(run.out.find("\x1b[") == std::string::npos);
}

TEST_CASE("diagnose reads stdin") {
  RunResult run = run_faultline({"diagnose", "--format", "json"}, kHeadsLog);
  CHECK(run.exit_code == 1);
  Outcome outcome = outcome_from_report(run.out);
  CHECK(outcome.cause == "tp.heads_not_divisible");
  CHECK(outcome.initiating_rank == 3);
  CHECK(outcome.facts["heads"] == "40");
  CHECK(outcome.facts["tp"] == "6");
  CHECK(run.out.find("\"source\": \"<stdin>\"") != std::string::npos);
  CHECK(run.err.find("paste") == std::string::npos);  // the hint is for terminals only
}

TEST_CASE("a missing file is reported by name, the run goes on, and a diagnosed failure still exits 1") {
  Scratch scratch;
  std::string missing = scratch.path("no-such.log");
  RunResult run =
      run_faultline({"diagnose", "--format", "json", missing, scratch.write("job.log", kHeadsLog)});
  CHECK(run.exit_code == 1);
  CHECK(run.err == "faultline: " + missing + ": skipped: No such file or directory\n");
  CHECK(outcome_from_report(run.out).cause == "tp.heads_not_divisible");
  CHECK(run.out.find("\"reason\": \"No such file or directory\"") != std::string::npos);
}

TEST_CASE("a binary file and an empty file are skipped with their reasons") {
  Scratch scratch;
  std::string binary = scratch.write("core.bin", std::string("\x7f"
                                                             "ELF\0\0\x01",
                                                             7));
  std::string empty = scratch.write("empty.log", "");
  RunResult run = run_faultline({"diagnose", binary, empty, scratch.write("job.log", kHeadsLog)});
  CHECK(run.exit_code == 1);  // the failure is diagnosed; the skipped files are named
  CHECK(run.err ==
        "faultline: " + binary +
            ": skipped: binary file (2 of the 5 bytes other than NUL in its first 7 are control bytes or "
            "invalid UTF-8), not a log\n"
            "faultline: " +
            empty + ": skipped: empty file, nothing to analyse\n");
  CHECK(run.out.find("tp.heads_not_divisible") != std::string::npos);
}

TEST_CASE("a malformed rule file is reported at file:line:col and the shipped rules still run") {
  Scratch scratch;
  std::string rules = scratch.write("rules/bad.yaml",
                                    "rules:\n"
                                    "  - id: my.rule\n"
                                    "    cause: tp.heads_not_divisible\n"
                                    "    title: t\n"
                                    "    severty: error\n"
                                    "    match: 'x(('\n");
  RunResult run =
      run_faultline({"diagnose", "--rules", scratch.path("rules"), scratch.write("job.log", kHeadsLog)});
  CHECK(run.exit_code == 2);
  CHECK(run.err == "faultline: " + rules + ":5:5: unknown key 'severty'\n" + rules +
                       ":6:12: bad regex in 'match': missing ): x((\n");
  CHECK(run.out.find("tp.heads_not_divisible") != std::string::npos);
}

TEST_CASE("rules check names unknown facts and template functions") {
  Scratch scratch;
  std::string rules = scratch.write("r.yaml",
                                    "rules:\n"
                                    "  - id: my.rule\n"
                                    "    cause: tp.heads_not_divisible\n"
                                    "    title: t\n"
                                    "    match: 'heads \\((?P<heads>\\d+)\\)'\n"
                                    "    when: heads % tpp != 0\n"
                                    "    fix: ['use {divisor(heads)}']\n");
  RunResult run = run_faultline({"rules", "check", rules});
  CHECK(run.exit_code == 2);
  CHECK(run.err == rules + ":6:11: unknown fact 'tpp' in 'when' (known: heads)\n" + rules +
                       ":7:11: in 'fix': column 6: unknown function 'divisor'\n");
}

TEST_CASE("a user rule with a shipped id replaces the shipped rule") {
  Scratch scratch;
  scratch.write("rules/override.yaml",
                "rules:\n"
                "  - id: tp.heads_not_divisible.vllm\n"
                "    cause: tp.heads_not_divisible\n"
                "    title: Site-specific heads rule\n"
                "    match: 'attention heads \\((?P<heads>\\d+)\\) must be divisible by tensor parallel size "
                "\\((?P<tp>\\d+)\\)'\n"
                "    fix: ['Ask the platform team; valid sizes are {divisors(heads)}.']\n");
  RunResult run =
      run_faultline({"diagnose", "--rules", scratch.path("rules"), scratch.write("job.log", kHeadsLog)});
  CHECK(run.exit_code == 1);
  CHECK(run.out.find("Site-specific heads rule") != std::string::npos);
  CHECK(run.out.find("Ask the platform team; valid sizes are 1, 2, 4, 5, 8, 10, 20, 40.") !=
        std::string::npos);
}

TEST_CASE("a healthy log exits 0 with no diagnosis") {
  Scratch scratch;
  RunResult run = run_faultline(
      {"diagnose", "--format", "json",
       scratch.write("ok.log", "[rank0]: iteration 1 | loss 2.0\n[rank1]: iteration 1 | loss 2.0\n")});
  CHECK(run.exit_code == 0);
  Outcome outcome = outcome_from_report(run.out);
  CHECK(outcome.cause == "negative");
  CHECK(run.out.find("\"ranks_seen\": [0, 1]") != std::string::npos);
}

TEST_CASE("usage errors exit 2 with a short message, not the whole help") {
  RunResult run = run_faultline({"diagnoze"});
  CHECK(run.exit_code == 2);
  CHECK(run.err ==
        "faultline: unknown command 'diagnoze'; did you mean 'diagnose'?\nRun 'faultline help' for the "
        "commands.\n");
  RunResult format = run_faultline({"diagnose", "--format", "yaml"});
  CHECK(format.exit_code == 2);
  CHECK(format.err ==
        "faultline: unknown --format 'yaml' (text, json, jsonl, markdown, html, sarif)\n"
        "Run 'faultline diagnose --help' for its options.\n");
}

TEST_CASE("explain prints a rule's entry, and a cause lists its rules") {
  RunResult run = run_faultline({"explain", "tp.heads_not_divisible.vllm"});
  CHECK(run.exit_code == 0);
  CHECK(run.out.find("cause:    tp.heads_not_divisible") != std::string::npos);
  CHECK(run.out.find("fix:") != std::string::npos);
  RunResult by_cause = run_faultline({"explain", "pp.layers_not_divisible"});
  CHECK(by_cause.exit_code == 0);
  CHECK(by_cause.out.find("pp.layers_not_divisible.megatron") != std::string::npos);
  CHECK(run_faultline({"explain", "no.such.rule"}).exit_code == 2);
}

TEST_CASE("rules patterns prints one pattern per line, and rules list every rule") {
  RunResult patterns = run_faultline({"rules", "patterns"});
  CHECK(patterns.exit_code == 0);
  CHECK(patterns.out.find("attention heads \\((\\d+)\\) must be divisible") != std::string::npos);
  CHECK(patterns.out.find("(?P<") == std::string::npos);  // plain groups, for rg -f
  RunResult list = run_faultline({"rules", "list"});
  CHECK(list.exit_code == 0);
  CHECK(list.out.find("tp.heads_not_divisible.vllm") != std::string::npos);
}

TEST_CASE("preflight rejects a TP size the model cannot take and names the cause") {
  Scratch scratch;
  std::string config =
      scratch.write("config.json",
                    R"({"model_type": "llama", "hidden_size": 4096, "intermediate_size": 14336,
                                         "num_attention_heads": 32, "num_key_value_heads": 8,
                                         "num_hidden_layers": 30, "vocab_size": 128256})");
  RunResult bad = run_faultline({"preflight", "--config", config, "--tp", "6", "--color", "never"});
  CHECK(bad.exit_code == 1);
  CHECK(bad.out.find("FAIL heads      32 attention heads over TP 6: not divisible") != std::string::npos);
  CHECK(bad.out.find("[tp.heads_not_divisible]") != std::string::npos);
  CHECK(bad.out.find("TP sizes this model accepts: 1, 2, 4, 8") != std::string::npos);
  // On 6 GPUs: the one model over all of them (30 layers take PP 3), then replicas of smaller ones.
  RunResult six =
      run_faultline({"preflight", "--config", config, "--tp", "6", "--gpus", "6", "--color", "never"});
  CHECK(six.out.find(
            "layouts of 6 GPUs that fit: TP=1\xc3\x97PP=6, TP=2\xc3\x97PP=3, TP=1\xc3\x97PP=3 (2 replicas), "
            "TP=1\xc3\x97PP=2 (3 replicas), TP=2\xc3\x97PP=1 (3 replicas), TP=1\xc3\x97PP=1 (6 replicas)") !=
        std::string::npos);
  // 30 layers over PP 4: uneven stages, which vLLM runs and Megatron refuses.
  RunResult uneven =
      run_faultline({"preflight", "--config", config, "--tp", "4", "--pp", "4", "--gpus", "16"});
  CHECK(uneven.exit_code == 0);
  RunResult layers = run_faultline(
      {"preflight", "--framework", "megatron", "--config", config, "--tp", "4", "--pp", "4", "--gpus", "16"});
  CHECK(layers.exit_code == 1);
  CHECK(layers.out.find("[pp.layers_not_divisible]") != std::string::npos);
  CHECK(run_faultline({"preflight", "--config", config, "--tp", "4", "--pp", "2", "--gpus", "8"}).exit_code ==
        0);
}

TEST_CASE("preflight checks the experts over --ep, a shard's --ffn-multiple and a --virtual-pipeline") {
  Scratch scratch;
  // An MoE config: 60 routed experts of 1408 each, a dense FFN of 5632.
  std::string config = scratch.write("config.json", R"({"model_type": "qwen2_moe", "hidden_size": 2048,
                                         "num_attention_heads": 16, "num_key_value_heads": 16,
                                         "intermediate_size": 5632, "moe_intermediate_size": 1408,
                                         "num_experts": 60, "num_hidden_layers": 24})");
  RunResult experts = run_faultline(
      {"preflight", "--config", config, "--tp", "1", "--ep", "8", "--gpus", "8", "--color", "never"});
  CHECK(experts.exit_code == 1);
  CHECK(experts.out.find("60 experts over EP 8: not divisible") != std::string::npos);
  CHECK(experts.out.find("[tp.ffn_not_divisible]") != std::string::npos);
  CHECK(run_faultline({"preflight", "--config", config, "--tp", "1", "--ep", "4", "--gpus", "8"}).exit_code ==
        0);
  // Megatron: TP 2 x EP 4 x PP 1 = 8 does not divide 12 GPUs; EP 2 (4 of them) does.
  RunResult megatron = run_faultline({"preflight", "--framework", "megatron", "--experts", "60", "--tp", "2",
                                      "--ep", "4", "--gpus", "12", "--format", "json"});
  CHECK(megatron.exit_code == 1);
  CHECK(megatron.out.find("\"cause\": \"tp.size_exceeds_gpus\"") != std::string::npos);
  CHECK(run_faultline({"preflight", "--framework", "megatron", "--experts", "60", "--tp", "2", "--ep", "2",
                       "--gpus", "12"})
            .exit_code == 0);
  // 1408 / TP 4 = 352 a rank, not a multiple of a 64-wide tile; TP 2 gives 704 = 11 x 64.
  RunResult tile = run_faultline(
      {"preflight", "--config", config, "--tp", "4", "--ffn-multiple", "64", "--color", "never"});
  CHECK(tile.exit_code == 1);
  CHECK(tile.out.find("1408 MoE FFN over TP 4: 352 a rank: not a multiple of 64") != std::string::npos);
  CHECK(run_faultline({"preflight", "--config", config, "--tp", "2", "--ffn-multiple", "64"}).exit_code == 0);
  // 24 layers over PP 4: 6 a stage, which a virtual size of 4 does not divide and one of 3 does.
  RunResult virtual_pp = run_faultline({"preflight", "--framework", "megatron", "--config", config, "--pp",
                                        "4", "--virtual-pipeline", "4", "--color", "never"});
  CHECK(virtual_pp.exit_code == 1);
  CHECK(virtual_pp.out.find("[pp.layers_not_divisible]") != std::string::npos);
  CHECK(run_faultline({"preflight", "--framework", "megatron", "--config", config, "--pp", "4",
                       "--virtual-pipeline", "3"})
            .exit_code == 0);
  // Sizes below 1 are usage errors.
  CHECK(run_faultline({"preflight", "--config", config, "--ep", "0"}).exit_code == 2);
  CHECK(run_faultline({"preflight", "--config", config, "--tp", "2", "--ffn-multiple", "0"}).exit_code == 2);
}

TEST_CASE("an expert-parallel diagnosis verifies with --ep: its verify fails on the crashed EP and passes") {
  Scratch scratch;
  std::string log =
      scratch.write("job.log",
                    "  expert_model_parallel_size ...................... 8\n"
                    "  num_experts ..................................... 60\n"
                    "AssertionError: Number of experts (60) should be divisible by expert parallel "
                    "size (8)\n");
  RunResult diagnosis = run_faultline({"diagnose", "--verify", "--color", "never", log});
  CHECK(diagnosis.exit_code == 1);
  CHECK(diagnosis.out.find("$ faultline preflight --experts 60 --ep 4") != std::string::npos);
  CHECK(diagnosis.out.find("Use EP 4 where the job runs EP 8") != std::string::npos);
  CHECK(diagnosis.out.find("verify passed") != std::string::npos);
  CHECK(run_faultline({"preflight", "--experts", "60", "--ep", "8"}).exit_code == 1);
}

TEST_CASE("preflight reads the language model of a multimodal config and flags mixed GPUs") {
  Scratch scratch;
  std::string config = scratch.write("config.json",
                                     R"({"model_type": "llava", "vision_config": {"num_attention_heads": 16},
                                         "text_config": {"num_attention_heads": 40, "num_key_value_heads": 8,
                                                         "hidden_size": 5120, "num_hidden_layers": 40}})");
  std::string gpus = scratch.write("gpus.csv",
                                   "index, name, memory.total [MiB]\n0, NVIDIA H100 80GB HBM3, 81559 MiB\n"
                                   "1, NVIDIA A100-SXM4-40GB, 40960 MiB\n");
  RunResult run =
      run_faultline({"preflight", "--config", config, "--tp", "2", "--gpus", gpus, "--format", "json"});
  CHECK(run.exit_code == 1);
  CHECK(run.out.find("\"heads\": 40") != std::string::npos);
  CHECK(run.out.find("\"cause\": \"tp.heterogeneous_gpus\"") != std::string::npos);
}

TEST_CASE("preflight names a config it cannot read") {
  Scratch scratch;
  std::string config = scratch.write("config.json", "{not json");
  RunResult run = run_faultline({"preflight", "--config", config, "--tp", "2"});
  CHECK(run.exit_code == 2);
  CHECK(run.err ==
        "faultline: " + config +
            ": not valid JSON (The JSON document has an improper structure: missing or superfluous commas, "
            "braces, missing keys, etc.)\n");
  CHECK(run_faultline({"preflight", "--tp", "2"}).exit_code == 2);
}

TEST_CASE("the layout a TP diagnosis suggests passes preflight for that model, and the crashed one fails") {
  Scratch scratch;
  std::string config = scratch.write("config.json", R"({"num_attention_heads": 40, "hidden_size": 5120})");
  RunResult diagnosis = run_faultline({"diagnose", "--format", "jsonl", scratch.write("job.log", kHeadsLog)});
  const std::string verify = "\"verify\":\"faultline repro --heads 40 --tp ";
  size_t at = diagnosis.out.find(verify);
  REQUIRE(at != std::string::npos);
  at += verify.size();
  std::string tp = diagnosis.out.substr(at, diagnosis.out.find('"', at) - at);
  CHECK(diagnosis.out.find("\"suggest\":{\"tp\":" + tp + ",") != std::string::npos);
  CHECK(run_faultline({"preflight", "--config", config, "--tp", tp}).exit_code == 0);
  CHECK(run_faultline({"preflight", "--config", config, "--tp", "6"}).exit_code == 1);
}

TEST_CASE("docs/rules holds the current entries of every shipped rule") {
  Scratch scratch;
  RunResult run = run_faultline({"rules", "docs", scratch.path("docs")});
  REQUIRE(run.exit_code == 0);
  fs::path committed = fs::path(source_dir()) / "docs" / "rules";
  std::vector<std::string> stale;
  auto read = [](const fs::path& path) {
    std::ifstream file(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(file), {});
  };
  for (const auto& entry : fs::directory_iterator(scratch.path("docs"))) {
    fs::path mine = committed / entry.path().filename();
    if (!fs::exists(mine) || read(mine) != read(entry.path()))
      stale.push_back(entry.path().filename().string());
  }
  for (const auto& entry : fs::directory_iterator(committed)) {
    if (!fs::exists(fs::path(scratch.path("docs")) / entry.path().filename()))
      stale.push_back(entry.path().filename().string());
  }
  INFO("regenerate with: build/faultline rules docs docs/rules");
  CHECK(stale == std::vector<std::string>{});
}

namespace {

std::string key_case_log() {
  return corpus_log("001-torchrun-rank-vllm-heads-32-tp6-rank3");
}

}  // namespace

TEST_CASE("markdown names the cause and rank and fences the evidence") {
  RunResult run = run_faultline({"diagnose", "--format", "markdown", key_case_log()});
  CHECK(run.exit_code == 1);
  CHECK(run.out.find("### faultline: `tp.heads_not_divisible` on rank 3") == 0);
  CHECK(run.out.find("**Evidence**\n\n```text\n") != std::string::npos);
  CHECK(run.out.find("<details><summary>Other findings") != std::string::npos);
}

TEST_CASE("sarif output is valid SARIF 2.1.0 with a result at the log file and line") {
  Scratch scratch;
  RunResult run = run_faultline({"diagnose", "--format", "sarif", key_case_log()});
  CHECK(run.exit_code == 1);
  CHECK(run.out.find("\"startLine\": 49") != std::string::npos);
  CHECK(run.out.find("\"ruleId\": \"tp.heads_not_divisible.vllm\"") != std::string::npos);
}

TEST_CASE("sarif output validates against the SARIF 2.1.0 schema" *
          skip_unless(have_schema_validators(),
                      "no schema validators: run `npm install` in tests/schema (tools/test.sh does)")) {
  Scratch scratch;
  std::string file =
      scratch.write("report.sarif", run_faultline({"diagnose", "--format", "sarif", key_case_log()}).out);
  fs::path validator = fs::path(source_dir()) / "tests" / "schema";
  auto check = shell("node " + (validator / "validate-sarif.js").string() + " " + file + " 2>&1");
  INFO(check.second);  // no structured binding: INFO captures it in a lambda
  CHECK(check.first == 0);
}

TEST_CASE("the html report renders in headless Chromium with the initiating rank marked on the timeline" *
          skip_unless(fs::exists("/usr/bin/chromium"), "no /usr/bin/chromium (tools/test.sh installs it)")) {
  Scratch scratch;
  RunResult run = run_faultline({"diagnose", "--format", "html", key_case_log()});
  CHECK(run.exit_code == 1);
  std::string page = scratch.write("report.html", run.out);
  const char* chromium = "/usr/bin/chromium";
  std::string flags = std::string(chromium) +
                      " --headless --no-sandbox --disable-gpu --disable-quic --no-first-run"
                      " --disable-background-networking --disable-component-update --disable-sync"
                      " --user-data-dir=" +
                      scratch.path("profile") + " ";
  auto [dom_status, dom] = shell(flags + "--dump-dom file://" + page + " 2>/dev/null");
  CHECK(dom_status == 0);
  CHECK(dom.find("<span id=\"cause\">tp.heads_not_divisible</span>") != std::string::npos);
  CHECK(dom.find("<strong id=\"initiating-rank\">3</strong>") != std::string::npos);
  CHECK(dom.find("class=\"mark initiating\" data-rank=\"3\"") != std::string::npos);
  CHECK(dom.find("class=\"mark symptom\" data-rank=\"0\"") != std::string::npos);
  std::string png = scratch.path("report.png");
  auto shot = shell(flags + "--window-size=1100,900 --screenshot=" + png + " file://" + page + " 2>&1");
  INFO(shot.second);
  CHECK(shot.first == 0);
  REQUIRE(fs::exists(png));
  CHECK(fs::file_size(png) > 10000);
}

TEST_CASE("json and jsonl reports follow docs/report.schema.json" *
          skip_unless(have_schema_validators(),
                      "no schema validators: run `npm install` in tests/schema (tools/test.sh does)")) {
  Scratch scratch;
  fs::path validator = fs::path(source_dir()) / "tests" / "schema";
  std::vector<std::string> files = {
      scratch.write("failure.json", run_faultline({"diagnose", "--format", "json", key_case_log()}).out),
      scratch.write("healthy.json", run_faultline({"diagnose", "--format", "json",
                                                   scratch.write("ok.log", "[rank0]: step 1 | loss 2.0\n")})
                                        .out),
      scratch.write(
          "skipped.jsonl",
          run_faultline({"diagnose", "--format", "jsonl", key_case_log(), scratch.path("missing.log")}).out)};
  for (const auto& file : files) CHECK(fs::file_size(file) > 0);
  std::string command = "node " + (validator / "validate-report.js").string();
  for (const auto& file : files) command += " " + file;
  auto check = shell(command + " 2>&1");
  INFO(check.second);  // no structured binding: INFO captures it in a lambda
  CHECK(check.first == 0);
}

TEST_CASE("rules test --corpus scores the rules and reports a match on the wrong line") {
  Scratch scratch;
  scratch.write("corpus/a-right/log.txt", kHeadsLog);
  scratch.write("corpus/a-right/expected.yaml",
                "cause: tp.heads_not_divisible\ninitiating_rank: 3\nevidence: [\"log.txt:6\"]\n");
  scratch.write("corpus/b-wrong-line/log.txt", kHeadsLog);
  scratch.write("corpus/b-wrong-line/expected.yaml",
                "cause: tp.heads_not_divisible\nevidence: [\"log.txt:2\"]\n");
  scratch.write("corpus/c-healthy/log.txt", "[rank0]: step 1 | loss 2.0\n");
  scratch.write("corpus/c-healthy/expected.yaml", "cause: negative\n");
  RunResult run = run_faultline({"rules", "test", "--corpus", scratch.path("corpus")});
  CHECK(run.exit_code == 0);
  CHECK(run.out.find("top cause right: 3/3 (100%)") != std::string::npos);
  CHECK(run.out.find("initiating rank right: 1/1") != std::string::npos);
  CHECK(run.out.find("b-wrong-line") != std::string::npos);
  CHECK(run.out.find("(evidence on another line)") != std::string::npos);
  CHECK(run.out.find("a-right") == std::string::npos);                 // only misses are listed by name
  size_t row = run.out.rfind("\n  tp.heads_not_divisible.vllm ") + 1;  // the corpus table, after the examples
  REQUIRE(row != 0);
  std::string line = run.out.substr(row, run.out.find('\n', row) - row);
  CHECK(line.find(" 2      100%") != std::string::npos);  // fired on both, always right
  CHECK(line.substr(line.size() - 1) == "1");             // one wrong-line match
}

TEST_CASE("a bad line in a docker json-file log is named by file and line, and the rest is read") {
  Scratch scratch;
  std::string log = scratch.write(
      "container.json",
      "{\"log\":\"[rank0]: step 1\\n\",\"stream\":\"stderr\",\"time\":\"2026-11-29T10:00:00Z\"}\n"
      "{broken\n"
      "{\"log\":\"[rank3]: ValueError: Total number of attention heads (32) must be divisible by tensor "
      "parallel "
      "size (6).\\n\",\"stream\":\"stderr\",\"time\":\"2026-11-29T10:00:01Z\"}\n");
  RunResult run = run_faultline({"diagnose", "--format", "json", log});
  CHECK(run.exit_code == 1);
  CHECK(run.err == "faultline: " + log + ":2: not valid JSON, line skipped\n");
  Outcome outcome = outcome_from_report(run.out);
  CHECK(outcome.cause == "tp.heads_not_divisible");
  CHECK(outcome.initiating_rank == 3);
  CHECK(run.out.find("\"format\": \"docker-json\"") != std::string::npos);
  CHECK(run.out.find("\"bad_lines\": 1") != std::string::npos);
}

TEST_CASE("--include and --exclude choose the files of a directory") {
  Scratch scratch;
  scratch.write("job/rank3.log", kHeadsLog);
  scratch.write(
      "job/notes.txt",
      "ValueError: Total number of attention heads (32) must be divisible by tensor parallel size (8).\n");
  RunResult included =
      run_faultline({"diagnose", "--format", "json", "--include", "*.log", scratch.path("job")});
  CHECK(included.out.find("notes.txt") == std::string::npos);
  CHECK(outcome_from_report(included.out).cause == "tp.heads_not_divisible");
  RunResult excluded =
      run_faultline({"diagnose", "--format", "json", "--exclude", "*.log", scratch.path("job")});
  CHECK(excluded.out.find("rank3.log") == std::string::npos);
}

TEST_CASE("a log cut inside a traceback is reported as truncated") {
  Scratch scratch;
  std::string log = scratch.write("cut.log",
                                  "[rank0]: Traceback (most recent call last):\n"
                                  "[rank0]:   File \"/app/train.py\", line 3, in <module>\n"
                                  "[rank1]: ValueError: Total number of attention heads (40) must be "
                                  "divisible by tensor parallel size (6).\n"
                                  "[rank0]:     main()\n");
  RunResult run = run_faultline({"diagnose", "--color", "never", log});
  CHECK(run.exit_code == 1);
  CHECK(run.out.find(log + " ends inside an error: the log may be cut") != std::string::npos);
  RunResult json = run_faultline({"diagnose", "--format", "json", log});
  CHECK(json.out.find("\"truncated_sources\": [\n          \"" + log + "\"") != std::string::npos);
}

TEST_CASE("--baseline sets aside what a healthy run of the job shows too") {
  Scratch scratch;
  const std::string warning =
      "WARNING 03-20 23:36:27 [cuda.py:394] Detected different devices in the system: NVIDIA GeForce RTX "
      "4090, "
      "NVIDIA GeForce RTX 3090. Please make sure to set `CUDA_DEVICE_ORDER=PCI_BUS_ID` to avoid unexpected "
      "behavior.\n";
  std::string good = scratch.write("good.log", warning + "INFO 03-20 23:40:00 [engine.py:1] shutting down\n");
  std::string bad = scratch.write(
      "bad.log",
      warning +
          "[rank1]:[E320 23:47:40.512345678 ProcessGroupNCCL.cpp:629] [Rank 1] Watchdog caught collective "
          "operation timeout: WorkNCCL(SeqNum=35, OpType=ALLREDUCE, NumelIn=8, NumelOut=8, "
          "Timeout(ms)=600000) ran for 600087 milliseconds before timing out.\n");
  CHECK(outcome_from_report(run_faultline({"diagnose", "--format", "json", bad}).out).cause ==
        "tp.heterogeneous_gpus");
  RunResult run = run_faultline({"diagnose", "--format", "json", "--baseline", good, bad});
  CHECK(run.exit_code == 1);
  CHECK(outcome_from_report(run.out).cause == "nccl.watchdog_timeout");
  CHECK(run.out.find("\"in_baseline\": true") != std::string::npos);
  CHECK(run.out.find("also seen in the baseline run were set aside") != std::string::npos);
  RunResult healthy = run_faultline({"diagnose", "--color", "never", "--baseline", good, good});
  CHECK(healthy.exit_code == 0);
  CHECK(healthy.out.find("set aside") != std::string::npos);
}

TEST_CASE("the same crash gives the same diagnosis through every compression and archive type") {
  Scratch scratch;
  // Case 405's torchrun --log-dir tree, unpacked, then packed again every way there is.
  fs::path tree = scratch.path("tree");
  fs::create_directories(tree);
  fs::path packed = fs::path(source_dir()) / "corpus" / "405-torchrun-logdir-tar-zst-vllm-heads32-tp6-rank3";
  std::string archive;
  for (const auto& entry : fs::directory_iterator(packed)) {
    if (entry.path().filename() != "expected.yaml") archive = entry.path().string();
  }
  REQUIRE(!archive.empty());
  REQUIRE(shell("tar --zstd -xf " + archive + " -C " + tree.string() + " 2>&1").first == 0);
  std::string logdir = tree.string();
  struct Way {
    const char* name;
    const char* tool;
    std::string command;  // builds scratch/<name> from the tree
  };
  std::string out = scratch.path() + "/";
  std::vector<Way> ways = {
      {"run.tar", "tar", "tar -cf " + out + "run.tar -C " + logdir + " ."},
      {"run.tar.gz", "gzip", "tar -czf " + out + "run.tar.gz -C " + logdir + " ."},
      {"run.tar.xz", "xz", "tar -cJf " + out + "run.tar.xz -C " + logdir + " ."},
      {"run.tar.bz2", "bzip2", "tar -cjf " + out + "run.tar.bz2 -C " + logdir + " ."},
      {"run.tar.zst", "zstd", "tar --zstd -cf " + out + "run.tar.zst -C " + logdir + " ."},
      {"run.zip", "zip", "cd " + logdir + " && zip -qr " + out + "run.zip ."},
      {"nested.tar", "gzip",
       "tar -czf " + out + "inner.tar.gz -C " + logdir + " . && tar -cf " + out + "nested.tar -C " + out +
           " inner.tar.gz"},
  };
  size_t checked = 0;
  for (const auto& way : ways) {
    INFO("archive ", way.name);
    if (shell(std::string("command -v ") + way.tool + " >/dev/null").first != 0) {
      MESSAGE("skipped ", way.name, ": no ", way.tool);
      continue;
    }
    REQUIRE(shell(way.command + " 2>&1").first == 0);
    RunResult run = run_faultline({"diagnose", "--format", "json", out + way.name});
    Outcome outcome = outcome_from_report(run.out);
    CHECK(outcome.cause == "tp.heads_not_divisible");
    CHECK(outcome.initiating_rank == 3);
    CHECK(outcome.facts["heads"] == "32");
    ++checked;
  }
  CHECK(checked >= 5);
  // And the tree itself, as a directory.
  Outcome directory = outcome_from_report(run_faultline({"diagnose", "--format", "json", logdir}).out);
  CHECK(directory.cause == "tp.heads_not_divisible");
  CHECK(directory.initiating_rank == 3);
}

TEST_CASE("repro reproduces a TP failure, shows faultline's diagnosis of it, and checks the fix") {
  RunResult failing = run_faultline({"repro", "--heads", "32", "--tp", "6"});
  CHECK(failing.exit_code == 1);
  CHECK(failing.out.find(
            "[HOST_CHECK] refused: ValueError: Total number of attention heads (32) must be divisible "
            "by tensor parallel size (6).") != std::string::npos);
  CHECK(failing.out.find("faultline diagnoses it as tp.heads_not_divisible") != std::string::npos);
  CHECK(failing.out.find("the fix, TP 4: [CPU_EMULATION] ran; sharded matches the unsharded double-precision "
                         "reference") != std::string::npos);
  RunResult working = run_faultline({"repro", "--heads", "32", "--kv-heads", "8", "--tp", "8"});
  CHECK(working.exit_code == 0);
  CHECK(working.out.find("ranks: 8 ranks as threads; 3 all-reduces") != std::string::npos);
  CHECK(working.out.find("timings: init ") != std::string::npos);
  CHECK(working.out.find(" (1e-09 × max(1, max |reference| ") != std::string::npos);  // the tolerance, stated
  CHECK(run_faultline({"repro", "--tp", "2"}).exit_code == 2);
  CHECK(run_faultline({"repro", "--heads", "32", "--tp", "2", "--backend", "tpu"}).exit_code == 2);
}

TEST_CASE("repro scales the model down by default and runs the real sizes with --full-size") {
  RunResult scaled =
      run_faultline({"repro", "--heads", "32", "--kv-heads", "8", "--ffn", "11008", "--tp", "4"});
  CHECK(scaled.exit_code == 0);
  CHECK(scaled.out.find(
            "sizes: scaled down 16× (the same heads, KV heads and divisibility by TP): head_dim 8, "
            "hidden 256, FFN 688, vocabulary 2000 padded to 2016 (a multiple of 8×TP)") != std::string::npos);
  RunResult full = run_faultline({"repro", "--heads", "4", "--kv-heads", "2", "--ffn", "1024", "--vocab",
                                  "1000", "--tp", "2", "--full-size"});
  CHECK(full.exit_code == 0);
  CHECK(full.out.find(
            "sizes: the real ones, head_dim 128, hidden 512, FFN 1024, vocabulary 1000 padded to 1024 "
            "(a multiple of 128×TP)") != std::string::npos);
  CHECK(full.out.find("[CPU_EMULATION] ran; sharded matches") != std::string::npos);
}

TEST_CASE("repro --backend cuda without the backend or without a GPU says so and exits 2") {
  RunResult result =
      run_faultline({"repro", "--heads", "32", "--kv-heads", "8", "--tp", "2", "--backend", "cuda"});
  if (result.exit_code == 0) return;  // a machine with a GPU: tests/gpu covers it
  CHECK(result.exit_code == 2);
  const std::string not_built =
      "faultline: the 'cuda' backend is not built into this binary: CMake found no CUDA compiler, cuBLAS or "
      "NCCL "
      "when it was configured (see cmake/Cuda.cmake), so there is no faultline-cuda next to faultline; use "
      "--backend cpu\n";
  const std::string no_gpu = "faultline: repro --backend cuda: no CUDA GPU ";
  const std::string cpu_hint = "; --backend cpu runs the job on this machine's CPU\n";
  if (result.err.starts_with(no_gpu)) {
    // Built with CUDA on a machine without a usable GPU: the CUDA runtime's own words say why.
    std::string why = result.err.substr(no_gpu.size());
    CHECK(why.ends_with(cpu_hint));
    why = why.substr(0, why.size() - std::min(why.size(), cpu_hint.size()));
    bool none = why == "is visible: cudaGetDeviceCount found none";
    bool unusable = why.starts_with("can be used: cudaGetDeviceCount: ") &&
                    why.size() > std::string("can be used: cudaGetDeviceCount: ").size();
    CHECK_MESSAGE((none || unusable), why);
  } else {
    CHECK(result.err == not_built);
  }
}
