// LineParser and Assembler on the launcher formats of ../shared/logformats.md, with the real
// lines quoted there (issue numbers in the test names' comments), and on paste damage.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "../skip_unless.hpp"
#include "assemble/assembler.hpp"
#include "ingest/byte_source.hpp"
#include "ingest/line_reader.hpp"
#include "parse/line_parser.hpp"
#include "parse_helpers.hpp"

using faultline::assemble::Event;
using faultline::assemble::EventKind;
using faultline::parse::LineParser;
using faultline::testing::copy;
using faultline::testing::Parsed;

namespace {

// Every line (and piece) of `text`, through one parser.
std::vector<Parsed> parse_all(std::string_view text) {
  std::vector<Parsed> out;
  faultline::testing::for_each_line(text, std::nullopt,
                                    [&](const faultline::parse::Line& line) { out.push_back(copy(line)); });
  return out;
}

Parsed parse_one(std::string_view text) {
  return parse_all(text).front();
}

std::vector<Event> assemble(std::string_view text) {
  return faultline::testing::assemble_text(text);
}

const Event* find_kind(const std::vector<Event>& events, EventKind kind) {
  for (const auto& event : events) {
    if (event.kind == kind) return &event;
  }
  return nullptr;
}

}  // namespace

// ---- pdsh host prefixes (NVIDIA/nccl#1029) ----

TEST_CASE("pdsh host prefix before an NCCL line gives the host, and NCCL's own prefix the pid") {
  auto line = parse_one(
      "rdma-gpu-train-worker-0: rdma-gpu-train-worker-0:19491:21059 [7] proxy.cc:1143 NCCL WARN Socket recv "
      "failed "
      "while polling for opId=0x7fb582222f90");
  CHECK(line.host == "rdma-gpu-train-worker-0");
  CHECK(line.pid == 19491);
  CHECK(line.rank == -1);  // [7] is a local CUDA device, never a rank
  CHECK(line.text.starts_with("rdma-gpu-train-worker-0:19491:21059 [7] proxy.cc:1143 NCCL WARN"));
}

TEST_CASE("a pdsh host seen once prefixes plain lines after it, and a bare 'host:' line") {
  auto lines = parse_all(
      "worker-1: [2026-11-29 10:22:09,100] [INFO] [launch.py:78:main] WORLD INFO DICT\n"
      "worker-1: Traceback (most recent call last):\n"
      "worker-1:   File \"train.py\", line 3, in <module>\n"
      "worker-1:\n");
  CHECK(lines[0].host == "worker-1");
  CHECK(lines[0].text == "WORLD INFO DICT");
  CHECK(lines[1].host == "worker-1");
  CHECK(lines[1].text == "Traceback (most recent call last):");
  CHECK(lines[2].text == "  File \"train.py\", line 3, in <module>");
  CHECK(lines[3].text.empty());
}

TEST_CASE("an exception or a note followed by text is not a host prefix") {
  CHECK(parse_one(
            "ValueError: Total number of attention heads (32) must be divisible by tensor parallel size (6).")
            .text.starts_with("ValueError: "));
  CHECK(parse_one("socketProgressOpt: Call to recv from 10.119.24.53<49901> failed : Broken pipe")
            .host.empty());
  CHECK(parse_one("LOCAL_RANK: 0 - CUDA_VISIBLE_DEVICES: [0,1,2,3]").text ==
        "LOCAL_RANK: 0 - CUDA_VISIBLE_DEVICES: [0,1,2,3]");
  CHECK(parse_one("srun: error: slurm-job-compute-0-0: tasks 2-7: Exited with exit code 1").host.empty());
  CHECK(parse_one("torch.distributed.DistBackendError: [rank0]: x")
            .text.starts_with("torch.distributed.DistBackendError"));
}

// ---- Ray (vllm-project/vllm#13136, PeterGriffinJin/Search-R1#134, areal-project/AReaL#25) ----

