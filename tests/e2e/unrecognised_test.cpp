// Failures no rule knows, as a user meets them: one job diagnosed `unrecognised`, a scan that
// groups them by template, `rules suggest` turning one into a rule; and the remedy of a layout
// diagnosis from every fact the job gives, read from the JSON report.
#include <doctest/doctest.h>
#include <simdjson.h>

#include <algorithm>

#include "run_binary.hpp"
#include "scratch.hpp"

using namespace faultline::testing;

namespace {

// A torchrun job whose rank `rank` dies of `error` raised in `function` of `file`; the others
// are sent SIGTERM and the agent prints its failure block.
std::string crashed_job(int rank, const std::string& file, const std::string& function,
                        const std::string& error) {
  std::string r = "[rank" + std::to_string(rank) + "]: ";
  return "[rank0]: step 12 | loss 2.31\n" + r + "Traceback (most recent call last):\n" + r +
         "  File \"/srv/app/train.py\", line 90, in <module>\n" + r + "    main()\n" + r + "  File \"" +
         file + "\", line 17, in " + function + "\n" + r + "    batch = build(samples)\n" + r + error + "\n" +
         "W1130 10:00:05.000000 501 torch/distributed/elastic/multiprocessing/api.py:897] Sending process "
         "601 "
         "closing signal SIGTERM\n"
         "E1130 10:00:06.000000 501 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: "
         "1) "
         "local_rank: " +
         std::to_string(rank) + " (pid: 60" + std::to_string(rank) + ") of binary: /usr/bin/python\n";
}

simdjson::dom::element parse(simdjson::dom::parser& parser, const std::string& json) {
  simdjson::dom::element root;
  REQUIRE(parser.parse(json).get(root) == simdjson::SUCCESS);
  return root;
}

std::vector<int64_t> sizes(simdjson::dom::element array) {
  std::vector<int64_t> out;
  for (auto item : array.get_array()) out.push_back(item.get_int64());
  return out;
}

}  // namespace

TEST_CASE("a KeyError no rule knows, in rank 2's data collator: cause unrecognised, rank 2, exit 1") {
  Scratch scratch;
  std::string log =
      scratch.write("job.log", crashed_job(2, "/srv/app/collate.py", "collate", "KeyError: 'input_ids'"));
  RunResult run = run_faultline({"diagnose", "--format", "jsonl", log});
  CHECK(run.exit_code == 1);
  simdjson::dom::parser parser;
  auto job = parse(parser, run.out)["jobs"].at(0);
  auto diagnosis = job["diagnosis"];
  CHECK(std::string_view(diagnosis["cause"].get_string()) == "unrecognised");
  CHECK(int64_t(diagnosis["initiating_rank"].get_int64()) == 2);
  CHECK(std::string_view(diagnosis["facts"]["exception"].get_string()) == "KeyError");
  CHECK(std::string_view(diagnosis["facts"]["frame_function"].get_string()) == "collate");
  CHECK(std::string_view(diagnosis["action"]["kind"].get_string()) == "investigate");
  auto findings = job["findings"].get_array();
  CHECK(std::string_view(findings.at(0)["evidence"].at(0)["text"].get_string()) ==
        "[rank2]: KeyError: 'input_ids'");
  bool launcher_collateral = false;
  for (auto finding : findings) {
    std::string_view collateral_of;
    if (finding["collateral_of"].get_string().get(collateral_of) == simdjson::SUCCESS)
      launcher_collateral = launcher_collateral || collateral_of == "unrecognised";
  }
  CHECK(launcher_collateral);
  RunResult text = run_faultline({"diagnose", "--color", "never", log});
  CHECK(text.out.find("No rule knows this error") != std::string::npos);
}

