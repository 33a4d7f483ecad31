// The literals of every stage in one list, and the screen of them that the build prebuilds: taken
// at run time for the shipped rules, with the same hits as a screen compiled afresh, and off the
// lines a healthy job prints by the million.
#include "job/job_literals.hpp"

#include <doctest/doctest.h>

#include <algorithm>

#include "../skip_unless.hpp"
#include "job/job_runner.hpp"
#include "pipeline_helpers.hpp"
#include "screen/literal_screen.hpp"

using faultline::screen::LiteralScreen;
using faultline::screen::Stop;

namespace {

doctest::skip with_hyperscan() {
  return faultline::testing::skip_unless(LiteralScreen::built_in(), "built without Hyperscan");
}

std::vector<std::pair<uint32_t, uint32_t>> hits_of(const LiteralScreen& screen, std::string_view text) {
  std::vector<LiteralScreen::Hit> hits;
  REQUIRE(screen.scan(text, hits));
  std::vector<std::pair<uint32_t, uint32_t>> out;
  for (const auto& hit : hits) out.emplace_back(hit.end, hit.literal);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST_CASE("a job's literals are the rules' then the other stages', and only the rules' have owners") {
  const auto& engine = faultline::testing::shipped_engine();
  auto literals = faultline::job::job_literals(engine);
  REQUIRE(literals);
  const auto& rule_literals = *engine.screen_literals();
  REQUIRE(literals->size() > rule_literals.size());
  for (size_t i = 0; i < literals->size(); ++i) {
    const auto& declared = (*literals)[i];
    if (i < rule_literals.size()) {
      CHECK(declared.literal.text == rule_literals[i].literal.text);
      CHECK_FALSE(declared.owners.empty());
    } else {
      CHECK(declared.owners.empty());
    }
  }
  auto has = [&](std::string_view text, Stop stop) {
    return std::any_of(literals->begin(), literals->end(), [&](const auto& declared) {
      return declared.literal.text == text && declared.stop == stop;
    });
  };
  CHECK(has("Traceback", Stop::kRead));   // an event opener
  CHECK(has("comm 0x", Stop::kLesson));   // a line the process table learns from
  CHECK(has("\x1b", Stop::kWholeBlock));  // an escape introducer
}

TEST_CASE("the shipped screen is prebuilt, and finds what a screen compiled afresh finds" *
          with_hyperscan()) {
  const auto& engine = faultline::testing::shipped_engine();
  auto screens = faultline::job::make_screens(engine);
  REQUIRE(screens->prebuilt());
  std::vector<LiteralScreen::Literal> texts;
  for (const auto& declared : *screens->literals()) texts.push_back(declared.literal);
  LiteralScreen fresh(texts);
  std::string text =
      "[rank3]: RuntimeError: CUDA error: an illegal memory access was encountered\n"
      "node1:9042:9312 [1] NCCL INFO comm 0x55d5 rank 1 nranks 8 - Init COMPLETE\n"
      "torch.distributed.elastic.multiprocessing.api: failed (exitcode: -9) local_rank: 3\n"
      "\x1b[31mERROR\x1b[0m Watchdog caught collective operation timeout: WorkNCCL(SeqNum=9)\n";
  auto expected = hits_of(fresh, text);
  CHECK(expected.size() > 5);
  CHECK(hits_of(*screens->prebuilt(), text) == expected);
}

TEST_CASE("the literals stay off the lines of a healthy torchrun log" * with_hyperscan()) {
  // A sparse read parses the lines the literal screen hits (and a few before them): a literal
  // that common words hold (say 'fault', in every "[default1]:" prefix) makes it read nearly all
  // of a log. Lines a healthy multi-rank job prints by the million must not be hit.
  auto screens = faultline::job::make_screens(faultline::testing::shipped_engine());
  const auto* screen = screens->prebuilt();
  REQUIRE(screen);
  const std::vector<std::string> healthy = {
      "[default1]:[rank1]:     forward-compute ................................: (685.33, 686.62)",
      "[default3]:[rank3]:     optimizer ......................................: (316.95, 320.17)",
      "node1:9042:9313 [1] NCCL INFO 32 coll channels, 32 collnet channels, 0 nvls channels, 32 p2p channels",
      "node1:9055:9307 [3] NCCL INFO Channel 00/0 : 3[3] -> 4[4] via P2P/IPC",
      "[rank5]: [2024-11-29 12:27:25,705] [INFO] [timer.py:260:stop] "
      "epoch=0/micro_step=56024/global_step=7003, "
      "RunningAvgSamplesPerSec=818.600, CurrSamplesPerSec=822.200, MemAllocated=43.21GB",
      "[rank0]: iteration     1200/  100000 | consumed samples:      2457600 | elapsed time per iteration "
      "(ms): "
      "812.4 | learning rate: 2.999E-04 | global batch size:  2048 | lm loss: 2.412E+00 | loss scale: 1.0 | "
      "grad norm: 0.311 | number of skipped iterations:   0 | number of nan iterations:   0 |",
      "[rank2]: {'loss': 1.9344, 'grad_norm': 3.11, 'learning_rate': 2e-05, 'epoch': 0.42}",
      " 42%|████▏     | 1310/3120 [12:03<16:40,  1.81it/s]",
      "INFO 11-30 09:15:22 [loggers.py:116] Engine 000: Avg prompt throughput: 8123.4 tokens/s, Avg "
      "generation "
      "throughput: 412.0 tokens/s, Running: 64 reqs, Waiting: 0 reqs, GPU KV cache usage: 38.1%",
  };
  for (const auto& line : healthy) {
    CAPTURE(line);
    std::vector<LiteralScreen::Hit> hits;
    REQUIRE(screen->scan(line + "\n", hits));
    std::vector<std::string> found;
    for (const auto& hit : hits) found.push_back((*screens->literals())[hit.literal].literal.text);
    CHECK(found == std::vector<std::string>{});
  }
}