TEST_CASE("Ray prefix with caret-escaped colour gives pid and ip") {
  auto line = parse_one(
      "^[[36m(RayWorkerWrapper pid=4823, ip=10.233.68.253)^[[0m   File "
      "\"/usr/local/lib/python3.12/dist-packages/vllm/attention/layer.py\", line 307 in unified_attention");
  CHECK(line.pid == 4823);
  CHECK(line.host == "10.233.68.253");
  CHECK(line.text.starts_with("  File \"/usr/local/lib"));
}

TEST_CASE("Ray dedup suffix is removed from the text and counted") {
  auto line = parse_one(
      "(WorkerDict pid=358920)   File "
      "\"/data/miniconda3/envs/searchr1/lib/python3.9/site-packages/ray/_private/"
      "worker.py\", line 953 in main_loop [repeated 3x across cluster]");
  CHECK(line.repeated == 3);
  CHECK(line.text.ends_with("line 953 in main_loop"));
  CHECK(line.pid == 358920);
}

TEST_CASE("Ray task names with a slash and the raylet prefix") {
  auto line = parse_one(
      "(model_worker/7 pid=20331) ncclRemoteError: A call failed possibly due to a network error or a remote "
      "process "
      "exiting prematurely.");
  CHECK(line.pid == 20331);
  CHECK(line.text.starts_with("ncclRemoteError: "));
  CHECK(parse_one("(raylet) [2026-11-29 10:22:33,100 E 123 456] worker_pool.cc:1: Some workers died")
            .text.starts_with("[2026"));
  CHECK(parse_one("(raylet, ip=10.0.0.2) A worker died or was killed").host == "10.0.0.2");
}

// ---- vLLM (vllm-project/vllm#18302, LMCache/LMCache#1998, vllm-project/vllm#30017) ----

TEST_CASE("vLLM V1 worker prefix names the rank, and the header after it") {
  auto line = parse_one(
      "(VllmWorker rank=0 pid=161) ERROR 05-17 01:58:02 [multiproc_executor.py:487] Traceback (most recent "
      "call last):");
  CHECK(line.rank == 0);
  CHECK(line.pid == 161);
  CHECK(line.severity == 'E');
  CHECK(line.text == "Traceback (most recent call last):");
}

TEST_CASE("vLLM EngineCore_DP0 names a data-parallel rank, not a rank") {
  auto line = parse_one("(EngineCore_DP0 pid=975) Traceback (most recent call last):");
  CHECK(line.rank == -1);
  CHECK(line.pid == 975);
}

TEST_CASE("nested vLLM and Ray prefixes with a dedup suffix") {
  auto line = parse_one(
      "(EngineCore_DP0 pid=752) (RayWorkerWrapper pid=923) INFO 12-03 18:28:55 [gpu_worker.py:359] Available "
      "KV cache "
      "memory: 26.98 GiB [repeated 2x across cluster]");
  CHECK(line.pid == 923);
  CHECK(line.repeated == 2);
  CHECK(line.text == "Available KV cache memory: 26.98 GiB");
}

TEST_CASE("vLLM Worker_TPn gives the TP rank; Worker_PPp_TPn with p > 0 leaves the rank to the pid map") {
  CHECK(parse_one("(Worker_TP1 pid=9) INFO 11-29 10:22:33 [gpu_worker.py:1] ready").rank == 1);
  CHECK(parse_one("(Worker_PP0_TP2 pid=9) INFO 11-29 10:22:33 [gpu_worker.py:1] ready").rank == 2);
  CHECK(parse_one("(Worker_PP1_TP2 pid=9) INFO 11-29 10:22:33 [gpu_worker.py:1] ready").rank == -1);
  // vLLM 0.10 spells the worker "VllmWorker TP1"; a TP inside a word is no tag.
  CHECK(parse_one("(VllmWorker TP3 pid=9) ERROR 11-29 10:22:33 [multiproc_executor.py:1] failed").rank == 3);
  CHECK(parse_one("(VllmWorker PP1 TP3 pid=9) ERROR 11-29 10:22:33 [multiproc_executor.py:1] x").rank == -1);
  CHECK(parse_one("(HTTP2Server pid=9) INFO 11-29 10:22:33 [server.py:1] up").rank == -1);
}