TEST_CASE("a scan groups errors no rule knows by template: KeyErrors in one function, FileNotFoundErrors") {
  Scratch scratch;
  for (std::string key : {"input_ids", "labels", "attention_mask"}) {
    scratch.write("jobs/keyerror-" + key + "/log.txt",
                  crashed_job(1, "/srv/app/collate.py", "collate", "KeyError: '" + key + "'"));
  }
  for (std::string path : {"/data/shard-0001.bin", "/mnt/ckpt/step_200/model.pt"}) {
    std::string name = path.substr(path.rfind('/') + 1);
    scratch.write("jobs/missing-" + name + "/log.txt",
                  crashed_job(0, "/srv/app/data.py", "open_shard",
                              "FileNotFoundError: [Errno 2] No such file or directory: '" + path + "'"));
  }
  scratch.write("jobs/healthy-a/log.txt", "[rank0]: step 1 | loss 2.0\n[rank0]: Training completed.\n");
  scratch.write("jobs/healthy-b/log.txt", "INFO all ranks finished\n");
  RunResult run = run_faultline({"scan", "-j", "2", scratch.path("jobs")});
  CHECK(run.exit_code == 1);
  std::string summary = run.out.substr(run.out.rfind("{\"type\":\"summary\""));
  simdjson::dom::parser parser;
  auto templates = parse(parser, summary)["unrecognised"].get_array();
  REQUIRE(templates.size() == 2);
  CHECK(std::string_view(templates.at(0)["template"].get_string()) ==
        "KeyError: <str> @ collate.py in collate");
  CHECK(int64_t(templates.at(0)["jobs"].get_int64()) == 3);
  CHECK(std::string_view(templates.at(1)["template"].get_string()).starts_with("FileNotFoundError: "));
  CHECK(int64_t(templates.at(1)["jobs"].get_int64()) == 2);
  auto no_diagnosis = parse(parser, summary)["no_diagnosis"].get_array();
  CHECK(no_diagnosis.size() == 2);
  // merge rebuilds the same list from the job lines.
  std::string lines = scratch.write("scan.jsonl", run.out);
  RunResult merged = run_faultline({"merge", lines});
  CHECK(merged.out.find("\"template\":\"KeyError: <str> @ collate.py in collate\"") != std::string::npos);
}

TEST_CASE("rules suggest writes a skeleton that rules check accepts once its cause is set, and it matches") {
  Scratch scratch;
  std::string log =
      scratch.write("job.log", crashed_job(3, "/srv/app/collate.py", "collate", "KeyError: 'pixel_values'"));
  RunResult suggest = run_faultline({"rules", "suggest", log});
  CHECK(suggest.exit_code == 0);
  CHECK(suggest.out.find("cause: FILL_IN") != std::string::npos);
  std::string pack = scratch.write("local/suggested.yaml", suggest.out);
  CHECK(run_faultline({"rules", "check", pack}).exit_code == 2);
  std::string filled = suggest.out;
  filled.replace(filled.find("cause: FILL_IN"), std::string("cause: FILL_IN").size(), "cause: unrecognised");
  scratch.write("local/suggested.yaml", filled);
  RunResult check = run_faultline({"rules", "check", pack});
  CHECK_MESSAGE(check.exit_code == 0, check.err);
  RunResult diagnosis =
      run_faultline({"diagnose", "--format", "jsonl", "--rules", scratch.path("local"), log});
  CHECK(diagnosis.out.find("\"rule\":\"local.keyerror_collate\"") != std::string::npos);
  CHECK(diagnosis.out.find("\"value\":\"pixel_values\"") != std::string::npos);
}

TEST_CASE("a handled exception followed by a retry, and a warning traceback, stay healthy") {
  Scratch scratch;
  std::string log =
      scratch.write("job.log",
                    "Traceback (most recent call last):\n"
                    "  File \"/srv/app/metrics.py\", line 40, in push\n"
                    "    session.post(url, json=payload)\n"
                    "ConnectionError: HTTPSConnectionPool(host='metrics', port=443): Max retries\n"
                    "WARNING metrics push failed, retrying in 10 seconds (attempt 2/5)\n"
                    "step 400 | loss 1.71\n");
  RunResult run = run_faultline({"diagnose", "--format", "jsonl", log});
  CHECK(run.exit_code == 0);
  CHECK(run.out.find("\"diagnosis\":null") != std::string::npos);
}

TEST_CASE("the remedy of a vLLM log naming Qwen2.5-7B at TP 8: valid TP 1, 2, 4, and 8 GPUs kept") {
  RunResult run = run_faultline(
      {"diagnose", "--format", "jsonl", corpus_log("702-vllm-qwen2.5-7b-tp8-heads28-catalogue")});
  simdjson::dom::parser parser;
  auto action = parse(parser, run.out)["jobs"].at(0)["diagnosis"]["action"];
  CHECK(sizes(action["valid"]["tp"]) == std::vector<int64_t>{1, 2, 4});
  auto suggest = action["suggest"];
  CHECK(int64_t(suggest["tp"].get_int64()) * int64_t(suggest["pp"].get_int64()) *
            int64_t(suggest["dp"].get_int64()) ==
        8);
}