TEST_CASE("vLLM V0 process prefix (index only) keeps the old header") {
  auto line = parse_one(
      "(VllmWorkerProcess pid=362295) INFO 10-07 10:20:14 multiproc_worker_utils.py:216] Worker ready; "
      "awaiting tasks");
  CHECK(line.pid == 362295);
  CHECK(line.severity == 'I');
  CHECK(line.text == "Worker ready; awaiting tasks");
}

// ---- SGLang (sgl-project/sglang#12567, SemiAnalysisAI/InferenceX#1570, allenai/olmocr#105) ----

TEST_CASE("SGLang's unprefixed traceback lines carry the rank of the record's first line") {
  auto lines = parse_all(
      "[2025-11-03 18:48:34 TP7] Scheduler hit an exception: Traceback (most recent call last):\n"
      "  File \"/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py\", line 2810, in "
      "run_scheduler_process\n"
      "ValueError: boom\n"
      "unrelated line\n");
  CHECK(lines[0].rank == 7);
  CHECK(lines[1].rank == 7);
  CHECK(lines[2].rank == 7);
  CHECK(lines[3].rank == -1);
}

TEST_CASE("SGLang DP TP EP prefix with milliseconds, and re-logged by a parent") {
  CHECK(parse_one("[2026-11-29 00:11:09.816 DP0 TP0 EP0] Scheduler hit an exception: x").rank == 0);
  auto line = parse_one(
      "2025-03-08 02:04:48,693 - __main__ - INFO - [2025-03-08 02:04:48 TP0] Scheduler hit an exception: "
      "Traceback "
      "(most recent call last):");
  CHECK(line.rank == 0);
  CHECK(line.text == "Scheduler hit an exception: Traceback (most recent call last):");
}

// ---- NeMo, Lightning, TorchX (NVIDIA-NeMo/Run#251) ----

TEST_CASE("NeMo header, then 4-space continuation lines of the same record") {
  auto lines = parse_all(
      "[NeMo E 2026-11-29 10:22:33 megatron_gpt_model:12] Failed to build the model\n"
      "    Traceback (most recent call last):\n"
      "      File \"x.py\", line 3, in f\n"
      "[NeMo I 2026-11-29 10:22:34 exp_manager:1] next\n"
      "    not a continuation of an error\n");
  CHECK(lines[0].severity == 'E');
  CHECK(lines[0].text == "Failed to build the model");
  CHECK(lines[1].continues_record);
  CHECK(lines[1].text == "Traceback (most recent call last):");
  CHECK(lines[2].text == "  File \"x.py\", line 3, in f");
  CHECK(lines[3].severity == 'I');
  CHECK(lines[4].continues_record);
  CHECK(lines[4].severity == 'I');
}

TEST_CASE("NeMo debug header with rank:N") {
  auto line = parse_one("[NeMo W 2026-11-29 10:22:33 nlp_overrides:1 rank:5] slow");
  CHECK(line.rank == 5);
  CHECK(line.severity == 'W');
}

TEST_CASE("a NeMo error record's continuation lines join its event") {
  auto events = assemble(
      "[NeMo E 2026-11-29 10:22:33 megatron_init:12] Model parallel setup failed\n"
      "    tensor_model_parallel_size (6) does not divide 32\n"
      "done\n");
  REQUIRE(events.size() == 1);
  CHECK(events[0].message ==
        "Model parallel setup failed\ntensor_model_parallel_size (6) does not divide 32");
  CHECK(events[0].lines.size() == 2);
}

TEST_CASE("Lightning [rank: N] prefix") {
  auto line = parse_one("[rank: 0] Global seed set to 42");
  CHECK(line.rank == 0);
  CHECK(line.text == "Global seed set to 42");
}

TEST_CASE("TorchX role/replica prefix before a glog header; then before plain lines") {
  auto lines = parse_all(
      "llama32_1b/0 I0601 20:17:03.073000 616467 "
      "site-packages/torch/distributed/elastic/agent/server/api.py:677] "
      "[default] Rendezvous'ing worker group\n"
      "llama32_1b/0 Traceback (most recent call last):\n");
  CHECK(lines[0].host == "llama32_1b/0");
  CHECK(lines[0].severity == 'I');
  CHECK(lines[0].text == "[default] Rendezvous'ing worker group");
  CHECK(lines[1].host == "llama32_1b/0");
  CHECK(lines[1].text == "Traceback (most recent call last):");
}

// ---- containers (kubectl/pkg/cmd/logs/logs.go, NVIDIA/nccl#1920) ----

TEST_CASE("kubectl --prefix names the pod as host") {
  auto line = parse_one("[pod/trainer-3/pytorch] [rank3]: ValueError: x");
  CHECK(line.host == "trainer-3");
  CHECK(line.rank == 3);
  CHECK(line.text == "ValueError: x");
}

TEST_CASE("kubectl --timestamps, then NCCL 2.26's own stamp") {
  auto line = parse_one(
      "2025-11-24T03:20:21.001125857Z [2025-11-24 11:20:21] gpu-server320 [5] misc/socket.cc:46 NCCL WARN "
      "socketProgressOpt: Call to send to 10.44.137.149<52905> failed : Connection reset by peer");
  CHECK(line.time.valid);
  CHECK(line.text.starts_with("gpu-server320 [5] misc/socket.cc:46 NCCL WARN"));
}

TEST_CASE("docker compose service prefix names the container as host") {
  auto line = parse_one("trainer-1  | [rank3]: ValueError: x");
  CHECK(line.host == "trainer-1");
  CHECK(line.rank == 3);
  CHECK(line.text == "ValueError: x");
  CHECK(parse_one("worker_2  | hello").host == "worker_2");
  CHECK(parse_one("Epoch 0:   6%|██  | 3/50").host.empty());
}

TEST_CASE("a compose container_name without a replica number is the host; a table's cell is not") {
  auto line = parse_one("qwen3-next  | AssertionError: 16 is not divisible by 3");
  CHECK(line.host == "qwen3-next");
  CHECK(line.text == "AssertionError: 16 is not divisible by 3");
  CHECK(parse_one("vllm_server | INFO ready").host == "vllm_server");
  CHECK(parse_one("loss  | 0.52").host.empty());
  CHECK(parse_one("loss  | 0.52").text == "loss  | 0.52");
  CHECK(parse_one("3-way  | x").host.empty());
}

TEST_CASE("nccl-tests' table of ranks teaches each pid its rank and host") {
  auto lines = parse_all(
      "#  Rank  0 Group  0 Pid  14210 on      nodeA device  0 [0x53] NVIDIA H100 80GB HBM3\n"
      "#  Rank  8 Group  0 Pid   9930 on      nodeB device  0 [0x53] NVIDIA H100 80GB HBM3\n"
      "nodeB:9930:9941 [0] transport/net.cc:1 NCCL WARN NET/OFI call failed\n"
      "nodeA:14210:14220 [0] transport/net.cc:1 NCCL WARN NET/OFI call failed\n");
  REQUIRE(lines.size() == 4);
  CHECK(lines[2].rank == 8);
  CHECK(lines[3].rank == 0);
  CHECK(parse_all("#  Rank  8 Group  0 Pid 9930 on nodeB\nnodeB:9930:9941 [0] NCCL WARN x\n")[1].rank != 8);
}