TEST_CASE("the remedy of a Megatron log with 40 heads, 8 query groups, world 12 at TP 6") {
  RunResult run = run_faultline(
      {"diagnose", "--format", "jsonl", corpus_log("703-megatron-args-heads40-groups8-world12-tp6")});
  simdjson::dom::parser parser;
  auto job = parse(parser, run.out)["jobs"].at(0);
  auto action = job["diagnosis"]["action"];
  CHECK(sizes(action["valid"]["tp"]) == std::vector<int64_t>{1, 2, 4, 8});
  auto suggest = action["suggest"];
  CHECK(int64_t(suggest["tp"].get_int64()) * int64_t(suggest["pp"].get_int64()) *
            int64_t(suggest["dp"].get_int64()) ==
        12);
  // The facts it rests on came from the job's argument dump, each with its line.
  bool query_groups = false;
  for (auto fact : job["job_facts"].get_array()) {
    std::string_view name = fact["name"].get_string();
    if (name == "kv_heads") query_groups = int64_t(fact["line"].get_int64()) > 0;
  }
  CHECK(query_groups);
}

// The sizes valid.KEY lists: each divides the fact DIVIDEND of the diagnosis, the job's own
// size (the fact KEY) is not among them, and the suggested setting is one of them.
static void check_valid_sizes(const std::string& corpus_case, const char* key, const char* dividend,
                              const char* setting) {
  CAPTURE(corpus_case);
  RunResult run = run_faultline({"diagnose", "--format", "jsonl", corpus_log(corpus_case)});
  simdjson::dom::parser parser;
  auto diagnosis = parse(parser, run.out)["jobs"].at(0)["diagnosis"];
  int64_t whole = diagnosis["facts"][dividend].get_int64();
  int64_t own = diagnosis["facts"][key].get_int64();
  std::vector<int64_t> valid = sizes(diagnosis["action"]["valid"][key]);
  REQUIRE_FALSE(valid.empty());
  for (int64_t size : valid) CHECK(whole % size == 0);
  CHECK(std::find(valid.begin(), valid.end(), own) == valid.end());
  int64_t suggested = diagnosis["action"]["settings"][setting].get_int64();
  CHECK(std::find(valid.begin(), valid.end(), suggested) != valid.end());
}

TEST_CASE("the remedy lists the expert-parallel and virtual pipeline sizes that fit, beside TP and PP") {
  check_valid_sizes("607-vllm-ep-256-experts-ep3", "ep", "experts", "expert_parallel_size");
  check_valid_sizes("923-torchrun-mcore-interleaved-vp4-layers-per-stage-14", "vp", "layers_per_stage",
                    "virtual_pipeline_model_parallel_size");
}

TEST_CASE("preflight --model takes the catalogue's sizes, and says an id it does not hold is unknown") {
  RunResult qwen = run_faultline({"preflight", "--model", "Qwen/Qwen2.5-7B-Instruct", "--tp", "8"});
  CHECK(qwen.exit_code == 1);
  CHECK(qwen.out.find("TP sizes this model accepts: 1, 2, 4\n") != std::string::npos);
  CHECK(run_faultline({"preflight", "--model", "Qwen/Qwen2.5-7B-Instruct", "--tp", "4"}).exit_code == 0);
  RunResult unknown = run_faultline({"preflight", "--model", "acme/Llama-9-7B", "--tp", "4"});
  CHECK(unknown.exit_code == 2);
  CHECK(unknown.err ==
        "faultline: model 'acme/Llama-9-7B' is not in the catalogue (rules/models/catalogue.yaml): give its "
        "config.json with --config, or its sizes (--heads, --kv-heads, ...)\n");
}

TEST_CASE("preflight --require and --framework hold a layout to what the framework demands") {
  // Megatron does not replicate query groups: TP 16 over 8 of them fails there, not in vLLM.
  CHECK(run_faultline({"preflight", "--heads", "32", "--kv-heads", "8", "--tp", "16"}).exit_code == 0);
  CHECK(run_faultline(
            {"preflight", "--framework", "megatron", "--heads", "32", "--kv-heads", "8", "--tp", "16"})
            .exit_code == 1);
  CHECK(run_faultline({"preflight", "--require", "gpus-exact", "--heads", "32", "--gpus", "8", "--tp", "4"})
            .exit_code == 1);
  RunResult bad = run_faultline({"preflight", "--require", "kv-divisble", "--heads", "32", "--tp", "4"});
  CHECK(bad.exit_code == 2);
  CHECK(bad.err ==
        "faultline: --require: unknown requirement 'kv-divisble' (kv-divisible, vocab-divisible, "
        "layers-divisible, "
        "gpus-multiple, gpus-exact)\n");
}