TEST_CASE("a bare bracketed number too large for an MPI label is a process id, kept as text") {
  auto line = parse_one("[57663] CUDA error: out of memory");
  CHECK(line.rank == -1);
  CHECK(line.text == "[57663] CUDA error: out of memory");
  CHECK(parse_one("[16383] x").rank == 16383);
}

// ---- MPI and viewer line numbers (NVIDIA/nccl#1232, hiyouga/LlamaFactory#7396, openpmix/prrte#1405) ----

TEST_CASE("MPICH [N] before an NCCL line is the rank") {
  auto line =
      parse_one("[0] node0:13571:13571 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/Socket/0");
  CHECK(line.rank == 0);
  CHECK(line.rank_from_prefix);
  CHECK(line.pid == 13571);
  CHECK(line.host == "node0");
}

TEST_CASE("a viewer's line number before a [rankN]: prefix is not a rank") {
  auto line = parse_one(
      "[80746] [rank0]:[E321 02:07:08.408271257 ProcessGroupNCCL.cpp:1664] [PG 1 Rank 0] Exception (either "
      "an error or "
      "timeout) detected by watchdog at work: 7753");
  CHECK(line.rank == 0);
  CHECK(line.severity == 'E');
  CHECK(line.display.starts_with("[rank0]:"));
}

TEST_CASE("line numbers counting up with the lines mark the source as numbered") {
  auto lines = parse_all("[120] a\n[121] b\n[122] c\n[123] d\n");
  CHECK(lines[3].rank == -1);
  CHECK(lines[3].text == "d");
  auto mpich = parse_all("[0] a\n[1] b\n[0] c\n[1] d\n");
  CHECK(mpich[3].rank == 1);
}

TEST_CASE("PRRTE tag and Open MPI ctime tag still work") {
  CHECK(parse_one("[prterun-f5n18-100629@1,0]<stdout>: f5n18").rank == 0);
  auto line = parse_one(
      "Fri Aug 11 12:31:45 2023[1,0]<stdout>:tomte401:1850301:1881341 [0] transport.cc:154 NCCL WARN Cuda "
      "failure "
      "'invalid argument'");
  CHECK(line.rank == 0);
  CHECK(line.pid == 1850301);
  CHECK(line.host == "tomte401");
}

// ---- pids to ranks ----

TEST_CASE("NCCL's ncclCommInitRank line maps its pid to the rank; later lines of that pid get it") {
  auto lines = parse_all(
      "gpu-a100-017:48214:48383 [3] NCCL INFO ncclCommInitRank comm 0x55d0e1b0 rank 3 nranks 8 cudaDev 3 "
      "nvmlDev 3 "
      "busId 4e000 commId 0x9b1d0e3f6c2a7d11 - Init COMPLETE\n"
      "gpu-a100-017:48214:48390 [3] misc/socket.cc:46 NCCL WARN Connection closed\n"
      "gpu-a100-017:48215:48391 [4] misc/socket.cc:46 NCCL WARN Connection closed\n");
  CHECK(lines[0].rank == 3);
  CHECK(lines[1].rank == 3);
  CHECK(lines[1].rank_from_pid);
  CHECK_FALSE(lines[1].rank_from_prefix);
  CHECK(lines[1].host == "gpu-a100-017");
  CHECK(lines[2].rank == -1);
}

TEST_CASE("a smaller communicator does not replace the world rank of a pid") {
  auto lines = parse_all(
      "h:10:11 [1] NCCL INFO comm 0x1 rank 5 nranks 8 cudaDev 1 busId 1 - Init COMPLETE\n"
      "h:10:11 [1] NCCL INFO comm 0x2 rank 1 nranks 2 cudaDev 1 busId 1 - Init COMPLETE\n"
      "h:10:12 [1] NCCL WARN x\n");
  CHECK(lines[2].rank == 5);
}

TEST_CASE("a Ray worker's pid gets the rank of its NCCL init line") {
  auto lines = parse_all(
      "(RayWorkerWrapper pid=923, ip=10.0.0.2) node:923:950 [0] NCCL INFO ncclCommInitRank comm 0x5 rank 6 "
      "nranks 8 "
      "cudaDev 0 - Init COMPLETE\n"
      "(RayWorkerWrapper pid=923, ip=10.0.0.2) ValueError: x\n");
  CHECK(lines[1].rank == 6);
  CHECK(lines[1].rank_from_pid);
  CHECK(lines[1].host == "10.0.0.2");
}

TEST_CASE("a vLLM prefix that names rank and pid maps the pid for NCCL lines") {
  auto lines = parse_all(
      "(VllmWorker rank=2 pid=161) INFO 05-17 01:58:02 [x.py:1] hi\n"
      "host:161:170 [2] misc/socket.cc:46 NCCL WARN Connection closed\n");
  CHECK(lines[1].rank == 2);
}

TEST_CASE("torchrun's failed (exitcode) line maps a pid to a local rank only") {
  auto lines = parse_all(
      "E0325 20:57:27.620000 2606 site-packages/torch/distributed/elastic/multiprocessing/api.py:869] failed "
      "(exitcode: -9) local_rank: 5 (pid: 2630) of binary: /root/miniconda3/bin/python\n"
      "h:2630:2631 [5] NCCL WARN x\n");
  CHECK(lines[1].local_rank == 5);
  CHECK(lines[1].rank == -1);
}

TEST_CASE("the ChildFailedError block maps its pid to the global rank and host") {
  auto lines = parse_all(
      "  host      : node-7\n"
      "  rank      : 13 (local_rank: 5)\n"
      "  exitcode  : 1 (pid: 4242)\n"
      "node-7:4242:4250 [5] NCCL WARN x\n");
  CHECK(lines[3].rank == 13);
  CHECK(lines[3].local_rank == 5);
}

// ---- paste damage ----

TEST_CASE("Markdown quote markers and code fences are removed") {
  auto lines = parse_all("> ```\n> [rank3]: ValueError: x\n>\n> > nested\n>>> prompt\n```\n");
  CHECK(lines[0].text.empty());
  CHECK(lines[1].rank == 3);
  CHECK(lines[1].text == "ValueError: x");
  CHECK(lines[2].text.empty());
  CHECK(lines[3].text == "nested");
  CHECK(lines[4].text == ">>> prompt");
  CHECK(lines[5].text.empty());
}

TEST_CASE("a watchdog line glued to a progress bar is found (pytorch/pytorch#118369)") {
  auto line = parse_one(
      "Epoch 0:   6%|██                               | 32040/500150 [6:28:43<94:39:17,  1.37it/s, loss=2.6, "
      "v_num=95nc, reduced_train_loss=2.590, global_step=3.2e+4, consumed_samples=2.56e+7][E "
      "ProcessGroupNCCL.cpp:458] [Rank 0] Watchdog caught collective operation timeout: "
      "WorkNCCL(SeqNum=96120, "
      "OpType=ALLREDUCE, Timeout(ms)=1800000) ran for 25624887 milliseconds before timing out.");
  CHECK(line.severity == 'E');
  CHECK(line.text.starts_with("[Rank 0] Watchdog caught collective operation timeout"));
  auto slurm = parse_one(
      "Epoch 3: 100%|██████████| 10/10 [09:46<00:00, 58.67s/it]slurmstepd: error: *** STEP 6053.0 ON "
      "DEL2212S020 CANCELLED AT 2024-04-23T12:18:08 ***");
  CHECK(slurm.text.starts_with("slurmstepd: error: *** STEP"));
}