TEST_CASE("an exception its rank lived through (its watchdog timed out later) does not take a hang's place") {
  Scratch scratch;
  std::string watchdog =
      "]:[E1130 10:20:00.000000000 ProcessGroupNCCL.cpp:616] [Rank R] Watchdog caught collective operation "
      "timeout: WorkNCCL(SeqNum=812, OpType=ALLREDUCE, NumelIn=4096, NumelOut=4096, Timeout(ms)=600000) ran "
      "for "
      "600018 milliseconds before timing out.\n";
  std::string log =
      "[rank1]: Traceback (most recent call last):\n"
      "[rank1]:   File \"/srv/app/eval.py\", line 12, in score\n"
      "[rank1]:     value = table[key]\n"
      "[rank1]: KeyError: 'bleu'\n"
      "[rank0]: step 811 | loss 1.20\n";
  for (std::string rank : {"0", "1"}) {
    std::string line = "[rank" + rank + watchdog;
    line.replace(line.find("Rank R"), 6, "Rank " + rank);
    log += line;
  }
  RunResult run = run_faultline({"diagnose", "--format", "jsonl", scratch.write("job.log", log)});
  CHECK(run.exit_code == 1);
  CHECK(run.out.find("\"cause\":\"nccl.watchdog_timeout\"") != std::string::npos);
  CHECK(run.out.find("\"cause\":\"unrecognised\",\"rule\"") == std::string::npos);
}

TEST_CASE(
    "preflight weighs a vision tower's heads, splits layers unevenly where vLLM does, and takes --gpus "
    "alone") {
  Scratch scratch;
  std::string vl = scratch.write("config.json", R"({"num_attention_heads": 28, "num_key_value_heads": 4,
    "hidden_size": 3584, "num_hidden_layers": 28, "vision_config": {"num_heads": 16}})");
  RunResult seven = run_faultline({"preflight", "--config", vl, "--tp", "4"});
  CHECK(seven.exit_code == 0);
  CHECK(seven.out.find("16 vision-tower heads over TP 4") != std::string::npos);
  // 28 LLM heads and 4 KV heads allow TP 2 and 4 (and 28 with replication); 16 vision heads rule out 28.
  CHECK(seven.out.find("TP sizes this model accepts: 1, 2, 4\n") != std::string::npos);
  std::string deep = scratch.write("deep.json", R"({"num_attention_heads": 128, "hidden_size": 7168,
    "num_hidden_layers": 61})");
  RunResult uneven = run_faultline({"preflight", "--config", deep, "--tp", "8", "--pp", "2"});
  CHECK(uneven.exit_code == 0);
  CHECK(uneven.out.find("stages of 30 and 31 layers") != std::string::npos);
  CHECK(run_faultline({"preflight", "--framework", "megatron", "--config", deep, "--tp", "8", "--pp", "2"})
            .exit_code == 1);
  RunResult gpus = run_faultline({"preflight", "--config", deep, "--gpus", "16"});
  CHECK(gpus.exit_code == 0);
  CHECK(gpus.out.find("layouts of 16 GPUs that fit") != std::string::npos);
}

TEST_CASE("preflight weighs the weights against the GPUs' memory: 70B does not fit one 40 GB GPU") {
  Scratch scratch;
  std::string gpus = "index, name, memory.total [MiB]\n";
  for (int i = 0; i < 8; ++i) gpus += std::to_string(i) + ", NVIDIA A100-SXM4-40GB, 40960 MiB\n";
  std::string inventory = scratch.write("gpus.csv", gpus);
  RunResult one = run_faultline(
      {"preflight", "--model", "meta-llama/Llama-3.1-70B-Instruct", "--tp", "1", "--gpus", inventory});
  CHECK(one.exit_code == 1);
  CHECK(one.out.find("does not fit") != std::string::npos);
  CHECK(one.out.find("(8 replicas)") == std::string::npos);
  RunResult eight = run_faultline(
      {"preflight", "--model", "meta-llama/Llama-3.1-70B-Instruct", "--tp", "8", "--gpus", inventory});
  CHECK(eight.exit_code == 0);
}