TEST_CASE("a watchdog line hard-wrapped mid-number is mended (Lightning-AI/pytorch-lightning#20832)") {
  std::string head =
      "[rank1]:[E1129 10:32:32.031475513 ProcessGroupNCCL.cpp:616] [Rank 1] Watchdog caught collective "
      "operation "
      "timeout: WorkNCCL(SeqNum=532339, OpType=BROADCAST, NumelIn=5164000, NumelOut=5";
  auto lines =
      parse_all(head + "\n164000, Timeout(ms)=1800000) ran for 1800123 milliseconds before timing out.\n");
  REQUIRE(lines.size() == 2);
  CHECK(lines[1].continues_previous);
  CHECK(lines[1].text_rebuilt);
  CHECK(lines[1].rank == 1);
  CHECK(lines[1].severity == 'E');
  CHECK(lines[1].text.ends_with(
      "NumelOut=5164000, Timeout(ms)=1800000) ran for 1800123 milliseconds before timing out."));
  auto events =
      assemble(head + "\n164000, Timeout(ms)=1800000) ran for 1800123 milliseconds before timing out.\n");
  REQUIRE(events.size() == 1);
  CHECK(events[0].rank == 1);
  CHECK(events[0].message.ends_with(
      "NumelOut=5164000, Timeout(ms)=1800000) ran for 1800123 milliseconds before timing out."));
  CHECK(events[0].lines.size() == 1);
}

TEST_CASE("an exception line wrapped at the terminal's width is mended in the traceback's message") {
  std::string head =
      "[rank3]: ValueError: Total number of attention heads (32) must be divisible by tensor parall";
  std::string wide(head.size(), '=');  // another line as wide as the terminal
  auto events = assemble(wide + "\n" +
                         "[rank3]: Traceback (most recent call last):\n"
                         "[rank3]:   File \"x.py\", line 3, in f\n" +
                         head + "\nel size (6).\n");
  REQUIRE(events.size() == 1);
  CHECK(events[0].rank == 3);
  CHECK(events[0].message ==
        "ValueError: Total number of attention heads (32) must be divisible by tensor parallel size (6).");
}

TEST_CASE("a short line ending in a word is not joined to the next") {
  auto lines = parse_all("[rank0]: loading\nweights done\n");
  CHECK_FALSE(lines[1].continues_previous);
  CHECK(lines[1].text == "weights done");
}

TEST_CASE("a wrapped line's tail that starts a traceback is not joined (corpus-real 069 shape)") {
  std::string wide(190, 'x');
  auto lines = parse_all(wide + "\n" + std::string(189, 'y') + "a\nTraceback (most recent call last):\n");
  CHECK_FALSE(lines[2].continues_previous);
}

TEST_CASE("two processes' terminate messages byte-interleaved are split (huggingface/open-r1#620)") {
  auto lines = parse_all(
      "terminate called after throwing an instance of 'c10::DistBackendErrorterminate called after throwing "
      "an "
      "instance of ''\n");
  REQUIRE(lines.size() == 2);
  CHECK(lines[0].text == "terminate called after throwing an instance of 'c10::DistBackendError");
  CHECK(lines[1].text == "terminate called after throwing an instance of ''");
}

TEST_CASE("many [rankN]: records on one line are split into lines") {
  auto lines = parse_all(
      "[rank0]: Traceback (most recent call last):[rank1]: Traceback (most recent call last):[rank0]:   File "
      "\"x\", line 1\n");
  REQUIRE(lines.size() == 3);
  CHECK(lines[0].rank == 0);
  CHECK(lines[1].rank == 1);
  CHECK(lines[2].rank == 0);
  CHECK(lines[2].text == "  File \"x\", line 1");
}

TEST_CASE("timestamped records joined into one padded line are split before each stamp") {
  std::string pad(30, ' ');
  auto events = assemble(
      "2025-03-04 05:06:07,123 - trainer - INFO - [rank1]: Traceback (most recent call last):" + pad +
      "2025-03-04 05:06:07,124 - trainer - INFO - [rank1]:   File \"t.py\", line 5, in f" + pad +
      "2025-03-04 05:06:07,125 - trainer - INFO - [rank1]: KeyError: 'weight'\n");
  const Event* traceback = find_kind(events, EventKind::kTraceback);
  REQUIRE(traceback != nullptr);
  CHECK(traceback->rank == 1);
  CHECK(traceback->message == "KeyError: 'weight'");
  // A stamp of another shape inside a record's text is not a record of its own.
  auto lines = parse_all("2025-03-04 05:06:07 INFO saved checkpoint" + pad + pad + pad +
                         " created 2025-03-04T05:06:07 at step 9\n");
  CHECK(lines.size() == 1);
}

TEST_CASE("a log flattened with literal \\n is split and unescaped") {
  auto events = assemble(
      "'Traceback (most recent call last):\\n  File \\\"x.py\\\", line 9, in <module>\\n    "
      "run()\\nValueError: "
      "Total number of attention heads (32) must be divisible by tensor parallel size (6).\\n'\n");
  const Event* traceback = find_kind(events, EventKind::kTraceback);
  REQUIRE(traceback != nullptr);
  CHECK(traceback->message ==
        "ValueError: Total number of attention heads (32) must be divisible by tensor parallel size (6).");
  CHECK(traceback->lines[1].text == "  File \"x.py\", line 9, in <module>");
}

// ---- every real log: no crash ----

TEST_CASE("every shared/corpus-real log goes through LineParser and Assembler" *
          faultline::testing::skip_unless(
              std::filesystem::is_directory(std::filesystem::path(FAULTLINE_TEST_SOURCE_DIR) / ".." /
                                            "shared" / "corpus-real"),
              "no ../shared/corpus-real")) {
  namespace fs = std::filesystem;
  fs::path root = fs::path(FAULTLINE_TEST_SOURCE_DIR) / ".." / "shared" / "corpus-real";
  size_t logs = 0;
  for (const auto& entry : fs::directory_iterator(root)) {
    fs::path log = entry.path() / "log.txt";
    if (!fs::is_regular_file(log)) continue;
    std::ifstream in(log, std::ios::binary);
    std::stringstream bytes;
    bytes << in.rdbuf();
    auto events = assemble(bytes.str());
    for (const auto& event : events) CHECK(event.lines.size() <= Event::kMaxLines);
    ++logs;
  }
  CHECK(logs > 0);
}

TEST_CASE("a wrapper's level tag in front of an exception line goes; before other text it stays") {
  auto tagged = parse_one("[INFO] RuntimeError: use_libuv was requested but PyTorch was built without it");
  CHECK(tagged.text == "RuntimeError: use_libuv was requested but PyTorch was built without it");
  CHECK(tagged.severity == 0);  // the wrapper's level, not the exception's
  CHECK(parse_one("2024-09-15 10:00:39 [ERROR] torch.OutOfMemoryError: CUDA out of memory.").text ==
        "torch.OutOfMemoryError: CUDA out of memory.");
  CHECK(parse_one("ERROR: ValueError: bad config").text == "ValueError: bad config");
  CHECK(parse_one("[INFO] Starting the RuntimeError handler").text ==
        "[INFO] Starting the RuntimeError handler");
  CHECK(parse_one("ERROR: Could not find a version that satisfies the requirement").text ==
        "ERROR: Could not find a version that satisfies the requirement");
}

TEST_CASE("Determined AI's trial log prefix gives the rank and the time") {
  auto line =
      parse_one("[2024-02-27T21:35:28.727165Z] 3be1c0aa [rank=2] || ValueError: hidden size 96 is odd");
  CHECK(line.rank == 2);
  CHECK(line.rank_from_prefix);
  CHECK(line.time.valid);
  CHECK(line.text == "ValueError: hidden size 96 is odd");
  CHECK(parse_one("[2024-02-27T21:35:28.727165Z] [rank=5] || step 10").rank == 5);
  // Text that merely looks so is left alone.
  CHECK(parse_one("[2024-02-27T21:35:28.727165Z] note [rank=2] || x").rank == -1);
}
